/**
 * Karmada's empty-table repair. Lua cannot tell an empty object from an empty array, and gopher-json
 * encodes both as `[]`. Karmada repairs the encoded result against reference objects (the inputs the
 * result was most likely built from): an empty `[]` at a field path where a reference had `{}` becomes
 * `{}`; where a reference had `[]` it stays; anywhere else the field is deleted. Paths ignore array
 * indices (`spec.containers.env` stands for every container's `env`).
 */
import type { JsonValue } from "../types.js";

const SEP = "\u0000";
const DELETE = Symbol("delete");

/**
 * Repairs `result` against `references`. `rootIsObject`: the result is decoded into an object type
 * (a whole `[]` result then becomes `{}`), as opposed to a list type.
 */
export function repairEmptyTables(result: JsonValue, references: readonly (JsonValue | undefined)[], rootIsObject: boolean): JsonValue {
  if (Array.isArray(result) && result.length === 0) return rootIsObject ? {} : [];
  const emptyArrays = new Set<string>();
  const emptyObjects = new Set<string>();
  for (const ref of references) {
    if (ref !== undefined && ref !== null) collectEmpty(ref, "", emptyArrays, emptyObjects);
  }
  const repaired = repair(result, "", emptyArrays, emptyObjects);
  return repaired === DELETE ? result : repaired;
}

function join(path: string, key: string): string {
  return path === "" ? key : path + SEP + key;
}

function collectEmpty(value: JsonValue, path: string, emptyArrays: Set<string>, emptyObjects: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) visit(item, path);
  } else if (value !== null && typeof value === "object") {
    for (const [k, item] of Object.entries(value)) visit(item, join(path, k));
  }
  function visit(item: JsonValue, itemPath: string): void {
    if (Array.isArray(item)) {
      if (item.length === 0) emptyArrays.add(itemPath);
      else collectEmpty(item, itemPath, emptyArrays, emptyObjects);
    } else if (item !== null && typeof item === "object") {
      if (Object.keys(item).length === 0) emptyObjects.add(itemPath);
      else collectEmpty(item, itemPath, emptyArrays, emptyObjects);
    }
  }
}

function repair(value: JsonValue, path: string, emptyArrays: Set<string>, emptyObjects: Set<string>): JsonValue | typeof DELETE {
  const fix = (item: JsonValue, itemPath: string): JsonValue | typeof DELETE => {
    if (Array.isArray(item) && item.length === 0) {
      if (emptyObjects.has(itemPath)) return {};
      if (!emptyArrays.has(itemPath)) return DELETE;
      return item;
    }
    if (item !== null && typeof item === "object") return repair(item, itemPath, emptyArrays, emptyObjects);
    return item;
  };
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    for (const item of value) {
      const fixed = fix(item, path);
      if (fixed !== DELETE) out.push(fixed);
    }
    return out;
  }
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: JsonValue } = {};
    for (const [k, item] of Object.entries(value)) {
      const fixed = fix(item, join(path, k));
      if (fixed === DELETE) continue;
      if (k === "__proto__") Object.defineProperty(out, k, { value: fixed, enumerable: true, writable: true, configurable: true });
      else out[k] = fixed;
    }
    return out;
  }
  return value;
}
