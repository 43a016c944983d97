/**
 * The declarative interpreter layer: runs ResourceInterpreterCustomization Lua scripts with Karmada's
 * function names and result handling (luavm/lua.go and declarative/configurable.go).
 */
import { kubeLibrary } from "../lua/kube.js";
import { repairEmptyTables } from "../lua/repair.js";
import { LuaVM, type LuaLimits, type LuaResult, type HostFunction } from "../lua/vm.js";
import {
  fail,
  goInt32,
  kindOf,
  ok,
  type AggregatedStatusItem,
  type Component,
  type DependentObjectReference,
  type Interpreter,
  type JsonValue,
  type KubeObject,
  type Operation,
  type Outcome,
  type ReplicaResult,
  type ResourceInterpreterCustomization,
  type ResourceKind,
  type TargetComponent,
} from "../types.js";
import { CUSTOMIZATION_RULES, mergeCustomizations, targetKey, type MergedRules } from "./customization.js";
import { toComponents, toDependencies, toReplicaRequirements } from "../typed.js";
import { sortDependencies, verifyDependencies } from "../dependencies.js";

/** Options of a declarative interpreter. */
export interface DeclarativeOptions {
  /** The layer name reported in errors ("declarative"; the bundled customizations use "thirdparty"). */
  layer?: string;
  /** Bounds on each script call. */
  limits?: Partial<LuaLimits>;
  /** Extra or replacement kube library functions (for tests and later layers). */
  kube?: Record<string, HostFunction>;
  /** The clock of `os.time()` and `os.date()` (milliseconds since the epoch; default: the system clock). */
  clock?: () => number;
}

/** gopher-lua's LValueType numbers, which Karmada prints with %#v in two messages. */
const GOPHER_TYPE_NUMBER: Record<string, number> = { nil: 0, boolean: 1, number: 2, string: 3, function: 4, userdata: 5, thread: 6, table: 7 };

type ScriptField = Exclude<(typeof CUSTOMIZATION_RULES)[number]["field"], "dependencyInterpretation">;

/** The customization field holding each operation's script (Prune has none). */
const FIELD_OF: Partial<Record<Operation, (typeof CUSTOMIZATION_RULES)[number]["field"]>> = Object.fromEntries(
  CUSTOMIZATION_RULES.map((r) => [r.operation, r.field]),
);

/** The Lua function each operation's script defines. */
const FUNCTION_OF: Partial<Record<Operation, string>> = Object.fromEntries(CUSTOMIZATION_RULES.map((r) => [r.operation, r.fn]));

type RunOutcome = { ok: true; results: LuaResult[] } | { ok: false; error: string };

/** Runs customizations' scripts. Create with `createDeclarativeInterpreter`. */
export class DeclarativeInterpreter implements Interpreter {
  private readonly rules: Map<string, MergedRules>;
  private readonly layer: string;

  constructor(
    private readonly vm: LuaVM,
    customizations: readonly ResourceInterpreterCustomization[],
    layer = "declarative",
  ) {
    this.rules = mergeCustomizations(customizations);
    this.layer = layer;
  }

  /** Releases the Lua state. */
  close(): void {
    this.vm.close();
  }

  /** The merged rules per target kind. */
  get targets(): MergedRules[] {
    return [...this.rules.values()];
  }

  private rulesFor(kind: ResourceKind): MergedRules | undefined {
    return this.rules.get(targetKey(kind.apiVersion, kind.kind));
  }

  private script(object: KubeObject, op: Operation): string | undefined {
    const field = FIELD_OF[op];
    if (field === undefined || field === "dependencyInterpretation") return undefined;
    const rules = this.rulesFor(kindOf(object));
    const script = rules?.scripts[field as ScriptField];
    return script === "" ? undefined : script;
  }

  supports(kind: ResourceKind, op: Operation): boolean {
    const rules = this.rulesFor(kind);
    if (!rules) return false;
    const field = FIELD_OF[op];
    if (field === undefined) return false;
    if (field === "dependencyInterpretation") return rules.dependencyScripts.length > 0;
    return !!rules.scripts[field];
  }

  private fail<T>(op: Operation, message: string): Outcome<T> {
    return fail<T>(op, message, `spec.customizations.${FIELD_OF[op] ?? ""}`, this.layer);
  }

  private run(script: string, fn: string, args: (JsonValue | undefined)[], nResults: number): RunOutcome {
    const compiled = this.vm.compile(script);
    if (!compiled.ok) return { ok: false, error: compiled.error };
    return this.vm.call(compiled.script, fn, args, nResults);
  }

  /**
   * Runs the script of `op` for the object's kind (its function with `args`): the results, or the
   * failed outcome ("rule is not enabled" without a script; the Lua error, through `describe`).
   */
  private runRule(object: KubeObject, op: Operation, args: (JsonValue | undefined)[], nResults: number, describe = (e: string) => e): { ok: true; results: LuaResult[] } | { ok: false; outcome: Outcome<never> } {
    const script = this.script(object, op);
    if (script === undefined) return { ok: false, outcome: this.fail(op, "rule is not enabled") };
    const out = this.run(script, FUNCTION_OF[op]!, args, nResults);
    return out.ok ? out : { ok: false, outcome: this.fail(op, describe(out.error)) };
  }

  interpretReplica(object: KubeObject): Outcome<ReplicaResult> {
    const op: Operation = "InterpretReplica";
    const out = this.runRule(object, op, [object], 2);
    if (!out.ok) return out.outcome;
    const [replicaResult, requiresResult] = out.results as [LuaResult, LuaResult];
    if (replicaResult.type !== "number") return this.fail(op, `result type ${GOPHER_TYPE_NUMBER[replicaResult.type]} is not number`);
    const result: ReplicaResult = { replicas: goInt32(replicaResult.value as number) };
    if (requiresResult.type === "table") {
      const converted = convertTable(requiresResult, [], true);
      if (!converted.ok) return this.fail(op, converted.error);
      try {
        result.replicaRequirements = toReplicaRequirements(converted.value);
      } catch (e) {
        return this.fail(op, `json unmarshal obj failed: ${(e as Error).message}`);
      }
    } else if (requiresResult.type !== "nil") {
      return this.fail(op, `expect the returned requires type is table but got ${requiresResult.type}`);
    }
    return ok(result);
  }

  /** GetComponents' result: a script's `nil` is Go's nil slice (karmadactl prints `components: null`), a table a list. */
  interpretComponent(object: KubeObject): Outcome<Component[] | null> {
    const op: Operation = "InterpretComponent";
    const out = this.runRule(object, op, [object], 1, (e) => `failed to run 'GetComponents' script: ${e}`);
    if (!out.ok) return out.outcome;
    const [result] = out.results as [LuaResult];
    if (result.type === "nil") return ok(null);
    if (result.type !== "table") return this.fail(op, `expected result type 'table' or 'nil' from GetComponents, but got '${result.type}'`);
    const converted = convertTable(result, [], false);
    if (!converted.ok) return this.fail(op, `failed to convert lua table for components: ${converted.error}`);
    try {
      return ok(toComponents(converted.value));
    } catch (e) {
      return this.fail(op, `failed to convert lua table for components: json unmarshal obj failed: ${(e as Error).message}`);
    }
  }

  reviseReplica(object: KubeObject, replicas: number): Outcome<KubeObject> {
    const op: Operation = "ReviseReplica";
    return this.objectResult(op, this.runRule(object, op, [object, replicas], 1), [object]);
  }

  /**
   * ReviseComponents(desiredObj, components): `components` as Karmada marshals TargetComponents
   * ({name, replicas}; undefined or null passes nil). The result is repaired against the input object,
   * as ReviseReplica's is.
   */
  reviseComponents(object: KubeObject, components: TargetComponent[] | undefined | null): Outcome<KubeObject> {
    const op: Operation = "ReviseComponents";
    const list = components === undefined || components === null ? undefined : components.map((c): JsonValue => ({ name: c.name ?? "", replicas: c.replicas ?? 0 }));
    return this.objectResult(op, this.runRule(object, op, [object, list], 1), [object]);
  }

  retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
    const op: Operation = "Retain";
    return this.objectResult(op, this.runRule(desired, op, [desired, observed], 1), [desired, observed]);
  }

  /** `items` undefined or null passes nil to the script (a nil slice in Karmada); an empty array passes an empty table. */
  aggregateStatus(object: KubeObject, items: AggregatedStatusItem[] | undefined | null): Outcome<KubeObject> {
    const op: Operation = "AggregateStatus";
    // Karmada passes the items as they marshal (omitempty on every field but clusterName).
    const luaItems = items === undefined || items === null ? undefined : items.map(statusItemJson);
    return this.objectResult(op, this.runRule(object, op, [object, luaItems], 1), []);
  }

  private objectResult(op: Operation, out: { ok: true; results: LuaResult[] } | { ok: false; outcome: Outcome<never> }, references: KubeObject[]): Outcome<KubeObject> {
    if (!out.ok) return out.outcome;
    const [result] = out.results as [LuaResult];
    if (result.type !== "table") return this.fail(op, `expect the returned requires type is table but got ${result.type}`);
    const converted = convertTable(result, references, true);
    if (!converted.ok) return this.fail(op, converted.error);
    const value = converted.value;
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return this.fail(op, `json unmarshal obj failed: json: cannot unmarshal array into Go value of type map[string]interface {}`);
    }
    if (typeof value.kind !== "string" || value.kind === "") {
      return this.fail(op, `json unmarshal obj failed: Object 'Kind' is missing in '${JSON.stringify(value)}'`);
    }
    return ok(value);
  }

  interpretStatus(object: KubeObject): Outcome<JsonValue | undefined> {
    const op: Operation = "InterpretStatus";
    const out = this.runRule(object, op, [object], 1);
    if (!out.ok) return out.outcome;
    const [result] = out.results as [LuaResult];
    if (result.type !== "table") return this.fail(op, `expect the returned replica type is table but got ${result.type}`);
    const converted = convertTable(result, [], true);
    if (!converted.ok) return this.fail(op, converted.error);
    return ok(converted.value);
  }

  interpretHealth(object: KubeObject): Outcome<boolean> {
    const op: Operation = "InterpretHealth";
    const out = this.runRule(object, op, [object], 1);
    if (!out.ok) return out.outcome;
    const [result] = out.results as [LuaResult];
    if (result.type !== "boolean") return this.fail(op, `result type ${GOPHER_TYPE_NUMBER[result.type]} is not bool`);
    return ok(result.value as boolean);
  }

  interpretDependency(object: KubeObject): Outcome<DependentObjectReference[]> {
    const op: Operation = "InterpretDependency";
    const scripts = this.rulesFor(kindOf(object))?.dependencyScripts ?? [];
    if (scripts.length === 0) return this.fail(op, "rule is not enabled");
    const byName = new Map<string, DependentObjectReference>();
    const bySelector: DependentObjectReference[] = [];
    for (const script of scripts) {
      const out = this.run(script, FUNCTION_OF[op]!, [object], 1);
      if (!out.ok) return this.fail(op, out.error);
      const [result] = out.results as [LuaResult];
      if (result.type !== "table") return this.fail(op, `expect the returned requires type is table but got ${result.type}`);
      const converted = convertTable(result, [], false);
      if (!converted.ok) return this.fail(op, converted.error);
      let refs: DependentObjectReference[];
      try {
        refs = toDependencies(converted.value);
      } catch (e) {
        return this.fail(op, `json unmarshal obj failed: ${(e as Error).message}`);
      }
      const invalid = verifyDependencies(refs);
      if (invalid) return this.fail(op, invalid);
      // Karmada unions into a set of structs: equal name references collapse; selector references
      // (compared by pointer there) never do.
      for (const ref of refs) {
        if (ref.labelSelector !== undefined) bySelector.push(ref);
        else byName.set(JSON.stringify([ref.apiVersion, ref.kind, ref.namespace ?? "", ref.name ?? ""]), ref);
      }
    }
    return ok(sortDependencies([...byName.values(), ...bySelector]));
  }
}

/** An AggregatedStatusItem as Go marshals it (omitempty on everything but clusterName). */
function statusItemJson(item: AggregatedStatusItem): JsonValue {
  const out: { [k: string]: JsonValue } = { clusterName: item.clusterName ?? "" };
  if (item.status !== undefined && item.status !== null) out.status = item.status;
  if (item.applied) out.applied = true;
  if (item.appliedMessage) out.appliedMessage = item.appliedMessage;
  if (item.health) out.health = item.health;
  return out;
}

/** ConvertLuaResultInto: the encoded table, repaired against the references. */
function convertTable(result: LuaResult, references: readonly JsonValue[], rootIsObject: boolean): { ok: true; value: JsonValue } | { ok: false; error: string } {
  if (result.encodeError !== undefined || result.value === undefined) {
    return { ok: false, error: `encode lua result to json failed: ${result.encodeError ?? "no value"}` };
  }
  return { ok: true, value: repairEmptyTables(result.value, references, rootIsObject) };
}

/** Creates a declarative interpreter over these customizations, with its own Lua VM. */
export async function createDeclarativeInterpreter(customizations: readonly ResourceInterpreterCustomization[], options: DeclarativeOptions = {}): Promise<DeclarativeInterpreter> {
  const vm = await LuaVM.create({ limits: options.limits ?? {}, kube: { ...kubeLibrary(), ...options.kube }, ...(options.clock ? { clock: options.clock } : {}) });
  return new DeclarativeInterpreter(vm, customizations, options.layer ?? "declarative");
}

/** A compile problem of one customization script (`karmadactl interpret --check`). */
export interface ScriptCheck {
  name: string;
  operation: Operation;
  error?: string;
}

/** Compiles every script of every customization and reports each rule (only compilation is checked). */
export function checkCustomizationScripts(vm: LuaVM, customizations: readonly ResourceInterpreterCustomization[]): ScriptCheck[] {
  const out: ScriptCheck[] = [];
  for (const ric of customizations) {
    for (const { field, operation } of CUSTOMIZATION_RULES) {
      const script = ric.spec.customizations[field]?.luaScript;
      if (!script) continue;
      const compiled = vm.compile(script);
      out.push(compiled.ok ? { name: ric.metadata.name, operation } : { name: ric.metadata.name, operation, error: compiled.error });
    }
  }
  return out;
}
