/**
 * The resources one pod of a template requests, as Karmada computes them for scheduling
 * (pkg/util Resource.AddPodTemplateRequest): the sum over containers, raised to each init
 * container's request where that is higher, plus the pod overhead. A container limit stands in for a
 * request the container does not state. Counting is in whole units (cpu in millicores), rounded up,
 * in Go's int64 as Karmada counts (a quantity too large for it, or a sum, wraps around as it does there);
 * zero and negative totals are dropped; names Karmada does not account for are ignored.
 *
 * Init containers with `restartPolicy: Always` (sidecars) are treated like any init container: Karmada
 * takes the maximum, it does not add sidecars to the long-running sum as the kube-scheduler does.
 */
import { Quantity, type ResourceListJSON } from "../quantity/index.js";
import { asObject, asObjectArray, joinPath, podSpecOf } from "./pod-spec.js";
import { classifyResource, isHugePageResourceName } from "./resource-names.js";
import type { ResourceIssue, WithIssues } from "./types.js";

/** Per-resource totals in Karmada's integer units: millicores for cpu, whole units otherwise. */
type Totals = Map<string, bigint>;

/** Reads a ResourceList into Karmada's units, reporting unparsable quantities. */
function readList(value: unknown, path: string, issues: ResourceIssue[]): Map<string, bigint> {
  const out = new Map<string, bigint>();
  const obj = asObject(value);
  if (!obj) return out;
  for (const [name, raw] of Object.entries(obj)) {
    const cls = classifyResource(name);
    if (cls === "ignored") continue;
    const r = Quantity.fromJSON(raw);
    if (!r.ok) {
      issues.push({ path: joinPath(path, name), message: r.error.message });
      continue;
    }
    out.set(name, r.quantity.scaledValueInt64(cls === "cpu" ? -3 : 0));
  }
  return out;
}

/** A container's effective requests: its requests, with its limits filling the names it does not request. */
function effectiveRequests(container: Record<string, unknown>, path: string, issues: ResourceIssue[]): Map<string, bigint> {
  const resources = asObject(container["resources"]) ?? {};
  const requests = readList(resources["requests"], joinPath(joinPath(path, "resources"), "requests"), issues);
  const limitsObj = asObject(resources["limits"]);
  if (limitsObj) {
    const requestNames = new Set(Object.keys(asObject(resources["requests"]) ?? {}));
    const limits = readList(limitsObj, joinPath(joinPath(path, "resources"), "limits"), issues);
    for (const [name, v] of limits) if (!requestNames.has(name)) requests.set(name, v);
  }
  return requests;
}

function addInto(totals: Totals, list: Map<string, bigint>): void {
  for (const [name, v] of list) totals.set(name, BigInt.asIntN(64, (totals.get(name) ?? 0n) + v));
}

function maxInto(totals: Totals, list: Map<string, bigint>): void {
  for (const [name, v] of list) {
    // Scalars absent from the totals compare against zero, as Karmada's map lookup does.
    if (v > (totals.get(name) ?? 0n)) totals.set(name, v);
  }
}

/** Turns Karmada's integer totals back into canonical quantity strings, in its formats. */
function toResourceList(totals: Totals): ResourceListJSON | undefined {
  const out: ResourceListJSON = {};
  for (const name of [...totals.keys()].sort()) {
    const v = totals.get(name) as bigint;
    if (v <= 0n) continue;
    const cls = classifyResource(name);
    let q: Quantity;
    if (cls === "cpu") q = Quantity.fromMilli(v, "DecimalSI");
    else if (cls === "memory" || cls === "ephemeral-storage" || isHugePageResourceName(name)) q = Quantity.fromInteger(v, "BinarySI");
    else q = Quantity.fromInteger(v, "DecimalSI");
    out[name] = q.toString();
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * The resources one pod of the template (or pod spec) requests, as Karmada's ResourceList
 * (undefined when nothing is requested).
 */
export function podRequirements(templateOrSpec: unknown): WithIssues<ResourceListJSON | undefined> {
  const { spec, path } = podSpecOf(templateOrSpec);
  const issues: ResourceIssue[] = [];
  const totals: Totals = new Map();
  asObjectArray(spec["containers"]).forEach((c, i) => {
    addInto(totals, effectiveRequests(c, joinPath(joinPath(path, "containers"), i), issues));
  });
  asObjectArray(spec["initContainers"]).forEach((c, i) => {
    maxInto(totals, effectiveRequests(c, joinPath(joinPath(path, "initContainers"), i), issues));
  });
  addInto(totals, readList(spec["overhead"], joinPath(path, "overhead"), issues));
  return { value: toResourceList(totals), issues };
}
