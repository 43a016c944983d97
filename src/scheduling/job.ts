/**
 * The Job integration (KEP 5547, feature gate WorkloadWithJob), as the Job controller wires the
 * workload builder: a plain batch/v1 Job with an optional `spec.scheduling` becomes one Workload
 * with a single PodGroupTemplate `<job>-pgt-0` and one PodGroup, both owned by the Job, and each
 * pod of the Job gets `spec.schedulingGroup.podGroupName`.
 *
 * Defaults: no `spec.scheduling` (or no policy) means the basic policy, and a Workload and
 * PodGroup are still created; a gang policy without `minCount` gets max(1, parallelism), with an
 * unset parallelism counting as 1. The pod template's priorityClassName is the template's.
 */

import { newBuilder, AllMode, BasicPolicy, GangPolicy, SingleMode, type BuildResult } from "./builder.js";
import type { SchedulingConfigFunc, WorkloadInput, WorkloadItem } from "./config.js";
import type { FieldError } from "./fielderrors.js";
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

/** Field path of the Job's scheduling configuration. */
export const JOB_SCHEDULING_PATH = "spec.scheduling";

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

/** The Job's building blocks, each paired with its path under `spec.scheduling`. */
export function jobWorkloadInput(scheduling: JobSchedulingConfiguration | undefined): WorkloadInput {
  const s = scheduling ?? {};
  const input: WorkloadInput = {
    policy: { pathElements: ["schedulingPolicy"] },
    constraints: { pathElements: ["schedulingConstraints"] },
    disruptionMode: { pathElements: ["disruptionMode"] },
    resourceClaims: { pathElements: ["resourceClaims"] },
  };
  if (s.schedulingPolicy !== undefined) input.policy!.podGroupData = s.schedulingPolicy;
  if (s.schedulingConstraints !== undefined) input.constraints!.podGroupData = s.schedulingConstraints;
  if (s.disruptionMode !== undefined) input.disruptionMode!.podGroupData = s.disruptionMode;
  if (s.resourceClaims !== undefined) input.resourceClaims!.podGroupData = s.resourceClaims;
  return input;
}

/** Defaults an unset gang minCount to max(1, parallelism); never writes back to the Job. */
export function defaultMinCountFromParallelism(parallelism: number | undefined): SchedulingConfigFunc {
  return (cfg) => {
    const gang = cfg.policy?.gang;
    if (gang !== undefined && gang.minCount === undefined) gang.minCount = Math.max(1, parallelism ?? 1);
  };
}

/** The single-node tree the Job controller hands to the builder. */
export function jobWorkloadItem(job: Job): WorkloadItem {
  const priorityClassName = job.spec.template.spec.priorityClassName;
  return {
    name: podGroupTemplateName(job.metadata.name ?? "", 0),
    path: JOB_SCHEDULING_PATH,
    defaultConfig: { policy: { basic: {} }, ...(priorityClassName ? { priorityClassName } : {}) },
    input: jobWorkloadInput(job.spec.scheduling),
    callbacks: [defaultMinCountFromParallelism(job.spec.parallelism)],
  };
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

function jobBuilderOptions(job: Job) {
  return {
    name: generateWorkloadName(job.metadata.name ?? "", job.metadata.uid ?? ""),
    ...(job.metadata.namespace !== undefined ? { namespace: job.metadata.namespace } : {}),
    owner: jobControllerRef(job),
    allowedPolicies: [BasicPolicy, GangPolicy],
    allowedDisruptionModes: [SingleMode, AllMode],
  };
}

/**
 * Validate a Job's `spec.scheduling` (a create, or an update against `oldJob`): errors are
 * reported under `spec.scheduling`, and on update only `schedulingPolicy.gang.minCount` may change.
 */
export function validateJobScheduling(job: Job, oldJob?: Job): FieldError[] {
  const builder = newBuilder(jobWorkloadItem(job), jobBuilderOptions(job));
  return builder.validate(oldJob === undefined ? {} : { oldRoot: jobWorkloadItem({ ...oldJob, metadata: { ...oldJob.metadata, name: job.metadata.name } }) });
}

/**
 * Compile a Job into the Workload and PodGroup the Job controller creates, and the pod
 * `spec.schedulingGroup` value. The Job must have a UID: the Workload's name hashes it.
 */
export function compileJob(job: Job, options: CompileJobOptions = {}): BuildResult<JobWorkloadObjects> {
  if (!job.metadata.name) return { ok: false, error: "the Job has no metadata.name" };
  if (!job.metadata.uid) return { ok: false, error: "the Job has no metadata.uid: the Workload name is derived from it" };
  const item = jobWorkloadItem(job);
  const builder = newBuilder(item, jobBuilderOptions(job));
  const built = builder.buildWorkload();
  if (!built.ok) return built;
  const workload = built.value;
  const templateName = item.name;
  const podGroupName = generatePodGroupName(workload.metadata.name ?? "", templateName);
  const pg = builder.newPodGroup(podGroupName, templateName);
  if (!pg.ok) return pg;
  const podGroup = pg.value;
  if (options.workloadUID !== undefined) {
    // The Workload is a non-controller owner, so deleting it is never blocked by the PodGroup.
    podGroup.metadata.ownerReferences = [
      ...(podGroup.metadata.ownerReferences ?? []),
      { apiVersion: SCHEDULING_V1BETA1, kind: "Workload", name: workload.metadata.name ?? "", uid: options.workloadUID },
    ];
  }
  return { ok: true, value: { templateName, workload, podGroup, schedulingGroup: { podGroupName } } };
}
