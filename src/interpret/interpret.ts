/**
 * The interpreter: a definition compiled once, applied to workload objects and their pods.
 *
 * ```ts
 * const interpreter = compileInterpreter(karta);
 * const result = interpreter.interpret(pytorchJob, { pods });
 * result.status.statuses;        // ["Running"]
 * result.groups[0].minMember;    // 9
 * ```
 */
import type { Definition, Diagnostic, GroupVersionKind, Karta } from "../definition/index.js";
import { compileDefinition, type CompiledDefinition } from "./compile.js";
import { gangGroups, gangPlan, kaiGroupedPods } from "./groups.js";
import { withLimitMemo } from "./expression.js";
import { createRequire } from "node:module";
import type { PodField } from "./patch.js";
import { classifyPods, workloadPods } from "./pods.js";
import { evaluateStatus } from "./status.js";
import type { ChildMatch, Interpretation, PatchResult, PodClassification, GangGroup } from "./types.js";
import { evaluateWorkload, subtreeScale, workloadTotal, type WorkloadView } from "./workload.js";
import { isObject } from "./plain.js";

// The patches (and the jq path analysis they need) are loaded when first asked for: `karta inspect`
// prints them only with --patch (Node >= 20.19 loads ES modules with require).
const requireModule = createRequire(import.meta.url);
let patchModule: typeof import("./patch.js") | undefined;
const patches = (): typeof import("./patch.js") => (patchModule ??= requireModule("./patch.js") as typeof import("./patch.js"));

/** What comes with the workload object. */
export interface InterpretInputs {
  /**
   * The workload's pods (core/v1 Pod objects). A workload that is itself a pod (root kind core/v1 Pod) is
   * its own pod: it is counted after these when it is not among them (`workloadPods`).
   */
  pods?: readonly unknown[];
  /**
   * Objects the workload created (ReplicaSets, Jobs, StatefulSets...), matched to components by kind; a
   * pod's owner chain is followed through them to the root.
   */
  children?: readonly unknown[];
}

/**
 * A definition compiled for interpretation (what {@link compileInterpreter} returns). Not the framework's
 * Karta layer (`KartaInterpreter` in src/interpreter/framework.ts), which answers Karmada's operations.
 */
export interface CompiledInterpreter {
  readonly karta: Karta;
  readonly definition: CompiledDefinition;
  /** Problems of the definition itself found while compiling (expressions that do not compile...). */
  readonly diagnostics: readonly Diagnostic[];
  /** Everything the definition sees in the object, its pods and children. Never throws. */
  interpret(object: unknown, inputs?: InterpretInputs): Interpretation;
  /** The definition evaluated on the object (components, instances, scale), for the finer-grained calls. */
  workload(object: unknown): { view?: WorkloadView; diagnostics: Diagnostic[] };
  /** Pod → component, instance and replica; `owners`: objects between the pods and the root (owner chains). */
  classifyPods(view: WorkloadView, pods: readonly unknown[], owners?: readonly unknown[]): { pods: PodClassification[]; diagnostics: Diagnostic[] };
  /** KAI's gang groups of the pods. */
  gangGroups(view: WorkloadView, pods: readonly unknown[], classified?: readonly PodClassification[]): { groups: GangGroup[]; diagnostics: Diagnostic[] };
  /** KAI's subtree scale of a component (of one instance when given). */
  subtreeScale(view: WorkloadView, component: string, instance?: string): { ok: true; value: number } | { ok: false; error: string };
  /** The JSON Patch that suspends or resumes the object. */
  suspendPatch(object: unknown, action: "suspend" | "resume"): PatchResult;
  /** The JSON Patch that sets a pod field on every pod specification of the object. */
  setPodFieldPatch(object: unknown, field: PodField): PatchResult;
}

/** `group/version` (or `version` for the core group). */
export function apiVersionOf(gvk: GroupVersionKind): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}

/** The object's own kind against the definition's root kind. */
function checkKind(karta: Karta, object: Record<string, unknown>, diagnostics: Diagnostic[]): boolean {
  const want = karta?.spec?.structureDefinition?.rootComponent?.kind;
  if (!want) return true;
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : undefined;
  const kind = typeof object.kind === "string" ? object.kind : undefined;
  if (apiVersion === undefined || kind === undefined) {
    // Not an object of this kind at all (a fragment, a spec alone): refused rather than guessed at.
    diagnostics.push({
      severity: "error",
      path: apiVersion === undefined ? "apiVersion" : "kind",
      message: `the object has no ${apiVersion === undefined && kind === undefined ? "apiVersion or kind" : apiVersion === undefined ? "apiVersion" : "kind"}: the definition's root component is ${want.kind} ${apiVersionOf(want)}`,
      code: "object-kind",
    });
    return false;
  }
  if (apiVersion !== apiVersionOf(want) || kind !== want.kind) {
    diagnostics.push({
      severity: "error",
      path: "kind",
      message: `the object is ${kind} ${apiVersion}, but the definition's root component is ${want.kind} ${apiVersionOf(want)}`,
      code: "object-kind",
    });
    return false;
  }
  return true;
}

/** Matches child objects to components (and additionalChildKinds) by kind. */
function matchChildren(definition: CompiledDefinition, children: readonly unknown[], diagnostics: Diagnostic[]): ChildMatch[] {
  const additional = definition.karta?.spec?.structureDefinition?.additionalChildKinds ?? [];
  return children.map((child, i) => {
    const o = isObject(child) ? child : {};
    const meta = isObject(o.metadata) ? o.metadata : {};
    const m: ChildMatch = {
      apiVersion: typeof o.apiVersion === "string" ? o.apiVersion : "",
      kind: typeof o.kind === "string" ? o.kind : "",
      name: typeof meta.name === "string" ? meta.name : `children[${i}]`,
    };
    const hits = definition.components.filter((c) => c.definition.kind && c !== definition.root && c.definition.kind.kind === m.kind && apiVersionOf(c.definition.kind) === m.apiVersion);
    if (hits.length === 1) m.component = hits[0]!.name;
    if (hits.length > 1) m.candidates = hits.map((c) => c.name);
    if (hits.length === 0) {
      if (additional.some((k) => k.kind === m.kind && apiVersionOf(k) === m.apiVersion)) m.additional = true;
      else {
        diagnostics.push({
          severity: "notice",
          path: "spec.structureDefinition",
          message: `child ${m.kind} ${m.name} (${m.apiVersion}) is neither a component's kind nor listed in additionalChildKinds`,
          code: "child-kind",
        });
      }
    }
    return m;
  });
}

function rootOf(object: Record<string, unknown>): Interpretation["root"] {
  const meta = isObject(object.metadata) ? object.metadata : {};
  const root: Interpretation["root"] = {
    apiVersion: typeof object.apiVersion === "string" ? object.apiVersion : "",
    kind: typeof object.kind === "string" ? object.kind : "",
    name: typeof meta.name === "string" ? meta.name : "",
  };
  if (typeof meta.namespace === "string") root.namespace = meta.namespace;
  if (typeof meta.uid === "string") root.uid = meta.uid;
  return root;
}

/** Compiles a definition (a Karta or a loaded Definition) once for interpreting many objects. */
export function compileInterpreter(input: Karta | Definition): CompiledInterpreter {
  const karta: Karta = "karta" in input && isObject((input as Definition).karta) ? (input as Definition).karta : (input as Karta);
  const definition = compileDefinition(karta);

  const workload = (object: unknown): { view?: WorkloadView; diagnostics: Diagnostic[] } => {
    const diagnostics: Diagnostic[] = [];
    if (!isObject(object)) {
      diagnostics.push({ severity: "error", path: "", message: "the workload object must be a JSON object", code: "object" });
      return { diagnostics };
    }
    if (!checkKind(karta, object, diagnostics)) return { diagnostics };
    const view = evaluateWorkload(definition, object);
    diagnostics.push(...view.diagnostics);
    return { view, diagnostics };
  };

  const interpreter: CompiledInterpreter = {
    karta,
    definition,
    diagnostics: definition.diagnostics,
    workload,
    classifyPods(view, pods, owners) {
      const diagnostics: Diagnostic[] = [];
      return withLimitMemo(() => ({ pods: classifyPods(view, pods, diagnostics, owners), diagnostics }));
    },
    gangGroups(view, pods, classified) {
      const diagnostics: Diagnostic[] = [];
      return withLimitMemo(() => {
        const list = classified ?? classifyPods(view, pods, diagnostics);
        return { groups: gangGroups(view, pods, list, diagnostics), diagnostics };
      });
    },
    subtreeScale(view, component, instance) {
      return subtreeScale(view, component, instance);
    },
    suspendPatch(object, action) {
      return patches().suspendPatch(definition, object, action);
    },
    setPodFieldPatch(object, field) {
      return patches().setPodFieldPatch(definition, object, field);
    },
    interpret(object, inputs = {}) {
      return withLimitMemo(() => interpretWhole(object, inputs));
    },
  };
  return interpreter;

  /** Everything the definition sees in the object, its pods and children (one interpretation). */
  function interpretWhole(object: unknown, inputs: InterpretInputs): Interpretation {
    const diagnostics: Diagnostic[] = [...definition.diagnostics];
    const pods = workloadPods(karta?.spec?.structureDefinition?.rootComponent?.kind, object, inputs.pods ?? []);
    const result: Interpretation = {
      root: rootOf(isObject(object) ? object : {}),
      components: [],
      status: { statuses: ["Undefined"], matches: [], conditions: [] },
      pods: [],
      groups: [],
      gangPlan: [],
      children: [],
      diagnostics,
    };
    try {
      const w = workload(object);
      diagnostics.push(...w.diagnostics);
      const view = w.view;
      if (!view) return result;
      result.components = definition.components.map((c) => view.components.get(c.name)!.view);
      result.status = evaluateStatus(definition.root?.status, object, diagnostics);
      result.pods = classifyPods(view, pods, diagnostics, inputs.children ?? []);
      // What KAI shows: the pods its pod controller hands to the grouper.
      const grouped = kaiGroupedPods(view, pods, result.pods, diagnostics);
      result.groups = grouped === undefined ? [] : gangGroups(view, pods, grouped, diagnostics);
      result.gangPlan = gangPlan(view, diagnostics);
      result.children = matchChildren(definition, inputs.children ?? [], diagnostics);
      const total = workloadTotal(view);
      if (total) result.totalRequests = total;
    } catch (err) {
      // A bug of ours must not hide what was found so far.
      diagnostics.push({ severity: "error", path: "", message: `internal error while interpreting: ${err instanceof Error ? err.message : String(err)}`, code: "internal" });
    }
    return result;
  }
}

const cache = new WeakMap<object, CompiledInterpreter>();

/**
 * Interprets an object with a definition, compiling the definition on first use and keeping the
 * compiled form for as long as the definition object lives.
 */
export function interpret(karta: Karta | Definition, object: unknown, inputs: InterpretInputs = {}): Interpretation {
  let interpreter = cache.get(karta);
  if (!interpreter) {
    interpreter = compileInterpreter(karta);
    cache.set(karta, interpreter);
  }
  return interpreter.interpret(object, inputs);
}
