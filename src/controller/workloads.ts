/**
 * The workload reconciler: for every Ready Karta, an informer on its root kind and on the kinds between
 * its root and its pods (started and stopped as Kartas come and go), and one on pods; a pod belongs to the
 * root its owner chain reaches (src/controller/owners.ts). For each root object, the Workload API objects
 * `karta compile` makes for it, applied with server-side apply (field manager `karta`) and owned by the
 * root object. The caches run on every replica (the admission webhook answers from them); only the
 * leader writes.
 * Groups that no longer exist are deleted; an object whose immutable fields changed is recreated (as the
 * Job integration replaces its Workload); an interpretation error becomes an Event on the root object.
 *
 * At scale (see bench/controller.ts) a reconcile reads only caches: pods and groups come from informers
 * indexed by owner uid, and an object is applied only when what compiles differs from what this process
 * last applied (a group changed or deleted by someone else is requeued by its informer and applied again).
 */
import { CoreV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy, type Informer, type KubernetesObject, type ObjectCache } from "@kubernetes/client-node";
import { compileInterpreter, type CompiledInterpreter } from "../interpret/index.js";
import { compileKarta, type WorkloadCompilation } from "../scheduling/karta.js";
import { keepRunning, type KartaReconciler, type ReadyKarta } from "./kartas.js";
import { apiError, keepPlainJson, makeLeanInformer } from "./kube.js";
import { chainKinds, controllerRef, groupKindKey, resolveOwnerChain, type ChainLookup, type ChainResult, type DeclaredKind, type GroupKind } from "./owners.js";
import { findPodRoot, type PodRoot } from "./admission.js";
import type { Logger } from "./log.js";
import { OwnerIndex } from "./owner-index.js";
import { coversFields, podFieldsOf, trimPod, type PodFields } from "./pod-cache.js";
import { WorkQueue } from "./queue.js";
import type { Karta } from "../definition/index.js";

export const FIELD_MANAGER = "karta";

type Obj = KubernetesObject & Record<string, unknown>;

interface Watched {
  ready: ReadyKarta;
  interpreter: CompiledInterpreter;
  informer: Informer<Obj> & ObjectCache<Obj>;
  /** The kinds between its root and its pods (group/Kind keys of {@link WorkloadReconciler.between}). */
  chain: string[];
  stopped: boolean;
}

/** An informer on a kind some Ready Kartas' chains pass through, shared by them. */
interface Between {
  informer: Informer<Obj> & ObjectCache<Obj>;
  index: OwnerIndex<Obj>;
  users: Set<string>;
  stopped: boolean;
}

const GROUP_KINDS = [
  { apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup", resource: "podgroups" },
  { apiVersion: "scheduling.k8s.io/v1alpha3", kind: "CompositePodGroup", resource: "compositepodgroups" },
  { apiVersion: "scheduling.k8s.io/v1beta1", kind: "Workload", resource: "workloads" },
] as const;

/** The informer, cache and owner index of one group kind. */
interface GroupWatch {
  apiVersion: string;
  kind: string;
  informer: Informer<Obj> & ObjectCache<Obj>;
  index: OwnerIndex<Obj>;
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

export class WorkloadReconciler {
  private readonly objects: KubernetesObjectApi;
  private readonly core: CoreV1Api;
  private readonly watched = new Map<string, Watched>();
  private readonly between = new Map<string, Between>();
  /** The pod cache, trimmed to {@link podFields}; replaced by a wider one when a Karta reads more of a pod. */
  private pods: Informer<Obj> & ObjectCache<Obj>;
  private podIndex: OwnerIndex<Obj>;
  /** The pod fields the cache keeps (src/controller/pod-cache.ts). */
  private podFields: PodFields;
  private readonly fullPodCache: boolean;
  /** When the last watch event arrived (ms since the epoch; 0 before the first), for the exporter. */
  lastEventAt = 0;
  private readonly groups: GroupWatch[];
  /**
   * What this process last applied, by groupKey: the compiled JSON and the resourceVersion the server
   * answered (undefined while the request is in flight). The groups' metadata.generation is not set by
   * the API server, so a write by someone else is told apart by its resourceVersion.
   */
  private readonly applied = new Map<string, { json: string; resourceVersion: string | undefined }>();
  /** The pod and group caches are synced: root informers start (and reconcile) only then. */
  private cachesSynced = false;
  /** Writes (server-side apply, prune, events) only while leading; caches run either way. */
  private leading: boolean;
  readonly queue: WorkQueue;
  private stopped = false;
  /** Reconciles done, failures (for metrics). */
  readonly counters = { reconciles: 0, errors: 0 };

  constructor(
    private readonly kc: KubeConfig,
    private readonly kartas: KartaReconciler,
    private readonly log: Logger,
    options: { leading?: boolean; fullPodCache?: boolean } = {},
  ) {
    this.leading = options.leading ?? true;
    this.fullPodCache = options.fullPodCache ?? false;
    this.objects = KubernetesObjectApi.makeApiClient(kc);
    this.core = kc.makeApiClient(CoreV1Api);
    this.podFields = podFieldsOf([], this.fullPodCache);
    [this.pods, this.podIndex] = this.podInformer(this.podFields);
    this.groups = this.watchGroups();
    this.queue = new WorkQueue(
      (key) => this.reconcile(key),
      (key, err, attempt) => {
        this.counters.errors++;
        log("error", "workload reconcile failed", { key, attempt, err: String((err as Error)?.message ?? err) });
      },
    );
    kartas.onReadyChange((ready) => void this.sync(ready));

  }

  async start(): Promise<void> {
    await this.pods.start();
    // Synced before the first reconcile, so a restarted controller sees the groups it made as existing.
    for (const g of this.groups) await g.informer.start();
    this.cachesSynced = true;
    await this.sync(this.kartas.readyKartas());
  }

  /** A pod informer keeping `fields`, with its owner index and handlers (events count only while it is the cache). */
  private podInformer(fields: PodFields): [Informer<Obj> & ObjectCache<Obj>, OwnerIndex<Obj>] {
    const informer = makeLeanInformer<Obj>(this.kc, "/api/v1/pods", () => this.core.listPodForAllNamespaces() as never, (p) => trimPod(p, fields));
    keepRunning(informer, this.log, "pods", () => this.stopped || this.retired.has(informer));
    const index = new OwnerIndex(informer);
    for (const verb of ["add", "update", "delete"] as const) {
      informer.on(verb, (p) => {
        if (informer !== this.pods) return;
        this.touch();
        this.enqueueRootOf(p);
      });
    }
    return [informer, index];
  }

  private readonly retired = new WeakSet<object>();

  /**
   * Keeps the pod fields the Ready Kartas' pod expressions read. A wider set needs a new informer (a
   * relist: a cache keeps the object it has for a resourceVersion, trimmed as it was); the old cache
   * serves until the new one has listed, then every root is reconciled against the wider pods.
   */
  private async widenPodCache(fields: PodFields): Promise<void> {
    this.log("info", "widening the pod cache", { fields: fields === "all" ? "all" : [...fields].sort().join(",") });
    const [informer, index] = this.podInformer(fields);
    await informer.start();
    const old = this.pods;
    this.retired.add(old);
    this.pods = informer;
    this.podIndex = index;
    this.podFields = fields;
    await old.stop();
    for (const p of informer.list()) this.enqueueRootOf(p);
  }

  /** Records a watch event's arrival (karta_exporter_last_event_timestamp_seconds). */
  private touch(): void {
    this.lastEventAt = Date.now();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.syncing;
    await this.queue.shutDown();
    await Promise.allSettled([
      this.pods.stop(),
      ...this.groups.map((g) => g.informer.stop()),
      ...[...this.watched.values()].map((w) => ((w.stopped = true), w.informer.stop())),
      ...[...this.between.values()].map((b) => ((b.stopped = true), b.informer.stop())),
    ]);
    this.watched.clear();
    this.between.clear();
  }

  /** Starts writing (this replica took the Lease): every cached root object is reconciled. */
  setLeading(leading: boolean): void {
    const was = this.leading;
    this.leading = leading;
    if (!leading || was) return;
    for (const [name, w] of this.watched) for (const o of w.informer.list()) this.enqueue(`${name}|${o.metadata?.namespace ?? ""}|${o.metadata?.name ?? ""}`);
  }

  /** Queues a root object; a replica that does not lead keeps its caches but queues nothing. */
  private enqueue(key: string): void {
    if (this.leading) this.queue.add(key);
  }

  /** The kinds watched between roots and pods (`group/Kind`). */
  watchedChainKinds(): string[] {
    return [...this.between.keys()].sort();
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
      objects: () => w.informer.list(),
      governs: this.lookup.rootKarta(w.ready.root) === karta,
    }));
  }

  /** The cached pods (trimmed: src/controller/pod-cache.ts). */
  cachedPods(): readonly Obj[] {
    return this.pods.list();
  }

  /** The pod fields the cache keeps. */
  cachedPodFields(): PodFields {
    return this.podFields;
  }

  private syncing: Promise<void> = Promise.resolve();

  /** One sync at a time: a sync awaits informers, and two at once would both start the same Karta's. */
  private sync(ready: ReadonlyMap<string, ReadyKarta>): Promise<void> {
    this.syncing = this.syncing.then(() => this.syncNow(ready)).catch((err: unknown) => this.log("error", "cannot sync the watches", { err: String((err as Error)?.message ?? err) }));
    return this.syncing;
  }

  /** Starts an informer per Ready Karta and stops those of Kartas that are gone or no longer Ready. */
  private async syncNow(ready: ReadonlyMap<string, ReadyKarta>): Promise<void> {
    // A Karta may become Ready while start() still lists pods and groups; start() syncs once they are in.
    if (this.stopped || !this.cachesSynced) return;
    for (const [name, w] of this.watched) {
      const now = ready.get(name);
      if (!now || now.karta.metadata?.generation !== w.ready.karta.metadata?.generation) {
        w.stopped = true;
        this.watched.delete(name);
        await w.informer.stop();
        await this.release(name, w.chain);
        this.log("info", "stopped watching", { karta: name, kind: w.ready.root.kind });
      }
    }
    const need = podFieldsOf([...ready.values()].map((r) => r.karta as unknown as Karta), this.fullPodCache);
    if (!coversFields(this.podFields, need)) await this.widenPodCache(need);
    for (const [name, r] of ready) {
      if (this.watched.has(name)) continue;
      const { group, version, kind } = r.root;
      const apiVersion = group ? `${group}/${version}` : version;
      const path = `${group ? `/apis/${group}` : "/api"}/${version}/${r.resource.name}`;
      const informer = makeLeanInformer<Obj>(this.kc, path, () => this.objects.list(apiVersion, kind) as never);
      const chain = chainKinds(r.karta as unknown as Karta);
      const w: Watched = { ready: r, interpreter: compileInterpreter(r.karta as unknown as Karta), informer, chain: chain.map(groupKindKey), stopped: false };
      // The kinds between root and pods first, so the root's first reconcile sees its whole chain.
      for (const k of chain) await this.acquire(name, k);
      keepRunning(informer, this.log, `${kind}.${group}`, () => w.stopped || this.stopped);
      for (const verb of ["add", "update"] as const) {
        informer.on(verb, (o) => {
          this.touch();
          this.enqueue(`${name}|${o.metadata?.namespace ?? ""}|${o.metadata?.name ?? ""}`);
        });
      }
      informer.on("delete", () => this.touch());
      this.watched.set(name, w);
      this.log("info", "watching", { karta: name, kind, apiVersion });
      try {
        await informer.start();
      } catch (err) {
        this.log("error", "cannot watch", { karta: name, kind, err: String((err as Error)?.message ?? err) });
      }
    }
  }

  /** Starts (or shares) the informer on a kind of `karta`'s chain. */
  private async acquire(karta: string, k: DeclaredKind): Promise<void> {
    const key = groupKindKey(k);
    const had = this.between.get(key);
    if (had) {
      had.users.add(karta);
      return;
    }
    const found = await this.kartas.availability({ group: k.group, version: k.version, kind: k.kind }).catch(() => undefined);
    if (!found?.resource) {
      this.log("info", "not watching a kind the cluster does not serve", { karta, kind: key, version: k.version });
      return;
    }
    const apiVersion = k.group ? `${k.group}/${k.version}` : k.version;
    keepPlainJson([{ group: k.group, version: k.version, kind: k.kind }, { group: k.group, version: k.version, kind: `${k.kind}List` }]);
    const path = `${k.group ? `/apis/${k.group}` : "/api"}/${k.version}/${found.resource.name}`;
    const informer = makeLeanInformer<Obj>(this.kc, path, () => this.objects.list(apiVersion, k.kind) as never);
    const b: Between = { informer, index: new OwnerIndex(informer), users: new Set([karta]), stopped: false };
    keepRunning(informer, this.log, key, () => b.stopped || this.stopped);
    for (const verb of ["add", "update", "delete"] as const) {
      informer.on(verb, (o) => {
        this.touch();
        this.enqueueRootOf(o);
      });
    }
    this.between.set(key, b);
    try {
      await informer.start();
    } catch (err) {
      this.log("error", "cannot watch", { karta, kind: key, err: String((err as Error)?.message ?? err) });
    }
  }

  /** Stops the chain informers no Karta uses any more. */
  private async release(karta: string, keys: string[]): Promise<void> {
    for (const key of keys) {
      const b = this.between.get(key);
      if (!b) continue;
      b.users.delete(karta);
      if (b.users.size > 0) continue;
      b.stopped = true;
      this.between.delete(key);
      await b.informer.stop();
    }
  }

  /**
   * The caches as the owner-chain resolver reads them. Of two Ready Kartas of one root kind, the older
   * (creationTimestamp, then name) governs, as upstream's exporter chooses; the other is shadowed.
   */
  private readonly lookup: ChainLookup = {
    rootKarta: (gk: GroupKind) => {
      let chosen: [string, Watched] | undefined;
      for (const [name, w] of this.watched) {
        if (w.ready.root.group !== gk.group || w.ready.root.kind !== gk.kind) continue;
        if (!chosen || olderKarta(w, name, chosen[1], chosen[0])) chosen = [name, w];
      }
      return chosen?.[0];
    },
    object: (gk: GroupKind, namespace: string, name: string) => {
      if (gk.group === "" && gk.kind === "Pod") return this.pods.get(name, namespace);
      const b = this.between.get(groupKindKey(gk));
      return b ? b.informer.get(name, namespace) : null;
    },
  };

  /** Where `o`'s owner chain leads, in the caches. */
  resolve(o: KubernetesObject, namespace = o.metadata?.namespace ?? ""): ChainResult {
    return resolveOwnerChain(o, namespace, this.lookup);
  }

  private enqueueRootOf(o: Obj): void {
    const r = this.resolve(o);
    if (r.found) this.enqueue(`${r.karta}|${o.metadata?.namespace ?? ""}|${r.root.name}`);
  }

  /**
   * The root object and chain of a pod being created, from the caches only (the admission webhook's
   * question). `pending`: an owner or the root is not in the cache yet, so asking again soon may answer.
   */
  podRoot(pod: KubernetesObject, namespace: string): PodRoot {
    return findPodRoot(pod, namespace, this.lookup, (karta, name) => {
      const w = this.watched.get(karta);
      const root = w?.informer.get(name, namespace);
      return w && root ? { interpreter: w.interpreter, root } : undefined;
    });
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
      for (const b of this.between.values()) {
        for (const o of b.index.ownedBy(owner).filter(controlled)) {
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
    const root = w.informer.get(name, namespace || undefined);
    if (!root || root.metadata?.deletionTimestamp) return; // owner references let the garbage collector remove the groups
    if (!this.leading) return; // setLeading(true) requeues every root
    this.counters.reconciles++;
    const result = compileKarta(w.interpreter, root, this.podsOf(root));
    if (!result.ok) {
      const errors = result.issues.filter((i) => i.severity === "error");
      await this.event(root, "Warning", "InterpretationFailed", errors.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "));
      return;
    }
    const created = await this.apply(result);
    await this.prune(root, result);
    if (created.length > 0) await this.event(root, "Normal", "GroupsCreated", `created ${created.join(", ")}`);
  }

  /** An informer per group kind, indexed by owner; a group changed or deleted by someone else requeues its root. */
  private watchGroups(): GroupWatch[] {
    return GROUP_KINDS.map(({ apiVersion, kind, resource }) => {
      const informer = makeLeanInformer<Obj>(this.kc, `/apis/${apiVersion}/${resource}`, () => this.objects.list(apiVersion, kind) as never);
      keepRunning(informer, this.log, `${resource}.scheduling.k8s.io`, () => this.stopped);
      const index = new OwnerIndex(informer);
      const key = (o: Obj) => groupKey(kind, o.metadata?.namespace, o.metadata?.name);
      informer.on("add", (o) => {
        if (!this.applied.has(key(o))) this.enqueueRootOf(o);
      });
      informer.on("update", (o) => {
        const last = this.applied.get(key(o));
        // Our own write has the resourceVersion we recorded; a write by anyone else (a spec edit, a
        // scheduler's status) has another and gets one apply, a no-op when our fields still hold.
        if (last && last.resourceVersion !== undefined && last.resourceVersion !== o.metadata?.resourceVersion) {
          this.applied.delete(key(o));
          this.enqueueRootOf(o);
        }
      });
      informer.on("delete", (o) => {
        this.applied.delete(key(o));
        this.enqueueRootOf(o);
      });
      return { apiVersion, kind, informer, index };
    });
  }

  private groupWatch(kind: string | undefined): GroupWatch {
    const g = this.groups.find((x) => x.kind === kind);
    if (!g) throw new Error(`not a group kind: ${kind}`);
    return g;
  }

  /**
   * Server-side applies every object that differs from what this process last applied; recreates one whose
   * immutable fields changed. The names created.
   */
  private async apply(result: WorkloadCompilation): Promise<string[]> {
    const created: string[] = [];
    const all = [...(result.workload ? [result.workload] : []), ...result.compositePodGroups, ...result.podGroups] as unknown as Obj[];
    for (const o of all) {
      const key = groupKey(o.kind, o.metadata?.namespace, o.metadata?.name);
      const json = JSON.stringify(o);
      const last = this.applied.get(key);
      if (last?.json === json && last.resourceVersion !== undefined) continue;
      const existed = last !== undefined || this.groupWatch(o.kind).informer.get(o.metadata!.name!, o.metadata?.namespace) !== undefined;
      this.applied.set(key, { json, resourceVersion: undefined });
      try {
        const written = await this.applyOne(o, existed);
        this.applied.set(key, { json, resourceVersion: written.metadata?.resourceVersion });
      } catch (err) {
        this.applied.delete(key);
        throw err;
      }
      if (!existed) created.push(`${o.kind} ${o.metadata?.name}`);
    }
    return created;
  }

  private async applyOne(o: Obj, existed: boolean): Promise<Obj> {
    try {
      return (await this.objects.patch(o, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply)) as Obj;
    } catch (err) {
      const e = apiError(err);
      if (e?.code !== 422 || !existed) throw err;
      // An immutable field changed (a template's policy, a group's workloadRef): replace the object.
      this.log("info", "recreating: immutable field changed", { kind: o.kind, name: o.metadata?.name, namespace: o.metadata?.namespace, why: e.message });
      await this.objects.delete(o, undefined, undefined, undefined, undefined, "Background");
      return (await this.objects.patch(o, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply)) as Obj;
    }
  }

  /** Deletes the groups (and Workload) this root controls that the compilation no longer has (from the informers' caches). */
  private async prune(root: Obj, result: WorkloadCompilation): Promise<void> {
    const uid = root.metadata?.uid ?? "";
    const keep = new Set([...(result.workload ? [result.workload] : []), ...result.compositePodGroups, ...result.podGroups].map((o) => `${o.kind}/${o.metadata.name}`));
    for (const { apiVersion, kind, index } of this.groups) {
      for (const o of index.ownedBy(uid)) {
        if (!ownedBy(o, uid) || keep.has(`${kind}/${o.metadata?.name}`)) continue;
        const ns = o.metadata?.namespace;
        try {
          await this.objects.delete({ apiVersion, kind, metadata: { name: o.metadata!.name!, ...(ns ? { namespace: ns } : {}) } });
          this.log("info", "deleted a group that no longer exists", { kind, name: o.metadata?.name, namespace: ns });
        } catch (err) {
          if (apiError(err)?.code !== 404) throw err;
        }
        this.applied.delete(groupKey(kind, ns, o.metadata?.name));
      }
    }
  }

  private async event(root: Obj, type: "Normal" | "Warning", reason: string, message: string): Promise<void> {
    const ns = root.metadata?.namespace ?? "default";
    const now = new Date();
    try {
      await this.core.createNamespacedEvent({
        namespace: ns,
        body: {
          metadata: { generateName: `${root.metadata?.name ?? "object"}.`.slice(0, 200), namespace: ns },
          involvedObject: { apiVersion: root.apiVersion, kind: root.kind, name: root.metadata?.name, namespace: ns, uid: root.metadata?.uid },
          type,
          reason,
          message: message.slice(0, 1024),
          source: { component: "karta-controller" },
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
        },
      });
    } catch (err) {
      this.log("error", "cannot record an event", { reason, err: String((err as Error)?.message ?? err) });
    }
  }
}
