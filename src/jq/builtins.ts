/**
 * The native core of the jq builtins: what cannot be written in jq, or must stop early, or is hot.
 * Everything else is jq text in library.ts.
 */
import { GenNative, INVALID_PATH, Native, ValueNative, invalidAccess, invalidPath } from "./compiler.js";
import { JqRuntimeError } from "./errors.js";
import { COST, Closure, JqHalt, MAX_ARRAY_LENGTH, PathEmit, Stop, charge, countLabel, current, step } from "./runtime.js";
import {
  JqObject,
  JqValue,
  PathComponent,
  add,
  subtract,
  cannotIterate,
  checkArray,
  compare,
  contains,
  dumpShort,
  index,
  isObject,
  isTruthy,
  lengthOf,
  setKey,
  sortedKeys,
  splitString,
  typeError,
  typeError2,
  typeOf,
} from "./values.js";
import { delpaths, getpath, setpath } from "./paths.js";
import { sortOrder } from "./compare.js";
import { CHARGED, codepointLength, explode, formatNumber, implode, parseJsonText, toJson, toNumber, utf8ByteLength } from "./native/json.js";
import { applyFormat } from "./native/formats.js";
import { createRequire } from "node:module";

// The regular expression and date builtins are loaded on their first call: most programs use neither,
// and loading them is a good part of every command's start-up (Node >= 20.19 loads ES modules with require).
const requireNative = createRequire(import.meta.url);
let regexNatives: typeof import("./native/regex.js") | undefined;
let dateNatives: typeof import("./native/dates.js") | undefined;
const regex = (): typeof import("./native/regex.js") => (regexNatives ??= requireNative("./native/regex.js") as typeof import("./native/regex.js"));
const dates = (): typeof import("./native/dates.js") => (dateNatives ??= requireNative("./native/dates.js") as typeof import("./native/dates.js"));
// The special functions of libm (erf, Bessel...), likewise.
type MathNatives = typeof import("./native/math.js");
let mathNatives: MathNatives | undefined;
const lazyMath = <K extends keyof MathNatives>(k: K): MathNatives[K] =>
  ((...args: number[]) => ((mathNatives ??= requireNative("./native/math.js") as MathNatives)[k] as (...a: number[]) => unknown)(...args)) as MathNatives[K];
const [erf, erfc, fdim, frexp, j0, j1, jn, ldexp, logb, remainder, significand, y0, y1, yn, lgamma, tgamma, gammaSign, pow, fma, scalbln] = [
  lazyMath("erf"),
  lazyMath("erfc"),
  lazyMath("fdim"),
  lazyMath("frexp"),
  lazyMath("j0"),
  lazyMath("j1"),
  lazyMath("jn"),
  lazyMath("ldexp"),
  lazyMath("logb"),
  lazyMath("remainder"),
  lazyMath("significand"),
  lazyMath("y0"),
  lazyMath("y1"),
  lazyMath("yn"),
  lazyMath("lgamma"),
  lazyMath("tgamma"),
  lazyMath("gammaSign"),
  lazyMath("pow"),
  lazyMath("fma"),
  lazyMath("scalbln"),
] as const;

const natives = new Map<string, Native>();
/** No value (distinct from every JSON value). */
const NONE: unique symbol = Symbol("none");

function value(name: string, fn: ValueNative["fn"]): void {
  natives.set(`${name}/${fn.length === 0 ? 0 : fn.length - 1}`, { kind: "value", fn });
}
function valueN(name: string, arity: number, fn: ValueNative["fn"]): void {
  natives.set(`${name}/${arity}`, { kind: "value", fn });
}
function gen(name: string, arity: number, impl: Omit<GenNative, "kind">): void {
  natives.set(`${name}/${arity}`, { kind: "gen", ...impl });
}

// ---- types and basics ----
value("not", (v) => !isTruthy(v));
value("length", (v) => lengthOf(v));
value("utf8bytelength", (v) => {
  if (typeof v !== "string") throw typeError(v, "only strings have UTF-8 byte length");
  return utf8ByteLength(v);
});
value("type", (v) => typeOf(v));
value("infinite", () => Infinity);
value("nan", () => NaN);
value("isinfinite", (v) => {
  // jq 1.7.1: false for anything that is not a number (null | isnan is false).
  if (typeof v !== "number") return false;
  return v === Infinity || v === -Infinity;
});
value("isnan", (v) => {
  // jq 1.7.1: false for anything that is not a number (null | isnan is false).
  if (typeof v !== "number") return false;
  return v !== v;
});
value("isnormal", (v) => {
  // jq 1.7.1: false for anything that is not a number (null | isnan is false).
  if (typeof v !== "number") return false;
  return isFinite(v) && v !== 0 && Math.abs(v) >= 2.2250738585072014e-308;
});
value("now", () => Date.now() / 1000);
value("builtins", () => builtinNames());
value("input_filename", () => (typeof current.filename === "function" ? current.filename() : current.filename));
value("input_line_number", () => (typeof current.inputLineNumber === "function" ? current.inputLineNumber() : current.inputLineNumber));
value("error", (_v, msg) => {
  throw new JqRuntimeError(msg);
});
/**
 * `halt_error`'s code as jq 1.8.2 keeps it: a C int (truncated; out of its range, or not finite,
 * INT_MIN). The command line makes the exit status of it as jq's main does.
 */
function exitStatus(code: number): number {
  return Number.isFinite(code) && code > -2147483649 && code < 2147483648 ? Math.trunc(code) : -2147483648;
}

value("halt", () => {
  throw new JqHalt(0, undefined);
});
value("halt_error", (v, code) => {
  if (typeof code !== "number") throw typeError(v, "halt_error/1: number required");
  throw new JqHalt(exitStatus(code), v);
});
value("debug", (v) => {
  current.debug?.(toJson(["DEBUG:", v], { ...CHARGED, ...current.debugFormat }));
  return v;
});
value("stderr", (v) => {
  // jq 1.8: a string as it is, anything else as compact JSON.
  current.stderr?.(typeof v === "string" ? v : toJson(v, CHARGED));
  return v;
});
value("input", () => {
  const next = current.nextInput?.();
  // jq's `input` past the last input raises "break" (what `inputs` stops on).
  if (!next) throw new JqRuntimeError("break");
  return next.value;
});

// ---- strings ----
value("tostring", (v) => (typeof v === "string" ? v : toJson(v, CHARGED)));
value("tojson", (v) => toJson(v, CHARGED));
value("format", (v, name) => {
  if (typeof name !== "string") throw typeError(name, "is not a valid format");
  return applyFormat(name, v);
});
value("fromjson", (v) => {
  if (typeof v !== "string") throw typeError(v, "only strings can be parsed");
  charge(v.length >> 4);
  const parsed = parseJsonText(v) as JqValue;
  // An array past the element limit takes two characters an element: only a text that long can hold one.
  if (v.length > 2 * MAX_ARRAY_LENGTH) checkArrays(parsed);
  return parsed;
});
/** Fails the run if any array in `v` is longer than the element limit (walked without recursion). */
function checkArrays(v: JqValue): void {
  const work: JqValue[] = [v];
  while (work.length > 0) {
    const x = work.pop()!;
    if (Array.isArray(x)) {
      if (x.length > MAX_ARRAY_LENGTH) checkArray(x.length);
      for (const e of x) if (typeof e === "object" && e !== null) work.push(e);
    } else if (isObject(x)) {
      for (const e of Object.values(x)) if (typeof e === "object" && e !== null) work.push(e);
    }
  }
}
value("tonumber", (v) => toNumber(v));
value("toboolean", (v) => {
  if (typeof v === "boolean") return v;
  if (v === "true") return true;
  if (v === "false") return false;
  throw typeError(v, "cannot be parsed as a boolean");
});
value("explode", (v) => {
  if (typeof v !== "string") throw new JqRuntimeError("explode input must be a string");
  if (v.length > MAX_ARRAY_LENGTH) checkArray(lengthOf(v) as number);
  charge(v.length >> 4);
  return explode(v);
});
value("implode", (v) => implode(v));
value("startswith", (v, s) => {
  if (typeof v !== "string" || typeof s !== "string") throw new JqRuntimeError("startswith() requires string inputs");
  return v.startsWith(s);
});
value("endswith", (v, s) => {
  if (typeof v !== "string" || typeof s !== "string") throw new JqRuntimeError("endswith() requires string inputs");
  return v.endsWith(s);
});
// jq's whitespace for trim (jvp_codepoint_is_whitespace): Unicode's White_Space characters.
const WHITE = "\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const TRIM_LEFT = new RegExp(`^[${WHITE}]+`);
const TRIM_RIGHT = new RegExp(`[${WHITE}]+$`);
function trim(v: JqValue, left: boolean, right: boolean): JqValue {
  if (typeof v !== "string") throw new JqRuntimeError("trim input must be a string");
  let s = v;
  if (left) s = s.replace(TRIM_LEFT, "");
  if (right) s = s.replace(TRIM_RIGHT, "");
  return s;
}
value("trim", (v) => trim(v, true, true));
value("ltrim", (v) => trim(v, true, false));
value("rtrim", (v) => trim(v, false, true));
value("split", (v, sep) => {
  if (typeof v !== "string" || typeof sep !== "string") throw new JqRuntimeError("split input and separator must be strings");
  return splitString(v, sep);
});
/** `_strindices`: every (overlapping) occurrence of `s` in `v`, at code point offsets (jq 1.8). */
value("_strindices", (v, s) => {
  if (typeof v !== "string") throw typeError(v, "cannot be searched, as it is not a string");
  if (typeof s !== "string") throw typeError(s, "is not a string");
  const out: number[] = [];
  if (s === "") return out;
  charge(1 + (v.length >> 4));
  let cp = 0;
  let at = 0;
  for (let i = v.indexOf(s); i >= 0; i = v.indexOf(s, i + 1)) {
    // Each occurrence is compared in full: the run pays for it.
    charge(s.length);
    for (; at < i; at++) {
      const c = v.charCodeAt(at);
      if (c < 0xd800 || c > 0xdbff) cp++;
    }
    out.push(cp);
    if (out.length > MAX_ARRAY_LENGTH) checkArray(out.length);
  }
  return out;
});
valueN("_match_impl", 3, (v, re, flags, test) => regex().matchRegex(v, re, flags, isTruthy(test)) as JqValue);

// ---- collections ----
value("keys", (v) => {
  if (isObject(v)) return sortedKeys(v);
  if (Array.isArray(v)) return v.map((_x, i) => i);
  throw typeError(v, "has no keys");
});
value("keys_unsorted", (v) => {
  if (isObject(v)) return Object.keys(v);
  if (Array.isArray(v)) return v.map((_x, i) => i);
  throw typeError(v, "has no keys");
});
value("has", (v, k) => {
  if (v === null) return false;
  if (isObject(v) && typeof k === "string") return Object.prototype.hasOwnProperty.call(v, k);
  if (Array.isArray(v) && typeof k === "number") return k >= 0 && k < v.length;
  throw new JqRuntimeError(`Cannot check whether ${typeOf(v)} has a ${typeOf(k)} key`);
});
value("contains", (v, b) => contains(v, b));
/**
 * `add(f)`: jq's `reduce f as $x (null; . + $x)`, linear: once the sum is an array or object this
 * builtin made, the next terms are appended to it in place instead of copying it per term.
 */
function adder(): { push(x: JqValue): void; readonly sum: JqValue } {
  let acc: JqValue = null;
  let mine = false;
  return {
    push(x) {
      if (mine && x !== null) {
        if (Array.isArray(acc) && Array.isArray(x)) {
          checkArray(acc.length + x.length);
          charge(x.length);
          for (let i = 0; i < x.length; i++) acc.push(x[i]!);
          return;
        }
        if (isObject(acc) && isObject(x)) {
          for (const k in x) setKey(acc, k, x[k]!);
          return;
        }
      }
      const next = add(acc, x);
      mine = next !== acc && next !== x && typeof next === "object" && next !== null;
      acc = next;
    },
    get sum() {
      return acc;
    },
  };
}
gen("add", 1, {
  gen: (input, [f], emit) => {
    const sum = adder();
    const r = f!.code.gen(input, f!.env, (x) => {
      sum.push(x);
      return undefined;
    });
    return r || emit(sum.sum);
  },
});
/** `add`: `add(.[])`. */
value("add", (v) => {
  const sum = adder();
  if (Array.isArray(v)) for (const x of v) sum.push(x);
  else if (isObject(v)) for (const k in v) sum.push(v[k]!);
  else throw cannotIterate(v);
  return sum.sum;
});
/**
 * `from_entries` as jq 1.8.2 defines it (the key from key, Key, name or Name, the first that is truthy,
 * and it must be a string; the value from value, or Value when there is no "value"), built in place.
 */
value("from_entries", (v) => {
  const out: JqObject = {};
  const each = (x: JqValue): void => {
    let key: JqValue = null;
    const names = ["key", "Key", "name", "Name"];
    let first: unknown;
    for (let i = 0; i < names.length; i++) {
      // `.key // .Key // ...`: an error in any but the last alternative counts as false; when the last
      // fails too, the first error is the one raised, as jq's `//` raises it.
      let k: JqValue;
      try {
        k = index(x, names[i]);
      } catch (e) {
        first ??= e;
        if (i === names.length - 1 || !(e instanceof JqRuntimeError)) throw first;
        continue;
      }
      key = k;
      if (isTruthy(k)) break;
    }
    if (typeof key !== "string") throw new JqRuntimeError(`Cannot use ${typeOf(key)} (${dumpShort(key)}) as object key`);
    let hasValue: boolean;
    if (isObject(x)) hasValue = Object.prototype.hasOwnProperty.call(x, "value");
    else if (x === null) hasValue = false;
    else throw new JqRuntimeError(`Cannot check whether ${typeOf(x)} has a string key`);
    setKey(out, key, index(x, hasValue ? "value" : "Value"));
  };
  if (Array.isArray(v)) {
    for (const x of v) {
      step();
      each(x);
    }
  } else if (isObject(v)) {
    for (const k in v) {
      step();
      each(v[k]!);
    }
  } else {
    throw cannotIterate(v);
  }
  return out;
});
/**
 * `_flatten($depth)`: jq's `reduce .[] as $i ([]; if $i is an array and $depth != 0 then . + ($i |
 * _flatten($depth - 1)) else . + [$i] end)`, appending in place, nested arrays from a work list.
 */
value("_flatten", (v, depth) => {
  const out: JqValue[] = [];
  if (!Array.isArray(v) && !isObject(v)) throw cannotIterate(v);
  const stack: { items: JqValue[]; i: number; depth: JqValue }[] = [{ items: Array.isArray(v) ? v : Object.values(v), i: 0, depth }];
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.i === f.items.length) {
      stack.pop();
      continue;
    }
    const x = f.items[f.i++]!;
    charge(COST.copy);
    if (Array.isArray(x) && f.depth !== 0) stack.push({ items: x, i: 0, depth: subtract(f.depth, 1) });
    else {
      out.push(x);
      if (out.length > MAX_ARRAY_LENGTH) checkArray(out.length);
    }
  }
  return out;
});
value("to_entries", (v) => {
  if (isObject(v)) return Object.keys(v).map((key) => ({ key, value: v[key]! }));
  if (Array.isArray(v)) return v.map((value, key) => ({ key, value }));
  throw typeError(v, "has no keys");
});
// jq 1.8.2's `def reverse: [.[length - 1 - range(0;length)]];`, natively: an array reversed; anything
// else of length 0 is []; otherwise its length's error, or indexing its last place by number fails.
value("reverse", (v) => {
  if (Array.isArray(v)) return v.slice().reverse();
  const n = Number(lengthOf(v));
  if (n === 0) return [];
  throw new JqRuntimeError(`Cannot index ${typeOf(v)} with number (${formatNumber(n - 1)})`);
});

function requireArray(v: JqValue, what: string): JqValue[] {
  if (!Array.isArray(v)) throw typeError(v, `cannot be ${what}, as it is not an array`);
  return v;
}
/** The array sorted as jq's `sort` sorts it. */
function sortArray(v: JqValue[]): JqValue[] {
  return sortOrder(v).map((i) => v[i]!);
}
value("sort", (v) => sortArray(requireArray(v, "sorted")));
value("unique", (v) => {
  const sorted = sortArray(requireArray(v, "sorted"));
  return sorted.filter((x, i) => i === 0 || compare(sorted[i - 1], x) !== 0);
});
/** The input and its keys, both arrays of one length, as jq's C builtins require them; else its error. */
function requirePair(v: JqValue, keys: JqValue, what: string, length: string): [JqValue[], JqValue[]] {
  if (!Array.isArray(v) || !Array.isArray(keys)) throw typeError2(v, keys, what);
  if (v.length !== keys.length) throw typeError2(v, keys, length);
  return [v, keys];
}
// jq's minmax_by: `min` is `min_by(.)` with the input as its own keys.
const minMaxBy = (v: JqValue, keys: JqValue, isMin: boolean): JqValue => minMax(...requirePair(v, keys, "cannot be iterated over", "have wrong length"), isMin);
value("min", (v) => minMaxBy(v, v, true));
value("max", (v) => minMaxBy(v, v, false));
value("_min_by_impl", (v, keys) => minMaxBy(v, keys, true));
value("_max_by_impl", (v, keys) => minMaxBy(v, keys, false));

/** The first minimal or the last maximal element, by the given keys (jq's tie-breaking). */
function minMax(items: JqValue[], keys: JqValue[], isMin: boolean): JqValue {
  if (items.length === 0) return null;
  let best = 0;
  for (let i = 1; i < items.length; i++) {
    const c = compare(keys[i], keys[best]);
    if (isMin ? c < 0 : c >= 0) best = i;
  }
  return items[best]!;
}

function sortIndicesByKeys(v: JqValue, keys: JqValue): number[] {
  const both = "cannot be sorted, as they are not both arrays";
  const [items, sortKeys] = requirePair(v, keys, both, both);
  if (items.length === 0) return [];
  return sortOrder(sortKeys);
}
value("_sort_by_impl", (v, keys) => sortIndicesByKeys(v, keys).map((i) => (v as JqValue[])[i]!));
value("_group_by_impl", (v, keys) => {
  const order = sortIndicesByKeys(v, keys);
  const groups: JqValue[][] = [];
  let prev: JqValue | undefined;
  for (const i of order) {
    const k = (keys as JqValue[])[i]!;
    if (groups.length === 0 || compare(prev, k) !== 0) groups.push([]);
    groups[groups.length - 1]!.push((v as JqValue[])[i]!);
    prev = k;
  }
  return groups;
});

// ---- paths ----
value("setpath", (v, p, x) => setpath(v, p, x));
value("delpaths", (v, ps) => delpaths(v, ps));
gen("getpath", 1, {
  gen: (input, [p], emit) =>
    p!.code.gen(input, p!.env, (path) => {
      // A path through a value that cannot be indexed fails (`{"a":1} | getpath(["a","b"])`), as in jq.
      return emit(getpath(input, path));
    }),
  path: (input, base, [p], emit) =>
    p!.code.gen(input, p!.env, (path) => {
      const v = getpath(input, path);
      if (base === INVALID_PATH) throw invalidPath(input);
      return emit([...base, ...(path as PathComponent[])], v);
    }),
});
gen("path", 1, {
  gen: (input, [f], emit) =>
    f!.code.path()(input, [], f!.env, (p, v) => {
      if (p === INVALID_PATH) throw invalidPath(v);
      return emit(p as JqValue);
    }),
});
gen("paths", 0, {
  gen: (input, _args, emit) => descend(input, [], true, (p) => (p.length > 0 ? emit(p as JqValue) : undefined)),
});

/** `leaf_paths` (jq 1.6's `paths(scalars)`, kept): the paths of the values that are not arrays or objects. */
gen("leaf_paths", 0, {
  gen: (input, _args, emit) => descend(input, [], true, (p, v) => (p.length > 0 && (v === null || typeof v !== "object") ? emit(p as JqValue) : undefined)),
});

/**
 * `tostream`, as jq defines it (`path(def r: (.[]?|r), .; r) as $p | getpath($p) | reduce path(.[]?)
 * as $q ([$p, .]; [$p+$q])`): `[path, leaf]` for each scalar or empty container, and after the last
 * child of a container `[path of that child]`, from a work list.
 */
gen("tostream", 0, {
  gen: (input, _args, emit) => {
    interface Level {
      v: JqValue[] | JqObject;
      path: PathComponent[];
      keys: (string | number)[];
      i: number;
    }
    const stack: Level[] = [];
    const event = (path: PathComponent[], v?: JqValue): Stop => {
      charge(COST.visit + COST.copy * path.length);
      return emit((v === undefined ? [path] : [path, v]) as JqValue);
    };
    /** A value: its leaf event now, or (a container with children) its level. */
    const start = (v: JqValue, path: PathComponent[]): Stop => {
      const keys: (string | number)[] = Array.isArray(v) ? v.map((_x, i) => i) : isObject(v) ? Object.keys(v) : [];
      if (keys.length === 0) return event(path, v);
      charge(keys.length);
      stack.push({ v: v as JqValue[] | JqObject, path, keys, i: 0 });
      return undefined;
    };
    let r = start(input, []);
    while (!r && stack.length > 0) {
      const f = stack[stack.length - 1]!;
      if (f.i < f.keys.length) {
        const k = f.keys[f.i++]!;
        // Each level keeps its path (a copy): charged, as the levels of a deep value hold depth² elements.
        charge(COST.copy * (f.path.length + 1));
        r = start((f.v as Record<string | number, JqValue>)[k]!, [...f.path, k]);
        continue;
      }
      stack.pop();
      r = event([...f.path, f.keys[f.keys.length - 1]!]);
    }
    return r;
  },
});

/** A container whose children {@link descend} is going through. */
interface Descent {
  v: JqValue[] | JqObject;
  path: PathComponent[];
  keys: string[] | null;
  i: number;
}

/**
 * `..` (jq's `recurse(.[]?)`): the value, then each child's, depth first, from a work list (a value
 * may be nested any number of levels). With `withPaths`, each value comes with its path; building
 * it is work the run pays for, as is each value visited.
 */
function descend(root: JqValue, base: PathComponent[], withPaths: boolean, emit: PathEmit): Stop {
  step();
  let r = emit(base, root);
  if (r) return r;
  const stack: Descent[] = [];
  const enter = (v: JqValue, path: PathComponent[]): void => {
    if (Array.isArray(v)) {
      if (v.length > 0) stack.push({ v, path, keys: null, i: 0 });
    } else if (isObject(v)) {
      const keys = Object.keys(v);
      if (keys.length > 0) stack.push({ v, path, keys, i: 0 });
    }
  };
  enter(root, base);
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    const k = f.keys === null ? f.i : f.keys[f.i]!;
    if (++f.i === (f.keys === null ? (f.v as JqValue[]).length : f.keys.length)) stack.pop();
    const child = (f.v as Record<string | number, JqValue>)[k]!;
    let path = f.path;
    if (withPaths) {
      charge(COST.copy * (path.length + 1));
      path = [...path, k];
    }
    charge(COST.visit);
    r = emit(path, child);
    if (r) return r;
    enter(child, path);
  }
  return undefined;
}

// ---- control ----
gen("empty", 0, { gen: () => undefined, path: () => undefined });
gen("select", 1, {
  gen: (input, [f], emit) => f!.code.gen(input, f!.env, (c) => (isTruthy(c) ? emit(input) : undefined)),
  path: (input, path, [f], emit) => f!.code.gen(input, f!.env, (c) => (isTruthy(c) ? emit(path, input) : undefined)),
});
gen("recurse", 0, {
  gen: (input, _args, emit) => descend(input, [], false, (_p, v) => emit(v)),
  path: (input, path, _args, emit) => descend(input, path, true, emit),
});
// ---- iteration without stack per step ----
/**
 * `while`, `until` and `recurse` walk a tree of values depth first, as their jq definitions do by
 * recursion, but from an explicit work list, so a million steps take no JS stack. Each step's filter
 * outputs are gathered before its children are explored; an error or a `break` after some outputs
 * takes its place after them, so outputs and failures keep jq's order.
 */
type Task = { node: JqValue } | { out: JqValue } | { error: unknown } | { stop: object };
interface Gathered {
  values: JqValue[];
  end?: Task;
}
function gather(f: Closure, input: JqValue): Gathered {
  const values: JqValue[] = [];
  try {
    const r = f.code.gen(input, f.env, (v) => {
      values.push(v);
      if (values.length > MAX_ARRAY_LENGTH) checkArray(values.length);
      return undefined;
    });
    return r ? { values, end: { stop: r } } : { values };
  } catch (e) {
    if (!(e instanceof JqRuntimeError)) throw e;
    return { values, end: { error: e } };
  }
}
function explore(root: JqValue, visit: (v: JqValue, plan: Task[]) => void, emit: (v: JqValue) => Stop): Stop {
  const work: Task[] = [{ node: root }];
  const plan: Task[] = [];
  while (work.length > 0) {
    const t = work.pop()!;
    if ("out" in t) {
      const r = emit(t.out);
      if (r) return r;
    } else if ("node" in t) {
      step();
      plan.length = 0;
      visit(t.node, plan);
      for (let i = plan.length - 1; i >= 0; i--) work.push(plan[i]!);
    } else if ("stop" in t) {
      return t.stop;
    } else {
      throw t.error;
    }
  }
  return undefined;
}
// def while(cond; update): def _while: if cond then ., (update | _while) else empty end; _while;
gen("while", 2, {
  gen: (input, [cond, update], emit) =>
    explore(
      input,
      (v, plan) => {
        const c = gather(cond!, v);
        for (const x of c.values) {
          if (!isTruthy(x)) continue;
          plan.push({ out: v });
          const u = gather(update!, v);
          for (const y of u.values) plan.push({ node: y });
          if (u.end) return void plan.push(u.end);
        }
        if (c.end) plan.push(c.end);
      },
      emit,
    ),
  path: (input, path, [cond, update], emit) => {
    const w = (p: PathComponent[], v: JqValue): Stop => {
      step();
      return cond!.code.gen(v, cond!.env, (c) => (isTruthy(c) ? emit(p, v) || update!.code.path()(v, p, update!.env, w) : undefined));
    };
    return w(path, input);
  },
});
// def until(cond; next): def _until: if cond then . else (next | _until) end; _until;
gen("until", 2, {
  gen: (input, [cond, next], emit) =>
    explore(
      input,
      (v, plan) => {
        const c = gather(cond!, v);
        for (const x of c.values) {
          if (isTruthy(x)) {
            plan.push({ out: v });
            continue;
          }
          const n = gather(next!, v);
          for (const y of n.values) plan.push({ node: y });
          if (n.end) return void plan.push(n.end);
        }
        if (c.end) plan.push(c.end);
      },
      emit,
    ),
  path: (input, path, [cond, next], emit) => {
    const u = (p: PathComponent[], v: JqValue): Stop => {
      step();
      return cond!.code.gen(v, cond!.env, (c) => (isTruthy(c) ? emit(p, v) : next!.code.path()(v, p, next!.env, u)));
    };
    return u(path, input);
  },
});
// def recurse(f; cond): def r: ., (f | select(cond) | r); r;
gen("recurse", 2, {
  gen: (input, [f, cond], emit) =>
    explore(
      input,
      (v, plan) => {
        plan.push({ out: v });
        const children = gather(f!, v);
        for (const y of children.values) {
          const c = gather(cond!, y);
          for (const x of c.values) if (isTruthy(x)) plan.push({ node: y });
          if (c.end) return void plan.push(c.end);
        }
        if (children.end) plan.push(children.end);
      },
      emit,
    ),
  path: (input, path, [f, cond], emit) => {
    const r = (p: PathComponent[], v: JqValue): Stop => {
      step();
      return emit(p, v) || f!.code.path()(v, p, f!.env, (q, y) => cond!.code.gen(y, cond!.env, (c) => (isTruthy(c) ? r(q, y) : undefined)));
    };
    return r(path, input);
  },
});
gen("recurse", 1, {
  gen: (input, [f], emit) =>
    explore(
      input,
      (v, plan) => {
        plan.push({ out: v });
        const children = gather(f!, v);
        for (const y of children.values) plan.push({ node: y });
        if (children.end) plan.push(children.end);
      },
      emit,
    ),
  path: (input, path, [f], emit) => {
    const r = (p: PathComponent[], v: JqValue): Stop => {
      step();
      return emit(p, v) || f!.code.path()(v, p, f!.env, r);
    };
    return r(path, input);
  },
});
/**
 * `walk(f)` as jq 1.8.2 defines it (`def w: if object then map_values(w) elif array then map(w) end |
 * f`): an object's values take the first output of their walk (a value with none is dropped), an
 * array's elements take all outputs, then f runs on the rebuilt value. Natively and from a work list,
 * so that a value nested any number of levels needs no stack.
 */
gen("walk", 1, {
  gen: (input, [f], emit) => {
    interface Frame {
      v: JqValue[] | JqObject;
      keys: string[] | null;
      i: number;
      /** The rebuilt array or object. */
      out: JqValue[] | JqObject;
    }
    const stack: Frame[] = [];
    // Where the walk of a child goes: all of f's outputs into an array, the first into an object.
    let items: JqValue[] = [];
    const intoArray = (w: JqValue): Stop => {
      if (items.push(w) > MAX_ARRAY_LENGTH) checkArray(items.length);
      return undefined;
    };
    const token = {};
    let first: JqValue | typeof NONE = NONE;
    const takeFirst = (w: JqValue): Stop => {
      first = w;
      return token;
    };
    /** f applied to a rebuilt value, its outputs given to the innermost container (or to emit at the top). */
    const apply = (rebuilt: JqValue): Stop => {
      if (stack.length === 0) return f!.code.gen(rebuilt, f!.env, emit);
      const parent = stack[stack.length - 1]!;
      if (parent.keys === null) {
        items = parent.out as JqValue[];
        return f!.code.gen(rebuilt, f!.env, intoArray);
      }
      first = NONE;
      const r = f!.code.gen(rebuilt, f!.env, takeFirst);
      if (r && r !== token) return r;
      if (first !== NONE) setKey(parent.out as JqObject, parent.keys[parent.i - 1]!, first);
      return undefined;
    };
    /** Starts a value: a container is walked into, anything else goes to f at once. */
    const enter = (v: JqValue): Stop => {
      // Each value rebuilt and handed to f: work the run pays for.
      charge(COST.rebuild);
      if (Array.isArray(v)) stack.push({ v, keys: null, i: 0, out: [] });
      else if (isObject(v)) {
        const keys = Object.keys(v);
        charge(keys.length);
        stack.push({ v, keys, i: 0, out: {} });
      } else return apply(v);
      return undefined;
    };
    let r = enter(input);
    while (r === undefined && stack.length > 0) {
      const fr = stack[stack.length - 1]!;
      if (fr.i < (fr.keys === null ? (fr.v as JqValue[]).length : fr.keys.length)) {
        const k = fr.keys === null ? fr.i : fr.keys[fr.i]!;
        fr.i++;
        // jq walks an object's members with map_values (`|=`), one label per member.
        if (fr.keys !== null) countLabel();
        r = enter((fr.v as Record<string | number, JqValue>)[k]!);
        continue;
      }
      stack.pop();
      r = apply(fr.out);
    }
    return r;
  },
});
gen("map", 1, {
  gen: (input, [f], emit) => {
    const out: JqValue[] = [];
    const collect = (v: JqValue): Stop => {
      out.push(v);
      return undefined;
    };
    if (Array.isArray(input)) {
      for (const x of input) {
        step();
        const r = f!.code.gen(x, f!.env, collect);
        if (r) return r;
      }
    } else if (isObject(input)) {
      for (const k in input) {
        const r = f!.code.gen(input[k]!, f!.env, collect);
        if (r) return r;
      }
    } else {
      throw cannotIterate(input);
    }
    return emit(out);
  },
});

/**
 * The count of `limit`/`skip` as jq 1.8.2's definitions read it (`if $n > 0 ... elif $n == 0 ... else
 * error`): a positive number; 0; or, for a value that sorts above 0 without being a number (a string,
 * array or object), the error of `$n - 1` once the first output arrives.
 */
function countOf(n: JqValue, what: "limit" | "skip"): number | { fail: () => never } {
  if (typeof n === "number" && n > 0) return n;
  if (n === 0) return 0;
  if (compare(n, 0) > 0) return { fail: () => void subtract(n, 1) as never };
  throw new JqRuntimeError(`${what} doesn't support negative count`);
}

/** `limit($n; f)`: at most n outputs of f (a fractional n rounds up), stopping f as soon as it has given them. */
function limitGen<E extends (...a: never[]) => Stop>(nv: JqValue, run: (emit: E) => Stop, emit: E): Stop {
  const n = countOf(nv, "limit");
  if (n === 0) return undefined;
  // jq's limit (and so first and nth) runs its count under a label.
  countLabel();
  let count = 0;
  const token = {};
  const r = run(((...a: never[]) => {
    if (typeof n !== "number") n.fail();
    const s = emit(...a);
    if (s) return s;
    return ++count >= (n as number) ? token : undefined;
  }) as E);
  return r === token ? undefined : r;
}
/** `skip($n; f)`: f's outputs after the first n (a fractional n rounds up). */
function skipGen<E extends (...a: never[]) => Stop>(nv: JqValue, run: (emit: E) => Stop, emit: E): Stop {
  const n = countOf(nv, "skip");
  if (n === 0) return run(emit);
  let count = 0;
  return run(((...a: never[]) => {
    if (typeof n !== "number") return n.fail();
    return ++count > n ? emit(...a) : undefined;
  }) as E);
}
for (const [name, impl] of [
  ["limit", limitGen],
  ["skip", skipGen],
] as const) {
  gen(name, 2, {
    gen: (input, [n, f], emit) => n!.code.gen(input, n!.env, (nv) => impl(nv, (e) => f!.code.gen(input, f!.env, e), emit)),
    path: (input, path, [n, f], emit) =>
      n!.code.gen(input, n!.env, (nv) => impl(nv, (e: PathEmit) => f!.code.path()(input, path, f!.env, e), emit)),
  });
}
gen("first", 1, {
  gen: (input, [f], emit) => limitGen(1, (e) => f!.code.gen(input, f!.env, e), emit),
  path: (input, path, [f], emit) => limitGen(1, (e: PathEmit) => f!.code.path()(input, path, f!.env, e), emit),
});
/** `last(f)`: f's last output; none when f has none (jq 1.8). */
gen("last", 1, {
  gen: (input, [f], emit) => {
    let last: { v: JqValue } | undefined;
    const r = f!.code.gen(input, f!.env, (v) => {
      last = { v };
      return undefined;
    });
    if (r) return r;
    return last ? emit(last.v) : undefined;
  },
  // No path mode: jq 1.8.2 keeps the last output in a variable, so `path(last(f))` is not a path.
});
/** `nth($n; f)`: `first(skip($n; f))`, negative counts refused. */
gen("nth", 2, {
  gen: (input, [n, f], emit) =>
    n!.code.gen(input, n!.env, (nv) => {
      if (compare(nv, 0) < 0) throw new JqRuntimeError("nth doesn't support negative indices");
      return limitGen(1, (e) => skipGen(nv, (e2) => f!.code.gen(input, f!.env, e2), e), emit);
    }),
  path: (input, path, [n, f], emit) =>
    n!.code.gen(input, n!.env, (nv) => {
      if (compare(nv, 0) < 0) throw new JqRuntimeError("nth doesn't support negative indices");
      return limitGen(1, (e: PathEmit) => skipGen(nv, (e2: PathEmit) => f!.code.path()(input, path, f!.env, e2), e), emit);
    }),
});
// repeat(f) applies f to the same input again and again (f, f, f, ...) until an error or a stop.
gen("repeat", 1, {
  gen: (input, [f], emit) => {
    for (;;) {
      step();
      const r = f!.code.gen(input, f!.env, emit);
      if (r) return r;
    }
  },
  path: (input, path, [f], emit) => {
    for (;;) {
      step();
      const r = f!.code.path()(input, path, f!.env, emit);
      if (r) return r;
    }
  },
});
/**
 * `fromstream(f)` as jq 1.7.1 defines it (a foreach over f's events with state {x, e}), but building
 * each value in place: the value under construction is seen by nobody until it is emitted, and a new
 * one starts after that, so rebuilding a value of n leaves is linear instead of copying it per event.
 */
gen("fromstream", 1, {
  gen: (input, [f], emit) => {
    let x: JqValue = null;
    let done = false;
    let owned = new Set<object>();
    return f!.code.gen(input, f!.env, (event) => {
      step();
      if (done) {
        x = null;
        done = false;
        owned = new Set();
      }
      // `$i|length == 2` first, then `$i[0]`: an event that has no length fails on its length.
      const n = lengthOf(event);
      const p = index(event, 0);
      if (n === 2) {
        done = lengthOf(p) === 0;
        // `["x"] + $i[0]`: null adds nothing; anything else but an array fails as jq's `+` does.
        const path = p === null ? [] : Array.isArray(p) ? p : (add(["x"], p) as JqValue[]);
        x = setpath(x, path, index(event, 1), owned);
      } else {
        done = lengthOf(p) === 1;
      }
      return done ? emit(x) : undefined;
    });
  },
});
gen("inputs", 0, {
  gen: (_input, _args, emit) => {
    for (;;) {
      const next = current.nextInput?.();
      if (!next) return undefined;
      const r = emit(next.value);
      if (r) return r;
    }
  },
});
// jq's f_bsearch, step for step: on an unsorted input (or nan) which element it probes decides the answer.
value("bsearch", (v, target) => {
  if (!Array.isArray(v)) throw typeError(v, "cannot be searched from");
  let start = 0;
  let end = v.length;
  while (start < end) {
    const mid = start + ((end - start) >> 1);
    const c = compare(target, v[mid]);
    if (c === 0) return mid;
    if (c < 0) end = mid;
    else start = mid + 1;
  }
  return -1 - start;
});
gen("isempty", 1, {
  gen: (input, [g], emit) => {
    // jq's isempty (and so any, all and IN) is a first(...): one label.
    countLabel();
    const token = {};
    const r = g!.code.gen(input, g!.env, () => token);
    if (r && r !== token) return r;
    return emit(r !== token);
  },
});

function anyAll(isAny: boolean): GenNative["gen"] {
  return (input, [g, cond], emit) => {
    countLabel();
    const token = {};
    const r = g!.code.gen(input, g!.env, (x) =>
      cond!.code.gen(x, cond!.env, (c) => (isTruthy(c) === isAny ? token : undefined)),
    );
    if (r && r !== token) return r;
    return emit(r === token ? isAny : !isAny);
  };
}
gen("any", 2, { gen: anyAll(true) });
gen("all", 2, { gen: anyAll(false) });
function anyAllOf(isAny: boolean, withCond: boolean): GenNative["gen"] {
  const inner = anyAll(isAny);
  const identity = { code: { gen: (v: JqValue, _e: unknown, emit: (v: JqValue) => Stop) => emit(v), path: () => { throw new Error("unused"); } }, env: { v: null, up: null } };
  const each = { code: { gen: (v: JqValue, _e: unknown, emit: (v: JqValue) => Stop) => iterateValues(v, emit), path: () => { throw new Error("unused"); } }, env: { v: null, up: null } };
  return (input, args, emit) => inner(input, [each, withCond ? args[0]! : identity], emit);
}
function iterateValues(v: JqValue, emit: (v: JqValue) => Stop): Stop {
  if (Array.isArray(v)) {
    for (const x of v) {
      const r = emit(x);
      if (r) return r;
    }
    return undefined;
  }
  if (isObject(v)) {
    for (const k in v) {
      const r = emit(v[k]!);
      if (r) return r;
    }
    return undefined;
  }
  throw cannotIterate(v);
}
gen("any", 0, { gen: anyAllOf(true, false) });
gen("all", 0, { gen: anyAllOf(false, false) });
gen("any", 1, { gen: anyAllOf(true, true) });
gen("all", 1, { gen: anyAllOf(false, true) });

/** range/2, as jq's RANGE opcode: numbers only, counting up by one while not at `upto` (so for ever to NaN). */
function rangeUp(from: JqValue, upto: JqValue, emit: (v: JqValue) => Stop): Stop {
  if (typeof from !== "number" || typeof upto !== "number") throw new JqRuntimeError("Range bounds must be numeric");
  for (let x = from; !(x >= upto); x += 1) {
    step();
    const r = emit(x);
    if (r) return r;
  }
  return undefined;
}

/**
 * range/3, as jq 1.8.2 defines it: `if $by > 0 then $init|while(. < $upto; . + $by) elif $by < 0 then
 * $init|while(. > $upto; . + $by) else empty end`, with jq's order and addition (so `null` as a step is
 * empty, and a step that cannot be added fails at the second value).
 */
function rangeBy(from: JqValue, upto: JqValue, by: JqValue, emit: (v: JqValue) => Stop): Stop {
  const direction = compare(by, 0);
  if (direction === 0) return undefined;
  for (let x = from; direction > 0 ? compare(x, upto) < 0 : compare(x, upto) > 0; x = add(x, by)) {
    step();
    const r = emit(x);
    if (r) return r;
  }
  return undefined;
}
gen("range", 2, {
  gen: (input, [a, b], emit) =>
    a!.code.gen(input, a!.env, (from) => b!.code.gen(input, b!.env, (upto) => rangeUp(from, upto, emit))),
});
gen("range", 3, {
  gen: (input, [a, b, c], emit) =>
    a!.code.gen(input, a!.env, (from) =>
      b!.code.gen(input, b!.env, (upto) => c!.code.gen(input, c!.env, (by) => rangeBy(from, upto, by, emit))),
    ),
});
// jq 1.8.2: `if startswith($x) then .[$x | length:] end` (so non-strings fail as startswith does), and rtrimstr alike.
function trimstr(input: JqValue, p: JqValue, left: boolean): JqValue {
  if (typeof input !== "string" || typeof p !== "string") throw new JqRuntimeError(`${left ? "startswith" : "endswith"}() requires string inputs`);
  if (left) return input.startsWith(p) ? input.slice(p.length) : input;
  return input.endsWith(p) ? input.slice(0, input.length - p.length) : input;
}
/** As jq's definitions in a path expression: the slice `.[$x | length:]` (or `.[:length - ($x | length)]`) that trimming takes, else `.` itself. */
function trimPath(input: JqValue, path: PathComponent[], p: JqValue, left: boolean, emit: PathEmit): Stop {
  const out = trimstr(input, p, left);
  if (!(left ? (input as string).startsWith(p as string) : (input as string).endsWith(p as string))) return emit(path, input);
  const cut = codepointLength(p as string);
  const slice = left ? { start: cut, end: null } : { start: null, end: codepointLength(input as string) - cut };
  if (path === INVALID_PATH) throw invalidAccess(slice, input);
  return emit([...path, slice], out);
}
gen("ltrimstr", 1, {
  gen: (input, [x], emit) => x!.code.gen(input, x!.env, (p) => emit(trimstr(input, p, true))),
  path: (input, path, [x], emit) => x!.code.gen(input, x!.env, (p) => trimPath(input, path, p, true, emit)),
});
gen("rtrimstr", 1, {
  gen: (input, [x], emit) => x!.code.gen(input, x!.env, (p) => emit(trimstr(input, p, false))),
  path: (input, path, [x], emit) => x!.code.gen(input, x!.env, (p) => trimPath(input, path, p, false, emit)),
});
gen("trimstr", 1, {
  gen: (input, [x], emit) => x!.code.gen(input, x!.env, (p) => emit(trimstr(trimstr(input, p, true), p, false))),
  path: (input, path, [x], emit) => x!.code.gen(input, x!.env, (p) => trimPath(input, path, p, true, (lp, lv) => trimPath(lv, lp, p, false, emit))),
});

// ---- dates ----
value("mktime", (v) => dates().mktime(v));
value("gmtime", (v) => dates().gmtime(v) as JqValue);
value("localtime", (v) => dates().localtime(v) as JqValue);
value("strftime", (v, f) => dates().strftime(v, f));
value("strflocaltime", (v, f) => dates().strflocaltime(v, f));
value("strptime", (v, f) => dates().strptime(v, f) as JqValue);

// ---- math ----
function num(v: JqValue): number {
  if (typeof v !== "number") throw typeError(v, "number required");
  return v;
}
const MATH1: Record<string, (x: number) => number> = {
  floor: Math.floor,
  ceil: Math.ceil,
  round: (x) => (x < 0 ? -Math.round(-x) : Math.round(x)),
  trunc: Math.trunc,
  rint: roundHalfEven,
  nearbyint: roundHalfEven,
  fabs: Math.abs,
  sqrt: Math.sqrt,
  cbrt: Math.cbrt,
  exp: Math.exp,
  exp2: (x) => Math.pow(2, x),
  exp10: (x) => Math.pow(10, x),
  expm1: Math.expm1,
  log: Math.log,
  log2: Math.log2,
  log10: Math.log10,
  log1p: Math.log1p,
  logb,
  significand,
  erf,
  erfc,
  j0,
  j1,
  y0,
  y1,
  gamma: lgamma,
  lgamma,
  tgamma,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  asinh: Math.asinh,
  acosh: Math.acosh,
  atanh: Math.atanh,
};
for (const [name, f] of Object.entries(MATH1)) value(name, (v) => f(num(v)));
value("frexp", (v) => frexp(num(v)));
value("modf", (v) => {
  const x = num(v);
  if (!isFinite(x)) return x !== x ? [NaN, NaN] : [0 * Math.sign(x), x];
  const i = Math.trunc(x);
  const f = x - i;
  // The fraction keeps the sign of x, also when it is zero (-3 gives [-0, -3]).
  return [f === 0 && (x < 0 || Object.is(x, -0)) ? -0 : f, i];
});
value("lgamma_r", (v) => {
  const x = num(v);
  return [lgamma(x), gammaSign(x)];
});
const MATH2: Record<string, (a: number, b: number) => number> = {
  pow,
  atan2: Math.atan2,
  fmin: (a, b) => (a !== a ? b : b !== b ? a : Math.min(a, b)),
  fmax: (a, b) => (a !== a ? b : b !== b ? a : Math.max(a, b)),
  fmod: (a, b) => a % b,
  fdim,
  copysign: (a, b) => Math.abs(a) * (b < 0 || Object.is(b, -0) ? -1 : 1),
  hypot: Math.hypot,
  ldexp,
  // scalb takes a double exponent: a fractional one is NaN in glibc.
  scalb: (a, b) => (b === Infinity ? a * Infinity : b === -Infinity ? a * 0 : Number.isInteger(b) ? scalbln(a, Math.max(-1e5, Math.min(1e5, b))) : NaN),
  scalbln,
  drem: remainder,
  remainder,
  jn,
  yn,
  nextafter,
  nexttoward: nextafter,
};
for (const [name, f] of Object.entries(MATH2)) valueN(name, 2, (_v, a, b) => f(num(a), num(b)));
valueN("fma", 3, (_v, a, b, c) => fma(num(a), num(b), num(c)));

function roundHalfEven(x: number): number {
  if (!isFinite(x)) return x;
  const r = Math.round(x);
  return Math.abs(x - Math.trunc(x)) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function nextafter(a: number, b: number): number {
  if (a !== a || b !== b) return NaN;
  if (a === b) return b;
  if (a === 0) return b > 0 ? 5e-324 : -5e-324;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, a);
  let bits = buf.getBigInt64(0);
  bits += (b > a) === (a > 0) ? 1n : -1n;
  buf.setBigInt64(0, bits);
  return buf.getFloat64(0);
}

/** The library's function names (`name/arity`), given once the library is compiled. */
let libraryNames: string[] = [];
export function setLibraryNames(names: string[]): void {
  libraryNames = names;
}
/** Every builtin as `name/arity`, natives and library, without the internal `_` ones. */
export function builtinNames(): string[] {
  const all = new Set([...natives.keys(), ...libraryNames]);
  return [...all].filter((n) => !n.startsWith("_"));
}

export const NATIVES: ReadonlyMap<string, Native> = natives;
export type { JqObject };
