/**
 * The Karta reconciler: watches `kartas.run.ai` and the CustomResourceDefinitions, and keeps each Karta's
 * `status.conditions` (KartaValidated, CRDExists, Ready) and its `run.ai/karta-*` labels as
 * {@link desiredKartaState} says. A CRD that appears, changes or goes away requeues every Karta, so a
 * Karta whose CRD is applied later becomes Ready without a restart.
 */
import { ApiextensionsV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, makeInformer, setHeaderOptions, type Informer, type KubernetesObject, type ObjectCache } from "@kubernetes/client-node";
import { apiError, discover } from "./kube.js";
import { desiredKartaState, rootKindOf, sameConditions, type Condition, type KindAvailability, type RootKind } from "./karta-status.js";
import type { Logger } from "./log.js";
import { WorkQueue } from "./queue.js";

export const KARTA_GROUP = "run.ai";
export const KARTA_VERSION = "v1alpha1";
export const KARTA_PLURAL = "kartas";

/** A Karta as the API returns it (plain JSON). */
export interface KartaObject extends KubernetesObject {
  spec?: unknown;
  status?: { conditions?: Condition[] };
}

interface CrdObject extends KubernetesObject {
  spec?: { group?: string; names?: { kind?: string; plural?: string }; scope?: string; versions?: { name?: string; served?: boolean }[] };
  status?: { conditions?: { type?: string; status?: string }[] };
}

/** A Ready Karta and where its root kind is served. */
export interface ReadyKarta {
  name: string;
  karta: KartaObject;
  root: RootKind;
  /** The resource (plural) of the root kind and whether it is namespaced. */
  resource: { name: string; namespaced: boolean };
}

/** Keeps an informer running: client-node's stop on a watch error, so restart them after a pause. */
export function keepRunning<T extends KubernetesObject>(informer: Informer<T>, log: Logger, what: string, isStopped: () => boolean): void {
  informer.on("error", (err: unknown) => {
    if (isStopped()) return;
    log("error", "watch failed; restarting", { watch: what, err: String((err as Error)?.message ?? err) });
    setTimeout(() => {
      if (!isStopped()) informer.start().catch(() => {});
    }, 1000).unref();
  });
}

export class KartaReconciler {
  private readonly custom: CustomObjectsApi;
  private readonly kartas: Informer<KartaObject> & ObjectCache<KartaObject>;
  private readonly crds: Informer<CrdObject> & ObjectCache<CrdObject>;
  readonly queue: WorkQueue;
  private stopped = false;
  private readonly ready = new Map<string, ReadyKarta>();
  /** Whether each Karta validates, as last reconciled (karta_exporter_kartas). */
  private readonly validity = new Map<string, boolean>();
  private readonly listeners: ((ready: ReadonlyMap<string, ReadyKarta>) => void)[] = [];

  /** Writes labels and status only while leading; the Ready set is computed either way (followers' webhooks use it). */
  private leading: boolean;

  constructor(
    private readonly kc: KubeConfig,
    private readonly log: Logger,
    options: { leading?: boolean } = {},
  ) {
    this.leading = options.leading ?? true;
    this.custom = kc.makeApiClient(CustomObjectsApi);
    const apiext = kc.makeApiClient(ApiextensionsV1Api);
    this.kartas = makeInformer<KartaObject>(kc, `/apis/${KARTA_GROUP}/${KARTA_VERSION}/${KARTA_PLURAL}`, () =>
      this.custom.listClusterCustomObject({ group: KARTA_GROUP, version: KARTA_VERSION, plural: KARTA_PLURAL }),
    );
    this.crds = makeInformer<CrdObject>(kc, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", () => apiext.listCustomResourceDefinition() as never);
    this.queue = new WorkQueue(
      (name) => this.reconcile(name),
      (name, err, attempt) => log("error", "reconcile failed", { karta: name, attempt, err: String((err as Error)?.message ?? err) }),
    );
    for (const verb of ["add", "update", "delete"] as const) {
      this.kartas.on(verb, (k) => this.queue.add(k.metadata?.name ?? ""));
      this.crds.on(verb, () => this.requeueAll());
    }
    keepRunning(this.kartas, log, "kartas", () => this.stopped);
    keepRunning(this.crds, log, "customresourcedefinitions", () => this.stopped);
  }

  /** Called with the Ready Kartas whenever that set (or one of them) changes. */
  onReadyChange(listener: (ready: ReadonlyMap<string, ReadyKarta>) => void): void {
    this.listeners.push(listener);
  }

  readyKartas(): ReadonlyMap<string, ReadyKarta> {
    return this.ready;
  }

  /** Each Karta reconciled so far, by name: whether it validates. */
  kartaValidity(): ReadonlyMap<string, boolean> {
    return this.validity;
  }

  async start(): Promise<void> {
    await this.crds.start();
    await this.kartas.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue.shutDown();
    await Promise.allSettled([this.kartas.stop(), this.crds.stop()]);
  }

  /** Starts writing (this replica took the Lease): every Karta is reconciled again. */
  setLeading(leading: boolean): void {
    const was = this.leading;
    this.leading = leading;
    if (leading && !was) this.requeueAll();
  }

  private requeueAll(): void {
    for (const k of this.kartas.list()) this.queue.add(k.metadata?.name ?? "");
  }

  /** Whether the cluster serves the root kind: from the CRDs of its group, else from discovery (built-in kinds). */
  async availability(root: RootKind): Promise<{ availability: KindAvailability; resource?: { name: string; namespaced: boolean } }> {
    const gv = `${root.group ? `${root.group}/` : ""}${root.version}`;
    const inGroup = this.crds.list().filter((c) => c.spec?.group === root.group);
    if (inGroup.length > 0) {
      const crd = inGroup.find((c) => c.spec?.names?.kind === root.kind);
      if (!crd) return { availability: { served: false, reason: "CRDNotFound", message: `no CustomResourceDefinition defines ${root.kind} in group ${root.group}` } };
      const name = crd.metadata?.name ?? "";
      if (!crd.spec?.versions?.some((v) => v.name === root.version && v.served === true)) {
        return { availability: { served: false, reason: "VersionNotServed", message: `CRD ${name} does not serve version ${root.version}` } };
      }
      if (!crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True")) {
        return { availability: { served: false, reason: "CRDNotEstablished", message: `CRD ${name} is not Established yet` } };
      }
      return { availability: { served: true }, resource: { name: crd.spec.names?.plural ?? "", namespaced: crd.spec.scope !== "Cluster" } };
    }
    const served = await discover(this.kc, root.group, root.version);
    const resource = served?.find((r) => r.kind === root.kind);
    if (!resource) {
      return {
        availability: {
          served: false,
          reason: "CRDNotFound",
          message: served === undefined ? `the API server does not serve ${gv} (no CustomResourceDefinition in group ${root.group || "core"})` : `${gv} has no kind ${root.kind}`,
        },
      };
    }
    return { availability: { served: true }, resource: { name: resource.name, namespaced: resource.namespaced } };
  }

  /** Brings one Karta's labels and status to the desired state. */
  async reconcile(name: string): Promise<void> {
    const karta = this.kartas.get(name);
    if (!karta) {
      this.validity.delete(name);
      if (this.ready.delete(name)) this.notify();
      return;
    }
    const root = rootKindOf(karta);
    const found = root ? await this.availability(root) : undefined;
    const state = desiredKartaState(karta, found?.availability);
    this.validity.set(name, state.valid);
    const labels = karta.metadata?.labels ?? {};
    if (this.leading && Object.entries(state.labels).some(([k, v]) => labels[k] !== v)) {
      const patch = { metadata: { labels: Object.fromEntries(Object.entries(state.labels).filter(([k, v]) => labels[k] !== v)) } };
      await this.custom.patchClusterCustomObject(
        { group: KARTA_GROUP, version: KARTA_VERSION, plural: KARTA_PLURAL, name, body: patch, fieldManager: "karta" },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );
    }
    if (this.leading && !sameConditions(karta.status?.conditions, state.conditions)) {
      try {
        await this.custom.patchClusterCustomObjectStatus(
          { group: KARTA_GROUP, version: KARTA_VERSION, plural: KARTA_PLURAL, name, body: { status: { conditions: state.conditions } }, fieldManager: "karta" },
          setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
        );
      } catch (err) {
        if (apiError(err)?.code === 404) return; // deleted meanwhile
        throw err;
      }
      this.log("info", "karta status updated", { karta: name, ready: state.ready, validated: state.valid, crd: found?.availability.served ?? false });
    }
    const wasReady = this.ready.get(name);
    if (state.ready && root && found?.resource) {
      const next: ReadyKarta = { name, karta, root, resource: found.resource };
      this.ready.set(name, next);
      if (!wasReady || wasReady.karta.metadata?.generation !== karta.metadata?.generation || JSON.stringify(wasReady.root) !== JSON.stringify(root)) this.notify();
    } else if (wasReady) {
      this.ready.delete(name);
      this.notify();
    }
  }

  private notify(): void {
    for (const l of this.listeners) l(this.ready);
  }
}
