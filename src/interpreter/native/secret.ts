/** Built-in interpretation of v1 Secret. */
import type { KubeObject, Outcome } from "../types.js";
import { type Obj, clone, getField, getObject, nativeFail, ok, stringField } from "./common.js";

/** Retain: a service-account token Secret keeps the data the member cluster's token controller filled in. */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  if (stringField(desired, "type") !== "kubernetes.io/service-account-token") return ok(clone(desired));
  const data = getField(observed, "data");
  if (data === undefined) return ok(clone(desired));
  const map = getObject(observed, "data");
  if (map === undefined || Object.values(map).some((v) => typeof v !== "string")) {
    return nativeFail("Retain", `failed to get .data from desired.Object: .data accessor error: ${JSON.stringify(data)} is not a map of strings`, "data");
  }
  const out = clone(desired) as Obj;
  out["data"] = { ...map };
  return ok(out as KubeObject);
}
