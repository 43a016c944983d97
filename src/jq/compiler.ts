/**
 * The jq compiler: AST to closures. Every node compiles to a value-mode generator, and on demand to a
 * path-mode generator (used by `path(f)`, assignment and `del`). Names are resolved at compile time to a
 * depth in the environment, so the runtime walks frames and never looks up a name.
 */
import type { Node, Pattern } from "./ast.js";
import { JqRuntimeError } from "./errors.js";
import {
  Closure,
  CompiledArg,
  Emit,
  Frame,
  Gen,
  JqHalt,
  JqLimitError,
  PathEmit,
  PathGen,
  MAX_ARRAY_LENGTH,
  Stop,
  LabelStop,
  charge,
  chargeBuilt,
  countLabel,
  current,
  labelValue,
  step,
} from "./runtime.js";
import { JqSyntaxError } from "./syntax-error.js";
import {
  JqObject,
  JqValue,
  PathComponent,
  add,
  cannotIterate,
  checkArray,
  checkString,
  compare,
  divide,
  dumpShort,
  equals,
  index,
  isObject,
  isTruthy,
  modulo,
  multiply,
  negate,
  setKey,
  slice,
  subtract,
  toStringValue,
  typeOf,
} from "./values.js";
import { applyFormat } from "./native/formats.js";
import { delpaths, getpath, setpath } from "./paths.js";

// ---- natives ----
/** A builtin written in TypeScript. `fn` maps the input and the values of `$`-arguments to one output. */
export interface ValueNative {
  kind: "value";
  fn: (input: JqValue, ...args: JqValue[]) => JqValue;
}
/** A builtin that drives its filter arguments itself (control flow, early stop, path mode). */
export interface GenNative {
  kind: "gen";
  gen: (input: JqValue, args: Closure[], emit: Emit) => Stop;
  path?: (input: JqValue, path: PathComponent[], args: Closure[], emit: PathEmit) => Stop;
}
export type Native = ValueNative | GenNative;

// ---- scope ----
/** A function known at compile time: its parameters and body, compiled lazily (for recursion). */
export interface FuncInfo {
  name: string;
  params: string[];
  body: Node;
  /** Scope for the body: the function itself and its parameters on top of the definition's scope. */
  bodyScope: Scope | null;
  program: string;
  gen?: Gen;
  pathGen?: PathGen;
  /** For functions defined where no runtime frame is needed (the builtin library): their fixed home frame. */
  home?: Frame;
}

type Entry =
  | { kind: "var"; name: string }
  | { kind: "func"; name: string; arity: number; fn: FuncInfo }
  | { kind: "param"; name: string }
  | { kind: "label"; name: string };

/** The compile-time mirror of the runtime environment: one entry per frame, innermost first. */
export interface Scope {
  entry: Entry;
  up: Scope | null;
  /** Entries of the builtin library are static: they have no runtime frame. */
  isStatic?: boolean;
}

/** Everything the compiler needs besides the scope. */
export interface CompileContext {
  program: string;
  natives: Map<string, Native>;
  /**
   * Where a user program's compile errors are collected (jq reports all of them), and the bodies of
   * the functions it calls, compiled before it runs. Without it (the library), an error throws.
   */
  unit?: CompileUnit;
}

/** The errors and pending function bodies of one program's compilation. */
export interface CompileUnit {
  errors: { reason: string; offset: number; end: number }[];
  pending: (() => void)[];
  /** Set once the program is compiled: anything compiled later (lazily, at run time) throws at once. */
  closed: boolean;
}

type Found =
  | { kind: "var" | "param" | "label"; depth: number }
  | { kind: "func"; depth: number; fn: FuncInfo; isStatic: boolean }
  | undefined;

function lookup(scope: Scope | null, kind: Entry["kind"], name: string, arity = 0): Found {
  let depth = 0;
  for (let s = scope; s; s = s.up) {
    const e = s.entry;
    if (kind === "func") {
      if (e.kind === "func" && e.name === name && e.arity === arity) {
        return { kind: "func", depth, fn: e.fn, isStatic: s.isStatic === true };
      }
      if (e.kind === "param" && arity === 0 && e.name === name) return { kind: "param", depth };
    } else if (e.kind === kind && e.name === name) {
      return { kind, depth } as Found;
    }
    if (!s.isStatic) depth++;
  }
  return undefined;
}

function frameAt(env: Frame, depth: number): Frame {
  let f = env;
  for (let i = 0; i < depth; i++) f = f.up!;
  return f;
}

function push(scope: Scope | null, entry: Entry): Scope {
  return { entry, up: scope };
}

// ---- helpers ----
/** Records a compile error at `[start, end)` (or throws it, outside a collecting unit); the code returned never runs. */
function compileError(ctx: CompileContext, start: number, end: number, message: string): Gen {
  const unit = ctx.unit;
  if (!unit || unit.closed) throw new JqSyntaxError(message, ctx.program, start, end);
  unit.errors.push({ reason: message, offset: start, end });
  return () => {
    throw new Error(`unreachable: ${message}`);
  };
}

/**
 * Calls `fn` with every combination of the outputs of `gens`, stopping early. As jq calls a C builtin:
 * the last argument is the outermost loop, the first varies fastest (`[fdim(0.25,0.625; 0.125,0.375)]`
 * is `[0.125,0.5,0,0.25]`).
 */
function cartesian(gens: Gen[], input: JqValue, env: Frame, fn: (vals: JqValue[]) => Stop): Stop {
  const vals: JqValue[] = new Array(gens.length);
  const go = (i: number): Stop => {
    if (i < 0) return fn(vals);
    return gens[i]!(input, env, (v) => {
      vals[i] = v;
      return go(i - 1);
    });
  };
  return go(gens.length - 1);
}

class PassThrough {
  constructor(
    readonly tag: object,
    readonly error: unknown,
  ) {}
}

/** Is this error one that `try` catches? Budget errors, halts and our own bugs are not. */
function isCatchable(e: unknown): e is JqRuntimeError {
  return e instanceof JqRuntimeError;
}

/**
 * Runs `body`, handing errors raised inside it to `onError`, but not errors raised by the consumer
 * (`emit`): those belong to the enclosing expression. A `break` inside the body to a label outside it
 * is, as in jq, the error `{"__jq": N}` (unless `breaks` is false: a label's own run lets it pass).
 */
function tryRun<E extends Emit | PathEmit>(body: (emit: E) => Stop, emit: E, onError: (e: JqRuntimeError) => Stop, breaks = true): Stop {
  const tag = {};
  /** The stop the consumer asked for: it passes through, where a stop from inside the body is a break. */
  let downstream: Stop;
  // Two fixed parameters, not a rest parameter: spreading arguments made every `?` 1.8x slower.
  const call = emit as (a: unknown, b?: unknown) => Stop;
  const guarded = ((a: unknown, b?: unknown) => {
    try {
      return (downstream = call(a, b));
    } catch (e) {
      throw e instanceof PassThrough && e.tag === tag ? e : new PassThrough(tag, e);
    }
  }) as E;
  try {
    const r = body(guarded);
    return breaks && r !== downstream && r instanceof LabelStop ? onError(new JqRuntimeError(labelValue(r))) : r;
  } catch (e) {
    if (e instanceof PassThrough) {
      if (e.tag === tag) throw e.error;
      throw e;
    }
    if (isCatchable(e)) return onError(e);
    throw e;
  }
}

/**
 * One execution of a label: its body run with a fresh token (what `break` returns), as jq's `try body
 * catch if . == $label then empty else error end`: the break, or any error equal to `{"__jq": id}`
 * (a `try` made of a break and re-raised), ends it; other errors go on.
 */
function runLabel<E extends Emit | PathEmit>(body: (token: LabelStop, emit: E) => Stop, emit: E): Stop {
  const token = new LabelStop();
  const r = tryRun(
    (e: E) => body(token, e),
    emit,
    (err) => {
      if (equals(err.value as JqValue, labelValue(token))) return undefined;
      throw err;
    },
    false,
  );
  return r === token ? undefined : r;
}

/** Unwraps errors that crossed a try boundary on their way out of a run. */
export function unwrapError(e: unknown): unknown {
  while (e instanceof PassThrough) e = e.error;
  return e;
}

/**
 * The path of a value that did not come from a path expression (`path(1)`, `path(map(f) | .[0])`).
 * jq reports the error only when something tries to use it as a path, so it travels as a marker.
 */
export const INVALID_PATH: PathComponent[] = Object.freeze([]) as unknown as PathComponent[];

export function invalidPath(v: JqValue): JqRuntimeError {
  return new JqRuntimeError(`Invalid path expression with result ${dumpShort(v, 30)}`);
}

export function invalidAccess(k: JqValue, v: JqValue): JqRuntimeError {
  return new JqRuntimeError(`Invalid path expression near attempt to access element ${dumpShort(k)} of ${dumpShort(v, 30)}`);
}

function invalidIterate(v: JqValue): JqRuntimeError {
  return new JqRuntimeError(`Invalid path expression near attempt to iterate through ${dumpShort(v, 30)}`);
}

// ---- the compiler ----
/** Compiles an AST in value mode. */
/**
 * A call in tail position of a function body, not yet made: the function's caller runs it (and any it
 * returns in turn) in a loop, so tail recursion takes no stack (jq 1.7.1 optimizes tail calls too).
 */
class TailCall {
  constructor(
    readonly gen: Gen,
    readonly input: JqValue,
    readonly env: Frame,
    readonly emit: Emit,
  ) {}
}

/** Makes a pending tail call and whatever it returns in turn. */
function force(r: Stop): Stop {
  while (r instanceof TailCall) r = r.gen(r.input, r.env, r.emit);
  return r;
}

/**
 * Compiles an AST in value mode. With `tail`, the node is in tail position of a function body (what it
 * returns is the body's result): calls there return a {@link TailCall}.
 */
export function compile(node: Node, scope: Scope | null, ctx: CompileContext, tail = false): Gen {
  // One-output arithmetic, comparisons, `//` and `if` over constant paths: one plain call, no callbacks.
  if (node.type === "Binary" || node.type === "Alternative" || node.type === "If" || node.type === "And" || node.type === "Or") {
    const single = compileSingle(node);
    // One step of the run's budget: every operation counts, so that a loop's body is paid for whole.
    if (single)
      return (input, _env, emit) => {
        step();
        return emit(single(input));
      };
  }
  switch (node.type) {
    case "Identity":
      return (input, _env, emit) => emit(input);
    case "RecurseDefault":
      return compile({ type: "Call", name: "recurse", args: [], span: node.span }, scope, ctx);
    case "Literal": {
      const value = node.value;
      return (_input, _env, emit) => emit(value);
    }
    case "String":
      return compileString(node.parts, node.format, scope, ctx);
    case "Format": {
      // An unknown format fails when it runs, as in jq.
      const name = node.name;
      return (input, _env, emit) => emit(builtString(applyFormat(name, input)));
    }
    case "Index":
      return compileIndex(node.target, node.index, scope, ctx);
    case "Slice": {
      const target = compile(node.target, scope, ctx);
      const from = node.from ? compile(node.from, scope, ctx) : constNull;
      const to = node.to ? compile(node.to, scope, ctx) : constNull;
      return (input, env, emit) =>
        // jq's order: the start's outputs outermost, then the end's, then the target's.
        from(input, env, (f) => to(input, env, (t) => target(input, env, (v) => emit(slice(v, f, t)))));
    }
    case "Iterate": {
      const target = compile(node.target, scope, ctx);
      return (input, env, emit) => target(input, env, (v) => iterate(v, emit));
    }
    case "Try":
      if (node.access) return compileOptionalAccess(node.body, scope, ctx);
      return compileTry(node.body, node.handler, scope, ctx);
    case "Pipe": {
      if (node.left.type === "Identity") return compile(node.right, scope, ctx, tail);
      const left = compile(node.left, scope, ctx);
      // After a left side with one output, what the right side returns is what the pipe returns.
      const right = compile(node.right, scope, ctx, tail && isSingle(node.left));
      return (input, env, emit) => left(input, env, (v) => right(v, env, emit));
    }
    case "Comma": {
      const left = compile(node.left, scope, ctx);
      const right = compile(node.right, scope, ctx, tail);
      return (input, env, emit) => left(input, env, emit) || right(input, env, emit);
    }
    case "Neg": {
      const operand = compile(node.operand, scope, ctx);
      return (input, env, emit) => operand(input, env, (v) => emit(negate(v)));
    }
    case "Binary":
      return compileBinary(node.op, node.left, node.right, scope, ctx);
    case "And":
    case "Or": {
      const left = compile(node.left, scope, ctx);
      const right = compile(node.right, scope, ctx);
      const isAnd = node.type === "And";
      return (input, env, emit) =>
        left(input, env, (l) => {
          const lt = isTruthy(l);
          if (isAnd ? !lt : lt) return emit(!isAnd);
          return right(input, env, (r) => emit(isTruthy(r)));
        });
    }
    case "Alternative": {
      const left = compile(node.left, scope, ctx);
      const right = compile(node.right, scope, ctx);
      // The left side's truthy outputs, or else the right side's; an error on the left is not caught
      // (jq's `//` is a fork, not a `try`).
      return (input, env, emit) => {
        let any = false;
        const r = left(input, env, (v) => (isTruthy(v) ? ((any = true), emit(v)) : undefined));
        if (r) return r;
        return any ? undefined : right(input, env, emit);
      };
    }
    case "Assign":
      return compileAssign(node, scope, ctx);
    case "If": {
      const cond = compile(node.cond, scope, ctx);
      const branchTail = tail && isSingle(node.cond);
      const then = compile(node.then, scope, ctx, branchTail);
      const otherwise = node.else ? compile(node.else, scope, ctx, branchTail) : identityGen;
      return (input, env, emit) =>
        cond(input, env, (c) => (isTruthy(c) ? then(input, env, emit) : otherwise(input, env, emit)));
    }
    case "Reduce": {
      const { source, each, bodyScope } = compileFoldSource(node, scope, ctx);
      const init = compile(node.init, scope, ctx);
      // One pattern only: a `?//` alternative reruns the update on the same state.
      if (node.patterns.length === 1 && carriesOwnership(node.update)) return compileOwningReduce(node, source, each, init, bodyScope, ctx);
      const update = compile(node.update, bodyScope, ctx);
      return (input, env, emit) =>
        init(input, env, (initial) => {
          let acc: JqValue = initial;
          const r = source(input, env, (item) =>
            each(item, env, emit, (benv) => {
              step();
              // jq 1.7.1 takes the state out of its variable for the update (an update with no
              // output, or one that fails into a `?//` alternative, leaves null); the last output stays.
              const state = acc;
              acc = null;
              return update(state, benv, (v) => {
                acc = v;
                return undefined;
              });
            }),
          );
          if (r) return r;
          return emit(acc);
        });
    }
    case "Foreach": {
      const { source, each, bodyScope } = compileFoldSource(node, scope, ctx);
      const init = compile(node.init, scope, ctx);
      const update = compile(node.update, bodyScope, ctx);
      const extract = node.extract ? compile(node.extract, bodyScope, ctx) : identityGen;
      return (input, env, emit) =>
        init(input, env, (initial) => {
          let acc: JqValue = initial;
          return source(input, env, (item) =>
            each(item, env, emit, (benv, out) => {
              step();
              // As reduce: the state is taken out for the update (jq 1.7.1; jq 1.8 keeps it).
              const state = acc;
              acc = null;
              return update(state, benv, (v) => {
                acc = v;
                return extract(v, benv, out);
              });
            }),
          );
        });
    }
    case "FuncDef": {
      // A user definition gets a frame: its body may refer to variables bound around it.
      const rest = compile(node.rest, defineFunction(node, scope, ctx), ctx, tail);
      return (input, env, emit) => rest(input, { v: null, up: env }, emit);
    }
    case "Call":
      return compileCall(node, scope, ctx, tail);
    case "Var":
      return compileVar(node, scope, ctx);
    case "As":
      if (tail) return compileTailAs(node, scope, ctx);
      return compileAs(node.source, node.patterns, node.body, scope, ctx, false) as Gen;
    case "Label": {
      const body = compile(node.body, push(scope, { kind: "label", name: node.name }), ctx);
      return (input, env, emit) => runLabel((token, e: Emit) => body(input, { v: token, up: env }, e), emit);
    }
    case "Break": {
      const found = lookup(scope, "label", node.name);
      if (!found) return compileError(ctx, node.span.start, node.span.end, `$*label-${node.name} is not defined`);
      const depth = found.depth;
      return (_input, env) => frameAt(env, depth).v as object;
    }
    case "Array": {
      if (!node.body) return (_input, _env, emit) => emit([]);
      const body = compile(node.body, scope, ctx);
      return (input, env, emit) => {
        const out: JqValue[] = [];
        const r = body(input, env, (v) => {
          // Each element kept is a step: collecting is work the run pays for.
          step();
          if (out.push(v) > MAX_ARRAY_LENGTH) checkArray(out.length);
          return undefined;
        });
        return r || emit(out);
      };
    }
    case "Object":
      return compileObject(node, scope, ctx);
  }
}

/**
 * `reduce SOURCE as $x (INIT; PATH op RHS)` where the update carries its ownership set (see
 * carriesOwnership): the state is copied once, then changed in place, so building an array or object
 * of n entries is linear, as jq's reference counting makes it.
 */
function compileOwningReduce(
  node: Extract<Node, { type: "Reduce" }>,
  source: Gen,
  each: Alternatives,
  init: Gen,
  bodyScope: Scope | null,
  ctx: CompileContext,
): Gen {
  let update: AssignGen;
  if (node.update.type === "Binary") {
    const right = compile(node.update.right, bodyScope, ctx);
    update = (input, env, emit, owned) => right(input, env, (v) => emit(addToOwned(input, v, owned!)));
  } else {
    update = compileAssign(node.update as Extract<Node, { type: "Assign" }>, bodyScope, ctx);
  }
  return (input, env, emit) =>
    init(input, env, (initial) => {
      let acc: JqValue = initial;
      const owned = new Set<object>();
      const r = source(input, env, (item) =>
        each(item, env, emit, (benv) => {
          step();
          const state = acc;
          acc = null;
          return update(state, benv, (v) => {
            acc = v;
            return undefined;
          }, owned);
        }),
      );
      if (r) return r;
      return emit(acc);
    });
}

const identityGen: Gen = (input, _env, emit) => emit(input);
const constNull: Gen = (_input, _env, emit) => emit(null);

/** Emits the elements of an array or the values of an object. */
function iterate(v: JqValue, emit: Emit): Stop {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      step();
      const r = emit(v[i]!);
      if (r) return r;
    }
    return undefined;
  }
  if (isObject(v)) {
    for (const k in v) {
      step();
      const r = emit(v[k]!);
      if (r) return r;
    }
    return undefined;
  }
  throw cannotIterate(v);
}

/** A string a format or an interpolation built: held to the string limit and charged for its length (see checkString). */
function builtString(s: string): string {
  checkString(s.length);
  return s;
}

function compileString(parts: (string | Node)[], format: string | undefined, scope: Scope | null, ctx: CompileContext): Gen {
  const fmt = format ?? "text";
  const pieces: (string | Gen)[] = parts.map((p) => (typeof p === "string" ? p : compile(p, scope, ctx)));
  const convert = fmt === "text" ? toStringValue : (v: JqValue) => applyFormat(fmt, v);
  // jq evaluates the last interpolation outermost; build right to left.
  return (input, env, emit) => {
    const go = (i: number, suffix: string): Stop => {
      if (i < 0) return emit(builtString(suffix));
      const piece = pieces[i]!;
      if (typeof piece === "string") return go(i - 1, piece + suffix);
      return piece(input, env, (v) => go(i - 1, convert(v) + suffix));
    };
    return go(pieces.length - 1, "");
  };
}

function compileIndex(targetNode: Node, indexNode: Node, scope: Scope | null, ctx: CompileContext): Gen {
  const target = compile(targetNode, scope, ctx);
  if (indexNode.type === "Literal") {
    const key = indexNode.value;
    if (targetNode.type === "Identity") return (input, _env, emit) => emit(index(input, key));
    return (input, env, emit) => target(input, env, (v) => emit(index(v, key)));
  }
  const idx = compile(indexNode, scope, ctx);
  return (input, env, emit) => idx(input, env, (k) => target(input, env, (v) => emit(index(v, k))));
}

/** Runs `f`; an error it raises (one `try` could catch) means no output. */
function orNothing<T>(f: () => T): T | typeof NOTHING {
  try {
    return f();
  } catch (e) {
    if (isCatchable(e)) return NOTHING;
    throw e;
  }
}
const NOTHING = Symbol("nothing");

/** `.a?`, `.[e]?`, `.[a:b]?`, `.[]?`: the access alone is optional (jq's INDEX_OPT, EACH_OPT). */
function compileOptionalAccess(node: Node, scope: Scope | null, ctx: CompileContext): Gen {
  switch (node.type) {
    case "Index": {
      const target = compile(node.target, scope, ctx);
      const idx = compile(node.index, scope, ctx);
      return (input, env, emit) =>
        idx(input, env, (k) =>
          target(input, env, (v) => {
            const r = orNothing(() => index(v, k));
            return r === NOTHING ? undefined : emit(r);
          }),
        );
    }
    case "Slice": {
      const target = compile(node.target, scope, ctx);
      const from = node.from ? compile(node.from, scope, ctx) : constNull;
      const to = node.to ? compile(node.to, scope, ctx) : constNull;
      return (input, env, emit) =>
        from(input, env, (f) =>
          to(input, env, (t) =>
            target(input, env, (v) => {
              const r = orNothing(() => slice(v, f, t));
              return r === NOTHING ? undefined : emit(r);
            }),
          ),
        );
    }
    case "Iterate": {
      const target = compile(node.target, scope, ctx);
      return (input, env, emit) => target(input, env, (v) => (Array.isArray(v) || isObject(v) ? iterate(v, emit) : undefined));
    }
    default:
      return compileTry(node, undefined, scope, ctx);
  }
}

function compileTry(bodyNode: Node, handlerNode: Node | undefined, scope: Scope | null, ctx: CompileContext): Gen {
  const body = compile(bodyNode, scope, ctx);
  const handler = handlerNode ? compile(handlerNode, scope, ctx) : undefined;
  return (input, env, emit) =>
    tryRun(
      (e) => body(input, env, e),
      emit,
      (err) => {
        if (!handler) return undefined;
        // `error(null)` caught: jq hands the handler null.
        return handler(err.value as JqValue, env, emit);
      },
    );
}

const BINARY: Record<string, (a: JqValue, b: JqValue) => JqValue> = {
  "+": add,
  "-": subtract,
  "*": multiply,
  "/": divide,
  "%": modulo,
  "==": (a, b) => equals(a, b),
  "!=": (a, b) => !equals(a, b),
  "<": (a, b) => compare(a, b) < 0,
  "<=": (a, b) => compare(a, b) <= 0,
  ">": (a, b) => compare(a, b) > 0,
  ">=": (a, b) => compare(a, b) >= 0,
};

function compileBinary(op: string, leftNode: Node, rightNode: Node, scope: Scope | null, ctx: CompileContext): Gen {
  const f = BINARY[op]!;
  const left = compile(leftNode, scope, ctx);
  if (rightNode.type === "Literal") {
    const b = rightNode.value;
    return (input, env, emit) =>
      left(input, env, (a) => {
        step();
        return emit(f(a, b));
      });
  }
  const right = compile(rightNode, scope, ctx);
  // jq evaluates the right operand in the outer loop.
  return (input, env, emit) =>
    right(input, env, (b) =>
      left(input, env, (a) => {
        step();
        return emit(f(a, b));
      }),
    );
}

function compileObject(node: Extract<Node, { type: "Object" }>, scope: Scope | null, ctx: CompileContext): Gen {
  const entries = node.entries.map((e) => ({
    key: compile(e.key, scope, ctx),
    value: compile(e.value ?? e.key, scope, ctx),
    keyed: e.keyed === true,
  }));
  return (input, env, emit) => {
    const go = (i: number, acc: JqObject): Stop => {
      if (i === entries.length) return emit(acc);
      const { key, value, keyed } = entries[i]!;
      const badKey = (k: unknown): JqRuntimeError => new JqRuntimeError(`Cannot use ${typeOf(k)} (${dumpShort(k)}) as object key`);
      return key(input, env, (k) => {
        if (keyed) {
          if (typeof k !== "string") throw badKey(k);
          const o: JqObject = { ...acc };
          setKey(o, k, index(input, k));
          return go(i + 1, o);
        }
        return value(input, env, (v) => {
          // The key is checked as jq checks it, when a value goes in: `{(1): empty}` is no error.
          if (typeof k !== "string") throw badKey(k);
          // A fresh object per branch: a key or value with several outputs yields several objects.
          const o: JqObject = { ...acc };
          setKey(o, k, v);
          return go(i + 1, o);
        });
      });
    };
    return go(0, {});
  };
}

function compileVar(node: Extract<Node, { type: "Var" }>, scope: Scope | null, ctx: CompileContext): Gen {
  const found = lookup(scope, "var", node.name);
  if (found) {
    const depth = found.depth;
    if (depth === 0) return (_input, env, emit) => emit(env.v as JqValue);
    return (_input, env, emit) => emit(frameAt(env, depth).v as JqValue);
  }
  if (node.name === "ENV") return (_input, _env, emit) => emit(current.env);
  return compileError(ctx, node.span.start, node.span.end, `$${node.name} is not defined`);
}

// ---- functions ----
function defineFunction(
  node: Extract<Node, { type: "FuncDef" }>,
  scope: Scope | null,
  ctx: CompileContext,
  home?: Frame,
): Scope {
  const fn: FuncInfo = { name: node.name, params: node.params, body: node.body, bodyScope: null, program: ctx.program };
  const self: Scope = { entry: { kind: "func", name: node.name, arity: node.params.length, fn }, up: scope };
  if (home) {
    self.isStatic = true;
    fn.home = home;
  }
  let bodyScope: Scope = self;
  node.params.forEach((_p, i) => (bodyScope = push(bodyScope, { kind: "param", name: paramName(node.params, i) })));
  fn.bodyScope = bodyScope;
  return self;
}

/**
 * The scope name of parameter i: its name without `$`, unless a later parameter has the same name
 * (`def f($g; $g)`): then it is shadowed, and gets a name no program can write.
 */
function paramName(params: string[], i: number): string {
  const bare = (p: string): string => (p.startsWith("$") ? p.slice(1) : p);
  const name = bare(params[i]!);
  return params.slice(i + 1).some((p) => bare(p) === name) ? `${name} #${i}` : name;
}

/** The body of a function with `$` parameters rewritten as `p as $p | body`, as jq defines them. */
function desugaredBody(fn: FuncInfo): Node {
  let body = fn.body;
  for (let i = fn.params.length - 1; i >= 0; i--) {
    const p = fn.params[i]!;
    if (!p.startsWith("$")) continue;
    const name = p.slice(1);
    body = {
      type: "As",
      source: { type: "Call", name: paramName(fn.params, i), args: [], span: body.span },
      patterns: [{ type: "VarPattern", name, span: body.span }],
      body,
      span: body.span,
    };
  }
  return body;
}

function functionGen(fn: FuncInfo, ctx: CompileContext): Gen {
  return (fn.gen ??= compile(desugaredBody(fn), fn.bodyScope, { ...ctx, program: fn.program }, true));
}

function functionPathGen(fn: FuncInfo, ctx: CompileContext): PathGen {
  return (fn.pathGen ??= compilePath(desugaredBody(fn), fn.bodyScope, { ...ctx, program: fn.program }));
}

function compileArg(node: Node, scope: Scope | null, ctx: CompileContext): CompiledArg {
  let pathGen: PathGen | undefined;
  return {
    single: isSingle(node),
    gen: compile(node, scope, ctx),
    path: () => (pathGen ??= compilePath(node, scope, ctx)),
  };
}

function enterCall(): void {
  step();
  if (++current.depth > current.limits.maxDepth) {
    current.depth = 0;
    throw new JqLimitError(`evaluation exceeded the recursion depth limit of ${current.limits.maxDepth}`);
  }
}

function compileCall(node: Extract<Node, { type: "Call" }>, scope: Scope | null, ctx: CompileContext, tail = false): Gen {
  const arity = node.args.length;
  const found = lookup(scope, "func", node.name, arity);
  if (found && found.kind === "param") {
    const depth = found.depth;
    return (input, env, emit) => {
      const c = frameAt(env, depth).v as Closure;
      return c.code.gen(input, c.env, emit);
    };
  }
  if (found && found.kind === "func") {
    const fn = found.fn;
    const args = node.args.map((a) => compileArg(a, scope, ctx));
    const depth = found.depth;
    const isStatic = found.isStatic;
    // A function the program calls is compiled before it runs (its errors are compile errors).
    if (!isStatic) ctx.unit?.pending.push(() => void functionGen(fn, ctx));
    if (tail) {
      return (input, env, emit) => {
        let e: Frame = isStatic ? fn.home! : frameAt(env, depth);
        for (const a of args) e = { v: { code: a, env } satisfies Closure, up: e };
        step();
        return new TailCall(functionGen(fn, ctx), input, e, emit);
      };
    }
    return (input, env, emit) => {
      let e: Frame = isStatic ? fn.home! : frameAt(env, depth);
      for (const a of args) e = { v: { code: a, env } satisfies Closure, up: e };
      enterCall();
      try {
        return force(functionGen(fn, ctx)(input, e, emit));
      } finally {
        current.depth--;
      }
    };
  }
  const native = ctx.natives.get(`${node.name}/${arity}`);
  if (native) {
    // Each call of a builtin is a step of the run's budget (what it walks inside is charged on top).
    if (native.kind === "value") {
      const fn = native.fn;
      if (arity === 0)
        return (input, _env, emit) => {
          step();
          return emit(chargeBuilt(fn(input)));
        };
      const args = node.args.map((a) => compile(a, scope, ctx));
      if (arity === 1) {
        const a0 = args[0]!;
        return (input, env, emit) =>
          a0(input, env, (v) => {
            step();
            return emit(chargeBuilt(fn(input, v)));
          });
      }
      return (input, env, emit) =>
        cartesian(args, input, env, (vals) => {
          step();
          return emit(chargeBuilt(fn(input, ...vals)));
        });
    }
    const gen = native.gen;
    const args = node.args.map((a) => compileArg(a, scope, ctx));
    return (input, env, emit) => {
      step();
      return gen(input, args.map((code) => ({ code, env })), emit);
    };
  }
  // jq points at the name only.
  return compileError(ctx, node.span.start, node.span.start + node.name.length, `${node.name}/${arity} is not defined`);
}

// ---- patterns and `as` ----
type Binder = (patternIndex: number, value: JqValue, env: Frame, body: (env: Frame, track: Tracked | undefined) => Stop, track?: Tracked) => Stop;

function patternVars(p: Pattern, out: string[]): void {
  switch (p.type) {
    case "VarPattern":
      if (!out.includes(p.name)) out.push(p.name);
      return;
    case "ArrayPattern":
      p.elements.forEach((e) => patternVars(e, out));
      return;
    case "ObjectPattern":
      for (const e of p.entries) {
        if (e.keyVar !== undefined && !out.includes(e.keyVar)) out.push(e.keyVar);
        if (e.value) patternVars(e.value, out);
      }
  }
}

function pushVars(scope: Scope | null, names: string[]): Scope | null {
  let s = scope;
  for (const n of names) s = push(s, { kind: "var", name: n });
  return s;
}

/**
 * Compiles destructuring patterns. Every variable of every alternative gets a frame (null when the
 * alternative in use does not bind it), in the order of first appearance.
 */
function compilePatterns(patterns: Pattern[], scope: Scope | null, ctx: CompileContext): { names: string[]; bind: Binder } {
  const names: string[] = [];
  patterns.forEach((p) => patternVars(p, names));
  const slot = new Map(names.map((n, i) => [n, i]));
  // Object-pattern keys are expressions, evaluated against the value being destructured, in the outer
  // scope: the pattern's own variables are not defined there (jq 1.8.2: "$k is not defined").
  const keyGens = new Map<Node, Gen>();
  const collectKeys = (p: Pattern): void => {
    if (p.type === "ArrayPattern") p.elements.forEach(collectKeys);
    if (p.type === "ObjectPattern") {
      for (const e of p.entries) {
        if (e.key) keyGens.set(e.key, compile(e.key, scope, ctx));
        if (e.value) collectKeys(e.value);
      }
    }
  };
  patterns.forEach(collectKeys);

  // As jq 1.8.2 binds: an array pattern's elements from the last to the first, an object pattern's
  // entries in order, and a variable named twice keeps the value bound first. A binding lasts while
  // its continuation runs: a key with several outputs binds afresh for each.
  const bindVar = (name: string, value: JqValue, vals: (JqValue | typeof UNBOUND)[], k: () => Stop): Stop => {
    const i = slot.get(name)!;
    if (vals[i] !== UNBOUND) return k();
    vals[i] = value;
    try {
      return k();
    } finally {
      vals[i] = UNBOUND;
    }
  };
  /**
   * In a path expression, jq's destructuring indexes with its path-tracked INDEX: each index moves the
   * tracked path on, and only the value at the tracked path may be indexed (so a pattern that takes two
   * elements of one array fails, as it does in jq).
   */
  const tracked = (track: Tracked | undefined, container: JqValue, key: JqValue): [JqValue, Tracked | undefined] => {
    // The path is checked first, as jq's INDEX checks it before it indexes.
    if (track !== undefined && (track.path === INVALID_PATH || !Object.is(container, track.value))) throw invalidAccess(key, container);
    const v = index(container, key);
    return [v, track && { path: [...track.path, key as PathComponent], value: v }];
  };
  type K = (track: Tracked | undefined) => Stop;
  const destructure = (p: Pattern, value: JqValue, vals: (JqValue | typeof UNBOUND)[], env: Frame, track: Tracked | undefined, k: K): Stop => {
    switch (p.type) {
      case "VarPattern":
        return bindVar(p.name, value, vals, () => k(track));
      case "ArrayPattern": {
        const go = (i: number, t: Tracked | undefined): Stop => {
          if (i < 0) return k(t);
          const [v, at] = tracked(t, value, i);
          return destructure(p.elements[i]!, v, vals, env, at, (after) => go(i - 1, after));
        };
        return go(p.elements.length - 1, track);
      }
      case "ObjectPattern": {
        const go = (i: number, t: Tracked | undefined): Stop => {
          if (i === p.entries.length) return k(t);
          const e = p.entries[i]!;
          const withKey = (key: JqValue): Stop => {
            const [v, at] = tracked(t, value, key);
            const rest = (): Stop => (e.value ? destructure(e.value, v, vals, env, at, (after) => go(i + 1, after)) : go(i + 1, at));
            return e.keyVar !== undefined ? bindVar(e.keyVar, v, vals, rest) : rest();
          };
          if (e.keyVar !== undefined) return withKey(e.keyVar);
          // The key expression runs in the outer environment, which it was compiled for.
          return keyGens.get(e.key!)!(value, env, withKey);
        };
        return go(0, track);
      }
    }
  };

  const bindFrames = (env: Frame, vals: (JqValue | typeof UNBOUND)[]): Frame => {
    let e = env;
    for (let i = 0; i < names.length; i++) {
      const v = vals[i];
      e = { v: v === UNBOUND || v === undefined ? null : v, up: e };
    }
    return e;
  };

  const bind: Binder = (pi, value, env, body, track) => {
    const vals: (JqValue | typeof UNBOUND)[] = new Array(names.length).fill(UNBOUND);
    const p = patterns[pi]!;
    if (p.type === "VarPattern" && names.length === 1) return body({ v: value, up: env }, track);
    return destructure(p, value, vals, env, track, (after) => body(bindFrames(env, vals.slice()), after));
  };
  return { names, bind };
}

/** The path jq tracks in a path expression, and the value at it. */
interface Tracked {
  path: PathComponent[];
  value: JqValue;
}

/** A variable of a pattern not bound yet in this binding. */
const UNBOUND: unique symbol = Symbol("unbound");

/**
 * Binds a value to patterns and runs `body`. With `?//` alternatives, an error while binding
 * pattern i or in the body run with it moves on to pattern i + 1 (errors of the consumer, `emit`,
 * excepted); the last alternative's errors propagate.
 */
type Alternatives = <E extends Emit | PathEmit>(value: JqValue, env: Frame, emit: E, body: (env: Frame, emit: E) => Stop) => Stop;

function alternatives(count: number, bind: Binder): Alternatives {
  if (count === 1) return (value, env, emit, body) => bind(0, value, env, (benv) => body(benv, emit));
  return (value, env, emit, body) => {
    const attempt = (i: number): Stop =>
      i === count - 1
        ? bind(i, value, env, (benv) => body(benv, emit))
        : tryRun((e) => bind(i, value, env, (benv) => body(benv, e)), emit, () => attempt(i + 1));
    return attempt(0);
  };
}

/** A number or string: values JavaScript compares by value, where jq 1.8.2 compares where they are kept. */
const comparedByValue = (v: JqValue): boolean => typeof v === "number" || typeof v === "string";

/** The path of `value` when jq tracks `path` with the value `at` it: the path only if it is that very value. */
function pathOf(value: JqValue, path: PathComponent[], at: JqValue): PathComponent[] {
  return path !== INVALID_PATH && Object.is(value, at) ? path : INVALID_PATH;
}

/**
 * The path of the input of `reduce`/`foreach`'s source, which jq runs after `init` with the path state
 * `init` left: its output's path, or, when that is no path (`{}`, `0`: a constant moves no path), the
 * input's own, so `null | path(reduce .[] as $x ({}; .))` fails on iterating null, as in jq.
 */
function sourcePath(input: JqValue, path: PathComponent[], ip: PathComponent[], iv: JqValue): PathComponent[] {
  return ip === INVALID_PATH ? path : pathOf(input, ip, iv);
}

/** The source of `reduce`/`foreach`, its patterns, and the scope of the update with the patterns' variables. */
function compileFoldSource(
  node: Extract<Node, { type: "Reduce" | "Foreach" }>,
  scope: Scope | null,
  ctx: CompileContext,
): { source: Gen; each: Alternatives; bodyScope: Scope | null } {
  return { source: compile(node.source, scope, ctx), ...foldBinding(node, scope, ctx) };
}

/** The patterns of `reduce`/`foreach` and the scope of the update with their variables (a path expression compiles its source as a path). */
function foldBinding(node: Extract<Node, { type: "Reduce" | "Foreach" }>, scope: Scope | null, ctx: CompileContext): { each: Alternatives; bodyScope: Scope | null } {
  const { names, bind } = compilePatterns(node.patterns, scope, ctx);
  return { each: alternatives(node.patterns.length, bind), bodyScope: pushVars(scope, names) };
}

/**
 * `source as $x | body` in tail position. When the source has one output (statically, or a `$param`
 * whose argument has), the body stays in tail position; otherwise each body's tail call is made at once.
 */
function compileTailAs(node: Extract<Node, { type: "As" }>, scope: Scope | null, ctx: CompileContext): Gen {
  const pattern = node.patterns[0]!;
  if (node.patterns.length !== 1 || pattern.type !== "VarPattern") {
    const gen = compileAs(node.source, node.patterns, node.body, scope, ctx, false) as Gen;
    return (input, env, emit) => force(gen(input, env, emit));
  }
  const source = compile(node.source, scope, ctx);
  const body = compile(node.body, pushVars(scope, [pattern.name]), ctx, true);
  const found = node.source.type === "Call" && node.source.args.length === 0 ? lookup(scope, "func", node.source.name, 0) : undefined;
  const paramDepth = found?.kind === "param" ? found.depth : -1;
  const single = isSingle(node.source);
  const one = (input: JqValue, env: Frame): JqValue => {
    let value: JqValue = null;
    source(input, env, (v) => {
      value = v;
      return undefined;
    });
    return value;
  };
  return (input, env, emit) => {
    if (single || (paramDepth >= 0 && (frameAt(env, paramDepth).v as Closure).code.single)) {
      return body(input, { v: one(input, env), up: env }, emit);
    }
    return source(input, env, (v) => force(body(input, { v, up: env }, emit)));
  };
}

function compileAs(
  sourceNode: Node,
  patterns: Pattern[],
  bodyNode: Node,
  scope: Scope | null,
  ctx: CompileContext,
  pathMode: boolean,
): Gen | PathGen {
  const source = compile(sourceNode, scope, ctx);
  const { names, bind } = compilePatterns(patterns, scope, ctx);
  const bodyScope = pushVars(scope, names);
  const each = alternatives(patterns.length, bind);
  if (!pathMode) {
    const body = compile(bodyNode, bodyScope, ctx);
    return ((input, env, emit) => source(input, env, (v) => each(v, env, emit, (benv, out) => body(input, benv, out)))) as Gen;
  }
  const body = compilePath(bodyNode, bodyScope, ctx);
  if (patterns.length === 1 && patterns[0]!.type !== "VarPattern") {
    // A destructuring moves jq's tracked path on (see `tracked`): the body's input keeps a path only
    // when it is still the value at the tracked path, and so does a result that is that value (`$x`) —
    // not a number or string, which here cannot be told from an equal literal (never one in jq 1.8.2).
    return ((input, path, env, emit) =>
      source(input, env, (v) =>
        bind(0, v, env, (benv, track) => body(input, pathOf(input, track!.path, track!.value), benv, (p, out) => emit(p === INVALID_PATH && !comparedByValue(out) ? pathOf(out, track!.path, track!.value) : p, out)), { path, value: input }),
      )) as PathGen;
  }
  return ((input, path, env, emit) =>
    source(input, env, (v) => each(v, env, emit, (benv, out) => body(input, path, benv, out)))) as PathGen;
}

// ---- assignment ----
/**
 * An assignment, given the set of containers it may change in place (`owned`): those it copied itself.
 * Each output starts from its input; a container a user filter gets to see leaves the set, so no value
 * a program can hold is ever changed. With `owned` from a `reduce`, its state is carried between steps.
 */
type AssignGen = (input: JqValue, env: Frame, emit: Emit, owned?: Set<object>) => Stop;

function compileAssign(node: Extract<Node, { type: "Assign" }>, scope: Scope | null, ctx: CompileContext): AssignGen {
  const lhs = compilePath(node.left, scope, ctx);
  const rhs = compile(node.right, scope, ctx);
  const paths = (input: JqValue, env: Frame): PathComponent[][] => {
    const out: PathComponent[][] = [];
    lhs(input, [], env, (p, v) => {
      if (p === INVALID_PATH) throw invalidPath(v);
      out.push(p);
      return undefined;
    });
    return out;
  };
  if (node.op === "=") {
    return (input, env, emit, shared) =>
      rhs(input, env, (v) => {
        const owned = shared ?? new Set<object>();
        let acc = input;
        for (const p of paths(input, env)) acc = setpath(acc, p, v, owned);
        return emit(acc);
      });
  }
  if (node.op === "|=") {
    // The first output of the update replaces the value; a path whose update is empty is deleted,
    // all such deletions at the end (jq 1.7.1's `_modify`).
    return (input, env, emit, shared) => {
      let owned = shared ?? new Set<object>();
      let acc = input;
      const deletions: PathComponent[][] = [];
      // One stop token and one consumer for all paths: the update's first output, then stop.
      const token = {};
      let got = false;
      let first: JqValue = null;
      const take = (v: JqValue): Stop => {
        got = true;
        first = v;
        return token;
      };
      for (const p of paths(input, env)) {
        step();
        // jq's _modify runs each path's update under a label.
        countLabel();
        const old = getpath(acc, p);
        // The update may keep what it is given: from now on, nothing already copied is changed in place.
        if (typeof old === "object" && old !== null && owned.has(old)) owned = renew(owned, shared);
        got = false;
        // A break out of the update unwinds the whole assignment.
        const r = rhs(old, env, take);
        if (r !== undefined && r !== token) return r;
        if (got) acc = setpath(acc, p, first, owned);
        else deletions.push(p);
      }
      return emit(deletions.length ? delpaths(acc, deletions) : acc);
    };
  }
  const op = node.op.slice(0, -1);
  const combine: (a: JqValue, b: JqValue) => JqValue = op === "//" ? (a, b) => (isTruthy(a) ? a : b) : BINARY[op]!;
  return (input, env, emit, shared) =>
    rhs(input, env, (v) => {
      let owned = shared ?? new Set<object>();
      let acc = input;
      for (const p of paths(input, env)) {
        const old = getpath(acc, p);
        if (typeof old === "object" && old !== null && owned.has(old)) owned = renew(owned, shared);
        acc = setpath(acc, p, combine(old, v), owned);
      }
      return emit(acc);
    });
}

/** A fresh ownership set; a reduce's shared set is emptied in place, as its later steps hold it. */
function renew(owned: Set<object>, shared: Set<object> | undefined): Set<object> {
  if (owned === shared) {
    owned.clear();
    return owned;
  }
  return new Set();
}

/**
 * Whether `reduce`'s update can carry its ownership set from step to step: an assignment whose right
 * side cannot see the state (`.[$i] = $x`, `.[$k] += 1`, any `|=`), so the state it builds is held by
 * the reduce alone. `=` and arithmetic updates also need a right side with exactly one output.
 */
function carriesOwnership(node: Node): boolean {
  // `. + $x`: the state appended to (jq appends in place to a value only it holds).
  if (node.type === "Binary" && node.op === "+" && node.left.type === "Identity") return !usesInput(node.right) && isSingle(node.right);
  if (node.type !== "Assign") return false;
  if (node.op === "|=") return true;
  return !usesInput(node.right) && isSingle(node.right);
}

/** `state + v` where the reduce owns the state: an array or object it built is appended to in place. */
function addToOwned(state: JqValue, v: JqValue, owned: Set<object>): JqValue {
  if (v !== null && state !== null && owned.has(state as object)) {
    if (Array.isArray(state) && Array.isArray(v)) {
      checkArray(state.length + v.length);
      charge(v.length);
      for (let i = 0; i < v.length; i++) state.push(v[i]!);
      return state;
    }
    if (isObject(state) && isObject(v)) {
      for (const k in v) setKey(state, k, v[k]!);
      return state;
    }
  }
  const sum = add(state, v);
  if (sum !== state && sum !== v && typeof sum === "object" && sum !== null) owned.add(sum);
  return sum;
}

/** Whether a filter may read its input `.` (conservative: true for anything not listed). */
function usesInput(node: Node): boolean {
  switch (node.type) {
    case "Literal":
    case "Var":
      return false;
    case "Pipe":
      return usesInput(node.left);
    case "Index":
      return usesInput(node.target) || usesInput(node.index);
    case "Binary":
    case "And":
    case "Or":
    case "Alternative":
    case "Comma":
      return usesInput(node.left) || usesInput(node.right);
    case "Neg":
      return usesInput(node.operand);
    case "Array":
      return node.body !== undefined && usesInput(node.body);
    case "String":
      return node.parts.some((p) => typeof p !== "string" && usesInput(p));
    case "Object":
      // A shorthand entry (`{a}`, `{"\(e)"}`) reads its value from the input.
      return node.entries.some((e) => !e.value || e.keyed === true || usesInput(e.key) || usesInput(e.value));
    default:
      return true;
  }
}

/** Whether a filter has exactly one output whenever it does not raise (conservative). */
function isSingle(node: Node): boolean {
  switch (node.type) {
    case "Literal":
    case "Var":
    case "Identity":
    case "Array":
    case "Format":
      return true;
    case "Pipe":
    case "Binary":
    case "And":
    case "Or":
      return isSingle(node.left) && isSingle(node.right);
    case "Index":
      return isSingle(node.target) && isSingle(node.index);
    case "Neg":
      return isSingle(node.operand);
    case "String":
      return node.parts.every((p) => typeof p === "string" || isSingle(p));
    case "Object":
      return node.entries.every((e) => isSingle(e.key) && (!e.value || isSingle(e.value)));
    default:
      return false;
  }
}

// ---- path mode ----
/** Compiles an AST in path mode: each output is a path (from the input of `path(...)`) and its value. */
export function compilePath(node: Node, scope: Scope | null, ctx: CompileContext, optional = false): PathGen {
  switch (node.type) {
    case "Identity":
      return (input, path, _env, emit) => emit(path, input);
    case "RecurseDefault":
      return compilePath({ type: "Call", name: "recurse", args: [], span: node.span }, scope, ctx);
    case "Index": {
      const target = compilePath(node.target, scope, ctx);
      const idx = compile(node.index, scope, ctx);
      const opt = optional;
      return (input, path, env, emit) =>
        idx(input, env, (k) =>
          target(input, path, env, (p, v) => {
            if (p === INVALID_PATH) throw invalidAccess(k, v);
            // null indexed by a name or a number is null; by anything else, the error of .[k] on null.
            if (v === null && (typeof k === "string" || typeof k === "number")) return emit([...p, k], null);
            const r = opt ? orNothing(() => index(v, k)) : index(v, k);
            return r === NOTHING ? undefined : emit([...p, k as PathComponent], r);
          }),
        );
    }
    case "Slice": {
      const target = compilePath(node.target, scope, ctx);
      const from = node.from ? compile(node.from, scope, ctx) : constNull;
      const to = node.to ? compile(node.to, scope, ctx) : constNull;
      const opt = optional;
      return (input, path, env, emit) =>
        from(input, env, (f) =>
          to(input, env, (t) =>
            target(input, path, env, (p, v) => {
              if (p === INVALID_PATH) throw invalidAccess({ start: f, end: t }, v);
              const r = opt ? orNothing(() => slice(v, f, t)) : slice(v, f, t);
              return r === NOTHING ? undefined : emit([...p, { start: f, end: t }], r);
            }),
          ),
        );
    }
    case "Iterate": {
      const target = compilePath(node.target, scope, ctx);
      const opt = optional;
      return (input, path, env, emit) =>
        target(input, path, env, (p, v) => {
          if (p === INVALID_PATH) throw invalidIterate(v);
          if (opt && !Array.isArray(v) && !isObject(v)) return undefined;
          if (Array.isArray(v)) {
            for (let i = 0; i < v.length; i++) {
              step();
              const r = emit([...p, i], v[i]!);
              if (r) return r;
            }
            return undefined;
          }
          if (isObject(v)) {
            for (const k in v) {
              step();
              const r = emit([...p, k], v[k]!);
              if (r) return r;
            }
            return undefined;
          }
          // null is no collection here either: jq 1.8.2 fails (`{} | .a[] |= 1`), as `null | .[]` does.
          return iterate(v, () => undefined);
        });
    }
    case "Try": {
      if (node.access && (node.body.type === "Index" || node.body.type === "Slice" || node.body.type === "Iterate")) {
        return compilePath(node.body, scope, ctx, true);
      }
      const body = compilePath(node.body, scope, ctx);
      const handler = node.handler ? compile(node.handler, scope, ctx) : undefined;
      return (input, path, env, emit) => {
        return tryRun(
          (e) => body(input, path, env, e),
          emit,
          (err) => (handler ? handler(err.value as JqValue, env, (v) => emit(INVALID_PATH, v)) : undefined),
        );
      };
    }
    case "Pipe": {
      const left = compilePath(node.left, scope, ctx);
      const right = compilePath(node.right, scope, ctx);
      return (input, path, env, emit) => left(input, path, env, (p, v) => right(v, p, env, emit));
    }
    case "Comma": {
      const left = compilePath(node.left, scope, ctx);
      const right = compilePath(node.right, scope, ctx);
      return (input, path, env, emit) => left(input, path, env, emit) || right(input, path, env, emit);
    }
    case "If": {
      const cond = compile(node.cond, scope, ctx);
      const then = compilePath(node.then, scope, ctx);
      const otherwise: PathGen = node.else ? compilePath(node.else, scope, ctx) : (i, p, _e, emit) => emit(p, i);
      return (input, path, env, emit) =>
        cond(input, env, (c) => (isTruthy(c) ? then(input, path, env, emit) : otherwise(input, path, env, emit)));
    }
    case "Alternative": {
      const left = compilePath(node.left, scope, ctx);
      const right = compilePath(node.right, scope, ctx);
      return (input, path, env, emit) => {
        let any = false;
        const r = left(input, path, env, (p, v) => (isTruthy(v) ? ((any = true), emit(p, v)) : undefined));
        if (r) return r;
        return any ? undefined : right(input, path, env, emit);
      };
    }
    // As jq runs them in a path expression: the source with the path `init` left tracked, each update
    // from the state with the path the source left (`init`'s when the source is no path, as a literal
    // leaves jq's tracking as it was), a path only while the state is the value at it, and what an
    // update tracks undone when the next item comes (jq backtracks to the source). So a `reduce` keeps
    // the path `init` gave only when its result is still the value at it.
    case "Reduce": {
      const { each, bodyScope } = foldBinding(node, scope, ctx);
      const source = compilePath(node.source, scope, ctx);
      const init = compilePath(node.init, scope, ctx);
      const update = compilePath(node.update, bodyScope, ctx);
      return (input, path, env, emit) =>
        init(input, path, env, (ip, iv) => {
          let state = iv;
          // Whether the state is `init`'s very value: a number or string only when an update kept its path.
          let same = true;
          const r = source(input, sourcePath(input, path, ip, iv), env, (sp, sv) =>
            each(sv, env, emit, (benv) => {
              step();
              const s0 = state;
              state = null;
              return update(s0, sp === INVALID_PATH ? pathOf(s0, ip, iv) : pathOf(s0, sp, sv), benv, (p, v) => {
                state = v;
                same = Object.is(v, iv) && (p !== INVALID_PATH || !comparedByValue(v));
                return undefined;
              });
            }),
          );
          return r || emit(same ? ip : INVALID_PATH, state);
        });
    }
    case "Foreach": {
      const { each, bodyScope } = foldBinding(node, scope, ctx);
      const source = compilePath(node.source, scope, ctx);
      const init = compilePath(node.init, scope, ctx);
      const update = compilePath(node.update, bodyScope, ctx);
      const extract: PathGen = node.extract ? compilePath(node.extract, bodyScope, ctx) : (i, p, _e, emit) => emit(p, i);
      return (input, path, env, emit) =>
        init(input, path, env, (ip, iv) => {
          let state = iv;
          return source(input, sourcePath(input, path, ip, iv), env, (sp, sv) =>
            each(sv, env, emit, (benv, out) => {
              step();
              const s0 = state;
              state = null;
              return update(s0, sp === INVALID_PATH ? pathOf(s0, ip, iv) : pathOf(s0, sp, sv), benv, (p, v) => {
                state = v;
                return extract(v, p, benv, out);
              });
            }),
          );
        });
    }
    case "FuncDef": {
      const rest = compilePath(node.rest, defineFunction(node, scope, ctx), ctx);
      return (input, path, env, emit) => rest(input, path, { v: null, up: env }, emit);
    }
    case "Call":
      return compileCallPath(node, scope, ctx);
    case "As":
      return compileAs(node.source, node.patterns, node.body, scope, ctx, true) as PathGen;
    case "Label": {
      const body = compilePath(node.body, push(scope, { kind: "label", name: node.name }), ctx);
      return (input, path, env, emit) => runLabel((token, e: PathEmit) => body(input, path, { v: token, up: env }, e), emit);
    }
    case "Break": {
      const gen = compile(node, scope, ctx);
      return (input, _path, env) => gen(input, env, () => undefined);
    }
    case "Array": {
      // jq collects `[e]` without leaving path mode (no SUBEXP as for object keys and values): inside
      // it, accessing a value that is not at the current path fails (`path([1 | .a])`, jq's "Invalid
      // path expression near attempt to access element"); the array itself is never a path.
      if (!node.body) break;
      const body = compilePath(node.body, scope, ctx);
      return (input, path, env, emit) => {
        const out: JqValue[] = [];
        const r = body(input, path, env, (_p, v) => {
          step();
          if (out.push(v) > MAX_ARRAY_LENGTH) checkArray(out.length);
          return undefined;
        });
        return r || emit(INVALID_PATH, out);
      };
    }
    case "Literal":
      // jq 1.8.2 keeps a number literal's text and a string on the heap: neither is ever the very
      // value at the current path (null, true and false are, on an input that is the same).
      if (typeof node.value === "number" || typeof node.value === "string") {
        const value = node.value;
        return (_input, _path, _env, emit) => emit(INVALID_PATH, value);
      }
      break;
    default:
      break;
  }
  const gen = compile(node, scope, ctx);
  // As jq: a value that is the very value at the current path (`. as $x | path($x | .[0])`, `tostring`
  // of a string) keeps the path; any other value is a path only by mistake.
  return (input, path, env, emit) => gen(input, env, (v) => emit(Object.is(v, input) ? path : INVALID_PATH, v));
}

function compileCallPath(node: Extract<Node, { type: "Call" }>, scope: Scope | null, ctx: CompileContext): PathGen {
  const arity = node.args.length;
  const found = lookup(scope, "func", node.name, arity);
  if (found && found.kind === "param") {
    const depth = found.depth;
    return (input, path, env, emit) => {
      const c = frameAt(env, depth).v as Closure;
      return c.code.path()(input, path, c.env, emit);
    };
  }
  if (found && found.kind === "func") {
    const fn = found.fn;
    const args = node.args.map((a) => compileArg(a, scope, ctx));
    const depth = found.depth;
    const isStatic = found.isStatic;
    return (input, path, env, emit) => {
      let e: Frame = isStatic ? fn.home! : frameAt(env, depth);
      for (const a of args) e = { v: { code: a, env } satisfies Closure, up: e };
      enterCall();
      try {
        return functionPathGen(fn, ctx)(input, path, e, emit);
      } finally {
        current.depth--;
      }
    };
  }
  const native = ctx.natives.get(`${node.name}/${arity}`);
  if (native && native.kind === "gen" && native.path) {
    const pathImpl = native.path;
    const args = node.args.map((a) => compileArg(a, scope, ctx));
    return (input, path, env, emit) => pathImpl(input, path, args.map((code) => ({ code, env })), emit);
  }
  const gen = compileCall(node, scope, ctx);
  // As jq: a value that is the very value at the current path (`. as $x | path($x | .[0])`, `tostring`
  // of a string) keeps the path; any other value is a path only by mistake.
  return (input, path, env, emit) => gen(input, env, (v) => emit(Object.is(v, input) ? path : INVALID_PATH, v));
}

// ---- single-valued fast path ----
/** A filter known to produce exactly one output (or raise): evaluated as a plain function call. */
export type Single = (input: JqValue) => JqValue;

/**
 * Compiles expressions that always produce exactly one value and call nothing that could loop
 * (paths with constant keys, `//`, comparisons, arithmetic, `if`): the common Karta spec and
 * selector paths. They skip the generator machinery entirely; anything else returns undefined.
 */
export function compileSingle(node: Node): Single | undefined {
  switch (node.type) {
    case "Identity":
      return (input) => input;
    case "Literal": {
      const value = node.value;
      return () => value;
    }
    case "Index": {
      if (node.index.type !== "Literal") return undefined;
      const keys = fieldChain(node);
      if (keys) return fieldAccessor(keys);
      const key = node.index.value;
      if (node.target.type === "Identity") return (input) => index(input, key);
      const target = compileSingle(node.target);
      return target && ((input) => index(target(input), key));
    }
    case "Pipe": {
      const left = compileSingle(node.left);
      const right = left && compileSingle(node.right);
      return right && ((input) => right(left!(input)));
    }
    case "Binary": {
      const left = compileSingle(node.left);
      const right = left && compileSingle(node.right);
      const f = BINARY[node.op]!;
      // jq evaluates the right operand first: when both fail, the right one's error is raised.
      return (
        right &&
        ((input) => {
          const b = right(input);
          return f(left!(input), b);
        })
      );
    }
    case "And":
    case "Or": {
      const left = compileSingle(node.left);
      const right = left && compileSingle(node.right);
      const isAnd = node.type === "And";
      return right && ((input) => (isTruthy(left!(input)) === isAnd ? isTruthy(right(input)) : !isAnd));
    }
    case "Neg": {
      const operand = compileSingle(node.operand);
      return operand && ((input) => negate(operand(input)));
    }
    case "Alternative": {
      const left = compileSingle(node.left);
      const right = left && compileSingle(node.right);
      return (
        right &&
        ((input) => {
          const v = left!(input);
          return isTruthy(v) ? v : right(input);
        })
      );
    }
    case "If": {
      if (!node.else) return undefined;
      const cond = compileSingle(node.cond);
      const then = cond && compileSingle(node.then);
      const otherwise = then && compileSingle(node.else);
      return otherwise && ((input) => (isTruthy(cond!(input)) ? then!(input) : otherwise(input)));
    }
    default:
      return undefined;
  }
}

/** `.a.b["c"]`: the field names of a chain of constant string keys from `.`, or undefined. */
function fieldChain(node: Node): string[] | undefined {
  const keys: string[] = [];
  let n = node;
  while (n.type === "Index") {
    if (n.index.type !== "Literal" || typeof n.index.value !== "string") return undefined;
    // Names that objects inherit would need an own-property check on every access: leave them to index().
    if (n.index.value in Object.prototype) return undefined;
    keys.push(n.index.value);
    n = n.target;
  }
  return n.type === "Identity" ? keys.reverse() : undefined;
}

/** A field path as a loop over plain property reads: the hottest shape of Karta expression. */
function fieldAccessor(keys: string[]): Single {
  const step = (v: JqValue, k: string): JqValue => {
    if (v === null) return null;
    if (typeof v === "object" && !Array.isArray(v)) {
      const x = (v as JqObject)[k];
      return x === undefined ? null : x;
    }
    return index(v, k);
  };
  if (keys.length === 1) {
    const [a] = keys as [string];
    return (input) => step(input, a);
  }
  if (keys.length === 2) {
    const [a, b] = keys as [string, string];
    return (input) => step(step(input, a), b);
  }
  if (keys.length === 3) {
    const [a, b, c] = keys as [string, string, string];
    return (input) => step(step(step(input, a), b), c);
  }
  return (input) => {
    let v = input;
    for (let i = 0; i < keys.length; i++) v = step(v, keys[i]!);
    return v;
  };
}

// ---- the builtin library ----
/**
 * Compiles some of the library's definitions (each parsed alone, with its own text for messages), in
 * the library's order, as {@link compileLibrary} compiles them all.
 */
export function compileLibraryDefs(defs: readonly { node: Node; program: string }[], ctx: CompileContext): Scope | null {
  let scope: Scope | null = null;
  const home: Frame = { v: null, up: null };
  const defined: FuncInfo[] = [];
  for (const { node, program } of defs) {
    if (node.type !== "FuncDef") continue;
    scope = defineFunction(node, scope, { ...ctx, program }, home);
    defined.push((scope.entry as { fn: FuncInfo }).fn);
  }
  for (const fn of defined) {
    let bodyScope: Scope | null = scope;
    fn.params.forEach((_p, i) => (bodyScope = push(bodyScope, { kind: "param", name: paramName(fn.params, i) })));
    fn.bodyScope = bodyScope;
  }
  return scope;
}

/**
 * Compiles the jq-defined builtin library once: a chain of static function definitions whose scope
 * user programs are compiled in.
 */
export function compileLibrary(source: string, ctx: CompileContext, parse: (text: string) => Node): Scope | null {
  let node = parse(source + "\n.");
  let scope: Scope | null = null;
  const home: Frame = { v: null, up: null };
  const defined: FuncInfo[] = [];
  while (node.type === "FuncDef") {
    const restScope = defineFunction(node, scope, { ...ctx, program: source }, home);
    scope = restScope;
    defined.push((restScope.entry as { fn: FuncInfo }).fn);
    node = node.rest;
  }
  // Library functions see each other whatever their order (they capture nothing at run time).
  for (const fn of defined) {
    let bodyScope: Scope | null = scope;
    fn.params.forEach((_p, i) => (bodyScope = push(bodyScope, { kind: "param", name: paramName(fn.params, i) })));
    fn.bodyScope = bodyScope;
  }
  return scope;
}

export { JqHalt, JqLimitError };
