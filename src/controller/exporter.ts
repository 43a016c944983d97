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
 * the interpretation's pod → component). What a scrape computes is kept per object and resourceVersion,
 * so a scrape re-evaluates only the objects that changed since the last one.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { Counter, type Registry } from "prom-client";
import type { CompiledInterpreter, GenericStatus, WorkloadView } from "../interpret/index.js";
import { classifyPod, evaluateStatus } from "../interpret/index.js";
import { podInstance } from "../interpret/pods.js";
import type { Diagnostic } from "../definition/index.js";
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

/** One attributed pod. */
export interface PodRecord extends PodAttribution {
  uid: string;
  namespace: string;
  name: string;
  workloadUid: string;
  workload: WorkloadRef;
  phase: string;
}

/** The root object with the apiVersion and kind a list item may lack. */
function withKind(root: KubernetesObject, kind: RootKind): KubernetesObject {
  const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
  return root.apiVersion === apiVersion && root.kind === kind.kind ? root : { ...root, apiVersion, kind: kind.kind };
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
  cachedPods(): readonly KubernetesObject[];
  resolve(o: KubernetesObject): { found: true; root: { uid: string; name: string } } | { found: false; missing?: unknown };
  readonly lastEventAt: number;
  kartaValidity(): ReadonlyMap<string, boolean>;
}

/** What one scrape exports. */
export interface Snapshot {
  workloads: WorkloadRecord[];
  pods: PodRecord[];
  /** Pods whose owner chain stops at an owner (or root) not in the caches yet. */
  parked: number;
  kartas: { valid: number; invalid: number; shadowed: number };
}

interface Family {
  name: string;
  help: string;
  type: "gauge" | "counter";
  values: { labels: Record<string, string>; value: number }[];
}

export class WorkloadExporter {
  private readonly workloads = new Map<string, { key: string; record: WorkloadRecord; view?: WorkloadView }>();
  private readonly pods = new Map<string, { key: string; attribution: PodAttribution }>();
  private current: Snapshot | undefined;
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
    for (const f of this.families()) {
      // A metric prom-client renders: its get() is called once per scrape.
      registry.registerMetric({ name: f.name, help: f.help, type: f.type, get: () => this.family(f.name), reset: () => {}, aggregator: "sum" } as never);
    }
  }

  private families(): Omit<Family, "values">[] {
    return [
      { name: "karta_pod_workload_info", help: "A pod's workload, component, component instance and replica, as its Karta attributes it; always 1.", type: "gauge" },
      { name: "karta_workload_info", help: "A workload of a kind a Ready Karta describes, with its version and Karta; always 1.", type: "gauge" },
      { name: "karta_workload_status", help: "The workload's generic status: 1 for each status that matches (several can), 0 for the others.", type: "gauge" },
      { name: "karta_workload_component_replicas", help: "Desired replicas of a component instance, from the workload's spec.", type: "gauge" },
      { name: "karta_workload_component_pods", help: "Pods of a component instance by pod phase (declared and observed instances, zero-filled).", type: "gauge" },
      { name: "karta_exporter_kartas", help: "Karta definitions the exporter knows, by validity and reason (invalid, shadowed).", type: "gauge" },
      { name: "karta_exporter_workloads", help: "Workloads the exporter tracks.", type: "gauge" },
      { name: "karta_exporter_unattributed_pods", help: "Pods not (fully) attributed, by reason (no_owner, unknown_instance, jq_error).", type: "gauge" },
      { name: "karta_exporter_last_event_timestamp_seconds", help: "Unix time of the last watch event the controller processed.", type: "gauge" },
    ];
  }

  /** The snapshot of this scrape: computed by the first family asked, shared by the others of the same scrape. */
  private scrape(): Snapshot {
    if (!this.current) {
      this.current = this.snapshot();
      // prom-client asks every family in one synchronous pass; the next scrape computes again.
      setImmediate(() => (this.current = undefined));
    }
    return this.current;
  }

  /** Everything the exporter exports now, from the caches; objects unchanged since the last call are not evaluated again. */
  snapshot(): Snapshot {
    const seen = new Set<string>();
    const byUid = new Map<string, { record: WorkloadRecord; view?: WorkloadView; key: string }>();
    for (const w of this.source.watchedRoots()) {
      if (!w.governs) continue;
      const generation = String(w.ready.karta.metadata?.generation ?? "");
      for (const o of w.objects()) {
        const uid = o.metadata?.uid ?? "";
        const key = `${w.karta}|${generation}|${o.metadata?.resourceVersion ?? ""}`;
        let entry = this.workloads.get(uid);
        if (entry?.key !== key) {
          const made = workloadRecord(w.interpreter, o, w.ready.root, w.karta);
          if (made.record.errors.length > 0) this.attributionErrors.inc({ reason: "status_eval" });
          entry = { key, ...made };
          this.workloads.set(uid, entry);
        }
        seen.add(uid);
        byUid.set(uid, entry);
      }
    }
    for (const uid of this.workloads.keys()) if (!seen.has(uid)) this.workloads.delete(uid);

    const pods: PodRecord[] = [];
    let parked = 0;
    const seenPods = new Set<string>();
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
      const uid = pod.metadata?.uid ?? "";
      seenPods.add(uid);
      const key = `${pod.metadata?.resourceVersion ?? ""}|${r.root.uid}|${w.key}`;
      let entry = this.pods.get(uid);
      if (entry?.key !== key) {
        const attribution: PodAttribution = w.view ? podAttribution(w.view, pod) : { component: UNKNOWN, instance: UNKNOWN, replica: "", reason: "jq_error" };
        if (attribution.reason) this.attributionErrors.inc({ reason: attribution.reason });
        entry = { key, attribution };
        this.pods.set(uid, entry);
      }
      pods.push({
        ...entry.attribution,
        uid,
        namespace: pod.metadata?.namespace ?? "",
        name: pod.metadata?.name ?? "",
        workloadUid: r.root.uid,
        workload: w.record.ref,
        phase: String((pod as { status?: { phase?: unknown } }).status?.phase ?? ""),
      });
    }
    for (const uid of this.pods.keys()) if (!seenPods.has(uid)) this.pods.delete(uid);

    const validity = [...this.source.kartaValidity().values()];
    const valid = validity.filter((v) => v).length;
    const invalid = validity.length - valid;
    const shadowed = this.source.watchedRoots().filter((w) => !w.governs).length;
    return { workloads: [...byUid.values()].map((w) => w.record), pods, parked, kartas: { valid: valid - shadowed, invalid, shadowed } };
  }

  /** One family's samples for this scrape. */
  private family(name: string): Family {
    const meta = this.families().find((f) => f.name === name)!;
    return { ...meta, values: familyValues(name, this.scrape(), this.source.lastEventAt) };
  }
}

const workloadLabels = (r: WorkloadRef): Record<string, string> => ({ namespace: r.namespace, workload: r.name, workload_kind: r.kind, workload_group: r.group });

/** The samples of one family from a snapshot (pure). */
export function familyValues(name: string, s: Snapshot, lastEventAt: number): { labels: Record<string, string>; value: number }[] {
  switch (name) {
    case "karta_pod_workload_info":
      return s.pods.map((p) => ({
        labels: { namespace: p.namespace, pod: p.name, uid: p.uid, workload: p.workload.name, workload_kind: p.workload.kind, workload_group: p.workload.group, component: p.component, component_instance: p.instance, replica: p.replica },
        value: 1,
      }));
    case "karta_workload_info":
      return s.workloads.map((w) => ({ labels: { ...workloadLabels(w.ref), workload_version: w.ref.version, karta: w.karta }, value: 1 }));
    case "karta_workload_status":
      return s.workloads.flatMap((w) => (w.phases ? WORKLOAD_PHASES.map((phase) => ({ labels: { ...workloadLabels(w.ref), phase }, value: w.phases!.includes(phase) ? 1 : 0 })) : []));
    case "karta_workload_component_replicas":
      return s.workloads.flatMap((w) =>
        w.components.filter((c) => c.replicas !== undefined).map((c) => ({ labels: { ...workloadLabels(w.ref), component: c.component, component_instance: c.instance }, value: c.replicas! })),
      );
    case "karta_workload_component_pods": {
      // Declared instances and those pods are observed in, each with every pod phase.
      const rows = new Map<string, { ref: WorkloadRef; component: string; instance: string; counts: Map<string, number> }>();
      const row = (uid: string, ref: WorkloadRef, component: string, instance: string) => {
        const key = JSON.stringify([uid, component, instance]);
        let r = rows.get(key);
        if (!r) rows.set(key, (r = { ref, component, instance, counts: new Map() }));
        return r;
      };
      for (const w of s.workloads) for (const c of w.components) row(w.uid, w.ref, c.component, c.instance);
      for (const p of s.pods) {
        const r = row(p.workloadUid, p.workload, p.component, p.instance);
        r.counts.set(p.phase, (r.counts.get(p.phase) ?? 0) + 1);
      }
      return [...rows.values()].flatMap((r) =>
        POD_PHASES.map((phase) => ({ labels: { ...workloadLabels(r.ref), component: r.component, component_instance: r.instance, phase }, value: r.counts.get(phase) ?? 0 })),
      );
    }
    case "karta_exporter_kartas":
      return [
        { labels: { valid: "true", reason: "" }, value: s.kartas.valid },
        { labels: { valid: "false", reason: "invalid" }, value: s.kartas.invalid },
        { labels: { valid: "false", reason: "shadowed" }, value: s.kartas.shadowed },
      ];
    case "karta_exporter_workloads":
      return [{ labels: {}, value: s.workloads.length }];
    case "karta_exporter_unattributed_pods": {
      const count = (reason: string) => s.pods.filter((p) => p.reason === reason).length;
      return [
        { labels: { reason: "no_owner" }, value: s.parked },
        { labels: { reason: "unknown_instance" }, value: count("unknown_instance") },
        { labels: { reason: "jq_error" }, value: count("jq_error") },
      ];
    }
    case "karta_exporter_last_event_timestamp_seconds":
      return [{ labels: {}, value: lastEventAt / 1000 }];
    default:
      return [];
  }
}
