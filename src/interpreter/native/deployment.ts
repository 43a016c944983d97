/** Built-in interpretation of apps/v1 Deployment (pkg/resourceinterpreter/default/native). */
import type { KubeObject, Outcome } from "../types.js";
import { clone, nativeFail, ok, stringField } from "./common.js";
import { nestedInt64, nestedStringMap, setNestedField } from "./unstructured.js";
import type { CountedStatusShape } from "./counted-status.js";
import { replicatedWorkload, rolledOut, specTemplateDependencies } from "./workload.js";

/** The label that asks Karmada to keep the member cluster's replicas (e.g. under a member HPA). */
export const RETAIN_REPLICAS_LABEL = "resourcetemplate.karmada.io/retain-replicas";

/** "<kind> <namespace>/<name>" of an object, as Karmada names it in Retain errors. */
function describe(obj: KubeObject): string {
  return `${stringField(obj, "kind")} ${stringField(obj, "metadata", "namespace")}/${stringField(obj, "metadata", "name")}`;
}

/**
 * Retain: with the retain-replicas label set to "true", the member cluster's `spec.replicas` is kept.
 * The desired labels must be a map of strings and the observed replicas an integer (Karmada reads both
 * with unstructured accessors).
 */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  const labels = nestedStringMap(desired, "metadata", "labels");
  if ("error" in labels) return nativeFail("Retain", `failed to get metadata.label from desired.Object: ${labels.error}`, "metadata.labels");
  if (!labels.found || labels.value[RETAIN_REPLICAS_LABEL] !== "true") return ok(clone(desired));
  const replicas = nestedInt64(observed, "spec", "replicas");
  if (!("found" in replicas) || !replicas.found) {
    return nativeFail("Retain", `failed to get spec.replicas from ${describe(observed)}`, "spec.replicas");
  }
  const out = clone(desired);
  if (setNestedField(out, replicas.value, "spec", "replicas") !== undefined) {
    return nativeFail("Retain", `failed to set spec.replicas to ${describe(desired)}`, "spec.replicas");
  }
  return ok(out);
}

const SHAPE: CountedStatusShape = {
  counters: ["replicas", "updatedReplicas", "readyReplicas", "availableReplicas", "unavailableReplicas"],
  alwaysWritten: [],
  reflectsObservedGeneration: true,
  templateGenerationAgainst: "template",
  nothingWhenEmpty: true,
  specInts: [["replicas", "int32"]],
  typedStatus: {
    name: "DeploymentStatus",
    fields: [
      ["observedGeneration", "int64"],
      ["replicas", "int32"],
      ["updatedReplicas", "int32"],
      ["readyReplicas", "int32"],
      ["availableReplicas", "int32"],
      ["unavailableReplicas", "int32"],
      ["terminatingReplicas", "int32"],
      ["collisionCount", "int32"],
    ],
  },
  memberGoType: "native.WrappedDeploymentStatus",
};

/**
 * InterpretReplica, ReviseReplica (`spec.replicas`); AggregateStatus: the members' counters summed, with
 * observedGeneration the template's generation only when every member has observed its own generation
 * and the latest template generation; InterpretStatus: the counters with the member's generations,
 * nothing when all are zero.
 */
export const { getReplicas, reviseReplica, aggregateStatus, reflectStatus } = replicatedWorkload(SHAPE);

/** InterpretHealth: the latest generation observed, all replicas updated, all updated ones available. */
export const interpretHealth = rolledOut(SHAPE.typedStatus.fields);

/** InterpretDependency: ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template. */
export const getDependencies = specTemplateDependencies;
