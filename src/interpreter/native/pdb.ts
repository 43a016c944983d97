/** Built-in interpretation of policy/v1 PodDisruptionBudget. */
import type { AggregatedStatusItem, JsonValue, KubeObject, Outcome } from "../types.js";
import { type Obj, type TypedIntFields, getObject, intOr0, nativeFail, ok, statusToReflect, typedIntFieldsError, typedObjectError, memberStatuses, withAggregatedStatus, type MemberStatusType } from "./common.js";
import { normalizeTime } from "./time.js";

const COUNTERS = ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"] as const;

/** PodDisruptionBudgetStatus's integer fields, in declaration order. */
const STATUS_INTS: TypedIntFields = [
  ["observedGeneration", "int64"],
  ["disruptionsAllowed", "int32"],
  ["currentHealthy", "int32"],
  ["desiredHealthy", "int32"],
  ["expectedPods", "int32"],
];

const MEMBER: MemberStatusType = {
  goType: "v1.PodDisruptionBudgetStatus",
  ints: Object.fromEntries(STATUS_INTS),
};

/** A PDB status as Go writes the fields Karmada keeps. */
function pdbStatus(disrupted: Obj, counters: Record<string, number>): Obj {
  const out: Obj = {};
  if (Object.keys(disrupted).length > 0) out["disruptedPods"] = disrupted;
  for (const c of COUNTERS) out[c] = counters[c] ?? 0;
  return out;
}

/** AggregateStatus: counters summed; disrupted pods keyed `<cluster>/<pod>`. */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  const unconvertible = typedObjectError(obj, [], STATUS_INTS, "AggregateStatus");
  if (unconvertible) return unconvertible;
  const counters: Record<string, number> = {};
  const disrupted: Obj = {};
  const members = memberStatuses("AggregateStatus", items, MEMBER);
  if (!members.ok) return members;
  for (const item of members.value) {
    for (const c of COUNTERS) counters[c] = (counters[c] ?? 0) + intOr0(item.status, c);
    for (const [pod, t] of Object.entries(getObject(item.status, "disruptedPods") ?? {})) {
      disrupted[`${item.clusterName}/${pod}`] = normalizeTime(t);
    }
  }
  const next = pdbStatus(disrupted, counters);
  return withAggregatedStatus(obj, next);
}

/** InterpretStatus: the disruption counters and disrupted pods. */
export function reflectStatus(obj: KubeObject): Outcome<JsonValue | undefined> {
  const read = statusToReflect(obj);
  if (!read.ok) return read;
  const status = read.value;
  if (status === undefined) return ok(undefined);
  const unconvertible = typedIntFieldsError(status, STATUS_INTS);
  if (unconvertible !== undefined) return nativeFail("InterpretStatus", `failed to convert PodDisruptionBudget from map[string]interface{}: ${unconvertible}`, "status");
  const counters = Object.fromEntries(COUNTERS.map((c) => [c, intOr0(status, c)]));
  const disrupted: Obj = {};
  for (const [pod, t] of Object.entries(getObject(status, "disruptedPods") ?? {})) disrupted[pod] = normalizeTime(t);
  return ok(pdbStatus(disrupted, counters) as JsonValue);
}

/** InterpretHealth: at least as many healthy pods as desired. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  const unconvertible = typedObjectError(obj, [], STATUS_INTS);
  if (unconvertible) return unconvertible;
  return ok(intOr0(obj, "status", "currentHealthy") >= intOr0(obj, "status", "desiredHealthy"));
}
