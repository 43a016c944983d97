/**
 * The workload reconciler: for every Ready Karta, an informer on its root kind (started and stopped as
 * Kartas come and go) and one on pods; for each root object, the Workload API objects `karta compile`
 * makes for it, applied with server-side apply (field manager `karta`) and owned by the root object.
 * Groups that no longer exist are deleted; an object whose immutable fields changed is recreated (as the
 * Job integration replaces its Workload); an interpretation error becomes an Event on the root object.
 *
 * At scale (see bench/controller.ts) a reconcile reads only caches: pods and groups come from informers
 * indexed by owner uid, and an object is applied only when what compiles differs from what this process
 * last applied (a group changed or deleted by someone else is requeued by its informer and applied again).
 */
import { CoreV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy, makeInformer, type Informer, type KubernetesObject, type ObjectCache } from "@kubernetes/client-node";
import { compileInterpreter, type CompiledInterpreter } from "../interpret/index.js";
import { compileKarta, type WorkloadCompilation } from "../scheduling/karta.js";
import { keepRunning, type KartaReconciler, type ReadyKarta } from "./kartas.js";
import { apiError } from "./kube.js";
import type { Logger } from "./log.js";
import { OwnerIndex } from "./owner-index.js";
import { WorkQueue } from "./queue.js";
import type { Karta } from "../definition/index.js";

export const FIELD_MANAGER = "karta";

type Obj = KubernetesObject & Record<string, unknown>;

interface Watched {
  ready: ReadyKarta;
  interpreter: CompiledInterpreter;
  informer: Informer<Obj> & ObjectCache<Obj>;
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

const groupKey = (kind: string | undefined, namespace: string | undefined, name: string | undefined): string => `${kind}/${namespace ?? ""}/${name ?? ""}`;

function ownedBy(o: KubernetesObject, uid: string): boolean {
  return (o.metadata?.ownerReferences ?? []).some((r) => r.uid === uid && r.controller === true);
}

export class WorkloadReconciler {
  private readonly objects: KubernetesObjectApi;
  private readonly core: CoreV1Api;
  private readonly watched = new Map<string, Watched>();
  private readonly pods: Informer<Obj> & ObjectCache<Obj>;
  private readonly podIndex: OwnerIndex<Obj>;
  private readonly groups: GroupWatch[];
  /**
   * What this process last applied, by groupKey: the compiled JSON and the resourceVersion the server
   * answered (undefined while the request is in flight). The groups' metadata.generation is not set by
   * the API server, so a write by someone else is told apart by its resourceVersion.
   */
  private readonly applied = new Map<string, { json: string; resourceVersion: string | undefined }>();
  /** The pod and group caches are synced: root informers start (and reconcile) only then. */
  private cachesSynced = false;
  readonly queue: WorkQueue;
  private stopped = false;
  /** Reconciles done, failures (for metrics). */
  readonly counters = { reconciles: 0, errors: 0 };

  constructor(
    private readonly kc: KubeConfig,
    private readonly kartas: KartaReconciler,
    private readonly log: Logger,
  ) {
    this.objects = KubernetesObjectApi.makeApiClient(kc);
    this.core = kc.makeApiClient(CoreV1Api);
    this.pods = makeInformer<Obj>(kc, "/api/v1/pods", () => this.core.listPodForAllNamespaces() as never);
    keepRunning(this.pods, log, "pods", () => this.stopped);
    this.podIndex = new OwnerIndex(this.pods);
    this.groups = this.watchGroups();
    for (const verb of ["add", "update", "delete"] as const) this.pods.on(verb, (p) => this.enqueueOwnerOf(p));
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

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue.shutDown();
    await Promise.allSettled([this.pods.stop(), ...this.groups.map((g) => g.informer.stop()), ...[...this.watched.values()].map((w) => ((w.stopped = true), w.informer.stop()))]);
    this.watched.clear();
  }

  /** The root kinds currently watched, by Karta name. */
  watchedKartas(): string[] {
    return [...this.watched.keys()].sort();
  }

  /** Starts an informer per Ready Karta and stops those of Kartas that are gone or no longer Ready. */
  private async sync(ready: ReadonlyMap<string, ReadyKarta>): Promise<void> {
    // A Karta may become Ready while start() still lists pods and groups; start() syncs once they are in.
    if (this.stopped || !this.cachesSynced) return;
    for (const [name, w] of this.watched) {
      const now = ready.get(name);
      if (!now || now.karta.metadata?.generation !== w.ready.karta.metadata?.generation) {
        w.stopped = true;
        this.watched.delete(name);
        await w.informer.stop();
        this.log("info", "stopped watching", { karta: name, kind: w.ready.root.kind });
      }
    }
    for (const [name, r] of ready) {
      if (this.watched.has(name)) continue;
      const { group, version, kind } = r.root;
      const apiVersion = group ? `${group}/${version}` : version;
      const path = `${group ? `/apis/${group}` : "/api"}/${version}/${r.resource.name}`;
      const informer = makeInformer<Obj>(this.kc, path, () => this.objects.list(apiVersion, kind) as never);
      const w: Watched = { ready: r, interpreter: compileInterpreter(r.karta as unknown as Karta), informer, stopped: false };
      keepRunning(informer, this.log, `${kind}.${group}`, () => w.stopped || this.stopped);
      for (const verb of ["add", "update"] as const) informer.on(verb, (o) => this.queue.add(`${name}|${o.metadata?.namespace ?? ""}|${o.metadata?.name ?? ""}`));
      this.watched.set(name, w);
      this.log("info", "watching", { karta: name, kind, apiVersion });
      try {
        await informer.start();
      } catch (err) {
        this.log("error", "cannot watch", { karta: name, kind, err: String((err as Error)?.message ?? err) });
      }
    }
  }

  private enqueueOwnerOf(pod: Obj): void {
    for (const ref of pod.metadata?.ownerReferences ?? []) {
      for (const [name, w] of this.watched) {
        const root = w.ready.root;
        if (ref.kind === root.kind && ref.apiVersion === (root.group ? `${root.group}/${root.version}` : root.version)) {
          this.queue.add(`${name}|${pod.metadata?.namespace ?? ""}|${ref.name}`);
        }
      }
    }
  }

  /** The pods of a root object: owned by it directly (the operators Karta's bundled definitions describe). */
  private podsOf(root: Obj): Obj[] {
    return this.podIndex.ownedBy(root.metadata?.uid ?? "");
  }

  async reconcile(key: string): Promise<void> {
    const [kartaName, namespace, name] = key.split("|") as [string, string, string];
    const w = this.watched.get(kartaName);
    if (!w) return;
    const root = w.informer.get(name, namespace || undefined);
    if (!root || root.metadata?.deletionTimestamp) return; // owner references let the garbage collector remove the groups
    this.counters.reconciles++;
    const result = compileKarta(w.interpreter, root, { pods: this.podsOf(root) });
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
      const informer = makeInformer<Obj>(this.kc, `/apis/${apiVersion}/${resource}`, () => this.objects.list(apiVersion, kind) as never);
      keepRunning(informer, this.log, `${resource}.scheduling.k8s.io`, () => this.stopped);
      const index = new OwnerIndex(informer);
      const key = (o: Obj) => groupKey(kind, o.metadata?.namespace, o.metadata?.name);
      informer.on("add", (o) => {
        if (!this.applied.has(key(o))) this.enqueueOwnerOf(o);
      });
      informer.on("update", (o) => {
        const last = this.applied.get(key(o));
        // Our own write has the resourceVersion we recorded; a write by anyone else (a spec edit, a
        // scheduler's status) has another and gets one apply, a no-op when our fields still hold.
        if (last && last.resourceVersion !== undefined && last.resourceVersion !== o.metadata?.resourceVersion) {
          this.applied.delete(key(o));
          this.enqueueOwnerOf(o);
        }
      });
      informer.on("delete", (o) => {
        this.applied.delete(key(o));
        this.enqueueOwnerOf(o);
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
