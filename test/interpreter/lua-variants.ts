/**
 * Generated variants of a Kubernetes object for differential tests of the Lua layer: fields
 * missing, set to null or emptied, quantities that are large, fractional, negative or invalid,
 * numbers that are not small integers, and strings in other scripts. Deterministic: a fixed seed
 * picks the paths.
 */
import type { JsonValue } from "../../src/input/index.js";
import { prng, seedOf } from "../support/random.js";

type Path = (string | number)[];
type JsonObject = { [k: string]: JsonValue };

/** A variant: what was done (for reports) and the resulting value. */
export interface Variant {
  mutation: string;
  value: JsonValue;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function clone<T extends JsonValue>(v: T): T {
  return structuredClone(v);
}

/** Every path below the root (the root's apiVersion and kind excepted: they choose the interpreter). */
function paths(value: JsonValue, prefix: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push([...prefix, i]);
      paths(item, [...prefix, i], out);
    });
  } else if (isObject(value)) {
    for (const [k, item] of Object.entries(value)) {
      if (prefix.length === 0 && (k === "apiVersion" || k === "kind")) continue;
      out.push([...prefix, k]);
      paths(item, [...prefix, k], out);
    }
  }
  return out;
}

function get(value: JsonValue, path: Path): JsonValue | undefined {
  let v: JsonValue | undefined = value;
  for (const k of path) {
    if (Array.isArray(v) && typeof k === "number") v = v[k];
    else if (isObject(v) && typeof k === "string") v = v[k];
    else return undefined;
  }
  return v;
}

/** Sets (or, with `undefined`, removes) the value at a path of a copy. */
function set(value: JsonValue, path: Path, to: JsonValue | undefined): JsonValue {
  const copy = clone(value);
  const parent = get(copy, path.slice(0, -1));
  const key = path[path.length - 1]!;
  if (Array.isArray(parent) && typeof key === "number") {
    if (to === undefined) parent.splice(key, 1);
    else parent[key] = to;
  } else if (isObject(parent) && typeof key === "string") {
    if (to === undefined) delete parent[key];
    else parent[key] = to;
  }
  return copy;
}

/** Applies `fn` to every string or number (with its path) of a copy. */
function mapLeaves(value: JsonValue, fn: (v: JsonValue, path: Path) => JsonValue, path: Path = []): JsonValue {
  if (Array.isArray(value)) return value.map((item, i) => mapLeaves(item, fn, [...path, i]));
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, item] of Object.entries(value)) {
      out[k] = path.length === 0 && (k === "apiVersion" || k === "kind") ? item : mapLeaves(item, fn, [...path, k]);
    }
    return out;
  }
  return fn(value, path);
}

const QUANTITY = /^[+-]?[0-9.]+([eEinumkKMGTP]*[-+]?[0-9]*)$/;
const RESOURCE_MAPS = new Set(["requests", "limits", "overhead", "resourceRequest", "capacity", "allocatable", "resources", "resource"]);

/** Quantities beyond int64, fractional in their unit, tiny, negative, and not quantities at all. */
export const ODD_QUANTITIES = ["9223372036854775807", "9223372036854775808", "8Ei", "123456789012345678901234567890", "1433.6Mi", "0.5", "100n", "1e3", "-1", "0", "1.2.3"];
/** Strings in other scripts, with escapes, combining marks, line separators and a lone surrogate. */
export const ODD_STRINGS = ["ünïcødé-名前", "😀🚀", "עברית-مرحبا", "e\u0301", "line\u2028sep", "tab\tquote\"back\\slash<&>", "\ud800"];
/** Numbers that are not small integers. */
export const ODD_NUMBERS = [0, -1, 1.5, 2147483648, 1e21, 1e-7, 2 ** 53 + 2];

function isQuantityPath(path: Path): boolean {
  return path.some((k) => typeof k === "string" && RESOURCE_MAPS.has(k));
}

/**
 * The variants of one object: `count` single-path edits (missing, null, emptied), one variant per
 * odd quantity, a few with odd strings and numbers, and whole-object variants (every list emptied,
 * every object emptied).
 */
export function variantsOf(value: JsonValue, count = 4): Variant[] {
  const random = prng(seedOf(JSON.stringify(value)));
  const all = paths(value);
  const pick = (from: Path[], n: number): Path[] => {
    const chosen: Path[] = [];
    const pool = [...from];
    while (chosen.length < n && pool.length > 0) chosen.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
    return chosen;
  };
  const out: Variant[] = [];
  const describe = (p: Path): string => p.join(".");
  for (const p of pick(all, count)) out.push({ mutation: `missing ${describe(p)}`, value: set(value, p, undefined) });
  for (const p of pick(all, count)) out.push({ mutation: `null ${describe(p)}`, value: set(value, p, null) });
  const containers = all.filter((p) => {
    const v = get(value, p);
    return typeof v === "object" && v !== null;
  });
  for (const p of pick(containers, count)) {
    const v = get(value, p);
    out.push({ mutation: `empty ${describe(p)}`, value: set(value, p, Array.isArray(v) ? [] : {}) });
  }
  out.push({ mutation: "every list empty", value: mapContainers(value, (v) => (Array.isArray(v) ? [] : v)) });
  out.push({ mutation: "every object below the root empty", value: mapContainers(value, (v, depth) => (isObject(v) && depth > 1 ? {} : v)) });
  const quantities = all.filter((p) => typeof get(value, p) === "string" && QUANTITY.test(get(value, p) as string) && isQuantityPath(p));
  if (quantities.length > 0) {
    for (const q of ODD_QUANTITIES) {
      out.push({ mutation: `quantities ${q}`, value: mapLeaves(value, (v, p) => (typeof v === "string" && QUANTITY.test(v) && isQuantityPath(p) ? q : v)) });
    }
  }
  const strings = all.filter((p) => typeof get(value, p) === "string");
  for (const [i, p] of pick(strings, count).entries()) {
    const s = ODD_STRINGS[i % ODD_STRINGS.length]!;
    out.push({ mutation: `string ${describe(p)} ${JSON.stringify(s)}`, value: set(value, p, s) });
  }
  out.push({ mutation: "every string in other scripts", value: mapLeaves(value, (v, p) => (typeof v === "string" ? `${v}-${ODD_STRINGS[p.length % ODD_STRINGS.length]!}` : v)) });
  const numbers = all.filter((p) => typeof get(value, p) === "number");
  for (const [i, p] of pick(numbers, count).entries()) {
    const n = ODD_NUMBERS[i % ODD_NUMBERS.length]!;
    out.push({ mutation: `number ${describe(p)} ${n}`, value: set(value, p, n) });
  }
  if (numbers.length > 0) {
    const n = ODD_NUMBERS[Math.floor(random() * ODD_NUMBERS.length)]!;
    out.push({ mutation: `every number ${n}`, value: mapLeaves(value, (v) => (typeof v === "number" ? n : v)) });
  }
  return out;
}

/** Rebuilds a value bottom-up, replacing each container (with its depth) by `fn`'s answer. */
function mapContainers(value: JsonValue, fn: (v: JsonValue, depth: number) => JsonValue, depth = 0): JsonValue {
  if (Array.isArray(value)) return fn(value.map((item) => mapContainers(item, fn, depth + 1)), depth);
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const [k, item] of Object.entries(value)) out[k] = mapContainers(item, fn, depth + 1);
    return depth === 0 ? out : fn(out, depth);
  }
  return value;
}

/** Variants of a list of status items: none (nil), empty, one without a clusterName, items without status, odd health. */
export function statusItemVariants(items: JsonValue[] | undefined): { mutation: string; items: JsonValue[] | null }[] {
  const list = items ?? [];
  const out: { mutation: string; items: JsonValue[] | null }[] = [
    { mutation: "no status items (nil)", items: null },
    { mutation: "status items empty", items: [] },
  ];
  if (list.length > 0) {
    out.push({ mutation: "first item without clusterName", items: list.map((it, i) => (i === 0 && isObject(it) ? omit(it, "clusterName") : it)) });
    out.push({ mutation: "items without status", items: list.map((it) => (isObject(it) ? omit(it, "status") : it)) });
    out.push({ mutation: "items with null status", items: list.map((it) => (isObject(it) ? { ...it, status: null } : it)) });
    out.push({ mutation: "items with empty status", items: list.map((it) => (isObject(it) ? { ...it, status: {} } : it)) });
    out.push({ mutation: "items unhealthy, not applied", items: list.map((it) => (isObject(it) ? { ...omit(it, "applied"), health: "Unhealthy", appliedMessage: "näh 😀" } : it)) });
    out.push({ mutation: "one item", items: list.slice(0, 1) });
  }
  return out;
}

function omit(o: JsonObject, key: string): JsonObject {
  const out = { ...o };
  delete out[key];
  return out;
}
