/**
 * The jq lexer: program text to the tokens of jq 1.8.2's scanner (`lexer.l`), with their character
 * offsets. As in jq, a string literal is several tokens (its start, runs of text or escapes,
 * interpolations with their own tokens, its end), brackets are matched here (a closing bracket that
 * does not close the innermost open one is an invalid character), and a comment runs to the end of the
 * line unless an odd number of backslashes ends it (Tcl-style continuation).
 */
import { decodeJsonString } from "./json-string.js";

/** The token kinds, named as jq's parser names them in its messages (`unexpected IDENT`). */
export type TokenKind =
  | "IDENT" // foo, foo::bar, true, null
  | "FIELD" // .foo (value: the name)
  | "BINDING" // $foo (value: the name without '$')
  | "LITERAL" // a number
  | "FORMAT" // @base64 (value: the name without '@')
  | "LOC" // $__loc__
  | "keyword" // if, then, def... (value: the word)
  | "op" // punctuation and operators (value: the text)
  | "QQSTRING_START"
  | "QQSTRING_TEXT" // value: the decoded text
  | "QQSTRING_INTERP_START"
  | "QQSTRING_INTERP_END"
  | "QQSTRING_END"
  | "INVALID_CHARACTER"
  | "eof";

export interface Token {
  kind: TokenKind;
  value: string;
  start: number;
  end: number;
  /** For QQSTRING_TEXT made of escapes that do not decode: jq's message (the token is then invalid). */
  error?: string;
}

/** The reserved words, as jq's scanner returns them (a longer identifier containing one is an IDENT). */
export const KEYWORDS: ReadonlySet<string> = new Set([
  "as",
  "import",
  "include",
  "module",
  "def",
  "if",
  "then",
  "else",
  "elif",
  "and",
  "or",
  "end",
  "reduce",
  "foreach",
  "try",
  "catch",
  "label",
  "break",
]);

// Longest first, so that the first match is the longest operator.
const OPERATORS = [
  "?//",
  "//=",
  "!=",
  "==",
  "//",
  "|=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "<=",
  ">=",
  "..",
  ".",
  "?",
  "=",
  ";",
  ",",
  ":",
  "|",
  "+",
  "-",
  "*",
  "/",
  "%",
  "$",
  "<",
  ">",
];

const isIdentStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isIdentPart = (c: number): boolean => isIdentStart(c) || (c >= 48 && c <= 57);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
const isAlnum = (c: number): boolean => isIdentPart(c) && c !== 95;

/** Scans an identifier (with `::` module separators) starting at `i`; returns its end. */
function scanIdent(text: string, i: number): number {
  let j = i;
  while (j < text.length && isIdentPart(text.charCodeAt(j))) j++;
  while (text.startsWith("::", j) && j + 2 < text.length && isIdentStart(text.charCodeAt(j + 2))) {
    j += 2;
    while (j < text.length && isIdentPart(text.charCodeAt(j))) j++;
  }
  return j;
}

/** What an open bracket expects: the lexer's state stack of jq (`enter`/`try_exit`). */
type Open = "(" | "[" | "{" | "interp" | "string";
const CLOSER: Record<string, Open> = { ")": "(", "]": "[", "}": "{" };

/**
 * Splits `text` into jq's tokens. The last token is `eof`; its span is that of the last thing the
 * scanner matched (a token, a run of blanks, a comment character), which is where jq reports an
 * unexpected end of file.
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const stack: Open[] = [];
  const n = text.length;
  let i = 0;
  let lastStart = 0;
  let lastEnd = 0;
  const matched = (start: number, end: number): void => {
    lastStart = start;
    lastEnd = end;
  };
  const push = (kind: TokenKind, value: string, start: number, end: number): void => {
    tokens.push({ kind, value, start, end });
    matched(start, end);
  };
  while (i < n) {
    const top = stack[stack.length - 1];
    if (top === "string") {
      i = stringPart(text, i, stack, tokens, matched);
      continue;
    }
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      const start = i;
      while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
      matched(start, i);
      continue;
    }
    if (c === 35 /* # */) {
      matched(i, i + 1);
      i = comment(text, i + 1, matched);
      continue;
    }
    const start = i;
    if (c === 34 /* " */) {
      stack.push("string");
      push("QQSTRING_START", '"', i, i + 1);
      i++;
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)))) {
      let j = i;
      while (j < n && isDigit(text.charCodeAt(j))) j++;
      if (text[j] === ".") {
        j++;
        while (j < n && isDigit(text.charCodeAt(j))) j++;
      }
      if (text[j] === "e" || text[j] === "E") {
        let k = j + 1;
        if (text[k] === "+" || text[k] === "-") k++;
        if (isDigit(text.charCodeAt(k))) {
          while (k < n && isDigit(text.charCodeAt(k))) k++;
          j = k;
        }
      }
      push("LITERAL", text.slice(i, j), start, j);
      i = j;
      continue;
    }
    if (isIdentStart(c)) {
      const j = scanIdent(text, i);
      const word = text.slice(i, j);
      push(KEYWORDS.has(word) ? "keyword" : "IDENT", word, start, j);
      i = j;
      continue;
    }
    if (c === 36 /* $ */ && isIdentStart(text.charCodeAt(i + 1))) {
      const j = scanIdent(text, i + 1);
      const name = text.slice(i + 1, j);
      push(name === "__loc__" ? "LOC" : "BINDING", name, start, j);
      i = j;
      continue;
    }
    if (c === 64 /* @ */ && isIdentPart(text.charCodeAt(i + 1))) {
      let j = i + 1;
      while (j < n && isIdentPart(text.charCodeAt(j))) j++;
      push("FORMAT", text.slice(i + 1, j), start, j);
      i = j;
      continue;
    }
    if (c === 46 /* . */ && isIdentStart(text.charCodeAt(i + 1))) {
      let j = i + 1;
      while (j < n && isIdentPart(text.charCodeAt(j))) j++;
      push("FIELD", text.slice(i + 1, j), start, j);
      i = j;
      continue;
    }
    if (c === 40 || c === 91 || c === 123 /* ( [ { */) {
      stack.push(text[i] as Open);
      push("op", text[i]!, i, i + 1);
      i++;
      continue;
    }
    if (c === 41 || c === 93 || c === 125 /* ) ] } */) {
      const ch = text[i]!;
      if (top === CLOSER[ch]) {
        stack.pop();
        push("op", ch, i, i + 1);
      } else if (top === "interp" && ch === ")") {
        stack.pop();
        push("QQSTRING_INTERP_END", ")", i, i + 1);
      } else {
        push("INVALID_CHARACTER", ch, i, i + 1);
      }
      i++;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (op) {
      push("op", op, i, i + op.length);
      i += op.length;
      continue;
    }
    // One character (a whole surrogate pair counts as one, as jq's byte-wise scanner sees one UTF-8 sequence).
    // jq's token is its first byte: a token that ends inside a character ends half a unit into it,
    // which the carets under an error count as one byte (syntax-error.ts).
    const w = c >= 0xd800 && c <= 0xdbff && i + 1 < n ? 2 : 1;
    push("INVALID_CHARACTER", text.slice(i, i + w), i, c < 0x80 ? i + w : i + 0.5);
    i += w;
  }
  tokens.push({ kind: "eof", value: "", start: lastStart, end: lastEnd });
  return tokens;
}

/** Skips a comment body from `i` (after the `#`); returns the index after its end of line. */
function comment(text: string, i: number, matched: (s: number, e: number) => void): number {
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === "\\" && (text[i + 1] === "\\" || text[i + 1] === "\n")) {
      matched(i, i + 2);
      i += 2;
    } else if (c === "\\" && text[i + 1] === "\r" && text[i + 2] === "\n") {
      matched(i, i + 3);
      i += 3;
    } else if (c === "\n" || (c === "\r" && text[i + 1] === "\n")) {
      const end = c === "\n" ? i + 1 : i + 2;
      matched(i, end);
      return end;
    } else {
      matched(i, i + 1);
      i++;
    }
  }
  return i;
}

/** Inside a string literal at `i`: one token (text run, escape run, interpolation start or end quote). */
function stringPart(text: string, i: number, stack: Open[], tokens: Token[], matched: (s: number, e: number) => void): number {
  const n = text.length;
  const start = i;
  const c = text[i];
  if (c === '"') {
    stack.pop();
    tokens.push({ kind: "QQSTRING_END", value: '"', start, end: i + 1 });
    matched(start, i + 1);
    return i + 1;
  }
  if (c === "\\" && text[i + 1] === "(") {
    stack.push("interp");
    tokens.push({ kind: "QQSTRING_INTERP_START", value: "\\(", start, end: i + 2 });
    matched(start, i + 2);
    return i + 2;
  }
  if (c === "\\") {
    // A run of escapes other than `\(`: `\x` for any character but u and (, or `\u` with up to 4 alphanumerics.
    let j = i;
    while (j < n && text[j] === "\\" && text[j + 1] !== "(") {
      if (j + 1 >= n) break;
      if (text[j + 1] === "u") {
        let k = j + 2;
        while (k < j + 6 && k < n && isAlnum(text.charCodeAt(k))) k++;
        j = k;
      } else {
        const cc = text.charCodeAt(j + 1);
        j += cc >= 0xd800 && cc <= 0xdbff && j + 2 < n ? 3 : 2;
      }
    }
    if (j === i) {
      // A backslash at the very end of the text.
      tokens.push({ kind: "INVALID_CHARACTER", value: "\\", start, end: i + 1 });
      matched(start, i + 1);
      return i + 1;
    }
    const run = text.slice(i, j);
    const decoded = decodeEscapes(run);
    const token: Token = { kind: "QQSTRING_TEXT", value: typeof decoded === "string" ? decoded : "", start, end: j };
    if (typeof decoded !== "string") token.error = decoded.error;
    tokens.push(token);
    matched(start, j);
    return j;
  }
  let j = i;
  while (j < n && text[j] !== "\\" && text[j] !== '"') j++;
  tokens.push({ kind: "QQSTRING_TEXT", value: text.slice(i, j), start, end: j });
  matched(start, j);
  return j;
}

/** UTF-8 width of the UTF-16 unit `c` (a surrogate is half of a 4-byte sequence). */
function utf8Width(c: number): number {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
}

/**
 * Decodes a run of escapes as jq does: the run, put between quotes, is read by its JSON parser. On
 * failure, jq's message, e.g. `Invalid escape at line 1, column 4 (while parsing '"\v"')`.
 */
function decodeEscapes(run: string): string | { error: string } {
  const decoded = decodeJsonString(run);
  if (typeof decoded === "string") return decoded;
  const failure = decoded.error;
  const n = run.length;
  // jq's JSON parser finds the failure at the closing quote: its line and column after reading the run.
  let line = 1;
  let column = 1;
  for (let k = 0; k < n; k++) {
    const c = run.charCodeAt(k);
    if (c === 10) {
      line++;
      column = 0;
    } else column += c >= 0xdc00 && c <= 0xdfff ? 0 : c >= 0xd800 && c <= 0xdbff ? 4 : utf8Width(c);
  }
  column++;
  return { error: `${failure} at line ${line}, column ${column} (while parsing '"${run}"')` };
}
