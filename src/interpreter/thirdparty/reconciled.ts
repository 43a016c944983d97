/**
 * Karta's own interpreter for kinds that are not workloads: objects a controller reconciles and
 * reports on with conditions (Flux sources, Kustomizations and HelmReleases; Kyverno policies). They
 * have no pods, no components and no scale, so a Karta (a workload model: components, pod
 * specifications, gang scheduling) has nothing to say about them, and a Karta for them would make
 * KAI's pod grouper and `compile` treat them as workloads. What Karmada needs of them is the same
 * for every kind, so one table says it per kind and one interpreter runs it:
 *
 * - health: the `Ready` condition True with one of the kind's success reasons (Kyverno: `status.ready`
 *   first);
 * - status reflection: the listed status fields, plus the member generation report (generation and
 *   Karmada's resource template generation annotation) where the kind aggregates observedGeneration;
 * - aggregation: conditions merged across members (one per type/status/reason, messages prefixed with
 *   the cluster name and joined), the latest non-empty value of "latest" fields, sums of counters,
 *   and observedGeneration set to the template's generation once every member has seen it;
 * - retention: `spec.suspend` stays as the member has it (Flux suspends reconciliation in place);
 * - dependencies: the Secrets, ConfigMaps and ServiceAccount the spec names.
 */
import { sortDependencies } from "../dependencies.js";
import {
  fail,
  kindOf,
  ok,
  type AggregatedStatusItem,
  type Component,
  type DependentObjectReference,
  type Interpreter,
  type JsonValue,
  type KubeObject,
  type Operation,
  type Outcome,
  type ReplicaResult,
  type ResourceKind,
} from "../types.js";
import { dropEmpty, templateGeneration } from "../karta/karmada.js";

type Json = Record<string, unknown>;

/** Where a kind names the objects it depends on. */
interface DependencyPaths {
  /** Dotted paths to `{name}` references of Secrets. */
  secretRefs?: string[];
  /** Dotted path to a ServiceAccount name. */
  serviceAccountName?: string;
  /** `spec.valuesFrom` entries of kind Secret or ConfigMap (HelmRelease). */
  valuesFrom?: boolean;
}

/** What the interpreter needs to know about one reconciled kind. */
export interface ReconciledKind {
  apiVersion: string;
  kind: string;
  /** Reasons of a True `Ready` condition that mean healthy. */
  readyReasons: string[];
  /** Kyverno: a boolean `status.ready` decides before the conditions. */
  readyField?: boolean;
  /** Status fields a member reports. */
  reflected: string[];
  /** Whether the member generation report is added, and observedGeneration aggregated from it. */
  generation: boolean;
  /** Fields whose aggregated value is the last member's non-empty one, with the value when no member reports it. */
  latest: Record<string, JsonValue>;
  /** Whether "latest" fields start from the template's own status (else from their empty value). */
  latestFromTemplate?: boolean;
  /** Counters summed over members (on top of the template's value when it has one). */
  summed?: string[];
  /** Kyverno's rulecount: counters summed from zero. */
  ruleCounts?: string[];
  /** Kyverno: the aggregated status is rebuilt from the members' reports alone. */
  rebuild?: boolean;
  /** Whether `spec.suspend` is retained from the member. */
  retainSuspend: boolean;
  dependencies?: DependencyPaths;
}

const FLUX_SOURCE = ["Succeeded"];

/** The kinds, by apiVersion and kind. */
export const RECONCILED_KINDS: readonly ReconciledKind[] = [
  {
    apiVersion: "source.toolkit.fluxcd.io/v1",
    kind: "GitRepository",
    readyReasons: FLUX_SOURCE,
    reflected: ["conditions", "artifact", "observedGeneration", "observedIgnore", "observedRecurseSubmodules"],
    generation: true,
    latest: { artifact: {} },
    retainSuspend: true,
    dependencies: { secretRefs: ["spec.secretRef", "spec.verify.secretRef"] },
  },
  {
    apiVersion: "source.toolkit.fluxcd.io/v1beta2",
    kind: "Bucket",
    readyReasons: FLUX_SOURCE,
    reflected: ["conditions", "artifact", "observedIgnore", "observedGeneration", "url"],
    generation: true,
    latest: { artifact: {}, url: "" },
    retainSuspend: true,
    dependencies: { secretRefs: ["spec.secretRef"] },
  },
  {
    apiVersion: "source.toolkit.fluxcd.io/v1beta2",
    kind: "HelmChart",
    readyReasons: ["Succeeded", "ChartPullSucceeded"],
    reflected: ["artifact", "conditions", "observedChartName", "observedSourceArtifactRevision", "url"],
    generation: true,
    latest: { artifact: {}, observedChartName: "", observedSourceArtifactRevision: "", url: "" },
    retainSuspend: true,
    dependencies: { secretRefs: ["spec.verify.secretRef"] },
  },
  {
    apiVersion: "source.toolkit.fluxcd.io/v1beta2",
    kind: "HelmRepository",
    readyReasons: FLUX_SOURCE,
    reflected: ["artifact", "conditions", "observedGeneration", "url"],
    generation: true,
    latest: { artifact: {}, url: "" },
    retainSuspend: true,
    dependencies: { secretRefs: ["spec.secretRef"] },
  },
  {
    apiVersion: "source.toolkit.fluxcd.io/v1beta2",
    kind: "OCIRepository",
    readyReasons: FLUX_SOURCE,
    reflected: ["artifact", "conditions", "url", "observedGeneration", "observedIgnore", "observedLayerSelector"],
    generation: true,
    latest: { artifact: {}, url: "" },
    retainSuspend: true,
    dependencies: { secretRefs: ["spec.secretRef", "spec.verify.secretRef", "spec.certSecretRef"], serviceAccountName: "spec.serviceAccountName" },
  },
  {
    apiVersion: "kustomize.toolkit.fluxcd.io/v1",
    kind: "Kustomization",
    readyReasons: ["ReconciliationSucceeded"],
    reflected: ["conditions", "lastAppliedRevision", "lastAttemptedRevision", "observedGeneration"],
    generation: true,
    latest: { lastAttemptedRevision: "", lastAppliedRevision: "" },
    latestFromTemplate: true,
    retainSuspend: true,
    dependencies: { secretRefs: ["spec.decryption.secretRef", "spec.kubeConfig.secretRef"], serviceAccountName: "spec.serviceAccountName" },
  },
  {
    apiVersion: "helm.toolkit.fluxcd.io/v2beta1",
    kind: "HelmRelease",
    readyReasons: ["ReconciliationSucceeded"],
    reflected: [
      "conditions",
      "observedGeneration",
      "lastAttemptedRevision",
      "lastAppliedRevision",
      "lastAttemptedValuesChecksum",
      "helmChart",
      "lastReleaseRevision",
      "failures",
      "upgradeFailures",
      "installFailures",
    ],
    generation: true,
    latest: { lastAttemptedRevision: "", lastAppliedRevision: "", lastAttemptedValuesChecksum: "", helmChart: "", lastReleaseRevision: "" },
    latestFromTemplate: true,
    summed: ["failures", "upgradeFailures", "installFailures"],
    retainSuspend: true,
    dependencies: { secretRefs: ["spec.chart.spec.verify.secretRef", "spec.kubeConfig.secretRef"], serviceAccountName: "spec.serviceAccountName", valuesFrom: true },
  },
  ...["Policy", "ClusterPolicy"].map(
    (kind): ReconciledKind => ({
      apiVersion: "kyverno.io/v1",
      kind,
      readyReasons: FLUX_SOURCE,
      readyField: true,
      reflected: ["autogen", "conditions", "ready", "rulecount"],
      generation: false,
      latest: { autogen: null, ready: null },
      ruleCounts: ["validate", "generate", "mutate", "verifyimages"],
      rebuild: true,
      retainSuspend: false,
    }),
  ),
];

const OPERATIONS_OF = (k: ReconciledKind): Operation[] => {
  const ops: Operation[] = ["InterpretHealth", "InterpretStatus", "AggregateStatus"];
  if (k.retainSuspend) ops.push("Retain");
  if (k.dependencies) ops.push("InterpretDependency");
  return ops;
};

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function dotted(obj: unknown, path: string): unknown {
  let cur = obj;
  for (const k of path.split(".")) {
    if (!isObject(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

function empty(v: unknown): boolean {
  return v === undefined || v === null || v === "";
}

/**
 * Conditions of every member merged: one condition per (type, status, reason), the first member's
 * fields, its message the members' messages as `cluster=message`, joined with ", ".
 */
export function mergeMemberConditions(items: readonly AggregatedStatusItem[]): Json[] {
  const merged: Json[] = [];
  for (const item of items) {
    const conditions = isObject(item.status) && Array.isArray(item.status.conditions) ? item.status.conditions : [];
    for (const c of conditions) {
      if (!isObject(c)) continue;
      const message = `${item.clusterName}=${typeof c.message === "string" ? c.message : ""}`;
      const same = merged.find((m) => m.type === c.type && m.status === c.status && m.reason === c.reason);
      if (same) same.message = `${String(same.message)}, ${message}`;
      else merged.push({ ...clone(c), message });
    }
  }
  return merged;
}

/** Whether every member has seen the template's current generation (Karmada's generation report). */
export function membersSeeGeneration(items: readonly AggregatedStatusItem[], generation: number): boolean {
  const n = (v: unknown): number => (typeof v === "number" ? v : 0);
  return items.every((item) => {
    const s = isObject(item.status) ? item.status : {};
    return n(s.resourceTemplateGeneration) === generation && n(s.generation) === n(s.observedGeneration);
  });
}

/** The interpreter of the reconciled kinds. */
export class ReconciledInterpreter implements Interpreter {
  private readonly byKind = new Map<string, ReconciledKind>();

  constructor(kinds: readonly ReconciledKind[] = RECONCILED_KINDS) {
    for (const k of kinds) this.byKind.set(`${k.apiVersion}\u0000${k.kind}`, k);
  }

  /** The kinds interpreted, with the operations each answers. */
  get kinds(): { kind: ResourceKind; operations: Operation[] }[] {
    return [...this.byKind.values()].map((k) => ({ kind: { apiVersion: k.apiVersion, kind: k.kind }, operations: OPERATIONS_OF(k) }));
  }

  private spec(obj: KubeObject): ReconciledKind | undefined {
    const k = kindOf(obj);
    return this.byKind.get(`${k.apiVersion}\u0000${k.kind}`);
  }

  supports(kind: ResourceKind, op: Operation): boolean {
    const k = this.byKind.get(`${kind.apiVersion}\u0000${kind.kind}`);
    return k !== undefined && OPERATIONS_OF(k).includes(op);
  }

  private unsupported<T>(obj: KubeObject, op: Operation): Outcome<T> {
    const k = kindOf(obj);
    return fail(op, `the thirdparty layer does not interpret ${op} for ${k.kind} ${k.apiVersion}`, undefined, "thirdparty");
  }

  interpretReplica(object: KubeObject): Outcome<ReplicaResult> {
    return this.unsupported(object, "InterpretReplica");
  }

  interpretComponent(object: KubeObject): Outcome<Component[]> {
    return this.unsupported(object, "InterpretComponent");
  }

  reviseReplica(object: KubeObject, _replicas: number): Outcome<KubeObject> {
    void _replicas;
    return this.unsupported(object, "ReviseReplica");
  }

  reviseComponents(object: KubeObject): Outcome<KubeObject> {
    return this.unsupported(object, "ReviseComponents");
  }

  interpretHealth(object: KubeObject): Outcome<boolean> {
    const k = this.spec(object);
    if (!k) return this.unsupported(object, "InterpretHealth");
    const status = isObject(object.status) ? object.status : {};
    if (k.readyField && typeof status.ready === "boolean") return ok(status.ready);
    const conditions = Array.isArray(status.conditions) ? status.conditions : [];
    return ok(conditions.some((c) => isObject(c) && c.type === "Ready" && c.status === "True" && typeof c.reason === "string" && k.readyReasons.includes(c.reason)));
  }

  interpretStatus(object: KubeObject): Outcome<JsonValue | undefined> {
    const k = this.spec(object);
    if (!k) return this.unsupported(object, "InterpretStatus");
    const out: Json = {};
    if (!isObject(object.status)) return ok(out as JsonValue);
    for (const f of k.reflected) {
      const v = object.status[f];
      if (v !== undefined && v !== null) out[f] = clone(v);
    }
    if (k.generation && isObject(object.metadata)) {
      const meta = object.metadata;
      if (typeof meta.generation === "number") out.generation = meta.generation;
      const g = templateGeneration(meta);
      if (g !== undefined) out.resourceTemplateGeneration = g;
    }
    return ok(dropEmpty(out) as JsonValue);
  }

  aggregateStatus(object: KubeObject, items: AggregatedStatusItem[] | undefined): Outcome<KubeObject> {
    const k = this.spec(object);
    if (!k) return this.unsupported(object, "AggregateStatus");
    const list = items ?? [];
    const result = clone(object);
    if (k.rebuild) return ok(this.rebuild(k, result, list));
    if (!isObject(result.metadata)) result.metadata = {};
    const meta = result.metadata as Json;
    // The template's generation counts from 0, and the aggregated object says so.
    if (typeof meta.generation !== "number") meta.generation = 0;
    const generation = meta.generation as number;
    const status: Json = isObject(result.status) ? (result.status as Json) : {};
    if (list.length === 0) {
      for (const [f, v] of Object.entries(k.latest)) status[f] = clone(v);
      for (const f of k.summed ?? []) status[f] = 0;
      status.conditions = [];
      status.observedGeneration = generation;
      result.status = dropEmpty(status) as JsonValue;
      return ok(result);
    }
    for (const [f, initial] of Object.entries(k.latest)) {
      let value: unknown = k.latestFromTemplate ? status[f] : clone(initial);
      for (const item of list) {
        const v = isObject(item.status) ? item.status[f] : undefined;
        if (!empty(v)) value = clone(v);
      }
      if (value === undefined) delete status[f];
      else status[f] = value;
    }
    for (const f of k.summed ?? []) {
      // Counters add up on top of the template's value, and only when the template has one.
      if (typeof status[f] !== "number") continue;
      let total = status[f] as number;
      for (const item of list) {
        const v = isObject(item.status) ? item.status[f] : undefined;
        if (typeof v === "number") total += v;
      }
      status[f] = total;
    }
    status.conditions = mergeMemberConditions(list);
    if (k.generation) {
      if (membersSeeGeneration(list, generation)) status.observedGeneration = generation;
      else if (status.observedGeneration === undefined) status.observedGeneration = 0;
    }
    result.status = dropEmpty(status) as JsonValue;
    return ok(result);
  }

  /** Kyverno: the status made of the members' reports alone. */
  private rebuild(k: ReconciledKind, result: KubeObject, items: readonly AggregatedStatusItem[]): KubeObject {
    if (items.length === 0) return result;
    const status: Json = {};
    for (const f of Object.keys(k.latest)) {
      for (const item of items) {
        const v = isObject(item.status) ? item.status[f] : undefined;
        if (v !== undefined && v !== null) status[f] = clone(v);
      }
    }
    const counts: Json = {};
    for (const c of k.ruleCounts ?? []) {
      let total = 0;
      for (const item of items) {
        const v = isObject(item.status) ? dotted(item.status, `rulecount.${c}`) : undefined;
        if (typeof v === "number") total += v;
      }
      counts[c] = total;
    }
    status.rulecount = counts;
    status.conditions = mergeMemberConditions(items);
    result.status = dropEmpty(status) as JsonValue;
    return result;
  }

  retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
    const k = this.spec(desired);
    if (!k || !k.retainSuspend) return this.unsupported(desired, "Retain");
    const result = clone(desired);
    const suspend = dotted(observed, "spec.suspend");
    if (suspend !== undefined && suspend !== null) {
      if (!isObject(result.spec)) result.spec = {};
      (result.spec as Json).suspend = clone(suspend) as JsonValue;
    }
    return ok(result);
  }

  interpretDependency(object: KubeObject): Outcome<DependentObjectReference[]> {
    const k = this.spec(object);
    if (!k || !k.dependencies) return this.unsupported(object, "InterpretDependency");
    const d = k.dependencies;
    const meta = isObject(object.metadata) ? object.metadata : {};
    const namespace = typeof meta.namespace === "string" ? meta.namespace : undefined;
    const refs = new Map<string, DependentObjectReference>();
    const add = (kind: string, name: unknown): void => {
      if (typeof name !== "string" || name === "") return;
      const ref: DependentObjectReference = { apiVersion: "v1", kind, name };
      if (namespace !== undefined) ref.namespace = namespace;
      refs.set(`${kind}/${name}`, ref);
    };
    for (const p of d.secretRefs ?? []) add("Secret", dotted(object, `${p}.name`));
    if (d.valuesFrom) {
      const from = dotted(object, "spec.valuesFrom");
      for (const v of Array.isArray(from) ? from : []) {
        if (isObject(v) && (v.kind === "Secret" || v.kind === "ConfigMap")) add(v.kind, v.name);
      }
    }
    if (d.serviceAccountName) add("ServiceAccount", dotted(object, d.serviceAccountName));
    return ok(sortDependencies([...refs.values()]));
  }
}
