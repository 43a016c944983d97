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
 *
 * At scale (see bench/controller.ts) a reconcile reads only caches: pods and groups come from informers
 * indexed by owner uid, and an object is applied only when what compiles differs from what this process
 * last applied (a group changed or deleted by someone else is requeued by its informer and applied again).
 */
import { CoreV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy, type Informer, type KubernetesObject, type ObjectCache } from "@kubernetes/client-node";
import { compileInterpreter, type CompiledInterpreter } from "../interpret/index.js";
import { compileKarta, type WorkloadCompilation } from "../scheduling/karta.js";
import { keepRunning, type KartaReconciler, type ReadyKarta } from "./kartas.js";
import { apiError, discover, keepPlainJson, makeLeanInformer, writtenBy } from "./kube.js";
import { chainKinds, controllerRef, groupKindKey, resolveOwnerChain, type ChainLookup, type ChainResult, type DeclaredKind, type GroupKind } from "./owners.js";
import { jobGangOwner } from "./job-controller.js";
import { findPodRoot, type PodRoot } from "./admission.js";
import type { Logger } from "./log.js";
import { OwnerIndex } from "./owner-index.js";
import { coversFields, podFieldsOf, trimPod, type PodFields } from "./pod-cache.js";
import { WorkQueue } from "./queue.js";
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
}

/** An informer on a kind some Ready Kartas watch (as their root, or between their root and pods), shared by them. */
interface KindWatch {
  group: string;
  kind: string;
  informer: Informer<Obj> & ObjectCache<Obj>;
  index: OwnerIndex<Obj>;
  users: Set<string>;
  stopped: boolean;
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
  private readonly kinds = new Map<string, KindWatch>();
  /**
   * `group/Kind` → the Karta that governs its objects: of the Ready ones for that kind, the oldest
   * (creationTimestamp, then name), as upstream's exporter chooses; the others are shadowed.
   */
  private readonly governing = new Map<string, string>();
  /** The pod cache, trimmed to {@link podFields}; replaced by a wider one when a Karta reads more of a pod. */
  private pods: Informer<Obj> & ObjectCache<Obj>;
  private podIndex: OwnerIndex<Obj>;
  /** The pod fields the cache keeps (src/controller/pod-cache.ts). */
  private podFields: PodFields;
  private readonly fullPodCache: boolean;
  /** When the last watch event arrived (ms since the epoch; 0 before the first), for the exporter. */
  lastEventAt = 0;
  private readonly groups: GroupWatch[] = [];
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
  /** The --group-shape asked for; `auto` is settled by start() from what the API server serves. */
  private groupShape: GroupShape;

  constructor(
    private readonly kc: KubeConfig,
    private readonly kartas: KartaReconciler,
    private readonly log: Logger,
    options: { leading?: boolean; groupShape?: GroupShape; fullPodCache?: boolean } = {},
  ) {
    this.leading = options.leading ?? true;
    this.groupShape = options.groupShape ?? "auto";
    this.fullPodCache = options.fullPodCache ?? false;
    this.objects = KubernetesObjectApi.makeApiClient(kc);
    this.core = kc.makeApiClient(CoreV1Api);
    this.podFields = podFieldsOf([], this.fullPodCache);
    [this.pods, this.podIndex] = this.podInformer(this.podFields);
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
    // A cluster that does not serve CompositePodGroup gets flat groups (and no informer on that kind).
    const composite = (await discover(this.kc, "scheduling.k8s.io", "v1alpha3"))?.some((r) => r.kind === "CompositePodGroup") ?? false;
    if (this.groupShape === "auto") this.groupShape = composite ? "composite" : "flat";
    if (this.groupShape === "composite" && !composite) this.log("error", "--group-shape composite, but the API server does not serve scheduling.k8s.io/v1alpha3 CompositePodGroup: gangs with subgroups cannot be created");
    this.log("info", "gang shape", { groupShape: this.groupShape, compositePodGroupServed: composite });
    this.groups.push(...this.watchGroups(composite));
    await this.pods.start();
    // Synced before the first reconcile, so a restarted controller sees the groups it made as existing.
    for (const g of this.groups) await g.informer.start();
    this.cachesSynced = true;
    await this.sync(this.kartas.readyKartas());
  }

  /** A pod informer keeping `fields`, with its owner index and handlers (events count only while it is the cache). */
  private podInformer(fields: PodFields): [Informer<Obj> & ObjectCache<Obj>, OwnerIndex<Obj>] {
    const informer = makeLeanInformer<Obj>(this.kc, "/api/v1/pods", () => this.core.listPodForAllNamespaces() as never, { transform: (p) => trimPod(p, fields) });
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
  /** Ready Kartas whose root kind is Pod, which make no groups (logged once each). */
  private readonly podRootKartas = new Set<string>();

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
      ...[...this.kinds.values()].map((k) => ((k.stopped = true), k.informer.stop())),
    ]);
    this.watched.clear();
    this.kinds.clear();
  }

  /** Starts writing (this replica took the Lease): every cached root object is reconciled. */
  setLeading(leading: boolean): void {
    const was = this.leading;
    this.leading = leading;
    if (!leading || was) return;
    this.enqueueAll();
  }

  /** Queues every cached root object of every watched Karta. */
  private enqueueAll(): void {
    for (const [name, w] of this.watched) for (const o of this.kinds.get(w.root)?.informer.list() ?? []) this.enqueue(`${name}|${o.metadata?.namespace ?? ""}|${o.metadata?.name ?? ""}`);
  }

  /** Queues a root object; a replica that does not lead keeps its caches but queues nothing. */
  private enqueue(key: string): void {
    if (this.leading) this.queue.add(key);
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
      objects: () => this.kinds.get(w.root)?.informer.list() ?? [],
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

  /** Starts the informers of each Ready Karta and stops those of Kartas that are gone or no longer Ready. */
  private async syncNow(ready: ReadonlyMap<string, ReadyKarta>): Promise<void> {
    // A Karta may become Ready while start() still lists pods and groups; start() syncs once they are in.
    if (this.stopped || !this.cachesSynced) return;
    let changed = false;
    for (const [name, w] of this.watched) {
      const now = ready.get(name);
      if (!now || now.karta.metadata?.generation !== w.ready.karta.metadata?.generation) {
        this.watched.delete(name);
        await this.release(name, w.keys);
        changed = true;
        this.log("info", "stopped watching", { karta: name, kind: w.ready.root.kind });
      }
    }
    const need = podFieldsOf([...ready.values()].map((r) => r.karta as unknown as Karta), this.fullPodCache);
    if (!coversFields(this.podFields, need)) await this.widenPodCache(need);
    for (const [name, r] of ready) {
      if (this.watched.has(name)) continue;
      const { group, version, kind } = r.root;
      if (group === "" && kind === "Pod") {
        // A bare pod's group is named after its UID, which it does not have while it is being created,
        // the only time its spec.schedulingGroup can be set: such a Karta describes pods (inspect, get,
        // Karmada), but the controller makes no groups from it.
        if (!this.podRootKartas.has(name)) this.log("info", "not making groups for a Karta whose root kind is Pod: a pod joins a group only when it is created, before it has the UID the group is named after", { karta: name });
        this.podRootKartas.add(name);
        continue;
      }
      // The kinds between root and pods first, so the root's first reconcile sees its whole chain.
      const keys: string[] = [];
      for (const k of chainKinds(r.karta as unknown as Karta)) {
        const key = await this.acquire(name, k);
        if (key) keys.push(key);
      }
      const root = await this.acquire(name, { group, version, kind }, r.resource.name);
      keys.push(root!);
      this.watched.set(name, { ready: r, interpreter: compileInterpreter(r.karta as unknown as Karta), root: root!, keys });
      changed = true;
      this.log("info", "watching", { karta: name, kind, apiVersion: group ? `${group}/${version}` : version });
      // Its objects may have been cached already (as another Karta's chain kind): their roots are now its.
      for (const o of this.kinds.get(root!)?.informer.list() ?? []) this.enqueue(`${name}|${o.metadata?.namespace ?? ""}|${o.metadata?.name ?? ""}`);
    }
    // Two Ready Kartas for one kind (at two versions, say): the oldest governs its objects.
    this.governing.clear();
    const chosen = new Map<string, [string, Watched]>();
    for (const [name, w] of this.watched) {
      const key = groupKindKey(w.ready.root);
      const had = chosen.get(key);
      if (!had || olderKarta(w, name, had[1], had[0])) chosen.set(key, [name, w]);
    }
    for (const [key, [name]] of chosen) this.governing.set(key, name);
    // Which owner governs a pod depends on every Ready Karta: a new outer one takes over the inner ones' pods.
    if (changed) this.enqueueAll();
  }

  /** Starts (or shares) the informer on a kind `karta` watches; its key, or undefined when the cluster does not serve it. */
  private async acquire(karta: string, k: DeclaredKind, resource?: string): Promise<string | undefined> {
    const key = kindKey(k);
    const had = this.kinds.get(key);
    if (had) {
      had.users.add(karta);
      return key;
    }
    const plural = resource ?? (await this.kartas.availability({ group: k.group, version: k.version, kind: k.kind }).catch(() => undefined))?.resource?.name;
    if (!plural) {
      this.log("info", "not watching a kind the cluster does not serve", { karta, kind: groupKindKey(k), version: k.version });
      return undefined;
    }
    const apiVersion = k.group ? `${k.group}/${k.version}` : k.version;
    keepPlainJson([{ group: k.group, version: k.version, kind: k.kind }, { group: k.group, version: k.version, kind: `${k.kind}List` }]);
    const path = `${k.group ? `/apis/${k.group}` : "/api"}/${k.version}/${plural}`;
    const informer = makeLeanInformer<Obj>(this.kc, path, () => this.objects.list(apiVersion, k.kind) as never);
    const w: KindWatch = { group: k.group, kind: k.kind, informer, index: new OwnerIndex(informer), users: new Set([karta]), stopped: false };
    keepRunning(informer, this.log, groupKindKey(k), () => w.stopped || this.stopped);
    for (const verb of ["add", "update"] as const) {
      informer.on(verb, (o) => {
        this.touch();
        // As a root: its own reconcile (the root kind's list items come without kind and apiVersion).
        for (const [name, x] of this.watched) if (x.root === key) this.enqueue(`${name}|${o.metadata?.namespace ?? ""}|${o.metadata?.name ?? ""}`);
        this.enqueueRootOf({ ...o, apiVersion, kind: k.kind });
      });
    }
    informer.on("delete", (o) => {
      this.touch();
      this.enqueueRootOf({ ...o, apiVersion, kind: k.kind });
    });
    this.kinds.set(key, w);
    try {
      await informer.start();
    } catch (err) {
      this.log("error", "cannot watch", { karta, kind: groupKindKey(k), err: String((err as Error)?.message ?? err) });
    }
    return key;
  }

  /** Stops the informers no Karta uses any more. */
  private async release(karta: string, keys: string[]): Promise<void> {
    for (const key of keys) {
      const w = this.kinds.get(key);
      if (!w) continue;
      w.users.delete(karta);
      if (w.users.size > 0) continue;
      w.stopped = true;
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

  private enqueueRootOf(o: Obj): void {
    const r = this.resolve(o);
    if (r.found) this.enqueue(`${r.karta}|${o.metadata?.namespace ?? ""}|${r.root.name}`);
  }

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

  /** A cached root object with its kind and apiVersion (list items come without them). */
  private asRoot(w: Watched, o: Obj): Obj {
    const { group, version, kind } = w.ready.root;
    return o.kind === kind && o.apiVersion !== undefined ? o : { ...o, apiVersion: group ? `${group}/${version}` : version, kind };
  }

  async reconcile(key: string): Promise<void> {
    const [kartaName, namespace, name] = key.split("|") as [string, string, string];
    const w = this.watched.get(kartaName);
    if (!w) return;
    const cached = this.kinds.get(w.root)?.informer.get(name, namespace || undefined);
    if (!cached || cached.metadata?.deletionTimestamp) return; // owner references let the garbage collector remove the groups
    if (!this.leading) return; // setLeading(true) requeues every root
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
    if (!result.ok) {
      const errors = result.issues.filter((i) => i.severity === "error");
      await this.event(root, "Warning", "InterpretationFailed", errors.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; "));
      return;
    }
    const created = await this.apply(result);
    await this.prune(root, result);
    if (created.length > 0) await this.event(root, "Normal", "GroupsCreated", `created ${created.join(", ")}`);
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
      const informer = makeLeanInformer<Obj>(this.kc, `/apis/${apiVersion}/${resource}`, () => this.objects.list(apiVersion, kind) as never, { keepManagers: true });
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

  /**
   * Deletes the groups (and Workload) this root controls that the compilation no longer has, from the
   * informers' caches. Without a compilation (the root is governed by its owner, or the Job controller
   * gangs it) only those Karta wrote: the Job controller's own are left to it.
   */
  private async prune(root: Obj, result: WorkloadCompilation | undefined): Promise<void> {
    const uid = root.metadata?.uid ?? "";
    const keep = new Set([...(result?.workload ? [result.workload] : []), ...(result?.compositePodGroups ?? []), ...(result?.podGroups ?? [])].map((o) => `${o.kind}/${o.metadata.name}`));
    for (const { apiVersion, kind, index } of this.groups) {
      for (const o of index.ownedBy(uid)) {
        if (!ownedBy(o, uid) || (result === undefined && !writtenBy(o, FIELD_MANAGER)) || keep.has(`${kind}/${o.metadata?.name}`)) continue;
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
