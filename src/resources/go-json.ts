/**
 * Go's encoding/json decoding a JSON value into a typed Go value (json.Unmarshal), over a table of the
 * Go types involved (go-types.ts, generated from the types themselves): the first error as Go reports
 * it, or the value the typed result marshals back to. This is how Karmada reads what a Lua script
 * returns (ReplicaRequirements, components, dependencies) and the pod templates given to its kube
 * library, so a script's table is accepted or refused, and read, exactly as there.
 *
 * Decoding follows encoding/json (v1): object keys in the order Go's encoder wrote them (sorted by
 * bytes); a key names the field of the same name, or else one equal under case folding; unknown keys
 * are ignored; a value of the wrong JSON type is remembered as the first error and decoding goes on;
 * an error of a type's own UnmarshalJSON (Quantity, IntOrString, Time) ends decoding at once. Type
 * errors name the innermost struct, the path of JSON field names (and embedded structs' Go names)
 * from the root, and the Go type, as `json: cannot unmarshal number 1.5 into Go struct field
 * ContainerPort.spec.containers.ports.containerPort of type int32`.
 */
import type { JsonValue } from "../input/index.js";
import { Quantity } from "../quantity/index.js";
import type { GoField, GoType, GoTypeTable } from "./go-type-table.js";
import { GO_TYPES } from "./go-types.js";

/** The decoded value as it marshals back, or the error json.Unmarshal returns. */
export type GoDecodeResult = { ok: true; value: JsonValue } | { ok: false; error: string };

/** A decoded Go value: struct fields set so far, slices, maps, and the values of the special types. */
type GoValue = StructValue | GoValue[] | Map<string, GoValue> | string | number | bigint | boolean | Quantity | IntOrString | TimeValue | RawValue | undefined;

class StructValue {
  readonly fields = new Map<string, GoValue>();
}
class IntOrString {
  constructor(readonly value: number | string) {}
}
class TimeValue {
  /** RFC 3339 in UTC, as metav1.Time marshals; "" for the zero time. */
  constructor(readonly text: string) {}
}
class RawValue {
  constructor(readonly value: JsonValue) {}
}

/** An error of a type's own UnmarshalJSON: decoding stops. */
class Abort {
  constructor(readonly error: TypeError | string) {}
}

/** json.UnmarshalTypeError: the JSON value's description, the Go type, and where (filled from the context). */
class TypeError {
  struct = "";
  field = "";
  constructor(
    readonly value: string,
    readonly type: string,
  ) {}
  message(): string {
    if (this.struct !== "" || this.field !== "") return `json: cannot unmarshal ${this.value} into Go struct field ${this.struct}.${this.field} of type ${this.type}`;
    return `json: cannot unmarshal ${this.value} into Go value of type ${this.type}`;
  }
}

/** Decodes `value` as json.Unmarshal into a `type` (a name in the table) and marshals the result back. */
export function unmarshalGo(value: JsonValue, type: string, table: GoTypeTable = GO_TYPES): GoDecodeResult {
  const d = new Decoder(table);
  let decoded: GoValue;
  try {
    decoded = d.decode(value, type, undefined);
  } catch (e) {
    if (!(e instanceof Abort)) throw e;
    return { ok: false, error: typeof e.error === "string" ? e.error : d.withContext(e.error).message() };
  }
  if (d.saved) return { ok: false, error: d.saved };
  return { ok: true, value: marshal(decoded, typeOf(type, table), table) };
}

/** Go's byte-wise string order (UTF-8), which is how its encoder sorts map keys. */
export function goStringCompare(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 order agrees with UTF-8 order except that surrogates (code points above U+FFFF) sort
    // after U+E000..U+FFFF in UTF-8.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy && Math.max(x, y) >= 0xe000) return sx ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

class Decoder {
  /** The first type error, with its context, as Go saves it. */
  saved: string | undefined;
  /** The struct whose field is being decoded (unqualified name) and the field path from the root. */
  private struct = "";
  private stack: string[] = [];

  constructor(private readonly table: GoTypeTable) {}

  private type(name: string): GoType {
    return typeOf(name, this.table);
  }

  withContext(e: TypeError): TypeError {
    if (this.struct !== "" || this.stack.length > 0) {
      e.struct = this.struct;
      e.field = e.field === "" ? this.stack.join(".") : [...this.stack, e.field].join(".");
    }
    return e;
  }

  private save(e: TypeError): void {
    if (this.saved === undefined) this.saved = this.withContext(e).message();
  }

  decode(v: JsonValue, name: string, existing: GoValue): GoValue {
    const t = this.type(name);
    if (t.kind === "pointer") {
      if (v === null) return undefined;
      return this.decode(v, t.elem, existing);
    }
    switch (t.kind) {
      case "quantity":
        return decodeQuantity(v);
      case "intOrString":
        return this.decodeIntOrString(v, existing);
      case "time":
        return this.decodeTime(v);
      case "raw":
        return v === null ? existing : new RawValue(v);
      default:
        break;
    }
    if (v === null) return t.kind === "slice" || t.kind === "map" ? undefined : existing;
    if (Array.isArray(v)) {
      if (t.kind !== "slice") {
        this.save(new TypeError("array", name));
        return existing;
      }
      return v.map((item) => this.decode(item, t.elem, undefined));
    }
    if (typeof v === "object") {
      if (t.kind === "map") {
        const out = existing instanceof Map ? existing : new Map<string, GoValue>();
        for (const key of Object.keys(v).sort(goStringCompare)) out.set(key, this.decode(v[key]!, t.elem, out.get(key)));
        return out;
      }
      if (t.kind !== "struct") {
        this.save(new TypeError("object", name));
        return existing;
      }
      return this.decodeStruct(v, name, t.fields, existing);
    }
    return this.literal(v, name, t, existing);
  }

  private decodeStruct(v: { [k: string]: JsonValue }, name: string, fields: GoField[], existing: GoValue): StructValue {
    const out = existing instanceof StructValue ? existing : new StructValue();
    const structName = name.slice(name.lastIndexOf(".") + 1);
    for (const key of Object.keys(v).sort(goStringCompare)) {
      const field = fieldFor(fields, key);
      if (!field) continue;
      const [fieldName, fieldType, , via] = field;
      const saved = { struct: this.struct, depth: this.stack.length };
      if (via) this.stack.push(...via.split("."));
      this.struct = structName;
      this.stack.push(fieldName);
      out.fields.set(fieldName, this.decode(v[key]!, fieldType, out.fields.get(fieldName)));
      this.stack.length = saved.depth;
      this.struct = saved.struct;
    }
    return out;
  }

  private literal(v: string | number | boolean, name: string, t: GoType, existing: GoValue): GoValue {
    if (typeof v === "boolean") {
      if (t.kind === "bool") return v;
      this.save(new TypeError("bool", name));
      return existing;
    }
    if (typeof v === "string") {
      if (t.kind === "string") return v;
      this.save(new TypeError("string", name));
      return existing;
    }
    const text = numberLiteral(v);
    if (t.kind === "int32" || t.kind === "int64") {
      const bits = t.kind === "int32" ? 32 : 64;
      const n = /^-?\d+$/.test(text) ? BigInt(text) : undefined;
      if (n === undefined || n !== BigInt.asIntN(bits, n) || !fitsInt64(n)) {
        this.save(new TypeError(`number ${text}`, name));
        return existing;
      }
      return t.kind === "int32" ? Number(n) : n;
    }
    this.save(new TypeError("number", name));
    return existing;
  }

  /** IntOrString: a JSON string is its string; anything else is decoded (by a fresh json.Unmarshal) into an int32. */
  private decodeIntOrString(v: JsonValue, existing: GoValue): GoValue {
    if (typeof v === "string") return new IntOrString(v);
    if (v === null) return existing;
    const kind = Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : undefined;
    if (kind !== undefined) throw new Abort(new TypeError(kind, "int32"));
    const text = numberLiteral(v as number);
    const n = /^-?\d+$/.test(text) ? BigInt(text) : undefined;
    if (n === undefined || n !== BigInt.asIntN(32, n)) throw new Abort(new TypeError(`number ${text}`, "int32"));
    return new IntOrString(Number(n));
  }

  /** metav1.Time: null is the zero time; otherwise a JSON string (decoded by a fresh json.Unmarshal) parsed as RFC 3339. */
  private decodeTime(v: JsonValue): GoValue {
    if (v === null) return new TimeValue("");
    if (typeof v !== "string") {
      const kind = Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : "number";
      throw new Abort(new TypeError(kind, "string"));
    }
    const parsed = parseRFC3339(v);
    if (typeof parsed === "string") throw new Abort(parsed);
    return new TimeValue(parsed.toISOString().replace(/\.\d{3}Z$/, "Z"));
  }
}

function fitsInt64(n: bigint): boolean {
  return n === BigInt.asIntN(64, n);
}

/** A number as gopher-json (Go's encoder) writes it: JavaScript's shortest spelling is the same. */
function numberLiteral(n: number): string {
  return Object.is(n, -0) ? "-0" : String(n);
}

/** Resolved types per table (the names that say what they are included). */
const resolved = new WeakMap<GoTypeTable, Map<string, GoType>>();

/** The type of a name: its table entry, or what the name says. */
function typeOf(name: string, table: GoTypeTable): GoType {
  let cache = resolved.get(table);
  if (cache === undefined) resolved.set(table, (cache = new Map()));
  let t = cache.get(name);
  if (t === undefined) {
    t = table[name] ?? derivedType(name);
    cache.set(name, t);
  }
  return t;
}

function derivedType(name: string): GoType {
  if (name.startsWith("*")) return { kind: "pointer", elem: name.slice(1) };
  if (name.startsWith("[]")) return { kind: "slice", elem: name.slice(2) };
  if (name.startsWith("map[string]")) return { kind: "map", elem: name.slice("map[string]".length) };
  if (name === "string" || name === "bool" || name === "int32" || name === "int64") return { kind: name };
  throw new Error(`Go type ${name} is not in the table`);
}

/** A struct's fields by JSON name and by folded name (made once per field list). */
const fieldIndexes = new WeakMap<GoField[], { exact: Map<string, GoField>; folded: Map<string, GoField> }>();

/** The field a key sets: the one of that name, or else one equal under case folding. */
function fieldFor(fields: GoField[], key: string): GoField | undefined {
  let index = fieldIndexes.get(fields);
  if (index === undefined) {
    index = { exact: new Map(fields.map((f) => [f[0], f])), folded: new Map(fields.map((f) => [foldName(f[0]), f])) };
    fieldIndexes.set(fields, index);
  }
  return index.exact.get(key) ?? index.folded.get(foldName(key));
}

/** encoding/json's key folding: each character upper-cased after lower-casing (Unicode simple folding). */
function foldName(s: string): string {
  let out = "";
  for (const c of s) {
    const f = c.toLowerCase().toUpperCase();
    out += [...f].length === 1 ? f : c;
  }
  return out;
}

/** Characters Go's TrimSpace removes that its JSON encoder writes unescaped (so a quantity string keeps them). */
const UNESCAPED_SPACE = /^[ \u0085\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+|[ \u0085\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+$/g;

/**
 * Quantity.UnmarshalJSON: null is zero; a JSON string's text between the quotes (as the encoder wrote
 * it) or any other value's JSON text is trimmed and parsed; a parse error ends decoding.
 */
function decodeQuantity(v: JsonValue): Quantity {
  if (v === null) return Quantity.zero();
  let text: string;
  if (typeof v === "string") text = v.replace(UNESCAPED_SPACE, "");
  else if (typeof v === "number") text = numberLiteral(v);
  else if (typeof v === "boolean") text = String(v);
  else text = "{";
  const r = Quantity.parse(text);
  if (!r.ok) throw new Abort(r.error.message);
  return r.quantity;
}

const RFC3339 = "2006-01-02T15:04:05Z07:00";

/**
 * time.Parse(time.RFC3339, s): the time, or Go's error message. Go's layout parser reads the elements
 * 2006 - 01 - 02 T 15 : 04 : 05 [fraction] Z07:00 in turn; "cannot parse" names the rest of the value and
 * the element it failed at; ranges are checked as it checks them (the day of the month last).
 */
function parseRFC3339(value: string): Date | string {
  let rest = value;
  const bad = (elem: string): string => `parsing time ${goQuote(value)} as ${goQuote(RFC3339)}: cannot parse ${goQuote(rest)} as ${goQuote(elem)}`;
  const outOfRange = (what: string): string => `parsing time ${goQuote(value)}: ${what} out of range`;
  const literal = (lit: string): boolean => {
    if (!rest.startsWith(lit)) return false;
    rest = rest.slice(lit.length);
    return true;
  };
  // getnum: one or two digits (two when fixed).
  const num = (fixed: boolean): number | undefined => {
    const m = /^\d\d?/.exec(rest);
    if (!m || (fixed && m[0].length < 2)) return undefined;
    rest = rest.slice(m[0].length);
    return Number(m[0]);
  };
  if (!/^\d{4}/.test(rest)) return bad("2006");
  const year = Number(rest.slice(0, 4));
  rest = rest.slice(4);
  if (!literal("-")) return bad("-");
  const month = num(true);
  if (month === undefined) return bad("01");
  if (month < 1 || month > 12) return outOfRange("month");
  if (!literal("-")) return bad("-");
  const day = num(true);
  if (day === undefined) return bad("02");
  if (!literal("T")) return bad("T");
  const hour = num(false);
  if (hour === undefined) return bad("15");
  if (hour >= 24) return outOfRange("hour");
  if (!literal(":")) return bad(":");
  const min = num(true);
  if (min === undefined) return bad("04");
  if (min >= 60) return outOfRange("minute");
  if (!literal(":")) return bad(":");
  const sec = num(true);
  if (sec === undefined) return bad("05");
  if (sec >= 60) return outOfRange("second");
  const frac = /^[.,]\d+/.exec(rest);
  if (frac) rest = rest.slice(frac[0].length);
  let offsetMinutes = 0;
  if (!literal("Z")) {
    const m = /^([+-])(\d\d):(\d\d)/.exec(rest);
    if (!m) return bad("Z07:00");
    if (Number(m[2]) > 24) return outOfRange("time zone offset hour");
    if (Number(m[3]) > 60) return outOfRange("time zone offset minute");
    offsetMinutes = (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
    rest = rest.slice(6);
  }
  if (rest !== "") return `parsing time ${goQuote(value)}: extra text: ${goQuote(rest)}`;
  if (day < 1 || day > utc(year, month, 0, 0, 0, 0).getUTCDate()) return outOfRange("day");
  // metav1.Time keeps whole seconds when it marshals.
  return new Date(utc(year, month - 1, day, hour, min, sec).getTime() - offsetMinutes * 60000);
}

/** A UTC date (Date.UTC would read years 0..99 as 1900..1999). */
function utc(year: number, month: number, day: number, hour: number, min: number, sec: number): Date {
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  d.setUTCHours(hour, min, sec, 0);
  return d;
}

/** The time package's quoting: ASCII kept (with \" and \\), anything else as \x escapes of its UTF-8 bytes. */
function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const code = c.codePointAt(0)!;
    if (code < 0x20 || code >= 0x80) {
      for (const b of new TextEncoder().encode(c)) out += `\\x${b.toString(16).padStart(2, "0")}`;
    } else {
      out += c === '"' || c === "\\" ? `\\${c}` : c;
    }
  }
  return `${out}"`;
}

/** A struct field with its type resolved, as marshalling reads it. */
interface PlannedField {
  name: string;
  type: GoType;
  omitempty: boolean;
  omitzero: boolean;
}

/** Struct fields with resolved types, and element types, per table (made once). */
const plans = new WeakMap<GoType, PlannedField[]>();
const elems = new WeakMap<GoType, GoType>();

function planOf(t: GoType & { kind: "struct" }, table: GoTypeTable): PlannedField[] {
  let plan = plans.get(t);
  if (plan === undefined) {
    plan = t.fields.map(([name, type, options]) => ({ name, type: typeOf(type, table), omitempty: options.includes("omitempty"), omitzero: options.includes("omitzero") }));
    plans.set(t, plan);
  }
  return plan;
}

function elemOf(t: GoType & { elem: string }, table: GoTypeTable): GoType {
  let e = elems.get(t);
  if (e === undefined) elems.set(t, (e = typeOf(t.elem, table)));
  return e;
}

/** The decoded value as encoding/json marshals it (omitempty and omitzero honoured, nil as null, map keys sorted). */
function marshal(v: GoValue, t: GoType, table: GoTypeTable): JsonValue {
  switch (t.kind) {
    case "pointer":
      return v === undefined ? null : marshal(v, elemOf(t, table), table);
    case "slice":
      return Array.isArray(v) ? v.map((item) => marshal(item, elemOf(t, table), table)) : null;
    case "map": {
      if (!(v instanceof Map)) return null;
      const out: { [k: string]: JsonValue } = {};
      const elem = elemOf(t, table);
      for (const key of [...v.keys()].sort(goStringCompare)) setKey(out, key, marshal(v.get(key), elem, table));
      return out;
    }
    case "struct": {
      const fields = v instanceof StructValue ? v.fields : undefined;
      const out: { [k: string]: JsonValue } = {};
      for (const f of planOf(t, table)) {
        const fv = fields?.get(f.name);
        if (f.omitempty && isEmpty(fv, f.type)) continue;
        if (f.omitzero && isZero(fv, f.type, table)) continue;
        setKey(out, f.name, marshal(fv, f.type, table));
      }
      return out;
    }
    case "quantity":
      return (v instanceof Quantity ? v : Quantity.zero()).toString();
    case "intOrString":
      return v instanceof IntOrString ? v.value : 0;
    case "time":
      return v instanceof TimeValue && v.text !== "" ? v.text : null;
    case "raw":
      return v instanceof RawValue ? v.value : null;
    case "string":
      return typeof v === "string" ? v : "";
    case "bool":
      return v === true;
    case "int32":
      return typeof v === "number" ? v : 0;
    case "int64":
      return typeof v === "bigint" ? Number(v) : 0;
  }
}

/** encoding/json's omitempty: false, 0, "", nil pointers, and nil or empty slices and maps (structs never). */
function isEmpty(v: GoValue, t: GoType): boolean {
  switch (t.kind) {
    case "pointer":
      return v === undefined;
    case "slice":
      return !Array.isArray(v) || v.length === 0;
    case "map":
      return !(v instanceof Map) || v.size === 0;
    case "string":
      return v === undefined || v === "";
    case "bool":
      return v !== true;
    case "int32":
    case "int64":
      return v === undefined || v === 0 || v === 0n;
    default:
      return false;
  }
}

/** encoding/json's omitzero: the type's zero value (for Time and Quantity, what their IsZero says). */
function isZero(v: GoValue, t: GoType, table: GoTypeTable): boolean {
  switch (t.kind) {
    case "pointer":
    case "slice":
    case "map":
      return v === undefined;
    case "struct":
      return !(v instanceof StructValue) || planOf(t, table).every((f) => isZero(v.fields.get(f.name), f.type, table));
    case "quantity":
      return !(v instanceof Quantity) || v.isZero();
    case "time":
      return !(v instanceof TimeValue) || v.text === "";
    case "intOrString":
      return !(v instanceof IntOrString) || v.value === 0;
    case "raw":
      return !(v instanceof RawValue);
    default:
      return isEmpty(v, t);
  }
}

function setKey(out: { [k: string]: JsonValue }, key: string, value: JsonValue): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}
