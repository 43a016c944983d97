/**
 * The jq lexer: program text to tokens with their character offsets.
 * String literals are lexed as a whole; their interpolations `\(...)` are lexed recursively by the parser.
 */
import { JqSyntaxError } from "./syntax-error.js";

export type TokenKind =
  | "ident" // foo, foo::bar
  | "field" // .foo
  | "var" // $foo (value is the name without '$')
  | "format" // @base64
  | "number"
  | "string" // value: raw source between the quotes (escapes and \( kept)
  | "keyword"
  | "op" // punctuation and operators
  | "eof";

export interface Token {
  kind: TokenKind;
  value: string;
  start: number;
  end: number;
}

export const KEYWORDS = new Set([
  "def",
  "if",
  "then",
  "elif",
  "else",
  "end",
  "as",
  "reduce",
  "foreach",
  "try",
  "catch",
  "label",
  "import",
  "include",
  "and",
  "or",
  "__loc__",
]);

// Longest first, so that the first match is the longest operator.
const OPERATORS = [
  "?//",
  "|=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "//=",
  "==",
  "!=",
  "<=",
  ">=",
  "//",
  "..",
  ".",
  "[",
  "]",
  "{",
  "}",
  "(",
  ")",
  "|",
  ",",
  "+",
  "-",
  "*",
  "/",
  "%",
  "=",
  "<",
  ">",
  ":",
  ";",
  "?",
];

const isIdentStart = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isIdentPart = (c: number): boolean => isIdentStart(c) || (c >= 48 && c <= 57);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

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

/** Finds the end of a string literal whose opening quote is at `start` (returns the index after the closing quote). */
export function scanString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') return i + 1;
    if (c === "\\") {
      if (text[i + 1] === "(") {
        i = scanInterpolation(text, i + 2);
        continue;
      }
      i += 2;
      continue;
    }
    i++;
  }
  throw new JqSyntaxError("unterminated string literal", text, start);
}

/** Skips a `\( ... )` interpolation body starting after the `(`; returns the index after the matching `)`. */
function scanInterpolation(text: string, i: number): number {
  let depth = 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i = scanString(text, i);
      continue;
    }
    if (c === "#") {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")") {
      depth--;
      if (depth === 0) return i + 1;
    }
    i++;
  }
  throw new JqSyntaxError("unterminated string interpolation", text, i);
}

/** Splits `text[from, to)` into tokens. */
export function tokenize(text: string, from = 0, to = text.length): Token[] {
  const tokens: Token[] = [];
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      continue;
    }
    if (c === 35 /* # */) {
      // A comment runs to the end of the line; jq 1.7 lets a backslash continue it onto the next line.
      while (i < to && text[i] !== "\n") {
        if (text[i] === "\\" && text[i + 1] === "\r" && text[i + 2] === "\n") i += 2;
        else if (text[i] === "\\" && text[i + 1] === "\n") i++;
        i++;
      }
      continue;
    }
    const start = i;
    if (c === 34 /* " */) {
      const end = scanString(text, i);
      if (end > to) throw new JqSyntaxError("unterminated string literal", text, start);
      tokens.push({ kind: "string", value: text.slice(i + 1, end - 1), start, end });
      i = end;
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)))) {
      let j = i;
      while (j < to && isDigit(text.charCodeAt(j))) j++;
      if (text[j] === ".") {
        j++;
        while (j < to && isDigit(text.charCodeAt(j))) j++;
      }
      if (text[j] === "e" || text[j] === "E") {
        let k = j + 1;
        if (text[k] === "+" || text[k] === "-") k++;
        if (isDigit(text.charCodeAt(k))) {
          while (k < to && isDigit(text.charCodeAt(k))) k++;
          j = k;
        }
      }
      tokens.push({ kind: "number", value: text.slice(i, j), start, end: j });
      i = j;
      continue;
    }
    if (isIdentStart(c)) {
      const j = scanIdent(text, i);
      const word = text.slice(i, j);
      tokens.push({ kind: KEYWORDS.has(word) ? "keyword" : "ident", value: word, start, end: j });
      i = j;
      continue;
    }
    if (c === 36 /* $ */) {
      let j = i + 1;
      while (text[j] === " " || text[j] === "\t") j++; // jq allows `$ name`
      if (j < to && isIdentStart(text.charCodeAt(j))) {
        const k = scanIdent(text, j);
        tokens.push({ kind: "var", value: text.slice(j, k), start, end: k });
        i = k;
        continue;
      }
      throw new JqSyntaxError("syntax error, unexpected '$'", text, start);
    }
    if (c === 64 /* @ */) {
      const j = scanIdent(text, i + 1);
      if (j === i + 1) throw new JqSyntaxError("syntax error, unexpected '@'", text, start);
      tokens.push({ kind: "format", value: text.slice(i + 1, j), start, end: j });
      i = j;
      continue;
    }
    if (c === 46 /* . */ && i + 1 < to && isIdentStart(text.charCodeAt(i + 1))) {
      let j = i + 1;
      while (j < to && isIdentPart(text.charCodeAt(j))) j++;
      tokens.push({ kind: "field", value: text.slice(i + 1, j), start, end: j });
      i = j;
      continue;
    }
    const op = OPERATORS.find((o) => text.startsWith(o, i));
    if (!op || i + op.length > to) {
      throw new JqSyntaxError(
        `syntax error, unexpected INVALID_CHARACTER (Unix shell quoting issues?)`,
        text,
        start,
      );
    }
    tokens.push({ kind: "op", value: op, start, end: i + op.length });
    i += op.length;
  }
  tokens.push({ kind: "eof", value: "", start: to, end: to });
  return tokens;
}
