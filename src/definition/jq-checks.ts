/**
 * The checks on each jq expression of a Karta: it parses, passes the safe profile, reads only from the
 * document root, uses only defined functions and variables; fragmented paths and suspend actions are
 * assignable; and the fields it reads exist on the document it runs on (the Pod for pod-side paths,
 * the CRD's schema or, without one, "not a pod-only field" for workload-side paths). Also the
 * null-safety lint. Positions point inside the expression.
 */
import type { Node, Span } from "../jq/ast.js";
import { children, findUnsafe } from "../jq/index.js";
import type { PathSegment } from "./diagnostic.js";
import type { Expression } from "./expressions.js";
import type { Finding } from "./finding.js";
import { analyze, formatSteps, nonAssignablePart, type Analysis, type Step } from "./jq-analysis.js";
import { resolvePath, type OpenApiSchema, type Resolution } from "./openapi.js";
import { OBJECT_META, POD_ONLY_FIELDS, POD_SCHEMA, POD_TEMPLATE_SPEC } from "./pod-schema.js";
import { documentOf } from "./schema-source.js";

/** The jq parser and safe profile the checks use. */
export interface JqFrontEnd {
  /** Parses; throws an error with a numeric `offset` (character offset into the text) on a syntax error. */
  parse(text: string): Node;
  /** The failure message `JQ expression '<e>' failed validation: <reason>`, or undefined when safe. */
  safeProfile(ast: Node, text: string): string | undefined;
  /** The engine's builtins as `name/arity`; without it, the project engine's own list decides. */
  builtins?: ReadonlySet<string>;
}

/** What the workload-side paths are checked against. */
export type WorkloadSchema =
  | { kind: "crd"; schema: OpenApiSchema; description: string }
  | { kind: "pod" }
  | { kind: "none" };

export interface ExpressionResult {
  expression: Expression;
  ast?: Node;
  analysis?: Analysis;
}

const EMBEDDED = { objectMeta: OBJECT_META, podTemplateSpec: POD_TEMPLATE_SPEC };

/** Parses and checks one expression; returns its AST and analysis when it parsed. */
export function checkExpression(e: Expression, jq: JqFrontEnd, workload: WorkloadSchema, findings: Finding[]): ExpressionResult {
  const where = goFieldPath(e.path);
  const text = e.text;
  if (text.trim() === "") {
    // Upstream's validator skips it as unset, but an evaluation compiles it and fails on every workload.
    findings.push({
      severity: "warning",
      path: e.path,
      message: `empty jq expression at '${where}': evaluating it fails on every workload (jq: "Top-level program not given"; upstream: "missing query"); leave the field out, or write an expression ('.' is the whole document)`,
      code: "jq-empty",
    });
    return { expression: e };
  }
  let ast: Node;
  try {
    ast = jq.parse(text);
  } catch (err) {
    const offset = typeof (err as { offset?: unknown }).offset === "number" ? (err as { offset: number }).offset : 0;
    const message = err instanceof Error ? err.message : String(err);
    findings.push({
      severity: "error",
      path: e.path,
      message: `failed to parse JQ expression '${text}' at '${where}': ${message}`,
      code: "jq-parse",
      valueIndex: Math.max(0, Math.min(offset, text.length)),
    });
    return { expression: e };
  }
  const unsafe = jq.safeProfile(ast, text);
  if (unsafe !== undefined) {
    const prefix = `JQ expression '${text}' failed validation: `;
    const reason = unsafe.startsWith(prefix) ? unsafe.slice(prefix.length) : unsafe;
    findings.push({
      severity: "error",
      path: e.path,
      message: `JQ expression '${text}' at '${where}' failed validation: ${reason}`,
      code: "jq-unsafe",
      valueIndex: findUnsafe(ast)?.node.span.start ?? 0,
    });
    return { expression: e, ast };
  }
  const builtins = jq.builtins;
  const analysis = analyze(ast, builtins ? (name, arity) => builtins.has(`${name}/${arity}`) : undefined);
  checkNames(e, ast, analysis, findings);
  checkUpstreamEngine(e, ast, findings);
  checkAssignable(e, ast, findings);
  if (documentOf(e.role) === "pod") checkOnPod(e, analysis, findings);
  else if (documentOf(e.role) === "aggregation") return { expression: e, ast, analysis };
  else checkOnWorkload(e, analysis, workload, findings);
  return { expression: e, ast, analysis };
}

/** `a.b[1]["x.y"]` for a field path, as in the reference's messages. */
export function formatFieldPath(path: readonly PathSegment[]): string {
  return path.map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? s : `.${s}`)).join("");
}

/** The Go field names the reference validator's jq messages name a field by, where they are not the JSON name capitalised. */
const GO_FIELD_NAMES: Readonly<Record<string, string>> = { optimizationInstructions: "Instructions" };

/** `Spec.StructureDefinition.ChildComponents[1].ScaleDefinition.ReplicasPath`: a field as the reference's jq messages name it (its Go path). */
export function goFieldPath(path: readonly PathSegment[]): string {
  const go = (s: string): string => GO_FIELD_NAMES[s] ?? s.charAt(0).toUpperCase() + s.slice(1);
  return path.map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? go(s) : `.${go(s)}`)).join("");
}

function at(e: Expression, span: Span | undefined): number {
  return Math.max(0, Math.min(span?.start ?? 0, e.text.length));
}

function checkNames(e: Expression, ast: Node, analysis: Analysis, findings: Finding[]): void {
  // A grouping key that is a bare word (`gpu`) is a literal key, as the authoring guide allows.
  const literalKey = e.role === "groupKey" && ast.type === "Call" && ast.args.length === 0;
  if (literalKey) return;
  for (const f of analysis.undefinedFunctions) {
    if (f.arity === 0 && isPathHead(ast, f.node)) {
      const fixed = e.text.slice(0, f.span.start) + "." + e.text.slice(f.span.start);
      findings.push({
        severity: "error",
        path: e.path,
        message: `path '${e.text}' is not absolute: jq paths start from the document root with '.' (did you mean '${fixed.trim()}'?)`,
        code: "jq-absolute",
        valueIndex: at(e, f.span),
      });
    } else {
      findings.push({ severity: "error", path: e.path, message: `jq: function ${f.name}/${f.arity} is not defined`, code: "jq-undefined", valueIndex: at(e, f.span) });
    }
  }
  for (const v of analysis.undefinedVariables) {
    findings.push({ severity: "error", path: e.path, message: `jq: $${v.name} is not defined`, code: "jq-undefined", valueIndex: at(e, v.span) });
  }
}

/**
 * The builtins of this project's engine (jq 1.8.2's) that gojq v0.12.19 does not define: upstream Karta
 * and KAI Scheduler's pod grouper evaluate a Karta's expressions with gojq (`gojq.Compile` with
 * variables only, so not the command line's `input_filename`, `debug` or `stderr` either), where such an
 * expression fails to compile on every workload. Measured by compiling each of `builtins` with gojq
 * v0.12.19; each with gojq's own error.
 */
const NOT_IN_GOJQ: ReadonlyMap<string, string> = new Map([
  ...["debug/0", "debug/1", "get_search_list/0", "have_decnum/0", "have_literal_numbers/0", "input_filename/0", "input_line_number/0", "keys_unsorted/0", "leaf_paths/0", "lgamma_r/0", "stderr/0"].map(
    (k) => [k, `function not defined: ${k}`] as const,
  ),
  ["input/0", "input(s)/0 is not allowed"],
  ["inputs/0", "input(s)/0 is not allowed"],
]);

/** The formats gojq v0.12.19 knows (compiler.go formatToFunc); another is "format not defined" there. */
const GOJQ_FORMATS = new Set(["@text", "@json", "@html", "@uri", "@urid", "@csv", "@tsv", "@sh", "@base64", "@base64d"]);

/** What upstream's engine cannot compile (a function of the same name the expression defines aside): a warning at each. */
function checkUpstreamEngine(e: Expression, ast: Node, findings: Finding[]): void {
  const defined = new Set<string>();
  const found: { what: string; error: string; at: number }[] = [];
  const visit = (n: Node): void => {
    if (n.type === "FuncDef") defined.add(`${n.name}/${n.params.length}`);
    else if (n.type === "Call" && NOT_IN_GOJQ.has(`${n.name}/${n.args.length}`)) {
      const key = `${n.name}/${n.args.length}`;
      found.push({ what: key, error: NOT_IN_GOJQ.get(key)!, at: at(e, n.span) });
    } else if (n.type === "Format" || (n.type === "String" && n.format !== undefined)) {
      const raw = n.type === "Format" ? n.name : n.format!;
      const name = raw.startsWith("@") ? raw : `@${raw}`;
      if (!GOJQ_FORMATS.has(name)) found.push({ what: name, error: `format not defined: ${name}`, at: at(e, n.span) });
    }
    children(n).forEach(visit);
  };
  visit(ast);
  // The parser resolves $__loc__ to a literal: found in the text.
  const loc = /\$__loc__\b/.exec(e.text);
  if (loc) found.push({ what: "$__loc__", error: "variable not defined: $__loc__", at: loc.index });
  const reported = new Set<string>();
  for (const f of found) {
    if (defined.has(f.what) || reported.has(f.what)) continue;
    reported.add(f.what);
    findings.push({
      severity: "warning",
      path: e.path,
      message: `jq: gojq v0.12.19, the engine upstream Karta and KAI Scheduler evaluate Kartas with, cannot compile this (${f.error}): the expression fails there on every workload${f.what === "keys_unsorted/0" ? "; '.[]' and 'to_entries' give one order within each engine" : ""}`,
      code: "jq-upstream-engine",
      valueIndex: f.at,
    });
  }
}

/** Whether `call` starts a path chain: the expression itself, or the innermost target of an Index/Iterate chain. */
function isPathHead(ast: Node, call: Node): boolean {
  let found = false;
  const visit = (n: Node): void => {
    if (found) return;
    if (n.type === "Index" || n.type === "Iterate" || n.type === "Slice") {
      let t: Node = n;
      while (t.type === "Index" || t.type === "Iterate" || t.type === "Slice") t = t.target;
      if (t === call) found = true;
    }
    children(n).forEach(visit);
  };
  if (ast === call) return true;
  visit(ast);
  return found;
}

function checkAssignable(e: Expression, ast: Node, findings: Finding[]): void {
  if (e.role !== "fragment" && e.role !== "action") return;
  const bad = nonAssignablePart(ast);
  if (!bad) return;
  const part = e.text.slice(bad.span.start, bad.span.end);
  const what = e.role === "action" ? "suspend and resume actions assign to their path" : "fragmented paths are written back to the workload";
  findings.push({
    severity: e.role === "action" ? "error" : "warning",
    path: e.path,
    message: `'${e.text}' is not an assignable path (${what}): '${part}' is not a path`,
    code: "jq-assignable",
    valueIndex: at(e, bad.span),
  });
}

function checkOnPod(e: Expression, analysis: Analysis, findings: Finding[]): void {
  for (const read of analysis.reads) {
    const r = resolvePath(POD_SCHEMA, read.steps, EMBEDDED);
    if (r.status !== "missing") continue;
    findings.push({
      severity: "warning",
      path: e.path,
      message: `${missingMessage(read.steps, r, "a Pod")} (this path runs on the Pod, not on the workload)`,
      code: "pod-path",
      valueIndex: at(e, read.steps[r.at]?.span),
    });
  }
}

function checkOnWorkload(e: Expression, analysis: Analysis, workload: WorkloadSchema, findings: Finding[]): void {
  if (workload.kind === "crd") {
    for (const read of analysis.reads) {
      const r = resolvePath(workload.schema, read.steps, EMBEDDED);
      if (r.status === "missing") {
        findings.push({ severity: "error", path: e.path, message: missingMessage(read.steps, r, workload.description), code: "crd-path", valueIndex: at(e, read.steps[r.at]?.span) });
      }
    }
    if (analysis.dynamic.length > 0) {
      findings.push({
        severity: "notice",
        path: e.path,
        message: `part of '${e.text}' computes its path at run time; that part was not checked against the CRD`,
        code: "crd-dynamic",
        valueIndex: at(e, analysis.dynamic[0]),
      });
    }
  } else if (workload.kind === "pod") {
    for (const read of analysis.reads) {
      const r = resolvePath(POD_SCHEMA, read.steps, EMBEDDED);
      if (r.status === "missing") {
        findings.push({ severity: "error", path: e.path, message: missingMessage(read.steps, r, "a Pod"), code: "crd-path", valueIndex: at(e, read.steps[r.at]?.span) });
      }
    }
  } else {
    for (const read of analysis.reads) {
      const [first, second] = read.steps;
      if (first?.type === "field" && second?.type === "field" && POD_ONLY_FIELDS[first.name]?.has(second.name)) {
        findings.push({
          severity: "warning",
          path: e.path,
          message: `.${first.name}.${second.name} is a Pod field, but this path runs on the workload object, not on its pods`,
          code: "workload-path",
          valueIndex: at(e, second.span),
        });
      }
    }
  }
  checkNullSafety(e, analysis, workload, findings);
}

function missingMessage(steps: readonly Step[], r: Extract<Resolution, { status: "missing" }>, where: string): string {
  const upTo = formatSteps(steps.slice(0, r.at));
  const step = steps[r.at]!;
  if (r.reason === "not-object") return `${upTo} is not an object in ${where}, so it has no field ${formatSteps([step])}`;
  if (r.reason === "not-list") return `${upTo} is not a list in ${where}, so ${formatSteps([step])} fails`;
  const name = step.type === "field" ? step.name : "";
  const full = formatSteps(steps.slice(0, r.at + 1));
  let message = `${full}: ${where} has no field '${name}' at ${upTo}`;
  if (r.suggestion) message += `; did you mean ${formatSteps([...steps.slice(0, r.at), { ...step, name: r.suggestion } as Step])}?`;
  return message;
}

/** Whether the field at `steps` may be absent: optional in the CRD, or (without one) under `.status`. */
function mayBeAbsent(steps: readonly Step[], workload: WorkloadSchema): boolean {
  if (workload.kind === "crd") {
    const r = resolvePath(workload.schema, steps, EMBEDDED);
    return r.status === "ok" && r.optional;
  }
  // The status is written by the controller after creation: every status field starts absent.
  return steps[0]?.type === "field" && steps[0].name === "status" && steps.length > 1;
}

function checkNullSafety(e: Expression, analysis: Analysis, workload: WorkloadSchema, findings: Finding[]): void {
  if (e.role !== "scale" && e.role !== "status") return;
  const reported = new Set<string>();
  const report = (steps: readonly Step[], span: Span, message: string): void => {
    const key = formatSteps(steps) + message;
    if (reported.has(key)) return;
    reported.add(key);
    findings.push({ severity: "warning", path: e.path, message, code: "null-safety", valueIndex: at(e, span) });
  };
  for (const h of analysis.hazards) {
    if (!mayBeAbsent(h.steps, workload)) continue;
    const p = formatSteps(h.steps);
    if (h.kind === "arithmetic") report(h.steps, h.span, `arithmetic on ${p} fails when the field is absent; give it a default: (${p} // 0)`);
    else report(h.steps, h.span, `iterating ${p} fails when the field is absent; write ${p}[]? or (${p} // [])[]`);
  }
  // A null min/max means "not set"; a null replica count is a mistake.
  if (e.role === "scale" && e.path[e.path.length - 1] === "replicasPath") {
    for (const r of analysis.results) {
      if (!mayBeAbsent(r.steps, workload)) continue;
      report(r.steps, r.span, `${formatSteps(r.steps)} is optional: the path yields null when it is absent; give a default, e.g. '${e.text} // 1'`);
    }
  }
}

/** The first node the safe profile rejects, to point at it. */

/** Roles whose expressions run on the workload object and must not fail when one of its lists is absent. */
const WORKLOAD_VALUE_ROLES = new Set(["spec", "instanceId", "scale", "status"]);

/**
 * A list the definition iterates null-safely in one expression (`.spec.workerGroupSpecs[]?`) but not in
 * another: the author knows it may be absent (a RayCluster with only a head has no workerGroupSpecs), and
 * the unguarded one fails with "Cannot iterate over null" on such a workload. Without a CRD this is the
 * only hint that the field is optional; with one, checkNullSafety has reported it already.
 */
export function checkListsOptionalElsewhere(results: readonly ExpressionResult[], workload: WorkloadSchema, findings: Finding[]): void {
  if (workload.kind === "pod") return;
  const safe = new Map<string, Expression>();
  for (const r of results) {
    if (!r.analysis || documentOf(r.expression.role) !== "workload") continue;
    for (const it of r.analysis.safeIterations) if (!safe.has(formatSteps(it.steps))) safe.set(formatSteps(it.steps), r.expression);
  }
  for (const r of results) {
    const e = r.expression;
    if (!r.analysis || !WORKLOAD_VALUE_ROLES.has(e.role)) continue;
    const reported = new Set<string>();
    for (const h of r.analysis.hazards) {
      const p = formatSteps(h.steps);
      const elsewhere = safe.get(p);
      if (h.kind !== "iterate" || elsewhere === undefined || reported.has(p) || mayBeAbsent(h.steps, workload)) continue;
      reported.add(p);
      findings.push({
        severity: "warning",
        path: e.path,
        message: `iterating ${p} fails when the field is absent, as the definition expects it may be (${formatFieldPath(elsewhere.path)} iterates it null-safely); write ${p}[]? or (${p} // [])[]`,
        code: "null-safety",
        valueIndex: at(e, h.span),
      });
    }
  }
}

