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
import { documentOf, type Karta } from "../definition/index.js";
import { analyses } from "./relevant-changes.js";
import { objectMeta, ProtobufError, type ObjectDecoder, type ProtoReader } from "./protobuf.js";

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
  for (const analysis of analyses(karta, (role) => documentOf(role) === "pod")) {
    if (analysis.dynamic.length > 0) return "all";
    for (const r of [...analysis.reads, ...analysis.consumed]) {
      const [top, second] = r.steps;
      if (top === undefined || top.type === "iterate") return "all"; // `.[]` yields the pod's spec and status too
      if (top.type !== "field") continue; // `.[0]` of a pod object is an error
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

/**
 * The pod with only the kept fields (metadata whole, without managedFields); the pod itself when all are
 * kept, or when it has nothing more (as {@link podDecoder} makes them).
 */
export function trimPod<T extends KubernetesObject>(pod: T, fields: PodFields): T {
  if (fields === "all") return pod;
  const p = pod as unknown as { spec?: Record<string, unknown>; status?: Record<string, unknown> };
  if (!hasMore(pod, p.spec, p.status, fields)) return pod;
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

const POD_KEYS = ["apiVersion", "kind", "metadata", "spec", "status"];

/** Whether trimming `pod` to `fields` would leave something out (or change its keys' order). */
function hasMore(pod: object, spec: unknown, status: unknown, fields: ReadonlySet<string>): boolean {
  let i = 0;
  for (const k in pod) {
    while (i < POD_KEYS.length && POD_KEYS[i] !== k) i++;
    if (i++ === POD_KEYS.length) return true;
  }
  for (const [part, o] of [["spec.", spec], ["status.", status]] as const) {
    if (o === undefined) continue;
    if (!o || typeof o !== "object") return true;
    for (const k in o) if (!fields.has(part + k)) return true;
  }
  return false;
}

/**
 * The fields of a pod's spec and status read from protobuf (k8s.io/api core/v1 `generated.proto`), in the
 * order of their Go structs (which the JSON follows): field number, JSON name, and how Go writes it in
 * JSON: `string` omitted when empty (omitempty), `string?` and `int?` pointers written whenever set,
 * `group` the PodSchedulingGroup.
 */
type Scalar = "string" | "string?" | "int?" | "group";
const SPEC_FIELDS: readonly [number, string, Scalar][] = [
  [3, "restartPolicy", "string"],
  [8, "serviceAccountName", "string"],
  [10, "nodeName", "string"],
  [16, "hostname", "string"],
  [17, "subdomain", "string"],
  [19, "schedulerName", "string"],
  [24, "priorityClassName", "string"],
  [25, "priority", "int?"],
  [29, "runtimeClassName", "string?"],
  [31, "preemptionPolicy", "string?"],
  [43, "schedulingGroup", "group"],
];
const STATUS_FIELDS: readonly [number, string, Scalar][] = [
  [1, "phase", "string"],
  [3, "message", "string"],
  [4, "reason", "string"],
  [11, "nominatedNodeName", "string"],
  [5, "hostIP", "string"],
  [6, "podIP", "string"],
  [9, "qosClass", "string"],
];

/**
 * The pod fields a protobuf watch can keep: the cache is fed from protobuf when the Kartas read only these
 * (and metadata), from JSON otherwise.
 */
export const PROTOBUF_POD_FIELDS: ReadonlySet<string> = new Set([...SPEC_FIELDS.map(([, n]) => `spec.${n}`), ...STATUS_FIELDS.map(([, n]) => `status.${n}`)]);

/** Each field number's place in its table (a lookup per field read: a pod's spec has dozens). */
const placeOf = (table: readonly [number, string, Scalar][]): number[] => {
  const out: number[] = [];
  table.forEach(([f], i) => (out[f] = i));
  return out;
};

function scalars(r: ProtoReader, table: readonly [number, string, Scalar][], place: number[]): Record<string, unknown> {
  const m = r.message();
  const values: unknown[] = [];
  while (m.next()) {
    const i = place[m.field];
    if (i === undefined) {
      m.skip();
      continue;
    }
    const kind = table[i]![2];
    if (kind === "int?") values[i] = m.int() | 0;
    else if (kind === "group") {
      const g = m.message();
      const group: Record<string, string> = {};
      while (g.next()) {
        if (g.field === 1) group["podGroupName"] = g.string();
        else g.skip();
      }
      values[i] = group;
    } else values[i] = m.string();
  }
  const out: Record<string, unknown> = {};
  table.forEach(([, name, kind], i) => {
    const v = values[i];
    if (v !== undefined && (kind !== "string" || v !== "")) out[name] = v;
  });
  return out;
}

/**
 * A decoder of Pods from protobuf, each as JSON would give it once trimmed to `fields` (by
 * {@link trimPod}; those of {@link PROTOBUF_POD_FIELDS} only): metadata whole but for managedFields, and of
 * spec and status the fields kept (both always present, as in JSON). The others are skipped undecoded.
 */
export function podDecoder(fields: ReadonlySet<string>): ObjectDecoder {
  const kept = (part: string, table: readonly [number, string, Scalar][]) => table.filter(([, name]) => fields.has(`${part}.${name}`));
  const spec = kept("spec", SPEC_FIELDS);
  const status = kept("status", STATUS_FIELDS);
  const [specPlace, statusPlace] = [placeOf(spec), placeOf(status)];
  return (r, type) => {
    if (type.kind !== "Pod") throw new ProtobufError(`a ${type.kind || "object without a kind"} in a watch of pods`);
    const pod = { apiVersion: type.apiVersion, kind: type.kind, metadata: {} as Record<string, unknown>, spec: {} as Record<string, unknown>, status: {} as Record<string, unknown> };
    while (r.next()) {
      if (r.field === 1) pod.metadata = objectMeta(r);
      else if (r.field === 2) pod.spec = scalars(r, spec, specPlace);
      else if (r.field === 3) pod.status = scalars(r, status, statusPlace);
      else r.skip();
    }
    return pod;
  };
}

/** Pods from protobuf with every field of {@link PROTOBUF_POD_FIELDS}. */
export const decodePod: ObjectDecoder = podDecoder(PROTOBUF_POD_FIELDS);
