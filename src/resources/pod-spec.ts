/** Reading the parts of a pod spec that requirement and dependency computations need, from plain JSON. */

/** A JSON object, or undefined when the value is not one. */
export function asObject(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A JSON array of objects (non-objects skipped), empty when the value is not an array. */
export function asObjectArray(v: unknown): Record<string, unknown>[] {
  if (!Array.isArray(v)) return [];
  return v.map(asObject).filter((o): o is Record<string, unknown> => o !== undefined);
}

/** A string field, or "" as Go's zero value. */
export function asString(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/**
 * The pod spec of a PodTemplateSpec (`{metadata, spec}`) or of a PodSpec given directly, with the
 * field path prefix of the spec inside the given object.
 */
export function podSpecOf(templateOrSpec: unknown): { spec: Record<string, unknown>; path: string } {
  const obj = asObject(templateOrSpec) ?? {};
  const inner = asObject(obj["spec"]);
  if (inner !== undefined && !("containers" in obj)) return { spec: inner, path: "spec" };
  return { spec: obj, path: "" };
}

/** Joins a field path. */
export function joinPath(base: string, segment: string | number): string {
  if (typeof segment === "number") return `${base}[${segment}]`;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) return `${base}[${JSON.stringify(segment)}]`;
  return base === "" ? segment : `${base}.${segment}`;
}
