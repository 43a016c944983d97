/**
 * The workload reconciler: for every Ready Karta, an informer on its root kind (started and stopped as
 * Kartas come and go) and one on pods; for each root object, the Workload API objects `karta compile`
 * makes for it, applied with server-side apply (field manager `karta`) and owned by the root object.
 * Groups that no longer exist are deleted; an object whose immutable fields changed is recreated (as the
 * Job integration replaces its Workload); an interpretation error becomes an Event on the root object.
 */
import { CoreV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy, makeInformer, type Informer, type KubernetesObject, type ObjectCache } from "@kubernetes/client-node";
import { compileInterpreter, type CompiledInterpreter } from "../interpret/index.js";
import { compileKarta, type WorkloadCompilation } from "../scheduling/karta.js";
import { keepRunning, type KartaReconciler, type ReadyKarta } from "./kartas.js";
import { apiError } from "./kube.js";
import type { Logger } from "./log.js";
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
  { apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup" },
  { apiVersion: "scheduling.k8s.io/v1alpha3", kind: "CompositePodGroup" },
  { apiVersion: "scheduling.k8s.io/v1beta1", kind: "Workload" },
] as const;

function ownedBy(o: KubernetesObject, uid: string): boolean {
  return (o.metadata?.ownerReferences ?? []).some((r) => r.uid === uid && r.controller === true);
}

export class WorkloadReconciler {
  private readonly objects: KubernetesObjectApi;
  private readonly core: CoreV1Api;
  private readonly watched = new Map<string, Watched>();
  private readonly pods: Informer<Obj> & ObjectCache<Obj>;
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
    await this.sync(this.kartas.readyKartas());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue.shutDown();
    await Promise.allSettled([this.pods.stop(), ...[...this.watched.values()].map((w) => ((w.stopped = true), w.informer.stop()))]);
    this.watched.clear();
  }

  /** The root kinds currently watched, by Karta name. */
  watchedKartas(): string[] {
    return [...this.watched.keys()].sort();
  }

  /** Starts an informer per Ready Karta and stops those of Kartas that are gone or no longer Ready. */
  private async sync(ready: ReadonlyMap<string, ReadyKarta>): Promise<void> {
    if (this.stopped) return;
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
    const uid = root.metadata?.uid ?? "";
    const ns = root.metadata?.namespace;
    return this.pods.list(ns).filter((p) => (p.metadata?.ownerReferences ?? []).some((r) => r.uid === uid));
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

  /** Server-side applies every object; recreates one whose immutable fields changed. The names created. */
  private async apply(result: WorkloadCompilation): Promise<string[]> {
    const created: string[] = [];
    const all = [...(result.workload ? [result.workload] : []), ...result.compositePodGroups, ...result.podGroups] as unknown as Obj[];
    for (const o of all) {
      const existed = await this.exists(o);
      try {
        await this.objects.patch(o, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
      } catch (err) {
        const e = apiError(err);
        if (e?.code !== 422 || !existed) throw err;
        // An immutable field changed (a template's policy, a group's workloadRef): replace the object.
        this.log("info", "recreating: immutable field changed", { kind: o.kind, name: o.metadata?.name, namespace: o.metadata?.namespace, why: e.message });
        await this.objects.delete(o, undefined, undefined, undefined, undefined, "Background");
        await this.objects.patch(o, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply);
      }
      if (!existed) created.push(`${o.kind} ${o.metadata?.name}`);
    }
    return created;
  }

  private async exists(o: Obj): Promise<boolean> {
    try {
      await this.objects.read({ apiVersion: o.apiVersion!, kind: o.kind!, metadata: { name: o.metadata!.name!, namespace: o.metadata!.namespace! } });
      return true;
    } catch (err) {
      if (apiError(err)?.code === 404) return false;
      throw err;
    }
  }

  /** Deletes the groups (and Workload) this root owns that the compilation no longer has. */
  private async prune(root: Obj, result: WorkloadCompilation): Promise<void> {
    const uid = root.metadata?.uid ?? "";
    const ns = root.metadata?.namespace;
    const keep = new Set([...(result.workload ? [result.workload] : []), ...result.compositePodGroups, ...result.podGroups].map((o) => `${o.kind}/${o.metadata.name}`));
    for (const { apiVersion, kind } of GROUP_KINDS) {
      const list = await this.objects.list<Obj>(apiVersion, kind, ns);
      for (const o of list.items) {
        if (!ownedBy(o, uid) || keep.has(`${kind}/${o.metadata?.name}`)) continue;
        try {
          await this.objects.delete({ ...o, apiVersion, kind });
          this.log("info", "deleted a group that no longer exists", { kind, name: o.metadata?.name, namespace: ns });
        } catch (err) {
          if (apiError(err)?.code !== 404) throw err;
        }
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
