/**
 * Source rewrite that gives a script run by Lua 5.4 the semantics of gopher-lua (Lua 5.1, every
 * number a float64), where the two languages differ in ways the prelude cannot reach at run time:
 *
 * - Number literals are floats (`1` becomes `1.0`), as every number is in gopher-lua: arithmetic
 *   never wraps around as 64-bit integers do, and `x % 0` is NaN instead of an error.
 * - Concatenation `a .. b` becomes a call of the prelude's concat function, which prints numbers as
 *   gopher-lua does (`10 / 2 .. ""` is "5", not "5.0") and fails with gopher-lua's message.
 * - `return f(x)` keeps the caller's frame (no tail call), so that errors raised by the prelude's
 *   library wrappers carry the script's line, as gopher-lua's Go functions' errors do; but where `f`
 *   names a function the script defines (`function f`, `local function f`, `f = function`), it stays
 *   a tail call, which replaces the caller's frame in gopher-lua too (its stack traceback shows it).
 * - String escapes gopher-lua's scanner does not know (`\x41`, `\u{41}`, `\z`) read as the escaped
 *   character, as gopher-lua reads them.
 * - Syntax gopher-lua rejects (`//`, bitwise operators, `<const>` attributes) is reported as a
 *   syntax error, in gopher-lua's format.
 * - A numeric for's init, limit and step go through the prelude's check that they are numbers.
 * - A multiple assignment to names where a later expression reads an earlier local target runs as
 *   gopher-lua compiles it (its issue #440): each local target takes its value at once
 *   (`a, b = b, a` leaves both equal). Table fields among the targets are not rewritten.
 *
 * Only tokens are inserted, never newlines, so line numbers in error messages stay the script's.
 * When the chunk does not parse as Lua 5.1, the source is returned unchanged and the compiler
 * reports the error.
 */

import { commentEnd, isDigit, isNamePart, isNameStart, longBracketEnd } from "./lexical.js";

/** The global through which rewritten concatenations reach the prelude's concat function. */
export const CONCAT_FUNCTION = "__karta_concat";
/** The global through which a numeric for's init, limit and step are checked to be numbers. */
export const FOR_FUNCTION = "__karta_for";
/** The global through which rewritten `return f(x)` statements pass their results on. */
export const PASS_FUNCTION = "__karta_pass";

/** The ordinary global that stands for a script's `_ENV`. */
const ENV_STANDIN = "__karta_ENV";

/**
 * The outcome of the rewrite: the source to compile (with, when it does not parse as Lua 5.1, the
 * error gopher-lua would report, for the compiler's error to be replaced by), or a syntax error
 * gopher-lua reports where Lua 5.4 would accept the chunk.
 */
export type Lua51Rewrite = { ok: true; source: string; syntaxError?: string; syntaxLine?: number } | { ok: false; error: string; line: number };

type Kind = "name" | "keyword" | "number" | "string" | "op" | "eof";

interface Token {
  kind: Kind;
  value: string;
  start: number;
  end: number;
  line: number;
  /** 1-based column of the token's last character (the column gopher-lua's errors name). */
  column: number;
}

interface Edit {
  pos: number;
  /** Characters replaced from pos (0 for an insertion). */
  remove: number;
  text: string;
  /** Order among edits at the same position: closing text first, then replacements, then opening text. */
  rank: number;
}

const KEYWORDS = new Set([
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
  "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
]);

/** Binary operators: [left priority, right priority], as in Lua 5.1's parser. */
const BINARY: Record<string, [number, number]> = {
  "+": [6, 6], "-": [6, 6], "*": [7, 7], "/": [7, 7], "%": [7, 7], "^": [10, 9], "..": [5, 4],
  "==": [3, 3], "~=": [3, 3], "<": [3, 3], "<=": [3, 3], ">": [3, 3], ">=": [3, 3], and: [2, 2], or: [1, 1],
};
const UNARY_PRIORITY = 8;

/** Escapes gopher-lua's scanner knows; any other escaped character stands for itself there. */
const KNOWN_ESCAPES = new Set(["a", "b", "f", "n", "r", "t", "v", "\\", '"', "'", "\n", "\r"]);

/** Where the chunk stops parsing, and gopher-lua's message for it. */
class SyntaxFailure extends Error {
  constructor(readonly token: Token | undefined, readonly reason = "syntax error") {
    super(reason);
  }

  /** gopher-lua's text: the token's line and column, or "at EOF". */
  get gopherMessage(): string {
    const t = this.token;
    if (t === undefined || t.kind === "eof") return `<string> at EOF:   ${this.reason}\n`;
    return `<string> line:${t.line}(column:${t.column}) near '${t.value}':   ${this.reason}\n`;
  }
}
class GopherSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

function gopherError(token: { line: number; column: number; value: string }, message: string): GopherSyntaxError {
  return new GopherSyntaxError(`<string> line:${token.line}(column:${token.column}) near '${token.value}':   ${message}\n`, token.line);
}

/** Splits the source into tokens, noting the edits of number literals and string escapes. */
function tokenize(source: string, edits: Edit[]): Token[] {
  const tokens: Token[] = [];
  const n = source.length;
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const push = (kind: Kind, value: string, start: number, end: number): void => {
    tokens.push({ kind, value, start, end, line, column: end - lineStart });
  };
  const newlines = (from: number, to: number): void => {
    for (let j = from; j < to; j++) {
      if (source.charCodeAt(j) === 10) {
        line++;
        lineStart = j + 1;
      }
    }
  };
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === 10) {
      line++;
      i++;
      lineStart = i;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 11 || c === 12) {
      i++;
      continue;
    }
    const comment = commentEnd(source, i);
    if (comment !== undefined) {
      if (comment < 0) throw new SyntaxFailure(undefined);
      newlines(i, comment);
      i = comment;
      continue;
    }
    if (c === 34 || c === 39) {
      let j = i + 1;
      while (j < n) {
        const d = source.charCodeAt(j);
        if (d === 92) {
          const escaped = source[j + 1] ?? "";
          if (escaped !== "" && !KNOWN_ESCAPES.has(escaped) && !isDigit(escaped.charCodeAt(0))) {
            // gopher-lua reads "\x" as "x": drop the backslash.
            edits.push({ pos: j, remove: 1, text: "", rank: 1 });
          }
          if (escaped === "\n") {
            line++;
            lineStart = j + 2;
          }
          j += 2;
          continue;
        }
        if (d === c) break;
        if (d === 10) {
          // A line break in a short string: gopher-lua reports what it read of the string.
          const read = source.slice(i + 1, j).replace(/\\(.)/g, "$1");
          throw gopherError({ line: line + 1, column: 0, value: read }, "unterminated string");
        }
        j++;
      }
      if (j >= n) throw new SyntaxFailure(undefined, "unterminated string");
      push("string", source.slice(i, j + 1), i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === 91) {
      const longEnd = longBracketEnd(source, i);
      if (longEnd !== undefined) {
        if (longEnd < 0) throw new SyntaxFailure(undefined, "unterminated string");
        const startLine = line;
        const startCol = longEnd - lineStart;
        newlines(i, longEnd);
        tokens.push({ kind: "string", value: source.slice(i, longEnd), start: i, end: longEnd, line: startLine, column: startCol });
        i = longEnd;
        continue;
      }
    }
    if (isNameStart(c)) {
      let j = i + 1;
      while (j < n && isNamePart(source.charCodeAt(j))) j++;
      const word = source.slice(i, j);
      // _ENV is an ordinary global name in Lua 5.1, not the environment.
      if (word === "_ENV") edits.push({ pos: i, remove: j - i, text: ENV_STANDIN, rank: 1 });
      push(KEYWORDS.has(word) ? "keyword" : "name", word, i, j);
      i = j;
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(source.charCodeAt(i + 1)))) {
      let j = i + 1;
      while (j < n) {
        const d = source.charCodeAt(j);
        if (isNamePart(d) || d === 46) j++;
        else if ((d === 43 || d === 45) && /[eEpP]/.test(source[j - 1] ?? "")) j++;
        else break;
      }
      const text = source.slice(i, j);
      const hexFloat = /^0[xX][0-9a-fA-F]*(?=[.pP])/.exec(text);
      if (hexFloat) {
        // gopher-lua's scanner reads hexadecimal digits only; the rest is a token its parser rejects.
        throw gopherError({ line, column: j - lineStart, value: text.slice(hexFloat[0].length) }, "syntax error");
      }
      // An integer literal becomes a float: every number is a float64 in gopher-lua.
      if (/^[0-9]+$/.test(text) || /^0[xX][0-9a-fA-F]+$/.test(text)) edits.push({ pos: j, remove: 0, text: ".0", rank: 0 });
      push("number", text, i, j);
      i = j;
      continue;
    }
    const two = source.slice(i, i + 2);
    const three = source.slice(i, i + 3);
    let op: string;
    if (three === "...") op = "...";
    else if (["==", "~=", "<=", ">=", "..", "::"].includes(two)) op = two;
    else if (two === "//" || two === "<<" || two === ">>") {
      // gopher-lua's scanner reads the first character alone; its parser rejects the second.
      throw gopherError({ line, column: i + 2 - lineStart, value: two[1]! }, "syntax error");
    } else op = source[i]!;
    if (op === "&" || op === "|") throw gopherError({ line, column: i + 1 - lineStart, value: op }, "Invalid token");
    if (op === "~") throw gopherError({ line, column: i + 1 - lineStart, value: op }, "Invalid '~' token");
    push("op", op, i, i + op.length);
    i += op.length;
  }
  tokens.push({ kind: "eof", value: "<eof>", start: n, end: n, line, column: n - lineStart });
  return tokens;
}

/** An expression with the tokens it spans (from, to: indices, `to` excluded). */
interface Expression extends Span {
  from: number;
  to: number;
}

/** The extent of a parsed expression, and whether it is a function call (of a plain name: `callee`). */
interface Span {
  start: number;
  end: number;
  call: boolean;
  callee?: string;
}

/**
 * The names the script binds to functions it defines, as dotted paths: `function f`, `function M.f`,
 * `function M:f` ("M:f"), `local function f`, `[local] f = function`, `M.f = function` (scopes aside).
 */
function scriptFunctionNames(tokens: readonly Token[]): Set<string> {
  const names = new Set<string>();
  const isOp = (t: Token | undefined, v: string): boolean => t !== undefined && (t.kind === "op" || t.kind === "keyword") && t.value === v;
  /** The dotted path of names starting at token i, and the index after it. */
  const path = (i: number): [string, number] | undefined => {
    if (tokens[i]?.kind !== "name") return undefined;
    let p = tokens[i]!.value;
    let j = i + 1;
    while ((isOp(tokens[j], ".") || isOp(tokens[j], ":")) && tokens[j + 1]?.kind === "name") {
      p += tokens[j]!.value + tokens[j + 1]!.value;
      j += 2;
    }
    return [p, j];
  };
  tokens.forEach((t, i) => {
    if (isOp(t, "function")) {
      const named = path(i + 1);
      if (named && isOp(tokens[named[1]], "(")) names.add(named[0]);
    } else if (t.kind === "name" && !isOp(tokens[i - 1], ".") && !isOp(tokens[i - 1], ":")) {
      const assigned = path(i);
      if (assigned && isOp(tokens[assigned[1]], "=") && isOp(tokens[assigned[1] + 1], "function")) names.add(assigned[0]);
    }
  });
  return names;
}

/** A recursive-descent parser of Lua 5.1 (with gopher-lua's goto and labels) that notes edits. */
class Parser {
  private i = 0;
  private readonly scriptFunctions: Set<string>;
  /** The local names in scope: per function being parsed, its blocks' names (innermost last). */
  private readonly functions: Set<string>[][] = [[]];
  /** Names the next block declares at its start (a for's variables, a function's parameters). */
  private pending: string[] = [];
  /** How many multiple assignments have been rewritten (their temporaries' names). */
  private assignments = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly edits: Edit[],
  ) {
    this.scriptFunctions = scriptFunctionNames(tokens);
  }

  private get tok(): Token {
    return this.tokens[this.i]!;
  }

  private is(value: string): boolean {
    const t = this.tok;
    return (t.kind === "op" || t.kind === "keyword") && t.value === value;
  }

  private next(): Token {
    const t = this.tok;
    if (t.kind !== "eof") this.i++;
    return t;
  }

  private fail(reason?: string): SyntaxFailure {
    return new SyntaxFailure(this.tok, reason);
  }

  private expect(value: string): Token {
    if (!this.is(value)) throw this.fail();
    return this.next();
  }

  private name(): Token {
    if (this.tok.kind !== "name") throw this.fail();
    return this.next();
  }

  chunk(): void {
    this.block();
    if (this.tok.kind !== "eof") throw this.fail();
  }

  private blockEnds(): boolean {
    const t = this.tok;
    return t.kind === "eof" || (t.kind === "keyword" && (t.value === "end" || t.value === "else" || t.value === "elseif" || t.value === "until"));
  }

  private block(): void {
    const blocks = this.functions[this.functions.length - 1]!;
    blocks.push(new Set(this.pending));
    this.pending = [];
    try {
      while (!this.blockEnds()) {
        if (this.is("return")) {
          this.returnStatement();
          return;
        }
        this.statement();
      }
    } finally {
      blocks.pop();
    }
  }

  private declare(names: readonly string[]): void {
    const blocks = this.functions[this.functions.length - 1]!;
    for (const name of names) blocks[blocks.length - 1]!.add(name);
  }

  /** Whether a name is a local variable of the function being parsed (not an upvalue, not a global). */
  private isLocal(name: string): boolean {
    return this.functions[this.functions.length - 1]!.some((block) => block.has(name));
  }

  private returnStatement(): void {
    this.next();
    if (!this.blockEnds() && !this.is(";")) {
      const list = this.expressionList();
      const only = list.length === 1 ? list[0]! : undefined;
      if (only?.call && !(only.callee !== undefined && this.scriptFunctions.has(only.callee))) {
        // Not a tail call: the script's frame stays, and with it the line errors report.
        this.edits.push({ pos: only.start, remove: 0, text: `${PASS_FUNCTION}(`, rank: 2 });
        this.edits.push({ pos: only.end, remove: 0, text: ")", rank: 0 });
      }
    }
    if (this.is(";")) this.next();
    if (!this.blockEnds()) throw this.fail();
  }

  private statement(): void {
    const t = this.tok;
    if (t.kind === "keyword") {
      switch (t.value) {
        case "if":
          this.next();
          this.expression();
          this.expect("then");
          this.block();
          while (this.is("elseif")) {
            this.next();
            this.expression();
            this.expect("then");
            this.block();
          }
          if (this.is("else")) {
            this.next();
            this.block();
          }
          this.expect("end");
          return;
        case "while":
          this.next();
          this.expression();
          this.expect("do");
          this.block();
          this.expect("end");
          return;
        case "do":
          this.next();
          this.block();
          this.expect("end");
          return;
        case "for": {
          this.next();
          const names = [this.name().value];
          if (this.is("=")) {
            this.next();
            this.forNumber("init");
            this.expect(",");
            this.forNumber("limit");
            if (this.is(",")) {
              this.next();
              this.forNumber("step");
            }
          } else {
            while (this.is(",")) {
              this.next();
              names.push(this.name().value);
            }
            this.expect("in");
            this.expressionList();
          }
          this.expect("do");
          this.pending = names;
          this.block();
          this.expect("end");
          return;
        }
        case "repeat":
          this.next();
          this.block();
          this.expect("until");
          this.expression();
          return;
        case "function": {
          this.next();
          this.name();
          while (this.is(".")) {
            this.next();
            this.name();
          }
          let method = false;
          if (this.is(":")) {
            this.next();
            this.name();
            method = true;
          }
          this.body(method);
          return;
        }
        case "local": {
          this.next();
          if (this.is("function")) {
            this.next();
            this.declare([this.name().value]);
            this.body();
            return;
          }
          const names = [this.localName()];
          while (this.is(",")) {
            this.next();
            names.push(this.localName());
          }
          if (this.is("=")) {
            this.next();
            this.expressionList();
          }
          this.declare(names);
          return;
        }
        case "break":
          this.next();
          return;
        case "goto":
          this.next();
          this.name();
          return;
        default:
          throw this.fail();
      }
    }
    if (this.is(";")) {
      this.next();
      return;
    }
    if (this.is("::")) {
      this.next();
      this.name();
      this.expect("::");
      return;
    }
    const from = this.i;
    const first = this.suffixedExpression();
    if (this.is("=") || this.is(",")) {
      const targets = [this.tokens[from]!];
      let names = this.i === from + 1 && this.tokens[from]!.kind === "name";
      while (this.is(",")) {
        this.next();
        const at = this.i;
        this.suffixedExpression();
        targets.push(this.tokens[at]!);
        names &&= this.i === at + 1 && this.tokens[at]!.kind === "name";
      }
      const equals = this.expect("=");
      const commas: Token[] = [];
      const value = (): Expression => {
        const from = this.i;
        const span = this.expression();
        return { ...span, from, to: this.i };
      };
      const values = [value()];
      while (this.is(",")) {
        commas.push(this.next());
        values.push(value());
      }
      if (names && targets.length > 1) this.multipleAssignment(targets, equals, values, commas);
    } else if (!first.call) {
      // gopher-lua's grammar takes any expression here and rejects it afterwards.
      throw this.fail("parse error");
    }
  }

  /**
   * `a, b = e1, e2` as gopher-lua compiles it (its issue #440): the value of each expression is
   * stored in its target at once when the target is a local of this function (unless the expression
   * is the last one and a call or `...`), so a later expression reads the new value; other targets
   * are stored at the end, last first. Rewritten (`do a = e1; local v2 = e2; b = v2 end`) only where
   * that is seen: a later expression names an earlier local target. Targets are plain names, as many
   * as the expressions.
   */
  private multipleAssignment(targets: readonly Token[], equals: Token, values: readonly Expression[], commas: readonly Token[]): void {
    if (values.length !== targets.length) return;
    const last = values[values.length - 1]!;
    const lastSpreads = last.call || (last.to === last.from + 1 && this.tokens[last.from]!.value === "...");
    const immediate = targets.map((t, k) => this.isLocal(t.value) && !(k === values.length - 1 && lastSpreads));
    /** Whether an expression names a variable (a name not after `.` or `:`; a key of a constructor counts: no harm). */
    const names = (v: Expression, name: string): boolean => {
      for (let j = v.from; j < v.to; j++) {
        const u = this.tokens[j]!;
        const before = this.tokens[j - 1]!;
        if (u.kind === "name" && u.value === name && !(before.kind === "op" && (before.value === "." || before.value === ":"))) return true;
      }
      return false;
    };
    const seen = targets.some((t, k) => immediate[k] && values.slice(k + 1).some((v) => names(v, t.value)));
    if (!seen) return;
    const n = ++this.assignments;
    const temp = (k: number): string => `__karta_assign${n}_${k}`;
    const store = (k: number): string => (immediate[k] ? `${targets[k]!.value} =` : `local ${temp(k)} =`);
    this.edits.push({ pos: targets[0]!.start, remove: equals.end - targets[0]!.start, text: `do ${store(0)}`, rank: 1 });
    commas.forEach((c, k) => this.edits.push({ pos: c.start, remove: c.end - c.start, text: `; ${store(k + 1)}`, rank: 1 }));
    const deferred = targets.map((t, k) => (immediate[k] ? "" : `; ${t.value} = ${temp(k)}`)).reverse().join("");
    this.edits.push({ pos: last.end, remove: 0, text: `${deferred} end`, rank: 0 });
  }

  /**
   * A numeric for's init, limit or step, checked to be a number as gopher-lua checks it. The opening
   * edit is noted before the expression's own, so that it encloses them.
   */
  private forNumber(part: "init" | "limit" | "step"): void {
    const open: Edit = { pos: this.tok.start, remove: 0, text: `${FOR_FUNCTION}("${part}", `, rank: 2 };
    this.edits.push(open);
    const span = this.expression();
    this.edits.push({ pos: span.end, remove: 0, text: ")", rank: 0 });
  }

  /** A local's name; Lua 5.4's attributes (`<const>`, `<close>`) are a syntax error in gopher-lua. */
  private localName(): string {
    const name = this.name().value;
    if (this.is("<")) throw gopherError(this.tok, "syntax error");
    return name;
  }

  private body(method = false): void {
    this.expect("(");
    const parameters = method ? ["self"] : [];
    if (!this.is(")")) {
      for (;;) {
        if (this.is("...")) {
          this.next();
          break;
        }
        parameters.push(this.name().value);
        if (!this.is(",")) break;
        this.next();
      }
    }
    this.expect(")");
    this.functions.push([]);
    this.pending = parameters;
    try {
      this.block();
    } finally {
      this.functions.pop();
    }
    this.expect("end");
  }

  private expressionList(): Span[] {
    const list = [this.expression()];
    while (this.is(",")) {
      this.next();
      list.push(this.expression());
    }
    return list;
  }

  private expression(): Span {
    return this.subexpression(0);
  }

  private subexpression(limit: number): Span {
    const t = this.tok;
    let left: Span;
    if (this.is("not") || this.is("-") || this.is("#")) {
      this.next();
      const operand = this.subexpression(UNARY_PRIORITY);
      left = { start: t.start, end: operand.end, call: false };
    } else {
      left = this.simpleExpression();
    }
    for (;;) {
      const op = this.tok;
      const priority = (op.kind === "op" || op.kind === "keyword") && Object.hasOwn(BINARY, op.value) ? BINARY[op.value]! : undefined;
      if (priority === undefined || priority[0] <= limit) break;
      this.next();
      const right = this.subexpression(priority[1]);
      if (op.value === "..") {
        // (concat((a), (b))): parenthesized, so that it is never a tail call and each operand is one value.
        this.edits.push({ pos: left.start, remove: 0, text: `(${CONCAT_FUNCTION}((`, rank: 2 });
        this.edits.push({ pos: op.start, remove: op.end - op.start, text: "), (", rank: 1 });
        this.edits.push({ pos: right.end, remove: 0, text: ")))", rank: 0 });
      }
      left = { start: left.start, end: right.end, call: false };
    }
    return left;
  }

  private simpleExpression(): Span {
    const t = this.tok;
    if (t.kind === "number" || t.kind === "string" || this.is("nil") || this.is("true") || this.is("false") || this.is("...")) {
      this.next();
      return { start: t.start, end: t.end, call: false };
    }
    if (this.is("{")) return this.constructor_();
    if (this.is("function")) {
      this.next();
      this.body();
      return { start: t.start, end: this.tokens[this.i - 1]!.end, call: false };
    }
    return this.suffixedExpression();
  }

  private suffixedExpression(): Span {
    const start = this.tok.start;
    // The callee as a dotted path (`f`, `M.f`, `M:f`), while the suffixes are names.
    let name: string | undefined;
    let calls = 0;
    if (this.tok.kind === "name") {
      name = this.next().value;
    } else if (this.is("(")) {
      this.next();
      this.expression();
      this.expect(")");
    } else {
      throw this.fail();
    }
    let call = false;
    for (;;) {
      if (this.is(".")) {
        this.next();
        const field = this.name().value;
        if (name !== undefined && calls === 0) name += `.${field}`;
        call = false;
      } else if (this.is("[")) {
        this.next();
        this.expression();
        this.expect("]");
        name = undefined;
        call = false;
      } else if (this.is(":")) {
        this.next();
        const method = this.name().value;
        if (name !== undefined && calls === 0) name += `:${method}`;
        this.callArguments();
        call = true;
        calls++;
      } else if (this.is("(") || this.is("{") || this.tok.kind === "string") {
        this.callArguments();
        call = true;
        calls++;
      } else {
        break;
      }
    }
    const span: Span = { start, end: this.tokens[this.i - 1]!.end, call };
    if (call && name !== undefined && calls === 1) span.callee = name;
    return span;
  }

  private callArguments(): void {
    if (this.tok.kind === "string") {
      this.next();
    } else if (this.is("{")) {
      this.constructor_();
    } else {
      this.expect("(");
      if (!this.is(")")) this.expressionList();
      this.expect(")");
    }
  }

  private constructor_(): Span {
    const start = this.expect("{").start;
    while (!this.is("}")) {
      if (this.is("[")) {
        this.next();
        this.expression();
        this.expect("]");
        this.expect("=");
        this.expression();
      } else if (this.tok.kind === "name" && this.tokens[this.i + 1]?.kind === "op" && this.tokens[this.i + 1]!.value === "=") {
        this.next();
        this.next();
        this.expression();
      } else {
        this.expression();
      }
      if (!this.is(",") && !this.is(";")) break;
      this.next();
      // gopher-lua's grammar takes several separators in a row; Lua 5.4 one, so the others go.
      while (this.is(",") || this.is(";")) {
        const extra = this.next();
        this.edits.push({ pos: extra.start, remove: 1, text: "", rank: 1 });
      }
    }
    const end = this.expect("}").end;
    return { start, end, call: false };
  }
}

/**
 * Rewrites a chunk for gopher-lua semantics (see the module comment). Returns the source unchanged
 * when it does not parse, and gopher-lua's syntax error for syntax only Lua 5.2+ accepts.
 */
export function rewriteForGopherLua(source: string): Lua51Rewrite {
  const edits: Edit[] = [];
  try {
    const tokens = tokenize(source, edits);
    new Parser(tokens, edits).chunk();
  } catch (e) {
    if (e instanceof GopherSyntaxError) return { ok: false, error: e.message, line: e.line };
    if (e instanceof SyntaxFailure) return { ok: true, source, syntaxError: e.gopherMessage, syntaxLine: e.token?.line ?? source.split("\n").length };
    throw e;
  }
  if (edits.length === 0) return { ok: true, source };
  edits.sort((a, b) => a.pos - b.pos || a.rank - b.rank);
  const out: string[] = [];
  let copied = 0;
  for (const e of edits) {
    out.push(source.slice(copied, e.pos), e.text);
    copied = e.pos + e.remove;
  }
  out.push(source.slice(copied));
  return { ok: true, source: out.join("") };
}
