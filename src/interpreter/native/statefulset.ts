/** Built-in interpretation of apps/v1 StatefulSet. */
import type { AggregatedStatusItem, DependentObjectReference, JsonValue, KubeObject, Outcome, ReplicaResult } from "../types.js";
import { asObjectArray, generation, getField, getObject, intOr0, ok, stringField } from "./common.js";
import { type CountedStatusShape, aggregateCounted, reflectCounted } from "./counted-status.js";
import { applyReplica, replicasAndTemplate, templateDependencies } from "./workload.js";

const SHAPE: CountedStatusShape = {
  counters: ["availableReplicas", "currentReplicas", "readyReplicas", "replicas", "updatedReplicas"],
  alwaysWritten: ["replicas", "availableReplicas"],
  // Karmada's StatefulSet reflection does not carry observedGeneration, and its aggregation compares a
  // member's template generation with the member's own generation.
  reflectsObservedGeneration: false,
  templateGenerationAgainst: "member",
  nothingWhenEmpty: false,
};

/** InterpretReplica: `spec.replicas` and the pod template's requirements. */
export function getReplicas(obj: KubeObject): Outcome<ReplicaResult> {
  return replicasAndTemplate(obj);
}

/** ReviseReplica: sets `spec.replicas` when present. */
export function reviseReplica(obj: KubeObject, replicas: number): Outcome<KubeObject> {
  return applyReplica(obj, replicas, "replicas");
}

/** AggregateStatus: the replica counters summed over members. */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  return aggregateCounted(SHAPE, obj, items);
}

/** InterpretStatus: the replica counters with the member's generations. */
export function reflectStatus(obj: KubeObject): Outcome<JsonValue | undefined> {
  return reflectCounted(SHAPE, obj);
}

/** InterpretHealth: as Deployment's. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  if (intOr0(obj, "status", "observedGeneration") !== generation(obj)) return ok(false);
  const replicas = getField(obj, "spec", "replicas");
  if (typeof replicas === "number" && intOr0(obj, "status", "updatedReplicas") < replicas) return ok(false);
  return ok(intOr0(obj, "status", "availableReplicas") >= intOr0(obj, "status", "updatedReplicas"));
}

/** InterpretDependency: the pod template's dependencies, minus PVCs the volumeClaimTemplates create. */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  const deps = templateDependencies(obj, getObject(obj, "spec", "template"));
  if (!deps.ok) return deps;
  const claimTemplates = new Set(asObjectArray(getField(obj, "spec", "volumeClaimTemplates")).map((t) => stringField(t, "metadata", "name")));
  if (claimTemplates.size === 0) return deps;
  return ok(deps.value.filter((d) => d.kind !== "PersistentVolumeClaim" || !claimTemplates.has(d.name ?? "")));
}
