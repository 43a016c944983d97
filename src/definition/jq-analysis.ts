/**
 * Static analysis of a jq expression's AST, for the validator and the linter:
 * - which fields of the input document it reads (`.spec.replicatedJobs[].template`), following pipes,
 *   variables bound from the input (`.spec.template as $t | $t.cliques[]`) and functions defined in it;
 * - where it stops being able to tell (`to_entries[] | .value`, `getpath`): those reads are "dynamic";
 * - whether it is an assignable path expression (fragmented paths and suspend actions are written to);
 * - calls to functions that do not exist, which is how a path without its leading dot parses (`spec.replicas`);
 * - places where an absent field would make jq fail (arithmetic on it, iterating it).
 * It is an abstract interpretation over "the document at path P" versus "a computed value"; it never runs jq.
 */
import type { Node, Pattern, Span } from "../jq/ast.js";
import { UNSAFE_FUNCTIONS, builtinNames } from "../jq/index.js";

/** One step of a document path. */
export type Step = { type: "field"; name: string; span: Span } | { type: "index"; index: number; span: Span } | { type: "iterate"; span: Span };

/** A read of the input document at `steps`. */
export interface Read {
  steps: Step[];
  span: Span;
}

/** A place where jq fails at run time if the field at `steps` is absent (null). */
export interface NullHazard {
  kind: "arithmetic" | "iterate";
  steps: Step[];
  span: Span;
}

export interface Analysis {
  /** Every document path the expression reads, the longest ones only (prefixes are implied). */
  reads: Read[];
  /** Spans of sub-expressions whose reads cannot be followed statically. */
  dynamic: Span[];
  /** Outputs that are the document at a path, not defaulted (`// x`); used for "may yield null". */
  results: Read[];
  /** Calls to functions that are neither jq builtins nor defined in the expression. */
  undefinedFunctions: { name: string; arity: number; span: Span; node: Node }[];
  /** `$name` references with no binding. */
  undefinedVariables: { name: string; span: Span }[];
  hazards: NullHazard[];
  /** Paths iterated null-safely (`[]?`, `(.x // [])[]`, inside `try`): the author knows they may be absent. */
  safeIterations: Read[];
  /**
   * Paths whose whole value the expression uses, not only what it navigates to under them: its outputs,
   * operands, arguments and inputs of builtins (`has("status")`, `tojson`, `keys`, `length`), formats,
   * interpolations, array and object contents. `[]` (the document) when it uses the whole document.
   */
  consumed: Read[];
}

/** An abstract value: the input document at a path, a computed value, or something derived we cannot follow. */
type Abstract = { kind: "path"; steps: Step[]; defaulted: boolean } | { kind: "value" } | { kind: "unknown" };

interface FunctionDef {
  params: string[];
  body: Node;
  env: Env;
}
interface Env {
  vars: Map<string, Abstract[]>;
  funcs: Map<string, FunctionDef>;
  /** Filter parameters of the function being expanded: name/0 → the argument at the call site. */
  closures: Map<string, { node: Node; env: Env }>;
}
interface Context {
  /** Inside `try`/`?` or the left of `//`: failures and nulls are handled. */
  guarded: boolean;
  depth: number;
}

/** The engine's own builtins decide by default: a call that passes here compiles. */
const engineBuiltin: BuiltinPredicate = (name, arity) => builtinNames().has(`${name}/${arity}`);
/** The builtin predicate of the analysis running (analyses are synchronous, one at a time). */
let builtinCheck: BuiltinPredicate = engineBuiltin;

const VALUE: Abstract = { kind: "value" };
const UNKNOWN: Abstract = { kind: "unknown" };
const MAX_DEPTH = 12;
const MAX_OUTPUTS = 64;
/** `values`, `strings`, ...: `select` on the type, so they yield their input (a path stays a path) or nothing. */
const TYPE_SELECTORS: ReadonlySet<string> = new Set(
  ["values", "nulls", "booleans", "numbers", "strings", "arrays", "objects", "iterables", "scalars"].map((n) => `${n}/0`),
);
const PREDEFINED_VARS = new Set(["ENV", "__loc__", "__prog_args", "__prog_name"]);

/** Whether `name/arity` is a builtin. */
export type BuiltinPredicate = (name: string, arity: number) => boolean;

/**
 * Analyses an expression's AST. Pure; never throws on any AST the parser produces.
 * `isBuiltin` tells which calls jq defines; by default the engine's own list.
 */
export function analyze(ast: Node, isBuiltin: BuiltinPredicate = engineBuiltin): Analysis {
  const state: Analysis = { reads: [], dynamic: [], results: [], undefinedFunctions: [], undefinedVariables: [], hazards: [], safeIterations: [], consumed: [] };
  builtinCheck = isBuiltin;
  const env: Env = { vars: new Map(), funcs: new Map(), closures: new Map() };
  const outputs = evaluate(ast, [{ kind: "path", steps: [], defaulted: false }], env, { guarded: false, depth: 0 }, state);
  for (const o of outputs) {
    if (o.kind === "path" && !o.defaulted && o.steps.length > 0) state.results.push({ steps: o.steps, span: ast.span });
  }
  consume(outputs, ast, state);
  state.reads = longest(state.reads);
  return state;
}

/** Keeps the reads that are not a prefix of another read. */
function longest(reads: Read[]): Read[] {
  const keyOf = (r: Read): string => r.steps.map(stepKey).join("\u0000");
  const keys = reads.map(keyOf);
  const unique = new Map<string, Read>();
  reads.forEach((r, i) => {
    const k = keys[i]!;
    const isPrefix = keys.some((other) => other !== k && other.startsWith(k + "\u0000"));
    if (!isPrefix && !unique.has(k)) unique.set(k, r);
  });
  return [...unique.values()];
}

function stepKey(s: Step): string {
  return s.type === "field" ? `.${s.name}` : s.type === "index" ? `[${s.index}]` : "[]";
}

/** Formats steps as a jq path: `.spec.replicatedJobs[].name`, `.metadata.labels["app.kubernetes.io/name"]`. */
export function formatSteps(steps: readonly Step[]): string {
  if (steps.length === 0) return ".";
  return steps
    .map((s) => {
      if (s.type === "iterate") return "[]";
      if (s.type === "index") return `[${s.index}]`;
      return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s.name) ? `.${s.name}` : `[${JSON.stringify(s.name)}]`;
    })
    .join("")
    .replace(/^\[/, ".[");
}

function evaluate(node: Node, inputs: Abstract[], env: Env, ctx: Context, st: Analysis): Abstract[] {
  const out: Abstract[] = [];
  for (const input of inputs) {
    for (const o of evaluateOne(node, input, env, ctx, st)) {
      if (out.length >= MAX_OUTPUTS) break;
      out.push(o);
    }
  }
  return dedupe(out);
}

function dedupe(values: Abstract[]): Abstract[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const k = v.kind === "path" ? `p${v.defaulted ? "d" : ""}:${v.steps.map(stepKey).join("")}` : v.kind;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Records the paths among `values` as used whole (see {@link Analysis.consumed}); returns `values`. */
function consume(values: Abstract[], node: Node, st: Analysis): Abstract[] {
  for (const v of values) if (v.kind === "path") st.consumed.push({ steps: v.steps, span: node.span });
  return values;
}

function extend(base: Abstract, step: Step, st: Analysis): Abstract {
  if (base.kind !== "path") return base.kind === "unknown" ? UNKNOWN : VALUE;
  const steps = [...base.steps, step];
  st.reads.push({ steps, span: step.span });
  return { kind: "path", steps, defaulted: false };
}

function evaluateOne(node: Node, input: Abstract, env: Env, ctx: Context, st: Analysis): Abstract[] {
  if (ctx.depth > MAX_DEPTH) {
    st.dynamic.push(node.span);
    return [UNKNOWN];
  }
  const sub = (n: Node, i: Abstract[] = [input], c: Context = ctx, e: Env = env): Abstract[] => evaluate(n, i, e, c, st);
  switch (node.type) {
    case "Identity":
      return [input];
    case "RecurseDefault":
      st.dynamic.push(node.span);
      return [UNKNOWN];
    case "Literal":
      return [VALUE];
    case "Format":
      consume([input], node, st);
      return [VALUE];
    case "String":
      for (const part of node.parts) if (typeof part !== "string") consume(sub(part), part, st);
      return [VALUE];
    case "Index": {
      const targets = sub(node.target);
      const index = node.index;
      const out: Abstract[] = [];
      for (const t of targets) {
        if (index.type === "Literal" && typeof index.value === "string") out.push(extend(t, { type: "field", name: index.value, span: index.span }, st));
        else if (index.type === "Literal" && typeof index.value === "number" && Number.isInteger(index.value))
          out.push(extend(t, { type: "index", index: index.value, span: index.span }, st));
        else if (index.type === "String" && index.parts.every((p) => typeof p === "string"))
          out.push(extend(t, { type: "field", name: index.parts.join(""), span: index.span }, st));
        else {
          sub(index);
          if (t.kind === "path") {
            st.reads.push({ steps: t.steps, span: node.target.span });
            st.dynamic.push(index.span);
          }
          out.push(t.kind === "value" ? VALUE : UNKNOWN);
        }
        if (t.kind === "unknown") st.dynamic.push(node.span);
      }
      return out;
    }
    case "Slice": {
      if (node.from) sub(node.from);
      if (node.to) sub(node.to);
      return sub(node.target).map((t) => (t.kind === "path" ? { ...t, defaulted: false } : t));
    }
    case "Iterate": {
      const targets = sub(node.target);
      return targets.map((t) => {
        if (t.kind === "path" && !t.defaulted && !ctx.guarded) st.hazards.push({ kind: "iterate", steps: t.steps, span: node.span });
        else if (t.kind === "path" && t.steps.length > 0) st.safeIterations.push({ steps: t.steps, span: node.span });
        return extend(t, { type: "iterate", span: { start: Math.max(node.span.start, node.span.end - 2), end: node.span.end } }, st);
      });
    }
    case "Try": {
      const body = sub(node.body, [input], { ...ctx, guarded: true });
      if (node.handler) sub(node.handler, [VALUE]);
      return node.handler ? [...body, VALUE] : body;
    }
    case "Pipe":
      return sub(node.right, sub(node.left));
    case "Comma":
      return [...sub(node.left), ...sub(node.right)];
    case "Neg":
      arithmetic(consume(sub(node.operand), node, st), node, ctx, st);
      return [VALUE];
    case "Binary": {
      const l = consume(sub(node.left), node.left, st);
      const r = consume(sub(node.right), node.right, st);
      if (node.op === "-" || node.op === "*" || node.op === "/" || node.op === "%") {
        arithmetic(l, node.left, ctx, st);
        arithmetic(r, node.right, ctx, st);
      }
      return [VALUE];
    }
    case "And":
    case "Or":
      consume(sub(node.left), node.left, st);
      consume(sub(node.right), node.right, st);
      return [VALUE];
    case "Alternative": {
      const left = sub(node.left, [input], { ...ctx, guarded: true }).map((v) => (v.kind === "path" ? { ...v, defaulted: true } : v));
      return [...left, ...sub(node.right)];
    }
    case "Assign":
      // The output is the whole input, updated.
      consume([input], node, st);
      sub(node.left);
      consume(sub(node.right), node.right, st);
      return [UNKNOWN];
    case "If": {
      consume(sub(node.cond), node.cond, st);
      const out = sub(node.then);
      return node.else ? [...out, ...sub(node.else)] : [...out, input];
    }
    case "Reduce":
    case "Foreach": {
      const source = sub(node.source);
      let e = env;
      for (const p of node.patterns) e = bindPattern(p, source, e, st);
      consume(sub(node.init), node.init, st);
      sub(node.update, [UNKNOWN], ctx, e);
      if (node.type === "Foreach" && node.extract) sub(node.extract, [UNKNOWN], ctx, e);
      return [UNKNOWN];
    }
    case "FuncDef": {
      const funcs = new Map(env.funcs);
      const e: Env = { ...env, funcs };
      funcs.set(`${node.name}/${node.params.length}`, { params: node.params, body: node.body, env: e });
      return sub(node.rest, [input], ctx, e);
    }
    case "Call":
      return call(node, input, env, ctx, st);
    case "Var": {
      const bound = env.vars.get(node.name);
      if (bound) return bound;
      if (!PREDEFINED_VARS.has(node.name)) st.undefinedVariables.push({ name: node.name, span: node.span });
      return [VALUE];
    }
    case "As": {
      const source = sub(node.source);
      let e = env;
      for (const p of node.patterns) e = bindPattern(p, source, e, st);
      return sub(node.body, [input], ctx, e);
    }
    case "Label":
      return sub(node.body);
    case "Break":
      return [];
    case "Array":
      if (node.body) consume(sub(node.body), node.body, st);
      return [VALUE];
    case "Object":
      for (const entry of node.entries) {
        if (entry.value) {
          if (entry.key.type !== "Literal") consume(sub(entry.key), entry.key, st);
          consume(sub(entry.value), entry.value, st);
        } else if (entry.key.type === "Literal" && typeof entry.key.value === "string") {
          // `{name}` reads `.name`.
          consume([extend(input, { type: "field", name: entry.key.value, span: entry.key.span }, st)], entry.key, st);
        } else consume(sub(entry.key), entry.key, st);
      }
      return [VALUE];
  }
}

function arithmetic(values: Abstract[], operand: Node, ctx: Context, st: Analysis): void {
  if (ctx.guarded) return;
  for (const v of values) if (v.kind === "path" && !v.defaulted) st.hazards.push({ kind: "arithmetic", steps: v.steps, span: operand.span });
}

function bindPattern(pattern: Pattern, values: Abstract[], env: Env, st: Analysis): Env {
  const vars = new Map(env.vars);
  const bind = (p: Pattern, vs: Abstract[]): void => {
    if (p.type === "VarPattern") {
      vars.set(p.name, vs);
    } else if (p.type === "ArrayPattern") {
      p.elements.forEach((el, i) => bind(el, vs.map((v) => extend(v, { type: "index", index: i, span: el.span }, st))));
    } else {
      for (const entry of p.entries) {
        const key =
          entry.keyVar ?? (entry.key?.type === "Literal" && typeof entry.key.value === "string" ? entry.key.value : undefined);
        const sub = key === undefined ? vs.map(() => UNKNOWN) : vs.map((v) => extend(v, { type: "field", name: key, span: p.span }, st));
        if (entry.keyVar) vars.set(entry.keyVar, sub);
        if (entry.value) bind(entry.value, sub);
      }
    }
  };
  bind(pattern, values);
  return { ...env, vars };
}

/** Builtins that pass their input through (filters such as select) or act as paths. */
function call(node: Extract<Node, { type: "Call" }>, input: Abstract, env: Env, ctx: Context, st: Analysis): Abstract[] {
  const { name, args } = node;
  const sub = (n: Node, i: Abstract[] = [input], e: Env = env): Abstract[] => evaluate(n, i, e, { ...ctx, depth: ctx.depth + 1 }, st);
  const key = `${name}/${args.length}`;

  const closure = args.length === 0 ? env.closures.get(name) : undefined;
  if (closure) return evaluate(closure.node, [input], closure.env, { ...ctx, depth: ctx.depth + 1 }, st);

  const def = env.funcs.get(key);
  if (def) {
    const closures = new Map(def.env.closures);
    const vars = new Map(def.env.vars);
    def.params.forEach((param, i) => {
      const arg = args[i]!;
      if (param.startsWith("$")) {
        const v = sub(arg);
        vars.set(param.slice(1), v);
        closures.set(param.slice(1), { node: arg, env });
      } else closures.set(param, { node: arg, env });
    });
    const funcs = new Map(def.env.funcs);
    funcs.set(key, def);
    return evaluate(def.body, [input], { vars, funcs, closures }, { ...ctx, depth: ctx.depth + 1 }, st);
  }

  if (!builtinCheck(name, args.length)) {
    st.undefinedFunctions.push({ name, arity: args.length, span: node.span, node });
    for (const a of args) sub(a);
    return [UNKNOWN];
  }
  if (UNSAFE_FUNCTIONS.has(name)) {
    st.dynamic.push(node.span);
    return [UNKNOWN];
  }
  if (TYPE_SELECTORS.has(key)) return [input];
  const elements = (): Abstract[] => [input].map((v) => extend(v, { type: "iterate", span: node.span }, st));
  switch (key) {
    case "empty/0":
    case "error/0":
    case "halt/0":
      return [];
    case "error/1":
      sub(args[0]!);
      return [];
    case "select/1":
      consume(sub(args[0]!), args[0]!, st);
      return [input];
    case "debug/0":
    case "debug/1":
    case "stderr/0":
      return [input];
    case "first/0":
      return [extend(input, { type: "index", index: 0, span: node.span }, st)];
    case "last/0":
      return [extend(input, { type: "index", index: -1, span: node.span }, st)];
    case "first/1":
    case "last/1":
      return sub(args[0]!);
    case "limit/2":
    case "nth/2":
      sub(args[0]!);
      return sub(args[1]!);
    case "map/1":
    case "map_values/1":
    case "any/1":
    case "all/1":
      consume(sub(args[0]!, elements()), node, st);
      return [VALUE];
    case "sort_by/1":
    case "group_by/1":
    case "unique_by/1": {
      const each = elements();
      consume(sub(args[0]!, each), node, st);
      consume(each, node, st); // the elements themselves are in the result
      return [VALUE];
    }
    case "min_by/1":
    case "max_by/1":
      sub(args[0]!, elements());
      return elements();
    case "any/0":
    case "all/0":
    case "add/0":
    case "min/0":
    case "max/0":
      consume(elements(), node, st);
      return [VALUE];
    case "any/2":
    case "all/2":
      consume(sub(args[1]!, sub(args[0]!)), node, st);
      return [VALUE];
    case "isempty/1":
      sub(args[0]!);
      return [VALUE];
    case "with_entries/1":
    case "getpath/1":
    case "tostream/0":
    case "input/0":
    case "inputs/0":
      for (const a of args) sub(a);
      st.dynamic.push(node.span);
      if (input.kind === "path") st.reads.push({ steps: input.steps, span: node.span });
      return [UNKNOWN];
    default:
      // A builtin that is not followed here uses its input and its arguments' values whole.
      consume([input], node, st);
      for (const a of args) consume(sub(a), a, st);
      return [VALUE];
  }
}

/** Why an expression is not an assignable path: the first sub-expression that is not a path. */
export function nonAssignablePart(ast: Node): Node | undefined {
  return notPath(ast, new Map(), 0);
}

function notPath(node: Node, funcs: Map<string, { params: string[]; body: Node }>, depth: number): Node | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const rec = (n: Node): Node | undefined => notPath(n, funcs, depth + 1);
  switch (node.type) {
    case "Identity":
    case "RecurseDefault":
    case "Break":
      return undefined;
    case "Index":
    case "Slice":
    case "Iterate":
      return rec(node.target);
    case "Try":
      return rec(node.body);
    case "Pipe":
    case "Comma":
    case "Alternative":
      return rec(node.left) ?? rec(node.right);
    case "If":
      return rec(node.then) ?? (node.else ? rec(node.else) : undefined);
    case "As":
      return rec(node.body);
    case "Label":
      return rec(node.body);
    case "FuncDef": {
      const next = new Map(funcs);
      next.set(`${node.name}/${node.params.length}`, { params: node.params, body: node.body });
      return notPath(node.rest, next, depth + 1);
    }
    case "Call": {
      const key = `${node.name}/${node.args.length}`;
      const def = funcs.get(key);
      if (def) return def.params.length === 0 ? notPath(def.body, funcs, depth + 1) : undefined;
      if (TYPE_SELECTORS.has(key)) return undefined;
      switch (key) {
        case "empty/0":
        case "error/0":
        case "error/1":
        case "select/1":
        case "first/0":
        case "last/0":
        case "getpath/1":
        case "recurse/0":
        case "recurse/1":
        case "paths/0":
          return undefined;
        case "first/1":
        case "last/1":
          return rec(node.args[0]!);
        case "limit/2":
          return rec(node.args[1]!);
        default:
          return node;
      }
    }
    default:
      return node;
  }
}
