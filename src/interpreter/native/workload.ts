/** Operations shared by the pod-template workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob). */
import { accuratePodRequirements, podDependencies } from "../../resources/index.js";
import type { DependentObjectReference, KubeObject, Outcome, ReplicaRequirements, ReplicaResult } from "../types.js";
import { clone, getObject, intField, namespaceOf, nativeFail, ok, setField, verifyDependencies } from "./common.js";

/** Karmada's requirements of one replica of a pod template (helper.GenerateReplicaRequirements). */
export function templateRequirements(template: unknown): ReplicaRequirements | undefined {
  return accuratePodRequirements(template ?? {}).value as ReplicaRequirements | undefined;
}

/** InterpretReplica for `spec.replicas` workloads: the replicas (0 when unset) and the template's requirements. */
export function replicasAndTemplate(obj: KubeObject): Outcome<ReplicaResult> {
  const r = intField(obj, "spec", "replicas");
  if ("error" in r) return nativeFail("InterpretReplica", r.error, "spec.replicas");
  const result: ReplicaResult = { replicas: r.value };
  const requirements = templateRequirements(getObject(obj, "spec", "template"));
  if (requirements !== undefined) result.replicaRequirements = requirements;
  return ok(result);
}

/** Karmada's ApplyReplica: sets `spec.<field>` only when the field is already there. */
export function applyReplica(obj: KubeObject, replicas: number, field: string): Outcome<KubeObject> {
  const r = intField(obj, "spec", field);
  if ("error" in r) return nativeFail("ReviseReplica", r.error, `spec.${field}`);
  const out = clone(obj);
  if (r.present) setField(out, replicas, "spec", field);
  return ok(out);
}

/** Dependencies of a pod template in the object's namespace, checked as Karmada checks them. */
export function templateDependencies(obj: KubeObject, template: unknown): Outcome<DependentObjectReference[]> {
  return verifyDependencies(podDependencies(template ?? {}, namespaceOf(obj)) ?? []);
}
