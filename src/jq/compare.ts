/**
 * jq's structural operations on two values: its total order (`sort`, `<`), equality (`==`) and
 * containment (`contains`). Each walks both values with an explicit stack, so a value nested
 * 10,000 levels deep needs no JS stack; each container visited is a step of the run's budget (values
 * may share structure: 2^40 leaves built in 40 steps); and each stops, as jq 1.8.2 does, with
 * `Comparison too deep`, `Equality check too deep` or `Containment check too deep` past 10,000 levels.
 */
import { JqRuntimeError } from "./errors.js";
import { compareCodepoints } from "./native/json.js";
import { COST, charge } from "./runtime.js";

/** jq 1.8.2's bound on the depth of comparison, equality, containment, object merge and paths. */
export const MAX_DEPTH = 10_000;

/** Compares strings by Unicode code point (jq compares UTF-8 bytes, which orders the same). */
export const compareStrings = compareCodepoints;

/** Sorted keys of an object, in jq's order. */
export function sortedKeys(o: object): string[] {
  return Object.keys(o).sort(compareStrings);
}

/** null < false < true < numbers < strings < arrays < objects. */
function rank(v: unknown): number {
  switch (typeof v) {
    case "number":
      return 3;
    case "string":
      return 4;
    case "boolean":
      return v ? 2 : 1;
    case "object":
      return v === null ? 0 : Array.isArray(v) ? 5 : 6;
    default:
      return 0;
  }
}

/** Two values of the same scalar rank. */
function compareScalars(a: unknown, b: unknown, r: number): number {
  if (r === 3) {
    const x = a as number;
    const y = b as number;
    // jq orders nan as if it were null: below every number, itself included.
    if (x !== x) return (nanCompared = -1);
    if (y !== y) return (nanCompared = 1);
    return x < y ? -1 : x === y ? 0 : 1;
  }
  if (r === 4) return a === b ? 0 : compareStrings(a as string, b as string);
  return 0;
}

/**
 * Set when a comparison met nan. jq's order is then no order (nan is below nan), so where a sort lands
 * depends on the algorithm: `sortOrder` sorts again as jq's `qsort` (glibc's merge sort) does.
 */
let nanCompared = 0;

/** The top-down merge of glibc 2.36's `qsort` (msort_with_tmp): the left run wins unless it compares above. */
function mergeSort(a: number[], tmp: number[], lo: number, n: number, cmp: (x: number, y: number) => number): void {
  if (n <= 1) return;
  const n1 = n >> 1;
  mergeSort(a, tmp, lo, n1, cmp);
  mergeSort(a, tmp, lo + n1, n - n1, cmp);
  let i = lo;
  let j = lo + n1;
  const iEnd = j;
  const jEnd = lo + n;
  let k = 0;
  while (i < iEnd && j < jEnd) tmp[k++] = cmp(a[i]!, a[j]!) <= 0 ? a[i++]! : a[j++]!;
  while (i < iEnd) tmp[k++] = a[i++]!;
  for (let t = 0; t < k; t++) a[lo + t] = tmp[t]!;
}

/**
 * The order in which jq's `sort`, `sort_by`, `group_by` and `unique_by` put elements with these keys
 * (jv_sort: keys compared, then indices): indices into `keys`. Array.prototype.sort is stable, which
 * gives jq's order whenever the comparison is an order; when it met nan, glibc's merge sort decides.
 */
export function sortOrder(keys: readonly unknown[]): number[] {
  const order = keys.map((_k, i) => i);
  const cmp = (a: number, b: number): number => compare(keys[a], keys[b]) || a - b;
  nanCompared = 0;
  order.sort(cmp);
  if (nanCompared !== 0) {
    order.sort((a, b) => a - b);
    mergeSort(order, new Array<number>(order.length), 0, order.length, cmp);
  }
  return order;
}

/** jq's total order over values: null < false < true < numbers < strings < arrays < objects. */
export function compare(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if (ra < 5) return compareScalars(a, b, ra);
  return compareContainers(a as object, b as object);
}

function tooDeep(what: string): JqRuntimeError {
  return new JqRuntimeError(`${what} too deep`);
}

// The stack of containers being compared, as parallel arrays (no object per frame).
const cmpA: unknown[] = [];
const cmpB: unknown[] = [];
const cmpKeys: (string[] | null)[] = [];
const cmpI: number[] = [];
const cmpN: number[] = [];
const cmpDepth: number[] = [];

/**
 * Arrays element by element, then by length; objects by their sorted key lists, then value by value
 * in key order (jq's `jv_cmp`). Depth counts as jq counts it: a container's elements are one level
 * down, an object's key list one level down and its keys two.
 */
function compareContainers(a: object, b: object): number {
  let top = 0;
  const open = (x: object, y: object, depth: number): number => {
    if (Array.isArray(x)) {
      charge(COST.compare);
      cmpA[top] = x;
      cmpB[top] = y;
      cmpKeys[top] = null;
      cmpI[top] = 0;
      cmpN[top] = Math.min(x.length, (y as unknown[]).length);
      cmpDepth[top++] = depth;
      return 0;
    }
    const kx = sortedKeys(x);
    const ky = sortedKeys(y);
    charge(COST.compare + kx.length + ky.length);
    if (depth + 1 > MAX_DEPTH || (kx.length > 0 && ky.length > 0 && depth + 2 > MAX_DEPTH)) throw tooDeep("Comparison");
    const n = Math.min(kx.length, ky.length);
    for (let i = 0; i < n; i++) {
      if (kx[i] !== ky[i]) return compareStrings(kx[i]!, ky[i]!);
    }
    if (kx.length !== ky.length) return kx.length < ky.length ? -1 : 1;
    cmpA[top] = x;
    cmpB[top] = y;
    cmpKeys[top] = kx;
    cmpI[top] = 0;
    cmpN[top] = n;
    cmpDepth[top++] = depth;
    return 0;
  };
  try {
    let r = open(a, b, 0);
    while (r === 0 && top > 0) {
      const f = top - 1;
      const i = cmpI[f]!;
      if (i === cmpN[f]) {
        top--;
        const keys = cmpKeys[f];
        if (keys === null) {
          const la = (cmpA[f] as unknown[]).length;
          const lb = (cmpB[f] as unknown[]).length;
          if (la !== lb) r = la < lb ? -1 : 1;
        }
        continue;
      }
      cmpI[f] = i + 1;
      const keys = cmpKeys[f];
      const k = keys === null ? i : keys[i]!;
      const x = (cmpA[f] as Record<string | number, unknown>)[k];
      const y = (cmpB[f] as Record<string | number, unknown>)[k];
      const depth = cmpDepth[f]! + 1;
      if (depth > MAX_DEPTH) throw tooDeep("Comparison");
      const rx = rank(x);
      const ry = rank(y);
      if (rx !== ry) r = rx < ry ? -1 : 1;
      else if (rx < 5) r = compareScalars(x, y, rx);
      else r = open(x as object, y as object, depth);
    }
    return r;
  } finally {
    // Drop the references the stack held.
    cmpA.length = cmpB.length = cmpKeys.length = 0;
  }
}

/** jq's `==`: numbers by value (nan equals nothing), containers element by element. */
export function equals(a: unknown, b: unknown): boolean {
  if (a === b) return typeof a !== "number" || a === a;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return equalContainers(a, b);
}

/**
 * Equality of two containers, as jq's `jv_equal`: the same container is equal without a look inside;
 * arrays of different lengths and objects of different sizes differ at once.
 */
function equalContainers(a: object, b: object): boolean {
  const xs: unknown[] = [a];
  const ys: unknown[] = [b];
  const ds: number[] = [0];
  while (xs.length > 0) {
    const x = xs.pop();
    const y = ys.pop();
    const d = ds.pop()!;
    if (d > MAX_DEPTH) throw tooDeep("Equality check");
    if (x === y) {
      if (typeof x === "number" && x !== x) return false;
      continue;
    }
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      charge(COST.visit + x.length);
      for (let i = x.length - 1; i >= 0; i--) {
        xs.push(x[i]);
        ys.push(y[i]);
        ds.push(d + 1);
      }
      continue;
    }
    if (Array.isArray(y)) return false;
    const keys = Object.keys(x);
    charge(COST.visit + keys.length);
    if (keys.length !== Object.keys(y).length) return false;
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      if (!Object.prototype.hasOwnProperty.call(y, k)) return false;
      xs.push((x as Record<string, unknown>)[k]);
      ys.push((y as Record<string, unknown>)[k]);
      ds.push(d + 1);
    }
  }
  return true;
}

/** A container whose containment of another is being decided: its progress and the depth it is at. */
interface ContainsFrame {
  a: Record<string | number, unknown>;
  b: Record<string | number, unknown>;
  /** Keys of `b` to check (objects), or null (arrays). */
  keys: string[] | null;
  /** Objects: the key being checked. Arrays: the element of `b` being looked for. */
  i: number;
  /** Arrays: the element of `a` being tried for it. */
  j: number;
  depth: number;
}

/**
 * jq's `contains` after its kind check: strings by substring, objects key by key, arrays when every
 * element of `b` is contained in some element of `a`; anything else by equality. A kind mismatch
 * below the top is false.
 */
export function containsValue(a: unknown, b: unknown): boolean {
  const stack: ContainsFrame[] = [];
  // Starts deciding whether `x` contains `y`: true or false at once, or undefined when a frame was pushed.
  const start = (x: unknown, y: unknown, depth: number): boolean | undefined => {
    if (depth > MAX_DEPTH) throw tooDeep("Containment check");
    const r = rank(x);
    if (r !== rank(y)) return false;
    if (r === 6) {
      const keys = Object.keys(y as object);
      charge(COST.visit + keys.length);
      stack.push({ a: x as Record<string, unknown>, b: y as Record<string, unknown>, keys, i: 0, j: 0, depth });
      return undefined;
    }
    if (r === 5) {
      charge(COST.visit);
      stack.push({ a: x as Record<number, unknown>, b: y as Record<number, unknown>, keys: null, i: 0, j: 0, depth });
      return undefined;
    }
    if (r === 4) return (x as string).includes(y as string);
    return equals(x, y);
  };
  let result = start(a, b, 0);
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (result !== undefined) {
      // The answer for the child being checked.
      if (f.keys !== null) {
        if (!result) {
          stack.pop();
          continue;
        }
        f.i++;
      } else if (result) {
        f.i++;
        f.j = 0;
      } else f.j++;
      result = undefined;
    }
    if (f.keys !== null) {
      if (f.i === f.keys.length) {
        stack.pop();
        result = true;
        continue;
      }
      const k = f.keys[f.i]!;
      // A key `a` lacks: jq compares an invalid value, whose kind matches nothing.
      result = Object.prototype.hasOwnProperty.call(f.a, k) ? start(f.a[k], f.b[k], f.depth + 1) : false;
      continue;
    }
    const a2 = f.a as unknown as unknown[];
    const b2 = f.b as unknown as unknown[];
    if (f.i === b2.length) {
      stack.pop();
      result = true;
      continue;
    }
    if (f.j === a2.length) {
      stack.pop();
      result = false;
      continue;
    }
    charge(COST.visit);
    result = start(a2[f.j], b2[f.i], f.depth + 1);
  }
  return result!;
}
