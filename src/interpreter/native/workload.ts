/** Operations shared by the pod-template workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob). */
import { accuratePodRequirements, podDependencies } from "../../resources/index.js";
import type { AggregatedStatusItem, DependentObjectReference, JsonValue, KubeObject, Outcome, ReplicaRequirements, ReplicaResult } from "../types.js";
import { clone, generation, getField, getObject, intOr0, typedInt32, namespaceOf, nativeFail, ok, setField, verifyDependencies } from "./common.js";
import { type CountedStatusShape, aggregateCounted, reflectCounted } from "./counted-status.js";
import { nestedInt64 } from "./unstructured.js";

/**
 * InterpretReplica's result: `replicas` with the requirements of one replica of the pod template
 * (helper.GenerateReplicaRequirements). Karmada converts the object to its typed form first, so a
 * quantity that does not parse is an error; `prefix` is the template's field path, for the message.
 */
export function withTemplateRequirements(replicas: number, template: unknown, prefix: string): Outcome<ReplicaResult> {
  const { value, issues } = accuratePodRequirements(template ?? {});
  const issue = issues[0];
  if (issue !== undefined) return nativeFail("InterpretReplica", issue.message, [prefix, issue.path].filter((p) => p !== "").join("."));
  const result: ReplicaResult = { replicas };
  if (value !== undefined) result.replicaRequirements = value as ReplicaRequirements;
  return ok(result);
}

/** InterpretReplica for `spec.replicas` workloads: the replicas (0 when unset) and the template's requirements. */
export function replicasAndTemplate(obj: KubeObject): Outcome<ReplicaResult> {
  const r = typedInt32(obj, "spec", "replicas");
  if ("error" in r) return nativeFail("InterpretReplica", r.error, "spec.replicas");
  return withTemplateRequirements(r.value, getObject(obj, "spec", "template"), "spec.template");
}

/**
 * Karmada's ApplyReplica: sets `spec.<field>` only when the field is already there. It reads the field
 * with NestedInt64, so a field that is present but null (or not an integer) is an error.
 */
export function applyReplica(obj: KubeObject, replicas: number, field: string): Outcome<KubeObject> {
  const r = nestedInt64(obj, "spec", field);
  if ("error" in r) return nativeFail("ReviseReplica", r.error, `spec.${field}`);
  const out = clone(obj);
  if (r.found) setField(out, replicas, "spec", field);
  return ok(out);
}

/** Dependencies of a pod template in the object's namespace, checked as Karmada checks them. */
export function templateDependencies(obj: KubeObject, template: unknown): Outcome<DependentObjectReference[]> {
  return verifyDependencies(podDependencies(template ?? {}, namespaceOf(obj)) ?? []);
}

/** InterpretDependency through `spec.template`. */
export function specTemplateDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  return templateDependencies(obj, getObject(obj, "spec", "template"));
}

/** AggregateStatus and InterpretStatus for a workload whose status is a set of counters. */
export function countedStatus(shape: CountedStatusShape): {
  aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject>;
  reflectStatus(obj: KubeObject): Outcome<JsonValue | undefined>;
} {
  return {
    aggregateStatus: (obj, items) => aggregateCounted(shape, obj, items),
    reflectStatus: (obj) => reflectCounted(shape, obj),
  };
}

/**
 * What Deployment, ReplicaSet and StatefulSet share: `spec.replicas` with the template's requirements
 * (InterpretReplica, ReviseReplica) and counted status (AggregateStatus, InterpretStatus).
 */
export function replicatedWorkload(shape: CountedStatusShape): ReturnType<typeof countedStatus> & {
  getReplicas(obj: KubeObject): Outcome<ReplicaResult>;
  reviseReplica(obj: KubeObject, replicas: number): Outcome<KubeObject>;
} {
  return {
    ...countedStatus(shape),
    getReplicas: replicasAndTemplate,
    reviseReplica: (obj, replicas) => applyReplica(obj, replicas, "replicas"),
  };
}

/** InterpretHealth of Deployment and StatefulSet: latest generation observed, all replicas updated, all updated ones available. */
export function rolledOut(obj: KubeObject): Outcome<boolean> {
  if (intOr0(obj, "status", "observedGeneration") !== generation(obj)) return ok(false);
  const replicas = getField(obj, "spec", "replicas");
  if (typeof replicas === "number" && intOr0(obj, "status", "updatedReplicas") < replicas) return ok(false);
  return ok(intOr0(obj, "status", "availableReplicas") >= intOr0(obj, "status", "updatedReplicas"));
}
