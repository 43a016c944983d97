/** Built-in interpretation of networking.k8s.io/v1 Ingress. */
import type { AggregatedStatusItem, DependentObjectReference, KubeObject, Outcome } from "../types.js";
import { type Obj, asObjectArray, getField, namespaceOf, ok, memberStatuses, withAggregatedStatus } from "./common.js";
import { dedupeAndSortIngressPoints, hasAddress, sameIngressPoints } from "./load-balancer.js";

function lbStatus(points: Obj[]): Obj {
  return points.length > 0 ? { loadBalancer: { ingress: points } } : { loadBalancer: {} };
}

/**
 * AggregateStatus: every member's load-balancer ingress points, deduplicated and sorted, replace the
 * status unless the typed old list is deeply equal (an absent old list never is).
 */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  const members = memberStatuses("AggregateStatus", items, { goType: "v1.IngressStatus", ints: {} });
  if (!members.ok) return members;
  const points = dedupeAndSortIngressPoints(
    members.value.flatMap((i) => asObjectArray(getField(i.status, "loadBalancer", "ingress"))),
    false,
  );
  return withAggregatedStatus(obj, lbStatus(points), sameIngressPoints(getField(obj, "status", "loadBalancer", "ingress"), points, false));
}

/** InterpretHealth: healthy once the load balancer has an IP or hostname. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  return ok(hasAddress(getField(obj, "status", "loadBalancer", "ingress")));
}

/** InterpretDependency: the TLS Secrets, in the Ingress's namespace. */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  const ns = namespaceOf(obj);
  const tls = getField(obj, "spec", "tls");
  // The typed conversion turns a null entry into an empty IngressTLS: a reference without a name.
  const deps = (Array.isArray(tls) ? tls : []).map((t: unknown) => {
    const ref: DependentObjectReference = { apiVersion: "v1", kind: "Secret" };
    if (ns !== "") ref.namespace = ns;
    const secretName = getField(t, "secretName");
    const name = typeof secretName === "string" ? secretName : "";
    if (name !== "") ref.name = name;
    return ref;
  });
  return ok(deps);
}
