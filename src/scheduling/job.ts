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
import { goQuote } from "../gofmt/index.js";
import { generatePodGroupName, generateWorkloadName, podGroupTemplateName } from "./naming.js";
import {
  GROUP_TEMPLATE_NAME_ANNOTATION,
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
  /** The template its PodGroup is made from: `<job>-pgt-0`, or the parent's template of a delegated Job. */
  templateName: string;
  /** The Workload the controller creates (a root Job), absent for a delegated Job (its parent owns the Workload). */
  workload?: Workload;
  podGroup: PodGroup;
  /** The value every pod of the Job carries in `spec.schedulingGroup`. */
  schedulingGroup: PodSchedulingGroup;
}

/** Options of {@link compileJob}. */
export interface CompileJobOptions {
  /** UID of the stored Workload: when known, the PodGroup also gets a non-controller owner reference to it. */
  workloadUID?: string;
  /**
   * For a Job whose controller owner delegated its PodGroup to the Job controller (the annotation
   * `scheduling.k8s.io/group-template-name` naming the parent's template): the parent's Workload, whose `spec.controllerRef` names
   * the Job's controller owner.
   */
  parentWorkload?: Workload;
}

/** The Job controller's own name for `spec.managedBy`: any other (Kueue's MultiKueue, say) is an external controller. */
export const JOB_CONTROLLER_NAME = "kubernetes.io/job-controller";

/** Whether another controller manages the Job (`spec.managedBy`): the Job controller does not sync it at all. */
export function externallyManaged(job: Job): boolean {
  const by = job.spec?.managedBy;
  return by != null && by !== JOB_CONTROLLER_NAME;
}

/** What the Job controller manages for a Job (its `getManagementMode`, the feature gate on). */
export type JobManagement = "none" | "workload-and-podgroup" | "podgroup-only";

/**
 * Nothing when the pods already name a PodGroup; the Workload and the PodGroup for a Job without a
 * controller owner (a root Job); only the PodGroup when the controller owner delegated it; else nothing.
 */
export function jobManagement(job: Job): JobManagement {
  if (externallyManaged(job)) return "none";
  if (job.spec?.template?.spec?.schedulingGroup != null) return "none";
  const owner = (job.metadata?.ownerReferences ?? []).find((o) => o.controller === true);
  if (owner === undefined) return "workload-and-podgroup";
  return job.metadata?.annotations?.[GROUP_TEMPLATE_NAME_ANNOTATION] !== undefined ? "podgroup-only" : "none";
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
 * Compile a Job into what the Job controller creates for a new Job: for a root Job the Workload compiled
 * by the builder, named after the Job and hashing its UID, owned by it, and the PodGroup made from its
 * (single) template, owned by the Job and, when the stored Workload's UID is known, by the Workload too
 * (not as controller); for a delegated Job only the PodGroup, made from the parent's Workload template the
 * annotation names. The Job must have a name and a UID. A Job the controller manages nothing for (its pods
 * name a PodGroup already, or its controller owner did not delegate) is an error saying so.
 */
export function compileJob(job: Job, options: CompileJobOptions = {}): BuildResult<JobWorkloadObjects> {
  if (!job.metadata?.name) return { ok: false, error: "the Job has no metadata.name" };
  if (!job.metadata.uid) return { ok: false, error: "the Job has no metadata.uid: the Workload name is derived from it" };
  const owner = jobControllerRef(job);
  switch (jobManagement(job)) {
    case "none":
      return {
        ok: false,
        error: externallyManaged(job)
          ? `the Job is managed by ${String(job.spec.managedBy)} (spec.managedBy): the Job controller does not sync it and creates no Workload or PodGroup`
          : job.spec?.template?.spec?.schedulingGroup != null
            ? "the Job's pod template names its PodGroup already (spec.template.spec.schedulingGroup): the Job controller creates no Workload or PodGroup"
            : `the Job has a controller owner that did not delegate its PodGroup (no ${GROUP_TEMPLATE_NAME_ANNOTATION} annotation): the Job controller creates no Workload or PodGroup`,
      };
    case "podgroup-only":
      return delegatedPodGroup(job, owner, options.parentWorkload);
    case "workload-and-podgroup":
      break;
  }
  const built = newBuilder(jobWorkloadItem(job), {
    name: generateWorkloadName(job.metadata.name, job.metadata.uid),
    ...(job.metadata.namespace ? { namespace: job.metadata.namespace } : {}),
    owner,
  }).buildWorkload();
  if (!built.ok) return built;
  const workload = built.value;
  const made = podGroupOf(workload, "", owner);
  if (!made.ok) return made;
  const { templateName, podGroup, schedulingGroup } = made.value;
  if (options.workloadUID !== undefined) {
    // The Workload is a non-controller owner, so deleting it is never blocked by the PodGroup.
    podGroup.metadata.ownerReferences = [
      ...(podGroup.metadata.ownerReferences ?? []),
      { apiVersion: SCHEDULING_V1BETA1, kind: "Workload", name: workload.metadata.name ?? "", uid: options.workloadUID },
    ];
  }
  return { ok: true, value: { templateName, workload, podGroup, schedulingGroup } };
}

/** The PodGroup of a Workload's template of that name (the first template for ""), owned by the Job (the controller's `createPodGroup`). */
function podGroupOf(workload: Workload, templateName: string, owner: OwnerReference): BuildResult<Omit<JobWorkloadObjects, "workload">> {
  const templates = workload.spec?.podGroupTemplates ?? [];
  const where = `${workload.metadata?.namespace ?? ""}/${workload.metadata?.name ?? ""}`;
  if (templates.length === 0) return { ok: false, error: `workload ${where} has no PodGroupTemplates` };
  const template = templateName === "" ? templates[0] : templates.find((t) => t.name === templateName);
  if (template === undefined) return { ok: false, error: `PodGroupTemplate ${goQuote(templateName)} not found in workload ${where}` };
  const podGroupName = generatePodGroupName(workload.metadata?.name ?? "", template.name);
  const pg = fromExistingWorkload(workload, { owner }).newPodGroup(podGroupName, template.name);
  if (!pg.ok) return pg;
  return { ok: true, value: { templateName: template.name, podGroup: pg.value, schedulingGroup: { podGroupName } } };
}

/** A delegated Job's PodGroup, from the parent's Workload (whose controllerRef names the Job's controller owner). */
function delegatedPodGroup(job: Job, owner: OwnerReference, parent: Workload | undefined): BuildResult<JobWorkloadObjects> {
  const controller = (job.metadata.ownerReferences ?? []).find((o) => o.controller === true)!;
  const slash = (controller.apiVersion ?? "").split("/");
  const group = slash.length === 2 ? slash[0] : "";
  const ref = parent?.spec?.controllerRef;
  // The Job controller lists the parent's Workload in the Job's own namespace only.
  const sameNamespace = (parent?.metadata?.namespace ?? "") === (job.metadata.namespace ?? "");
  if (parent === undefined || !sameNamespace || ref === undefined || (ref.apiGroup ?? "") !== group || ref.kind !== controller.kind || ref.name !== controller.name) {
    return { ok: false, error: `the Job's PodGroup is delegated by its owner ${controller.kind}/${controller.name}: the Job controller waits for that owner's Workload` };
  }
  return podGroupOf(parent, job.metadata.annotations?.[GROUP_TEMPLATE_NAME_ANNOTATION] ?? "", owner);
}
