/** Built-in interpretation of v1 PersistentVolumeClaim. */
import type { AggregatedStatusItem, KubeObject, Outcome } from "../types.js";
import { type Obj, clone, ok, setField, stringField, withStatus, withAggregatedStatus } from "./common.js";

/** Retain: the volume the member cluster bound the claim to. */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  const volumeName = stringField(observed, "spec", "volumeName");
  const out = clone(desired);
  if (volumeName !== "") setField(out, volumeName, "spec", "volumeName");
  return ok(out);
}

/** AggregateStatus: Bound unless a member reports otherwise; Lost wins; otherwise the last other phase. */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  let phase = "Bound";
  for (const item of withStatus(items)) {
    const p = typeof item.status["phase"] === "string" ? item.status["phase"] : "";
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
  return ok(stringField(obj, "status", "phase") === "Bound");
}
