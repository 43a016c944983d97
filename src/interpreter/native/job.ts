/** Built-in interpretation of batch/v1 Job. */
import { isDeepStrictEqual } from "node:util";
import type { AggregatedStatusItem, DependentObjectReference, JsonValue, KubeObject, Outcome, ReplicaResult } from "../types.js";
import {
  type Obj,
  asObjectArray,
  clone,
  defined,
  getField,
  getObject,
  typedInt32,
  intOr0,
  nativeFail,
  ok,
  statusToReflect,
  typedIntFieldsError,
  typedObjectError,
  type TypedIntFields,
  withAggregatedStatus,
  memberStatuses,
  type MemberStatusType,
} from "./common.js";
import { formatTime, normalizeTime, parseTime } from "./time.js";
import { nestedStringMap, setNestedField } from "./unstructured.js";
import { applyReplica, templateDependencies, withTemplateRequirements } from "./workload.js";

/** Options of the status aggregation: the clock used for the conditions Karmada adds. */
export interface JobAggregationOptions {
  /** The current time (Karmada stamps its JobComplete/JobFailed conditions with metav1.Now()). */
  now?: Date;
}

/** JobSpec's leading integer fields and JobStatus's integer fields, in declaration order. */
const SPEC_INTS: TypedIntFields = [
  ["parallelism", "int32"],
  ["completions", "int32"],
  ["activeDeadlineSeconds", "int64"],
];
const STATUS_INTS: TypedIntFields = [
  ["active", "int32"],
  ["succeeded", "int32"],
  ["failed", "int32"],
  ["terminating", "int32"],
  ["ready", "int32"],
];

const MEMBER: MemberStatusType = {
  goType: "v1.JobStatus",
  ints: Object.fromEntries(STATUS_INTS),
};

/** InterpretReplica: parallelism, capped by completions (which default to parallelism). */
export function getReplicas(obj: KubeObject): Outcome<ReplicaResult> {
  const p = typedInt32(obj, "spec", "parallelism");
  if ("error" in p) return nativeFail("InterpretReplica", p.error, "spec.parallelism");
  const c = typedInt32(obj, "spec", "completions");
  if ("error" in c) return nativeFail("InterpretReplica", c.error, "spec.completions");
  const completions = c.present ? c.value : p.value;
  return withTemplateRequirements(Math.min(p.value, completions), getObject(obj, "spec", "template"), "spec.template");
}

/** ReviseReplica: sets `spec.parallelism` when present. */
export function reviseReplica(obj: KubeObject, replicas: number): Outcome<KubeObject> {
  return applyReplica(obj, replicas, "parallelism");
}

/**
 * Retain: the selector labels and template labels the member cluster's Job controller generated, read
 * with NestedStringMap (a non-string value is an error) and written with SetNestedStringMap (a step
 * that exists but is not an object, null included, is an error).
 */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  const out = clone(desired);
  for (const path of [
    ["spec", "selector", "matchLabels"],
    ["spec", "template", "metadata", "labels"],
  ]) {
    const m = nestedStringMap(observed, ...path);
    if ("error" in m) return nativeFail("Retain", m.error, path.join("."));
    if (m.found) {
      const err = setNestedField(out, m.value, ...path);
      if (err !== undefined) return nativeFail("Retain", err, path.join("."));
    }
  }
  return ok(out);
}

/** Whether a Job status has a true JobComplete or JobFailed condition, and which. */
export function jobFinished(status: unknown): "Complete" | "Failed" | undefined {
  for (const c of asObjectArray(getField(status, "conditions"))) {
    if ((c["type"] === "Complete" || c["type"] === "Failed") && c["status"] === "True") return c["type"];
  }
  return undefined;
}

/** A JobCondition as Go writes it. */
function jobCondition(c: Obj): Obj {
  const str = (k: string): string => (typeof c[k] === "string" ? c[k] : "");
  // type and status have no omitempty: Go writes them even when empty.
  return defined({
    type: str("type"),
    status: str("status"),
    lastProbeTime: c["lastProbeTime"] === undefined ? null : normalizeTime(c["lastProbeTime"]),
    lastTransitionTime: c["lastTransitionTime"] === undefined ? null : normalizeTime(c["lastTransitionTime"]),
    reason: str("reason") === "" ? undefined : str("reason"),
    message: str("message") === "" ? undefined : str("message"),
  });
}

/** The reported part of a Job status (conditions, times, counters), as Go writes it. */
function reportedJobStatus(status: unknown): Obj {
  const out: Obj = {};
  const conditions = asObjectArray(getField(status, "conditions"));
  if (conditions.length > 0) out["conditions"] = conditions.map(jobCondition);
  const start = getField(status, "startTime");
  if (start !== undefined && start !== null) out["startTime"] = normalizeTime(start);
  const completion = getField(status, "completionTime");
  if (completion !== undefined && completion !== null) out["completionTime"] = normalizeTime(completion);
  for (const k of ["active", "succeeded", "failed"]) if (intOr0(status, k) !== 0) out[k] = intOr0(status, k);
  return out;
}

/**
 * AggregateStatus: a finished Job is left alone; otherwise active/succeeded/failed are summed, a JobFailed
 * condition names the clusters where it failed, JobComplete (and SuccessCriteriaMet) are added when it
 * completed everywhere, startTime is the earliest once every member started, completionTime the latest
 * once every member completed.
 */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[], options: JobAggregationOptions = {}): Outcome<KubeObject> {
  const unconvertible = typedObjectError(obj, SPEC_INTS, STATUS_INTS, "AggregateStatus");
  if (unconvertible) return unconvertible;
  const oldStatus = getObject(obj, "status") ?? {};
  if (jobFinished(oldStatus) !== undefined) return ok(clone(obj));
  const now = formatTime((options.now ?? new Date()).getTime());
  const failedIn: string[] = [];
  let succeededMembers = 0;
  let criteriaMet = 0;
  let started = 0;
  let completed = 0;
  let startTime: number | undefined;
  let completionTime: number | undefined;
  let active = 0;
  let succeeded = 0;
  let failed = 0;
  const members = memberStatuses("AggregateStatus", items, MEMBER);
  if (!members.ok) return members;
  for (const item of members.value) {
    const s = item.status;
    active += intOr0(s, "active");
    succeeded += intOr0(s, "succeeded");
    failed += intOr0(s, "failed");
    const finished = jobFinished(s);
    if (finished === "Complete") succeededMembers++;
    else if (finished === "Failed") failedIn.push(item.clusterName);
    if (asObjectArray(s["conditions"]).some((c) => c["type"] === "SuccessCriteriaMet" && c["status"] === "True")) criteriaMet++;
    const st = parseTime(s["startTime"]);
    if (st !== undefined) {
      started++;
      if (startTime === undefined || st < startTime) startTime = st;
    }
    const ct = parseTime(s["completionTime"]);
    if (ct !== undefined) {
      completed++;
      if (completionTime === undefined || completionTime < ct) completionTime = ct;
    }
  }
  const conditions: Obj[] = [];
  const condition = (type: string, reason: string, message: string): Obj => ({
    type,
    status: "True",
    lastProbeTime: now,
    lastTransitionTime: now,
    reason,
    message,
  });
  if (failedIn.length > 0) {
    conditions.push(condition("Failed", "JobFailed", `Job executed failed in member clusters ${failedIn.join(",")}`));
  }
  if (succeededMembers === items.length && succeededMembers > 0) {
    conditions.push(condition("Complete", "Completed", "Job completed"));
    if (criteriaMet === items.length) {
      conditions.push(condition("SuccessCriteriaMet", "CompletionsReached", "All member clusters have met success criteria"));
    }
  }
  const status: Obj = {};
  if (conditions.length > 0) status["conditions"] = conditions;
  const oldStart = getField(oldStatus, "startTime");
  if (oldStart !== undefined && oldStart !== null) status["startTime"] = normalizeTime(oldStart);
  else if (started === items.length && started > 0 && startTime !== undefined) status["startTime"] = formatTime(startTime);
  if (completionTime !== undefined && completed === items.length) status["completionTime"] = formatTime(completionTime);
  if (active) status["active"] = active;
  if (succeeded) status["succeeded"] = succeeded;
  if (failed) status["failed"] = failed;
  return withAggregatedStatus(obj, status, isDeepStrictEqual(reportedJobStatus(oldStatus), status) && Object.keys(oldStatus).every((k) => k in status));
}

/** InterpretStatus: active, succeeded, failed, conditions, startTime and completionTime. */
export function reflectStatus(obj: KubeObject): Outcome<JsonValue | undefined> {
  const read = statusToReflect(obj);
  if (!read.ok) return read;
  const status = read.value;
  if (status === undefined) return ok(undefined);
  const unconvertible = typedIntFieldsError(status, STATUS_INTS);
  if (unconvertible !== undefined) return nativeFail("InterpretStatus", `failed to convert JobStatus from map[string]interface{}: ${unconvertible}`, "status");
  return ok(reportedJobStatus(status) as JsonValue);
}

/** InterpretDependency: the pod template's dependencies. */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  return templateDependencies(obj, getObject(obj, "spec", "template"));
}
