/**
 * The Karta-derived interpreter layer: Kartas indexed by their root kind (apiVersion + kind), each
 * answering the operations its definition can answer (see workload.ts). It fills the framework's
 * `karta` slot (declarative > webhook > karta > thirdparty > native), so a user's Lua customization or
 * webhook for the same operation overrides it, and an undecided health falls through to the layers
 * below.
 */
import type { Definition, Diagnostic, Karta } from "../../definition/index.js";
import type { KartaInterpreter, UNDECIDED } from "../framework.js";
import {
  fail,
  type AggregatedStatusItem,
  type Component,
  type DependentObjectReference,
  type JsonValue,
  type KubeObject,
  type Operation,
  type Outcome,
  type ReplicaResult,
  type ResourceKind,
} from "../types.js";
import { KARTA_LAYER, KartaWorkload, type KartaWorkloadOptions } from "./workload.js";

/** A problem with one of the layer's definitions: it has errors, or another definition has its kind. */
export interface KartaLayerIssue {
  /** The definition's source (file or Karta name). */
  source: string;
  message: string;
  /** The Karta field path, when the problem is in a field. */
  path?: string;
  /** The source of the definition that serves the kind instead, when another one does. */
  replacedBy?: string;
}

/** Options of the layer. */
export type KartaLayerOptions = KartaWorkloadOptions;

function key(kind: ResourceKind): string {
  return `${kind.apiVersion}\u0000${kind.kind}`;
}

function kindOf(obj: KubeObject): ResourceKind {
  return { apiVersion: typeof obj.apiVersion === "string" ? obj.apiVersion : "", kind: typeof obj.kind === "string" ? obj.kind : "" };
}

/**
 * The layer. Definitions are given highest priority first: the first definition of a kind serves
 * it, later ones for the same kind are reported as issues and left out (so that user definitions
 * given before the bundled ones replace them). A definition whose expressions do not compile is
 * reported and left out.
 */
export class KartaLayer implements KartaInterpreter {
  private readonly byKind = new Map<string, KartaWorkload>();
  /** Definitions left out, and why. */
  readonly issues: KartaLayerIssue[] = [];

  constructor(definitions: readonly (Karta | Definition)[], options: KartaLayerOptions = {}) {
    for (const d of definitions) {
      const w = new KartaWorkload(d, options);
      const errors = w.diagnostics.filter((x: Diagnostic) => x.severity === "error");
      if (errors.length > 0) {
        for (const e of errors) this.issues.push({ source: w.source, message: e.message, path: e.path });
        continue;
      }
      if (w.kind.kind === "" || w.kind.apiVersion === "") {
        this.issues.push({ source: w.source, message: "the root component has no kind", path: "spec.structureDefinition.rootComponent.kind" });
        continue;
      }
      const k = key(w.kind);
      const existing = this.byKind.get(k);
      if (existing) {
        this.issues.push({ source: w.source, message: `${w.kind.kind} ${w.kind.apiVersion} is already interpreted by ${existing.source}; this definition is not used`, replacedBy: existing.source });
        continue;
      }
      this.byKind.set(k, w);
    }
  }

  /** The kinds the layer has a definition for, in the order given. */
  get kinds(): ResourceKind[] {
    return [...this.byKind.values()].map((w) => w.kind);
  }

  /** The definition serving a kind, if any. */
  workloadFor(kind: ResourceKind): KartaWorkload | undefined {
    return this.byKind.get(key(kind));
  }

  supports(kind: ResourceKind, op: Operation): boolean {
    return this.workloadFor(kind)?.supports(op) ?? false;
  }

  /** The definition for the object, or the error an unsupported call gets. */
  private serving<T>(obj: KubeObject, op: Operation, run: (w: KartaWorkload) => Outcome<T>): Outcome<T> {
    const kind = kindOf(obj);
    const w = this.workloadFor(kind);
    if (!w || !w.supports(op)) return fail(op, `no Karta interprets ${op} for ${kind.kind} ${kind.apiVersion}`, undefined, KARTA_LAYER);
    return run(w);
  }

  interpretReplica(object: KubeObject): Outcome<ReplicaResult> {
    return this.serving(object, "InterpretReplica", (w) => w.interpretReplica(object));
  }

  interpretComponent(object: KubeObject): Outcome<Component[]> {
    return this.serving(object, "InterpretComponent", (w) => w.interpretComponent(object));
  }

  reviseReplica(object: KubeObject, replicas: number): Outcome<KubeObject> {
    return this.serving(object, "ReviseReplica", (w) => w.reviseReplica(object, replicas));
  }

  retain(desired: KubeObject, _observed: KubeObject): Outcome<KubeObject> {
    void _observed;
    return this.serving(desired, "Retain", () => fail("Retain", "not supported", undefined, KARTA_LAYER));
  }

  aggregateStatus(object: KubeObject, _items: AggregatedStatusItem[]): Outcome<KubeObject> {
    void _items;
    return this.serving(object, "AggregateStatus", () => fail("AggregateStatus", "not supported", undefined, KARTA_LAYER));
  }

  interpretStatus(object: KubeObject): Outcome<JsonValue | undefined> {
    return this.serving(object, "InterpretStatus", () => fail("InterpretStatus", "not supported", undefined, KARTA_LAYER));
  }

  interpretHealth(object: KubeObject): Outcome<boolean | typeof UNDECIDED> {
    return this.serving(object, "InterpretHealth", (w) => w.interpretHealth(object));
  }

  interpretDependency(object: KubeObject): Outcome<DependentObjectReference[]> {
    return this.serving(object, "InterpretDependency", (w) => w.interpretDependency(object));
  }
}
