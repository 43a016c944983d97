/** Built-in interpretation of autoscaling/v2 HorizontalPodAutoscaler. */
import type { AggregatedStatusItem, JsonValue, KubeObject, Outcome } from "../types.js";
import { type Obj, getObject, intOr0, nativeFail, ok, statusToReflect, typedIntFieldsError, typedObjectError, type TypedIntFields, memberStatuses, withAggregatedStatus, type MemberStatusType } from "./common.js";

/** HorizontalPodAutoscalerSpec's and Status's integer fields, in declaration order. */
const SPEC_INTS: TypedIntFields = [
  ["minReplicas", "int32"],
  ["maxReplicas", "int32"],
];
const STATUS_INTS: TypedIntFields = [
  ["observedGeneration", "int64"],
  ["currentReplicas", "int32"],
  ["desiredReplicas", "int32"],
];

const MEMBER: MemberStatusType = {
  goType: "v2.HorizontalPodAutoscalerStatus",
  ints: Object.fromEntries(STATUS_INTS),
};

/** The replica counts as Go writes an HPA status holding only them (currentMetrics has no omitempty). */
function hpaStatus(current: number, desired: number): Obj {
  const out: Obj = {};
  if (current !== 0) out["currentReplicas"] = current;
  out["desiredReplicas"] = desired;
  out["currentMetrics"] = null;
  return out;
}

/** AggregateStatus: currentReplicas and desiredReplicas summed over members. */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  const unconvertible = typedObjectError(obj, SPEC_INTS, STATUS_INTS, "AggregateStatus");
  if (unconvertible) return unconvertible;
  let current = 0;
  let desired = 0;
  const members = memberStatuses("AggregateStatus", items, MEMBER);
  if (!members.ok) return members;
  for (const item of members.value) {
    current += intOr0(item.status, "currentReplicas");
    desired += intOr0(item.status, "desiredReplicas");
  }
  const next = hpaStatus(current, desired);
  const old = getObject(obj, "status") ?? {};
  // Unchanged when the old status holds nothing but the same two counts (Go's DeepEqual of the typed status).
  const onlyCounts = Object.entries(old).every(
    ([k, v]) => k === "currentReplicas" || k === "desiredReplicas" || (k === "currentMetrics" && v === null),
  );
  return withAggregatedStatus(obj, next, onlyCounts && intOr0(old, "currentReplicas") === current && intOr0(old, "desiredReplicas") === desired);
}

/** InterpretStatus: currentReplicas and desiredReplicas. */
export function reflectStatus(obj: KubeObject): Outcome<JsonValue | undefined> {
  const read = statusToReflect(obj);
  if (!read.ok) return read;
  const status = read.value;
  if (status === undefined) return ok(undefined);
  const unconvertible = typedIntFieldsError(status, STATUS_INTS);
  if (unconvertible !== undefined) return nativeFail("InterpretStatus", `failed to convert HorizontalPodAutoscaler from map[string]interface{}: ${unconvertible}`, "status");
  return ok(hpaStatus(intOr0(status, "currentReplicas"), intOr0(status, "desiredReplicas")) as JsonValue);
}
