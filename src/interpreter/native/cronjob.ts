/** Built-in interpretation of batch/v1 CronJob. */
import { isDeepStrictEqual } from "node:util";
import type { AggregatedStatusItem, DependentObjectReference, KubeObject, Outcome } from "../types.js";
import { type MemberStatusType, type Obj, clone, getObject, memberStatuses, ok } from "./common.js";
import { formatTime, parseTime } from "./time.js";
import { templateDependencies } from "./workload.js";

const MEMBER: MemberStatusType = { goType: "v1.CronJobStatus", ints: {} };

/** The fields of a core/v1 ObjectReference, in Go's order; all are omitempty strings. */
const REFERENCE_FIELDS = ["kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"] as const;

/** An active Job reference as Go writes the typed ObjectReference. */
function typedReference(ref: unknown): Obj {
  const o = ref !== null && typeof ref === "object" && !Array.isArray(ref) ? (ref as Obj) : {};
  const out: Obj = {};
  for (const k of REFERENCE_FIELDS) if (typeof o[k] === "string" && o[k] !== "") out[k] = o[k];
  return out;
}

/**
 * AggregateStatus: the members' active Jobs concatenated; the latest schedule and success times. As
 * in Go, the typed old status is compared with reflect.DeepEqual (no active list differs from an empty
 * one) and, when it differs, the status holds just these three fields.
 */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  let active: Obj[] | null = null;
  let lastSchedule: number | undefined;
  let lastSuccessful: number | undefined;
  const members = memberStatuses("AggregateStatus", items, MEMBER);
  if (!members.ok) return members;
  for (const item of members.value) {
    const refs = item.status["active"];
    // Appending an empty list to none leaves none.
    if (Array.isArray(refs) && refs.length > 0) (active ??= []).push(...refs.map(typedReference));
    const ls = parseTime(item.status["lastScheduleTime"]);
    if (ls !== undefined && (lastSchedule === undefined || lastSchedule < ls)) lastSchedule = ls;
    const lsu = parseTime(item.status["lastSuccessfulTime"]);
    if (lsu !== undefined && (lastSuccessful === undefined || lastSuccessful < lsu)) lastSuccessful = lsu;
  }
  const old = getObject(obj, "status") ?? {};
  const oldActive = Array.isArray(old["active"]) ? old["active"].map(typedReference) : null;
  const unchanged =
    isDeepStrictEqual(oldActive, active) && parseTime(old["lastScheduleTime"]) === lastSchedule && parseTime(old["lastSuccessfulTime"]) === lastSuccessful;
  if (unchanged) return ok(clone(obj));
  const status: Obj = {};
  if (active !== null) status["active"] = active;
  if (lastSchedule !== undefined) status["lastScheduleTime"] = formatTime(lastSchedule);
  if (lastSuccessful !== undefined) status["lastSuccessfulTime"] = formatTime(lastSuccessful);
  const out = clone(obj) as Obj;
  out["status"] = status;
  return ok(out as KubeObject);
}

/** InterpretDependency: the dependencies of the Job template's pod template. */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  return templateDependencies(obj, getObject(obj, "spec", "jobTemplate", "spec", "template"));
}
