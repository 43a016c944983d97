/**
 * jq errors. A runtime error carries a jq value (what `error(v)` raised, or jq's own message string),
 * so that `try ... catch .` sees exactly what jq would.
 */

/** An error raised while evaluating: `error(value)` or a builtin's failure. */
export class JqRuntimeError extends Error {
  /** The value raised (jq's message string for builtin failures). */
  readonly value: unknown;
  constructor(value: unknown) {
    super(typeof value === "string" ? value : errorMessageOf(value));
    this.name = "JqRuntimeError";
    this.value = value;
  }
}

/** How jq prints a non-string error value: `<json> (not a string)`. */
export function errorMessageOf(value: unknown): string {
  if (typeof value === "string") return value;
  let text: string;
  try {
    text = JSON.stringify(value) ?? "null";
  } catch {
    text = String(value);
  }
  return `${text} (not a string)`;
}
