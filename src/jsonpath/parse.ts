/**
 * The parser of kubectl's JSONPath templates, as client-go's util/jsonpath (v0.37.2) reads them: text
 * outside braces is literal, `{...}` is an action. Every quirk that decides what a template means or which
 * error it gets is kept, because users' templates are written against kubectl:
 *
 * - `['a.b']` is the path a.b (the key is parsed again as `.a.b`); `['a\.b']` is the key "a.b";
 * - a union `[x,y]` is split on every comma before anything else, so a quoted key cannot hold one;
 * - `[]` is `[0]`, `[*]` is `[:]`; a field may be empty (`{.}`);
 * - a filter's operator is the first run of `!<>=` characters, whatever it spells (an unknown one fails
 *   only when the filter runs);
 * - words (`range`, `end`, anything else) are checked only when the template runs;
 * - only the first action of a sub-expression (a union member, a filter side) counts: `}` inside one
 *   ends it and the rest is dropped;
 * - a quoted string is read as Go's strconv.Unquote reads it, also with single quotes, and may hold bytes
 *   that are not UTF-8 (`"\xff"`): such bytes read as U+FFFD here, as in every Go string Karta prints.
 *
 * Errors carry client-go's wording ("unclosed action", "unrecognized character in action: U+002A '*'").
 * The parser runs in a loop over the template, never recursing more than the three levels a
 * sub-expression can nest.
 */
import { goDecodeUTF8, goIsPrint } from "../gofmt/index.js";
import type { ListNode, Node, SliceParam } from "./nodes.js";

export type ParseResult = { ok: true; root: ListNode } | { ok: false; error: string };

const EOF = -1;

/** What may end a field name or a word. */
function isTerminator(r: number): boolean {
  switch (r) {
    case EOF:
    case 0x20: // space
    case 0x09: // tab
    case 0x0d:
    case 0x0a:
    case 0x2e: // .
    case 0x2c: // ,
    case 0x5b: // [
    case 0x5d: // ]
    case 0x24: // $
    case 0x40: // @
    case 0x7b: // {
    case 0x7d: // }
      return true;
  }
  return false;
}

const DIGIT = /^\p{Nd}$/u;
const LETTER = /^\p{L}$/u;
const char = (r: number): string => (r < 0 ? "" : String.fromCodePoint(r));
/** Go's unicode.IsDigit (any decimal digit, not only ASCII). */
const isDigit = (r: number): boolean => r >= 0 && DIGIT.test(char(r));
/** Letters, digits and `_`: what starts a word. */
const isAlphaNumeric = (r: number): boolean => r === 0x5f || (r >= 0 && (LETTER.test(char(r)) || DIGIT.test(char(r))));

/** `%#U` of a rune, as Go prints it: `U+002A '*'`, without the quoted character when it is not printable. */
function runeName(r: number): string {
  const hex = `U+${r.toString(16).toUpperCase().padStart(4, "0")}`;
  return goIsPrint(r) ? `${hex} '${String.fromCodePoint(r)}'` : hex;
}

/** Go's strconv.Atoi on a 64-bit platform: an optional sign and ASCII digits, within int64. */
function atoi(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

/** Go's strconv.ParseFloat on what a number literal can hold here (sign, ASCII digits, one point). */
function parseFloat64(s: string): number | undefined {
  if (!/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

const utf8 = new TextEncoder();

/**
 * A quoted string's value, as client-go's UnquoteExtend (strconv.UnquoteChar in a loop, either quote):
 * the bytes it spells, read back as UTF-8; undefined when Go's says "invalid syntax".
 */
export function unquote(quoted: string): string | undefined {
  const s = utf8.encode(quoted);
  const n = s.length;
  if (n < 2) return undefined;
  const quote = s[0]!;
  if (quote !== s[n - 1] || (quote !== 0x22 && quote !== 0x27)) return undefined;
  const inner = s.subarray(1, n - 1);
  if (!inner.includes(0x5c) && !inner.includes(quote)) return quoted.slice(1, -1);
  const out: number[] = [];
  const hex = (b: number | undefined): number => (b === undefined ? -1 : b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x61 && b <= 0x66 ? b - 0x57 : b >= 0x41 && b <= 0x46 ? b - 0x37 : -1);
  let i = 0;
  while (i < inner.length) {
    const c = inner[i]!;
    if (c === quote) return undefined;
    if (c !== 0x5c) {
      // A byte of its own, or one of a character's UTF-8 bytes: copied as they are.
      out.push(c);
      i++;
      continue;
    }
    const e = inner[i + 1];
    if (e === undefined) return undefined;
    i += 2;
    const simple: Record<number, number> = { 0x61: 7, 0x62: 8, 0x66: 12, 0x6e: 10, 0x72: 13, 0x74: 9, 0x76: 11, 0x5c: 0x5c };
    if (simple[e] !== undefined) {
      out.push(simple[e]!);
    } else if (e === 0x78 || e === 0x75 || e === 0x55) {
      const digits = e === 0x78 ? 2 : e === 0x75 ? 4 : 8;
      if (inner.length - i < digits) return undefined;
      let v = 0;
      for (let k = 0; k < digits; k++) {
        const d = hex(inner[i + k]);
        if (d < 0) return undefined;
        v = v * 16 + d;
      }
      i += digits;
      if (e === 0x78) out.push(v);
      else {
        // \u and \U name a character, which must be one.
        if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return undefined;
        if (v < 0x80) out.push(v);
        else out.push(...utf8.encode(String.fromCodePoint(v)));
      }
    } else if (e >= 0x30 && e <= 0x37) {
      let v = e - 0x30;
      if (inner.length - i < 2) return undefined;
      for (let k = 0; k < 2; k++) {
        const d = inner[i + k]!;
        if (d < 0x30 || d > 0x37) return undefined;
        v = v * 8 + (d - 0x30);
      }
      i += 2;
      if (v > 255) return undefined;
      out.push(v);
    } else if (e === 0x27 || e === 0x22) {
      if (e !== quote) return undefined;
      out.push(e);
    } else return undefined;
  }
  let text = "";
  for (const cp of goDecodeUTF8(Uint8Array.from(out))) text += String.fromCodePoint(cp);
  return text;
}

class Parser {
  readonly root: ListNode = { type: "list", nodes: [] };
  private pos = 0;
  private start = 0;
  private width = 0;

  constructor(private readonly input: string) {}

  private next(): number {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    let r = this.input.codePointAt(this.pos)!;
    this.width = r > 0xffff ? 2 : 1;
    this.pos += this.width;
    // A lone surrogate is not a character: a Go string holds U+FFFD in its place.
    if (r >= 0xd800 && r <= 0xdfff) r = 0xfffd;
    return r;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  private consume(): string {
    const text = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return text;
  }

  /** The code unit just before the one ending at pos (Go looks at the byte before a closing quote). */
  private escapedBefore(): boolean {
    return this.input[this.pos - 2] === "\\";
  }

  /** Parses the whole template into `root`; the error, if any. */
  parse(): string | undefined {
    /** The action being read; undefined between actions. */
    let action: ListNode | undefined;
    while (true) {
      if (!action) {
        const open = this.input.indexOf("{", this.pos);
        if (open < 0) {
          this.pos = this.input.length;
          if (this.pos > this.start) this.root.nodes.push({ type: "text", text: this.consume() });
          return undefined;
        }
        this.pos = open;
        if (this.pos > this.start) this.root.nodes.push({ type: "text", text: this.consume() });
        this.pos += 1;
        this.consume();
        action = { type: "list", nodes: [] };
        this.root.nodes.push(action);
        continue;
      }
      const error = this.step(action);
      if (error === null) action = undefined;
      else if (error !== undefined) return error;
    }
  }

  /** Reads one token of an action into `cur`: undefined to go on, null at the action's end, else the error. */
  private step(cur: ListNode): string | undefined | null {
    if (this.input.startsWith("}", this.pos)) {
      this.pos += 1;
      this.consume();
      return null;
    }
    if (this.input.startsWith("[?(", this.pos)) return this.filter(cur);
    if (this.input.startsWith("..", this.pos)) return this.recursive(cur);
    const r = this.next();
    if (r === EOF || r === 0x0d || r === 0x0a) return "unclosed action";
    if (r === 0x20 || r === 0x40 || r === 0x24) {
      // A space, `@` and `$` (the current object, where every step starts anyway) are skipped.
      this.consume();
      return undefined;
    }
    if (r === 0x5b) return this.array(cur);
    if (r === 0x22 || r === 0x27) return this.quote(cur, r);
    if (r === 0x2e) return this.field(cur);
    if (r === 0x2b || r === 0x2d || isDigit(r)) {
      this.backup();
      return this.number(cur);
    }
    if (isAlphaNumeric(r)) {
      this.backup();
      return this.word(cur);
    }
    return `unrecognized character in action: ${runeName(r)}`;
  }

  private word(cur: ListNode): undefined {
    while (!isTerminator(this.next()));
    this.backup();
    const value = this.consume();
    cur.nodes.push(value === "true" || value === "false" ? { type: "bool", value: value === "true" } : { type: "identifier", name: value });
    return undefined;
  }

  private recursive(cur: ListNode): string | undefined {
    if (cur.nodes[cur.nodes.length - 1]?.type === "recursive") return "invalid multiple recursive descent";
    this.pos += 2;
    this.consume();
    cur.nodes.push({ type: "recursive" });
    if (isAlphaNumeric(this.peek())) return this.field(cur);
    return undefined;
  }

  private number(cur: ListNode): string | undefined {
    const first = this.peek();
    if (first === 0x2b || first === 0x2d) this.next();
    while (true) {
      const r = this.next();
      if (r !== 0x2e && !isDigit(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    const int = atoi(value);
    if (int !== undefined) {
      cur.nodes.push({ type: "int", value: int });
      return undefined;
    }
    const float = parseFloat64(value);
    if (float !== undefined) {
      cur.nodes.push({ type: "float", value: float });
      return undefined;
    }
    return `cannot parse number ${value}`;
  }

  private array(cur: ListNode): string | undefined {
    while (true) {
      const r = this.next();
      if (r === EOF || r === 0x0a) return "unterminated array";
      if (r === 0x5d) break;
    }
    let text = this.consume().slice(1, -1);
    if (text === "*") text = ":";
    const parts = text.split(",");
    if (parts.length > 1) {
      const members: ListNode[] = [];
      for (const part of parts) {
        const member = parseAction(`[${trimSpaces(part)}]`);
        if (!member.ok) return member.error;
        members.push(member.root);
      }
      cur.nodes.push({ type: "union", members });
      return undefined;
    }
    const key = /^'([^']*)'$/.exec(text);
    if (key) {
      const path = parseAction(`.${key[1]}`);
      if (!path.ok) return path.error;
      cur.nodes.push(...path.root.nodes);
      return undefined;
    }
    const slice = /^(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?$/.exec(text);
    if (!slice) return `invalid array index ${text}`;
    const params: SliceParam[] = [];
    for (let i = 0; i < 3; i++) {
      let value = slice[i + 1] ?? "";
      if (value !== "") {
        if (i > 0) value = value.slice(1);
        if (i > 0 && value === "") {
          params.push({ value: 0n, known: false, derived: false });
          continue;
        }
        const n = atoi(value);
        if (n === undefined) return `array index ${value} is not a number`;
        params.push({ value: n, known: true, derived: false });
      } else if (i === 1) {
        // A plain index [i] ends at i + 1 (wrapping as Go's int does).
        params.push({ value: BigInt.asIntN(64, params[0]!.value + 1n), known: true, derived: true });
      } else {
        params.push({ value: 0n, known: false, derived: false });
      }
    }
    cur.nodes.push({ type: "array", params: [params[0]!, params[1]!, params[2]!] });
    return undefined;
  }

  private filter(cur: ListNode): string | undefined {
    this.pos += 3;
    this.consume();
    let begin = false;
    let end = false;
    let pair = 0;
    while (true) {
      const r = this.next();
      if (r === EOF || r === 0x0a) return "unterminated filter";
      if (r === 0x22 || r === 0x27) {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (!this.escapedBefore() && r === pair) end = true;
      } else if (r === 0x29 && begin === end) break;
    }
    if (this.next() !== 0x5d) return "unclosed array expect ]";
    const text = this.consume().slice(0, -2);
    const comparison = /^([^!<>=]+)([!<>=]+)([^\n]+?)$/.exec(text);
    if (!comparison) {
      const operand = parseAction(text);
      if (!operand.ok) return operand.error;
      cur.nodes.push({ type: "filter", left: operand.root, right: { type: "list", nodes: [] }, operator: "exists" });
      return undefined;
    }
    const left = parseAction(comparison[1]!);
    if (!left.ok) return left.error;
    const right = parseAction(comparison[3]!);
    if (!right.ok) return right.error;
    cur.nodes.push({ type: "filter", left: left.root, right: right.root, operator: comparison[2]! });
    return undefined;
  }

  private quote(cur: ListNode, end: number): string | undefined {
    while (true) {
      const r = this.next();
      if (r === EOF || r === 0x0a) return "unterminated quoted string";
      if (r === end && !this.escapedBefore()) break;
    }
    const value = this.consume();
    const text = unquote(value);
    if (text === undefined) return `unquote string ${value} error invalid syntax`;
    cur.nodes.push({ type: "text", text });
    return undefined;
  }

  private field(cur: ListNode): undefined {
    this.consume();
    while (true) {
      const r = this.next();
      if (r === 0x5c) this.next();
      else if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consume();
    cur.nodes.push(value === "*" ? { type: "wildcard" } : { type: "field", name: value.replaceAll("\\", "") });
    return undefined;
  }
}

/** strings.Trim(s, " "). */
function trimSpaces(s: string): string {
  return s.replace(/^ +| +$/g, "");
}

/** A sub-expression, parsed as the action `{text}`: its first action's steps. */
function parseAction(text: string): ParseResult {
  const p = parse(`{${text}}`);
  if (!p.ok) return p;
  return { ok: true, root: p.root.nodes[0] as ListNode };
}

/** Parses a template (kubectl's JSONPath); its nodes, or client-go's error. */
export function parse(template: string): ParseResult {
  const p = new Parser(template);
  const error = p.parse();
  return error === undefined ? { ok: true, root: p.root } : { ok: false, error };
}

/** Node types, for tests and tools that print a tree. */
export type { Node };
