/** Objects as they come from JSON or YAML: what the interpretation reads fields of. */

/** Whether a value is a JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}
