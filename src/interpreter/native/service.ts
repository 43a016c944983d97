/** Built-in interpretation of v1 Service. */
import type { AggregatedStatusItem, JsonValue, KubeObject, Outcome } from "../types.js";
import { type Obj, asObjectArray, clone, getField, getObject, nativeFail, ok, stringField, typedObjectError, typedStringError, memberStatuses, withAggregatedStatus } from "./common.js";
import { dedupeAndSortIngressPoints, hasAddress, normalizeIngressPoint, sameIngressPoints } from "./load-balancer.js";
import { nestedInt64, nestedMap, nestedString, setNestedField } from "./unstructured.js";

/**
 * Retain: the member cluster's healthCheckNodePort (when positive) and clusterIP (when set); not
 * clusterIPs. Both are read with unstructured accessors, so a value of another type (or null) is an error.
 */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  const out = clone(desired);
  const port = nestedInt64(observed, "spec", "healthCheckNodePort");
  if ("error" in port) return nativeFail("Retain", `error retrieving healthCheckNodePort from service: ${port.error}`, "spec.healthCheckNodePort");
  if (port.found && port.value > 0) {
    const err = setNestedField(out, port.value, "spec", "healthCheckNodePort");
    if (err !== undefined) return nativeFail("Retain", `error setting healthCheckNodePort for service: ${err}`, "spec.healthCheckNodePort");
  }
  const clusterIP = nestedString(observed, "spec", "clusterIP");
  if ("error" in clusterIP) return nativeFail("Retain", `error retrieving clusterIP from cluster service: ${clusterIP.error}`, "spec.clusterIP");
  if (clusterIP.found && clusterIP.value !== "") {
    const err = setNestedField(out, clusterIP.value, "spec", "clusterIP");
    if (err !== undefined) return nativeFail("Retain", `error setting clusterIP for service: ${err}`, "spec.clusterIP");
  }
  return ok(out);
}

/** The status a Service is given: its load balancer's ingress points. */
function lbStatus(points: Obj[]): Obj {
  return points.length > 0 ? { loadBalancer: { ingress: points } } : { loadBalancer: {} };
}

/**
 * AggregateStatus: for a LoadBalancer Service, every member's ingress points, deduplicated and sorted,
 * replace the whole status (conditions included) unless the typed old status is deeply equal.
 */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  if (stringField(obj, "spec", "type") !== "LoadBalancer") return ok(clone(obj));
  const members = memberStatuses("AggregateStatus", items, { goType: "v1.ServiceStatus", ints: {} });
  if (!members.ok) return members;
  const points = dedupeAndSortIngressPoints(
    members.value.flatMap((i) => asObjectArray(getField(i.status, "loadBalancer", "ingress"))),
    true,
  );
  const old = getObject(obj, "status") ?? {};
  // Go compares the typed statuses: conditions must be nil, and the old ingress list present and equal.
  const oldConditions = old["conditions"];
  const unchanged = (oldConditions === undefined || oldConditions === null) && sameIngressPoints(getField(old, "loadBalancer", "ingress"), points, true);
  return withAggregatedStatus(obj, lbStatus(points), unchanged);
}

/**
 * InterpretStatus: a LoadBalancer Service's load-balancer status; nothing for other types (or a type
 * that is not a string), nor without a status. A status that is not an object is an error.
 */
export function reflectStatus(obj: KubeObject): Outcome<JsonValue | undefined> {
  const type = nestedString(obj, "spec", "type");
  if (!("found" in type) || !type.found || type.value !== "LoadBalancer") return ok(undefined);
  const status = nestedMap(obj, "status");
  if ("error" in status) return nativeFail("InterpretStatus", status.error, "status");
  if (!status.found) return ok(undefined);
  return ok(lbStatus(asObjectArray(getField(status.value, "loadBalancer", "ingress")).map((p) => normalizeIngressPoint(p, true))) as JsonValue);
}

/** InterpretHealth: any Service but a LoadBalancer is healthy; a LoadBalancer needs an address. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  const unconvertible = typedObjectError(obj, [], []);
  if (unconvertible) return unconvertible;
  const typeError = typedStringError(getField(obj, "spec", "type"), "v1.ServiceType");
  if (typeError !== undefined) return nativeFail("InterpretHealth", typeError);
  if (stringField(obj, "spec", "type") !== "LoadBalancer") return ok(true);
  return ok(hasAddress(getField(obj, "status", "loadBalancer", "ingress")));
}
