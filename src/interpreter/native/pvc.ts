/** Built-in interpretation of v1 PersistentVolumeClaim. */
import type { AggregatedStatusItem, KubeObject, Outcome } from "../types.js";
import {
  type MemberStatusType,
  type Obj,
  clone,
  getField,
  getObject,
  memberStatusError,
  nativeFail,
  ok,
  stringField,
  typedObjectError,
  typedStringError,
  withAggregatedStatus,
} from "./common.js";

const MEMBER: MemberStatusType = { goType: "v1.PersistentVolumeClaimStatus", ints: {}, strings: { phase: "v1.PersistentVolumeClaimPhase" } };
import { nestedString, setNestedField } from "./unstructured.js";

/** Retain: the volume the member cluster bound the claim to (a volumeName that is not a string is an error). */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  const volumeName = nestedString(observed, "spec", "volumeName");
  if ("error" in volumeName) return nativeFail("Retain", `error retrieving volumeName from pvc: ${volumeName.error}`, "spec.volumeName");
  const out = clone(desired);
  if (volumeName.found && volumeName.value !== "") {
    const err = setNestedField(out, volumeName.value, "spec", "volumeName");
    if (err !== undefined) return nativeFail("Retain", `error setting volumeName for pvc: ${err}`, "spec.volumeName");
  }
  return ok(out);
}

/** AggregateStatus: Bound unless a member reports otherwise; Lost wins; otherwise the last other phase. */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  let phase = "Bound";
  // Go decodes member statuses one by one and stops at the first Lost.
  for (const item of items) {
    const err = memberStatusError(item.status, MEMBER);
    if (err !== undefined) return nativeFail("AggregateStatus", err);
    const s = getObject(item, "status");
    if (s === undefined) continue;
    const p = typeof s["phase"] === "string" ? s["phase"] : "";
    if (p === "Lost") {
      phase = "Lost";
      break;
    }
    if (p !== "Bound") phase = p;
  }
  const next: Obj = phase === "" ? {} : { phase };
  return withAggregatedStatus(obj, next);
}

/** InterpretHealth: healthy when Bound. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  const unconvertible = typedObjectError(obj, [], []);
  if (unconvertible) return unconvertible;
  const phaseError = typedStringError(getField(obj, "status", "phase"), "v1.PersistentVolumeClaimPhase");
  if (phaseError !== undefined) return nativeFail("InterpretHealth", phaseError);
  return ok(stringField(obj, "status", "phase") === "Bound");
}
