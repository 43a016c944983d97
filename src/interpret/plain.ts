/** Objects as they come from JSON or YAML: what the interpretation reads fields of. */

/** Whether a value is a JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A definition's list as written, or none when it is anything else (validation reports that). */
export function listOf<T>(v: readonly T[] | null | undefined): readonly T[] {
  return Array.isArray(v) ? v : [];
}
