/**
 * jq errors. A runtime error carries a jq value (what `error(v)` raised, or jq's own message string),
 * so that `try ... catch .` sees exactly what jq would.
 */

/** An error raised while evaluating: `error(value)` or a builtin's failure. */
export class JqRuntimeError extends Error {
  /** The value raised (jq's message string for builtin failures). */
  readonly value: unknown;
  constructor(value: unknown) {
    // A jq error is a value a program may catch (`try`, `?`, `//`), thrown as often as once per input:
    // no stack trace is taken (it was most of the cost of a caught error), as it would show only Karta's
    // evaluator, never the program.
    const message = typeof value === "string" ? value : errorMessageOf(value);
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = "JqRuntimeError";
    this.value = value;
  }
}

/** How jq prints a non-string error value: `<json> (not a string)`. */
export function errorMessageOf(value: unknown): string {
  if (typeof value === "string") return value;
  // A value too large to print (it may share structure: 2^40 leaves) is not walked whole.
  if (!smallerThan(value, 10_000)) return "<a value too large to show> (not a string)";
  let text: string;
  try {
    text = JSON.stringify(value) ?? "null";
  } catch {
    text = String(value);
  }
  return `${text} (not a string)`;
}

/** Whether a value has fewer than `max` nodes (an iterative count that stops at `max`). */
function smallerThan(value: unknown, max: number): boolean {
  const todo: unknown[] = [value];
  let seen = 0;
  while (todo.length > 0) {
    const v = todo.pop();
    if (++seen >= max) return false;
    if (v !== null && typeof v === "object") for (const x of Object.values(v)) todo.push(x);
  }
  return true;
}
