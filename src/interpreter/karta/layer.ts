/**
 * The Karta-derived interpreter layer: Kartas indexed by their root kind (apiVersion + kind), each
 * answering the operations its definition can answer (see workload.ts). It fills the framework's
 * `karta` slot (declarative > webhook > karta > thirdparty > native), so a user's Lua customization or
 * webhook for the same operation overrides it, and an undecided health falls through to the layers
 * below. A definition may defer to another interpreter (see {@link KartaSource}): `karta interpret`
 * makes the bundled Kartas of Kubernetes' own kinds defer to Karmada's built-in interpreters.
 */
import type { Definition, Diagnostic, Karta } from "../../definition/index.js";
import type { KartaLayerContract, UNDECIDED } from "../framework.js";
import {
  fail,
  kindOf,
  supportsSafely,
  type AggregatedStatusItem,
  type Component,
  type DependentObjectReference,
  type JsonValue,
  type KubeObject,
  type Operation,
  type Outcome,
  type ReplicaResult,
  type ResourceKind,
  type TargetComponent,
} from "../types.js";
import { KARTA_LAYER, KartaWorkload, type KartaWorkloadOptions } from "./workload.js";
import { KindTable } from "../kind-table.js";

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

/** Something that says which operations it implements for a kind (an interpreter layer). */
export interface OperationSupport {
  supports(kind: ResourceKind, op: Operation): boolean;
}

/**
 * A definition for the layer, optionally deferring to another interpreter: the definition then does
 * not answer the operations that interpreter implements for its kind (used for the bundled Kartas of
 * Kubernetes' own kinds, where Karmada's built-in interpreters are the reference).
 */
export type KartaSource = Karta | Definition | { definition: Karta | Definition; deferTo?: OperationSupport };

/**
 * A file of definitions for one kind, read and compiled when the layer is first asked about that kind
 * (the bundled Kartas: a process answering for one kind reads one file). Its problems join the layer's
 * issues then; a definition in it for another kind is reported and left out.
 */
export interface LazyKartaSource {
  kind: ResourceKind;
  file: string;
  load(): { definitions: Definition[]; diagnostics: Diagnostic[] };
  deferTo?: OperationSupport;
}

function key(kind: ResourceKind): string {
  return `${kind.apiVersion}\u0000${kind.kind}`;
}

function isWrapped(s: KartaSource): s is { definition: Karta | Definition; deferTo?: OperationSupport } {
  return typeof s === "object" && s !== null && "definition" in s && !("spec" in s) && !("karta" in s);
}

/**
 * The layer. Definitions are given highest priority first: the first definition of a kind serves
 * it, later ones for the same kind are reported as issues and left out (so that user definitions
 * given before the bundled ones replace them). A definition whose expressions do not compile is
 * reported and left out.
 */
export class KartaLayer implements KartaLayerContract {
  private readonly byKind = new Map<string, { workload: KartaWorkload; deferTo?: OperationSupport }>();
  /** The entries of byKind found so far, by apiVersion and kind: asked twice per request, without building a key. */
  private readonly found = new KindTable<{ workload: KartaWorkload; deferTo?: OperationSupport }>(Infinity);
  /** Files not read yet, by the kind they are for. */
  private readonly lazy = new Map<string, LazyKartaSource>();
  /** Definitions left out, and why (a lazy file's problems are added when it is read). */
  readonly issues: KartaLayerIssue[] = [];

  constructor(
    definitions: readonly KartaSource[],
    private readonly options: KartaLayerOptions = {},
    lazy: readonly LazyKartaSource[] = [],
  ) {
    for (const source of definitions) {
      const wrapped = isWrapped(source) ? source : undefined;
      this.add(wrapped ? wrapped.definition : (source as Karta | Definition), wrapped?.deferTo);
    }
    for (const l of lazy) {
      const k = key(l.kind);
      if (!this.byKind.has(k) && !this.lazy.has(k)) this.lazy.set(k, l);
    }
  }

  /** Compiles a definition and serves its kind, or notes why not. */
  private add(definition: Karta | Definition, deferTo: OperationSupport | undefined, expected?: ResourceKind): void {
    const w = new KartaWorkload(definition, this.options);
    const errors = w.diagnostics.filter((x: Diagnostic) => x.severity === "error");
    if (errors.length > 0) {
      for (const e of errors) this.issues.push({ source: w.source, message: e.message, path: e.path });
      return;
    }
    if (w.kind.kind === "" || w.kind.apiVersion === "") {
      this.issues.push({ source: w.source, message: "the root component has no kind", path: "spec.structureDefinition.rootComponent.kind" });
      return;
    }
    if (expected !== undefined && key(expected) !== key(w.kind)) {
      this.issues.push({ source: w.source, message: `the file is for ${expected.kind} ${expected.apiVersion}, but this definition's root kind is ${w.kind.kind} ${w.kind.apiVersion}; it is not used` });
      return;
    }
    const k = key(w.kind);
    const existing = this.byKind.get(k);
    if (existing) {
      const by = existing.workload.source;
      this.issues.push({ source: w.source, message: `${w.kind.kind} ${w.kind.apiVersion} is already interpreted by ${by}; this definition is not used`, replacedBy: by });
      return;
    }
    this.byKind.set(k, deferTo ? { workload: w, deferTo } : { workload: w });
  }

  /** The entry serving a kind, reading its file first when it has not been read. */
  private entry(kind: ResourceKind): { workload: KartaWorkload; deferTo?: OperationSupport } | undefined {
    const hit = this.found.get(kind.apiVersion, kind.kind, "");
    if (hit !== undefined) return hit;
    const k = key(kind);
    const known = this.byKind.get(k);
    if (known !== undefined) {
      // Entries are fixed once added: kept, it is the same entry.
      this.found.set(kind.apiVersion, kind.kind, "", known);
      return known;
    }
    const l = this.lazy.get(k);
    if (l === undefined) return undefined;
    this.lazy.delete(k);
    const loaded = l.load();
    for (const d of loaded.diagnostics) this.issues.push({ source: l.file, message: d.message, path: d.path });
    for (const d of loaded.definitions) this.add(d, l.deferTo, l.kind);
    return this.byKind.get(k);
  }

  /** Reads every file not read yet (what a check of all definitions needs); returns the layer's issues. */
  loadAll(): KartaLayerIssue[] {
    for (const l of [...this.lazy.values()]) this.entry(l.kind);
    return this.issues;
  }

  /** The kinds the layer has a definition for, in the order given (files not read yet by the kind they are for). */
  get kinds(): ResourceKind[] {
    return [...[...this.byKind.values()].map((e) => e.workload.kind), ...[...this.lazy.values()].map((l) => ({ ...l.kind }))];
  }

  /** The definition serving a kind, if any. */
  workloadFor(kind: ResourceKind): KartaWorkload | undefined {
    return this.entry(kind)?.workload;
  }

  supports(kind: ResourceKind, op: Operation): boolean {
    const e = this.entry(kind);
    if (!e || !e.workload.supports(op)) return false;
    // What the Karta's `spec.karmada` extension declares is written for Karmada: it is not deferred.
    if (e.workload.karmada.supports(op)) return true;
    return !(e.deferTo && supportsSafely(e.deferTo, kind, op));
  }

  /** The definition for the object, or the error an unsupported call gets. */
  private serving<T>(obj: KubeObject, op: Operation, run: (w: KartaWorkload) => Outcome<T>): Outcome<T> {
    const kind = kindOf(obj);
    const w = this.workloadFor(kind);
    if (!w || !this.supports(kind, op)) return this.unsupported(obj, op);
    return run(w);
  }

  private unsupported<T>(obj: KubeObject, op: Operation): Outcome<T> {
    const kind = kindOf(obj);
    return fail(op, `no Karta interprets ${op} for ${kind.kind} ${kind.apiVersion}`, undefined, KARTA_LAYER);
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

  reviseComponents(object: KubeObject, components: TargetComponent[]): Outcome<KubeObject> {
    return this.serving(object, "ReviseComponents", (w) => w.reviseComponents(object, components));
  }

  // Retain, AggregateStatus and InterpretStatus come from the Karta's `spec.karmada` extension only.
  retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
    return this.serving(desired, "Retain", (w) => w.karmada.retain(desired, observed));
  }

  aggregateStatus(object: KubeObject, items: AggregatedStatusItem[] | undefined): Outcome<KubeObject> {
    return this.serving(object, "AggregateStatus", (w) => w.karmada.aggregateStatus(object, items));
  }

  interpretStatus(object: KubeObject): Outcome<JsonValue | undefined> {
    return this.serving(object, "InterpretStatus", (w) => w.karmada.interpretStatus(object));
  }

  interpretHealth(object: KubeObject): Outcome<boolean | typeof UNDECIDED> {
    return this.serving(object, "InterpretHealth", (w) => w.interpretHealth(object));
  }

  interpretDependency(object: KubeObject): Outcome<DependentObjectReference[]> {
    return this.serving(object, "InterpretDependency", (w) => w.interpretDependency(object));
  }
}
