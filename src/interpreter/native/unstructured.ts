/**
 * Reading and writing nested fields the way Karmada's native interpreters do through
 * apimachinery's `unstructured.Nested*` helpers, which differ from a typed conversion: a field that is
 * present but null is "found" (and then the wrong type), a step through a non-object is an error, and
 * errors print the offending value with Go's `%v` and its type with `%T`.
 */
import { goNumberString, goSprint } from "../../gofmt/index.js";

/** A loosely typed JSON object for reading and building Kubernetes objects. */
export type Obj = Record<string, any>;

/** The outcome of reading a nested field: not found, found with a value, or an accessor error. */
export type Access<T> = { found: false } | { found: true; value: T } | { error: string };

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** Whether a JSON number is what Kubernetes' JSON decoding keeps as an int64 (else a float64). */
function isInt64(n: number): boolean {
  return Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63;
}

/** A JSON value as Go's `%v` prints the unstructured (map[string]interface{}) form of it: integers as int64. */
export function goValue(v: unknown): string {
  return goSprint(v, goNumberString);
}

/** The Go type (`%T`) of a JSON value in its unstructured form. */
export function goType(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return isInt64(v) ? "int64" : "float64";
  if (Array.isArray(v)) return "[]interface {}";
  return "map[string]interface {}";
}

const jsonPath = (path: readonly string[]): string => `.${path.join(".")}`;

function typeError(path: readonly string[], v: unknown, expected: string): { error: string } {
  return { error: `${jsonPath(path)} accessor error: ${goValue(v)} is of the type ${goType(v)}, expected ${expected}` };
}

/**
 * NestedFieldNoCopy: a missing key or a null step is "not found"; a step through anything but an
 * object is an error (named by the path up to the key being looked up); a final null is found.
 */
export function nestedField(obj: unknown, ...path: string[]): Access<unknown> {
  let cur: unknown = obj;
  for (let i = 0; i < path.length; i++) {
    if (cur === null || cur === undefined) return { found: false };
    if (!isObj(cur)) return typeError(path.slice(0, i + 1), cur, "map[string]interface{}");
    if (!Object.prototype.hasOwnProperty.call(cur, path[i] as string)) return { found: false };
    cur = cur[path[i] as string];
  }
  return { found: true, value: cur };
}

/** NestedInt64: found only for an integer; null or any other type is an error. */
export function nestedInt64(obj: unknown, ...path: string[]): Access<number> {
  const r = nestedField(obj, ...path);
  if (!("found" in r) || !r.found) return r;
  if (typeof r.value === "number" && isInt64(r.value)) return { found: true, value: r.value };
  return typeError(path, r.value, "int64");
}

/** NestedString: found only for a string; null or any other type is an error. */
export function nestedString(obj: unknown, ...path: string[]): Access<string> {
  const r = nestedField(obj, ...path);
  if (!("found" in r) || !r.found) return r;
  if (typeof r.value === "string") return { found: true, value: r.value };
  return typeError(path, r.value, "string");
}

/** NestedMap: found only for an object (a copy); null or any other type is an error. */
export function nestedMap(obj: unknown, ...path: string[]): Access<Obj> {
  const r = nestedField(obj, ...path);
  if (!("found" in r) || !r.found) return r;
  if (isObj(r.value)) return { found: true, value: structuredClone(r.value) };
  return typeError(path, r.value, "map[string]interface{}");
}

/** NestedStringMap: an object whose values are all strings. */
export function nestedStringMap(obj: unknown, ...path: string[]): Access<Record<string, string>> {
  const r = nestedMap(obj, ...path);
  if (!("found" in r) || !r.found) return r;
  // Go ranges over the map in random order; the first key in sorted order is reported here.
  for (const k of Object.keys(r.value).sort()) {
    const v = r.value[k];
    if (typeof v !== "string") {
      return {
        error: `${jsonPath(path)} accessor error: contains non-string value in the map under key ${JSON.stringify(k)}: ${goValue(v)} is of the type ${goType(v)}, expected string`,
      };
    }
  }
  return r as { found: true; value: Record<string, string> };
}

/** NestedSlice: found only for an array (a copy); null or any other type is an error. */
export function nestedSlice(obj: unknown, ...path: string[]): Access<unknown[]> {
  const r = nestedField(obj, ...path);
  if (!("found" in r) || !r.found) return r;
  if (Array.isArray(r.value)) return { found: true, value: structuredClone(r.value) };
  return typeError(path, r.value, "[]interface{}");
}

/**
 * SetNestedField: creates missing objects on the way; an existing step that is not an object (null
 * included) is an error, returned as a message (undefined on success).
 */
export function setNestedField(obj: Obj, value: unknown, ...path: string[]): string | undefined {
  let cur = obj;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i] as string;
    if (Object.prototype.hasOwnProperty.call(cur, key)) {
      const next = cur[key];
      if (!isObj(next)) return `value cannot be set because ${jsonPath(path.slice(0, i + 1))} is not a map[string]interface{}`;
      cur = next;
    } else {
      const created: Obj = {};
      cur[key] = created;
      cur = created;
    }
  }
  cur[path[path.length - 1] as string] = structuredClone(value);
  return undefined;
}
