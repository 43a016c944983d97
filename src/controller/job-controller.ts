/**
 * Jobs the Job controller gangs itself. With its WorkloadWithJob integration on (kube-controller-manager
 * v1.36+), the Job controller makes a Workload and a PodGroup for a root batch/v1 Job (one no other
 * controller owns) before it creates the Job's first pod, and creates every pod in that PodGroup
 * (`spec.schedulingGroup`, with the PodGroup as a non-controller owner). It adopts a Workload of the Job
 * that someone else made first, so Karta must neither race it nor split the Job's pods between two groups.
 * No API tells whether the integration is on; what the Job controller wrote does, and it always writes
 * before the first pod: Karta waits for a root Job's first pod, and leaves the Job alone when that pod,
 * or a Workload or PodGroup of the Job, comes from someone else. (k8s.io/kubernetes v1.37
 * pkg/controller/job/job_scheduling_manager.go: getManagementMode, ensureWorkloadAndPodGroup.)
 */
import type { KubernetesObject } from "./kubernetes-object.js";
import { GROUP_TEMPLATE_NAME_ANNOTATION } from "../scheduling/types.js";
import { controllerRef } from "./owners.js";

/** What the reconciler does with a root object's groups. */
export type JobGangOwner =
  /** Karta makes the groups (not a Job, or one the Job controller does not gang). */
  | "karta"
  /** The Job controller gangs this Job: Karta makes nothing (and removes what it made). */
  | "job-controller"
  /** A root Job without pods yet: whoever gangs it shows with its first pod. */
  | "wait";

type Obj = KubernetesObject & { spec?: { template?: { spec?: { schedulingGroup?: unknown } } } };

function isBatchJob(o: KubernetesObject): boolean {
  return o.kind === "Job" && o.apiVersion === "batch/v1";
}

/**
 * Who gangs `root`: `groups` are the Workload API objects it controls, `pods` its pods, and `ours` tells
 * the objects Karta wrote.
 */
export function jobGangOwner(root: Obj, groups: readonly KubernetesObject[], pods: readonly KubernetesObject[], ours: (o: KubernetesObject) => boolean): JobGangOwner {
  if (!isBatchJob(root)) return "karta";
  // The Job controller leaves alone a Job whose pods name a group already (the user brought it).
  if (root.spec?.template?.spec?.schedulingGroup != null) return "karta";
  // A Job some controller owns is ganged by that controller's Workload, unless it handed the Job's
  // PodGroup over to the Job controller (the group-template-name annotation).
  if (controllerRef(root) !== undefined) return root.metadata?.annotations?.[GROUP_TEMPLATE_NAME_ANNOTATION] !== undefined ? "job-controller" : "karta";
  if (groups.some((g) => !ours(g))) return "job-controller";
  // The Job controller's pods carry their PodGroup as an owner; Karta's webhook adds no owner.
  if (pods.some((p) => (p.metadata?.ownerReferences ?? []).some((r) => r.kind === "PodGroup" && r.apiVersion.startsWith("scheduling.k8s.io/")))) return "job-controller";
  return pods.length === 0 && groups.length === 0 ? "wait" : "karta";
}
