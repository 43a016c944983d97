/** Built-in interpretation of v1 PersistentVolumeClaim. */
import type { AggregatedStatusItem, KubeObject, Outcome } from "../types.js";
import { type Obj, clone, nativeFail, ok, stringField, withStatus, withAggregatedStatus } from "./common.js";
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
