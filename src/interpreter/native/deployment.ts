/** Built-in interpretation of apps/v1 Deployment (pkg/resourceinterpreter/default/native). */
import type { KubeObject, Outcome } from "../types.js";
import { clone, getField, nativeFail, ok, setField, stringField } from "./common.js";
import type { CountedStatusShape } from "./counted-status.js";
import { replicatedWorkload, rolledOut, specTemplateDependencies } from "./workload.js";

/** The label that asks Karmada to keep the member cluster's replicas (e.g. under a member HPA). */
export const RETAIN_REPLICAS_LABEL = "resourcetemplate.karmada.io/retain-replicas";

/** Retain: with the retain-replicas label set to "true", the member cluster's `spec.replicas` is kept. */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  if (stringField(desired, "metadata", "labels", RETAIN_REPLICAS_LABEL) !== "true") return ok(clone(desired));
  const replicas = getField(observed, "spec", "replicas");
  if (typeof replicas !== "number" || !Number.isInteger(replicas)) {
    const ns = stringField(observed, "metadata", "namespace");
    const name = stringField(observed, "metadata", "name");
    return nativeFail("Retain", `failed to get spec.replicas from ${stringField(observed, "kind")} ${ns}/${name}`, "spec.replicas");
  }
  const out = clone(desired);
  setField(out, replicas, "spec", "replicas");
  return ok(out);
}

const SHAPE: CountedStatusShape = {
  counters: ["replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"],
  alwaysWritten: [],
  reflectsObservedGeneration: true,
  templateGenerationAgainst: "template",
  nothingWhenEmpty: true,
};

/**
 * InterpretReplica, ReviseReplica (`spec.replicas`); AggregateStatus: the members' counters summed, with
 * observedGeneration the template's generation only when every member has observed its own generation
 * and the latest template generation; InterpretStatus: the counters with the member's generations,
 * nothing when all are zero.
 */
export const { getReplicas, reviseReplica, aggregateStatus, reflectStatus } = replicatedWorkload(SHAPE);

/** InterpretHealth: the latest generation observed, all replicas updated, all updated ones available. */
export const interpretHealth = rolledOut;

/** InterpretDependency: ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template. */
export const getDependencies = specTemplateDependencies;
