/**
 * The workload metrics exporter, with the contract of upstream's proposed exporter (metric names, types
 * and labels; docs/metrics.md): families generated from the controller's informer caches on each scrape,
 * as kube-state-metrics' generators are, served on the controller's --metrics-bind-address.
 *
 * - `karta_workload_info`, `karta_workload_status` (one 0/1 series per generic status), and
 *   `karta_workload_component_replicas` per root object of a Ready Karta's kind;
 * - `karta_pod_workload_info` per pod whose owner chain reaches one (the join key of the recording rules in
 *   deploy/prometheus), and `karta_workload_component_pods` (pods per component instance and pod phase);
 * - its own health: `karta_exporter_kartas`, `karta_exporter_workloads`, `karta_exporter_unattributed_pods`,
 *   `karta_exporter_attribution_errors_total`, `karta_exporter_last_event_timestamp_seconds`.
 *
 * A pod is attributed as the controller attributes it (its owner chain, src/controller/owners.ts, and
 * the interpretation's pod → component). A workload's lines and a pod's attribution are kept by their
 * object's resourceVersion (as kube-state-metrics keeps each object's metrics), so a scrape evaluates only
 * what changed since the last one and otherwise writes strings (a pod's line from its names and the text
 * it shares with its component instance's other pods: a kept line per pod would be most of the
 * exporter's memory); the text format is written here, not by prom-client, whose formatting of tens of
 * thousands of series per scrape dominates (bench/exporter.ts).
 */
import type { KubernetesObject } from "./kubernetes-object.js";
import { Counter, type Registry } from "prom-client";
import type { CompiledInterpreter, GenericStatus, WorkloadView } from "../interpret/index.js";
import { classifyPod, evaluateStatus } from "../interpret/index.js";
import { podInstance } from "../interpret/pods.js";
import type { Diagnostic } from "../definition/index.js";
import { Interner } from "./intern.js";
import type { RootKind } from "./karta-status.js";

/** A component or instance the exporter could not resolve (angle brackets never occur in a Kubernetes name). */
export const UNKNOWN = "<unknown>";

/** The generic statuses, each with a series in karta_workload_status (several can be 1 at once). */
export const WORKLOAD_PHASES: readonly GenericStatus[] = ["Initializing", "Running", "Completed", "Failed", "Degraded", "Suspended", "Suspending", "Resuming", "Undefined"];

/** The pod phases karta_workload_component_pods counts (zero-filled). */
export const POD_PHASES = ["Pending", "Running", "Succeeded", "Failed", "Unknown"] as const;

/** Why a pod is not (fully) attributed: karta_exporter_unattributed_pods{reason}. */
export type UnattributedReason = "no_owner" | "unknown_instance" | "jq_error";

/** A workload as its labels name it. */
export interface WorkloadRef {
  namespace: string;
  name: string;
  kind: string;
  group: string;
  version: string;
}

/** What the exporter knows of one root object. */
export interface WorkloadRecord {
  uid: string;
  ref: WorkloadRef;
  karta: string;
  /** The matched generic statuses; undefined when the root has no statusDefinition (no karta_workload_status). */
  phases?: GenericStatus[];
  /** Each instance of each component that has pods or a scale, with its desired replicas when known. */
  components: { component: string; instance: string; replicas?: number }[];
  /** Problems evaluating status or components (counted as status_eval). */
  errors: string[];
}

/** A pod's place in its workload. */
export interface PodAttribution {
  component: string;
  instance: string;
  replica: string;
  reason?: Exclude<UnattributedReason, "no_owner">;
}

/** The root object with the apiVersion and kind a list item may lack. */
function withKind(root: KubernetesObject, kind: RootKind): KubernetesObject {
  const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
  return root.apiVersion === apiVersion && root.kind === kind.kind ? root : { ...root, apiVersion, kind: kind.kind };
}

/** The view a root object's pods are classified against (pure). */
function interpreterView(s: { object: KubernetesObject; interpreter: CompiledInterpreter; kind: RootKind }): WorkloadView | undefined {
  return s.interpreter.workload(withKind(s.object, s.kind)).view;
}

/** The record of one root object and the view its pods are classified against (pure). */
export function workloadRecord(interpreter: CompiledInterpreter, root: KubernetesObject, kind: RootKind, karta: string): { record: WorkloadRecord; view?: WorkloadView } {
  const object = withKind(root, kind);
  const record: WorkloadRecord = {
    uid: root.metadata?.uid ?? "",
    ref: { namespace: root.metadata?.namespace ?? "", name: root.metadata?.name ?? "", kind: kind.kind, group: kind.group, version: kind.version },
    karta,
    components: [],
    errors: [],
  };
  const errors = (ds: readonly Diagnostic[]): string[] => ds.filter((d) => d.severity === "error").map((d) => (d.path ? `${d.path}: ${d.message}` : d.message));
  const w = interpreter.workload(object);
  record.errors.push(...errors(w.diagnostics));
  const status = interpreter.definition.root?.status;
  if (status) {
    const diagnostics: Diagnostic[] = [];
    record.phases = evaluateStatus(status, object, diagnostics).statuses;
    record.errors.push(...errors(diagnostics));
  }
  if (!w.view) return { record };
  for (const e of w.view.components.values()) {
    // A component with neither pods nor a scale (a grouping level) has no replicas to count.
    if (e.scales === undefined && e.compiled.specKind === undefined) continue;
    for (const id of e.instanceIds ?? []) {
      const replicas = e.scales?.get(id)?.replicas;
      record.components.push({ component: e.compiled.name, instance: id, ...(replicas !== undefined ? { replicas } : {}) });
    }
  }
  return { record, view: w.view };
}

/**
 * A pod's component, instance and replica in its workload (pure). A pod no component claims, or whose
 * selectors fail, is `<unknown>` with reason jq_error; an instance id that is not one of the workload's is
 * `<unknown>` with reason unknown_instance. The pod is never dropped: workload-level sums keep it.
 */
export function podAttribution(view: WorkloadView, pod: unknown): PodAttribution {
  const c = classifyPod(view, pod, 0, []);
  if (c.component === undefined) return { component: UNKNOWN, instance: UNKNOWN, replica: "", reason: "jq_error" };
  const out: PodAttribution = { component: c.component, instance: c.instance ?? "", replica: c.replica ?? "" };
  if (c.reason !== undefined) {
    const compiled = view.definition.byName.get(c.component);
    const instance = compiled ? podInstance(view, compiled, pod, c.pod.name) : undefined;
    out.instance = UNKNOWN;
    out.reason = instance?.notFound ? "unknown_instance" : "jq_error";
  }
  return out;
}

/** The controller's caches, as the exporter reads them (src/controller/workloads.ts, kartas.ts). */
export interface ExporterSource {
  watchedRoots(): { karta: string; ready: { root: RootKind; karta: KubernetesObject }; interpreter: CompiledInterpreter; objects(): readonly KubernetesObject[]; governs: boolean }[];
  /** The cached pods (iterated once per scrape: not copied into an array). */
  cachedPods(): Iterable<KubernetesObject>;
  resolve(o: KubernetesObject): { found: true; root: { uid: string; name: string } } | { found: false; missing?: unknown };
  readonly lastEventAt: number;
  kartaValidity(): ReadonlyMap<string, boolean>;
}

/** A family's HELP and TYPE lines. */
const header = (name: string): string => `# HELP ${name} ${HELP[name]}\n# TYPE ${name} gauge\n`;

/** The gauge families, in the order they are written. */
const HELP: Record<string, string> = {
  karta_pod_workload_info: "A pod's workload, component, component instance and replica, as its Karta attributes it; always 1.",
  karta_workload_info: "A workload of a kind a Ready Karta describes, with its version and Karta; always 1.",
  karta_workload_status: "The workload's generic status: 1 for each status that matches (several can), 0 for the others.",
  karta_workload_component_replicas: "Desired replicas of a component instance, from the workload's spec.",
  karta_workload_component_pods: "Pods of a component instance by pod phase (declared and observed instances, zero-filled).",
  karta_exporter_kartas: "Karta definitions the exporter knows, by validity and reason (invalid, shadowed).",
  karta_exporter_workloads: "Workloads the exporter tracks.",
  karta_exporter_unattributed_pods: "Pods not (fully) attributed, by reason (no_owner, unknown_instance, jq_error).",
  karta_exporter_last_event_timestamp_seconds: "Unix time of the last watch event the controller processed.",
};

/** A label value as the text format writes it: backslash, double quote and line feed escaped. */
function escapeLabel(v: string): string {
  return /[\\"\n]/.test(v) ? v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") : v;
}

/** `a="x",b="y"`: labels as the text format writes them. */
function labelText(labels: readonly (readonly [string, string])[]): string {
  return labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",");
}

const workloadLabels = (r: WorkloadRef): [string, string][] => [
  ["namespace", r.namespace],
  ["workload", r.name],
  ["workload_kind", r.kind],
  ["workload_group", r.group],
];

/** A component instance's pods, by phase, with the labels its karta_workload_component_pods series carry. */
interface PodRow {
  labels: string;
  counts: number[];
}

/** A workload's lines, written when it changes: info, status and replicas, and its declared instances. */
interface WorkloadEntry {
  key: string;
  record: WorkloadRecord;
  /**
   * The view its pods are classified against, while a scrape reads them (undefined: not evaluated in
   * this scrape; null: the workload has none). Kept between scrapes, the views were about 2 KiB per
   * workload; a scrape evaluates a view again only for a workload with a new or changed pod.
   */
  view?: WorkloadView | null;
  /** What evaluates the view again: the cached root object, its Karta's interpreter and root kind. */
  source: { object: KubernetesObject; interpreter: CompiledInterpreter; kind: RootKind };
  info: string;
  status: string;
  replicas: string;
  /** Row key → labels, for each declared instance. */
  rows: [string, string][];
  /** The rows of its pods' component instances, by "component\0instance", shared by the workload's pods. */
  podRows: Map<string, PodRowLabels>;
}

/** A component instance of a workload, as its pods' series name it. */
interface PodRowLabels {
  /** The row's key in karta_workload_component_pods. */
  key: string;
  /** Its labels there. */
  labels: string;
  /** The labels of karta_pod_workload_info between the pod's uid and its replica. */
  podLabels: string;
}

/**
 * A pod's attribution, evaluated again when the pod (its resourceVersion) or its workload changes. Tens
 * of thousands are kept, so an entry holds no text of its own: the pod's line is written on each scrape
 * from the pod's names and the row it shares with the workload's other pods of its component instance.
 */
interface PodEntry {
  resourceVersion: string | undefined;
  workload: WorkloadEntry;
  attribution: PodAttribution;
  row: PodRowLabels;
  /** The last scrape that read the pod. */
  scrape: number;
}

/** What one scrape read from the caches (the lines of the workloads and pods in them, and counts). */
export interface Snapshot {
  workloads: WorkloadRecord[];
  /** The attributed pods, by namespace/name. */
  pods: Map<string, PodAttribution>;
  /** Pods whose owner chain stops at an owner (or root) not in the caches yet. */
  parked: number;
  kartas: { valid: number; invalid: number; shadowed: number };
  text: string;
}

export class WorkloadExporter {
  /** By root uid and pod uid: what was written for each, and the key (resourceVersions) it was written for. */
  private readonly workloads = new Map<string, WorkloadEntry>();
  private readonly pods = new Map<string, PodEntry>();
  /** The pods' attributions, shared by the entries that are equal (never changed in place). */
  private readonly attributions = new Interner();
  /** Scrapes so far: each stamps the pod entries it read. */
  private scrapes = 0;
  readonly attributionErrors: Counter<"reason">;

  constructor(
    private readonly source: ExporterSource,
    registry: Registry,
  ) {
    this.attributionErrors = new Counter({
      name: "karta_exporter_attribution_errors_total",
      help: "Pod attributions and workload status evaluations that failed, by reason (jq_error, unknown_instance, status_eval).",
      labelNames: ["reason"],
      registers: [registry],
    });
    for (const reason of ["jq_error", "unknown_instance", "status_eval"]) this.attributionErrors.inc({ reason }, 0);
  }

  /** The gauge families in the Prometheus text format (0.0.4). */
  exposition(): string {
    return [...this.expositionParts()].join("");
  }

  /**
   * The gauge families as the pieces (lines, mostly) the text is made of, for /metrics to write out in
   * chunks: with tens of thousands of pods the text is tens of MB, and one string of it per scrape is
   * garbage the size of the text, outside the young generation.
   */
  expositionParts(): Iterable<string> {
    return this.collect(false, { workloads: [], pods: new Map(), parked: 0, kartas: { valid: 0, invalid: 0, shadowed: 0 } });
  }

  /** A workload's entry: its record and lines, evaluated again only when its key changed. */
  private workload(w: ReturnType<ExporterSource["watchedRoots"]>[number], o: KubernetesObject, key: string): WorkloadEntry {
    const uid = o.metadata?.uid ?? "";
    const had = this.workloads.get(uid);
    if (had?.key === key) return had;
    const { record, view } = workloadRecord(w.interpreter, o, w.ready.root, w.karta);
    if (record.errors.length > 0) this.attributionErrors.inc({ reason: "status_eval" });
    const wl = workloadLabels(record.ref);
    const base = labelText(wl);
    const entry: WorkloadEntry = {
      key,
      record,
      view: view ?? null,
      source: { object: o, interpreter: w.interpreter, kind: w.ready.root },
      info: `karta_workload_info{${labelText([...wl, ["workload_version", record.ref.version], ["karta", record.karta]])}} 1\n`,
      status: record.phases ? WORKLOAD_PHASES.map((phase) => `karta_workload_status{${base},phase="${phase}"} ${record.phases!.includes(phase) ? 1 : 0}\n`).join("") : "",
      replicas: record.components
        .filter((c) => c.replicas !== undefined)
        .map((c) => `karta_workload_component_replicas{${labelText([...wl, ["component", c.component], ["component_instance", c.instance]])}} ${c.replicas}\n`)
        .join(""),
      rows: record.components.map((c) => [`${uid}\u0000${c.component}\u0000${c.instance}`, labelText([...wl, ["component", c.component], ["component_instance", c.instance]])]),
      podRows: new Map(),
    };
    this.workloads.set(uid, entry);
    return entry;
  }

  /** A pod's entry: its attribution, evaluated again only when the pod or its workload changed. */
  private pod(pod: KubernetesObject, w: WorkloadEntry): PodEntry {
    const uid = pod.metadata?.uid ?? "";
    const resourceVersion = pod.metadata?.resourceVersion;
    const had = this.pods.get(uid);
    if (had?.workload === w && had.resourceVersion === resourceVersion) return had;
    if (w.view === undefined) w.view = interpreterView(w.source) ?? null;
    // One object per distinct attribution: the same replica of the same component recurs in every job.
    const attribution: PodAttribution = this.attributions.part(w.view ? podAttribution(w.view, pod) : { component: UNKNOWN, instance: UNKNOWN, replica: "", reason: "jq_error" });
    if (attribution.reason) this.attributionErrors.inc({ reason: attribution.reason });
    const rowKey = `${attribution.component}\u0000${attribution.instance}`;
    let row = w.podRows.get(rowKey);
    if (!row) {
      const wl = workloadLabels(w.record.ref);
      const instance: [string, string][] = [
        ["component", attribution.component],
        ["component_instance", attribution.instance],
      ];
      row = { key: `${w.record.uid}\u0000${rowKey}`, labels: labelText([...wl, ...instance]), podLabels: labelText([...wl.slice(1), ...instance]) };
      w.podRows.set(rowKey, row);
    }
    const entry: PodEntry = { resourceVersion, workload: w, attribution, row, scrape: 0 };
    this.pods.set(uid, entry);
    return entry;
  }

  /** Everything the exporter exports now, from the caches; objects unchanged since the last call are not evaluated again. */
  snapshot(): Snapshot {
    const out: Snapshot = { workloads: [], pods: new Map(), parked: 0, kartas: { valid: 0, invalid: 0, shadowed: 0 }, text: "" };
    out.text = [...this.collect(true, out)].join("");
    return out;
  }

  /**
   * The text's pieces, made as they are asked for (a pod's line is yielded as its pod is read, so that a
   * scrape never holds the whole text), and, once they are all read, the rest of {@link Snapshot} in
   * `out`; the attributed pods by name only when `withPods`. Entries of objects no longer cached are
   * dropped at the end (an entry not stamped with this scrape's number).
   */
  private *collect(withPods: boolean, out: Omit<Snapshot, "text">): Generator<string, void, undefined> {
    const scrape = ++this.scrapes;
    const seen = new Set<string>();
    const current: WorkloadEntry[] = [];
    const byUid = new Map<string, WorkloadEntry>();
    for (const w of this.source.watchedRoots()) {
      if (!w.governs) continue;
      const generation = String(w.ready.karta.metadata?.generation ?? "");
      for (const o of w.objects()) {
        const e = this.workload(w, o, `${w.karta}|${generation}|${o.metadata?.resourceVersion ?? ""}`);
        seen.add(e.record.uid);
        byUid.set(e.record.uid, e);
        current.push(e);
      }
    }
    for (const uid of this.workloads.keys()) if (!seen.has(uid)) this.workloads.delete(uid);

    // Declared instances, then the pods' (zero-filled over the pod phases).
    const rows = new Map<string, PodRow>();
    for (const e of current) for (const [key, labels] of e.rows) if (!rows.has(key)) rows.set(key, { labels, counts: [0, 0, 0, 0, 0] });
    const pods = out.pods;
    let parked = 0;
    let unknownInstance = 0;
    let jqErrors = 0;
    let lines = 0;
    for (const pod of this.source.cachedPods()) {
      const r = this.source.resolve(pod);
      if (!r.found) {
        if (r.missing !== undefined) parked++;
        continue;
      }
      const w = byUid.get(r.root.uid);
      if (!w) {
        parked++; // the root is not in its cache yet
        continue;
      }
      const e = this.pod(pod, w);
      e.scrape = scrape;
      if (withPods) pods.set(`${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`, e.attribution);
      if (lines++ === 0) yield header("karta_pod_workload_info");
      const m = pod.metadata;
      yield `karta_pod_workload_info{namespace="${escapeLabel(m?.namespace ?? "")}",pod="${escapeLabel(m?.name ?? "")}",uid="${escapeLabel(m?.uid ?? "")}",${e.row.podLabels},replica="${escapeLabel(e.attribution.replica)}"} 1\n`;
      if (e.attribution.reason === "unknown_instance") unknownInstance++;
      else if (e.attribution.reason === "jq_error") jqErrors++;
      let row = rows.get(e.row.key);
      if (!row) rows.set(e.row.key, (row = { labels: e.row.labels, counts: [0, 0, 0, 0, 0] }));
      const phase = POD_PHASES.indexOf(String((pod as { status?: { phase?: unknown } }).status?.phase ?? "") as (typeof POD_PHASES)[number]);
      if (phase >= 0) row.counts[phase]!++;
    }
    if (lines === 0) yield header("karta_pod_workload_info");
    for (const e of current) e.view = undefined;
    // Older than this scrape: a later scrape that ran while this one waited on its socket stamped its own.
    for (const [uid, e] of this.pods) if (e.scrape < scrape) this.pods.delete(uid);

    const validity = [...this.source.kartaValidity().values()];
    const valid = validity.filter((v) => v).length;
    const shadowed = this.source.watchedRoots().filter((w) => !w.governs).length;
    const kartas = { valid: valid - shadowed, invalid: validity.length - valid, shadowed };
    // Each family's lines are made as they are read, as the pods' are: the component pods family alone is
    // 5 lines per component instance, megabytes that an array would keep alive into the old generation.
    function* family(name: string, lines: Iterable<string>): Generator<string, void, undefined> {
      yield header(name);
      yield* lines;
    }
    yield* family("karta_workload_info", current.map((e) => e.info));
    yield* family("karta_workload_status", current.map((e) => e.status));
    yield* family("karta_workload_component_replicas", current.map((e) => e.replicas));
    yield* family("karta_workload_component_pods", componentPodLines(rows.values()));
    yield* family("karta_exporter_kartas", [`karta_exporter_kartas{valid="true",reason=""} ${kartas.valid}\n`, `karta_exporter_kartas{valid="false",reason="invalid"} ${kartas.invalid}\n`, `karta_exporter_kartas{valid="false",reason="shadowed"} ${kartas.shadowed}\n`]);
    yield* family("karta_exporter_workloads", [`karta_exporter_workloads ${current.length}\n`]);
    yield* family("karta_exporter_unattributed_pods", [
      `karta_exporter_unattributed_pods{reason="no_owner"} ${parked}\n`,
      `karta_exporter_unattributed_pods{reason="unknown_instance"} ${unknownInstance}\n`,
      `karta_exporter_unattributed_pods{reason="jq_error"} ${jqErrors}\n`,
    ]);
    yield* family("karta_exporter_last_event_timestamp_seconds", [`karta_exporter_last_event_timestamp_seconds ${this.source.lastEventAt / 1000}\n`]);
    Object.assign(out, { workloads: current.map((e) => e.record), parked, kartas });
  }
}

/** Each component instance's pod counts (a line per pod phase), made as they are read. */
function* componentPodLines(rows: Iterable<PodRow>): Generator<string, void, undefined> {
  for (const r of rows) yield POD_PHASES.map((phase, i) => `karta_workload_component_pods{${r.labels},phase="${phase}"} ${r.counts[i]}\n`).join("");
}
