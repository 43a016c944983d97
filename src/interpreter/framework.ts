/**
 * The resource interpreter framework: a stack of layers in priority order, and one entry point per
 * operation that asks the highest layer implementing that operation for the object's apiVersion/kind
 * (Karmada's "one interpreter per operation").
 *
 * Order, highest first:
 *   1. declarative — the user's ResourceInterpreterCustomizations (Lua)
 *   2. webhook     — the user's ResourceInterpreterWebhookConfigurations
 *   3. karta       — answers derived from a Karta definition of the kind
 *   4. thirdparty  — customizations bundled with Karta (interpreter-customizations/)
 *   5. native      — Karmada's built-in interpreters for Kubernetes kinds
 *
 * Why Kartas sit there: a Karta describes one workload type for every consumer, so it is more
 * specific than a bundled community script (thirdparty) or the built-ins, but it is not the user's
 * last word for their control plane: a user who writes a Lua customization or deploys a webhook for
 * the same operation overrides it, as they override bundled interpreters in Karmada. A Karta may
 * also be undecided about health (its conditions say neither healthy nor unhealthy); the question
 * then falls through to the next layer that implements InterpretHealth.
 */
import {
  fail,
  kindOf,
  notFoundMessage,
  supportsSafely,
  type AggregatedStatusItem,
  type Component,
  type DependentObjectReference,
  type Interpreter,
  type InterpreterError,
  type JsonValue,
  type KubeObject,
  type MaybePromise,
  type Operation,
  type Outcome,
  type ReplicaRequirements,
  type ReplicaResult,
  type ResourceKind,
  type TargetComponent,
} from "./types.js";
import { toComponents, toDependencies, toReplicaRequirements } from "./typed.js";
import { KindTable } from "./kind-table.js";

/** Kinds and operations whose routes a framework keeps (see `route`). */
const ROUTES = 4096;

/** The layers, highest priority first. */
export const LAYER_ORDER = ["declarative", "webhook", "karta", "thirdparty", "native"] as const;

/** One layer's name. */
export type LayerName = (typeof LAYER_ORDER)[number];

/** What a Karta says about health when its definition decides neither way. */
export const UNDECIDED = "undecided" as const;

/**
 * The Karta-derived layer's contract: an Interpreter whose InterpretHealth may answer
 * {@link UNDECIDED}, which passes the question to the next layer. `KartaLayer` (karta/layer.ts)
 * implements it.
 */
export interface KartaLayerContract extends Omit<Interpreter, "interpretHealth"> {
  interpretHealth(object: KubeObject): MaybePromise<Outcome<boolean | typeof UNDECIDED>>;
}

/** The layers of a framework; any may be absent. */
export interface FrameworkLayers {
  declarative?: Interpreter;
  webhook?: Interpreter;
  karta?: KartaLayerContract;
  thirdparty?: Interpreter;
  native?: Interpreter;
}

/** Options of the framework. */
export interface FrameworkOptions {
  /**
   * Karmada's `MultiplePodTemplatesScheduling` feature gate (alpha, off by default): when on and some
   * layer implements InterpretComponent, {@link InterpreterFramework.interpretWorkload} reports
   * components instead of replicas.
   */
  multiplePodTemplatesScheduling?: boolean;
}

/** An error value naming the layer that answered (or `framework` when none could). */
export type LayerError = InterpreterError & { layer: LayerName | "framework" };

/** The outcome of one operation, with the layer that produced the value or the error. */
export type LayerOutcome<T> = { ok: true; value: T; layer: LayerName } | { ok: false; error: LayerError };

/** The InterpretComponent/InterpretReplica decision's result, as it fills a ResourceBinding's spec. */
export type WorkloadRequirements =
  | { mode: "components"; components: Component[] }
  | { mode: "replicas"; replicas: number; replicaRequirements?: ReplicaRequirements };

type AnyLayer = Interpreter | KartaLayerContract;

/** The layered interpreter. Methods never throw: a layer that throws becomes an error value. */
export class InterpreterFramework {
  private readonly stack: { name: LayerName; layer: AnyLayer }[];
  /** Which layers implement an operation for a kind: stack indexes. */
  private readonly routes = new KindTable<readonly number[]>(ROUTES);
  readonly options: Readonly<FrameworkOptions>;

  constructor(layers: FrameworkLayers, options: FrameworkOptions = {}) {
    this.stack = [];
    for (const name of LAYER_ORDER) {
      const layer = layers[name];
      if (layer) this.stack.push({ name, layer });
    }
    this.options = { ...options };
  }

  /** The layers present, highest first. */
  get layerNames(): LayerName[] {
    return this.stack.map((s) => s.name);
  }

  /**
   * The indexes in the stack of the layers implementing `op` for this kind, highest first. A layer is
   * asked `supports` once per kind and operation (its answer is kept: layers are fixed once made), so
   * that routing a request costs a lookup; the table is emptied past ROUTES kinds and operations, so
   * that the kinds requests name cannot grow it without bound.
   */
  private route(kind: ResourceKind, op: Operation): readonly number[] {
    const known = this.routes.get(kind.apiVersion, kind.kind, op);
    if (known !== undefined) return known;
    const route: number[] = [];
    for (let i = 0; i < this.stack.length; i++) if (supportsSafely(this.stack[i]!.layer, kind, op)) route.push(i);
    this.routes.set(kind.apiVersion, kind.kind, op, route);
    return route;
  }

  /** The layers implementing `op` for this kind, highest first. */
  layersFor(kind: ResourceKind, op: Operation): LayerName[] {
    return this.route(kind, op).map((i) => this.stack[i]!.name);
  }

  /** The layer that answers `op` for this kind, or undefined (Karmada's HookEnabled is `!== undefined`). */
  answering(kind: ResourceKind, op: Operation): LayerName | undefined {
    const first = this.route(kind, op)[0];
    return first === undefined ? undefined : this.stack[first]!.name;
  }

  /** Runs `op` on the first layer implementing it (from index `from`), as a layer outcome. */
  private async dispatch<T>(obj: KubeObject, op: Operation, run: (layer: AnyLayer) => MaybePromise<Outcome<T>>, from = 0): Promise<LayerOutcome<T> & { index?: number }> {
    const kind = kindOf(obj);
    for (const i of this.route(kind, op)) {
      if (i < from) continue;
      const { name, layer } = this.stack[i]!;
      let out: Outcome<T>;
      try {
        out = await run(layer);
      } catch (e) {
        return { ok: false, error: { operation: op, message: `${name} interpreter failed: ${e instanceof Error ? e.message : String(e)}`, layer: name } };
      }
      if (out?.ok === true) return { ok: true, value: out.value, layer: name, index: i };
      if (out?.ok === false && typeof out.error === "object" && out.error !== null) return { ok: false, error: { ...out.error, layer: name }, index: i };
      // A layer written in JavaScript may break its contract: its error, not a crash of the framework.
      return { ok: false, error: { operation: op, message: `${name} interpreter failed: it returned no outcome`, layer: name } };
    }
    return this.notFound(op, kind);
  }

  /** No layer implements the operation: Karmada's default interpreter's words. */
  private notFound<T>(op: Operation, kind: ResourceKind): LayerOutcome<T> {
    const f = fail<T>(op, notFoundMessage(op, kind), undefined, "framework");
    return { ok: false, error: (f as { ok: false; error: InterpreterError }).error as LayerError };
  }

  private static strip<T>(o: LayerOutcome<T> & { index?: number }): LayerOutcome<T> {
    if (!o.ok) return { ok: false, error: o.error };
    return { ok: true, value: o.value, layer: o.layer };
  }

  /**
   * A layer's answer as Karmada holds it in its Go type (typed.ts): what any layer answers reads as a
   * script's or a webhook's answer does, a quantity printed as resource.Quantity prints it. A value the
   * type cannot hold is the layer's error.
   */
  private static typed<T, U>(o: LayerOutcome<T>, op: Operation, convert: (v: T) => U): LayerOutcome<U> {
    if (!o.ok) return o;
    try {
      return { ok: true, value: convert(o.value), layer: o.layer };
    } catch (e) {
      return { ok: false, error: { operation: op, message: `${o.layer} interpreter answered a value Karmada cannot hold: ${(e as Error).message}`, layer: o.layer } };
    }
  }

  /** InterpretReplica: the desired replicas and each replica's requirements. */
  async interpretReplica(obj: KubeObject): Promise<LayerOutcome<ReplicaResult>> {
    const out = InterpreterFramework.strip(await this.dispatch(obj, "InterpretReplica", (l) => l.interpretReplica(obj)));
    return InterpreterFramework.typed(out, "InterpretReplica", (r): ReplicaResult => {
      if (r.replicaRequirements === undefined) return r;
      return { ...r, replicaRequirements: toReplicaRequirements(r.replicaRequirements as unknown as JsonValue) };
    });
  }

  /** InterpretComponent: the components of a multi-template workload (null: Go's nil slice). */
  async interpretComponents(obj: KubeObject): Promise<LayerOutcome<Component[] | null>> {
    const out = InterpreterFramework.strip(await this.dispatch(obj, "InterpretComponent", (l) => l.interpretComponent(obj)));
    return InterpreterFramework.typed(out, "InterpretComponent", (c) => (c === null ? null : toComponents(c as unknown as JsonValue)));
  }

  /** ReviseReplica: the object with its replicas set to `replicas`. */
  async reviseReplica(obj: KubeObject, replicas: number): Promise<LayerOutcome<KubeObject>> {
    return InterpreterFramework.strip(await this.dispatch(obj, "ReviseReplica", (l) => l.reviseReplica(obj, replicas)));
  }

  /** ReviseComponents: the object with each component's replicas set as assigned (Karmada #7830/#7841). */
  async reviseComponents(obj: KubeObject, components: TargetComponent[]): Promise<LayerOutcome<KubeObject>> {
    return InterpreterFramework.strip(await this.dispatch(obj, "ReviseComponents", (l) => l.reviseComponents(obj, components)));
  }

  /** Retain: the desired object with the fields member clusters own taken from the observed one. */
  async retain(desired: KubeObject, observed: KubeObject): Promise<LayerOutcome<KubeObject>> {
    return InterpreterFramework.strip(await this.dispatch(desired, "Retain", (l) => l.retain(desired, observed)));
  }

  /** AggregateStatus: the object with the member clusters' statuses aggregated (`items` undefined: Go's nil, none reported). */
  async aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[] | undefined): Promise<LayerOutcome<KubeObject>> {
    return InterpreterFramework.strip(await this.dispatch(obj, "AggregateStatus", (l) => l.aggregateStatus(obj, items)));
  }

  /** InterpretStatus: the status a member cluster reports (undefined when there is none). */
  async reflectStatus(obj: KubeObject): Promise<LayerOutcome<JsonValue | undefined>> {
    return InterpreterFramework.strip(await this.dispatch(obj, "InterpretStatus", (l) => l.interpretStatus(obj)));
  }

  /** InterpretHealth; a Karta's "undecided" passes the question to the next layer implementing it. */
  async interpretHealth(obj: KubeObject): Promise<LayerOutcome<boolean>> {
    let from = 0;
    // Bounded: each round starts past the layer that was undecided.
    while (from < this.stack.length) {
      const out = await this.dispatch<boolean | typeof UNDECIDED>(obj, "InterpretHealth", (l) => l.interpretHealth(obj), from);
      if (out.ok && out.value === UNDECIDED) {
        from = out.index! + 1;
        continue;
      }
      return InterpreterFramework.strip(out) as LayerOutcome<boolean>;
    }
    return this.notFound("InterpretHealth", kindOf(obj));
  }

  /** InterpretDependency: the objects to propagate with this one (null: Go's nil slice). */
  async getDependencies(obj: KubeObject): Promise<LayerOutcome<DependentObjectReference[] | null>> {
    const out = InterpreterFramework.strip(await this.dispatch(obj, "InterpretDependency", (l) => l.interpretDependency(obj)));
    return InterpreterFramework.typed(out, "InterpretDependency", (d) => (d === null ? null : toDependencies(d as unknown as JsonValue)));
  }

  /**
   * Karmada's choice between InterpretComponent and InterpretReplica: with the
   * MultiplePodTemplatesScheduling gate on and some layer implementing InterpretComponent, the
   * components (and the ResourceBinding's `spec.components`); otherwise InterpretReplica (its
   * `spec.replicas` and `spec.replicaRequirements`). Only one of the two runs.
   */
  async interpretWorkload(obj: KubeObject): Promise<LayerOutcome<WorkloadRequirements>> {
    if (this.options.multiplePodTemplatesScheduling && this.answering(kindOf(obj), "InterpretComponent") !== undefined) {
      const c = await this.interpretComponents(obj);
      return c.ok ? { ok: true, value: { mode: "components", components: c.value ?? [] }, layer: c.layer } : c;
    }
    const r = await this.interpretReplica(obj);
    if (!r.ok) return r;
    const value: WorkloadRequirements = { mode: "replicas", replicas: r.value.replicas };
    if (r.value.replicaRequirements !== undefined) value.replicaRequirements = r.value.replicaRequirements;
    return { ok: true, value, layer: r.layer };
  }
}

/** Creates a framework over these layers. */
export function createInterpreterFramework(layers: FrameworkLayers, options: FrameworkOptions = {}): InterpreterFramework {
  return new InterpreterFramework(layers, options);
}
