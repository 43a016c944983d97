/** Built-in interpretation of v1 ServiceAccount. */
import type { KubeObject, Outcome } from "../types.js";
import { type Obj, clone, nativeFail, ok } from "./common.js";
import { nestedSlice } from "./unstructured.js";

/** The references of a list field, desired ones first, then observed ones whose names are new. */
function unionByName(desired: unknown, observed: unknown): Obj[] | null {
  const merged: Obj[] = [];
  const seen = new Set<string>();
  for (const list of [desired, observed]) {
    if (!Array.isArray(list)) continue;
    for (const ref of list) {
      const name = ref !== null && typeof ref === "object" && typeof ref.name === "string" ? (ref.name as string) : "";
      if (seen.has(name)) continue;
      seen.add(name);
      merged.push(clone(ref));
    }
  }
  // Karmada sets the field even when both sides are empty, which writes null.
  return merged.length > 0 ? merged : null;
}

/**
 * Retain: `secrets` and `imagePullSecrets` are the union by name of desired and observed (the member's
 * token controllers add some). Either side's field must be a list when present (null included).
 */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  const out = clone(desired) as Obj;
  for (const field of ["secrets", "imagePullSecrets"]) {
    const mine = nestedSlice(desired, field);
    if ("error" in mine) return nativeFail("Retain", `error retrieving ${field} from desired service account: ${mine.error}`, field);
    const theirs = nestedSlice(observed, field);
    if ("error" in theirs) return nativeFail("Retain", `error retrieving ${field} from service account: ${theirs.error}`, field);
    out[field] = unionByName(out[field], (observed as Obj)[field]);
  }
  return ok(out as KubeObject);
}
