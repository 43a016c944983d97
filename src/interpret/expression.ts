/**
 * One jq expression of a definition, compiled once and run many times on plain objects.
 *
 * Most Karta expressions are plain paths (`.metadata.labels["training.kubeflow.org/replica-type"]`,
 * `.spec.replicas // 1`). Those get a direct accessor that gives exactly what jq gives and falls back
 * to the engine whenever jq would raise an error, so that per-pod work stays far below the cost of
 * parsing the pod. Everything else runs on the jq engine.
 */
import { goFloat, goNumberString, goSprint } from "../gofmt/index.js";
import { compileJq, JqError, JqSyntaxError, type JqProgram, type Node } from "../jq/index.js";
import { formatPath, type PathSegment } from "../definition/diagnostic.js";

/** The outcome of running an expression: its outputs, or jq's error message. */
export type RunResult = { ok: true; values: unknown[] } | { ok: false; error: string };

/** Returned by a fast accessor when it cannot decide (jq would raise): run the engine instead. */
const UNDECIDED = Symbol("undecided");
type Accessor = (input: unknown) => unknown;

const WORD = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * The expressions that stopped at a limit of the engine (its step budget, its depth, a time slice) in the
 * interpretation under way, with their error. Such an expression is not run again there: on the next pod
 * it would most likely stop the same way after as long (a definition looping on every pod took some 4 s
 * a pod, an hour for a thousand pods). Only a broken expression ever reaches a limit.
 */
let stopped: Map<CompiledExpression, string> | undefined;

/** Runs `f` (one interpretation) with a scope in which an expression that stopped at a limit is not run again. */
export function withLimitMemo<T>(f: () => T): T {
  if (stopped !== undefined) return f();
  stopped = new Map();
  try {
    return f();
  } finally {
    stopped = undefined;
  }
}

/** A compiled expression, with the Karta field path it came from (for diagnostics). */
export class CompiledExpression {
  /** The expression as written. */
  readonly text: string;
  /** Where it is in the Karta, e.g. `spec.structureDefinition.childComponents[1].scaleDefinition.replicasPath`. */
  readonly path: string;
  readonly segments: readonly PathSegment[];
  /** Why it does not compile, when it does not. */
  readonly compileError: string | undefined;
  /** A grouping key written as a bare word (`gpu`): the word itself is the key. */
  readonly literal: string | undefined;
  readonly program: JqProgram | undefined;
  private readonly fast: Accessor | undefined;
  /**
   * Whether the expression is a plain path (`.a.b["c"]`): its outputs are the input's own values, and
   * `PATH == "v"` compares them. Known once first asked.
   */
  get isPlainPath(): boolean {
    return (this.plainPath ??= this.program !== undefined && pathKeys(this.program.ast) !== undefined);
  }
  private plainPath: boolean | undefined;
  /** `path(text)`, compiled when an error first asks where an output came from (null: it does not compile). */
  private paths: JqProgram | null | undefined;

  /**
   * `programs`: what each text compiled to so far (a program, or why not), shared by a definition's
   * expressions: its statuses often share one expression (a YAML alias), compiled once (a program keeps
   * no state between runs).
   */
  constructor(text: string, segments: readonly PathSegment[], options: { literalWord?: boolean; programs?: Map<string, JqProgram | Error> } = {}) {
    this.text = text;
    this.segments = segments;
    this.path = formatPath(segments);
    let program: JqProgram | undefined;
    let compileError: string | undefined;
    let literal: string | undefined;
    let compiled = options.programs?.get(text);
    if (compiled === undefined) {
      try {
        compiled = compileJq(text, { safe: true });
      } catch (err) {
        compiled = err instanceof Error ? err : new Error(String(err));
      }
      options.programs?.set(text, compiled);
    }
    if (!(compiled instanceof Error)) program = compiled;
    else {
      const err = compiled;
      const trimmed = text.trim();
      // The authoring guide allows a literal grouping key such as 'gpu' or 'no-gpu'; jq would read
      // it as a call to an undefined function (or a subtraction of two), so a bare word is a literal.
      if (options.literalWord && WORD.test(trimmed) && err instanceof JqSyntaxError) literal = trimmed;
      else compileError = err.message;
    }
    this.program = literal === undefined ? program : undefined;
    this.compileError = compileError;
    this.literal = literal;
    this.fast = this.program ? accessorOf(this.program.ast) : undefined;
  }

  /** All outputs on `input`. */
  run(input: unknown): RunResult {
    if (this.literal !== undefined) return { ok: true, values: [this.literal] };
    if (!this.program) return { ok: false, error: this.compileError ?? "not compiled" };
    if (this.fast) {
      const v = this.fast(input);
      if (v !== UNDECIDED) return { ok: true, values: [v] };
    }
    const before = stopped?.get(this);
    if (before !== undefined) return { ok: false, error: before };
    try {
      return { ok: true, values: this.program.run(input) };
    } catch (err) {
      return { ok: false, error: this.failed(err) };
    }
  }

  /** The error's text; remembered when it is a limit's (see {@link withLimitMemo}). */
  private failed(err: unknown): string {
    const text = errorText(err);
    if (stopped !== undefined && err instanceof JqError && err.kind === "limit") stopped.set(this, `${text} (not run again in this interpretation: it stopped so on an earlier input)`);
    return text;
  }

  /** The first output (undefined when there is none). */
  first(input: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
    if (this.literal !== undefined) return { ok: true, value: this.literal };
    if (!this.program) return { ok: false, error: this.compileError ?? "not compiled" };
    if (this.fast) {
      const v = this.fast(input);
      if (v !== UNDECIDED) return { ok: true, value: v };
    }
    const before = stopped?.get(this);
    if (before !== undefined) return { ok: false, error: before };
    try {
      return { ok: true, value: this.program.first(input) };
    } catch (err) {
      return { ok: false, error: this.failed(err) };
    }
  }

  /**
   * Where in `input` each of the expression's `count` outputs was read, as field paths
   * (`spec.pytorchReplicaSpecs.Worker.replicas`), for errors the object caused: `path(TEXT)` run once, on
   * the safe profile and its budgets. None where the expression is not a path expression there
   * (`tonumber`, a literal) or fails, and none at all when its paths do not line up with the outputs
   * (`?` dropping one). Compiled on first use: only errors ask.
   */
  locateAll(input: unknown, count?: number): (string | undefined)[] {
    if (!this.program) return [];
    if (this.paths === undefined) {
      try {
        this.paths = compileJq(`path(${this.text}\n)`, { safe: true });
      } catch {
        this.paths = null;
      }
    }
    if (this.paths === null) return [];
    let found: unknown[];
    try {
      found = this.paths.run(input);
    } catch {
      return [];
    }
    const outputs = count ?? (this.run(input) as { values?: unknown[] }).values?.length;
    if (outputs !== found.length) return [];
    return found.map((at) => (Array.isArray(at) && at.length > 0 && at.every((k) => typeof k === "string" || (typeof k === "number" && Number.isInteger(k))) ? formatPath(at as PathSegment[]) : undefined));
  }

  /**
   * For errors about this input's outputs (`count` of them, when the caller has them): the note naming
   * the object's field the `index`-th came from (empty when unknown), located once for all of them.
   */
  objectFields(input: unknown, count?: number): (index: number) => string {
    let located: (string | undefined)[] | undefined;
    return (index) => {
      located ??= this.locateAll(input, count);
      const at = located[index];
      return at === undefined ? "" : ` (the object's ${at})`;
    };
  }

  /**
   * Exactly one non-empty output, as the reference requires of grouping keys, filters, idPath and
   * keyPath; the value as text (numbers and booleans printed as Go's `%v` does).
   */
  single(input: unknown): { ok: true; value: unknown; text: string } | { ok: false; error: string } {
    const r = this.run(input);
    if (!r.ok) return r;
    if (r.values.length !== 1) return { ok: false, error: `expected single query result, got ${r.values.length}` };
    const v = r.values[0];
    if (v === null || v === undefined || v === "") return { ok: false, error: `query result is empty ${v === "" ? "" : "<nil>"}`.trimEnd() };
    // Upstream prints it with fmt.Sprintf("%v"): maps as map[a:b], lists as [a b]. The pod reaches gojq
    // through JSON, so a path's numbers are float64 (1000000 prints as 1e+06); gojq's own integers (a
    // literal, a length) are ints.
    return { ok: true, value: v, text: goSprint(v, this.isPlainPath ? goFloat : goNumberString) };
  }
}

function errorText(err: unknown): string {
  if (err instanceof JqError) return err.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * A direct accessor for `.a.b["c"]` (optionally `// literal`), or undefined when the expression is
 * anything else. It returns UNDECIDED where jq would raise, so that the engine reports the error.
 */
function accessorOf(ast: Node): Accessor | undefined {
  const keys = pathKeys(ast);
  if (keys) return pathAccessor(keys);
  if (ast.type === "Alternative" && ast.right.type === "Literal") {
    const left = pathKeys(ast.left);
    if (!left) return undefined;
    const get = pathAccessor(left);
    const fallback = ast.right.value;
    // jq's `//` yields the right side when the left gives nothing truthy; an error of the left side
    // is not caught (the engine reports it).
    return (input) => {
      const v = get(input);
      return v === UNDECIDED ? UNDECIDED : v === null || v === false ? fallback : v;
    };
  }
  return undefined;
}

function pathKeys(ast: Node): string[] | undefined {
  const keys: string[] = [];
  let n: Node = ast;
  while (n.type === "Index") {
    if (n.index.type !== "Literal" || typeof n.index.value !== "string") return undefined;
    keys.push(n.index.value);
    n = n.target;
  }
  if (n.type !== "Identity" || keys.length === 0) return undefined;
  return keys.reverse();
}

function pathAccessor(keys: string[]): Accessor {
  return (input) => {
    let v: unknown = input;
    for (const k of keys) {
      if (v === null || v === undefined) return null;
      if (typeof v !== "object" || Array.isArray(v)) return UNDECIDED;
      v = (v as Record<string, unknown>)[k];
      if (v === undefined) v = null;
    }
    return v === undefined ? null : v;
  };
}
