/**
 * The evaluator of a parsed kubectl JSONPath template, with client-go's semantics (v0.37.2): every action
 * starts again from the object; each step maps the list of current values to a new list; `{range X}`
 * runs the nodes after it once per value of X (its body ends at the `{end}` that matches, and a range
 * without one runs the rest of the template per value and then once more on the object, as client-go
 * does); missing keys are empty results when allowMissingKeys is set (kubectl sets it) and errors
 * ("x is not found") otherwise; an index out of bounds, a step of 0, a filter over something that is not
 * an array, comparing values of different types are errors with client-go's wording.
 *
 * Where client-go reads a value it cannot (reflect's zero Value, which `{range}` over no results hands its
 * body) it panics; here such a value is skipped by `[...]`, compared as a value of no type, and
 * marshalled as null. Maps are iterated in the document's order where Go's is random.
 *
 * Bounded: nested `{range}`s are followed at most MAX_RANGE_DEPTH deep, and an evaluation that makes more
 * than MAX_VALUES values stops with an error (a template such as a chain of `[*,*,*]` or ranges without
 * ends grows exponentially). `..` walks with its own stack.
 */
import type { ArrayNode, FilterNode, ListNode, Node } from "./nodes.js";
import { compareStrings, GoByte, GoFloat, GoInt, goSprint, goTypeName, isInt64, isMap, NoValue, type Value } from "./values.js";

export const MAX_RANGE_DEPTH = 1000;
export const MAX_VALUES = 10_000_000;

/** A result of a step: its values, and client-go's error with the values Go returns alongside it. */
interface Res {
  values: Value[];
  error?: string;
}

/** The evaluation went past a bound: ends it at once, whatever step it is in. */
class Unbounded extends Error {}

const utf8 = new TextEncoder();

/** The members `.*` and `..` step into: a map's values, an array's elements, a string's bytes. */
function members(v: Value): Value[] {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") return Array.from(utf8.encode(v), (b) => new GoByte(b));
  if (isMap(v)) return Object.values(v);
  return [];
}

/** Whether a value has members, without listing a string's bytes. */
function hasMembers(v: Value): boolean {
  if (typeof v === "string") return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  return isMap(v) && Object.keys(v).length > 0;
}

const int64 = (n: bigint): bigint => BigInt.asIntN(64, n);

/** How text/template compares (the kinds it knows), and its two errors. */
type Basic = { kind: "bool"; v: boolean } | { kind: "int"; v: bigint } | { kind: "uint"; v: bigint } | { kind: "float"; v: number } | { kind: "string"; v: string };
const BAD_TYPE = "invalid type for comparison";
const INCOMPATIBLE = "incompatible types for comparison";

function basic(v: Value): Basic | undefined {
  if (typeof v === "boolean") return { kind: "bool", v };
  if (typeof v === "string") return { kind: "string", v };
  if (typeof v === "number") return isInt64(v) ? { kind: "int", v: BigInt(v) } : { kind: "float", v };
  if (v instanceof GoInt) return { kind: "int", v: v.value };
  if (v instanceof GoFloat) return { kind: "float", v: v.value };
  if (v instanceof GoByte) return { kind: "uint", v: BigInt(v.value) };
  return undefined;
}

type Compared = { ok: true; value: boolean } | { ok: false; error: string };

function equal(a: Value, b: Value): Compared {
  const x = basic(a);
  if (!x) return { ok: false, error: BAD_TYPE };
  const y = basic(b);
  if (!y) return { ok: false, error: BAD_TYPE };
  if (x.kind !== y.kind) {
    // Integers compare whatever their sign's type.
    if (x.kind === "int" && y.kind === "uint") return { ok: true, value: x.v >= 0n && x.v === y.v };
    if (x.kind === "uint" && y.kind === "int") return { ok: true, value: y.v >= 0n && x.v === y.v };
    return { ok: false, error: INCOMPATIBLE };
  }
  return { ok: true, value: x.v === y.v };
}

function less(a: Value, b: Value): Compared {
  const x = basic(a);
  if (!x) return { ok: false, error: BAD_TYPE };
  const y = basic(b);
  if (!y) return { ok: false, error: BAD_TYPE };
  if (x.kind !== y.kind) {
    if (x.kind === "int" && y.kind === "uint") return { ok: true, value: x.v < 0n || x.v < y.v };
    if (x.kind === "uint" && y.kind === "int") return { ok: true, value: y.v >= 0n && x.v < y.v };
    return { ok: false, error: INCOMPATIBLE };
  }
  if (x.kind === "bool") return { ok: false, error: BAD_TYPE };
  if (x.kind === "string") return { ok: true, value: compareStrings(x.v, y.v as string) < 0 };
  return { ok: true, value: x.v < (y.v as number | bigint) };
}

function compare(operator: string, a: Value, b: Value): Compared | undefined {
  switch (operator) {
    case "<":
      return less(a, b);
    case ">": {
      const le = lessOrEqual(a, b);
      return le.ok ? { ok: true, value: !le.value } : le;
    }
    case "==":
      return equal(a, b);
    case "!=": {
      const eq = equal(a, b);
      return eq.ok ? { ok: true, value: !eq.value } : eq;
    }
    case "<=":
      return lessOrEqual(a, b);
    case ">=": {
      const lt = less(a, b);
      return lt.ok ? { ok: true, value: !lt.value } : lt;
    }
  }
  return undefined;
}

function lessOrEqual(a: Value, b: Value): Compared {
  const lt = less(a, b);
  if (!lt.ok || lt.value) return lt;
  return equal(a, b);
}

/** `%v` of a reflect.Value, as "… cannot be filtered" prints the value that is not an array. */
function valueText(v: Value): string {
  return goSprint(v);
}

export type FindResult = { ok: true; results: Value[][] } | { ok: false; error: string };

/**
 * One template's state while it runs, as client-go keeps it on its JSONPath: where the root's nodes start
 * (a range moves it to the nodes after it), the range counters, and the last `{end}` met. kubectl's
 * custom-columns printer runs one state over every item of a list, so a range in a column carries over
 * from one item to the next, as there.
 */
export class Execution {
  private start = 0;
  private beginRange = 0;
  private inRange = 0;
  private endRange = 0;
  private lastEnd = -1;
  private made = 0;
  private depth = 0;
  /** Fields asked of values that had none of them (with allowMissingKeys, an empty result, not an error). */
  readonly missing = new Set<string>();

  constructor(
    private readonly root: ListNode,
    private readonly allowMissingKeys: boolean,
  ) {}

  /** client-go's FindResults: each top-level node's results, in order; or its error. */
  findResults(data: Value): FindResult {
    try {
      return { ok: true, results: this.find(data) };
    } catch (err) {
      if (err instanceof Unbounded) return { ok: false, error: err.message };
      if (err instanceof EvalError) return { ok: false, error: err.message };
      throw err;
    }
  }

  private find(data: Value): Value[][] {
    if (++this.depth > MAX_RANGE_DEPTH) throw new Unbounded(`ranges nested more than ${MAX_RANGE_DEPTH} deep`);
    try {
      const first = this.start;
      const nodes = this.root.nodes;
      // A value handed on through interface{} (a range's element): nil becomes the zero Value.
      const cur: Value[] = [data === null ? NoValue.instance : data];
      const full: Value[][] = [];
      for (let i = 0; first + i < nodes.length; i++) {
        const r = this.walk(cur, nodes[first + i]!);
        if (r.error !== undefined) throw new EvalError(r.error);
        if (this.endRange > 0 && this.endRange <= this.inRange) {
          this.endRange--;
          this.lastEnd = first + i;
          break;
        }
        if (this.beginRange > 0) {
          this.beginRange--;
          this.inRange++;
          if (r.values.length > 0) {
            for (const value of r.values) {
              this.start = first + i + 1;
              for (const results of this.find(value instanceof NoValue ? null : value)) full.push(results);
            }
          } else {
            // The body still runs, once, so that its `{end}` is found.
            this.start = first + i + 1;
            this.find(null);
          }
          this.inRange--;
          for (let k = i + 1; first + k < nodes.length; k++) {
            if (first + k === this.lastEnd) {
              i = k;
              break;
            }
          }
          continue;
        }
        full.push(r.values);
      }
      return full;
    } finally {
      this.depth--;
    }
  }

  private count(values: Value[]): Value[] {
    this.made += values.length;
    if (this.made > MAX_VALUES) throw new Unbounded(`the template makes more than ${MAX_VALUES} values`);
    return values;
  }

  private walk(input: Value[], node: Node): Res {
    const r = this.step(input, node);
    this.count(r.values);
    return r;
  }

  private step(input: Value[], node: Node): Res {
    switch (node.type) {
      case "list":
        return this.list(input, node);
      case "text":
        return { values: [node.text] };
      case "field":
        return this.field(input, node.name);
      case "array":
        return this.array(input, node);
      case "filter":
        return this.filter(input, node);
      case "int":
        return { values: input.map(() => new GoInt(node.value)) };
      case "float":
        return { values: input.map(() => new GoFloat(node.value)) };
      case "bool":
        return { values: input.map(() => node.value) };
      case "wildcard":
        return { values: input.flatMap((v) => (v === null ? [] : members(v))) };
      case "recursive":
        return { values: this.recursive(input) };
      case "union": {
        const values: Value[] = [];
        for (const member of node.members) {
          const r = this.list(input, member);
          if (r.error !== undefined) return { values: input, error: r.error };
          for (const v of r.values) values.push(v);
        }
        return { values };
      }
      case "identifier":
        if (node.name === "range") {
          this.beginRange++;
          return { values: input };
        }
        if (node.name === "end") {
          if (this.inRange > 0) {
            this.endRange++;
            return { values: [] };
          }
          return { values: [], error: "not in range, nothing to end" };
        }
        return { values: input, error: `unrecognized identifier ${node.name}` };
    }
  }

  private list(input: Value[], node: ListNode): Res {
    let cur = input;
    for (const n of node.nodes) {
      const r = this.walk(cur, n);
      if (r.error !== undefined) return r;
      cur = r.values;
    }
    return { values: cur };
  }

  private field(input: Value[], name: string): Res {
    if (input.length === 0) return { values: [] };
    const values: Value[] = [];
    for (const v of input) if (isMap(v) && Object.prototype.hasOwnProperty.call(v, name)) values.push(v[name]!);
    if (values.length === 0 && !this.allowMissingKeys) return { values, error: `${name} is not found` };
    if (values.length === 0) this.missing.add(name);
    return { values };
  }

  private array(input: Value[], node: ArrayNode): Res {
    const values: Value[] = [];
    for (const v of input) {
      if (v === null || v instanceof NoValue) continue;
      if (!Array.isArray(v)) return { values: input, error: `${goTypeName(v)} is not array or slice` };
      const length = BigInt(v.length);
      const [p0, p1, p2] = node.params;
      let start = p0.known ? p0.value : 0n;
      if (start < 0n) start = int64(start + length);
      let end = p1.known ? p1.value : length;
      if (end < 0n || (end === 0n && p1.derived)) end = int64(end + length);
      if (end === start) return { values };
      if (start >= length || start < 0n) return { values: input, error: `array index out of bounds: index ${start}, length ${length}` };
      if (end > length || end < 0n) return { values: input, error: `array index out of bounds: index ${int64(end - 1n)}, length ${length}` };
      if (start > end) return { values: input, error: `starting index ${start} is greater than ending index ${end}` };
      let step = 1;
      if (p2.known) {
        if (p2.value <= 0n) return { values: input, error: "step must be > 0" };
        step = p2.value > BigInt(v.length) ? v.length + 1 : Number(p2.value);
      }
      for (let i = Number(start); i < Number(end); i += step) values.push(v[i]!);
    }
    return { values };
  }

  private filter(input: Value[], node: FilterNode): Res {
    const values: Value[] = [];
    for (const v of input) {
      if (!Array.isArray(v)) return { values: input, error: `${valueText(v)} is not array or slice and cannot be filtered` };
      for (const element of v) {
        const lefts = this.list([element], node.left);
        if (node.operator === "exists") {
          // Whatever the left side left, also when it failed on the way.
          if (lefts.values.length > 0) values.push(element);
          continue;
        }
        if (lefts.error !== undefined) return { values: input, error: lefts.error };
        if (lefts.values.length === 0) continue;
        if (lefts.values.length > 1) return { values: input, error: "can only compare one element at a time" };
        const rights = this.list([element], node.right);
        if (rights.error !== undefined) return { values: input, error: rights.error };
        if (rights.values.length === 0) continue;
        if (rights.values.length > 1) return { values: input, error: "can only compare one element at a time" };
        const pass = compare(node.operator, lefts.values[0]!, rights.values[0]!);
        if (!pass) return { values, error: `unrecognized filter operator ${node.operator}` };
        if (!pass.ok) return { values, error: pass.error };
        if (pass.value) values.push(element);
      }
    }
    return { values };
  }

  /** `..`: each value that has members, then (depth first) those of its members, in order. */
  private recursive(input: Value[]): Value[] {
    const out: Value[] = [];
    const stack: { items: Value[]; next: number }[] = [{ items: input, next: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.next >= top.items.length) {
        stack.pop();
        continue;
      }
      const v = top.items[top.next++]!;
      if (v === null || !hasMembers(v)) continue;
      out.push(v);
      if (out.length > MAX_VALUES) throw new Unbounded(`the template makes more than ${MAX_VALUES} values`);
      // A string's bytes have no members of their own: nothing below it is listed.
      if (typeof v !== "string") stack.push({ items: members(v), next: 0 });
    }
    return out;
  }
}

/** A step's error, carried out of the nested calls of a range to FindResults' caller. */
class EvalError extends Error {}
