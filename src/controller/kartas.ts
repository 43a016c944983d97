/**
 * The Karta reconciler: watches `kartas.run.ai` and the CustomResourceDefinitions, and keeps each Karta's
 * `status.conditions` (Validated, CRDExists, Ready) and its `run.ai/karta-*` labels as
 * {@link desiredKartaState} says, with a Warning Event when a check starts failing (or fails otherwise).
 * A CRD that appears, changes or goes away requeues every Karta, so a Karta whose CRD is applied later
 * becomes Ready without a restart. Its Karta cache also answers the admission webhook's uniqueness check.
 */
import type { KubernetesObject } from "./kubernetes-object.js";
import { apiError, discover, isTransient, pathSegment, type KubeClient } from "./client.js";
import { Informer } from "./informer.js";
import { desiredKartaState, rootKindOf, sameConditions, type Condition, type CrdCheck, type RootKind } from "./karta-status.js";
import { managedLabels, rootGroupVersionKind } from "../definition/index.js";
import { EventRecorder, EventSink, EVENTS_AT_SHUTDOWN_MS } from "./events.js";
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

/** Whether the cluster serves a root kind, and where its objects are listed once they can be. */
export interface RootAvailability {
  /** Built in, or a CRD of that group and kind serves the version (upstream's CRDExists). */
  served: boolean;
  /** The resource to watch, once the kind can be listed (a CRD also Established). */
  resource?: { name: string; namespaced: boolean };
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

/**
 * A CRD as the cache keeps it: what availability() reads (group, names, scope, versions served, the
 * conditions), not its schemas, which are most of a CRD's bytes (hundreds of KB for some).
 */
function leanCrd(c: CrdObject): CrdObject {
  const spec = c.spec ?? {};
  return {
    apiVersion: c.apiVersion,
    kind: c.kind,
    metadata: { name: c.metadata?.name, uid: c.metadata?.uid, resourceVersion: c.metadata?.resourceVersion, generation: c.metadata?.generation },
    spec: {
      ...(spec.group !== undefined ? { group: spec.group } : {}),
      ...(spec.names ? { names: { kind: spec.names.kind, plural: spec.names.plural } } : {}),
      ...(spec.scope !== undefined ? { scope: spec.scope } : {}),
      ...(spec.versions ? { versions: spec.versions.map((v) => ({ name: v.name, served: v.served })) } : {}),
    },
    status: { conditions: (c.status?.conditions ?? []).map((x) => ({ type: x.type, status: x.status })) },
  } as CrdObject;
}

/** Drops metadata.managedFields (nothing here reads them; one entry per writer, listing its fields). */
export function withoutManagedFields<T extends KubernetesObject>(o: T): T {
  if (o.metadata && "managedFields" in o.metadata) delete o.metadata.managedFields;
  return o;
}

const KARTAS_PATH = `/apis/${KARTA_GROUP}/${KARTA_VERSION}/${KARTA_PLURAL}`;

export class KartaReconciler {
  private readonly kartas: Informer<KartaObject>;
  private readonly crds: Informer<CrdObject>;
  readonly queue: WorkQueue;
  private stopped = false;
  private readonly ready = new Map<string, ReadyKarta>();
  /** Whether each Karta validates, as last reconciled (karta_exporter_kartas). */
  private readonly validity = new Map<string, boolean>();
  private readonly listeners: ((ready: ReadonlyMap<string, ReadyKarta>) => void)[] = [];
  private readonly events: EventRecorder;
  private readonly sink: EventSink;

  /** Writes labels and status only while leading; the Ready set is computed either way (followers' webhooks use it). */
  private leading: boolean;

  constructor(
    private readonly client: KubeClient,
    private readonly log: Logger,
    options: { leading?: boolean } = {},
  ) {
    this.leading = options.leading ?? true;
    this.sink = new EventSink(client, log);
    this.events = new EventRecorder(this.sink);
    this.kartas = new Informer<KartaObject>(client, {
      path: KARTAS_PATH,
      what: "kartas.run.ai",
      log,
      transform: withoutManagedFields,
      notFound: "the Karta CRD (kartas.run.ai) is not installed: kubectl apply -f deploy/crd/run.ai_kartas.yaml (or install the Helm chart)",
    });
    this.crds = new Informer<CrdObject>(client, { path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", what: "customresourcedefinitions", log, transform: leanCrd });
    this.queue = new WorkQueue(
      (name) => this.reconcile(name),
      // The API server unreachable, restarting or pacing us is not an error of the Karta's (retried with backoff).
      (name, err, attempt) => log(isTransient(err) ? "info" : "error", "reconcile failed", { karta: name, attempt, err: String((err as Error)?.message ?? err) }),
    );
    for (const verb of ["add", "update", "delete"] as const) {
      this.kartas.on(verb, (k) => this.queue.add(k.metadata?.name ?? ""));
      this.crds.on(verb, () => this.requeueAll());
    }
  }

  /** Called with the Ready Kartas whenever that set (or one of them) changes. */
  onReadyChange(listener: (ready: ReadonlyMap<string, ReadyKarta>) => void): void {
    this.listeners.push(listener);
  }

  readyKartas(): ReadonlyMap<string, ReadyKarta> {
    return this.ready;
  }

  /** Every Karta in the cache (the admission webhook's view of the cluster). */
  cachedKartas(): readonly KartaObject[] {
    return this.kartas.list();
  }

  /** Each Karta reconciled so far, by name: whether it validates. */
  kartaValidity(): ReadonlyMap<string, boolean> {
    return this.validity;
  }

  /** Lists the CRDs and the Kartas, then evaluates every Karta once, so the Ready set is known when it resolves. */
  async start(): Promise<void> {
    await this.crds.start();
    await this.kartas.start();
    await this.queue.idle();
  }

  /** Why a cache has not synced yet, if a request failed. */
  lastSyncError(): string | undefined {
    return [this.crds, this.kartas].find((i) => !i.hasSynced())?.lastError;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue.shutDown();
    await this.sink.close(EVENTS_AT_SHUTDOWN_MS);
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

  /**
   * Whether the cluster serves the root kind: a CRD of its group and kind serving the version, else
   * discovery (built-in kinds). The objects are watched only once the CRD is also Established.
   */
  async availability(root: RootKind): Promise<RootAvailability> {
    const crd = this.crds.list().find((c) => c.spec?.group === root.group && c.spec?.names?.kind === root.kind && c.spec.versions?.some((v) => v.name === root.version && v.served === true));
    if (crd) {
      const established = crd.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") === true;
      return { served: true, ...(established ? { resource: { name: crd.spec?.names?.plural ?? "", namespaced: crd.spec?.scope !== "Cluster" } } : {}) };
    }
    // A kind of a CRD's group that no CRD serves is not served: discovery would only repeat the CRDs.
    if (this.crds.list().some((c) => c.spec?.group === root.group && c.spec?.names?.kind === root.kind)) return { served: false };
    const resource = (await discover(this.client, root.group, root.version))?.find((r) => r.kind === root.kind);
    return resource ? { served: true, resource: { name: resource.name, namespaced: resource.namespaced } } : { served: false };
  }

  /**
   * Brings one Karta's labels and status to the desired state, in upstream's order: validate, check the
   * root kind, stamp the labels, derive Ready; the status is written even when a step failed, and the
   * failure is thrown afterwards (the queue retries with backoff).
   */
  async reconcile(name: string): Promise<void> {
    const karta = this.kartas.get(name);
    if (!karta || karta.metadata?.deletionTimestamp) {
      this.validity.delete(name);
      if (this.ready.delete(name)) this.notify();
      return;
    }
    let failure: unknown;
    let crd: CrdCheck | undefined;
    let found: RootAvailability | undefined;
    const gvk = rootGroupVersionKind(karta);
    if (gvk) {
      const root = rootKindOf(karta);
      try {
        found = root ? await this.availability(root) : { served: false };
        crd = { served: found.served };
      } catch (err) {
        failure = err;
        crd = { error: String((err as Error)?.message ?? err) };
      }
    }
    let labelsFailed = false;
    const wanted = managedLabels(karta) ?? {};
    const labels = karta.metadata?.labels ?? {};
    const missing = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => labels[k] !== v));
    if (this.leading && failure === undefined && Object.keys(missing).length > 0) {
      try {
        await this.client.mergePatch(`${KARTAS_PATH}/${pathSegment("name", name)}`, { metadata: { labels: missing } }, { query: { fieldManager: "karta" } });
      } catch (err) {
        if (apiError(err)?.code === 404) return; // deleted meanwhile
        labelsFailed = true;
        failure = err;
      }
    }
    const state = desiredKartaState(karta, { ...(crd ? { crd } : {}), labelsFailed });
    this.validity.set(name, state.valid);
    if (this.leading && !sameConditions(karta.status?.conditions, state.conditions)) {
      try {
        await this.client.mergePatch(`${KARTAS_PATH}/${pathSegment("name", name)}/status`, { status: { conditions: state.conditions } }, { query: { fieldManager: "karta" } });
      } catch (err) {
        if (apiError(err)?.code === 404) return; // deleted meanwhile
        throw failure ?? err;
      }
      this.log("info", "karta status updated", { karta: name, ready: state.ready, validated: state.valid, crd: found?.served ?? false });
      // Recorded in the background, as client-go's recorder does: an Event never delays nor fails a reconcile.
      for (const e of state.events) this.events.warning({ ...karta, apiVersion: `${KARTA_GROUP}/${KARTA_VERSION}`, kind: "Karta" }, e.reason, e.action, e.note);
    }
    const wasReady = this.ready.get(name);
    if (state.ready && state.root && found?.resource) {
      const next: ReadyKarta = { name, karta, root: state.root, resource: found.resource };
      this.ready.set(name, next);
      if (!wasReady || wasReady.karta.metadata?.generation !== karta.metadata?.generation || JSON.stringify(wasReady.root) !== JSON.stringify(state.root)) this.notify();
    } else if (wasReady && failure === undefined) {
      this.ready.delete(name);
      this.notify();
    }
    if (failure !== undefined) throw failure;
  }

  private notify(): void {
    for (const l of this.listeners) l(this.ready);
  }
}
