/** Built-in interpretation of batch/v1 CronJob. */
import { isDeepStrictEqual } from "node:util";
import type { AggregatedStatusItem, DependentObjectReference, KubeObject, Outcome } from "../types.js";
import { type MemberStatusType, type Obj, asObjectArray, clone, getObject, memberStatuses, ok } from "./common.js";
import { formatTime, normalizeTime, parseTime } from "./time.js";
import { templateDependencies } from "./workload.js";

const MEMBER: MemberStatusType = { goType: "v1.CronJobStatus", ints: {} };

/** AggregateStatus: the members' active Jobs concatenated; the latest schedule and success times. */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  const active: Obj[] = [];
  let lastSchedule: number | undefined;
  let lastSuccessful: number | undefined;
  const members = memberStatuses("AggregateStatus", items, MEMBER);
  if (!members.ok) return members;
  for (const item of members.value) {
    active.push(...asObjectArray(item.status["active"]));
    const ls = parseTime(item.status["lastScheduleTime"]);
    if (ls !== undefined && (lastSchedule === undefined || lastSchedule < ls)) lastSchedule = ls;
    const lsu = parseTime(item.status["lastSuccessfulTime"]);
    if (lsu !== undefined && (lastSuccessful === undefined || lastSuccessful < lsu)) lastSuccessful = lsu;
  }
  const next: Obj = {};
  if (active.length > 0) next["active"] = active;
  if (lastSchedule !== undefined) next["lastScheduleTime"] = formatTime(lastSchedule);
  if (lastSuccessful !== undefined) next["lastSuccessfulTime"] = formatTime(lastSuccessful);
  const old = getObject(obj, "status") ?? {};
  const oldReported: Obj = {};
  const oldActive = asObjectArray(old["active"]);
  if (oldActive.length > 0) oldReported["active"] = oldActive;
  for (const k of ["lastScheduleTime", "lastSuccessfulTime"]) if (typeof old[k] === "string") oldReported[k] = normalizeTime(old[k]);
  if (isDeepStrictEqual(oldReported, next)) return ok(clone(obj));
  const out = clone(obj) as Obj;
  const status: Obj = { ...(getObject(out, "status") ?? {}) };
  delete status["active"];
  delete status["lastScheduleTime"];
  delete status["lastSuccessfulTime"];
  out["status"] = { ...status, ...next };
  return ok(out as KubeObject);
}

/** InterpretDependency: the dependencies of the Job template's pod template. */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  return templateDependencies(obj, getObject(obj, "spec", "jobTemplate", "spec", "template"));
}
