/**
 * jq's value semantics over plain JS values: types, ordering, arithmetic, indexing and paths.
 * Values are JSON values (null, boolean, number, string, array, plain object); they are never mutated.
 */
import { JqRuntimeError } from "./errors.js";
import { MAX_DEPTH, compare, compareStrings, containsValue, equals, sortedKeys } from "./compare.js";
import { CHARGED, dumpTruncated, kindOf, setKey, toJson, utf8ByteLength } from "./native/json.js";
import { COST, JqLimitError, MAX_ARRAY_LENGTH, MAX_STRING_LENGTH, charge, chargeText } from "./runtime.js";

import type { JqObject, JqValue, PathComponent } from "./value-types.js";

export type { JqObject, JqValue, PathComponent };

export { MAX_DEPTH, compare, compareStrings, equals, sortedKeys };

/** jq's type name of a value. */
export const typeOf = kindOf;

export function isTruthy(v: unknown): boolean {
  return v !== null && v !== false && v !== undefined;
}

/** jq's truncated dump of a value inside error messages (`jv_dump_string_trunc` with a buffer of `size`). */
export function dumpShort(v: unknown, size = 30): string {
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

export function typeError2(a: unknown, b: unknown, msg: string): JqRuntimeError {
  return new JqRuntimeError(`${typeOf(a)} (${dumpShort(a)}) and ${typeOf(b)} (${dumpShort(b)}) ${msg}`);
}

/** jq's error for `.[]` on something that is neither an array nor an object. */
export function cannotIterate(v: unknown): JqRuntimeError {
  return new JqRuntimeError(`Cannot iterate over ${typeOf(v)} (${dumpShort(v)})`);
}

export function typeError(v: unknown, msg: string): JqRuntimeError {
  return new JqRuntimeError(`${typeOf(v)} (${dumpShort(v)}) ${msg}`);
}

/** jq's error for indexing a value with a key of the wrong kind. */
export function cannotIndex(t: unknown, k: unknown): JqRuntimeError {
  return new JqRuntimeError(`Cannot index ${typeOf(t)} with ${typeOf(k)} (${dumpShort(k)})`);
}

/** Sets an object's key as jq does, `__proto__` included: the JSON reader's own. */
export { setKey };

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
  // Both operands are copied: work the run pays for.
  if (Array.isArray(a) && Array.isArray(b)) return checkArray(a.length + b.length) && (charge(a.length + b.length), a.concat(b));
  if (isObject(a) && isObject(b)) {
    const sum = { ...a, ...b };
    charge(Object.keys(sum).length);
    return sum;
  }
  throw typeError2(a, b, "cannot be added");
}

export function subtract(a: unknown, b: unknown): JqValue {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (Array.isArray(a) && Array.isArray(b)) {
    // Every element is compared with every element of b: that is the work the run pays for.
    charge(a.length * b.length);
    return a.filter((x) => !b.some((y) => equals(x, y)));
  }
  throw typeError2(a, b, "cannot be subtracted");
}

/**
 * `*` on objects: b's entries over a's, objects under the same key merged in turn (jq's
 * `jv_object_merge_recursive`), level by level from a work list; past 10,000 levels it fails as jq 1.8.2.
 */
function deepMerge(a: JqObject, b: JqObject): JqObject {
  const root: JqObject = { ...a };
  const work: { out: JqObject; from: JqObject; depth: number }[] = [{ out: root, from: b, depth: 0 }];
  while (work.length > 0) {
    const { out, from, depth } = work.pop()!;
    const keys = Object.keys(from);
    charge(COST.merge * (1 + keys.length));
    for (const k of keys) {
      const x = getOwn(out, k);
      const y = from[k]!;
      if (isObject(x) && isObject(y)) {
        if (depth + 1 > MAX_DEPTH) throw new JqRuntimeError("Object merge too deep");
        const merged: JqObject = { ...x };
        setKey(out, k, merged);
        work.push({ out: merged, from: y, depth: depth + 1 });
      } else {
        setKey(out, k, y);
      }
    }
  }
  return root;
}

/** jq 1.8.2's string repetition: `n` truncated; negative (or nan) is null; past jq's own size bound, its error. */
function repeatString(s: string, n: number): JqValue {
  if (!(n >= 0)) return null;
  const count = n > 2147483647 ? 2147483647 : Math.trunc(n);
  if (utf8ByteLength(s) * count >= 2147483647 - 8) throw new JqRuntimeError("Repeat string result too long");
  checkString(s.length * count);
  return s.repeat(count);
}

/** Fails the run when a string would grow past the memory bound; a string about to be built is charged ({@link chargeText}). */
export function checkString(length: number): true {
  if (length > MAX_STRING_LENGTH) throw new JqLimitError(`evaluation exceeded the limit of ${MAX_STRING_LENGTH} characters for a string`);
  chargeText(length);
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
    // INT64_MIN % -1 overflows in C; jq 1.8.2 answers 0.
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
  charge(s.length >> 4);
  if (sep === "") {
    // jq splits an empty separator into code points.
    if (s.length > MAX_ARRAY_LENGTH) checkArray(lengthOf(s) as number);
    return Array.from(s);
  }
  // Counted before the parts are made: an array past the limit is never built.
  if (s.length / sep.length > MAX_ARRAY_LENGTH) {
    let parts = 1;
    for (let i = s.indexOf(sep); i >= 0 && parts <= MAX_ARRAY_LENGTH; i = s.indexOf(sep, i + sep.length)) parts++;
    checkArray(parts);
  }
  return s.split(sep);
}

// ---- indexing ----
/** `t[k]` with jq's rules for null, arrays (negative, fractional), objects and slices (`jv_get`). */
export function index(t: unknown, k: unknown): JqValue {
  if (typeof k === "string") {
    if (isObject(t)) return getOwn(t, k) ?? null;
    if (t === null) return null;
    throw cannotIndex(t, k);
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
    throw cannotIndex(t, k);
  }
  return indexOther(t, k);
}

/** `t[k]` for keys other than strings and numbers (kept out of `index`, the hottest function, so that it stays small). */
function indexOther(t: unknown, k: unknown): JqValue {
  if (isObject(k)) {
    if (t === null) return null;
    if (Array.isArray(t) || typeof t === "string") return sliceByObject(t, k);
  }
  if (Array.isArray(k) && Array.isArray(t)) return arrayIndices(t, k);
  throw cannotIndex(t, k);
}

/** `.[{"start": a, "end": b}]`: jq reads both keys; a missing one is not null. */
function sliceByObject(t: JqValue[] | string, k: JqObject): JqValue {
  if (!("start" in k) || !("end" in k)) throw new JqRuntimeError("Array/string slice indices must be integers");
  return slice(t, k["start"] ?? null, k["end"] ?? null);
}

/** Positions where the array `sub` occurs in `t` (jq's `_indices` on arrays). */
export function arrayIndices(t: JqValue[], sub: JqValue[]): JqValue {
  if (sub.length === 0) return [];
  charge(t.length * sub.length);
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

/**
 * Resolves slice bounds against a length as jq's `parse_slice` does: nan start is 0 and nan end the
 * length; negative bounds count from the end; the start is truncated, a fractional end rounded up.
 */
export function sliceBounds(len: number, from: unknown, to: unknown): [number, number] {
  if ((from !== null && typeof from !== "number") || (to !== null && typeof to !== "number")) {
    throw new JqRuntimeError("Array/string slice indices must be integers");
  }
  let s = from === null ? 0 : (from as number);
  let e = to === null ? len : (to as number);
  if (s !== s) s = 0;
  if (s < 0) s += len;
  if (s < 0) s = 0;
  if (s > len) s = len;
  const start = Math.trunc(s);
  if (e !== e) e = len;
  if (e < 0) e += len;
  if (e < 0) e = start;
  let end = e > len ? len : Math.trunc(e);
  if (end < len && end < e) end += 1;
  if (end < start) end = start;
  return [start, end];
}

export function slice(t: unknown, from: unknown, to: unknown): JqValue {
  if (t === null) return null;
  if (Array.isArray(t)) {
    const [s, e] = sliceBounds(t.length, from, to);
    // A slice of the whole array is the array, as jq's slice shares it (path() sees the same value).
    if (s === 0 && e === t.length) return t;
    charge(COST.copy * (e - s));
    return t.slice(s, e);
  }
  if (typeof t === "string") {
    // Slices of strings count code points.
    const offsets = codePointOffsets(t);
    const len = offsets ? offsets.length - 1 : t.length;
    const [s, e] = sliceBounds(len, from, to);
    return offsets ? t.slice(offsets[s], offsets[e]) : t.slice(s, e);
  }
  throw cannotIndex(t, { start: from, end: to });
}

/** The last string {@link codePointOffsets} looked at, and its offsets (programs slice one string many times: `splits`). */
let offsetsOfString = "";
let offsetsOfLast: Int32Array | null = null;

/**
 * Where each code point of `t` starts (UTF-16 offsets, and the length at the end), or null when every
 * code point is one unit (no surrogates). Scanning is work the run pays for.
 */
function codePointOffsets(t: string): Int32Array | null {
  if (t === offsetsOfString) return offsetsOfLast;
  charge(t.length >> 4);
  let offsets: Int32Array | null = null;
  if (hasSurrogates(t)) {
    const o: number[] = [];
    for (let i = 0; i < t.length; i++) {
      o.push(i);
      const c = t.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < t.length && (t.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++;
    }
    o.push(t.length);
    offsets = Int32Array.from(o);
  }
  offsetsOfString = t;
  offsetsOfLast = offsets;
  return offsets;
}

export function hasSurrogates(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) return true;
  }
  return false;
}

/** `length` */
export function lengthOf(v: unknown): JqValue {
  if (v === null) return 0;
  switch (typeof v) {
    case "boolean":
      throw typeError(v, "has no length");
    case "number":
      return Math.abs(v);
    case "string": {
      const offsets = codePointOffsets(v);
      return offsets ? offsets.length - 1 : v.length;
    }
    default: {
      if (Array.isArray(v)) return v.length;
      const n = Object.keys(v as object).length;
      charge(n >> 4);
      return n;
    }
  }
}

/** `contains`: substring for strings, recursive containment for arrays and objects. */
export function contains(a: unknown, b: unknown): boolean {
  if (typeOf(a) !== typeOf(b) || (typeof a === "boolean" && a !== b)) {
    throw typeError2(a, b, "cannot have their containment checked");
  }
  return containsValue(a, b);
}
