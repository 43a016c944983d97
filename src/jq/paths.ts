/**
 * jq's path operations on values: `getpath`, `setpath` and `delpaths` (`jv_getpath`, `jv_setpath`,
 * `jv_delpaths`), with jq's messages. All three go along the path in a loop (no JS recursion: a path may
 * be 10,000 keys long, jq 1.8.2's bound, past which it fails with `Path too deep`), and each key
 * followed is a step of the run's budget.
 */
import { MAX_DEPTH, equals, sortOrder } from "./compare.js";
import { JqRuntimeError } from "./errors.js";
import { COST, charge } from "./runtime.js";
import {
  JqObject,
  JqValue,
  checkArray,
  index,
  isObject,
  setKey,
  sliceBounds,
  typeOf,
} from "./values.js";

function checkPath(path: unknown): unknown[] {
  if (!Array.isArray(path)) throw new JqRuntimeError("Path must be specified as an array");
  if (path.length > MAX_DEPTH) throw new JqRuntimeError("Path too deep");
  charge(path.length);
  return path;
}

/** `getpath(path)`: each key as `.[key]` (so a key of the wrong kind fails, even below a null). */
export function getpath(t: unknown, path: unknown): JqValue {
  let cur = t as JqValue;
  for (const k of checkPath(path)) cur = index(cur, k);
  return cur;
}

/** jq's array bound (2^29 elements): assigning beyond it fails before any memory is used. */
const MAX_JQ_ARRAY_INDEX = 536870911;

/** The element an assignment to `.[k]` writes (jq's `jv_array_set` checks), counting negative indices from the end. */
function arrayIndex(arr: JqValue[], k: number): number {
  if (k !== k) throw new JqRuntimeError("Cannot set array element at NaN index");
  // C's conversion to int: truncation toward zero, clamped to the int range.
  let idx = k > 2147483647 ? 2147483647 : k < -2147483648 ? -2147483648 : Math.trunc(k);
  if (idx < 0) {
    idx += arr.length;
    if (idx < 0) throw new JqRuntimeError("Out of bounds negative array index");
  }
  if (idx > MAX_JQ_ARRAY_INDEX) throw new JqRuntimeError("Array index too large");
  return idx;
}

/**
 * What jq checks before going deeper along a path (it first sets the key to null): an index that
 * cannot be written, or an array used as a key, fails here rather than at a deeper key.
 */
function checkSettable(t: JqValue, k: unknown): void {
  if (typeof k === "number" && (t === null || Array.isArray(t))) arrayIndex(t ?? [], k);
  else if (Array.isArray(k) && Array.isArray(t)) throw new JqRuntimeError("Cannot update field at array index of array");
}

/**
 * `jv_set(t, k, v)`: a copy of `t` with `k` set (a null `t` becomes the container the key asks for).
 * With `owned` (containers this update copied itself, which nothing else references), those are
 * changed in place and the copies made here join them: a run of updates is linear in what it touches.
 */
function setOne(t: JqValue, k: unknown, v: JqValue, owned?: Set<object>): JqValue {
  if (typeof k === "string" && (t === null || isObject(t))) {
    let out = (t ?? {}) as JqObject;
    if (t === null || !owned?.has(out)) {
      charge(COST.copy * (1 + Object.keys(out).length));
      out = { ...out };
      owned?.add(out);
    }
    setKey(out, k, v);
    return out;
  }
  if (typeof k === "number" && (t === null || Array.isArray(t))) {
    const arr = (t ?? []) as JqValue[];
    const idx = arrayIndex(arr, k);
    // Growth past the array bound is the same limit error whatever the path.
    if (idx >= arr.length) {
      checkArray(idx + 1);
      charge(idx + 1 - arr.length);
    }
    let out = arr;
    if (t === null || !owned?.has(arr)) {
      out = arr.slice();
      charge(COST.copy * (1 + arr.length));
      owned?.add(out);
    }
    while (out.length < idx) out.push(null);
    out[idx] = v;
    return out;
  }
  if (isObject(k) && (t === null || Array.isArray(t))) {
    const arr = (t ?? []) as JqValue[];
    // jq's parse_slice: a missing start or end is not null, also where null becomes the array (`null | setpath([{"start":1}]; [9])`).
    if (!("start" in k) || !("end" in k)) throw new JqRuntimeError("Array/string slice indices must be integers");
    const [s, e] = sliceBounds(arr.length, k["start"] ?? null, k["end"] ?? null);
    if (!Array.isArray(v)) throw new JqRuntimeError("A slice of an array can only be assigned another array");
    checkArray(arr.length - (e - s) + v.length);
    if (owned?.has(arr)) return replaceSlice(arr, s, e, v);
    charge(arr.length + v.length);
    const out = arr.slice(0, s).concat(v, arr.slice(e));
    owned?.add(out);
    return out;
  }
  if (isObject(k) && typeof t === "string") throw new JqRuntimeError("Cannot update string slices");
  throw new JqRuntimeError(`Cannot update field at ${typeOf(k)} index of ${typeOf(t)}`);
}

/**
 * `arr[s:e] = v` in an array this update owns, as jq's jv_set does it: the elements after the slice
 * moved by the difference in length (none when it is the same), then v's written. A run of slice
 * updates costs what it moves, not a copy of the array each time.
 */
function replaceSlice(arr: JqValue[], s: number, e: number, v: readonly JqValue[]): JqValue[] {
  const length = arr.length;
  const shift = v.length - (e - s);
  charge(v.length + (shift === 0 ? 0 : length - e));
  if (shift > 0) {
    arr.length = length + shift;
    for (let i = length - 1; i >= e; i--) arr[i + shift] = arr[i]!;
  } else if (shift < 0) {
    for (let i = e; i < length; i++) arr[i + shift] = arr[i]!;
    arr.length = length + shift;
  }
  for (let i = 0; i < v.length; i++) arr[s + i] = v[i]!;
  return arr;
}

/**
 * `setpath(path; v)`: a copy of `t` with the value at `path` replaced (intermediate nulls become
 * containers), as jq's `jv_setpath`: each key is first read as `.[key]`, then written.
 */
export function setpath(t: unknown, path: unknown, v: unknown, owned?: Set<object>): JqValue {
  const keys = checkPath(path);
  const n = keys.length;
  // Down the path: the value under each prefix (what `.[key]` reads, with its errors).
  const along: JqValue[] = new Array(n + 1);
  along[0] = t as JqValue;
  for (let i = 0; i < n; i++) {
    const cur = along[i]!;
    const k = keys[i];
    along[i + 1] = index(cur, k);
    if (!isObject(k)) checkSettable(cur, k);
  }
  // Back up: each container with its key set to the value built below it.
  let value = v as JqValue;
  for (let i = n - 1; i >= 0; i--) value = setOne(along[i]!, keys[i], value, owned);
  return value;
}

/**
 * `delpaths(paths)`: the paths sorted, then, container by container, all deletions in it at once with
 * indices relative to the original (so `del(.[1], .[-6])` deletes what the user pointed at), as jq's
 * `delpaths_sorted`, from a work list instead of recursion.
 */
export function delpaths(t: unknown, paths: unknown): JqValue {
  if (!Array.isArray(paths)) throw new JqRuntimeError("Paths must be specified as an array");
  charge(paths.length);
  const sorted = sortOrder(paths).map((i) => (paths as JqValue[])[i]!);
  for (const p of sorted) {
    if (!Array.isArray(p)) throw new JqRuntimeError(`Path must be specified as array, not ${typeOf(p)}`);
    if (p.length > MAX_DEPTH) throw new JqRuntimeError("Path too deep");
    charge(p.length);
  }
  if (sorted.length === 0) return t as JqValue;
  if ((sorted[0] as JqValue[]).length === 0) return null;
  const ps = sorted as JqValue[][];
  interface Level {
    value: JqValue;
    /** The paths of this container: ps[next..end), all agreeing on their first `depth` keys. */
    next: number;
    end: number;
    depth: number;
    /** Keys deleted here. */
    keys: JqValue[];
    /** Where the result goes: the key under which the parent holds this container. */
    key: JqValue;
  }
  const owned = new Set<object>();
  const stack: Level[] = [{ value: t as JqValue, next: 0, end: ps.length, depth: 0, keys: [], key: null }];
  for (;;) {
    const f = stack[stack.length - 1]!;
    if (f.next < f.end) {
      const i = f.next;
      const key = ps[i]![f.depth]!;
      let j = i + 1;
      while (j < f.end && equals(ps[j]![f.depth], key)) j++;
      f.next = j;
      // The shortest path of the group sorts first: deleting the whole key covers the longer ones.
      if (ps[i]!.length === f.depth + 1) f.keys.push(key);
      else {
        const sub = index(f.value, key);
        if (sub !== null) stack.push({ value: sub, next: i, end: j, depth: f.depth + 1, keys: [], key });
      }
      continue;
    }
    const done = deleteKeys(f.value, f.keys);
    stack.pop();
    if (stack.length === 0) return done;
    const parent = stack[stack.length - 1]!;
    parent.value = setOne(parent.value, f.key, done, owned);
  }
}

/** Deletes keys (indices, slices or fields) of one container at once (jq's `jv_dels`). */
function deleteKeys(t: JqValue, keys: JqValue[]): JqValue {
  if (t === null || keys.length === 0) return t;
  charge(keys.length);
  if (Array.isArray(t)) {
    const len = t.length;
    const drop = new Set<number>();
    const ranges: [number, number][] = [];
    for (const k of keys) {
      if (typeof k === "number") {
        if (k === k) drop.add(Math.trunc(k) + (k < 0 ? len : 0));
      } else if (isObject(k)) {
        if (!("start" in k) || !("end" in k)) throw new JqRuntimeError("Array/string slice indices must be integers");
        ranges.push(sliceBounds(len, k["start"] ?? null, k["end"] ?? null));
      } else throw new JqRuntimeError(`Cannot delete ${typeOf(k)} element of array`);
    }
    charge(len);
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
