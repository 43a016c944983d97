/** Built-in interpretation of v1 Secret. */
import type { KubeObject, Outcome } from "../types.js";
import { type Obj, clone, nativeFail, ok } from "./common.js";
import { nestedString, nestedStringMap } from "./unstructured.js";

/** Retain: a service-account token Secret keeps the data the member cluster's token controller filled in. */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  // Karmada ignores an error reading the desired type: a type that is not a string is not the token type.
  const type = nestedString(desired, "type");
  if (!("found" in type) || !type.found || type.value !== "kubernetes.io/service-account-token") return ok(clone(desired));
  const data = nestedStringMap(observed, "data");
  if ("error" in data) return nativeFail("Retain", `failed to get .data from desired.Object: ${data.error}`, "data");
  if (!data.found) return ok(clone(desired));
  const out = clone(desired) as Obj;
  out["data"] = data.value;
  return ok(out as KubeObject);
}
