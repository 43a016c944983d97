/** Built-in interpretation of v1 PersistentVolume. */
import type { AggregatedStatusItem, KubeObject, Outcome } from "../types.js";
import { type Obj, clone, getObject, ok, setField, withAggregatedStatus } from "./common.js";

/** Retain: the claim the member cluster bound the volume to. */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  const spec = getObject(observed, "spec");
  const out = clone(desired);
  if (spec !== undefined && "claimRef" in spec) setField(out, clone(spec["claimRef"]), "spec", "claimRef");
  return ok(out);
}

const PRECEDENCE = ["Failed", "Pending", "Available", "Bound", "Released"];

/** AggregateStatus: the phase by precedence Failed > Pending > Available > Bound > Released (no status counts as Pending). */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  const phases = new Set<string>();
  for (const item of items) {
    const s = getObject(item, "status");
    phases.add(s === undefined ? "Pending" : typeof s["phase"] === "string" ? s["phase"] : "");
  }
  const phase = PRECEDENCE.find((p) => phases.has(p));
  const next: Obj = phase === undefined ? {} : { phase };
  return withAggregatedStatus(obj, next);
}
