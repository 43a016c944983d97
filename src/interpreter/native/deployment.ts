/** Built-in interpretation of apps/v1 Deployment (pkg/resourceinterpreter/default/native). */
import type { AggregatedStatusItem, DependentObjectReference, JsonValue, KubeObject, Outcome, ReplicaResult } from "../types.js";
import { clone, generation, getField, getObject, intOr0, nativeFail, ok, setField, stringField } from "./common.js";
import { type CountedStatusShape, aggregateCounted, reflectCounted } from "./counted-status.js";
import { applyReplica, replicasAndTemplate, templateDependencies } from "./workload.js";

/** The label that asks Karmada to keep the member cluster's replicas (e.g. under a member HPA). */
export const RETAIN_REPLICAS_LABEL = "resourcetemplate.karmada.io/retain-replicas";

/** InterpretReplica: `spec.replicas` and the pod template's requirements. */
export function getReplicas(obj: KubeObject): Outcome<ReplicaResult> {
  return replicasAndTemplate(obj);
}

/** ReviseReplica: sets `spec.replicas` when present. */
export function reviseReplica(obj: KubeObject, replicas: number): Outcome<KubeObject> {
  return applyReplica(obj, replicas, "replicas");
}

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
 * AggregateStatus: the members' counters summed; observedGeneration becomes the template's generation
 * only when every member has observed its own generation and the latest template generation.
 */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  return aggregateCounted(SHAPE, obj, items);
}

/** InterpretStatus: the counters with the member's generation and template generation; nothing when all are zero. */
export function reflectStatus(obj: KubeObject): Outcome<JsonValue | undefined> {
  return reflectCounted(SHAPE, obj);
}

/** InterpretHealth: the latest generation observed, all replicas updated, all updated ones available. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  if (intOr0(obj, "status", "observedGeneration") !== generation(obj)) return ok(false);
  const replicas = getField(obj, "spec", "replicas");
  if (typeof replicas === "number" && intOr0(obj, "status", "updatedReplicas") < replicas) return ok(false);
  return ok(intOr0(obj, "status", "availableReplicas") >= intOr0(obj, "status", "updatedReplicas"));
}

/** InterpretDependency: ConfigMaps, Secrets, ServiceAccount and PVCs of the pod template. */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  return templateDependencies(obj, getObject(obj, "spec", "template"));
}
