/**
 * JSON text as jq 1.7.1 reads and writes it: number formatting (jv_dtoa's shortest round-trip digits in
 * jq's layout), the serializer behind `tojson`/`tostring`/CLI output, the parser behind `fromjson` and
 * CLI input (with jq's error messages, positions and depth limit), and the string/codepoint helpers
 * behind `explode`, `implode`, `length` and `utf8bytelength`.
 *
 * Everything here is iterative: no JS recursion, so arbitrarily deep values neither overflow the stack
 * nor depend on the engine's recursion limit.
 */
import { JqRuntimeError } from "../errors.js";
import { decodeJsonString } from "../json-string.js";
import { COST, MAX_STRING_LENGTH, charge as chargeSteps, stringLimitError } from "../runtime.js";
import { goCompareStrings, goRuneCount } from "../../gofmt/index.js";

/** jq 1.8.2's MAX_PRINT_DEPTH: values nested deeper are printed as `<skipped: too deep>`. */
export const MAX_PRINT_DEPTH = 10_000;
/** jq 1.8.2's MAX_PARSING_DEPTH: the parser's stack (containers plus pending object keys) limit. */
export const MAX_PARSING_DEPTH = 10_000;

// ---------------------------------------------------------------------------------------------
// Numbers

/**
 * How jq 1.7.1 prints a double: the shortest digits that round-trip, plain notation unless the decimal
 * point would sit 4+ places left of the digits or more than 15 places right of them, in which case
 * `d.ddde±XX` with at least two exponent digits. NaN prints as `null`, infinities as ±DBL_MAX.
 */
export function formatNumber(n: number): string {
  if (Number.isInteger(n)) {
    // Integers below 1e16 never switch to exponent notation (at most 15 trailing zeros).
    if (n < 1e16 && n > -1e16) return n === 0 && 1 / n < 0 ? "-0" : String(n);
  } else if (n !== n) {
    return "null";
  }
  if (n === Infinity) return "1.7976931348623157e+308";
  if (n === -Infinity) return "-1.7976931348623157e+308";
  const neg = n < 0;
  const s = (neg ? -n : n).toExponential();
  const e = s.indexOf("e");
  const digits = s[1] === "." ? s[0] + s.slice(2, e) : s.slice(0, e);
  const exp = Number(s.slice(e + 1));
  const decpt = exp + 1;
  const nd = digits.length;
  let out: string;
  if (decpt <= -4 || decpt > nd + 15) {
    const ax = exp < 0 ? -exp : exp;
    out = digits[0] + (nd > 1 ? "." + digits.slice(1) : "") + "e" + (exp < 0 ? "-" : "+") + (ax < 10 ? "0" + ax : String(ax));
  } else if (decpt <= 0) {
    out = "0." + "0".repeat(-decpt) + digits;
  } else if (decpt >= nd) {
    out = digits + "0".repeat(decpt - nd);
  } else {
    out = digits.slice(0, decpt) + "." + digits.slice(decpt);
  }
  return neg ? "-" + out : out;
}

// ---------------------------------------------------------------------------------------------
// Strings and codepoints

/**
 * Orders two strings by Unicode codepoint (what jq's byte-wise UTF-8 comparison amounts to), unlike
 * JS's `<` which compares UTF-16 units and puts U+E000..U+FFFF after astral characters.
 */
export const compareCodepoints = goCompareStrings;

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NON_ASCII = /[^\x00-\x7f]/;
const SURROGATE = /[\ud800-\udfff]/;

/** Number of Unicode codepoints in `s` (jq's `length` of a string). */
export function codepointLength(s: string): number {
  return SURROGATE.test(s) ? goRuneCount(s) : s.length;
}

/** Length of `s` encoded as UTF-8 (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8ByteLength(s: string): number {
  if (!NON_ASCII.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The codepoints of `s` (jq's `explode`); a lone surrogate, which jq strings cannot hold, gives U+FFFD. */
export function explode(s: string): number[] {
  const out: number[] = new Array(s.length);
  let k = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      } else c = 0xfffd;
    }
    out[k++] = c;
  }
  out.length = k;
  return out;
}

/**
 * jq 1.7.1's `implode`: codepoints to a string. Non-numbers (and NaN) are errors; numbers are truncated
 * toward zero and those outside U+0000..U+10FFFF or in the surrogate range become U+FFFD.
 */
export function implode(cps: unknown): string {
  if (!Array.isArray(cps)) throw new JqRuntimeError("implode input must be an array");
  let out = "";
  let chunk: number[] = [];
  for (const v of cps) {
    if (typeof v !== "number" || v !== v) {
      throw new JqRuntimeError(`${typeErrorSubject(v)} can't be imploded, unicode codepoint needs to be numeric`);
    }
    let cp = Math.trunc(v);
    if (!(cp >= 0 && cp <= 0x10ffff) || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
    chunk.push(cp);
    if (chunk.length >= 4096) {
      out += String.fromCodePoint(...chunk);
      chunk = [];
    }
  }
  return chunk.length ? out + String.fromCodePoint(...chunk) : out;
}

// ---------------------------------------------------------------------------------------------
// Serializer

/** Options of {@link toJson}, mirroring jq's `--indent n`, `--tab`, `--sort-keys`, `--ascii-output`. */
export interface ToJsonOptions {
  /** Pretty-print with this many spaces per level (0 = compact, jq's default CLI output uses 2), or tabs. */
  indent?: number | "\t";
  /** Print object keys in codepoint order instead of insertion order. */
  sortKeys?: boolean;
  /** Escape every non-ASCII character as `\uXXXX` (surrogate pairs for astral ones). */
  ascii?: boolean;
  /** Deepest nesting printed; deeper values become `<skipped: too deep>`. Default jq's 10,000. */
  maxDepth?: number;
  /** Line breaks between entries even with `indent` 0 (jq 1.8's `--indent 0`); default: when indent is not 0. */
  pretty?: boolean;
  /** Colour escapes as jq's `-C` prints them (see {@link JQ_DEFAULT_COLORS}). */
  colors?: readonly string[];
  /**
   * Inside a jq run: count every value printed as a step of the run's budget and stop at the string
   * limit, so that a value with shared structure (2^40 leaves in 40 levels) fails fast.
   */
  charge?: boolean;
  /** Stop once the text is longer than this: for messages that show only the start of a value. */
  stopAfter?: number;
  /** Fail (a limit error) once the text is longer than this: output that cannot be held. */
  maxLength?: number;
}

/** The size of the flat pieces {@link toJson} builds its text from. */
const CHUNK = 1 << 14;

/** The longest text of a value an error message shows. */
export const MAX_MESSAGE_VALUE_LENGTH = 100_000;

/** A value's JSON for a message: cut after {@link MAX_MESSAGE_VALUE_LENGTH} characters, ending in `...`. */
export function messageJson(value: unknown): string {
  const text = toJson(value, { stopAfter: MAX_MESSAGE_VALUE_LENGTH });
  return text.length > MAX_MESSAGE_VALUE_LENGTH ? text.slice(0, MAX_MESSAGE_VALUE_LENGTH) + "..." : text;
}

/** The options of a serialization a jq program asked for (`tojson`, `tostring`, `@text`...): charged. */
export const CHARGED: ToJsonOptions = { charge: true, maxLength: MAX_STRING_LENGTH };

/** jq's kind name of a JSON value. */
export function kindOf(v: unknown): string {
  if (v === null || v === undefined) return "null";
  switch (typeof v) {
    case "boolean":
      return "boolean";
    case "number":
      return "number";
    case "string":
      return "string";
    default:
      return Array.isArray(v) ? "array" : "object";
  }
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NEEDS_ESCAPE = /["\\\x00-\x1f\x7f]/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NEEDS_ESCAPE_ASCII = /["\\\x00-\x1f\x7f-\uffff]/;

/** A string as a JSON string literal, escaped the way jq's printer does. */
export function quoteString(s: string, ascii = false): string {
  if (!(ascii ? NEEDS_ESCAPE_ASCII : NEEDS_ESCAPE).test(s)) return '"' + s + '"';
  if (!ascii) {
    // JSON.stringify escapes exactly like jq except that jq also escapes DEL, and jq never holds
    // lone surrogates (they would be U+FFFD).
    let q = JSON.stringify(s);
    if (q.indexOf("\x7f") >= 0) q = q.replace(/\x7f/g, "\\u007f");
    // Only an escape JSON.stringify wrote: not the text `\ud83d` after an escaped backslash (`\\ud83d`).
    if (SURROGATE.test(s)) q = q.replace(/(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g, "$1\ufffd");
    return q;
  }
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) {
      out += c === 0x22 ? '\\"' : c === 0x5c ? "\\\\" : s[i];
    } else if (c === 0x0a) out += "\\n";
    else if (c === 0x09) out += "\\t";
    else if (c === 0x0d) out += "\\r";
    else if (c === 0x08) out += "\\b";
    else if (c === 0x0c) out += "\\f";
    else {
      let u = c;
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          out += "\\u" + c.toString(16) + "\\u" + d.toString(16);
          i++;
          continue;
        }
        u = 0xfffd;
      }
      out += "\\u" + u.toString(16).padStart(4, "0");
    }
  }
  return out + '"';
}

/**
 * jq 1.8.2's default colours, in its order: null, false, true, numbers, strings, arrays, objects, object
 * keys (each an escape sequence).
 */
export const JQ_DEFAULT_COLORS: readonly string[] = ["0;90", "0;39", "0;39", "0;39", "0;32", "1;39", "1;39", "1;34"].map((c) => `\x1b[${c}m`);
const COLOR_RESET = "\x1b[0m";

/** The colour of a value's kind (the order of {@link JQ_DEFAULT_COLORS}). */
function colorOf(colors: readonly string[], v: unknown): string {
  if (v === null || v === undefined) return colors[0]!;
  switch (typeof v) {
    case "boolean":
      return colors[v ? 2 : 1]!;
    case "number":
      return colors[3]!;
    case "string":
      return colors[4]!;
    default:
      return colors[Array.isArray(v) ? 5 : 6]!;
  }
}

interface Frame {
  /** The colour the container was printed in (with -C). */
  color: string;
  /** The container's entries: array elements or object keys. */
  keys: string[] | null;
  arr: unknown[] | null;
  obj: Record<string, unknown> | null;
  i: number;
  depth: number;
}

/**
 * Serializes a JSON value as jq 1.8.2 prints it: compact (`{"a":1,"b":[1,2]}`) or indented as the CLI
 * does, numbers via {@link formatNumber}, strings via {@link quoteString}, coloured as `-C` does.
 * Iterative, so deep values are fine; like jq, levels beyond `maxDepth` (default 10,000) print as
 * `<skipped: too deep>`.
 */
export function toJson(value: unknown, opts?: ToJsonOptions): string {
  const ascii = opts?.ascii ?? false;
  const sortKeys = opts?.sortKeys ?? false;
  const maxDepth = opts?.maxDepth ?? MAX_PRINT_DEPTH;
  const ind = opts?.indent ?? 0;
  const pretty = opts?.pretty ?? (ind === "\t" || ind > 0);
  const unit = ind === "\t" ? "\t" : " ".repeat(pretty ? (ind as number) : 0);
  const colors = opts?.colors;
  const reset = colors ? COLOR_RESET : "";
  const indents: string[] = [];
  const nl = (d: number): string => {
    let s = indents[d];
    if (s === undefined) s = indents[d] = "\n" + unit.repeat(d);
    return s;
  };
  const colon = pretty ? ": " : ":";
  const charge = opts?.charge ?? false;
  const stopAfter = opts?.stopAfter ?? Infinity;
  const maxLength = opts?.maxLength ?? Infinity;

  let out = "";
  const done: string[] = [];
  let doneLength = 0;
  const stack: Frame[] = [];
  let v: unknown = value;
  let depth = 0;
  // Emit `v` (at `depth`), then keep taking the next entry of the innermost open container.
  for (;;) {
    if (charge) chargeSteps(COST.print);
    if (out.length > CHUNK) {
      // `+=` builds a tree of small strings (tens of bytes per piece): flat chunks keep memory near the text's size.
      void out.charCodeAt(0);
      done.push(out);
      doneLength += out.length;
      out = "";
    }
    if (doneLength + out.length > stopAfter) return done.join("") + out;
    if (doneLength + out.length > maxLength) throw stringLimitError(maxLength);
    // As jq's jv_dump_term: the value's colour, the value, a reset (a container resets when it closes).
    const color = colors ? colorOf(colors, v) : "";
    out += color;
    let open = false;
    if (depth > maxDepth) {
      out += "<skipped: too deep>";
    } else if (v === null || v === undefined) {
      out += "null";
    } else {
      switch (typeof v) {
        case "string":
          out += quoteString(v as string, ascii);
          break;
        case "number":
          // jq 1.8.2 prints NaN as a null inside the number's colour: null's colour, null, a reset.
          out += v !== v && colors ? colors[0] + "null" + reset : formatNumber(v as number);
          break;
        case "boolean":
          out += v ? "true" : "false";
          break;
        case "object":
          if (Array.isArray(v)) {
            if (v.length === 0) out += "[]";
            else {
              out += "[";
              open = true;
              stack.push({ color, keys: null, arr: v, obj: null, i: 0, depth });
            }
          } else {
            const o = v as Record<string, unknown>;
            const keys = Object.keys(o);
            if (keys.length === 0) out += "{}";
            else {
              if (sortKeys) keys.sort(compareCodepoints);
              out += "{";
              open = true;
              stack.push({ color, keys, arr: null, obj: o, i: 0, depth });
            }
          }
          break;
        default:
          out += "null";
      }
    }
    if (!open) out += reset;
    // Find the next value to print.
    let next = false;
    while (stack.length > 0) {
      const f = stack[stack.length - 1]!;
      const n = f.arr !== null ? f.arr.length : f.keys!.length;
      if (f.i < n) {
        if (f.i > 0) out += f.color + ",";
        out += reset;
        if (pretty) out += nl(f.depth + 1);
        if (f.arr !== null) v = f.arr[f.i++];
        else {
          const k = f.keys![f.i++]!;
          out += colors ? colors[7] + quoteString(k, ascii) + reset + f.color + ":" + reset + (pretty ? " " : "") : quoteString(k, ascii) + colon;
          v = f.obj![k];
        }
        depth = f.depth + 1;
        next = true;
        break;
      }
      if (pretty) out += nl(f.depth);
      out += f.color + (f.arr !== null ? "]" : "}") + reset;
      stack.pop();
    }
    if (!next) return done.length === 0 ? out : done.join("") + out;
  }
}

/**
 * jq 1.8.2's `jv_dump_string_trunc`: the compact JSON text in at most `bufsize - 1` UTF-8 bytes; when
 * longer, cut at a character boundary and ended with `...` and the closing quote or bracket (a string
 * is first cut to `bufsize` code points, so a huge one is not printed whole).
 */
export function dumpTruncated(value: unknown, bufsize = 30): string {
  let v = value;
  if (typeof v === "string" && v.length > bufsize) v = Array.from(v.slice(0, 2 * bufsize)).slice(0, bufsize).join("");
  // Only the start of a container is printed (UTF-8 bytes >= UTF-16 units).
  const text = toJson(v, { stopAfter: bufsize });
  const max = bufsize - 1;
  if (text.length <= max && !NON_ASCII.test(text)) return text;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= max) return text;
  if (bufsize < 8) return new TextDecoder("utf-8").decode(bytes.subarray(0, max));
  const delim = text[0] === '"' ? '"' : text[0] === "[" ? "]" : text[0] === "{" ? "}" : "";
  let cut = bufsize - (delim ? 5 : 4);
  // Back to the start of the character the cut falls in.
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return new TextDecoder("utf-8").decode(bytes.subarray(0, cut)) + "..." + delim;
}

/** The `<kind> (<truncated json>)` subject of jq's type error messages. */
export function typeErrorSubject(value: unknown): string {
  return `${kindOf(value)} (${dumpTruncated(value)})`;
}

// ---------------------------------------------------------------------------------------------
// Parser

/** A parse failure: jq's message, where it was found, and whether at end of input. */
class ParseFailure {
  constructor(
    readonly msg: string,
    readonly line: number,
    readonly column: number,
    readonly atEof: boolean,
  ) {}
  text(): string {
    return this.atEof
      ? `${this.msg} at EOF at line ${this.line}, column ${this.column}`
      : `${this.msg} at line ${this.line}, column ${this.column}`;
  }
}

/** What jq 1.8.2 reads as a number (decNumber's syntax): also `.5`, `1.`, `+1`, `01`, `nan`, `Infinity`; not `NaN123`. */
const NUMBER_LITERAL = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|s?nan0*)$/i;

/** The value of a text that matches {@link NUMBER_LITERAL}. */
function numberValue(tok: string): number {
  const n = Number(tok);
  if (n === n) return n;
  if (/nan/i.test(tok)) return NaN;
  return tok.charCodeAt(0) === 0x2d ? -Infinity : Infinity;
}

/** The value of a literal token as jq's check_literal reads it; throws jq's message (a string) when it is none. */
export function literalValue(tok: string): unknown {
  const c = tok.charCodeAt(0);
  if (c === 0x74 /* t */) {
    if (tok !== "true") throw "Invalid literal";
    return true;
  }
  if (c === 0x66 /* f */) {
    if (tok !== "false") throw "Invalid literal";
    return false;
  }
  if (c === 0x27 /* ' */) throw "Invalid string literal; expected \", but got '";
  if (c === 0x6e /* n */ && tok.charCodeAt(1) === 0x75 /* u */) {
    if (tok !== "null") throw "Invalid literal";
    return null;
  }
  if (!NUMBER_LITERAL.test(tok)) throw "Invalid numeric literal";
  return numberValue(tok);
}

/** Sets an object's key as jq does, `__proto__` included (an own key, not the prototype). */
export function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

export function isLiteralChar(c: number): boolean {
  switch (c) {
    case 0x20:
    case 0x09:
    case 0x0d:
    case 0x0a:
    case 0x22:
    case 0x5b:
    case 0x2c:
    case 0x5d:
    case 0x7b:
    case 0x3a:
    case 0x7d:
      return false;
    default:
      return true;
  }
}

/** Column width (UTF-8 bytes, as jq counts) of the UTF-16 unit `c`. */
export function byteWidth(c: number): number {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
}

function widthOf(s: string, from: number, to: number): number {
  let n = to - from;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) n += byteWidth(c) - 1;
  }
  return n;
}

const NO_VALUE: unique symbol = Symbol("no value");
type Slot = unknown | typeof NO_VALUE;
/** An open container on the parser stack, or a pending object key (jq keeps keys on the same stack). */
type StackEntry = { a: unknown[] } | { o: Record<string, unknown>; n: number } | { k: string };

/**
 * A port of jq 1.7.1's non-streaming JSON text parser (state machine over characters), producing the
 * same values, messages and line/column positions. Values come one at a time from {@link next}.
 */
class TextParser {
  pos: number;
  line: number;
  col = 0;
  private stack: StackEntry[] = [];
  /** A literal token read but not yet checked (jq checks it when the next character arrives). */
  private pendingTok: string | null = null;
  /** An opening quote seen right after a completed value; the string is read on the next call. */
  private pendingQuote = false;
  private slot: Slot = NO_VALUE;
  private readonly end: number;

  constructor(
    private readonly text: string,
    start: number,
    line: number,
    private readonly maxDepth: number,
    col = 0,
  ) {
    this.pos = start;
    this.line = line;
    this.col = col;
    this.end = text.length;
  }

  /** True when no value is partly read (so line-based fast parsing may resume). */
  idle(): boolean {
    return this.stack.length === 0 && this.slot === NO_VALUE && this.pendingTok === null && !this.pendingQuote;
  }

  private fail(msg: string): never {
    throw new ParseFailure(msg, this.line, this.col, false);
  }

  private value(v: unknown): void {
    if (this.slot !== NO_VALUE) this.fail("Expected separator between values");
    this.slot = v;
  }

  private token(c: number): void {
    const st = this.stack;
    const top = st.length ? st[st.length - 1] : undefined;
    switch (c) {
      case 0x5b: // [
        if (st.length >= this.maxDepth) this.fail("Exceeds depth limit for parsing");
        if (this.slot !== NO_VALUE) this.fail("Expected separator between values");
        st.push({ a: [] });
        break;
      case 0x7b: // {
        if (st.length >= this.maxDepth) this.fail("Exceeds depth limit for parsing");
        if (this.slot !== NO_VALUE) this.fail("Expected separator between values");
        st.push({ o: {}, n: 0 });
        break;
      case 0x3a: // :
        if (this.slot === NO_VALUE) this.fail("Expected string key before ':'");
        if (top === undefined || !("o" in top)) this.fail("':' not as part of an object");
        if (typeof this.slot !== "string") this.fail("Object keys must be strings");
        st.push({ k: this.slot });
        this.slot = NO_VALUE;
        break;
      case 0x2c: // ,
        if (this.slot === NO_VALUE) this.fail("Expected value before ','");
        if (top === undefined) this.fail("',' not as part of an object or array");
        if ("a" in top) {
          top.a.push(this.slot);
          this.slot = NO_VALUE;
        } else if ("k" in top) {
          const obj = st[st.length - 2] as { o: Record<string, unknown>; n: number };
          setKey(obj.o, top.k, this.slot);
          obj.n++;
          st.pop();
          this.slot = NO_VALUE;
        } else this.fail("Objects must consist of key:value pairs");
        break;
      case 0x5d: // ]
        if (top === undefined || !("a" in top)) this.fail("Unmatched ']'");
        if (this.slot !== NO_VALUE) top.a.push(this.slot);
        else if (top.a.length !== 0) this.fail("Expected another array element");
        this.slot = top.a;
        st.pop();
        break;
      case 0x7d: // }
        if (top === undefined) this.fail("Unmatched '}'");
        if (this.slot !== NO_VALUE) {
          if (!("k" in top)) this.fail("Objects must consist of key:value pairs");
          const obj = st[st.length - 2] as { o: Record<string, unknown>; n: number };
          setKey(obj.o, top.k, this.slot);
          obj.n++;
          st.pop();
          this.slot = obj.o;
          st.pop();
        } else {
          if (!("o" in top)) this.fail("Unmatched '}'");
          if (top.n !== 0) this.fail("Expected another key-value pair");
          this.slot = top.o;
          st.pop();
        }
        break;
    }
  }

  /** Decodes the body of a string literal (between quotes), as jq's found_string does. */
  private stringBody(raw: string): string {
    if (raw.indexOf("\\") < 0) {
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      if (/[\x00-\x1f]/.test(raw)) this.fail("Invalid string: control characters from U+0000 through U+001F must be escaped");
      return raw;
    }
    const decoded = decodeJsonString(raw);
    if (typeof decoded !== "string") this.fail(decoded.error);
    return decoded;
  }

  private checkDone(): boolean {
    return this.stack.length === 0 && this.slot !== NO_VALUE;
  }

  private take(): unknown {
    const v = this.slot;
    this.slot = NO_VALUE;
    return v;
  }

  /**
   * Reads until one top-level value is complete; returns NO_VALUE at end of input with nothing
   * pending. Throws ParseFailure on malformed input.
   */
  next(): Slot {
    const text = this.text;
    const end = this.end;
    if (this.pendingQuote) {
      this.pendingQuote = false;
      this.readString();
      if (this.checkDone()) return this.take();
    }
    while (this.pos < end) {
      const c = text.charCodeAt(this.pos);
      if (isLiteralChar(c)) {
        // A literal token: the maximal run of characters that are not whitespace, quote or structure.
        const start = this.pos;
        let p = start + 1;
        while (p < end && isLiteralChar(text.charCodeAt(p))) p++;
        this.col += widthOf(text, start, p);
        this.pos = p;
        this.pendingTok = this.pendingTok === null ? text.slice(start, p) : this.pendingTok + text.slice(start, p);
        continue;
      }
      this.pos++;
      if (c === 0x0a) {
        this.line++;
        this.col = 0;
      } else this.col++;
      let out: Slot = NO_VALUE;
      if (this.pendingTok !== null) {
        // A literal is checked when the character after it arrives (so errors point past it).
        const tok = this.pendingTok;
        this.pendingTok = null;
        let v: unknown;
        try {
          v = literalValue(tok);
        } catch (m) {
          this.fail(m as string);
        }
        this.value(v);
        if (this.checkDone()) out = this.take();
      }
      if (c === 0x22) {
        if (out !== NO_VALUE) {
          this.pendingQuote = true;
          return out;
        }
        this.readString();
      } else if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a) {
        this.token(c);
      }
      if (out !== NO_VALUE) return out;
      if (this.checkDone()) return this.take();
    }
    if (this.pendingTok !== null) {
      const tok = this.pendingTok;
      this.pendingTok = null;
      try {
        this.value(literalValue(tok));
      } catch (m) {
        throw new ParseFailure(m instanceof ParseFailure ? m.msg : (m as string), this.line, this.col, true);
      }
    }
    if (this.stack.length !== 0) throw new ParseFailure("Unfinished JSON term", this.line, this.col, true);
    return this.checkDone() ? this.take() : NO_VALUE;
  }

  /** At an opening quote (already consumed): reads to the closing quote and records the string. */
  private readString(): void {
    const text = this.text;
    const start = this.pos;
    let q = start;
    for (;;) {
      q = text.indexOf('"', q);
      if (q < 0) {
        // Unterminated: count the rest for the EOF position.
        this.advanceOver(start, this.end);
        this.pos = this.end;
        throw new ParseFailure("Unfinished string", this.line, this.col, true);
      }
      let b = q - 1;
      while (b >= start && text.charCodeAt(b) === 0x5c) b--;
      if ((q - 1 - b) % 2 === 0) break;
      q++;
    }
    this.advanceOver(start, q + 1);
    this.pos = q + 1;
    this.value(this.stringBody(text.slice(start, q)));
  }

  private advanceOver(from: number, to: number): void {
    const text = this.text;
    const nl = text.lastIndexOf("\n", to - 1);
    if (nl >= from) {
      let lines = 0;
      for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) lines++;
      this.line += lines;
      this.col = widthOf(text, nl + 1, to);
    } else {
      this.col += widthOf(text, from, to);
    }
  }
}

/**
 * The end (exclusive) of the array, object or string starting at `start`, found by scanning only
 * brackets and quotes; -1 when the text ends first.
 */
function scanValueEnd(text: string, start: number): number {
  const re = /["[\]{}]/g;
  re.lastIndex = start;
  let depth = 0;
  for (;;) {
    const m = re.exec(text);
    if (m === null) return -1;
    const i = m.index;
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let q = i + 1;
      for (;;) {
        q = text.indexOf('"', q);
        if (q < 0) return -1;
        let b = q - 1;
        while (text.charCodeAt(b) === 0x5c) b--;
        if ((q - 1 - b) % 2 === 0) break;
        q++;
      }
      if (depth === 0) return q + 1;
      re.lastIndex = q + 1;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
    } else {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return -1;
    }
  }
}

/** Whether the value parsed by JSON.parse would have stayed within jq's parser stack limit. */
function withinDepth(text: string, value: unknown, maxDepth: number): boolean {
  // Each open container or pending key takes a stack slot; fewer than maxDepth/2 brackets is always fine.
  const limit = maxDepth >> 1;
  if (text.length > limit) {
    let count = 0;
    for (let i = text.indexOf("[", 0); i >= 0 && count <= limit; i = text.indexOf("[", i + 1)) count++;
    for (let i = text.indexOf("{", 0); i >= 0 && count <= limit; i = text.indexOf("{", i + 1)) count++;
    if (count > limit) return stackDepthOk(value, maxDepth);
  }
  return true;
}

/** Exact check: every container must open with fewer than maxDepth stack slots in use. */
function stackDepthOk(value: unknown, maxDepth: number): boolean {
  // Explicit stack (parallel arrays, no per-entry allocation) of containers still to visit.
  const vals: object[] = [];
  const used: number[] = [];
  if (value !== null && typeof value === "object") {
    vals.push(value);
    used.push(0);
  }
  while (vals.length) {
    const v = vals.pop()!;
    const u = used.pop()!;
    if (u >= maxDepth) return false;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const x = v[i];
        if (x !== null && typeof x === "object") {
          vals.push(x);
          used.push(u + 1);
        }
      }
    } else {
      for (const k in v) {
        const x = (v as Record<string, unknown>)[k];
        if (x !== null && typeof x === "object") {
          vals.push(x);
          used.push(u + 2);
        }
      }
    }
  }
  return true;
}

const LONE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

function fastParse(text: string, maxDepth: number): { ok: true; value: unknown } | { ok: false } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false };
  }
  if (text.indexOf("\\u") >= 0 && LONE_SURROGATE_ESCAPE.test(text)) return { ok: false };
  if (!withinDepth(text, v, maxDepth)) return { ok: false };
  return { ok: true, value: v };
}

/**
 * One strict JSON value through `JSON.parse`, with jq's depth limit and lone-surrogate handling; `ok`
 * is false when the text needs the jq-compatible parser (or is not one value). For streaming readers.
 */
export function parseJsonLine(text: string): { ok: true; value: unknown } | { ok: false } {
  return fastParse(text, MAX_PARSING_DEPTH);
}

/**
 * Parses a text holding exactly one JSON value, as jq 1.7.1's `fromjson` does (also accepting jq's
 * extras: `nan`, `NaN`, `Infinity`, `.5`, `+1`, leading zeros). Failures throw JqRuntimeError with
 * jq's message, e.g. `Unfinished JSON term at EOF at line 1, column 6 (while parsing '{"a":1')`.
 */
export function parseJsonText(text: string, opts?: { maxDepth?: number }): unknown {
  const maxDepth = opts?.maxDepth ?? MAX_PARSING_DEPTH;
  const fast = fastParse(text, maxDepth);
  if (fast.ok) return fast.value;
  let msg: string;
  try {
    const start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    const p = new TextParser(text, start, 1, maxDepth);
    const v = p.next();
    if (v === NO_VALUE) {
      msg = "Expected JSON value";
    } else {
      const more = p.next();
      if (more === NO_VALUE) return v;
      msg = "Unexpected extra JSON values";
    }
  } catch (e) {
    if (!(e instanceof ParseFailure)) throw e;
    msg = e.text();
  }
  // jq formats the text with %s: cut at a NUL it holds, the message kept whole.
  throw new JqRuntimeError(`${msg} (while parsing '${text.split("\0", 1)[0]}')`);
}

/**
 * jq 1.8.2's `tonumber`: numbers pass through; a string must be exactly a number as jq's literals are
 * written (no blanks around it, no NUL inside), otherwise `<kind> (<value>) cannot be parsed as a number`.
 */
export function toNumber(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "string" && NUMBER_LITERAL.test(v)) return numberValue(v);
  throw new JqRuntimeError(`${typeErrorSubject(v)} cannot be parsed as a number`);
}

/** A closing bracket, brace or quote: a character that ends a value itself (a literal is ended by the one after it). */
const isCloser = (c: number): boolean => c === 0x7d || c === 0x5d || c === 0x22;

/**
 * The character that ends the one value in `text[from, to)` (blanks around it allowed): its closing
 * character, or for a literal the one after it (`to` when nothing follows it there).
 */
function endingCharacter(text: string, from: number, to: number): number {
  let last = to - 1;
  while (last > from && (text.charCodeAt(last) === 0x20 || text.charCodeAt(last) === 0x09 || text.charCodeAt(last) === 0x0d || text.charCodeAt(last) === 0x0a)) last--;
  return isCloser(text.charCodeAt(last)) ? last : last + 1;
}

/** Where {@link parseJsonStream} starts: `from` (an offset of the text), counted as `line` and `column` (UTF-8 bytes into that line). */
export interface ParseStreamOptions {
  maxDepth?: number;
  /** The offset to start at (0: the start, where a BOM is skipped). */
  from?: number;
  /** The line number of `from` (1-based) in error messages. */
  line?: number;
  /** The column of `from` in error messages (its line's bytes before it). */
  column?: number;
}

/**
 * Parses any number of JSON values from a text (CLI input: JSONL, concatenated or pretty-printed
 * values), yielding them in order. A leading BOM is skipped. Lines that are whole values go through
 * JSON.parse; anything else through the jq-compatible parser. On malformed input, after yielding the
 * values before it, throws JqRuntimeError whose message is jq's parser message, e.g.
 * `Unfinished JSON term at EOF at line 3, column 0` (the jq CLI prints it as `jq: parse error: <message>`).
 * `source` (a file name) is accepted for callers' bookkeeping; jq's messages do not name the file.
 * `where.end`, set before each value is yielded, is the offset of the character that ends it (a closing
 * bracket or quote, the character after a number or literal; the text's length when the end of the text
 * ends it): what `karta jq` places a value by (its file, and the lines jq has read when its parser gives it).
 */
export function* parseJsonStream(text: string, source?: string, opts?: ParseStreamOptions, where: { end?: number } = {}): Generator<unknown> {
  void source;
  const maxDepth = opts?.maxDepth ?? MAX_PARSING_DEPTH;
  const n = text.length;
  const from = opts?.from ?? 0;
  let pos = from === 0 && text.charCodeAt(0) === 0xfeff ? 1 : from;
  let line = opts?.line ?? 1;
  // Not tried again from where a parse error left off: each try would read the whole rest again.
  let triedWhole = from > 0;
  while (pos < n) {
    // Fast path: a line that is one whole value.
    let nl = text.indexOf("\n", pos);
    if (nl < 0) nl = n;
    const fast = fastParse(text.slice(pos, nl), maxDepth);
    if (fast.ok) {
      where.end = endingCharacter(text, pos, nl);
      yield fast.value;
      pos = nl + 1;
      line++;
      continue;
    }
    // A single document spanning lines (e.g. `kubectl get -o json`): one JSON.parse of the rest, tried
    // once only (when several values follow it fails after the first, and retrying would be quadratic).
    if (!triedWhole && nl < n) {
      triedWhole = true;
      const whole = fastParse(pos === 0 ? text : text.slice(pos), maxDepth);
      if (whole.ok) {
        where.end = endingCharacter(text, pos, n);
        yield whole.value;
        return;
      }
    }
    // Medium path: arrays, objects and strings delimited by a structural scan, each read by JSON.parse
    // (typical input: pretty-printed values one after another, as `jq .` writes them).
    let q = pos;
    let qLine = line;
    let lineStart = pos;
    let crossed = false;
    let multiline = false;
    let resume = false;
    for (;;) {
      while (q < n) {
        const c = text.charCodeAt(q);
        if (c === 0x0a) {
          qLine++;
          lineStart = q + 1;
          crossed = true;
        } else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
        q++;
      }
      if (q >= n) return;
      if (crossed && !multiline) {
        // A new line starts with the next value: back to the line-based fast path (unless values span
        // lines, as pretty-printed ones do, which the fast path would only fail on).
        pos = lineStart;
        line = qLine;
        resume = true;
        break;
      }
      const c = text.charCodeAt(q);
      if (c !== 0x7b && c !== 0x5b && c !== 0x22) break;
      const end = scanValueEnd(text, q);
      if (end < 0) break;
      const slice = text.slice(q, end);
      const r = fastParse(slice, maxDepth);
      if (!r.ok) break;
      // Its lines are counted before it is given: it ends on the last of them.
      multiline = false;
      for (let i = slice.indexOf("\n"); i >= 0; i = slice.indexOf("\n", i + 1)) {
        qLine++;
        lineStart = q + i + 1;
        multiline = true;
      }
      where.end = end - 1;
      yield r.value;
      crossed = false;
      q = end;
    }
    if (resume) continue;
    // Slow path (jq's own parser, for exact errors and jq's extensions) until a value ends at a line end.
    const p = new TextParser(text, q, qLine, maxDepth, (lineStart === from ? (opts?.column ?? 0) : 0) + widthOf(text, lineStart, q));
    for (;;) {
      let v: Slot;
      try {
        v = p.next();
      } catch (e) {
        if (e instanceof ParseFailure) throw new JqRuntimeError(e.text());
        throw e;
      }
      if (v === NO_VALUE) return;
      where.end = p.pos === n && !isCloser(text.charCodeAt(n - 1)) ? n : p.pos - 1;
      yield v;
      if (!p.idle()) continue;
      // Resume the fast path if only blanks remain on this line (or a literal's end took the newline).
      if (p.pos > 0 && text.charCodeAt(p.pos - 1) === 0x0a) {
        pos = p.pos;
        line = p.line;
        break;
      }
      let q = p.pos;
      while (q < n) {
        const c = text.charCodeAt(q);
        if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
        q++;
      }
      if (q >= n) return;
      if (text.charCodeAt(q) === 0x0a) {
        pos = q + 1;
        line = p.line + 1;
        break;
      }
    }
  }
}
