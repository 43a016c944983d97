/**
 * Karta's jq engine (jq 1.8.2 semantics): compile a program once, run it many times on plain JS values.
 *
 * ```ts
 * const p = compileJq('.metadata.labels["training.kubeflow.org/replica-type"]');
 * p.first(pod); // "worker"
 * ```
 */
import type { Node } from "./ast.js";
import { NATIVES, builtinNames as listBuiltins, setLibraryNames } from "./builtins.js";
import { CompileContext, CompileUnit, Scope, Single, compile, compileLibraryDefs, compileSingle, unwrapError } from "./compiler.js";
import { JqRuntimeError } from "./errors.js";
import { reportedErrors } from "./error-order.js";
import { LIBRARY } from "./library.js";
import { messageJson } from "./native/json.js";
import { parseJq } from "./parser.js";
import { DEFAULT_LIMITS, Frame, Gen, JqHalt, JqLimitError, Limits, newContext, setCurrent } from "./runtime.js";
import { findUnsafe, safeProfileMessage, visit } from "./safe.js";
import { JqSyntaxError } from "./syntax-error.js";
import type { JqValue } from "./values.js";

export type { Node } from "./ast.js";
export type { JqValue } from "./values.js";
export type { Limits } from "./runtime.js";
export { JqSyntaxError } from "./syntax-error.js";
export { parseJq } from "./parser.js";
export { checkSafeProfile, findUnsafe, unsafeReason, visit, children, UNSAFE_FUNCTIONS } from "./safe.js";
export { DEFAULT_LIMITS, eventLoopSlice } from "./runtime.js";

/** Options of {@link compileJq}. */
export interface CompileOptions {
  /** Names of the `$variables` the program may use; their values are given to `run`. */
  variables?: string[];
  /** Reject what the reference Karta validator rejects (see {@link checkSafeProfile}). */
  safe?: boolean;
  /** Budgets for each run; defaults to {@link DEFAULT_LIMITS}. */
  limits?: Partial<Limits>;
  /** What `$ENV` and `env` return; `{}` unless given (expressions must not read the host environment). */
  env?: { [k: string]: JqValue };
}

/** Options of one run. */
export interface RunOptions {
  /** Values of the variables declared at compile time. */
  vars?: { [name: string]: unknown };
  /** Source of `input` / `inputs` (the command line passes the rest of its input stream). */
  nextInput?: () => { value: unknown } | undefined;
  /** What `input_filename` returns; a function is asked each time (the file changes as `input` reads on). */
  filename?: string | null | (() => string | null);
  /** Where `debug` and `stderr` write. */
  debug?: (message: string) => void;
  stderr?: (text: string) => void;
  /** How `debug` prints its message: keys sorted, non-ASCII escaped (jq's -S and -a). */
  debugFormat?: { sortKeys?: boolean; ascii?: boolean; colors?: readonly string[] };
  /** What `input_line_number` returns (lines of the current file read so far), or a function asked each time. */
  inputLineNumber?: number | (() => number);
  /**
   * The counter that numbers the runs' labels (the `{"__jq": N}` a `try` catches from a `break`): one
   * object for all the runs of one jq state (jq counts across its inputs); a fresh count per run without it.
   */
  labels?: { next: number };
}

/** A failure while running a program: jq's message, the raised value, and what was produced before it. */
export class JqError extends Error {
  /** `error`: raised by the program or a builtin; `limit`: a budget ran out; `halt`: `halt`/`halt_error`. */
  readonly kind: "error" | "limit" | "halt";
  /** The value raised by `error(v)` (jq's message string for builtin failures). */
  readonly value: unknown;
  /** Outputs produced before the failure. */
  readonly outputs: unknown[];
  /** For `halt`/`halt_error`: the exit code, as jq's C int (`karta jq` exits with it as jq does). */
  readonly exitCode: number;
  constructor(kind: JqError["kind"], message: string, value: unknown, outputs: unknown[], exitCode = 5) {
    super(message);
    this.name = "JqError";
    this.kind = kind;
    this.value = value;
    this.outputs = outputs;
    this.exitCode = exitCode;
  }
}

/** A compiled jq program. */
export interface JqProgram {
  readonly source: string;
  /** The parsed program, for analyses (paths read, assignability, safety). */
  readonly ast: Node;
  /** All outputs. Throws {@link JqError} (with the outputs produced so far) on failure. */
  run(input: unknown, options?: RunOptions): JqValue[];
  /** The first output, or undefined when there is none; the rest is never computed. */
  first(input: unknown, options?: RunOptions): JqValue | undefined;
  /** Calls `each` per output; returning `false` stops the program early. */
  forEach(input: unknown, each: (v: JqValue) => boolean | void, options?: RunOptions): void;
}

/** One definition of the jq-written library: its text, name and arity, and (once parsed) what it calls. */
interface LibraryDef {
  text: string;
  name: string;
  arity: number;
  parsed?: { node: Node; calls: Set<string> };
}

/**
 * The library, one entry per top-level `def` (each starts a line; its body may continue on indented
 * lines). Parsing all of it takes longer than most programs' own compilation, and a program uses a few
 * definitions: each is parsed when a program first calls it (start-up of `karta inspect`).
 */
let libraryDefs: LibraryDef[] | undefined;
function libraryEntries(): LibraryDef[] {
  if (!libraryDefs) {
    libraryDefs = [];
    for (const line of LIBRARY.split("\n")) {
      const head = /^def\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:\(([^)]*)\))?\s*:/.exec(line);
      if (head) libraryDefs.push({ text: line, name: head[1]!, arity: head[2] === undefined ? 0 : head[2].split(";").length });
      else if (/^\s+\S/.test(line) && libraryDefs.length > 0) libraryDefs[libraryDefs.length - 1]!.text += "\n" + line;
    }
    // What `builtins` lists, in the order a whole-library scope chain gives (last definition first).
    setLibraryNames(libraryDefs.map((d) => `${d.name}/${d.arity}`).reverse());
  }
  return libraryDefs;
}

/** The names of the functions a program calls (a superset: also those it defines itself). */
function calledNames(ast: Node): Set<string> {
  const names = new Set<string>();
  visit(ast, (n) => {
    if (n.type === "Call") names.add(n.name);
  });
  return names;
}

function parsedDef(d: LibraryDef): { node: Node; calls: Set<string> } {
  if (!d.parsed) {
    const node = parseJq(d.text + "\n.");
    d.parsed = { node, calls: calledNames(node) };
  }
  return d.parsed;
}

/** The library definitions included so far (indices), and their scope. It only grows. */
const included = new Set<number>();
let libraryScopeCache: Scope | null = null;
let libraryCompiled = false;

/**
 * The scope of the library definitions a program may call: every definition named by `names` (all
 * arities) and, transitively, what those call. Without `names`, the whole library.
 */
function libraryScope(names?: ReadonlySet<string>): Scope | null {
  const defs = libraryEntries();
  const wanted = new Set<number>();
  const pending = names === undefined ? defs.map((d) => d.name) : [...names];
  const seen = new Set<string>();
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    defs.forEach((d, i) => {
      if (d.name !== name || wanted.has(i)) return;
      wanted.add(i);
      for (const c of parsedDef(d).calls) pending.push(c);
    });
  }
  const grows = [...wanted].some((i) => !included.has(i));
  if (grows || !libraryCompiled) {
    for (const i of wanted) included.add(i);
    const ctx: CompileContext = { program: LIBRARY, natives: NATIVES as Map<string, never> };
    const chosen = defs.flatMap((d, i) => (included.has(i) ? [{ node: parsedDef(d).node, program: d.text }] : []));
    libraryScopeCache = compileLibraryDefs(chosen, ctx);
    libraryCompiled = true;
  }
  return libraryScopeCache;
}

let builtinSet: ReadonlySet<string> | undefined;
/**
 * The builtins this engine defines, as `name/arity` (what jq's `builtins` lists): the one list that
 * says which calls compile, for static checks that must agree with the engine.
 */
export function builtinNames(): ReadonlySet<string> {
  if (!builtinSet) {
    libraryEntries();
    builtinSet = new Set(listBuiltins());
  }
  return builtinSet;
}

/**
 * Compiles a jq program. Throws {@link JqSyntaxError} (with position) when it does not parse, uses an
 * unknown function or variable, or (with `safe`) fails the safe profile.
 */
export function compileJq(source: string, options: CompileOptions = {}): JqProgram {
  const ast = parseJq(source);
  if (options.safe) {
    // The error points at the first construct the profile refuses.
    const unsafe = findUnsafe(ast);
    if (unsafe) throw new JqSyntaxError(safeProfileMessage(source, unsafe.reason), source, unsafe.node.span.start);
  }
  const unit: CompileUnit = { errors: [], pending: [], closed: false };
  const ctx: CompileContext = { program: source, natives: NATIVES as Map<string, never>, unit };
  let names: Set<string> | undefined;
  try {
    names = calledNames(ast);
  } catch (e) {
    // Nested past the stack: the compiler reports it below; the whole library stands in.
    if (!(e instanceof RangeError)) throw e;
  }
  let scope = libraryScope(names);
  const variables = options.variables ?? [];
  for (const name of variables) scope = { entry: { kind: "var", name }, up: scope };
  let gen: Gen;
  try {
    gen = compile(ast, scope, ctx);
    for (let i = 0; i < unit.pending.length; i++) unit.pending[i]!();
  } catch (e) {
    if (e instanceof RangeError) throw new JqSyntaxError("program nested too deeply", source, 0);
    throw e;
  } finally {
    unit.closed = true;
  }
  if (unit.errors.length > 0) {
    // Those jq reports (a closure's only when the code around it has none), in the order of the program text.
    const seen = new Set<string>();
    const errors = unit.errors.filter((e) => !seen.has(`${e.offset} ${e.reason}`) && !!seen.add(`${e.offset} ${e.reason}`));
    const [first, ...more] = reportedErrors(ast, errors);
    throw new JqSyntaxError(first!.reason, source, first!.offset, first!.end, more);
  }
  const limits: Limits = { ...DEFAULT_LIMITS, ...options.limits };
  const env = options.env ?? {};
  // Plain paths and the like need no generator, no context and no budget: they cannot loop.
  const single: Single | undefined = variables.length === 0 ? compileSingle(ast) : undefined;
  const evalSingle = (input: unknown): JqValue => {
    try {
      return single!(input as JqValue);
    } catch (raw) {
      throw toJqError(unwrapError(raw), []);
    }
  };

  const execute = (input: unknown, opts: RunOptions, emit: (v: JqValue) => object | undefined, outputs: unknown[]): void => {
    const context = newContext(limits);
    context.env = env;
    context.filename = opts.filename ?? null;
    context.inputLineNumber = opts.inputLineNumber ?? 0;
    if (opts.nextInput) context.nextInput = opts.nextInput as () => { value: JqValue } | undefined;
    if (opts.debug) context.debug = opts.debug;
    if (opts.debugFormat) context.debugFormat = opts.debugFormat;
    if (opts.stderr) context.stderr = opts.stderr;
    if (opts.labels) context.labels = opts.labels;
    let frame: Frame = { v: null, up: null };
    for (const name of variables) frame = { v: (opts.vars?.[name] ?? null) as JqValue, up: frame };
    const prev = setCurrent(context);
    try {
      gen(input as JqValue, frame, emit);
    } catch (raw) {
      throw toJqError(unwrapError(raw), outputs);
    } finally {
      setCurrent(prev);
    }
  };

  return {
    source,
    ast,
    run(input, opts = {}) {
      if (single) return [evalSingle(input)];
      const outputs: JqValue[] = [];
      execute(
        input,
        opts,
        (v) => {
          outputs.push(v);
          if (outputs.length > limits.maxOutputs) {
            throw new JqLimitError(`evaluation exceeded its budget of ${limits.maxOutputs} outputs`);
          }
          return undefined;
        },
        outputs,
      );
      return outputs;
    },
    first(input, opts = {}) {
      if (single) return evalSingle(input);
      let result: JqValue | undefined;
      const stop = {};
      execute(
        input,
        opts,
        (v) => {
          result = v;
          return stop;
        },
        [],
      );
      return result;
    },
    forEach(input, each, opts = {}) {
      if (single) {
        each(evalSingle(input));
        return;
      }
      const stop = {};
      let count = 0;
      execute(
        input,
        opts,
        (v) => {
          if (++count > limits.maxOutputs) throw new JqLimitError(`evaluation exceeded its budget of ${limits.maxOutputs} outputs`);
          return each(v) === false ? stop : undefined;
        },
        [],
      );
    },
  };
}

function toJqError(e: unknown, outputs: unknown[]): unknown {
  if (e instanceof JqRuntimeError) {
    const message = typeof e.value === "string" ? e.value : `${messageJson(e.value)} (not a string)`;
    return new JqError("error", message, e.value, outputs);
  }
  if (e instanceof JqLimitError) return new JqError("limit", e.message, e.message, outputs);
  if (e instanceof JqHalt) return new JqError("halt", "halt", e.value, outputs, e.exitCode);
  if (e instanceof RangeError) {
    // The JS engine's own limits (stack depth, array or string size): report them as the budget they are.
    const message = /call stack/i.test(e.message)
      ? "evaluation nested too deeply (the input or the recursion is too deep)"
      : `evaluation exceeded a size limit (${e.message})`;
    return new JqError("limit", message, null, outputs);
  }
  return e;
}

/** Runs a program once on one input: a convenience for tests and one-off use. */
export function jq(source: string, input: unknown, options?: CompileOptions & RunOptions): JqValue[] {
  return compileJq(source, options).run(input, options);
}
