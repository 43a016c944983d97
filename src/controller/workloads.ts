/**
 * The workload reconciler: for every Ready Karta, informers on its root kind and on the kinds between its
 * root and its pods (started and stopped as Kartas come and go; one informer per kind, shared by every
 * Karta that needs it), and one on pods. A pod belongs to the outermost owner on its chain whose kind has
 * a Ready Karta (src/controller/owners.ts): a JobSet's pods are the JobSet's even with a Job Karta, and an
 * object governed by such an owner gets no groups of its own. For each governing root object, the Workload
 * API objects `karta compile` makes for it, applied with server-side apply (field manager `karta`) and
 * owned by the root object. The caches run on every replica (the admission webhook answers from them);
 * only the leader writes. Jobs the Job controller gangs itself are left to it (src/controller/job-controller.ts).
 * Groups that no longer exist are deleted; an object whose immutable fields changed is recreated (as the
 * Job integration replaces its Workload); an interpretation error becomes an Event on the root object.
 * Pods of a root that do not name their group (created while the admission webhook was unreachable, under
 * failurePolicy Ignore, or before it was installed) are reported: a Warning Event on the root, a log
 * line and the karta_pods_without_group gauge.
 *
 * At scale (see bench/controller.ts and docs/scaling.md) a reconcile reads only caches: pods and groups
 * come from informers indexed by owner uid; the pod cache keeps only the fields Kartas read
 * (src/controller/pod-cache.ts); the pod events of a burst are coalesced into one reconcile of their root
 * (`coalesceMs`); and an object is applied only when what compiles differs from what this process last
 * applied or, after a restart, from what the cluster holds (src/controller/applied-fields.ts). With
 * `--total-shards`, a shard reconciles, and caches the pods and groups of, only the workloads whose uid
 * hashes to it (src/controller/shard.ts); roots and the kinds between roots and pods are cached whole, so
 * every replica's webhook answers for every pod.
 */
import type { KubernetesObject } from "./kubernetes-object.js";
import { compileInterpreter, type CompiledInterpreter } from "../interpret/index.js";
import { compileKarta, compiledObjects, type WorkloadCompilation } from "../scheduling/karta.js";
import { withoutManagedFields, type KartaReconciler, type ReadyKarta } from "./kartas.js";
import { apiError, discover, isTransient, resourcePath, type KubeClient } from "./client.js";
import { Informer } from "./informer.js";
import { applyIsNoop, keepManagerFields, writtenBy } from "./applied-fields.js";
import { chainKinds, controllerRef, groupKindKey, resolveOwnerChain, type ChainLookup, type ChainResult, type DeclaredKind, type GroupKind } from "./owners.js";
import { jobGangOwner } from "./job-controller.js";
import { findPodRoot, type PodRoot } from "./admission.js";
import type { Logger } from "./log.js";
import { coreEvent, EventSink, EVENTS_AT_SHUTDOWN_MS } from "./events.js";
import { Interner } from "./intern.js";
import { OwnerIndex } from "./owner-index.js";
import { changedOnly, compileReadsStatus } from "./relevant-changes.js";
import { coversFields, podDecoder, podFieldsOf, PROTOBUF_POD_FIELDS, trimPod, type PodFields } from "./pod-cache.js";
import { WorkQueue } from "./queue.js";
import { owns, WHOLE, type Shard } from "./shard.js";
import type { Karta } from "../definition/index.js";

export const FIELD_MANAGER = "karta";

/**
 * How gangs with subgroups are made (`--group-shape`): a CompositePodGroup tree, one flat PodGroup (for a
 * scheduler without the CompositePodGroup gate), or `auto`: composite where the API server serves
 * CompositePodGroup, flat where it does not.
 */
export type GroupShape = "auto" | "composite" | "flat";

type Obj = KubernetesObject & Record<string, unknown>;

interface Watched {
  ready: ReadyKarta;
  interpreter: CompiledInterpreter;
  /** Its root kind's informer (a key of {@link WorkloadReconciler.kinds}). */
  root: string;
  /** Every kind it watches: the root and those between its root and its pods (keys of `kinds`). */
  keys: string[];
  /** Whether its compile may read a root's `.status` (else an update of the status alone queues nothing). */
  readsStatus: boolean;
}

/** An informer on a kind some Ready Kartas watch (as their root, or between their root and pods), shared by them. */
interface KindWatch {
  group: string;
  kind: string;
  informer: Informer<Obj>;
  index: OwnerIndex<Obj>;
  users: Set<string>;
  /** Resolves once its first list is in (or it failed, or the wait ran out). */
  started: Promise<void>;
}

/** `group/version/Kind`: one informer per served version of a kind. */
const kindKey = (k: { group: string; version: string; kind: string }): string => `${k.group}/${k.version}/${k.kind}`;

const GROUP_KINDS = [
  { apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup", resource: "podgroups" },
  { apiVersion: "scheduling.k8s.io/v1alpha3", kind: "CompositePodGroup", resource: "compositepodgroups" },
  { apiVersion: "scheduling.k8s.io/v1beta1", kind: "Workload", resource: "workloads" },
] as const;

/** The informer, cache and owner index of one group kind. */
interface GroupWatch {
  apiVersion: string;
  kind: string;
  resource: string;
  informer: Informer<Obj>;
  index: OwnerIndex<Obj>;
}

/** An apply this process made (or has in flight). */
interface Applied {
  json: string;
  resourceVersion: string | undefined;
  stale?: boolean;
}

/** Whether Karta `a` (named `an`) is older than `b`: creationTimestamp, then name. */
function olderKarta(a: Watched, an: string, b: Watched, bn: string): boolean {
  const at = String(a.ready.karta.metadata?.creationTimestamp ?? "");
  const bt = String(b.ready.karta.metadata?.creationTimestamp ?? "");
  return at !== bt ? Date.parse(at) < Date.parse(bt) : an < bn;
}

const groupKey = (kind: string | undefined, namespace: string | undefined, name: string | undefined): string => `${kind}/${namespace ?? ""}/${name ?? ""}`;

function ownedBy(o: KubernetesObject, uid: string): boolean {
  return (o.metadata?.ownerReferences ?? []).some((r) => r.uid === uid && r.controller === true);
}

/** The Event reason of pods that do not name their group. */
export const UNGROUPED_REASON = "PodsWithoutGroup";

/**
 * The pod watch is read at most every 100 ms while pods keep changing: reading a burst of pod events in
 * batches takes about a quarter off what the watch costs the controller (docs/benchmarks.md), and a pod
 * event then reaches its workload's reconcile (its groups, when they depend on its pods; the pods
 * reported and counted) up to 100 ms later, against the seconds a pod takes to start. The workloads' and
 * groups' watches are read as events come.
 */
const POD_WATCH_BATCH_MS = 100;

/** How often a workload's pods without their group are reported again, when more are found. */
const UNGROUPED_REPORT_EVERY_MS = 10 * 60_000;

/** How long a chain kind's first list may hold up the Karta's watch (it goes on syncing after). */
const CHAIN_SYNC_WAIT_MS = 30_000;

export interface WorkloadOptions {
  /** Whether this replica writes (holds the Lease); caches run either way (default true). */
  leading?: boolean;
  /** This process's shard (default: the whole cluster). */
  shard?: Shard;
  /** Keep whole pods in the cache, not only the fields Kartas read. */
  fullPodCache?: boolean;
  /** Watch pods in protobuf when the fields kept allow it (default true; `--kube-api-content-type`). */
  protobuf?: boolean;
  /** Pod events of one root within this many ms give one reconcile (default 100). */
  coalesceMs?: number;
  /** How gangs with subgroups are made (default auto). */
  groupShape?: GroupShape;
  /** Workloads reconciled at once (default {@link DEFAULT_WORKLOAD_SYNCS}; `--concurrent-workload-syncs`). */
  workers?: number;
  /** A workload's PodsWithoutGroup Event, once reported, says more pods at most this often (default 10 minutes). */
  ungroupedReportEveryMs?: number;
}

/**
 * Workloads reconciled at once. On an API server that is the bottleneck, the controller's writes share it
 * with everyone else's: two, each writing a level of a workload's groups at once, keep up with a burst of
 * 18 new jobs a second on the benchmark's API server; more take more of it from the burst's own creates
 * (docs/decisions.md, docs/benchmarks.md).
 */
export const DEFAULT_WORKLOAD_SYNCS = 2;

/**
 * A workload compiled is requeued by its pods' events at most this often: a burst of new pods, or pods
 * starting and finishing one by one, gives one reconcile a second rather than one per coalescing window.
 * Its own changes, its groups' and those of the objects between it and its pods requeue it at once (a new
 * status only where a compile reads it: src/controller/relevant-changes.ts).
 */
export const POD_RECONCILE_EVERY_MS = 1000;

/** A root's work-queue key: its Karta, namespace and name (what `reconcile` splits it back into). */
const rootKey = (karta: string, namespace: string | undefined, name: string | undefined): string => `${karta}|${namespace ?? ""}|${name ?? ""}`;

/** What the reconciler has done (metrics, the benchmark). */
export interface WorkloadCounters {
  reconciles: number;
  errors: number;
  /** Server-side applies sent, deletes sent, and applies skipped because the cluster already held them. */
  applies: number;
  deletes: number;
  skipped: number;
}

export class WorkloadReconciler {
  private readonly watched = new Map<string, Watched>();
  private readonly kinds = new Map<string, KindWatch>();
  /** Kinds whose informer is being made (discovery in flight): their key. */
  private readonly acquiring = new Map<string, Promise<string | undefined>>();
  /**
   * `group/Kind` → the Karta that governs its objects: of the Ready ones for that kind, the oldest
   * (creationTimestamp, then name), as upstream's exporter chooses; the others are shadowed.
   */
  private readonly governing = new Map<string, string>();
  /** The pod cache, trimmed to {@link podFields}; replaced by a new one when Kartas read more of a pod. */
  private pods: Informer<Obj>;
  private podIndex: OwnerIndex<Obj>;
  /** The pod fields the cache keeps (src/controller/pod-cache.ts). */
  private podFields: PodFields;
  /** When the last watch event arrived (ms since the epoch; 0 before the first), for the exporter. */
  lastEventAt = 0;
  private readonly groups: GroupWatch[] = [];
  /**
   * What this process last applied, by groupKey: the compiled JSON and the resourceVersion the server
   * answered (undefined while the request is in flight). The groups' metadata.generation is not set by
   * the API server, so a write by someone else is told apart by its resourceVersion. An entry whose
   * object was deleted, or written by someone else, while its apply was in flight (`stale`) is not
   * recorded: the root runs again and looks at what the cache holds.
   */
  private readonly applied = new Map<string, Applied>();
  /** When each root (its queue key) was last compiled (see {@link POD_RECONCILE_EVERY_MS}). */
  private readonly compiledAt = new Map<string, number>();
  /** Pods without their group, by root uid: their names, and how many were last reported when. */
  private readonly ungrouped = new Map<string, { names: string[]; reported: number; at: number }>();
  /** Every cache is synced: roots are queued only then (a reconcile must not see a partial pod cache). */
  private cachesSynced = false;
  /** Writes (server-side apply, prune, events) only while leading; caches run either way. */
  private leading: boolean;
  private readonly shard: Shard;
  private readonly fullPodCache: boolean;
  private readonly protobuf: boolean;
  private readonly coalesceMs: number;
  private readonly ungroupedReportEveryMs: number;
  readonly queue: WorkQueue;
  private stopped = false;
  readonly counters: WorkloadCounters = { reconciles: 0, errors: 0, applies: 0, deletes: 0, skipped: 0 };
  /** Strings shared across cached pods (src/controller/intern.ts). */
  private readonly interner = new Interner();
  private readonly events: EventSink;
  /** The --group-shape asked for; `auto` is settled by start() from what the API server serves. */
  private groupShape: GroupShape;

  constructor(
    private readonly client: KubeClient,
    private readonly kartas: KartaReconciler,
    private readonly log: Logger,
    options: WorkloadOptions = {},
  ) {
    this.leading = options.leading ?? true;
    this.shard = options.shard ?? WHOLE;
    this.fullPodCache = options.fullPodCache ?? false;
    this.protobuf = options.protobuf ?? true;
    this.coalesceMs = options.coalesceMs ?? 100;
    this.ungroupedReportEveryMs = options.ungroupedReportEveryMs ?? UNGROUPED_REPORT_EVERY_MS;
    this.groupShape = options.groupShape ?? "auto";
    this.events = new EventSink(client, log);
    this.podFields = podFieldsOf([], this.fullPodCache);
    [this.pods, this.podIndex] = this.podInformer(this.podFields);
    this.queue = new WorkQueue(
      (key) => this.reconcile(key),
      (key, err, attempt) => {
        this.counters.errors++;
        // The API server unreachable, restarting or pacing us is no error of the workload's (retried with backoff).
        log(isTransient(err) ? "info" : "error", "workload reconcile failed", { key, attempt, err: String((err as Error)?.message ?? err) });
      },
      { workers: options.workers ?? DEFAULT_WORKLOAD_SYNCS },
    );
    kartas.onReadyChange((ready) => void this.sync(ready));
  }

  /** Lists and watches the groups, the Ready Kartas' kinds, then pods; resolves once every cache is synced. */
  async start(): Promise<void> {
    // A cluster that does not serve CompositePodGroup gets flat groups (and no informer on that kind).
    const composite = (await discover(this.client, "scheduling.k8s.io", "v1alpha3"))?.some((r) => r.kind === "CompositePodGroup") ?? false;
    if (this.groupShape === "auto") this.groupShape = composite ? "composite" : "flat";
    if (this.groupShape === "composite" && !composite) this.log("error", "--group-shape composite, but the API server does not serve scheduling.k8s.io/v1alpha3 CompositePodGroup: gangs with subgroups cannot be created");
    this.log("info", "gang shape", { groupShape: this.groupShape, compositePodGroupServed: composite });
    this.groups.push(...this.watchGroups(composite));
    // The groups first, so a restarted controller sees the groups it made as existing.
    await Promise.all(this.groups.map((g) => g.informer.start()));
    // The Kartas' roots and chains before the pods, so a shard knows which pods are its own as they are listed.
    this.started = true;
    await this.sync(this.kartas.readyKartas());
    const need = podFieldsOf([...this.watched.values()].map((w) => w.ready.karta as unknown as Karta), this.fullPodCache);
    if (!coversFields(this.podFields, need)) {
      [this.pods, this.podIndex] = this.podInformer(need);
      this.podFields = need;
    }
    await this.pods.start();
    await this.loadReported();
    this.cachesSynced = true;
    this.enqueueAll();
  }

  private started = false;

  /** Why a cache has not synced yet, if a request failed. */
  lastSyncError(): string | undefined {
    const all = [...this.groups.map((g) => g.informer), ...[...this.kinds.values()].map((k) => k.informer), this.pods];
    return all.find((i) => !i.hasSynced() && i.lastError !== undefined)?.lastError;
  }

  /** Ready Kartas whose root kind is Pod, which make no groups (logged once each). */
  private readonly podRootKartas = new Set<string>();

  /**
   * Whether Karta `name` has root kind core/v1 Pod, which makes no groups: a bare pod's group is named
   * after its UID, which it does not have while it is being created, the only time its
   * spec.schedulingGroup can be set. Such a Karta describes pods (inspect, get, Karmada); logged once.
   */
  private podRootKarta(name: string, r: ReadyKarta): boolean {
    if (r.root.group !== "" || r.root.kind !== "Pod") return false;
    if (!this.podRootKartas.has(name)) this.log("info", "not making groups for a Karta whose root kind is Pod: a pod joins a group only when it is created, before it has the UID the group is named after", { karta: name });
    this.podRootKartas.add(name);
    return true;
  }

  /** Records a watch event's arrival (karta_exporter_last_event_timestamp_seconds). */
  private touch(): void {
    this.lastEventAt = Date.now();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.syncing;
    await this.queue.shutDown();
    await this.events.close(EVENTS_AT_SHUTDOWN_MS);
    await Promise.allSettled([this.pods.stop(), ...this.groups.map((g) => g.informer.stop()), ...[...this.kinds.values()].map((k) => k.informer.stop())]);
    this.watched.clear();
    this.kinds.clear();
  }

  /** A pod informer keeping `fields` (and, when sharded, the pods of this shard's workloads), with its owner index. */
  private podInformer(fields: PodFields): [Informer<Obj>, OwnerIndex<Obj>] {
    const keep =
      this.shard.total > 1
        ? (p: Obj): boolean => {
            // A pod whose chain is not resolved yet stays (it may be ours); another shard's does not.
            const r = this.resolve(p);
            return !r.found || owns(this.shard, r.root.uid);
          }
        : undefined;
    // Protobuf when its decoder keeps every field read (the decoded pod has no managedFields).
    const protobuf = this.protobuf && fields !== "all" && coversFields(PROTOBUF_POD_FIELDS, fields) ? { protobuf: podDecoder(fields) } : {};
    const informer = new Informer<Obj>(this.client, {
      path: "/api/v1/pods",
      what: "pods",
      log: this.log,
      transform: (p) => this.interner.object(trimPod(withoutManagedFields(p), fields)),
      batchMs: POD_WATCH_BATCH_MS,
      ...protobuf,
      ...(keep ? { keep } : {}),
    });
    const index = new OwnerIndex(informer);
    for (const verb of ["add", "update", "delete"] as const) {
      informer.on(verb, (p, old) => {
        if (informer !== this.pods) return;
        this.touch();
        if (old && changedOnly(p, old)) return; // nothing a reconcile reads changed
        this.enqueueRootOf(p, this.afterCompile);
      });
    }
    return [informer, index];
  }

  /**
   * A new pod cache (a relist): when Kartas read more of a pod than the cache keeps, or, sharded, when a
   * new Karta may make other roots govern pods another shard's root governed. The old cache serves until
   * the new one has listed, then every root is reconciled against it.
   */
  private async replacePodCache(fields: PodFields, why: string): Promise<void> {
    this.log("info", "listing the pods again", { why, fields: fields === "all" ? "all" : [...fields].sort().join(",") });
    const [informer, index] = this.podInformer(fields);
    await informer.start();
    const old = this.pods;
    this.pods = informer;
    this.podIndex = index;
    this.podFields = fields;
    await old.stop();
    this.enqueueAll();
  }

  /** Starts writing (this replica took the Lease): every cached root object is reconciled. */
  setLeading(leading: boolean): void {
    const was = this.leading;
    this.leading = leading;
    // A replica that does not lead compiles nothing, and roots deleted meanwhile are never reconciled
    // here to drop their entry: the hold-down starts afresh with the next lead (which requeues every root).
    if (!leading) this.compiledAt.clear();
    if (leading && !was) this.enqueueAll();
  }

  /** Queues every cached root object of every watched Karta. */
  private enqueueAll(): void {
    for (const [name, w] of this.watched) this.kinds.get(w.root)?.informer.forEach((o) => this.enqueueRoot(name, o));
  }

  /** Queues a root object of this shard; a replica that does not lead keeps its caches but queues nothing. */
  private enqueueRoot(karta: string, o: KubernetesObject): void {
    this.enqueueKey(rootKey(karta, o.metadata?.namespace, o.metadata?.name), o.metadata?.uid ?? "", 0);
  }

  private enqueueKey(key: string, uid: string, delayMs: number): void {
    if (!this.leading || !this.cachesSynced || !owns(this.shard, uid)) return;
    if (delayMs > 0) this.queue.addAfter(key, delayMs);
    else this.queue.add(key);
  }

  /** The kinds watched between roots and pods (`group/Kind`; not the roots' own kinds). */
  watchedChainKinds(): string[] {
    const roots = new Set([...this.watched.values()].map((w) => w.root));
    return [...new Set([...this.kinds].filter(([key]) => !roots.has(key)).map(([, k]) => groupKindKey(k)))].sort();
  }

  /** The root kinds currently watched, by Karta name. */
  watchedKartas(): string[] {
    return [...this.watched.keys()].sort();
  }

  /** Each watched Karta with its compiled interpreter and its root objects' cache (what the exporter reads). */
  watchedRoots(): { karta: string; ready: ReadyKarta; interpreter: CompiledInterpreter; objects(): readonly Obj[]; governs: boolean }[] {
    return [...this.watched].map(([karta, w]) => ({
      karta,
      ready: w.ready,
      interpreter: w.interpreter,
      // Sharded, each shard exports its own workloads (as kube-state-metrics' shards do).
      objects: () => {
        const all = this.kinds.get(w.root)?.informer.list() ?? [];
        return this.shard.total > 1 ? all.filter((o) => owns(this.shard, o.metadata?.uid ?? "")) : all;
      },
      governs: this.lookup.rootKarta(w.ready.root) === karta,
    }));
  }

  /** The cached pods (trimmed: src/controller/pod-cache.ts), read as the iteration goes. */
  cachedPods(): Iterable<Obj> {
    return this.pods.values();
  }

  /** The pod fields the cache keeps. */
  cachedPodFields(): PodFields {
    return this.podFields;
  }

  /** Pods in the cache (this shard's, and those not resolved yet). */
  cachedPodCount(): number {
    return this.pods.size;
  }

  /** Pods that do not name the group they belong to, over this shard's roots. */
  podsWithoutGroup(): number {
    let n = 0;
    for (const u of this.ungrouped.values()) n += u.names.length;
    return n;
  }

  private syncing: Promise<void> = Promise.resolve();

  /** One sync at a time: a sync awaits informers, and two at once would both start the same Karta's. */
  private sync(ready: ReadonlyMap<string, ReadyKarta>): Promise<void> {
    this.syncing = this.syncing.then(() => this.syncNow(ready)).catch((err: unknown) => this.log("error", "cannot sync the watches", { err: String((err as Error)?.message ?? err) }));
    return this.syncing;
  }

  /** Starts the informers of each Ready Karta and stops those of Kartas that are gone or no longer Ready. */
  private async syncNow(ready: ReadonlyMap<string, ReadyKarta>): Promise<void> {
    // A Karta may become Ready while start() still lists the groups; start() syncs once they are in.
    if (this.stopped || !this.started) return;
    let changed = false;
    for (const [name, w] of this.watched) {
      const now = ready.get(name);
      if (!now || now.karta.metadata?.generation !== w.ready.karta.metadata?.generation) {
        this.watched.delete(name);
        for (const key of this.compiledAt.keys()) if (key.startsWith(`${name}|`)) this.compiledAt.delete(key); // its roots' keys (rootKey)
        await this.release(name, w.keys);
        changed = true;
        this.log("info", "stopped watching", { karta: name, kind: w.ready.root.kind });
      }
    }
    let added = false;
    const starting = [...ready].filter(([name]) => !this.watched.has(name) && !this.podRootKarta(name, ready.get(name)!));
    // Every new Karta at once (a cluster with every bundled Karta Ready starts a hundred informers, each
    // waiting for its first list); within one, the kinds between root and pods first, so the root's first
    // reconcile sees its whole chain.
    await Promise.all(
      starting.map(async ([name, r]) => {
        const { group, version, kind } = r.root;
        const keys = (await Promise.all(chainKinds(r.karta as unknown as Karta).map((k) => this.acquire(name, k)))).filter((k): k is string => k !== undefined);
        const root = (await this.acquire(name, { group, version, kind }, r.resource.name))!;
        keys.push(root);
        const karta = r.karta as unknown as Karta;
        this.watched.set(name, { ready: r, interpreter: compileInterpreter(karta), root, keys, readsStatus: compileReadsStatus(karta) });
        this.log("info", "watching", { karta: name, kind, apiVersion: group ? `${group}/${version}` : version });
      }),
    );
    if (starting.length > 0) added = changed = true;
    // Two Ready Kartas for one kind (at two versions, say): the oldest governs its objects.
    this.governing.clear();
    const chosen = new Map<string, [string, Watched]>();
    for (const [name, w] of this.watched) {
      const key = groupKindKey(w.ready.root);
      const had = chosen.get(key);
      if (!had || olderKarta(w, name, had[1], had[0])) chosen.set(key, [name, w]);
    }
    for (const [key, [name]] of chosen) this.governing.set(key, name);
    if (!this.cachesSynced) return; // start() lists the pods next
    const need = podFieldsOf([...ready.values()].map((r) => r.karta as unknown as Karta), this.fullPodCache);
    if (!coversFields(this.podFields, need)) await this.replacePodCache(need, "a Karta reads more of a pod");
    else if (added && this.shard.total > 1) await this.replacePodCache(this.podFields, "a new Karta may change which shard a pod belongs to");
    // Which owner governs a pod depends on every Ready Karta: a new outer one takes over the inner ones' pods.
    else if (changed) this.enqueueAll();
  }

  /**
   * Starts an informer and waits for its first list, at most {@link CHAIN_SYNC_WAIT_MS}, and no longer than
   * its first failure: one the server refuses (a kind the RBAC does not grant, which the informer logs)
   * keeps retrying without holding up the other Kartas, as one still listing after the wait does.
   */
  private async startBounded(informer: Informer<Obj>, karta: string, kind: string): Promise<void> {
    const deadline = Date.now() + CHAIN_SYNC_WAIT_MS;
    const started = informer.start().then(
      () => "synced" as const,
      () => "failed" as const,
    );
    let outcome: "synced" | "failed" | "waiting" = "waiting";
    void started.then((o) => (outcome = o));
    while (outcome === "waiting" && informer.lastError === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (outcome === "waiting" && informer.lastError === undefined) this.log("error", "not synced yet; going on without it", { karta, kind, waitedMs: CHAIN_SYNC_WAIT_MS });
  }

  /**
   * Starts (or shares) the informer on a kind `karta` watches (`resource`: its plural, when known); its
   * key, or undefined when the cluster does not serve it. Its objects are queued as roots of the Kartas
   * whose root kind it is, and requeue the roots above them.
   */
  private async acquire(karta: string, k: DeclaredKind, resource?: string): Promise<string | undefined> {
    const key = kindKey(k);
    // Another Karta is starting it: the same informer, once it has started.
    const pending = this.acquiring.get(key);
    if (pending) await pending;
    const had = this.kinds.get(key);
    if (had) {
      had.users.add(karta);
      await had.started;
      // Its objects may be cached already (as another Karta's chain kind): they may now be this one's roots.
      if (resource !== undefined) had.informer.forEach((o) => this.enqueueRoot(karta, o));
      return key;
    }
    if (pending) return undefined; // the cluster does not serve it
    const starting = this.startKind(karta, k, key, resource);
    this.acquiring.set(key, starting);
    try {
      return await starting;
    } finally {
      this.acquiring.delete(key);
    }
  }

  /** A new informer on a kind (see {@link acquire}). */
  private async startKind(karta: string, k: DeclaredKind, key: string, resource?: string): Promise<string | undefined> {
    const plural = resource ?? (await this.kartas.availability({ group: k.group, version: k.version, kind: k.kind }).catch(() => undefined))?.resource?.name;
    if (!plural) {
      this.log("info", "not watching a kind the cluster does not serve", { karta, kind: groupKindKey(k), version: k.version });
      return undefined;
    }
    const apiVersion = k.group ? `${k.group}/${k.version}` : k.version;
    const informer = new Informer<Obj>(this.client, { path: resourcePath(apiVersion, plural), what: `${plural}${k.group ? `.${k.group}` : ""}`, log: this.log, transform: withoutManagedFields });
    const w: KindWatch = { group: k.group, kind: k.kind, informer, index: new OwnerIndex(informer), users: new Set([karta]), started: Promise.resolve() };
    for (const verb of ["add", "update"] as const) {
      informer.on(verb, (o, old) => {
        this.touch();
        // As a root: its own reconcile (not for a new status its compile does not read); as an object
        // between a root and its pods: that root's, but not for a new status (a Job's or a StatefulSet's,
        // written as its pods change), as a compile reads only such objects' metadata, to follow owner
        // chains (src/interpret/pods.ts); the pods' own events requeue the root.
        const statusOnly = old !== undefined && changedOnly(o, old, true);
        for (const [name, x] of this.watched) if (x.root === key && !(statusOnly && !x.readsStatus)) this.enqueueRoot(name, o);
        if (!statusOnly) this.enqueueRootOf(o, this.coalesced);
        if (this.shard.total > 1) this.recheckPodsBelow(o);
      });
    }
    informer.on("delete", (o) => {
      this.touch();
      this.ungrouped.delete(o.metadata?.uid ?? "");
      this.enqueueRootOf(o, this.coalesced);
    });
    this.kinds.set(key, w);
    w.started = this.startBounded(informer, karta, groupKindKey(k));
    await w.started;
    return key;
  }

  /**
   * Sharded: the cached pods below `o` (its own, and those of the objects it owns, as far as the caches
   * go) filtered again. A pod whose owner chain did not resolve when it arrived was kept, as it may be
   * this shard's; once its chain resolves to another shard's root, it goes.
   */
  private recheckPodsBelow(o: Obj): void {
    const seen = new Set<string>();
    const next = [o.metadata?.uid ?? ""];
    for (let uid = next.pop(); uid !== undefined; uid = next.pop()) {
      if (uid === "" || seen.has(uid)) continue;
      seen.add(uid);
      for (const p of this.podIndex.ownedBy(uid)) this.pods.recheck(p);
      for (const k of this.kinds.values()) for (const child of k.index.ownedBy(uid)) next.push(child.metadata?.uid ?? "");
    }
  }

  /** Stops the informers no Karta uses any more. */
  private async release(karta: string, keys: string[]): Promise<void> {
    for (const key of keys) {
      const w = this.kinds.get(key);
      if (!w) continue;
      w.users.delete(karta);
      if (w.users.size > 0) continue;
      this.kinds.delete(key);
      await w.informer.stop();
    }
  }

  /** The caches as the owner-chain resolver reads them. */
  private readonly lookup: ChainLookup = {
    rootKarta: (gk: GroupKind) => this.governing.get(groupKindKey(gk)),
    object: (gk: GroupKind, namespace: string, name: string) => {
      if (gk.group === "" && gk.kind === "Pod") return this.pods.get(name, namespace);
      let watched = false;
      for (const w of this.kinds.values()) {
        if (w.group !== gk.group || w.kind !== gk.kind) continue;
        watched = true;
        const o = w.informer.get(name, namespace);
        if (o) return o;
      }
      return watched ? undefined : null;
    },
  };

  /** Where `o`'s owner chain leads, in the caches. */
  resolve(o: KubernetesObject, namespace = o.metadata?.namespace ?? ""): ChainResult {
    return resolveOwnerChain(o, namespace, this.lookup);
  }

  /** Queues the root `o`'s owner chain reaches, `delayMs(its key)` later (0: at once). */
  private enqueueRootOf(o: Obj, delayMs: (key: string) => number = () => 0): void {
    const r = this.resolve(o);
    if (!r.found) return;
    const key = rootKey(r.karta, o.metadata?.namespace, r.root.name);
    this.enqueueKey(key, r.root.uid, delayMs(key));
  }

  /** The delay of a root requeued by a change below it: coalesced with the changes that follow. */
  private readonly coalesced = (): number => this.coalesceMs;

  /** The delay of a root requeued by its pods: coalesced, and not before {@link POD_RECONCILE_EVERY_MS} after its last compile. */
  private readonly afterCompile = (key: string): number => Math.max(this.coalesceMs, POD_RECONCILE_EVERY_MS - (Date.now() - (this.compiledAt.get(key) ?? -Infinity)));

  /**
   * The root object and chain of a pod being created, from the caches only (the admission webhook's
   * question). `pending`: an owner or the root is not in the cache yet, so asking again soon may answer.
   */
  podRoot(pod: KubernetesObject, namespace: string): PodRoot {
    const found = findPodRoot(pod, namespace, this.lookup, (karta, name) => {
      const w = this.watched.get(karta);
      const root = w ? this.kinds.get(w.root)?.informer.get(name, namespace) : undefined;
      return w && root ? { interpreter: w.interpreter, root: this.asRoot(w, root) } : undefined;
    });
    return found.found ? { ...found, groupShape: this.compileShape() } : found;
  }

  /** The shape compiles use (`auto` settled at start). */
  private compileShape(): "composite" | "flat" {
    return this.groupShape === "flat" ? "flat" : "composite";
  }

  /** A cached root object with its kind and apiVersion (list items come without them). */
  private asRoot(w: Watched, o: Obj): Obj {
    const { group, version, kind } = w.ready.root;
    return o.kind === kind && o.apiVersion !== undefined ? o : { ...o, apiVersion: group ? `${group}/${version}` : version, kind };
  }

  /**
   * The pods whose owner chains reach a root object, and the objects between them: walked down the owner
   * indexes (pods, and each chain kind's informer) from the root's uid, so a reconcile costs what the root
   * owns, not what its namespace holds. Each pod found below the root is confirmed by resolving its chain
   * upward, as the webhook does.
   */
  private podsOf(root: Obj): { pods: Obj[]; owners: KubernetesObject[] } {
    const uid = root.metadata?.uid ?? "";
    const ns = root.metadata?.namespace ?? "";
    const pods: Obj[] = [];
    const owners = new Map<string, KubernetesObject>();
    const seen = new Set<string>([uid]);
    const below = [uid];
    for (let next = below.pop(); next !== undefined; next = below.pop()) {
      const owner = next;
      const controlled = <T extends KubernetesObject>(o: T): boolean => controllerRef(o)?.uid === owner && !seen.has(o.metadata?.uid ?? "");
      for (const p of this.podIndex.ownedBy(owner).filter(controlled)) {
        seen.add(p.metadata?.uid ?? "");
        below.push(p.metadata?.uid ?? ""); // a LeaderWorkerSet's leader pod owns its workers' StatefulSet
        if (owner === uid) {
          pods.push(p);
          continue;
        }
        const r = this.resolve(p, ns);
        if (!r.found || r.root.uid !== uid) continue;
        pods.push(p);
        for (const o of r.owners) owners.set(o.metadata?.uid ?? "", o);
      }
      for (const w of this.kinds.values()) {
        for (const o of w.index.ownedBy(owner).filter(controlled)) {
          seen.add(o.metadata?.uid ?? "");
          below.push(o.metadata?.uid ?? "");
        }
      }
    }
    return { pods, owners: [...owners.values()] };
  }

  async reconcile(key: string): Promise<void> {
    const [kartaName, namespace, name] = key.split("|") as [string, string, string];
    const w = this.watched.get(kartaName);
    if (!w) return;
    const cached = this.kinds.get(w.root)?.informer.get(name, namespace || undefined);
    if (!cached) this.compiledAt.delete(key);
    if (!cached || cached.metadata?.deletionTimestamp) return; // owner references let the garbage collector remove the groups
    if (!this.leading) return; // setLeading(true) requeues every root
    if (!owns(this.shard, cached.metadata?.uid ?? "")) return;
    if (this.governing.get(groupKindKey(w.ready.root)) !== kartaName) return; // another Karta for the kind governs
    const root = this.asRoot(w, cached);
    this.counters.reconciles++;
    // An owner of a described kind governs this object's pods: it has their groups, this object none.
    const above = this.resolve(root, namespace);
    if (above.found) {
      await this.prune(root, undefined);
      return;
    }
    if (above.missing) {
      // Its owner is not cached yet, and may be a described kind: ask again once it may be.
      this.queue.addAfter(key, 2000);
      return;
    }
    const members = this.podsOf(root);
    const ganger = jobGangOwner(root, this.groupsControlledBy(root), members.pods, (o) => writtenBy(o, FIELD_MANAGER));
    if (ganger === "wait") return; // its first pod requeues it
    if (ganger === "job-controller") {
      await this.prune(root, undefined);
      return;
    }
    const result = compileKarta(w.interpreter, root, { ...members, groupShape: this.compileShape() });
    this.compiledAt.set(key, Date.now());
    if (!result.ok) {
      const errors = result.issues.filter((i) => i.severity === "error");
      this.event(root, "Warning", "InterpretationFailed", errors.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "));
      return;
    }
    await this.apply(root, result);
    await this.prune(root, result);
    this.reportUngrouped(key, root, result);
  }

  /**
   * Pods of `root` that do not name the group they belong to: the admission webhook did not patch them
   * (unreachable under failurePolicy Ignore, not installed, or the owner was not in its cache in time), and
   * a pod's spec.schedulingGroup cannot be set after creation, so they are scheduled without their gang
   * until they are recreated. Reported when the set changes; finished pods are left out.
   */
  private reportUngrouped(key: string, root: Obj, result: WorkloadCompilation): void {
    const uid = root.metadata?.uid ?? "";
    const names = result.podPatches
      .filter((p) => p.patch.length > 0 && !["Succeeded", "Failed"].includes(String((this.pods.get(p.pod.name, p.pod.namespace) as { status?: { phase?: string } } | undefined)?.status?.phase)))
      .map((p) => p.pod.name)
      .sort();
    const had = this.ungrouped.get(uid);
    if (names.length === 0) {
      this.ungrouped.delete(uid);
      return;
    }
    // Once per workload, then when more are found, at most every 10 minutes (an Event is a write).
    const now = Date.now();
    const report = !had || (names.length > had.reported && now - had.at >= this.ungroupedReportEveryMs);
    this.ungrouped.set(uid, report ? { names, reported: names.length, at: now } : { ...had!, names });
    if (!report) {
      // More found within the window: reported when it ends, not only if a later update requeues the workload.
      if (names.length > had!.reported) this.queue.addAfter(key, had!.at + this.ungroupedReportEveryMs - now);
      return;
    }
    const shown = names.length > 10 ? `${names.slice(0, 10).join(", ")} and ${names.length - 10} more` : names.join(", ");
    this.log("info", "pods without their group", { kind: root.kind, namespace: root.metadata?.namespace, name: root.metadata?.name, pods: names.length, first: names.slice(0, 10) });
    this.event(
      root,
      "Warning",
      UNGROUPED_REASON,
      `${names.length} pod(s) do not name their PodGroup in spec.schedulingGroup (created while the admission webhook was unreachable or not installed): they are scheduled one by one, not as their gang; delete them to have them recreated into it: ${shown}`,
    );
  }

  /** The Workload API objects `root` controls (Karta's or the Job controller's), from the caches. */
  private groupsControlledBy(root: Obj): Obj[] {
    const uid = root.metadata?.uid ?? "";
    return this.groups.flatMap((g) => g.index.ownedBy(uid).filter((o) => ownedBy(o, uid)));
  }

  /**
   * An informer per group kind (CompositePodGroup only where served), indexed by owner, keeping who wrote
   * each object; a group changed or deleted by someone else requeues its root.
   */
  private watchGroups(composite: boolean): GroupWatch[] {
    return GROUP_KINDS.filter((g) => composite || g.kind !== "CompositePodGroup").map(({ apiVersion, kind, resource }) => {
      const keep = this.shard.total > 1 ? (o: Obj): boolean => owns(this.shard, controllerRef(o)?.uid ?? "") : undefined;
      const informer = new Informer<Obj>(this.client, {
        path: resourcePath(apiVersion, resource),
        what: `${resource}.scheduling.k8s.io`,
        log: this.log,
        // Who wrote each group, and the fields Karta applied (src/controller/applied-fields.ts).
        transform: (o) => keepManagerFields(o, FIELD_MANAGER),
        ...(keep ? { keep } : {}),
      });
      const index = new OwnerIndex(informer);
      const key = (o: Obj) => groupKey(kind, o.metadata?.namespace, o.metadata?.name);
      informer.on("add", (o) => {
        if (!this.applied.has(key(o))) this.enqueueRootOf(o);
      });
      informer.on("update", (o, old) => {
        const last = this.applied.get(key(o));
        if (!last) return;
        if (last.resourceVersion === undefined) {
          // Written while our apply is in flight: what it answers may not be the latest.
          last.stale = true;
          this.enqueueRootOf(o);
        } else if (last.resourceVersion !== o.metadata?.resourceVersion && !(old && changedOnly(o, old, true))) {
          // Our own write has the resourceVersion we recorded; a write by anyone else (a spec edit, a
          // label) has another: the root is reconciled, and applies only if our fields changed. A status
          // alone (the scheduler's) changes none of them.
          this.applied.delete(key(o));
          this.enqueueRootOf(o);
        }
      });
      informer.on("delete", (o) => {
        this.applied.delete(key(o));
        this.enqueueRootOf(o);
      });
      return { apiVersion, kind, resource, informer, index };
    });
  }

  private groupWatch(kind: string | undefined): GroupWatch {
    const g = this.groups.find((x) => x.kind === kind);
    if (!g) throw new Error(`not a group kind: ${kind}`);
    return g;
  }

  /**
   * Server-side applies every object that differs from what this process last applied (or, with no
   * memory of it, from what the cluster holds); recreates one whose immutable fields changed.
   * A level's objects are applied together (see {@link applyLevels}): a reconcile waits for as many round
   * trips as the tree has levels, not one per object, so two workers keep up with a burst of new workloads
   * and make each one's groups as it is created. What it created is recorded on the root (a GroupsCreated
   * Event), also when a later object fails: the retry finds those existing and would not name them.
   */
  private async apply(root: Obj, result: WorkloadCompilation): Promise<void> {
    const created: string[] = [];
    try {
      for (const level of applyLevels(result)) {
        const settled = await Promise.allSettled(level.map((o) => this.applyIfChanged(o)));
        for (const s of settled) if (s.status === "fulfilled" && s.value) created.push(s.value);
        const failed = settled.flatMap((s, i) => (s.status === "rejected" ? [{ o: level[i]!, err: s.reason as unknown }] : []));
        if (failed.length === 0) continue;
        // The first fails the reconcile (logged, retried with backoff); the others are logged here, each
        // with its object, so no failure of a level goes unsaid.
        for (const { o, err } of failed.slice(1)) {
          this.log(isTransient(err) ? "info" : "error", "cannot apply a group", { kind: o.kind, name: o.metadata?.name, namespace: o.metadata?.namespace, err: String((err as Error)?.message ?? err) });
        }
        throw failed[0]!.err;
      }
    } finally {
      if (created.length > 0) this.event(root, "Normal", "GroupsCreated", `created ${created.join(", ")}`);
    }
  }

  /** Applies `o` unless it is what was last applied or what the cluster holds; its name when it was created. */
  private async applyIfChanged(o: Obj): Promise<string | undefined> {
    const key = groupKey(o.kind, o.metadata?.namespace, o.metadata?.name);
    const json = JSON.stringify(o);
    const last = this.applied.get(key);
    if (last?.json === json && last.resourceVersion !== undefined) return undefined;
    const live = this.groupWatch(o.kind).informer.get(o.metadata!.name!, o.metadata?.namespace);
    if (last?.json !== json && applyIsNoop(o, live, FIELD_MANAGER)) {
      // The cluster holds it already (applied before a restart, or by another replica before a failover).
      this.applied.set(key, { json, resourceVersion: live!.metadata?.resourceVersion });
      this.counters.skipped++;
      return undefined;
    }
    const existed = last !== undefined || live !== undefined;
    const pending: Applied = { json, resourceVersion: undefined };
    this.applied.set(key, pending);
    let written: Obj;
    try {
      written = await this.applyOne(o, existed);
    } catch (err) {
      if (this.applied.get(key) === pending) this.applied.delete(key);
      throw err;
    }
    // Deleted or written by someone else meanwhile (the delete and update handlers): not recorded.
    if (this.applied.get(key) === pending) {
      if (pending.stale) this.applied.delete(key);
      else pending.resourceVersion = written.metadata?.resourceVersion;
    }
    return existed ? undefined : `${o.kind} ${o.metadata?.name}`;
  }

  private async applyOne(o: Obj, existed: boolean): Promise<Obj> {
    const g = this.groupWatch(o.kind);
    const path = resourcePath(g.apiVersion, g.resource, o.metadata?.namespace, o.metadata!.name!);
    this.counters.applies++;
    try {
      return await this.client.apply<Obj>(path, o, FIELD_MANAGER, true);
    } catch (err) {
      const e = apiError(err);
      if (e?.code !== 422 || !existed) throw err;
      // An immutable field changed (a template's policy, a group's workloadRef): replace the object.
      this.log("info", "recreating: immutable field changed", { kind: o.kind, name: o.metadata?.name, namespace: o.metadata?.namespace, why: e.message });
      this.counters.deletes++;
      await this.client.delete(path, { propagationPolicy: "Background" });
      this.counters.applies++;
      return await this.client.apply<Obj>(path, o, FIELD_MANAGER, true);
    }
  }

  /**
   * Deletes the groups (and Workload) this root controls that the compilation no longer has, from the
   * informers' caches. Without a compilation (the root is governed by its owner, or the Job controller
   * gangs it) only those Karta wrote: the Job controller's own are left to it.
   */
  private async prune(root: Obj, result: WorkloadCompilation | undefined): Promise<void> {
    const uid = root.metadata?.uid ?? "";
    const keep = new Set((result ? compiledObjects(result) : []).map((o) => `${o.kind}/${o.metadata.name}`));
    for (const { apiVersion, kind, resource, index } of this.groups) {
      for (const o of index.ownedBy(uid)) {
        if (!ownedBy(o, uid) || (result === undefined && !writtenBy(o, FIELD_MANAGER)) || keep.has(`${kind}/${o.metadata?.name}`)) continue;
        const ns = o.metadata?.namespace;
        try {
          this.counters.deletes++;
          // The uid precondition: a group of that name made anew meanwhile is not this one.
          await this.client.delete(resourcePath(apiVersion, resource, ns, o.metadata!.name!), { preconditions: { uid: o.metadata?.uid ?? "" } });
          this.log("info", "deleted a group that no longer exists", { kind, name: o.metadata?.name, namespace: ns });
        } catch (err) {
          const code = apiError(err)?.code;
          if (code !== 404 && code !== 409) throw err;
        }
        this.applied.delete(groupKey(kind, ns, o.metadata?.name));
      }
    }
  }

  /** Records a core/v1 Event on the root in the background: an Event never delays nor fails a reconcile. */
  private event(root: Obj, type: "Normal" | "Warning", reason: string, message: string): void {
    coreEvent(this.events, root, type, reason, message);
  }

  /**
   * The workloads whose pods without their group were reported before this process started (their
   * PodsWithoutGroup Events, until the API server expires them): not reported again unless more are found.
   */
  private async loadReported(): Promise<void> {
    let cont: string | undefined;
    try {
      do {
        const page = await this.client.get<{ metadata?: { continue?: string }; items?: { involvedObject?: { uid?: string }; message?: string; lastTimestamp?: string; source?: { component?: string } }[] }>("/api/v1/events", {
          query: { fieldSelector: `reason=${UNGROUPED_REASON}`, limit: 500, continue: cont },
        });
        for (const e of page.items ?? []) {
          const uid = e.involvedObject?.uid;
          if (!uid || e.source?.component !== "karta-controller") continue;
          const reported = Number(/^(\d+) pod/.exec(e.message ?? "")?.[1] ?? 0);
          const at = Date.parse(e.lastTimestamp ?? "") || Date.now();
          const had = this.ungrouped.get(uid);
          if (!had || had.at < at) this.ungrouped.set(uid, { names: had?.names ?? [], reported: Math.max(reported, had?.reported ?? 0), at });
        }
        cont = page.metadata?.continue || undefined;
      } while (cont !== undefined);
    } catch (err) {
      this.log("info", "cannot read the PodsWithoutGroup Events already recorded; they may be recorded again", { err: String((err as Error)?.message ?? err) });
    }
  }
}

/**
 * A compilation's objects in the order they name each other: the Workload, then the CompositePodGroups
 * level by level from the top of the tree, then the PodGroups. An object is applied after what it names
 * (its Workload, its parent), so that its references point to objects that exist, as upstream's Job
 * integration orders its writes (KEP-5547); objects of one level name none of each other.
 */
export function applyLevels(result: Pick<WorkloadCompilation, "workload" | "compositePodGroups" | "podGroups">): Obj[][] {
  const levels: Obj[][] = result.workload ? [[result.workload as unknown as Obj]] : [];
  const parentOf = (o: { spec?: unknown }): string | undefined => (o.spec as { parentCompositePodGroupName?: string } | undefined)?.parentCompositePodGroupName;
  const composites = new Map(result.compositePodGroups.map((c) => [c.metadata.name ?? "", c]));
  const depth = new Map<string, number>();
  const depthOf = (name: string, seen = new Set<string>()): number => {
    const known = depth.get(name);
    if (known !== undefined) return known;
    const parent = parentOf(composites.get(name) ?? {});
    // A parent outside this compilation (or a cycle, which validation reports) is a top.
    const d = parent !== undefined && composites.has(parent) && !seen.has(parent) ? depthOf(parent, seen.add(name)) + 1 : 0;
    depth.set(name, d);
    return d;
  };
  const byDepth: Obj[][] = [];
  for (const c of result.compositePodGroups) (byDepth[depthOf(c.metadata.name ?? "")] ??= []).push(c as unknown as Obj);
  levels.push(...byDepth.filter((l) => l !== undefined));
  if (result.podGroups.length > 0) levels.push(result.podGroups as unknown as Obj[]);
  return levels;
}
