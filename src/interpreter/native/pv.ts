/** Built-in interpretation of v1 PersistentVolume. */
import type { AggregatedStatusItem, KubeObject, Outcome } from "../types.js";
import { type MemberStatusType, type Obj, clone, getObject, memberStatusError, nativeFail, ok, withAggregatedStatus } from "./common.js";
import { nestedField, setNestedField } from "./unstructured.js";

/** Retain: the claim the member cluster bound the volume to, even when null (an observed spec that is not an object is an error). */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  const claimRef = nestedField(observed, "spec", "claimRef");
  if ("error" in claimRef) return nativeFail("Retain", `failed to retrieve claimRef from pv: ${claimRef.error}`, "spec.claimRef");
  const out = clone(desired);
  if (claimRef.found) {
    const err = setNestedField(out, claimRef.value, "spec", "claimRef");
    if (err !== undefined) return nativeFail("Retain", `failed to set claimRef for pv: ${err}`, "spec.claimRef");
  }
  return ok(out);
}

const MEMBER: MemberStatusType = { goType: "v1.PersistentVolumeStatus", ints: {}, strings: { phase: "v1.PersistentVolumePhase" } };

const PRECEDENCE = ["Failed", "Pending", "Available", "Bound", "Released"];

/** AggregateStatus: the phase by precedence Failed > Pending > Available > Bound > Released (no status counts as Pending). */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  const phases = new Set<string>();
  for (const item of items) {
    const err = memberStatusError(item.status, MEMBER);
    if (err !== undefined) return nativeFail("AggregateStatus", err);
    const s = getObject(item, "status");
    phases.add(s === undefined ? "Pending" : typeof s["phase"] === "string" ? s["phase"] : "");
  }
  const phase = PRECEDENCE.find((p) => phases.has(p));
  const next: Obj = phase === undefined ? {} : { phase };
  return withAggregatedStatus(obj, next);
}
