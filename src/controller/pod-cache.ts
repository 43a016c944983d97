/**
 * The controller's pod cache, trimmed to the fields it reads: a pod's metadata (owner chains, labels and
 * annotations that selectors read), `spec.nodeName`, `spec.schedulingGroup` (the admission's field),
 * `status.phase` (the exporter's pod counts), and every field a Ready Karta's pod-side expressions read
 * (componentTypeSelector, componentInstanceSelector and replicaSelector paths, groupByKeyPaths, filters),
 * found by the validator's static analysis of those jq expressions. A Karta whose pod expressions cannot
 * be followed statically (`getpath`, `to_entries`...) keeps the whole pod; `--full-pod-cache` always does.
 * Most of a pod's bytes are its spec and status (containers, env, volumes, conditions): a cache of tens of
 * thousands of pods holds a small part of them (upstream's exporter trims its pod cache the same way).
 */
import type { KubernetesObject } from "./kubernetes-object.js";
import { analyze, documentOf, listExpressions, type Karta } from "../definition/index.js";
import { parseJq } from "../jq/index.js";

/** The pod fields kept: `spec.X` and `status.X` (top-level fields of spec and status), or every field. */
export type PodFields = ReadonlySet<string> | "all";

/** What the controller itself reads from a cached pod, whatever the Kartas. */
export const BASE_POD_FIELDS: ReadonlySet<string> = new Set(["spec.nodeName", "spec.schedulingGroup", "status.phase"]);

/**
 * The pod fields a Karta's pod-side expressions read beyond metadata: `spec.X`/`status.X` for a read under
 * them, "all" for a read of the whole pod, of all of spec or status, or one that cannot be followed.
 */
export function podFieldsRead(karta: Karta): PodFields {
  const out = new Set<string>();
  for (const e of listExpressions(karta)) {
    if (documentOf(e.role) !== "pod") continue;
    let ast;
    try {
      ast = parseJq(e.text);
    } catch {
      continue; // not a valid expression: the Karta is not Ready, and nothing evaluates it
    }
    const analysis = analyze(ast);
    if (analysis.dynamic.length > 0) return "all";
    for (const r of analysis.reads) {
      const [top, second] = r.steps;
      if (top === undefined) return "all";
      if (top.type !== "field") continue; // `.[0]` of a pod object is null
      if (top.name === "metadata" || top.name === "kind" || top.name === "apiVersion") continue;
      if (top.name !== "spec" && top.name !== "status") continue; // no other field exists on a pod
      if (second === undefined || second.type !== "field") return "all";
      out.add(`${top.name}.${second.name}`);
    }
  }
  return out;
}

/** The fields every given Karta reads, with the controller's own; "all" when one reads the whole pod. */
export function podFieldsOf(kartas: Iterable<Karta>, full = false): PodFields {
  if (full) return "all";
  const out = new Set(BASE_POD_FIELDS);
  for (const k of kartas) {
    const f = podFieldsRead(k);
    if (f === "all") return "all";
    for (const x of f) out.add(x);
  }
  return out;
}

/** Whether `have` keeps every field `want` needs. */
export function coversFields(have: PodFields, want: PodFields): boolean {
  if (have === "all") return true;
  if (want === "all") return false;
  for (const f of want) if (!have.has(f)) return false;
  return true;
}

/** The pod with only the kept fields (metadata whole, without managedFields); the pod itself when all are kept. */
export function trimPod<T extends KubernetesObject>(pod: T, fields: PodFields): T {
  if (fields === "all") return pod;
  const p = pod as unknown as { spec?: Record<string, unknown>; status?: Record<string, unknown> };
  const out: Record<string, unknown> = { apiVersion: pod.apiVersion, kind: pod.kind, metadata: pod.metadata };
  for (const part of ["spec", "status"] as const) {
    const src = p[part];
    if (!src || typeof src !== "object") continue;
    const kept: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(src)) if (fields.has(`${part}.${k}`)) kept[k] = v;
    out[part] = kept;
  }
  if (out.apiVersion === undefined) delete out.apiVersion;
  if (out.kind === undefined) delete out.kind;
  return out as unknown as T;
}
