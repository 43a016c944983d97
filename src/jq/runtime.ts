/**
 * The runtime shapes shared by the compiler and the builtins: generators as callbacks, environments as
 * linked frames, the per-run context with its budgets, and the errors that no `try` may catch.
 *
 * A generator calls `emit` once per output. `emit` returns `undefined` to ask for more, or a stop token
 * (a `label`'s identity) to unwind: every generator returns the first stop token it receives, so
 * `first`, `limit`, `any`, `label`/`break` stop producing as soon as they have what they need.
 */
import type { JqValue, PathComponent } from "./value-types.js";

/** Returned by `emit` (and then by generators) to stop the enumeration; `undefined` means go on. */
export type Stop = object | undefined;
export type Emit = (v: JqValue) => Stop;
export type PathEmit = (path: PathComponent[], v: JqValue) => Stop;

/** A compiled filter in value mode. */
export type Gen = (input: JqValue, env: Frame, emit: Emit) => Stop;
/** A compiled filter in path mode: the input value with its path from the root of `path(...)`. */
export type PathGen = (input: JqValue, path: PathComponent[], env: Frame, emit: PathEmit) => Stop;

/** One binding of the runtime environment: a variable's value, a filter argument, a label or a function's home. */
export interface Frame {
  v: unknown;
  up: Frame | null;
}

/** A filter argument: compiled code together with the caller's environment. */
export interface Closure {
  code: CompiledArg;
  env: Frame;
}

export interface CompiledArg {
  /** The argument has exactly one output whenever it does not raise (known at compile time). */
  single?: boolean;
  gen: Gen;
  /** Path mode, compiled on first use. */
  path(): PathGen;
}

/** Limits on one evaluation of a program. */
export interface Limits {
  /** Evaluation steps (iterations, calls, reductions) before the run fails. */
  maxSteps: number;
  /** Nested function calls before the run fails. */
  maxDepth: number;
  /** Outputs a single run may produce. */
  maxOutputs: number;
}

export const DEFAULT_LIMITS: Limits = { maxSteps: 20_000_000, maxDepth: 1000, maxOutputs: 10_000_000 };

/** The largest array (elements) or string (UTF-16 units) a program may build: keeps memory bounded. */
export const MAX_ARRAY_LENGTH = 1 << 24;
export const MAX_STRING_LENGTH = 1 << 26;

/** What a run can see of the world: nothing, unless the caller passes it. */
export interface RunContext {
  steps: number;
  depth: number;
  limits: Limits;
  env: { [k: string]: JqValue };
  filename: JqValue | (() => string | null);
  /** Source of `input`/`inputs`; absent outside the command line. */
  nextInput?: () => { value: JqValue } | undefined;
  inputLineNumber: number | (() => number);
  /** Where `debug` and `stderr` write; ignored when absent. */
  debug?: (message: string) => void;
  stderr?: (text: string) => void;
  /** How `debug` prints its message (jq's -S and -a). */
  debugFormat?: { sortKeys?: boolean; ascii?: boolean; colors?: readonly string[] };
  /** Set while {@link eventLoopSlice} is open: the run's real step budget (its `limits.maxSteps` is then a checkpoint). */
  slice?: { maxSteps: number };
  /**
   * The number the next `label` gets (jq's GENLABEL counter): the `{"__jq": N}` a `try` catches from a
   * `break`. Shared by the runs of one jq state (the command line's inputs), as jq counts across them.
   */
  labels: { next: number };
}

/**
 * The stop token of one execution of a `label`: what `break` returns to unwind to it. jq raises a break
 * as the error `{"__jq": id}`, which a `try` between the break and its label catches ({@link labelValue}).
 */
export class LabelStop {
  readonly id = current.labels.next++;
}

/** The value jq's `break` raises: `{"__jq": id}`. */
export function labelValue(stop: LabelStop): { __jq: number } {
  return { __jq: stop.id };
}

/**
 * A label of jq's builtins (first, limit, isempty, any, all, `|=` per path...) that Karta runs natively:
 * it counts as jq's does, so the labels of the program get the numbers they get in jq.
 */
export function countLabel(): void {
  current.labels.next++;
}

export function newContext(limits: Limits = DEFAULT_LIMITS): RunContext {
  const context: RunContext = { steps: 0, depth: 0, limits, env: {}, filename: null, inputLineNumber: 0, labels: { next: 0 } };
  if (sliceState.open > 0) {
    // Runs in the slice stop at a checkpoint every SLICE_STEPS steps to look at the clock.
    context.slice = { maxSteps: limits.maxSteps };
    context.limits = { ...limits, maxSteps: Math.min(limits.maxSteps, SLICE_STEPS) };
  }
  return context;
}

const SLICE_STEPS = 1024;
const sliceState = { open: 0, until: 0, trips: 0 };

/**
 * Bounds the jq runs of work done on a thread that must stay responsive (a server's event loop, which
 * answers cheap requests itself and hands the rest to worker threads): while the slice is open, a run
 * fails once the slice's wall-clock time is spent (checked every 1,024 steps) and a regular expression
 * that would wait for the matching worker fails at once. `close()` tells whether anything failed so;
 * the caller then redoes the work where it may take its full budget. Slices may overlap (the latest
 * end wins); work running meanwhile outside the caller's intent is bounded too, never wrong: redone.
 */
export function eventLoopSlice(ms: number): { close(): boolean } {
  const trips = sliceState.trips;
  sliceState.open++;
  sliceState.until = Math.max(sliceState.until, performance.now() + ms);
  let closed = false;
  return {
    close() {
      if (!closed) {
        closed = true;
        if (--sliceState.open === 0) sliceState.until = 0;
      }
      return sliceState.trips !== trips;
    },
  };
}

/** A run in a slice asks for more time, or (a regex needing its worker: `force`) gives up. */
export function sliceExhausted(force = false): JqLimitError | undefined {
  const slice = current.slice;
  if (!force && slice !== undefined && current.steps <= slice.maxSteps && performance.now() < sliceState.until) {
    current.limits.maxSteps = Math.min(slice.maxSteps, current.steps + SLICE_STEPS);
    return undefined;
  }
  if (slice === undefined && !force) return new JqLimitError(`evaluation exceeded its budget of ${current.limits.maxSteps} steps`);
  sliceState.trips++;
  if (force) return new JqLimitError("evaluation needs a thread that may block: a regular expression with backtracking risk");
  return current.steps > slice!.maxSteps ? new JqLimitError(`evaluation exceeded its budget of ${slice!.maxSteps} steps`) : new JqLimitError("evaluation ran past its time slice on the event loop");
}

/** Whether a slice is open (a blocking wait is not allowed then). */
export function inEventLoopSlice(): boolean {
  return sliceState.open > 0;
}

/** The context of the run in progress (runs are synchronous; nested runs save and restore it). */
// Outside a run (a builtin called directly) nothing is counted against a budget.
export let current: RunContext = newContext({ ...DEFAULT_LIMITS, maxSteps: Infinity });

export function setCurrent(c: RunContext): RunContext {
  const prev = current;
  current = c;
  return prev;
}

/** A budget was exhausted: not catchable by `try`, it ends the run. */
export class JqLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JqLimitError";
  }
}

/** `halt` and `halt_error`: not catchable by `try`. */
export class JqHalt extends Error {
  constructor(
    readonly exitCode: number,
    readonly value: JqValue | undefined,
  ) {
    super("halt");
    this.name = "JqHalt";
  }
}

/** The error of a string grown past {@link MAX_STRING_LENGTH}. */
export function stringLimitError(limit = MAX_STRING_LENGTH): JqLimitError {
  return new JqLimitError(`evaluation exceeded the limit of ${limit} characters for a string`);
}

/**
 * What the work inside builtins costs in steps, so that the budget bounds time whatever a program does:
 * a step is about one turn of the interpreter (an iteration of `range`, a call); work that builds and
 * keeps values (a path copied, a container rebuilt, text printed) costs more than a visit, by what it
 * was measured to take (bench: a value sharing subtrees, 2^36 paths, walked until the budget ends it).
 */
export const COST = {
  /** A value visited (`..`, containment, equality). */
  visit: 1,
  /** An element copied into a new array or path. */
  copy: 2,
  /** A pair of containers compared for order (`sort`, `<`): keys, frames. */
  compare: 4,
  /** A value printed as JSON text. */
  print: 4,
  /** An object merged (`*`), per key. */
  merge: 4,
  /** A value rebuilt by `walk` and handed to its filter. */
  rebuild: 16,
} as const;

/** Counts `n` steps of work done inside a builtin (a value walked, a match tried) against the budget. */
export function charge(n: number): void {
  current.steps += n;
  if (current.steps > current.limits.maxSteps) {
    const e = sliceExhausted();
    if (e) throw e;
  }
}

/**
 * Charges text being built: past 4,096 characters a string costs a step per 16 of them (as walking one
 * does), so that the step budget bounds the memory strings take as well as the time, however few steps
 * build them (`"x" * 60000000`, `@base64` of a large text, in a loop).
 */
export function chargeText(length: number): void {
  if (length > 4096) charge(length >> 4);
}

/** Charges a builtin's result for the text it built ({@link chargeText}). */
export function chargeBuilt<T>(v: T): T {
  if (typeof v === "string") chargeText(v.length);
  return v;
}

/** Counts one evaluation step against the budget. */
export function step(): void {
  if (++current.steps > current.limits.maxSteps) {
    const e = sliceExhausted();
    if (e) throw e;
  }
}
