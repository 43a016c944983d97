/**
 * The Karta extension `spec.karmada`: the resource interpreter operations a workload model does not
 * cover (status reflection and aggregation across member clusters, retained fields, health that is
 * not a status mapping, dependencies that are not in pod specifications, replicas of one component of
 * a multi-template workload). Declarative parts come first (status fields copied or summed, the
 * member generation rule, retained paths); a jq expression says the rest, in the same jq as every
 * other Karta field and under the same safe profile.
 */
import type { KarmadaInterpretation, PathSegment } from "../../definition/index.js";
import { CompiledExpression } from "../../interpret/expression.js";
import { locations, type JsonLocation } from "../../interpret/patch.js";
import { resourceAdd } from "../../resources/index.js";
import { fail, ok, type AggregatedStatusItem, type DependentObjectReference, type JsonValue, type KubeObject, type Operation, type Outcome } from "../types.js";
import { repairEmptyTables } from "../lua/repair.js";

/** The layer name in error values. */
const LAYER = "karta";

/** Karmada's annotation carrying the resource template's generation on a member's object. */
export const TEMPLATE_GENERATION_ANNOTATION = "resourcetemplate.karmada.io/generation";

/**
 * The resource template generation a member's object carries in Karmada's annotation, when it is a
 * number (an annotation is text; a number that slipped through is accepted as Karmada's scripts do).
 */
export function templateGeneration(metadata: unknown): number | undefined {
  const annotations = isObject(metadata) && isObject(metadata.annotations) ? metadata.annotations : {};
  const g = annotations[TEMPLATE_GENERATION_ANNOTATION];
  if (typeof g === "number" && Number.isFinite(g)) return g;
  if (typeof g === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(g)) return Number(g.trim());
  return undefined;
}

/**
 * Empty maps and lists left out, at every level, as Karmada's interpreters hand back their results (an
 * empty table is dropped when a script's result becomes JSON): an empty artifact is no artifact.
 * Top-down: a map that only held empty values stays, as `{}`.
 */
export function dropEmpty<T>(v: T): T {
  if (Array.isArray(v)) return v.map(dropEmpty) as T;
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if ((Array.isArray(x) && x.length === 0) || (isObject(x) && Object.keys(x).length === 0)) continue;
    out[k] = dropEmpty(x);
  }
  return out as T;
}

/**
 * An object answer (Retain, AggregateStatus) as Karmada holds the answer of a customization's script:
 * an empty list is kept only where a reference object (Retain: the desired and observed objects;
 * AggregateStatus: none) has one at that path, else dropped (repairEmptyTables), so that a Karta answers
 * what Karmada's interpreter for its kind would. An empty map stays: jq, unlike Lua, tells it apart.
 */
function scriptAnswer(result: KubeObject, references: KubeObject[]): KubeObject {
  return repairEmptyTables(result, references, true) as KubeObject;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** The value at a dotted path (`replicaStatuses.Worker`), or undefined. */
function getDotted(obj: unknown, dotted: string): unknown {
  let cur: unknown = obj;
  for (const k of dotted.split(".")) {
    if (!isObject(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

function setDotted(obj: Record<string, unknown>, dotted: string, value: unknown): void {
  const keys = dotted.split(".");
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    if (!isObject(cur[k])) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]!] = value;
}

function getAt(obj: unknown, loc: JsonLocation): unknown {
  let cur: unknown = obj;
  for (const step of loc) {
    if (Array.isArray(cur) && typeof step === "number") cur = cur[step];
    else if (isObject(cur) && typeof step === "string") cur = cur[step];
    else return undefined;
  }
  return cur;
}

function setAt(obj: Record<string, unknown>, loc: JsonLocation, value: unknown): boolean {
  let cur: unknown = obj;
  for (const [i, step] of loc.entries()) {
    const last = i === loc.length - 1;
    const nextIsIndex = !last && typeof loc[i + 1] === "number";
    if (isObject(cur) && typeof step === "string") {
      if (last) cur[step] = value;
      else {
        if (cur[step] === undefined || cur[step] === null) cur[step] = nextIsIndex ? [] : {};
        cur = cur[step];
      }
    } else if (Array.isArray(cur) && typeof step === "number" && step < cur.length) {
      if (last) cur[step] = value;
      else cur = cur[step];
    } else return false;
  }
  return true;
}

/** A number a status reports (Karmada's scripts add missing counters as 0). */
function count(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** The extension of one Karta, compiled. */
export class KarmadaExtension {
  private readonly ext: KarmadaInterpretation;
  private readonly source: string;
  private readonly health?: CompiledExpression;
  private readonly reflection?: CompiledExpression;
  private readonly aggregation?: CompiledExpression;
  private readonly retained: CompiledExpression[];
  private readonly dependencies?: CompiledExpression;
  private readonly podTemplates: CompiledExpression[];
  readonly replicasExpression?: CompiledExpression;
  /** Expressions that do not compile, with their field paths. */
  readonly errors: { path: string; message: string }[] = [];

  constructor(ext: KarmadaInterpretation | undefined, source: string) {
    this.ext = isObject(ext) ? ext : {};
    this.source = source;
    const base: PathSegment[] = ["spec", "karmada"];
    const compile = (text: unknown, ...rest: PathSegment[]): CompiledExpression | undefined => {
      if (typeof text !== "string") return undefined;
      const e = new CompiledExpression(text, [...base, ...rest]);
      if (e.compileError !== undefined) this.errors.push({ path: e.path, message: `jq: ${e.compileError}` });
      return e;
    };
    const x = this.ext;
    this.health = compile(x.health?.expression, "health", "expression");
    this.reflection = compile(x.statusReflection?.expression, "statusReflection", "expression");
    this.aggregation = compile(x.statusAggregation?.expression, "statusAggregation", "expression");
    this.dependencies = compile(x.dependencies?.expression, "dependencies", "expression");
    this.replicasExpression = compile(x.replicas?.replicasExpression, "replicas", "replicasExpression");
    this.podTemplates = (Array.isArray(x.dependencies?.podTemplatePaths) ? x.dependencies.podTemplatePaths : []).flatMap((p, i) => compile(p, "dependencies", "podTemplatePaths", i) ?? []);
    this.retained = (Array.isArray(x.retention?.paths) ? x.retention.paths : []).flatMap((p, i) => compile(p, "retention", "paths", i) ?? []);
  }

  /** The component named by `replicas`, when the extension has one. */
  get replicaComponent(): string | undefined {
    return typeof this.ext.replicas?.component === "string" ? this.ext.replicas.component : undefined;
  }

  /** Whether the extension answers `op` itself (InterpretHealth: decides when it has an expression). */
  supports(op: Operation): boolean {
    switch (op) {
      case "InterpretStatus":
        return this.ext.statusReflection !== undefined;
      case "AggregateStatus":
        return this.ext.statusAggregation !== undefined;
      case "Retain":
        return this.retained.length > 0;
      case "InterpretHealth":
        return this.health !== undefined;
      default:
        return false;
    }
  }

  private error<T>(op: Operation, e: CompiledExpression, message: string): Outcome<T> {
    return fail(op, `Karta ${this.source}: ${e.path}: ${message}`, e.path, LAYER);
  }

  /** Health from the expression: a boolean, or undefined when it says nothing (null, no output). */
  interpretHealth(object: KubeObject): Outcome<boolean | undefined> {
    const e = this.health;
    if (!e) return ok(undefined);
    const r = e.first(object);
    if (!r.ok) return this.error("InterpretHealth", e, r.error);
    if (r.value === null || r.value === undefined) return ok(undefined);
    if (typeof r.value !== "boolean") return this.error("InterpretHealth", e, `expected a boolean, got ${JSON.stringify(r.value)}`);
    return ok(r.value);
  }

  /** InterpretStatus: the listed fields, the generation report, then the expression's fields. */
  interpretStatus(object: KubeObject): Outcome<JsonValue | undefined> {
    const spec = this.ext.statusReflection ?? {};
    const out: Record<string, unknown> = {};
    const status = object.status;
    // A member that reports no status has nothing to report (not even its generation).
    if (!isObject(status)) return ok({});
    for (const f of spec.fields ?? []) {
      const v = getDotted(status, f);
      // An empty map or list reports nothing, as Karmada's interpreters hand back their results.
      const empty = (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
      if (v !== undefined && v !== null && !empty) setDotted(out, f, dropEmpty(clone(v)));
    }
    if (spec.memberGeneration) {
      const meta = isObject(object.metadata) ? object.metadata : {};
      if (typeof meta.generation === "number") out.generation = meta.generation;
      const g = templateGeneration(meta);
      if (g !== undefined) out.resourceTemplateGeneration = g;
    }
    const e = this.reflection;
    if (e) {
      const r = e.first(object);
      if (!r.ok) return this.error("InterpretStatus", e, r.error);
      if (r.value === null || r.value === undefined) return ok(undefined);
      if (!isObject(r.value)) return this.error("InterpretStatus", e, `expected an object, got ${JSON.stringify(r.value)}`);
      for (const [k, v] of Object.entries(r.value)) {
        if (v === null) delete out[k];
        else out[k] = v;
      }
    }
    return ok(out as JsonValue);
  }

  /**
   * AggregateStatus: sums and the generation rule on the template's status, then the expression. Without
   * items (nil: no member has reported; Karmada's webhook request cannot say more) a Karta with
   * keepWithoutItems returns the template as it is; an empty list is aggregated.
   */
  aggregateStatus(object: KubeObject, given: readonly AggregatedStatusItem[] | undefined): Outcome<KubeObject> {
    const spec = this.ext.statusAggregation ?? {};
    const result = clone(object);
    if (spec.keepWithoutItems && given === undefined) return ok(scriptAnswer(result, []));
    const items = given ?? [];
    const status: Record<string, unknown> = isObject(result.status) ? (result.status as Record<string, unknown>) : {};
    for (const f of spec.sum ?? []) {
      let total = 0;
      for (const item of items) total += count(getDotted(item.status, f));
      setDotted(status, f, total);
    }
    for (const f of spec.sumQuantities ?? []) {
      const values = items.map((item) => getDotted(item.status, f)).filter((v): v is string => typeof v === "string" && v !== "");
      const total = resourceAdd("0", ...values);
      if (!total.ok) return fail("AggregateStatus", `Karta ${this.source}: spec.karmada.statusAggregation.sumQuantities: ${f}: ${total.error}`, "spec.karmada.statusAggregation.sumQuantities", LAYER);
      setDotted(status, f, total.value);
    }
    if (spec.observedGeneration) {
      const meta = isObject(result.metadata) ? result.metadata : {};
      const generation = typeof meta.generation === "number" ? meta.generation : 0;
      const seen = items.every((item) => {
        const s = isObject(item.status) ? item.status : {};
        return count(s.resourceTemplateGeneration) === generation && count(s.generation) === count(s.observedGeneration);
      });
      if (seen) status.observedGeneration = generation;
      else if (status.observedGeneration === undefined) status.observedGeneration = 0;
    }
    if (spec.omitSpec && items.length > 0) delete result.spec;
    const e = this.aggregation;
    if (!e) {
      result.status = status as JsonValue;
      return ok(scriptAnswer(result, []));
    }
    const declared = (spec.sum ?? []).length > 0 || (spec.sumQuantities ?? []).length > 0 || spec.observedGeneration === true;
    const r = e.first({ object: declared ? { ...result, status } : result, items });
    if (!r.ok) return this.error("AggregateStatus", e, r.error);
    if (r.value === null || r.value === undefined) delete result.status;
    else if (!isObject(r.value)) return this.error("AggregateStatus", e, `expected an object (the new status) or null, got ${JSON.stringify(r.value)}`);
    else result.status = r.value as JsonValue;
    return ok(scriptAnswer(result, []));
  }

  /** Retain: the member's values at the retained paths, where it has them, replace the template's. */
  retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
    const result = clone(desired);
    for (const e of this.retained) {
      const where = locations(e, observed);
      if (!where.ok) return this.error("Retain", e, where.error);
      for (const loc of where.locations) {
        const v = getAt(observed, loc);
        if (v === undefined || v === null) continue;
        if (!setAt(result, loc, clone(v))) return this.error("Retain", e, `cannot set ${JSON.stringify(loc)} on the desired object`);
      }
    }
    return ok(scriptAnswer(result, [desired, observed]));
  }

  /** The extra pod templates whose references are dependencies (podTemplatePaths), or an error. */
  dependencyTemplates(object: KubeObject): Outcome<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (const e of this.podTemplates) {
      const r = e.run(object);
      if (!r.ok) return this.error("InterpretDependency", e, r.error);
      for (const v of r.values) if (isObject(v)) out.push(v);
    }
    return ok(out);
  }

  /** The dependencies the expression names (namespace defaults to the workload's). */
  extraDependencies(object: KubeObject): Outcome<DependentObjectReference[]> {
    const e = this.dependencies;
    if (!e) return ok([]);
    const r = e.run(object);
    if (!r.ok) return this.error("InterpretDependency", e, r.error);
    const meta = isObject(object.metadata) ? object.metadata : {};
    const namespace = typeof meta.namespace === "string" ? meta.namespace : undefined;
    const out: DependentObjectReference[] = [];
    for (const v of r.values.flatMap((x) => (Array.isArray(x) ? x : [x]))) {
      if (v === null || v === undefined) continue;
      if (!isObject(v) || typeof v.apiVersion !== "string" || typeof v.kind !== "string" || (typeof v.name !== "string" && !isObject(v.labelSelector))) {
        return this.error("InterpretDependency", e, `expected objects with apiVersion, kind and name, got ${JSON.stringify(v)}`);
      }
      const ref: DependentObjectReference = { apiVersion: v.apiVersion, kind: v.kind };
      const ns = typeof v.namespace === "string" && v.namespace !== "" ? v.namespace : namespace;
      if (ns !== undefined) ref.namespace = ns;
      if (typeof v.name === "string") ref.name = v.name;
      if (isObject(v.labelSelector)) ref.labelSelector = v.labelSelector as DependentObjectReference["labelSelector"];
      out.push(ref);
    }
    return ok(out);
  }
}
