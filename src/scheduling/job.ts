/**
 * The Job integration (KEP 5547, feature gate WorkloadWithJob), as the Job controller wires the
 * workload builder: a plain batch/v1 Job with an optional `spec.scheduling` becomes one Workload
 * with a single PodGroupTemplate `<job>-pgt-0` and one PodGroup, both owned by the Job, and each
 * pod of the Job gets `spec.schedulingGroup.podGroupName`.
 *
 * Defaults: no `spec.scheduling` (or no policy) means the basic policy, and a Workload and
 * PodGroup are still created; a gang policy without `minCount` gets max(1, parallelism), with an
 * unset parallelism counting as 1. The pod template's priorityClassName is the template's. Names and
 * objects are the Job controller's (k8s.io/kubernetes v1.37.2 pkg/controller/job); the Job API's
 * validation of `spec.scheduling` is job-validation.ts's.
 */

import { fromExistingWorkload, newBuilder, type BuildResult } from "./builder.js";
import type { SchedulingConfigFunc, WorkloadInput, WorkloadItem } from "./config.js";
import { generatePodGroupName, generateWorkloadName, podGroupTemplateName } from "./naming.js";
import {
  SCHEDULING_V1BETA1,
  type Job,
  type JobSchedulingConfiguration,
  type OwnerReference,
  type PodGroup,
  type PodSchedulingGroup,
  type Workload,
} from "./types.js";

/** What the Job controller creates for one Job. */
export interface JobWorkloadObjects {
  /** `<job>-pgt-0`. */
  templateName: string;
  workload: Workload;
  podGroup: PodGroup;
  /** The value every pod of the Job carries in `spec.schedulingGroup`. */
  schedulingGroup: PodSchedulingGroup;
}

/** Options of {@link compileJob}. */
export interface CompileJobOptions {
  /** UID of the stored Workload: when known, the PodGroup also gets a non-controller owner reference to it. */
  workloadUID?: string;
}

/** The Job's building blocks, each paired with its path under `spec.scheduling` (the Job API's `WorkloadInput`). */
export function jobWorkloadInput(scheduling: JobSchedulingConfiguration | undefined): WorkloadInput {
  const s = scheduling ?? {};
  const input: WorkloadInput = {
    policy: { pathElements: ["schedulingPolicy"] },
    constraints: { pathElements: ["schedulingConstraints"] },
    disruptionMode: { pathElements: ["disruptionMode"] },
    resourceClaims: { pathElements: ["resourceClaims"] },
  };
  if (s.schedulingPolicy != null) input.policy!.podGroupData = s.schedulingPolicy;
  if (s.schedulingConstraints != null) input.constraints!.podGroupData = s.schedulingConstraints;
  if (s.disruptionMode != null) input.disruptionMode!.podGroupData = s.disruptionMode;
  if (s.resourceClaims != null) input.resourceClaims!.podGroupData = s.resourceClaims;
  return input;
}

/** Defaults an unset gang minCount to max(1, parallelism), parallelism 1 when unset; never writes back to the Job. */
export function defaultMinCountFromParallelism(parallelism: number | null | undefined): SchedulingConfigFunc {
  return (cfg) => {
    const gang = cfg.policy?.gang;
    if (gang != null && gang.minCount == null) gang.minCount = Math.max(1, parallelism ?? 1);
  };
}

/**
 * The single-item tree of a Job (k8s.io/kubernetes `WorkloadItemForJob`): the template's name, basic
 * by default with the pod template's priority class, the Job's blocks over it, the minCount callback.
 */
export function jobItem(name: string, job: Job, path: string | undefined, input: WorkloadInput): WorkloadItem {
  const priorityClassName = job.spec?.template?.spec?.priorityClassName;
  const item: WorkloadItem = {
    name,
    defaultConfig: { policy: { basic: {} }, ...(priorityClassName ? { priorityClassName } : {}) },
    input,
    callbacks: [defaultMinCountFromParallelism(job.spec?.parallelism)],
  };
  if (path !== undefined) item.path = path;
  return item;
}

/** The tree the Job controller hands to the builder: template `<job>-pgt-0`, no path (it never validates). */
export function jobWorkloadItem(job: Job): WorkloadItem {
  const s = job.spec?.scheduling;
  return jobItem(podGroupTemplateName(job.metadata?.name ?? "", 0), job, undefined, s != null ? jobWorkloadInput(s) : {});
}

/** `metav1.NewControllerRef(job, batch/v1 Job)`. */
export function jobControllerRef(job: Job): OwnerReference {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    name: job.metadata.name ?? "",
    uid: job.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * Compile a Job into the Workload and PodGroup the Job controller creates for a new root Job, and the
 * pod `spec.schedulingGroup` value: the Workload compiled by the builder, named after the Job and
 * hashing its UID, owned by it; the PodGroup made from the Workload's (single) template, owned by the
 * Job and, when the stored Workload's UID is known, by the Workload too (not as controller). The Job
 * must have a name and a UID.
 */
export function compileJob(job: Job, options: CompileJobOptions = {}): BuildResult<JobWorkloadObjects> {
  if (!job.metadata?.name) return { ok: false, error: "the Job has no metadata.name" };
  if (!job.metadata.uid) return { ok: false, error: "the Job has no metadata.uid: the Workload name is derived from it" };
  const owner = jobControllerRef(job);
  const built = newBuilder(jobWorkloadItem(job), {
    name: generateWorkloadName(job.metadata.name, job.metadata.uid),
    ...(job.metadata.namespace ? { namespace: job.metadata.namespace } : {}),
    owner,
  }).buildWorkload();
  if (!built.ok) return built;
  const workload = built.value;
  const template = workload.spec.podGroupTemplates?.[0];
  if (template === undefined) return { ok: false, error: `workload ${workload.metadata.namespace ?? ""}/${workload.metadata.name ?? ""} has no PodGroupTemplates` };
  const podGroupName = generatePodGroupName(workload.metadata.name ?? "", template.name);
  const pg = fromExistingWorkload(workload, { owner }).newPodGroup(podGroupName, template.name);
  if (!pg.ok) return pg;
  const podGroup = pg.value;
  if (options.workloadUID !== undefined) {
    // The Workload is a non-controller owner, so deleting it is never blocked by the PodGroup.
    podGroup.metadata.ownerReferences = [
      ...(podGroup.metadata.ownerReferences ?? []),
      { apiVersion: SCHEDULING_V1BETA1, kind: "Workload", name: workload.metadata.name ?? "", uid: options.workloadUID },
    ];
  }
  return { ok: true, value: { templateName: template.name, workload, podGroup, schedulingGroup: { podGroupName } } };
}
