/** Built-in interpretation of apps/v1 ReplicaSet. */
import type { AggregatedStatusItem, DependentObjectReference, JsonValue, KubeObject, Outcome, ReplicaResult } from "../types.js";
import { generation, getField, getObject, intOr0, ok } from "./common.js";
import { type CountedStatusShape, aggregateCounted, reflectCounted } from "./counted-status.js";
import { applyReplica, replicasAndTemplate, templateDependencies } from "./workload.js";

const SHAPE: CountedStatusShape = {
  counters: ["replicas", "readyReplicas", "availableReplicas"],
  alwaysWritten: ["replicas"],
  reflectsObservedGeneration: true,
  templateGenerationAgainst: "template",
  nothingWhenEmpty: true,
};

/** InterpretReplica: `spec.replicas` and the pod template's requirements. */
export function getReplicas(obj: KubeObject): Outcome<ReplicaResult> {
  return replicasAndTemplate(obj);
}

/** ReviseReplica: sets `spec.replicas` when present. */
export function reviseReplica(obj: KubeObject, replicas: number): Outcome<KubeObject> {
  return applyReplica(obj, replicas, "replicas");
}

/** AggregateStatus: replicas, readyReplicas and availableReplicas summed over members. */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  return aggregateCounted(SHAPE, obj, items);
}

/** InterpretStatus: the counters with the member's generations. */
export function reflectStatus(obj: KubeObject): Outcome<JsonValue | undefined> {
  return reflectCounted(SHAPE, obj);
}

/** InterpretHealth: the latest generation observed and every desired replica available. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  if (intOr0(obj, "status", "observedGeneration") !== generation(obj)) return ok(false);
  const replicas = getField(obj, "spec", "replicas");
  return ok(!(typeof replicas === "number" && intOr0(obj, "status", "availableReplicas") < replicas));
}

/** InterpretDependency: the pod template's ConfigMaps, Secrets, ServiceAccount and PVCs. */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  return templateDependencies(obj, getObject(obj, "spec", "template"));
}
