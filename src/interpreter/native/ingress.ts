/** Built-in interpretation of networking.k8s.io/v1 Ingress. */
import { isDeepStrictEqual } from "node:util";
import type { AggregatedStatusItem, DependentObjectReference, KubeObject, Outcome } from "../types.js";
import { type Obj, asObjectArray, getField, getObject, namespaceOf, ok, verifyDependencies, withStatus, withAggregatedStatus } from "./common.js";
import { dedupeAndSortIngressPoints, hasAddress, normalizeIngressPoint } from "./load-balancer.js";

function lbStatus(points: Obj[]): Obj {
  return points.length > 0 ? { loadBalancer: { ingress: points } } : { loadBalancer: {} };
}

/** AggregateStatus: every member's load-balancer ingress points, deduplicated and sorted. */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  const points = withStatus(items).flatMap((i) => asObjectArray(getField(i.status, "loadBalancer", "ingress")));
  const next = lbStatus(dedupeAndSortIngressPoints(points, false));
  const oldPoints = asObjectArray(getField(obj, "status", "loadBalancer", "ingress")).map((p) => normalizeIngressPoint(p, false));
  return withAggregatedStatus(obj, next, isDeepStrictEqual(lbStatus(oldPoints), next) && Object.keys(getObject(obj, "status") ?? {}).every((k) => k === "loadBalancer"));
}

/** InterpretHealth: healthy once the load balancer has an IP or hostname. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  return ok(hasAddress(getField(obj, "status", "loadBalancer", "ingress")));
}

/** InterpretDependency: the TLS Secrets, in the Ingress's namespace. */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  const ns = namespaceOf(obj);
  const deps = asObjectArray(getField(obj, "spec", "tls")).map((t) => {
    const ref: DependentObjectReference = { apiVersion: "v1", kind: "Secret" };
    if (ns !== "") ref.namespace = ns;
    const name = typeof t["secretName"] === "string" ? t["secretName"] : "";
    if (name !== "") ref.name = name;
    return ref;
  });
  return verifyDependencies(deps);
}
