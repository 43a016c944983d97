/** Built-in interpretation of v1 Service. */
import { isDeepStrictEqual } from "node:util";
import type { AggregatedStatusItem, JsonValue, KubeObject, Outcome } from "../types.js";
import { type Obj, asObjectArray, clone, getField, getObject, ok, setField, stringField, withStatus, withAggregatedStatus } from "./common.js";
import { dedupeAndSortIngressPoints, hasAddress, normalizeIngressPoint } from "./load-balancer.js";

/** Retain: the member cluster's healthCheckNodePort (when positive) and clusterIP (when set). */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  const out = clone(desired);
  const port = getField(observed, "spec", "healthCheckNodePort");
  if (typeof port === "number" && port > 0) setField(out, port, "spec", "healthCheckNodePort");
  const clusterIP = stringField(observed, "spec", "clusterIP");
  if (clusterIP !== "") setField(out, clusterIP, "spec", "clusterIP");
  return ok(out);
}

/** The status a Service is given: its load balancer's ingress points. */
function lbStatus(points: Obj[]): Obj {
  return points.length > 0 ? { loadBalancer: { ingress: points } } : { loadBalancer: {} };
}

/** AggregateStatus: for a LoadBalancer Service, every member's ingress points, deduplicated and sorted. */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  if (stringField(obj, "spec", "type") !== "LoadBalancer") return ok(clone(obj));
  const points = withStatus(items).flatMap((i) => asObjectArray(getField(i.status, "loadBalancer", "ingress")));
  const next = lbStatus(dedupeAndSortIngressPoints(points, true));
  const oldPoints = asObjectArray(getField(obj, "status", "loadBalancer", "ingress")).map((p) => normalizeIngressPoint(p, true));
  const old = getObject(obj, "status") ?? {};
  const oldHasOthers = Object.keys(old).some((k) => k !== "loadBalancer");
  return withAggregatedStatus(obj, next, !oldHasOthers && isDeepStrictEqual(lbStatus(oldPoints), next));
}

/** InterpretStatus: a LoadBalancer Service's load-balancer status; nothing for other types. */
export function reflectStatus(obj: KubeObject): Outcome<JsonValue | undefined> {
  if (stringField(obj, "spec", "type") !== "LoadBalancer") return ok(undefined);
  const status = getObject(obj, "status");
  if (status === undefined) return ok(undefined);
  return ok(lbStatus(asObjectArray(getField(status, "loadBalancer", "ingress")).map((p) => normalizeIngressPoint(p, true))) as JsonValue);
}

/** InterpretHealth: any Service but a LoadBalancer is healthy; a LoadBalancer needs an address. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  if (stringField(obj, "spec", "type") !== "LoadBalancer") return ok(true);
  return ok(hasAddress(getField(obj, "status", "loadBalancer", "ingress")));
}
