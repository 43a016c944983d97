/**
 * The values a kubectl JSONPath template sees, as Go holds them, and how Go prints them. kubectl runs the
 * template over an object decoded as unstructured JSON, so a value is a JSON value whose numbers are int64
 * when the JSON text spells a whole number within int64 and float64 otherwise: in JavaScript, a number that
 * is an integer below 2^63 in magnitude is an int64 (JSON.stringify prints it without exponent). Besides
 * those, a template makes literals (a Go `int`, a float64), bytes of a string (`uint8`, from `.*` on one),
 * and, inside `{range}` over nothing, reflect's zero Value ("<no value>").
 *
 * The printers: `%v` (fmt.Sprint), `%#v` (Go syntax, in kubectl's error dump), and encoding/json's
 * Marshal and MarshalIndent (keys sorted, `<>&` escaped). Map keys print in Go's order (byte order of their
 * UTF-8); maps iterate in the document's order where Go's order is random.
 */
import { goCompareStrings, goFloat, goJSON as goMarshal, goNumberString, goQuote } from "../gofmt/index.js";
import type { JsonValue } from "../input/index.js";

/** A whole-number literal of a template: a Go `int`. */
export class GoInt {
  constructor(readonly value: bigint) {}
}

/** A number literal with a fraction (or beyond int64): a Go float64, also when it is whole. */
export class GoFloat {
  constructor(readonly value: number) {}
}

/** A byte of a string (Go's `uint8`), which `.*` and `..` step into. */
export class GoByte {
  constructor(readonly value: number) {}
}

/** reflect's zero Value: what `{range}` over no results hands its body ("<no value>" when printed). */
export class NoValue {
  static readonly instance = new NoValue();
  private constructor() {}
}

export type Value = JsonValue | GoInt | GoFloat | GoByte | NoValue;
export type GoMap = { [key: string]: JsonValue };

export function isMap(v: Value): v is GoMap {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof GoInt) && !(v instanceof GoFloat) && !(v instanceof GoByte) && !(v instanceof NoValue);
}

/** A JSON number as kubectl's unstructured decoding holds it: an int64 where the text is a whole number within int64. */
export function isInt64(n: number): boolean {
  return Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63;
}

/** The Go type name of a value, as reflect's Type().String() gives it (for "… is not array or slice"). */
export function goTypeName(v: Value): string {
  if (v === null) return "interface {}";
  if (Array.isArray(v)) return "[]interface {}";
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return isInt64(v) ? "int64" : "float64";
  if (v instanceof GoInt) return "int";
  if (v instanceof GoFloat) return "float64";
  if (v instanceof GoByte) return "uint8";
  if (v instanceof NoValue) return "<invalid>";
  return "map[string]interface {}";
}

/** Go's byte-order comparison of two strings (code point order), for sorted map keys and `<` on strings. */
export const compareStrings = goCompareStrings;

const sortedKeys = (m: GoMap): string[] => Object.keys(m).sort(compareStrings);

/** How deep the printers follow nested values: deeper is an error, never a stack overflow. */
export const MAX_PRINT_DEPTH = 1000;

/** A value nested deeper than the printers follow. */
export class TooDeep extends Error {
  constructor() {
    super(`a value nested more than ${MAX_PRINT_DEPTH} levels deep cannot be printed`);
  }
}

/** A string with a lone surrogate (which no Go string holds) as Go holds it: U+FFFD in its place. */
const wellFormed = (s: string): string => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

/** `%v` (fmt.Sprint): maps as map[k:v ...] with sorted keys, slices as [a b], nil as <nil>, strings bare. */
export function goSprint(v: Value, depth = 0): string {
  if (depth > MAX_PRINT_DEPTH) throw new TooDeep();
  if (v === null) return "<nil>";
  if (typeof v === "string") return wellFormed(v);
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return goNumberString(v);
  if (v instanceof GoInt) return v.value.toString();
  if (v instanceof GoFloat) return goFloat(v.value);
  if (v instanceof GoByte) return String(v.value);
  if (v instanceof NoValue) return "<invalid reflect.Value>";
  if (Array.isArray(v)) return `[${v.map((x) => goSprint(x, depth + 1)).join(" ")}]`;
  return `map[${sortedKeys(v)
    .map((k) => `${wellFormed(k)}:${goSprint(v[k]!, depth + 1)}`)
    .join(" ")}]`;
}

/** strconv.Quote, as `%#v` prints a string. */
const goQuoted = (s: string): string => goQuote(wellFormed(s));

/** `%#v` (Go syntax), as kubectl's jsonpath error dumps the object: map[string]interface {}{"k":v, ...}. */
export function goSyntax(v: Value, depth = 0, top = true): string {
  if (depth > MAX_PRINT_DEPTH) throw new TooDeep();
  if (v === null) return top ? "<nil>" : "interface {}(nil)";
  if (typeof v === "string") return goQuoted(v);
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return goNumberString(v);
  if (v instanceof GoInt) return v.value.toString();
  if (v instanceof GoFloat) return goFloat(v.value);
  if (v instanceof GoByte) return `0x${v.value.toString(16)}`;
  if (v instanceof NoValue) return "<invalid reflect.Value>";
  if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSyntax(x, depth + 1, false)).join(", ")}}`;
  return `map[string]interface {}{${sortedKeys(v)
    .map((k) => `${goQuoted(k)}:${goSyntax(v[k]!, depth + 1, false)}`)
    .join(", ")}}`;
}

/** A JSON string as encoding/json writes it: JSON's escapes, plus `<`, `>`, `&`, U+2028 and U+2029. */
const jsonString = (s: string): string => goMarshal(wellFormed(s));

/** A float64 as encoding/json writes it (ECMAScript's number form, as JSON.stringify; -0 as "-0"). */
function jsonFloat(n: number): string {
  return Object.is(n, -0) ? "-0" : JSON.stringify(n);
}

/**
 * encoding/json's Marshal (indent "") or MarshalIndent(v, "", indent): keys sorted, HTML characters
 * escaped, empty arrays and objects as [] and {}. reflect's zero Value, which Go cannot marshal, is null.
 */
export function goJSON(v: Value, indent = "", depth = 0): string {
  if (depth > MAX_PRINT_DEPTH) throw new TooDeep();
  if (v === null || v instanceof NoValue) return "null";
  if (typeof v === "string") return jsonString(v);
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return isInt64(v) ? BigInt(v).toString() : jsonFloat(v);
  if (v instanceof GoInt) return v.value.toString();
  if (v instanceof GoFloat) return jsonFloat(v.value);
  if (v instanceof GoByte) return String(v.value);
  const inner = indent === "" ? "" : `\n${indent.repeat(depth + 1)}`;
  const close = indent === "" ? "" : `\n${indent.repeat(depth)}`;
  const colon = indent === "" ? ":" : ": ";
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    return `[${v.map((x) => inner + goJSON(x, indent, depth + 1)).join(",")}${close}]`;
  }
  const keys = sortedKeys(v);
  if (keys.length === 0) return "{}";
  return `{${keys.map((k) => `${inner}${jsonString(k)}${colon}${goJSON(v[k]!, indent, depth + 1)}`).join(",")}${close}}`;
}

/**
 * One result as the JSONPath printer writes it: maps and arrays as compact JSON, other values as
 * fmt.Fprint prints them (strings bare, null as "null", the zero Value as "<no value>").
 */
export function resultText(v: Value): string {
  if (v instanceof NoValue) return "<no value>";
  if (v === null) return "null";
  if (typeof v === "object" && (Array.isArray(v) || isMap(v))) return goJSON(v);
  return goSprint(v);
}
