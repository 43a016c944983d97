/**
 * A plain batch/v1 Job compiled as the Job controller's integration does ({@link compileJob}), with the
 * same result shape and checks as the Karta bridge: `spec.scheduling` validated at its fields, the
 * template name checked (a long Job name makes `<job>-pgt-0` exceed a DNS label), every emitted object
 * validated, and a patch for each of the Job's pods. The user's intent options, when given, replace the
 * matching blocks of `spec.scheduling` (a what-if on the Job as written).
 */
import { fieldErrorBody, invalid, required } from "../fielderrors.js";
import { isDNS1123Label } from "../../names/index.js";
import { compileJob, externallyManaged, jobManagement } from "../job.js";
import { validateJobScheduling } from "../job-validation.js";
import { podGroupTemplateName } from "../naming.js";
import type { Job, JobSchedulingConfiguration } from "../types.js";
import { isInt32, validatePodGroup, validateWorkload } from "../validation.js";
import { podRef } from "../../interpret/index.js";
import { hasErrors, issueFromFieldError, type CompileIssue } from "./issues.js";
import { disruptionBlock, validateSchedulingIntent, type SchedulingIntent } from "./options.js";
import { podLabel, podSchedulingPatch } from "./pod-patch.js";
import type { WorkloadCompilation } from "./compilation.js";
import { isObject } from "../../interpret/plain.js";

/** What to compile beside the Job. */
export interface BatchJobCompileOptions extends SchedulingIntent {
  pods?: readonly unknown[];
}

/** Whether an object is a batch/v1 Job. */
export function isBatchJob(object: unknown): object is Job {
  return isObject(object) && object.apiVersion === "batch/v1" && object.kind === "Job";
}

/** The Job with the intent's blocks in place of its own, and a notice for each block replaced. */
function applyIntent(job: Job, intent: SchedulingIntent, issues: CompileIssue[]): Job {
  const out = structuredClone(job);
  const s: JobSchedulingConfiguration = { ...(out.spec.scheduling ?? {}) };
  const replaced = (field: string): void => {
    issues.push({ severity: "notice", input: "object", path: `spec.scheduling.${field}`, message: "replaced by the command-line option", code: "option-override" });
  };
  if (intent.policy !== undefined) {
    const had = s.schedulingPolicy;
    // Keep the Job's minCount when it asked for a gang already; otherwise parallelism defaults it.
    if (intent.policy === "gang") s.schedulingPolicy = had?.gang !== undefined ? had : { gang: {} };
    else s.schedulingPolicy = { basic: {} };
    if (had !== undefined && (had.gang !== undefined) !== (intent.policy === "gang")) replaced("schedulingPolicy");
  }
  const mode = disruptionBlock(intent);
  if (mode) {
    if (s.disruptionMode !== undefined) replaced("disruptionMode");
    s.disruptionMode = mode;
  }
  if (intent.topologyKey !== undefined) {
    if (s.schedulingConstraints !== undefined) replaced("schedulingConstraints");
    s.schedulingConstraints = { topology: [{ key: intent.topologyKey }] };
  }
  if (Object.keys(s).length > 0) out.spec.scheduling = s;
  if (intent.priorityClassName !== undefined) out.spec.template = { ...out.spec.template, spec: { ...out.spec.template.spec, priorityClassName: intent.priorityClassName } };
  return out;
}

/**
 * Whether a pod belongs to the Job: by its owner references to Jobs when it has any (the UID decides, the
 * name only without one), else by the Job controller's labels (the UID's, else the name's). A pod of an
 * earlier Job of the same name, or of another namespace, is not this Job's.
 */
function isPodOfJob(pod: unknown, job: Job): boolean {
  const meta = isObject(pod) && isObject(pod.metadata) ? pod.metadata : {};
  const { uid, name, namespace } = job.metadata;
  if (typeof meta.namespace === "string" && meta.namespace !== "" && namespace !== undefined && namespace !== "" && meta.namespace !== namespace) return false;
  const owners = (Array.isArray(meta.ownerReferences) ? meta.ownerReferences : []).filter(
    (o): o is Record<string, unknown> => isObject(o) && o.kind === "Job" && typeof o.apiVersion === "string" && o.apiVersion.startsWith("batch/"),
  );
  if (owners.length > 0) return owners.some((o) => (typeof o.uid === "string" && o.uid !== "" ? o.uid === uid : o.name === name));
  const labels = isObject(meta.labels) ? meta.labels : {};
  const labelUid = labels["batch.kubernetes.io/controller-uid"] ?? labels["controller-uid"];
  if (typeof labelUid === "string" && labelUid !== "") return labelUid === uid;
  return labels["batch.kubernetes.io/job-name"] === name || labels["job-name"] === name;
}

/**
 * Why the Job controller makes nothing for the Job now, when it would not: a finished Job is not synced,
 * and one that has started (its pods, start time, counters, a Suspended condition: its isNewJob) only finds
 * the objects it made when the Job was new, and makes none for a Job that predates them.
 */
function jobLifecycle(job: Job, hasPods: boolean): string | undefined {
  const status = isObject(job.status) ? job.status : {};
  const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(isObject);
  const finished = conditions.find((c) => (c.type === "Complete" || c.type === "Failed") && c.status === "True");
  if (finished) return `the Job has finished (condition ${String(finished.type)}): the Job controller no longer syncs it; these are the objects it made when the Job was new`;
  const started = hasPods || status.startTime != null || (status.succeeded ?? 0) !== 0 || (status.failed ?? 0) !== 0 || conditions.some((c) => c.type === "Suspended");
  if (started) return "the Job has started: the Job controller makes these objects only for a new Job, and for this one uses those it made then (none if the Job predates them)";
  return undefined;
}

/**
 * Compile a batch/v1 Job: the Workload and PodGroup the Job controller creates (defaults: no
 * scheduling → basic; a gang without minCount → max(1, parallelism)) and a patch per pod of the Job.
 */
export function compileBatchJob(object: Job, options: BatchJobCompileOptions = {}): WorkloadCompilation {
  const issues: CompileIssue[] = validateSchedulingIntent(options);
  const failed = (): WorkloadCompilation => ({ ok: false, compositePodGroups: [], podGroups: [], podPatches: [], issues });
  if (!isObject(object.metadata) || !isObject(object.spec) || !isObject(object.spec.template)) {
    issues.push(issueFromFieldError("object", required(isObject(object.spec) ? "spec.template" : "spec", "a Job needs its spec and pod template")));
    return failed();
  }
  if (hasErrors(issues)) return failed();
  const job = applyIntent(object, options, issues);
  const name = job.metadata.name ?? "";
  if (name === "") issues.push(issueFromFieldError("object", required("metadata.name", "the Workload is named after the Job and owned by it")));
  if (!job.metadata.uid) {
    issues.push(issueFromFieldError("object", required("metadata.uid", "the Workload's name hashes the Job's UID and its owner reference needs it (use the Job as stored: kubectl get -o yaml)")));
  }
  const template = podGroupTemplateName(name, 0);
  if (name !== "") {
    for (const m of isDNS1123Label(template)) {
      issues.push(issueFromFieldError("object", invalid("metadata.name", name, `the Job's PodGroupTemplate is named ${JSON.stringify(template)}, which ${m}`)));
    }
  }
  if (hasErrors(issues)) return failed();
  // The int32 fields the compilation reads, as the API server decodes them: a Job holding anything else cannot be stored.
  for (const [path, v] of [
    ["spec.parallelism", job.spec.parallelism],
    ["spec.scheduling.schedulingPolicy.gang.minCount", job.spec.scheduling?.schedulingPolicy?.gang?.minCount],
  ] as const) {
    if (v != null && !isInt32(v)) {
      issues.push(issueFromFieldError("object", invalid(path, v, "must be an int32: the API server cannot decode it into the Job's int32 field")));
    }
  }
  if (hasErrors(issues)) return failed();
  // Validated as the Job's own API validation would (paths under spec.scheduling), leaving the names to the check above.
  for (const e of validateJobScheduling(job)) {
    if (e.field === "spec.scheduling" && e.value === template) continue;
    issues.push(issueFromFieldError("object", e));
  }
  if (hasErrors(issues)) return failed();
  const built = compileJob(job);
  if (!built.ok || built.value.workload === undefined) {
    // A Job the controller does not compile itself (its pods name a group, or an owner manages it) is said at the field that decides.
    const mode = jobManagement(job);
    const path =
      mode === "workload-and-podgroup" ? "spec.scheduling" : externallyManaged(job) ? "spec.managedBy" : job.spec.template.spec.schedulingGroup != null ? "spec.template.spec.schedulingGroup" : "metadata.ownerReferences";
    issues.push({ severity: "error", input: "object", path, message: built.ok ? "the Job's Workload is its owner's" : built.error, code: "build" });
    return failed();
  }
  // What the Job controller makes for a new Job; one that has run or finished gets nothing made now.
  const lifecycle = jobLifecycle(job, (options.pods ?? []).some((pod) => isPodOfJob(pod, job)));
  if (lifecycle) issues.push({ severity: "notice", input: "object", path: "status", message: lifecycle, code: "job-not-new" });
  const { workload, podGroup } = built.value;
  for (const [what, errs] of [
    [`Workload ${workload.metadata.name}`, validateWorkload(workload)],
    [`PodGroup ${podGroup.metadata.name}`, validatePodGroup(podGroup)],
  ] as const) {
    for (const e of errs) issues.push({ severity: "error", input: "object", path: "", message: `the compiled ${what} would be rejected: ${e.field}: ${fieldErrorBody(e)}`, code: "emitted-invalid" });
  }
  const out: WorkloadCompilation = { ok: true, workload, compositePodGroups: [], podGroups: [podGroup], podPatches: [], issues };
  const groupName = podGroup.metadata.name ?? "";
  (options.pods ?? []).forEach((pod, i) => {
    const ref = podRef(pod, i);
    if (!isPodOfJob(pod, job)) {
      issues.push({ severity: "warning", input: "pod", pod: podLabel(ref), path: "metadata", message: `not a pod of Job ${name} (neither owned by it nor labelled with its name or UID): no patch`, code: "pod-unmatched" });
      return;
    }
    const r = podSchedulingPatch(pod, i, groupName);
    if (r.issue) issues.push(r.issue);
    if (r.patch) out.podPatches.push(r.patch);
  });
  if (hasErrors(issues)) return failed();
  return out;
}
