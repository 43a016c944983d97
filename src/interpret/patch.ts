/**
 * Writes as JSON Patch (RFC 6902): suspend and resume (the suspendDefinition's actions) and setting a
 * pod field on every pod specification of the workload through the spec definitions.
 *
 * A Karta path is turned into locations with jq's own `path(expr)` on the object, so a path that selects
 * several places (`.spec.replicatedJobs[].template.spec.template`) yields one JSON Pointer each. A path
 * that is not assignable (`.a // "x"`, `.a | tostring`) is refused with the part that cannot be written.
 */
import type { Diagnostic } from "../definition/diagnostic.js";
import { nonAssignablePart } from "../definition/jq-analysis.js";
import { decodeActionValue } from "../definition/action-value.js";
import { compileJq, JqError, type JqProgram } from "../jq/index.js";
import type { CompiledComponent, CompiledDefinition } from "./compile.js";
import type { CompiledExpression } from "./expression.js";
import type { JsonPatchOperation, PatchResult } from "./types.js";
import { isObject } from "./plain.js";

/** A location in a JSON document: object keys and array indices. */
export type JsonLocation = (string | number)[];

/** RFC 6901: `/a/b~1c/0`. */
export function jsonPointer(location: JsonLocation): string {
  return location.map((s) => "/" + String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
}

const pathPrograms = new WeakMap<CompiledExpression, JqProgram | string>();

/** The locations an expression selects in `object`, or why it cannot be written. */
export function locations(e: CompiledExpression, object: unknown): { ok: true; locations: JsonLocation[] } | { ok: false; error: string } {
  if (!e.program) return { ok: false, error: e.compileError ?? `'${e.text}' is not a jq path` };
  let program = pathPrograms.get(e);
  if (program === undefined) {
    const bad = nonAssignablePart(e.program.ast);
    if (bad) {
      program = `'${e.text}' is not an assignable path: '${e.text.slice(bad.span.start, bad.span.end)}' cannot be written to`;
    } else {
      try {
        program = compileJq(`path(${e.text})`);
      } catch (err) {
        program = err instanceof Error ? err.message : String(err);
      }
    }
    pathPrograms.set(e, program);
  }
  if (typeof program === "string") return { ok: false, error: program };
  try {
    const out = program.run(object) as unknown[];
    return { ok: true, locations: out.filter((p): p is JsonLocation => Array.isArray(p)) };
  } catch (err) {
    return { ok: false, error: err instanceof JqError ? `'${e.text}' is not an assignable path here: ${err.message}` : String(err) };
  }
}

/**
 * The operation that sets `value` at `location`: `add` on the deepest part of the location that exists
 * (with the missing objects built around the value), since JSON Patch cannot add below a missing parent.
 */
export function setOperation(object: unknown, location: JsonLocation, value: unknown): JsonPatchOperation {
  let cur: unknown = object;
  let depth = 0;
  for (; depth < location.length - 1; depth++) {
    const step = location[depth]!;
    const next = Array.isArray(cur) && typeof step === "number" ? cur[step] : isObject(cur) && typeof step === "string" ? cur[step] : undefined;
    if (next === undefined || next === null || typeof next !== "object") break;
    cur = next;
  }
  // location[0..depth) exists and is a container; build the rest below location[depth].
  let built: unknown = value;
  for (let i = location.length - 1; i > depth; i--) {
    const step = location[i]!;
    built = typeof step === "number" ? [built] : { [step]: built };
  }
  const at = location.slice(0, depth + 1);
  const last = location[depth];
  const exists = Array.isArray(cur) ? typeof last === "number" && last < cur.length : isObject(cur) && typeof last === "string" && last in cur;
  return { op: exists && depth === location.length - 1 ? "replace" : "add", path: jsonPointer(at), value: built };
}

/** Decodes an action value, JSON text (`"true"` is the boolean, `'"paused"'` the string); text that is not JSON fails, as upstream fails to decode it. */
export function actionValue(value: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  const decoded = decodeActionValue(value);
  // Upstream's words first; then what to write instead (a string keeps its quotes), not the parser's text.
  return decoded.ok ? decoded : { ok: false, error: `failed to decode value ${JSON.stringify(value)}: not JSON text (${decoded.hint})` };
}

/** The JSON Patch that suspends (or resumes) the workload: every component's actions, root first. */
export function suspendPatch(definition: CompiledDefinition, object: unknown, action: "suspend" | "resume"): PatchResult {
  const patch: JsonPatchOperation[] = [];
  const diagnostics: Diagnostic[] = [];
  let any = false;
  for (const c of definition.components) {
    const actions = action === "suspend" ? c.suspend : c.resume;
    for (const a of actions) {
      any = true;
      const value = actionValue(a.value);
      if (!value.ok) {
        diagnostics.push({ severity: "error", path: `${a.path}.value`, message: value.error, code: "patch" });
        continue;
      }
      const r = locations(a.expr, object);
      if (!r.ok) {
        diagnostics.push({ severity: "error", path: a.expr.path, message: r.error, code: "patch" });
        continue;
      }
      if (r.locations.length === 0) {
        diagnostics.push({ severity: "warning", path: a.expr.path, message: `'${a.expr.text}' selects nothing on this object`, code: "patch" });
      }
      for (const loc of r.locations) patch.push(setOperation(object, loc, value.value));
    }
  }
  if (!any) {
    diagnostics.push({
      severity: "error",
      path: "spec.structureDefinition.rootComponent.suspendDefinition",
      message: `the definition has no suspendDefinition: the workload cannot be ${action === "suspend" ? "suspended" : "resumed"} through it`,
      code: "patch",
    });
  }
  return { patch, diagnostics };
}

/** A pod field the workload can carry into all its pods. */
export type PodField =
  | { field: "schedulerName"; value: string }
  | { field: "priorityClassName"; value: string }
  | { field: "label"; key: string; value: string }
  | { field: "annotation"; key: string; value: string };

/** Where a pod field lives, relative to a pod template, a pod spec, pod metadata or a fragment. */
function within(field: PodField): { template: JsonLocation; spec?: JsonLocation; metadata?: JsonLocation } {
  switch (field.field) {
    case "schedulerName":
      return { template: ["spec", "schedulerName"], spec: ["schedulerName"] };
    case "priorityClassName":
      return { template: ["spec", "priorityClassName"], spec: ["priorityClassName"] };
    case "label":
      return { template: ["metadata", "labels", field.key], metadata: ["labels", field.key] };
    case "annotation":
      return { template: ["metadata", "annotations", field.key], metadata: ["annotations", field.key] };
  }
}

function fragmentFor(field: PodField): { key: "schedulerNamePath" | "priorityClassNamePath" | "labelsPath" | "annotationsPath"; suffix: JsonLocation } {
  switch (field.field) {
    case "schedulerName":
      return { key: "schedulerNamePath", suffix: [] };
    case "priorityClassName":
      return { key: "priorityClassNamePath", suffix: [] };
    case "label":
      return { key: "labelsPath", suffix: [field.key] };
    case "annotation":
      return { key: "annotationsPath", suffix: [field.key] };
  }
}

/**
 * The JSON Patch that sets a pod field (scheduler name, a label, an annotation, the priority class) on
 * every pod specification of the workload, through each component's spec definition. A component whose
 * definition cannot carry the field (no metadataPath for a label, no schedulerNamePath fragment, a
 * non-assignable path) is reported and left out.
 */
export function setPodFieldPatch(definition: CompiledDefinition, object: unknown, field: PodField): PatchResult {
  const patch: JsonPatchOperation[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  const emit = (loc: JsonLocation): void => {
    const op = setOperation(object, loc, field.value);
    const key = `${op.op} ${op.path} ${JSON.stringify(op.value)}`;
    if (seen.has(key)) return;
    seen.add(key);
    patch.push(op);
  };
  const place = (c: CompiledComponent, e: CompiledExpression, suffix: JsonLocation): void => {
    const r = locations(e, object);
    if (!r.ok) {
      diagnostics.push({ severity: "error", path: e.path, message: `component ${c.name}: cannot set ${describe(field)}: ${r.error}`, code: "patch" });
      return;
    }
    for (const loc of r.locations) emit([...loc, ...suffix]);
  };
  const rel = within(field);
  let targets = 0;
  for (const c of definition.components) {
    if (!c.specKind) continue;
    targets++;
    if (c.specKind === "podTemplateSpec" && c.podTemplateSpec) place(c, c.podTemplateSpec, rel.template);
    else if (c.specKind === "podSpec" && c.podSpec) {
      if (rel.spec) place(c, c.podSpec, rel.spec);
      else if (c.metadata && rel.metadata) place(c, c.metadata, rel.metadata);
      else {
        diagnostics.push({
          severity: "error",
          path: `${c.path}.specDefinition`,
          message: `component ${c.name}: cannot set ${describe(field)}: it has a podSpecPath but no metadataPath`,
          code: "patch",
        });
      }
    } else if (c.specKind === "fragmented") {
      const f = fragmentFor(field);
      const e = c.fragments[f.key];
      if (e) place(c, e, f.suffix);
      else {
        diagnostics.push({
          severity: "error",
          path: `${c.path}.specDefinition.fragmentedPodSpecDefinition`,
          message: `component ${c.name}: cannot set ${describe(field)}: the fragmented pod spec has no ${f.key}`,
          code: "patch",
        });
      }
    }
  }
  if (targets === 0) {
    diagnostics.push({ severity: "error", path: "spec.structureDefinition", message: `no component defines pods: there is nowhere to set ${describe(field)}`, code: "patch" });
  }
  return { patch, diagnostics };
}

function describe(field: PodField): string {
  switch (field.field) {
    case "schedulerName":
      return `the scheduler name`;
    case "priorityClassName":
      return `the priority class`;
    case "label":
      return `label ${field.key}`;
    case "annotation":
      return `annotation ${field.key}`;
  }
}
