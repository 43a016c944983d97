/**
 * jq's value semantics over plain JS values: types, ordering, arithmetic, indexing and paths.
 * Values are JSON values (null, boolean, number, string, array, plain object); they are never mutated.
 */
import { JqRuntimeError } from "./errors.js";
import { CHARGED, compareCodepoints, dumpTruncated, kindOf, toJson } from "./native/json.js";
import { JqLimitError, MAX_ARRAY_LENGTH, MAX_STRING_LENGTH, step } from "./runtime.js";

export type JqValue = null | boolean | number | string | JqValue[] | { [key: string]: JqValue };
export type JqObject = { [key: string]: JqValue };
export type PathComponent = string | number | JqObject | null;

/** jq's type name of a value. */
export const typeOf = kindOf;

const KIND_ORDER: Record<string, number> = { null: 0, boolean: 1, number: 3, string: 4, array: 5, object: 6 };
function kindRank(v: unknown): number {
  if (v === false) return 1;
  if (v === true) return 2;
  return KIND_ORDER[typeOf(v)]!;
}

/** Compares strings by Unicode code point (jq compares UTF-8 bytes, which orders the same). */
export const compareStrings = compareCodepoints;

/** Sorted keys of an object, in jq's order. */
export function sortedKeys(o: object): string[] {
  return Object.keys(o).sort(compareStrings);
}

/** jq's total order over values: null < false < true < numbers < strings < arrays < objects. */
export function compare(a: unknown, b: unknown): number {
  const ka = kindRank(a);
  const kb = kindRank(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  switch (typeof a) {
    case "number": {
      const x = a as number;
      const y = b as number;
      // jq orders nan as if it were null: below every number, itself included.
      if (x !== x) return -1;
      if (y !== y) return 1;
      return x < y ? -1 : x === y ? 0 : 1;
    }
    case "string":
      return a === b ? 0 : compareStrings(a, b as string);
    case "object": {
      if (a === null) return 0;
      // Walking two containers is work the run pays for (values may share structure: 2^40 leaves).
      step();
      if (Array.isArray(a)) {
        const bb = b as unknown[];
        const n = Math.min(a.length, bb.length);
        for (let i = 0; i < n; i++) {
          const c = compare(a[i], bb[i]);
          if (c !== 0) return c;
        }
        return a.length === bb.length ? 0 : a.length < bb.length ? -1 : 1;
      }
      const keysA = sortedKeys(a);
      const keysB = sortedKeys(b as object);
      const c = compare(keysA, keysB);
      if (c !== 0) return c;
      for (const k of keysA) {
        const d = compare((a as JqObject)[k], (b as JqObject)[k]);
        if (d !== 0) return d;
      }
      return 0;
    }
    default:
      return 0;
  }
}

export function equals(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== "number" || a === a;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return compare(a, b) === 0;
}

export function isTruthy(v: unknown): boolean {
  return v !== null && v !== false && v !== undefined;
}

/** jq's truncated dump of a value inside error messages (`jv_dump_string_trunc` with a buffer of `size`). */
export function dumpShort(v: unknown, size = 15): string {
  return dumpTruncated(v, size);
}

/** A value as compact JSON, numbers formatted as jq prints them (its work charged to the run). */
export function dumpJson(v: unknown): string {
  return toJson(v, CHARGED);
}

/** `tostring`: strings as they are, everything else as JSON. */
export function toStringValue(v: unknown): string {
  return typeof v === "string" ? v : dumpJson(v);
}

function typeError2(a: unknown, b: unknown, msg: string): JqRuntimeError {
  return new JqRuntimeError(`${typeOf(a)} (${dumpShort(a)}) and ${typeOf(b)} (${dumpShort(b)}) ${msg}`);
}

/** jq's error for `.[]` on something that is neither an array nor an object. */
export function cannotIterate(v: unknown): JqRuntimeError {
  return new JqRuntimeError(`Cannot iterate over ${typeOf(v)}${v === null ? "" : ` (${dumpShort(v)})`}`);
}

export function typeError(v: unknown, msg: string): JqRuntimeError {
  return new JqRuntimeError(`${typeOf(v)} (${dumpShort(v)}) ${msg}`);
}

/**
 * Sets a key on a fresh object. `__proto__` must become an own property (a plain assignment would
 * change the prototype instead), so it is defined explicitly.
 */
export function setKey(o: JqObject, k: string, v: JqValue): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** An object's own value for a key, or undefined: inherited members (`toString`, `__proto__`) are not fields. */
export function getOwn(o: JqObject, k: string): JqValue | undefined {
  const v = o[k];
  if (v === undefined || typeof v === "function" || (k === "__proto__" && !Object.prototype.hasOwnProperty.call(o, k))) {
    return undefined;
  }
  return v;
}

export function isObject(v: unknown): v is JqObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// ---- arithmetic ----
export function add(a: unknown, b: unknown): JqValue {
  if (a === null) return b as JqValue;
  if (b === null) return a as JqValue;
  const ta = typeof a;
  if (ta === "number" && typeof b === "number") return (a as number) + b;
  if (ta === "string" && typeof b === "string") return checkString((a as string).length + b.length) && (a as string) + b;
  if (Array.isArray(a) && Array.isArray(b)) return checkArray(a.length + b.length) && a.concat(b);
  if (isObject(a) && isObject(b)) return { ...a, ...b };
  throw typeError2(a, b, "cannot be added");
}

export function subtract(a: unknown, b: unknown): JqValue {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (Array.isArray(a) && Array.isArray(b)) return a.filter((x) => !b.some((y) => equals(x, y)));
  throw typeError2(a, b, "cannot be subtracted");
}

function deepMerge(a: JqObject, b: JqObject): JqObject {
  const out: JqObject = { ...a };
  for (const k of Object.keys(b)) {
    const x = getOwn(out, k);
    const y = b[k]!;
    setKey(out, k, isObject(x) && isObject(y) ? deepMerge(x, y) : y);
  }
  return out;
}

function repeatString(s: string, n: number): JqValue {
  if (!(n >= 0)) return null;
  const count = Math.floor(n);
  if (s.length * count > MAX_STRING_LENGTH) throw new JqRuntimeError("Repeat string result too long");
  return s.repeat(count);
}

/** Fails the run when a string or array would grow past the memory bound. */
export function checkString(length: number): true {
  if (length > MAX_STRING_LENGTH) throw new JqLimitError(`evaluation exceeded the limit of ${MAX_STRING_LENGTH} characters for a string`);
  return true;
}
export function checkArray(length: number): true {
  if (length > MAX_ARRAY_LENGTH) throw new JqLimitError(`evaluation exceeded the limit of ${MAX_ARRAY_LENGTH} elements for an array`);
  return true;
}

export function multiply(a: unknown, b: unknown): JqValue {
  if (typeof a === "number" && typeof b === "number") return a * b;
  if (typeof a === "string" && typeof b === "number") return repeatString(a, b);
  if (typeof a === "number" && typeof b === "string") return repeatString(b, a);
  if (isObject(a) && isObject(b)) return deepMerge(a, b);
  throw typeError2(a, b, "cannot be multiplied");
}

export function divide(a: unknown, b: unknown): JqValue {
  if (typeof a === "number" && typeof b === "number") {
    if (b === 0) throw typeError2(a, b, "cannot be divided because the divisor is zero");
    return a / b;
  }
  if (typeof a === "string" && typeof b === "string") return splitString(a, b);
  throw typeError2(a, b, "cannot be divided");
}

/** jq's `%`: both operands converted to 64-bit integers as C does (saturating), the sign of the dividend. */
export function modulo(a: unknown, b: unknown): JqValue {
  if (typeof a === "number" && typeof b === "number") {
    if (a !== a || b !== b) return NaN;
    if (Math.abs(a) < 2 ** 53 && Math.abs(b) < 2 ** 53) {
      const bi = Math.trunc(b);
      if (bi === 0) throw typeError2(a, b, "cannot be divided (remainder) because the divisor is zero");
      const r = Math.trunc(a) % bi;
      return r === 0 ? 0 : r;
    }
    const bi = toInt64(b);
    if (bi === 0n) throw typeError2(a, b, "cannot be divided (remainder) because the divisor is zero");
    const ai = toInt64(a);
    // INT64_MIN % -1 overflows in C; the result is 0.
    if (bi === -1n) return 0;
    return Number(ai % (bi < 0n ? -bi : bi));
  }
  throw typeError2(a, b, "cannot be divided (remainder)");
}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
function toInt64(n: number): bigint {
  if (n >= 2 ** 63) return INT64_MAX;
  if (n <= -(2 ** 63)) return INT64_MIN;
  return BigInt(Math.trunc(n));
}

export function negate(v: unknown): JqValue {
  if (typeof v === "number") return -v;
  throw typeError(v, "cannot be negated");
}

export function splitString(s: string, sep: string): JqValue {
  if (s === "") return [];
  if (sep === "") {
    // jq splits an empty separator into code points.
    return Array.from(s);
  }
  return s.split(sep);
}

// ---- indexing ----
/** `t[k]` with jq's rules for null, arrays (negative, fractional), objects and slices. */
export function index(t: unknown, k: unknown): JqValue {
  if (typeof k === "string") {
    if (isObject(t)) return getOwn(t, k) ?? null;
    if (t === null) return null;
    throw new JqRuntimeError(`Cannot index ${typeOf(t)} with string "${k}"`);
  }
  if (typeof k === "number") {
    if (Array.isArray(t)) {
      if (k !== k) return null;
      // jq converts the index to an int: truncation toward zero (`.[-2.8]` is `.[-2]`).
      let i = Math.trunc(k);
      if (i < 0) i += t.length;
      const v = t[i];
      return v === undefined ? null : v;
    }
    if (t === null) return null;
    throw new JqRuntimeError(`Cannot index ${typeOf(t)} with number`);
  }
  if (isObject(k) && (Array.isArray(t) || typeof t === "string" || t === null)) return sliceByObject(t, k);
  if (Array.isArray(k) && Array.isArray(t)) return arrayIndices(t, k);
  if (t === null && (k === null || isObject(k))) return null;
  throw new JqRuntimeError(`Cannot index ${typeOf(t)} with ${typeOf(k)}`);
}

/** `.[{"start": a, "end": b}]` (kept out of `index`, the hottest function, so that it stays small). */
function sliceByObject(t: unknown, k: JqObject): JqValue {
  if (!("start" in k) && !("end" in k)) throw new JqRuntimeError(`Cannot index ${typeOf(t)} with object`);
  // jq reads both keys; a missing one is not null.
  if (!("start" in k) || !("end" in k)) throw new JqRuntimeError("Array/string slice indices must be integers");
  return slice(t, k["start"] ?? null, k["end"] ?? null);
}

/** Positions where the array `sub` occurs in `t` (jq's `_indices` on arrays). */
export function arrayIndices(t: JqValue[], sub: JqValue[]): JqValue {
  if (sub.length === 0) return [];
  const out: number[] = [];
  for (let i = 0; i + sub.length <= t.length; i++) {
    let ok = true;
    for (let j = 0; j < sub.length; j++) {
      if (!equals(t[i + j], sub[j])) {
        ok = false;
        break;
      }
    }
    if (ok) out.push(i);
  }
  return out;
}

/** Resolves slice bounds against a length as jq does: start truncated, a fractional end rounded up, clamped. */
export function sliceBounds(len: number, from: unknown, to: unknown): [number, number] {
  if ((from !== null && typeof from !== "number") || (to !== null && typeof to !== "number")) {
    throw new JqRuntimeError("Array/string slice indices must be integers");
  }
  let s = from === null ? 0 : (from as number);
  let e = to === null ? len : (to as number);
  if (s !== s) s = 0;
  if (e !== e) e = len;
  if (s < 0) s += len;
  if (e < 0) e += len;
  if (s < 0) s = 0;
  if (s > len) s = len;
  const start = Math.trunc(s);
  let end = e > len ? len : Math.trunc(e);
  if (end < e) end += 1;
  if (end > len) end = len;
  if (end < start) end = start;
  return [start, end];
}

export function slice(t: unknown, from: unknown, to: unknown): JqValue {
  if (t === null) return null;
  if (Array.isArray(t)) {
    const [s, e] = sliceBounds(t.length, from, to);
    return t.slice(s, e);
  }
  if (typeof t === "string") {
    // Slices of strings count code points.
    const cps = hasSurrogates(t) ? Array.from(t) : null;
    const len = cps ? cps.length : t.length;
    const [s, e] = sliceBounds(len, from, to);
    return cps ? cps.slice(s, e).join("") : t.slice(s, e);
  }
  throw new JqRuntimeError(`Cannot index ${typeOf(t)} with object`);
}

export function hasSurrogates(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return true;
  }
  return false;
}

// ---- paths ----
export function getpath(t: unknown, path: unknown): JqValue {
  if (!Array.isArray(path)) throw new JqRuntimeError("Path must be specified as an array");
  let cur: unknown = t;
  for (const k of path) {
    if (cur === null) return null;
    cur = index(cur, k);
  }
  return cur as JqValue;
}

/** `setpath(path; v)`: a copy of `t` with the value at `path` replaced (intermediate nulls become containers). */
/**
 * `setpath`. With `owned` (the containers this update copied itself, which nothing else references),
 * those are changed in place and the copies it makes join them: a run of updates is linear in what it
 * touches instead of copying the whole container per path.
 */
export function setpath(t: unknown, path: unknown, v: unknown, owned?: Set<object>): JqValue {
  if (!Array.isArray(path)) throw new JqRuntimeError("Path must be specified as an array");
  return setIn(t as JqValue, path, 0, v as JqValue, owned);
}

function setIn(t: JqValue, path: unknown[], i: number, v: JqValue, owned?: Set<object>): JqValue {
  if (i === path.length) return v;
  const k = path[i];
  if (typeof k === "string") {
    if (t !== null && !isObject(t)) throw new JqRuntimeError(`Cannot index ${typeOf(t)} with string "${k}"`);
    const obj = (t ?? {}) as JqObject;
    const child = setIn(getOwn(obj, k) ?? null, path, i + 1, v, owned);
    let out = obj;
    if (!owned?.has(obj)) {
      out = { ...obj };
      owned?.add(out);
    }
    setKey(out, k, child);
    return out;
  }
  if (typeof k === "number") {
    if (t !== null && !Array.isArray(t)) throw new JqRuntimeError(`Cannot index ${typeOf(t)} with number`);
    const arr = (t ?? []) as JqValue[];
    if (k !== k) throw new JqRuntimeError("Cannot set array element at NaN index");
    let idx = Math.floor(k);
    if (idx < 0) {
      idx += arr.length;
      if (idx < 0) throw new JqRuntimeError("Out of bounds negative array index");
    }
    // Growth past the array bound is the same limit error whatever the path (jq's own bound is 2^29).
    if (idx >= arr.length) checkArray(idx + 1);
    if (idx > 536870911) throw new JqRuntimeError("Array index too large");
    const child = setIn(idx < arr.length ? arr[idx]! : null, path, i + 1, v, owned);
    let out = arr;
    if (!owned?.has(arr)) {
      out = arr.slice();
      owned?.add(out);
    }
    while (out.length < idx) out.push(null);
    out[idx] = child;
    return out;
  }
  if (isObject(k)) {
    if (typeof t === "string") throw new JqRuntimeError("Cannot update string slices");
    if (t !== null && !Array.isArray(t)) throw new JqRuntimeError(`Cannot index ${typeOf(t)} with object`);
    const arr = (t ?? []) as JqValue[];
    const [s, e] = sliceBounds(arr.length, k["start"] ?? null, k["end"] ?? null);
    const replacement = setIn(arr.slice(s, e), path, i + 1, v, owned);
    if (!Array.isArray(replacement)) throw new JqRuntimeError("A slice of an array can only be assigned another array");
    checkArray(arr.length - (e - s) + replacement.length);
    const out = arr.slice(0, s).concat(replacement, arr.slice(e));
    owned?.add(out);
    return out;
  }
  if (t === null || Array.isArray(t) || isObject(t)) {
    throw new JqRuntimeError(`Cannot update field at ${typeOf(k)} index of ${typeOf(t)}`);
  }
  throw new JqRuntimeError(`Cannot index ${typeOf(t)} with ${typeOf(k)}`);
}

/**
 * `delpaths(paths)`: all deletions in one container happen at once, with indices relative to the
 * original (so `del(.[1], .[-6])` deletes what the user pointed at, whatever the order).
 */
export function delpaths(t: unknown, paths: unknown): JqValue {
  if (!Array.isArray(paths)) throw new JqRuntimeError("Paths must be specified as an array");
  for (const p of paths) {
    if (!Array.isArray(p)) throw new JqRuntimeError(`Path must be specified as array, not ${typeOf(p)}`);
  }
  if (paths.length === 0) return t as JqValue;
  const sorted = (paths as JqValue[][]).slice().sort(compare);
  if (sorted[0]!.length === 0) return null;
  return delSorted(t as JqValue, sorted, 0, new Set());
}

function delSorted(t: JqValue, paths: JqValue[][], depth: number, owned: Set<object>): JqValue {
  const keys: JqValue[] = [];
  let out = t;
  for (let i = 0; i < paths.length; ) {
    const key = paths[i]![depth]!;
    let j = i + 1;
    while (j < paths.length && equals(paths[j]![depth], key)) j++;
    if (paths[i]!.length === depth + 1) {
      keys.push(key);
    } else {
      const sub = index(out, key);
      if (sub !== null) out = setpath(out, [key], delSorted(sub, paths.slice(i, j), depth + 1, owned), owned);
    }
    i = j;
  }
  return deleteKeys(out, keys);
}

/** Deletes keys (indices, slices or fields) of one container at once. */
function deleteKeys(t: JqValue, keys: JqValue[]): JqValue {
  if (t === null || keys.length === 0) return t;
  if (Array.isArray(t)) {
    const len = t.length;
    const drop = new Set<number>();
    const ranges: [number, number][] = [];
    for (const k of keys) {
      if (typeof k === "number") drop.add(Math.trunc(k < 0 ? len + k : k));
      else if (isObject(k)) ranges.push(sliceBounds(len, k["start"] ?? null, k["end"] ?? null));
      else throw new JqRuntimeError(`Cannot delete ${typeOf(k)} element of array`);
    }
    return t.filter((_x, i) => !drop.has(i) && !ranges.some(([s, e]) => s <= i && i < e));
  }
  if (isObject(t)) {
    const out: JqObject = { ...t };
    for (const k of keys) {
      if (typeof k !== "string") throw new JqRuntimeError(`Cannot delete ${typeOf(k)} field of object`);
      delete out[k];
    }
    return out;
  }
  throw new JqRuntimeError(`Cannot delete fields from ${typeOf(t)}`);
}

/** `length` */
export function lengthOf(v: unknown): JqValue {
  if (v === null) return 0;
  switch (typeof v) {
    case "boolean":
      throw typeError(v, "has no length");
    case "number":
      return Math.abs(v);
    case "string":
      return hasSurrogates(v) ? Array.from(v).length : v.length;
    default:
      return Array.isArray(v) ? v.length : Object.keys(v as object).length;
  }
}

/** `contains`: substring for strings, recursive containment for arrays and objects. */
export function contains(a: unknown, b: unknown): boolean {
  if (kindRank(a) !== kindRank(b)) {
    throw new JqRuntimeError(`${typeOf(a)} (${dumpShort(a)}) and ${typeOf(b)} (${dumpShort(b)}) cannot have their containment checked`);
  }
  return containsSameKind(a, b);
}

function containsSameKind(a: unknown, b: unknown): boolean {
  step();
  if (kindRank(a) !== kindRank(b)) return false;
  if (isObject(a) && isObject(b)) {
    return Object.keys(b).every((k) => Object.prototype.hasOwnProperty.call(a, k) && containsSameKind(a[k], b[k]));
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    return b.every((y) => a.some((x) => containsSameKind(x, y)));
  }
  if (typeof a === "string" && typeof b === "string") return a.includes(b);
  return equals(a, b);
}
