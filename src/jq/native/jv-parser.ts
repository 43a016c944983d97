/**
 * JSON input as jq 1.8.2 reads it with `--seq` or `--stream`: jq's parser as the state machine over
 * characters it is (jv_parse.c), in its modes.
 * - `--seq` (JV_PARSE_SEQ): an RFC 7464 JSON text sequence, where each text starts with an RS (0x1e).
 *   The parser ignores everything before the first RS, reports a value cut short by an RS ("Truncated
 *   value", "Potentially truncated top-level numeric value"), drops silently a partial value that
 *   whitespace ended, and goes on after any error: nothing is fatal.
 * - `--stream` (JV_PARSE_STREAMING): stream events read straight from the text (jq's streaming parser,
 *   with its own messages), so that the events before an error are seen as jq sees them. Without --seq,
 *   an error throws the rest of the buffer (the line) away, as jq does.
 * - `--stream-errors` (JV_PARSE_STREAM_ERRORS): an error is the value `[message, path]`, the path where
 *   the parser stood, and reading goes on.
 *
 * The text comes in buffers ({@link JvParser.setBuffer}), as jq's parser gets the lines it reads, and
 * values come one at a time ({@link JvParser.next}); the parser keeps its state from one buffer to the
 * next (a value may span lines, or files). Lines and columns count as jq's do: columns in UTF-8 bytes.
 */
import { decodeJsonString } from "../json-string.js";
import { MAX_PARSING_DEPTH, byteWidth, isLiteralChar, literalValue, setKey } from "./json.js";

/** A parse error of the sequence: jq's message, with its position. Parsing goes on after it. */
export class JvParseError {
  constructor(readonly message: string) {}
}

/** What {@link JvParser.next} gives when its buffer is used up: the next buffer (or the end) is due. */
export const NEED_INPUT: unique symbol = Symbol("need input");
/** What {@link JvParser.finish} gives when the input ended with nothing pending. */
export const NO_MORE: unique symbol = Symbol("no more");

const RS = 0x1e;

/** jq's parser states: between tokens, in a string, after a backslash in a string, skipping to the next RS. */
const NORMAL = 0;
const STRING = 1;
const STRING_ESCAPE = 2;
const WAITING_FOR_RS = 3;

/** The streaming parser's last token (jq's enum last_seen). */
const LAST_NONE = 0;
const LAST_OPEN_ARRAY = 1;
const LAST_OPEN_OBJECT = 2;
const LAST_COLON = 3;
const LAST_COMMA = 4;
const LAST_VALUE = 5;

/** No value: jq's jv_invalid() in the parser's `next` and `output` slots. */
const NOTHING: unique symbol = Symbol("nothing");
/** The answer of {@link JvParser.scan} when a value is ready (possibly none, after an RS). */
const OK: unique symbol = Symbol("ok");

/** An object being read, with how many keys were set (jq's test is only whether there are any). */
interface ObjectFrame {
  o: Record<string, unknown>;
  n: number;
}
/** The non-streaming parser's stack: open arrays, open objects, and pending object keys. */
type Frame = unknown[] | ObjectFrame | string;

/** The character classes of jq's parser (0: literal). */
const LITERAL = 0;
const WHITESPACE = 1;
const STRUCTURE = 2;
const QUOTE = 3;

/** A character a string's run takes as it is (not its end, an escape, an RS or a line break). */
const isPlainInString = (c: number): boolean => c !== 0x22 && c !== 0x5c && c !== RS && c !== 0x0a;
/** A character of a literal's run (an RS ends it). */
const isPlainLiteral = (c: number): boolean => c !== RS && classify(c) === LITERAL;

function classify(c: number): number {
  if (isLiteralChar(c)) return LITERAL;
  if (c === 0x22) return QUOTE;
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a ? WHITESPACE : STRUCTURE;
}

/** jq's parser flags: JV_PARSE_SEQ, JV_PARSE_STREAMING, JV_PARSE_STREAM_ERRORS. */
export interface ParserModes {
  seq: boolean;
  streaming: boolean;
  streamErrors?: boolean;
}

/** jq 1.8.2's JSON parser (its struct jv_parser) in the modes of --seq, --stream and --stream-errors. */
export class JvParser {
  private text = "";
  private pos = 0;
  private end = 0;
  private st: number;
  private lastWs = false;
  private eof = false;
  /** The literal token, or the string's text (escapes undecoded) read so far: jq's token buffer. */
  private tok = "";
  private nextValue: unknown = NOTHING;
  private out: unknown = NOTHING;
  private line = 1;
  private col = 0;
  /** Non-streaming: the open containers and keys. */
  private stack: Frame[] = [];
  /** Streaming: the path to the current value, the last token, and an event waiting to be given. */
  private path: unknown[] = [];
  private lastSeen = LAST_NONE;
  private output: unknown[] | typeof NOTHING = NOTHING;

  private readonly seq: boolean;
  private readonly streaming: boolean;
  private readonly streamErrors: boolean;

  constructor(modes: ParserModes) {
    this.seq = modes.seq;
    this.streaming = modes.streaming || modes.streamErrors === true;
    this.streamErrors = modes.streamErrors === true;
    this.st = this.seq ? WAITING_FOR_RS : NORMAL;
  }

  /** The next text to read, `text[start..end)`; the previous one must be used up. */
  setBuffer(text: string, start: number, end: number): void {
    this.text = text;
    this.pos = start;
    this.end = end;
  }

  /** Whether no value is partly read, so that a line holding one whole text may be read at once. */
  idle(): boolean {
    return (
      !this.eof &&
      (this.st === NORMAL || this.st === WAITING_FOR_RS) &&
      this.tok === "" &&
      this.nextValue === NOTHING &&
      this.stack.length === 0 &&
      this.path.length === 0 &&
      this.output === NOTHING
    );
  }

  /**
   * A line `RS text \n` read at once (the caller parsed its one value): the state after it, as if its
   * characters had been read one by one (the newline last).
   */
  readLine(): void {
    this.st = NORMAL;
    this.lastWs = true;
    this.line++;
    this.col = 0;
  }

  /** The next value (a stream event when streaming) or parse error from the buffer, or NEED_INPUT. */
  next(): unknown {
    if (this.eof) return NEED_INPUT;
    if (this.streaming && this.streamCheckDone()) return this.take();
    const text = this.text;
    const end = this.end;
    while (this.pos < end) {
      const c = text.charCodeAt(this.pos);
      if (this.st === WAITING_FOR_RS) {
        // Skipping to the next RS: only lines and columns move.
        this.pos++;
        if (c === 0x0a) {
          this.line++;
          this.col = 0;
        } else {
          this.col += byteWidth(c);
          if (c === RS) this.st = NORMAL;
        }
        continue;
      }
      if (this.st === STRING && isPlainInString(c)) {
        // A run of a string's ordinary characters goes to the token at once.
        this.takeRun(isPlainInString);
        continue;
      }
      if (this.st === NORMAL && isPlainLiteral(c)) {
        // A run of a literal's characters (a number, true, false, null, or not a literal at all).
        this.takeRun(isPlainLiteral);
        continue;
      }
      this.pos++;
      const answer = this.scan(c);
      if (answer === undefined) continue;
      if (answer === OK) {
        // An RS that ended no value answers OK with none: read on.
        if (this.out === NOTHING) continue;
        return this.take();
      }
      // An error: the value read so far is dropped and parsing goes on after this character (in a
      // sequence) or with the next buffer (jq throws the rest of this one away).
      this.out = NOTHING;
      const error = this.error(this.seq && c !== RS ? `${answer} at line ${this.line}, column ${this.col} (need RS to resync)` : `${answer} at line ${this.line}, column ${this.col}`);
      this.reset();
      if (!this.seq) this.pos = this.end;
      return error;
    }
    return NEED_INPUT;
  }

  /** jq's make_error: a parse error, or with --stream-errors the value `[message, path]` (the path before the reset). */
  private error(message: string): JvParseError | unknown[] {
    return this.streamErrors ? [message, this.path.slice()] : new JvParseError(message);
  }

  /** At the end of the input: the last value, or what was left unfinished (as a parse error), or NO_MORE. */
  finish(): unknown {
    if (this.eof) return NO_MORE;
    this.eof = true;
    const at = `at EOF at line ${this.line}, column ${this.col}`;
    if (this.st === WAITING_FOR_RS) return this.error(`Unfinished abandoned text ${at}`);
    const failed = (message: string): unknown => {
      const error = this.error(message);
      this.reset();
      return error;
    };
    if (this.st !== NORMAL) return failed(`Unfinished string ${at}`);
    const m = this.checkLiteral();
    if (m !== undefined) return failed(`${m} ${at}`);
    if (this.streaming ? this.path.length !== 0 : this.stack.length !== 0) return failed(`Unfinished JSON term ${at}`);
    let value = this.nextValue;
    this.nextValue = NOTHING;
    if (value === NOTHING) return NO_MORE;
    if (this.streaming) value = [this.path.slice(), value];
    if (this.seq && !this.lastWs && typeof value === "number") return this.error(`Potentially truncated top-level numeric value ${at}`);
    return value;
  }

  /** Adds to the token the run of characters from here that `plain` accepts, moving the column past them. */
  private takeRun(plain: (c: number) => boolean): void {
    const text = this.text;
    let p = this.pos + 1;
    let width = byteWidth(text.charCodeAt(this.pos));
    for (; p < this.end; p++) {
      const d = text.charCodeAt(p);
      if (!plain(d)) break;
      width += d < 0x80 ? 1 : byteWidth(d);
    }
    this.tok += text.slice(this.pos, p);
    this.col += width;
    this.pos = p;
    this.lastWs = false;
  }

  private take(): unknown {
    const v = this.out;
    this.out = NOTHING;
    return v;
  }

  /** jq's parser_reset: the partial value is dropped (the last character's whitespace flag stays). */
  private reset(): void {
    this.path = [];
    this.lastSeen = LAST_NONE;
    this.output = NOTHING;
    this.nextValue = NOTHING;
    this.stack = [];
    this.tok = "";
    this.st = NORMAL;
  }

  /** One character (the runs of {@link next} aside): OK when a value is ready, a message on an error. */
  private scan(c: number): string | typeof OK | undefined {
    if (c === 0x0a) {
      this.line++;
      this.col = 0;
    } else this.col += byteWidth(c);
    if (c === RS && this.seq) {
      if (this.checkTruncation()) {
        if (this.checkLiteral() === undefined && this.isTopNumber()) return "Potentially truncated top-level numeric value";
        return "Truncated value";
      }
      const m = this.checkLiteral();
      if (m !== undefined) return m;
      if (this.st === NORMAL && this.checkDone()) return OK;
      this.reset();
      this.out = NOTHING;
      return OK;
    }
    let answer: typeof OK | undefined;
    this.lastWs = false;
    if (this.st === NORMAL) {
      const cls = classify(c);
      if (cls === WHITESPACE) this.lastWs = true;
      if (cls !== LITERAL) {
        const m = this.checkLiteral();
        if (m !== undefined) return m;
        if (this.checkDone()) answer = OK;
      }
      if (cls === LITERAL) this.tok += String.fromCharCode(c);
      else if (cls === QUOTE) this.st = STRING;
      else if (cls === STRUCTURE) {
        const m = this.streaming ? this.streamToken(c) : this.token(c);
        if (m !== undefined) return m;
      }
      if (this.checkDone()) answer = OK;
    } else if (c === 0x22 && this.st === STRING) {
      const m = this.foundString();
      if (m !== undefined) return m;
      this.st = NORMAL;
      if (this.checkDone()) answer = OK;
    } else {
      this.tok += String.fromCharCode(c);
      this.st = c === 0x5c && this.st === STRING ? STRING_ESCAPE : STRING;
    }
    return answer;
  }

  /** Whether an RS here cuts a value short (jq: unless whitespace came just before it). */
  private checkTruncation(): boolean {
    const next = this.nextValue;
    if (this.streaming) {
      return this.path.length > 0 || typeof next === "number" || typeof next === "boolean" || next === null;
    }
    return !this.lastWs && (this.stack.length > 0 || this.tok !== "" || typeof next === "number");
  }

  private isTopNumber(): boolean {
    return (this.streaming ? this.path.length === 0 : this.stack.length === 0) && typeof this.nextValue === "number";
  }

  private checkDone(): boolean {
    if (!this.streaming) {
      if (this.stack.length === 0 && this.nextValue !== NOTHING) {
        this.out = this.nextValue;
        this.nextValue = NOTHING;
        return true;
      }
      return false;
    }
    return this.streamCheckDone();
  }

  /** A streaming event ready: a top-level scalar, or the event the last token made (in two parts at a container's end). */
  private streamCheckDone(): boolean {
    if (this.path.length === 0 && this.nextValue !== NOTHING) {
      this.out = [[], this.nextValue];
      this.nextValue = NOTHING;
      return true;
    }
    const output = this.output;
    if (output === NOTHING) return false;
    if (output.length > 2) {
      this.out = output.slice(0, 2);
      this.output = output.slice(0, 1);
    } else {
      this.out = output;
      this.output = NOTHING;
    }
    return true;
  }

  /** A value read: it must not follow another without a separator. */
  private value(v: unknown): string | undefined {
    if (this.streaming) {
      if (this.nextValue !== NOTHING || this.lastSeen === LAST_VALUE) return "Expected separator between values";
      this.lastSeen = this.path.length > 0 ? LAST_VALUE : LAST_NONE;
    } else if (this.nextValue !== NOTHING) return "Expected separator between values";
    this.nextValue = v;
    return undefined;
  }

  /** jq's check_literal: the token read so far as true, false, null or a number (even a string's text, at an RS). */
  private checkLiteral(): string | undefined {
    if (this.tok === "") return undefined;
    let v: unknown;
    try {
      v = literalValue(this.tok);
    } catch (m) {
      return m as string;
    }
    const m = this.value(v);
    if (m !== undefined) return m;
    this.tok = "";
    return undefined;
  }

  private foundString(): string | undefined {
    const decoded = decodeJsonString(this.tok);
    if (typeof decoded !== "string") return decoded.error;
    const m = this.value(decoded);
    if (m !== undefined) return m;
    this.tok = "";
    return undefined;
  }

  /** A structural character, building values (jq's parse_token). */
  private token(c: number): string | undefined {
    const st = this.stack;
    const top = st.length > 0 ? st[st.length - 1] : undefined;
    const next = this.nextValue;
    switch (c) {
      case 0x5b: // [
      case 0x7b: // {
        if (st.length >= MAX_PARSING_DEPTH) return "Exceeds depth limit for parsing";
        if (next !== NOTHING) return "Expected separator between values";
        st.push(c === 0x5b ? [] : { o: {}, n: 0 });
        return undefined;
      case 0x3a: // :
        if (next === NOTHING) return "Expected string key before ':'";
        if (top === undefined || !isObjectFrame(top)) return "':' not as part of an object";
        if (typeof next !== "string") return "Object keys must be strings";
        st.push(next);
        this.nextValue = NOTHING;
        return undefined;
      case 0x2c: // ,
        if (next === NOTHING) return "Expected value before ','";
        if (top === undefined) return "',' not as part of an object or array";
        if (Array.isArray(top)) {
          top.push(next);
          this.nextValue = NOTHING;
        } else if (typeof top === "string") {
          const obj = st[st.length - 2] as ObjectFrame;
          setKey(obj.o, top, next);
          obj.n++;
          st.pop();
          this.nextValue = NOTHING;
        } else return "Objects must consist of key:value pairs";
        return undefined;
      case 0x5d: // ]
        if (top === undefined || !Array.isArray(top)) return "Unmatched ']'";
        if (next !== NOTHING) top.push(next);
        else if (top.length !== 0) return "Expected another array element";
        st.pop();
        this.nextValue = top;
        return undefined;
      case 0x7d: {
        // }
        if (top === undefined) return "Unmatched '}'";
        if (next !== NOTHING) {
          if (typeof top !== "string") return "Objects must consist of key:value pairs";
          const obj = st[st.length - 2] as ObjectFrame;
          setKey(obj.o, top, next);
          obj.n++;
          st.pop();
        } else {
          if (!isObjectFrame(top)) return "Unmatched '}'";
          if (top.n !== 0) return "Expected another key-value pair";
        }
        this.nextValue = (st.pop() as ObjectFrame).o;
        return undefined;
      }
    }
    return undefined;
  }

  /** A structural character, making stream events (jq's stream_token). */
  private streamToken(c: number): string | undefined {
    const path = this.path;
    const depth = path.length;
    const last = depth > 0 ? path[depth - 1] : undefined;
    switch (c) {
      case 0x5b: // [
        if (this.nextValue !== NOTHING) return "Expected a separator between values";
        if (this.lastSeen === LAST_OPEN_OBJECT) return "Expected string key after '{', not '['";
        if (this.lastSeen === LAST_COMMA && typeof last !== "number") return "Expected string key after ',' in object, not '['";
        path.push(0);
        this.lastSeen = LAST_OPEN_ARRAY;
        return undefined;
      case 0x7b: // {
        if (this.lastSeen === LAST_VALUE) return "Expected a separator between values";
        if (this.lastSeen === LAST_OPEN_OBJECT) return "Expected string key after '{', not '{'";
        if (this.lastSeen === LAST_COMMA && typeof last !== "number") return "Expected string key after ',' in object, not '{'";
        path.push(null);
        this.lastSeen = LAST_OPEN_OBJECT;
        return undefined;
      case 0x3a: // :
        if (depth === 0 || typeof last === "number") return "':' not as part of an object";
        if (this.nextValue === NOTHING || this.lastSeen === LAST_NONE) return "Expected string key before ':'";
        if (typeof this.nextValue !== "string") return "Object keys must be strings";
        if (this.lastSeen !== LAST_VALUE) return "':' should follow a key";
        this.lastSeen = LAST_COLON;
        path[depth - 1] = this.nextValue;
        this.nextValue = NOTHING;
        return undefined;
      case 0x2c: // ,
        if (this.lastSeen !== LAST_VALUE) return "Expected value before ','";
        if (depth === 0) return "',' not as part of an object or array";
        if (typeof last === "number" || typeof last === "string") {
          if (this.nextValue !== NOTHING) {
            this.output = [path.slice(), this.nextValue];
            this.nextValue = NOTHING;
          }
          path[depth - 1] = typeof last === "number" ? last + 1 : null;
          this.lastSeen = LAST_COMMA;
          return undefined;
        }
        return "Objects must consist of key:value pairs";
      case 0x5d: {
        // ]
        if (depth === 0) return "Unmatched ']' at the top-level";
        if (this.lastSeen === LAST_COMMA) return "Expected another array element";
        if (typeof last !== "number") return "Unmatched ']' in the middle of an object";
        if (this.nextValue !== NOTHING) {
          this.output = [path.slice(), this.nextValue, true];
          this.nextValue = NOTHING;
        } else if (this.lastSeen !== LAST_OPEN_ARRAY) this.output = [path.slice()];
        path.pop();
        if (this.lastSeen === LAST_OPEN_ARRAY) this.output = [path.slice(), []];
        this.lastSeen = path.length === 0 ? LAST_NONE : LAST_VALUE;
        return undefined;
      }
      case 0x7d: {
        // }
        if (depth === 0) return "Unmatched '}' at the top-level";
        if (this.lastSeen === LAST_COMMA) return "Expected another key:value pair";
        if (typeof last === "number") return "Unmatched '}' in the middle of an array";
        if (this.nextValue !== NOTHING) {
          if (typeof last !== "string") return "Objects must consist of key:value pairs";
          this.output = [path.slice(), this.nextValue, true];
          this.nextValue = NOTHING;
        } else {
          if (this.lastSeen === LAST_COLON) return "Missing value in key:value pair";
          if (this.lastSeen === LAST_OPEN_ARRAY) return "Unmatched '}' in the middle of an array";
          if (this.lastSeen !== LAST_VALUE && this.lastSeen !== LAST_OPEN_OBJECT) return "Unmatched '}'";
          if (this.lastSeen !== LAST_OPEN_OBJECT) this.output = [path.slice()];
        }
        path.pop();
        if (this.lastSeen === LAST_OPEN_OBJECT) this.output = [path.slice(), {}];
        this.lastSeen = path.length === 0 ? LAST_NONE : LAST_VALUE;
        return undefined;
      }
    }
    return undefined;
  }
}

function isObjectFrame(f: Frame): f is ObjectFrame {
  return typeof f === "object" && !Array.isArray(f);
}
