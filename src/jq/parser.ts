/**
 * The jq parser: tokens to an AST with source spans, following jq 1.8.2's grammar (`parser.y`).
 *
 * A program is a *query*: `def`s, `expr as $p | query` and `label $x | query` (each extending as far
 * right as it can), queries joined by `,` and then `|` (right). An *expression* is terms joined by
 * binary operators, loosest first: `//` (right), the assignments (non-associative), `or`, `and`, the
 * comparisons (non-associative), `+ -`, `* / %`. A *term* is a primary (`.`, a literal, `(query)`,
 * `[query]`, `{...}`, `-term`, `reduce`, `foreach`, `if`, `try`, a call...) with its suffixes (`.a`,
 * `[e]`, `[]`, `[a:b]`, `?`). `reduce`/`foreach` take an expression as source, `try`/`catch` a term,
 * and an object value is expressions joined by `|`.
 *
 * Syntax errors carry jq's messages: `syntax error, unexpected X, expecting Y` with the tokens bison
 * lists where there are at most four, at jq's positions, and the further error jq reports from its
 * error recovery (an unterminated `if` or `try`, a `break` without label, an object key that needs
 * parentheses).
 */
import type { Node, ObjectEntry, ObjectPatternEntry, Pattern, Span } from "./ast.js";
import { tokenize, Token } from "./lexer.js";
import { JqSyntaxError, lineColumn } from "./syntax-error.js";

/** How deeply a program may nest before it is rejected (keeps the parser and compiler off the JS stack limit). */
export const MAX_NESTING = 400;

// From loosest to tightest.
const LEVELS: { ops: readonly string[]; assoc: "left" | "right" | "none" }[] = [
  { ops: ["//"], assoc: "right" },
  { ops: ["=", "|=", "+=", "-=", "*=", "/=", "%=", "//="], assoc: "none" },
  { ops: ["or"], assoc: "left" },
  { ops: ["and"], assoc: "left" },
  { ops: ["==", "!=", "<", "<=", ">", ">="], assoc: "none" },
  { ops: ["+", "-"], assoc: "left" },
  { ops: ["*", "/", "%"], assoc: "left" },
];

/** What may follow a term (jq's parser refuses anything else right after a bare `.`). */
const TERM_FOLLOW = new Set([
  "eof", "|", ",", "//", "=", "|=", "+=", "-=", "*=", "/=", "%=", "//=", "or", "and", "==", "!=", "<", "<=", ">", ">=",
  "+", "-", "*", "/", "%", "?", ".", "[", "FIELD", "as", ")", "]", "}", ";", ":", "then", "elif", "else", "end", "catch",
  "QQSTRING_INTERP_END", "QQSTRING_START", "FORMAT",
]);

/** The tokens bison lists after `expecting` in each place (in its symbol order). */
const AFTER_QUERY = {
  top: ["end of file"],
  paren: ["'|'", "','", "')'"],
  array: ["'|'", "','", "']'"],
  index: ["'|'", "','", "':'", "']'"],
  slice: ["'|'", "','", "']'"],
  cond: ["then", "'|'", "','"],
  else: ["end", "'|'", "','"],
  init: ["'|'", "','", "';'"],
  update: ["'|'", "','", "')'"],
  foreachUpdate: ["'|'", "','", "';'", "')'"],
  arg: ["';'", "')'"],
  def: ["'|'", "','", "';'"],
  interp: ["QQSTRING_INTERP_END", "'|'", "','"],
  module: ["'|'", "','", "';'"],
} as const;
const PATTERN_START = ["BINDING", "'['", "'{'"];

/** A place where jq's grammar recovers from a syntax error, which may add a second message. */
type Recovery =
  | { kind: "if" | "try" | "silent"; start: number }
  | { kind: "object"; start: number; afterComma: boolean; entry: number }
  | { kind: "objectPattern"; start: number; entry: number };

/** Parses a jq program into its AST. Throws {@link JqSyntaxError} with jq's message and position. */
export function parseJq(text: string): Node {
  return new Parser(text, tokenize(text)).parseProgram();
}

class Parser {
  private pos = 0;
  private depth = 0;
  private readonly recovery: Recovery[] = [];

  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
  ) {}

  parseProgram(): Node {
    this.parseModuleDirectives();
    if (this.peek().kind === "eof") throw this.noProgram();
    const node = this.parseQuery(AFTER_QUERY.top, true);
    const t = this.peek();
    if (t.kind !== "eof") this.unexpected(t, AFTER_QUERY.top);
    return node;
  }

  /** jq refuses a program without a main expression (empty, comments only, definitions only). */
  private noProgram(): JqSyntaxError {
    return new JqSyntaxError('Top-level program not given (try ".")', this.text, -1);
  }

  /** `module <const>;` (checked, then ignored) and `import`/`include` (checked, then refused: no file access). */
  private parseModuleDirectives(): void {
    if (this.isKeyword("module")) {
      this.next();
      const meta = this.parseQuery(AFTER_QUERY.module);
      this.checkMetadata(meta);
      this.expectOp(";", AFTER_QUERY.module);
    }
    while (this.isKeyword("import") || this.isKeyword("include")) {
      const t = this.next();
      const path = this.peek();
      if (path.kind !== "QQSTRING_START" && path.kind !== "FORMAT") this.unexpected(path, ["FORMAT", "QQSTRING_START"]);
      const pathNode = this.parseString(this.next(), true);
      if (pathNode.type !== "Literal") throw new JqSyntaxError("Import path must be constant", this.text, pathNode.span.start, pathNode.span.end);
      if (t.value === "import") {
        this.expectKeyword("as", ["as"]);
        const name = this.next();
        if (name.kind !== "IDENT" && name.kind !== "BINDING") this.unexpected(name, ["IDENT", "BINDING"]);
      }
      if (!this.isOp(";")) this.checkMetadata(this.parseQuery(AFTER_QUERY.module));
      this.expectOp(";", ["';'"]);
      throw new JqSyntaxError(`${t.value} is not supported: Karta expressions cannot load modules`, this.text, t.start, path.end);
    }
  }

  private checkMetadata(meta: Node): void {
    const value = constantOf(meta);
    if (value === NOT_CONSTANT) throw new JqSyntaxError("Module metadata must be constant", this.text, meta.span.start, meta.span.end);
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new JqSyntaxError("Module metadata must be an object", this.text, meta.span.start, meta.span.end);
    }
  }

  // ---- tokens ----
  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }
  private next(): Token {
    const t = this.tokens[this.pos]!;
    if (this.pos < this.tokens.length - 1) this.pos++;
    return t;
  }
  private isOp(value: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === "op" && t.value === value;
  }
  private isKeyword(value: string): boolean {
    const t = this.peek();
    return t.kind === "keyword" && t.value === value;
  }
  private expectOp(value: string, expecting?: readonly string[]): Token {
    const t = this.next();
    if (t.kind !== "op" || t.value !== value) this.unexpected(t, expecting ?? [`'${value}'`]);
    return t;
  }
  private expectKeyword(value: string, expecting?: readonly string[]): Token {
    const t = this.next();
    if (t.kind !== "keyword" || t.value !== value) this.unexpected(t, expecting ?? [value]);
    return t;
  }
  private span(start: number): Span {
    return { start, end: this.tokens[Math.max(0, this.pos - 1)]!.end };
  }

  /** jq's `syntax error, unexpected X[, expecting A or B]`, with what jq's error recovery adds. */
  private unexpected(t: Token, expecting?: readonly string[]): never {
    let reason = `syntax error, unexpected ${tokenName(t)}`;
    if (expecting && expecting.length > 0 && expecting.length <= 4) reason += `, expecting ${expecting.join(" or ")}`;
    const more: { reason: string; offset: number; end: number }[] = [];
    const r = this.recovery[this.recovery.length - 1];
    if (r?.kind === "if" || r?.kind === "try") {
      more.push({ reason: `Possibly unterminated '${r.kind}' statement`, offset: r.start, end: t.end });
    } else if (r?.kind === "object" || r?.kind === "objectPattern") {
      // jq's parser skips to the next ':' and reads what follows as the value (or pattern) of a key it
      // could not read: the entry up to that ':'.
      const colon = this.colonAhead(this.tokens.indexOf(t), r.kind === "object" && !r.afterComma);
      if (colon > 0) {
        // The tokens skipped to the ':' are all of an invalid character's bytes (jq's scanner makes a token of each).
        const end = r.kind === "object" ? Math.max(wholeEnd(t), wholeEnd(this.tokens[colon - 1]!)) : this.tokens[Math.min(colon + 1, this.tokens.length - 1)]!.end;
        more.push({ reason: "May need parentheses around object key expression", offset: Math.min(r.entry, t.start), end });
      }
    }
    throw new JqSyntaxError(reason, this.text, t.start, t.end, more);
  }

  /** The index of the first `:` at or after token `from` before the end (or, with `closeStops`, before a `}`); -1 if none. */
  private colonAhead(from: number, closeStops: boolean): number {
    for (let i = Math.max(0, from); i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      if (t.kind === "op" && t.value === ":") return i;
      if (t.kind === "eof" || (closeStops && t.kind === "op" && t.value === "}")) return -1;
    }
    return -1;
  }

  private enter(t: Token): void {
    if (++this.depth > MAX_NESTING) {
      throw new JqSyntaxError(`program nested more than ${MAX_NESTING} levels deep`, this.text, t.start, t.end);
    }
  }
  private leave(): void {
    this.depth--;
  }
  private within<T>(r: Recovery, f: () => T): T {
    this.recovery.push(r);
    try {
      return f();
    } finally {
      this.recovery.pop();
    }
  }

  // ---- queries ----
  /**
   * A query, to be followed by one of `follow` (what bison then expects: for the messages of errors
   * detected here). With `topLevel`, a run of definitions with nothing after it is jq's "no program".
   */
  parseQuery(follow: readonly string[], topLevel = false): Node {
    const first = this.peek();
    this.enter(first);
    try {
      const left = this.parseCommaList(follow, topLevel);
      if (this.isOp("|")) {
        this.next();
        const right = this.parseQuery(follow);
        return { type: "Pipe", left, right, span: { start: left.span.start, end: right.span.end } };
      }
      return left;
    } finally {
      this.leave();
    }
  }

  private parseCommaList(follow: readonly string[], topLevel: boolean): Node {
    let left = this.parseQueryItem(follow, topLevel);
    while (this.isOp(",")) {
      this.next();
      const right = this.parseQueryItem(follow, false);
      left = { type: "Comma", left, right, span: { start: left.span.start, end: right.span.end } };
    }
    return left;
  }

  /** `def ...; query`, `label $x | query`, `expr as $p | query`, or an expression. */
  private parseQueryItem(follow: readonly string[], topLevel: boolean): Node {
    const t = this.peek();
    if (t.kind === "keyword" && t.value === "def") {
      const def = this.parseFuncDef();
      if (topLevel && this.peek().kind === "eof") throw this.noProgram();
      const rest = this.parseQuery(follow, topLevel);
      return { ...def, rest, span: { start: t.start, end: rest.span.end } };
    }
    if (t.kind === "keyword" && t.value === "label") {
      this.next();
      const v = this.next();
      if (v.kind !== "BINDING") this.unexpected(v, ["BINDING"]);
      this.expectOp("|", ["'|'"]);
      const body = this.parseQuery(follow);
      return { type: "Label", name: v.value, body, span: { start: t.start, end: body.span.end } };
    }
    if (topLevel && !startsTerm(t)) this.unexpected(t, AFTER_QUERY.top);
    const expr = this.parseExpr(0);
    if (this.isKeyword("as")) {
      this.next();
      const patterns = this.parsePatterns();
      this.expectOp("|", ["'|'"]);
      const body = this.parseQuery(follow);
      return { type: "As", source: expr, patterns, body, span: { start: expr.span.start, end: body.span.end } };
    }
    return expr;
  }

  // ---- expressions ----
  private binaryOp(level: number): string | undefined {
    const t = this.peek();
    if (t.kind !== "op" && t.kind !== "keyword") return undefined;
    return LEVELS[level]!.ops.includes(t.value) ? t.value : undefined;
  }

  private parseExpr(level: number): Node {
    if (level >= LEVELS.length) return this.parseTerm();
    const { assoc } = LEVELS[level]!;
    let left = this.parseExpr(level + 1);
    for (;;) {
      const op = this.binaryOp(level);
      if (op === undefined) return left;
      this.next();
      const right = assoc === "right" ? this.parseExpr(level) : this.parseExpr(level + 1);
      left = makeBinary(op, left, right);
      if (assoc === "none" && this.binaryOp(level) !== undefined) this.unexpected(this.peek());
    }
  }

  // ---- terms ----
  /** A primary with its suffixes. */
  private parseTerm(): Node {
    const first = this.peek();
    this.enter(first);
    try {
      const start = first.start;
      let term = this.parsePrimary();
      // Whether the term ends with an access (`.a`, `."a"`, `[e]`, `[]`, `[a:b]`) that a `?` covers alone.
      // A parenthesized path (`(.a.b)`) is one term: a `?` after it covers all of it, as `try`.
      let access = !(first.kind === "op" && first.value === "(") && (term.type === "Index" || term.type === "Slice" || term.type === "Iterate");
      if (first.kind === "op" && first.value === "." && term.type === "Identity") {
        const t = this.peek();
        if (!TERM_FOLLOW.has(t.kind === "op" || t.kind === "keyword" ? t.value : t.kind)) {
          // jq's grammar reads `.` followed by anything else as a field name it cannot read; after
          // `. IDENT` (its rule `'.' IDENT error`) the error is on the token that follows the name.
          const at = t.kind === "IDENT" ? this.peek(1) : t;
          const reason = `syntax error, unexpected ${tokenName(at)}`;
          throw new JqSyntaxError(reason, this.text, at.start, at.end, [
            { reason: 'try .["field"] instead of .field for unusually named fields', offset: first.start, end: at.end },
          ]);
        }
      }
      for (;;) {
        const t = this.peek();
        if (t.kind === "FIELD") {
          this.next();
          term = { type: "Index", target: term, index: lit(t.value, t), span: this.span(start) };
          access = true;
          continue;
        }
        if (t.kind === "op" && t.value === ".") {
          const after = this.peek(1);
          this.next();
          if (after.kind === "QQSTRING_START" || after.kind === "FORMAT") {
            const key = this.parseString(this.next());
            term = { type: "Index", target: term, index: key, span: this.span(start) };
          } else if (after.kind === "op" && after.value === "[") {
            // jq 1.8.2's grammar has `Term.[e]` and `Term.[]` but no slice after the dot.
            term = this.parseBracketSuffix(term, start, false);
          } else {
            this.unexpected(after, ["FORMAT", "QQSTRING_START", "'['"]);
          }
          access = true;
          continue;
        }
        if (t.kind === "op" && t.value === "[") {
          term = this.parseBracketSuffix(term, start);
          access = true;
          continue;
        }
        if (t.kind === "op" && t.value === "?") {
          this.next();
          term = access
            ? { type: "Try", body: term, postfix: true, access: true, span: this.span(start) }
            : { type: "Try", body: term, postfix: true, span: this.span(start) };
          access = false;
          continue;
        }
        return term;
      }
    } finally {
      this.leave();
    }
  }

  /** `[e]`, `[]`, `[a:b]`, `[:b]`, `[a:]` after a term (without `slices`: `[e]` and `[]` only, as after `Term.`). */
  private parseBracketSuffix(target: Node, start: number, slices = true): Node {
    const open = this.expectOp("[");
    return this.within({ kind: "silent", start: open.start }, () => {
      if (this.isOp("]")) {
        this.next();
        return { type: "Iterate", target, span: this.span(start) };
      }
      if (this.isOp(":")) {
        if (!slices) this.unexpected(this.peek());
        this.next();
        const to = this.parseQuery(AFTER_QUERY.slice);
        this.expectOp("]", AFTER_QUERY.slice);
        return { type: "Slice", target, to, span: this.span(start) };
      }
      const follow = slices ? AFTER_QUERY.index : AFTER_QUERY.array;
      const index = this.parseQuery(follow);
      if (this.isOp(":")) {
        if (!slices) this.unexpected(this.peek(), follow);
        this.next();
        if (this.isOp("]")) {
          this.next();
          return { type: "Slice", target, from: index, span: this.span(start) };
        }
        const to = this.parseQuery(AFTER_QUERY.slice);
        this.expectOp("]", AFTER_QUERY.slice);
        return { type: "Slice", target, from: index, to, span: this.span(start) };
      }
      this.expectOp("]", follow);
      return { type: "Index", target, index, span: this.span(start) };
    });
  }

  private parsePrimary(): Node {
    const t = this.next();
    const start = t.start;
    const at = { start, end: t.end };
    switch (t.kind) {
      case "LITERAL":
        return { type: "Literal", value: Number(t.value), span: at };
      case "QQSTRING_START":
      case "FORMAT":
        if (t.kind === "FORMAT" && this.peek().kind !== "QQSTRING_START") return { type: "Format", name: t.value, span: at };
        return this.parseString(t);
      case "FIELD":
        return { type: "Index", target: identity(t), index: lit(t.value, t), span: at };
      case "BINDING":
        return { type: "Var", name: t.value, span: at };
      case "LOC":
        return locLiteral(this.text, t);
      case "IDENT":
        return this.parseCall(t);
      case "keyword":
        return this.parseKeywordTerm(t);
      case "op":
        return this.parseOpTerm(t);
      default:
        return this.unexpected(t);
    }
  }

  private parseOpTerm(t: Token): Node {
    const start = t.start;
    switch (t.value) {
      case ".": {
        const n = this.peek();
        if (n.kind === "QQSTRING_START" || (n.kind === "FORMAT" && this.peek(1).kind === "QQSTRING_START")) {
          const key = this.parseString(this.next());
          return { type: "Index", target: identity(t), index: key, span: this.span(start) };
        }
        return identity(t);
      }
      case "..":
        return { type: "RecurseDefault", span: { start, end: t.end } };
      case "(":
        return this.within({ kind: "silent", start }, () => {
          const inner = this.parseQuery(AFTER_QUERY.paren);
          this.expectOp(")", AFTER_QUERY.paren);
          // The parenthesized term spans its parentheses, as jq locates it; a call or a variable keeps its
          // own place, where jq reports one that is not defined.
          if (inner.type === "Call" || inner.type === "Var" || inner.type === "Break") return inner;
          return { ...inner, span: this.span(start) };
        });
      case "[":
        if (this.isOp("]")) {
          this.next();
          return { type: "Array", span: this.span(start) };
        }
        return this.within({ kind: "silent", start }, () => {
          const body = this.parseQuery(AFTER_QUERY.array);
          this.expectOp("]", AFTER_QUERY.array);
          return { type: "Array", body, span: this.span(start) };
        });
      case "{":
        return this.parseObject(start);
      case "-": {
        const operand = this.parseTerm();
        return { type: "Neg", operand, span: this.span(start) };
      }
      case "$": {
        // `$$$$name`, private to jq's own library: read as the variable.
        this.expectOp("$", ["'$'"]);
        this.expectOp("$", ["'$'"]);
        const v = this.next();
        if (v.kind !== "BINDING") this.unexpected(v, ["BINDING"]);
        return { type: "Var", name: v.value, span: this.span(start) };
      }
      default:
        return this.unexpected(t);
    }
  }

  private parseKeywordTerm(t: Token): Node {
    const start = t.start;
    switch (t.value) {
      case "if":
        return this.parseIf(start);
      case "try": {
        const body = this.parseTerm();
        if (this.isKeyword("catch")) {
          this.next();
          const handler = this.within({ kind: "try", start }, () => this.parseTerm());
          return { type: "Try", body, handler, span: this.span(start) };
        }
        return { type: "Try", body, span: this.span(start) };
      }
      case "reduce": {
        const { source, patterns, init, update } = this.parseFoldHead(AFTER_QUERY.update);
        this.expectOp(")", AFTER_QUERY.update);
        return { type: "Reduce", source, patterns, init, update, span: this.span(start) };
      }
      case "foreach": {
        const { source, patterns, init, update } = this.parseFoldHead(AFTER_QUERY.foreachUpdate);
        let extract: Node | undefined;
        if (this.isOp(";")) {
          this.next();
          extract = this.parseQuery(AFTER_QUERY.update);
          this.expectOp(")", AFTER_QUERY.update);
        } else {
          this.expectOp(")", AFTER_QUERY.foreachUpdate);
        }
        const node: Node = { type: "Foreach", source, patterns, init, update, span: this.span(start) };
        if (extract) node.extract = extract;
        return node;
      }
      case "break": {
        const v = this.next();
        if (v.kind !== "BINDING") {
          throw new JqSyntaxError(`syntax error, unexpected ${tokenName(v)}, expecting BINDING`, this.text, v.start, v.end, [
            { reason: "break requires a label to break to", offset: start, end: v.end },
          ]);
        }
        return { type: "Break", name: v.value, span: this.span(start) };
      }
      default:
        return this.unexpected(t);
    }
  }

  /** `source as patterns (init; update` of `reduce` and `foreach`, up to what follows the update. */
  private parseFoldHead(afterUpdate: readonly string[]): { source: Node; patterns: Pattern[]; init: Node; update: Node } {
    const source = this.parseExpr(0);
    const as = this.next();
    if (as.kind !== "keyword" || as.value !== "as") this.unexpected(as);
    const patterns = this.parsePatterns();
    this.expectOp("(", ["'('"]);
    const init = this.parseQuery(AFTER_QUERY.init);
    this.expectOp(";", AFTER_QUERY.init);
    const update = this.parseQuery(afterUpdate);
    return { source, patterns, init, update };
  }

  private parseIf(start: number): Node {
    const cond = this.parseQuery(AFTER_QUERY.cond);
    this.expectKeyword("then", AFTER_QUERY.cond);
    return this.within({ kind: "if", start }, () => this.parseIfRest(start, cond));
  }

  /** After `if cond then`: the branch and what follows it (`elif`, `else`, `end`). */
  private parseIfRest(start: number, cond: Node): Node {
    const then = this.parseQuery([]);
    const t = this.next();
    if (t.kind === "keyword" && t.value === "elif") {
      const elifCond = this.parseQuery(AFTER_QUERY.cond);
      this.expectKeyword("then", AFTER_QUERY.cond);
      const elseNode = this.parseIfRest(t.start, elifCond);
      return { type: "If", cond, then, else: elseNode, span: this.span(start) };
    }
    if (t.kind === "keyword" && t.value === "else") {
      const elseNode = this.parseQuery(AFTER_QUERY.else);
      this.expectKeyword("end", AFTER_QUERY.else);
      return { type: "If", cond, then, else: elseNode, span: this.span(start) };
    }
    if (t.kind === "keyword" && t.value === "end") return { type: "If", cond, then, span: this.span(start) };
    return this.unexpected(t);
  }

  private parseCall(t: Token): Node {
    if ((t.value === "null" || t.value === "true" || t.value === "false") && !this.isOp("(")) {
      return { type: "Literal", value: t.value === "null" ? null : t.value === "true", span: { start: t.start, end: t.end } };
    }
    const args: Node[] = [];
    if (this.isOp("(")) {
      this.next();
      args.push(this.parseQuery(AFTER_QUERY.arg));
      while (this.isOp(";")) {
        this.next();
        args.push(this.parseQuery(AFTER_QUERY.arg));
      }
      this.expectOp(")", AFTER_QUERY.arg);
    }
    return { type: "Call", name: t.value, args, span: this.span(t.start) };
  }

  /** `def name(params): body;` (the caller parses what follows). */
  private parseFuncDef(): { type: "FuncDef"; name: string; params: string[]; body: Node; span: Span } {
    const start = this.expectKeyword("def").start;
    const nameTok = this.next();
    if (nameTok.kind !== "IDENT") this.unexpected(nameTok, ["IDENT"]);
    const params: string[] = [];
    if (this.isOp("(")) {
      this.next();
      for (;;) {
        const p = this.next();
        if (p.kind === "BINDING") params.push("$" + p.value);
        else if (p.kind === "IDENT") params.push(p.value);
        else this.unexpected(p, ["IDENT", "BINDING"]);
        if (this.isOp(";")) {
          this.next();
          continue;
        }
        this.expectOp(")", ["';'", "')'"]);
        break;
      }
      this.expectOp(":", ["':'"]);
    } else {
      this.expectOp(":", ["':'", "'('"]);
    }
    const body = this.parseQuery(AFTER_QUERY.def);
    this.expectOp(";", AFTER_QUERY.def);
    return { type: "FuncDef", name: nameTok.value, params, body, span: this.span(start) };
  }

  // ---- objects ----
  private parseObject(start: number): Node {
    const entries: ObjectEntry[] = [];
    const r = { kind: "object" as const, start, afterComma: false, entry: this.peek().start };
    return this.within(r, () => {
      for (;;) {
        if (this.isOp("}")) {
          this.next();
          return { type: "Object", entries, span: this.span(start) };
        }
        r.entry = this.peek().start;
        entries.push(this.parseObjectEntry());
        if (this.isOp(",")) {
          this.next();
          r.afterComma = true;
          continue;
        }
        this.expectOp("}", ["'}'"]);
        return { type: "Object", entries, span: this.span(start) };
      }
    });
  }

  private parseObjectEntry(): ObjectEntry {
    const t = this.next();
    let key: Node;
    let shorthand: ObjectEntry;
    switch (t.kind) {
      case "IDENT":
      case "keyword":
        key = lit(t.value, t);
        shorthand = { key, value: { type: "Index", target: identity(t), index: lit(t.value, t), span: { start: t.start, end: t.end } } };
        break;
      case "LOC":
        key = lit("__loc__", t);
        shorthand = { key, value: locLiteral(this.text, t) };
        break;
      case "BINDING":
        key = { type: "Var", name: t.value, span: { start: t.start, end: t.end } };
        shorthand = { key: lit(t.value, t), value: key };
        break;
      case "QQSTRING_START":
      case "FORMAT":
        // jq's grammar reads a format key as `FORMAT QQSTRING_START ...`: the token after the format is the unexpected one.
        if (t.kind === "FORMAT" && this.peek().kind !== "QQSTRING_START") this.unexpected(this.peek(), ["QQSTRING_START"]);
        key = this.parseString(t);
        // `{"\(e)"}`: the value is `.[k]` of each key k computed once (jq evaluates e once, not twice).
        shorthand = { key, value: { type: "Index", target: identity(t), index: key, span: key.span }, keyed: true };
        break;
      case "op":
        if (t.value === "(") {
          key = this.parseQuery(AFTER_QUERY.paren);
          this.expectOp(")", AFTER_QUERY.paren);
          this.expectOp(":", ["':'"]);
          const value = this.parseObjectValue();
          this.checkObjectKey(key);
          return { key, value };
        }
        return this.unexpected(t);
      default:
        return this.unexpected(t);
    }
    if (this.isOp(":") && t.kind !== "LOC") {
      this.next();
      const value = this.parseObjectValue();
      // jq locates `$name: value` (its variable, when not defined) at the whole entry.
      if (key.type === "Var") key.span = { start: t.start, end: value.span.end };
      return { key, value };
    }
    return shorthand;
  }

  /** jq refuses a constant object key that is not a string at compile time. */
  private checkObjectKey(key: Node): void {
    const value = constantOf(key);
    if (value !== NOT_CONSTANT && typeof value !== "string") {
      throw new JqSyntaxError(`Cannot use ${kindName(value)} (${shortJson(value)}) as object key`, this.text, key.span.start, key.span.end);
    }
  }

  /** An object value: expressions joined by `|` (no `,`, no `as`, no `def`). */
  private parseObjectValue(): Node {
    const left = this.parseExpr(0);
    if (this.isOp("|")) {
      this.next();
      const right = this.parseObjectValue();
      return { type: "Pipe", left, right, span: { start: left.span.start, end: right.span.end } };
    }
    return left;
  }

  // ---- patterns ----
  private parsePatterns(): Pattern[] {
    const patterns = [this.parsePattern()];
    while (this.isOp("?//")) {
      this.next();
      patterns.push(this.parsePattern());
    }
    return patterns;
  }

  private parsePattern(): Pattern {
    const t = this.next();
    if (t.kind === "BINDING") return { type: "VarPattern", name: t.value, span: { start: t.start, end: t.end } };
    if (t.kind === "op" && t.value === "[") {
      const elements = this.parsePatternList(() => this.parsePattern(), "]");
      return { type: "ArrayPattern", elements, span: this.span(t.start) };
    }
    if (t.kind === "op" && t.value === "{") {
      const r = { kind: "objectPattern" as const, start: t.start, entry: this.peek().start };
      const entries = this.within(r, () =>
        this.parsePatternList(() => {
          r.entry = this.peek().start;
          return this.parseObjectPatternEntry();
        }, "}"),
      );
      return { type: "ObjectPattern", entries, span: this.span(t.start) };
    }
    return this.unexpected(t, PATTERN_START);
  }

  /** Items separated by commas up to the closing bracket, which it consumes. */
  private parsePatternList<T>(item: () => T, close: string): T[] {
    const items = [item()];
    while (this.isOp(",")) {
      this.next();
      items.push(item());
    }
    this.expectOp(close, ["','", `'${close}'`]);
    return items;
  }

  private parseObjectPatternEntry(): ObjectPatternEntry {
    const t = this.next();
    if (t.kind === "BINDING") {
      if (this.isOp(":")) {
        this.next();
        return { keyVar: t.value, value: this.parsePattern() };
      }
      return { keyVar: t.value };
    }
    let key: Node;
    if (t.kind === "IDENT" || t.kind === "keyword") key = lit(t.value, t);
    else if (t.kind === "QQSTRING_START" || (t.kind === "FORMAT" && this.peek().kind === "QQSTRING_START")) key = this.parseString(t);
    else if (t.kind === "op" && t.value === "(") {
      key = this.parseQuery(AFTER_QUERY.paren);
      this.expectOp(")", AFTER_QUERY.paren);
      this.expectOp(":", ["':'"]);
      const value = this.parsePattern();
      this.checkObjectKey(key);
      return { key, value };
    } else return this.unexpected(t);
    this.expectOp(":", ["':'"]);
    return { key, value: this.parsePattern() };
  }

  // ---- strings ----
  /**
   * A string literal from its opening token (`"`, or a format followed by `"`): text and escape runs,
   * and `\(...)` interpolations parsed as queries. `constant` (import paths) refuses interpolation.
   */
  private parseString(first: Token, constant = false): Node {
    let format: string | undefined;
    let open = first;
    if (first.kind === "FORMAT") {
      format = first.value;
      open = this.next();
    }
    if (open.kind !== "QQSTRING_START") this.unexpected(open, first.kind === "FORMAT" ? ["QQSTRING_START"] : undefined);
    const parts: (string | Node)[] = [];
    let buf = "";
    for (;;) {
      const t = this.next();
      if (t.kind === "QQSTRING_TEXT") {
        if (t.error !== undefined) throw new JqSyntaxError(t.error, this.text, t.start, t.end);
        buf += t.value;
        continue;
      }
      if (t.kind === "QQSTRING_INTERP_START") {
        if (constant) {
          throw new JqSyntaxError("Import path must be constant", this.text, first.start, this.closingQuote(t));
        }
        if (buf) parts.push(buf);
        buf = "";
        const expr = this.parseQuery(AFTER_QUERY.interp);
        const close = this.next();
        if (close.kind !== "QQSTRING_INTERP_END") this.unexpected(close, AFTER_QUERY.interp);
        parts.push(expr);
        continue;
      }
      if (t.kind === "QQSTRING_END") break;
      this.unexpected(t, ["QQSTRING_TEXT", "QQSTRING_INTERP_START", "QQSTRING_END"]);
    }
    if (buf || parts.length === 0) parts.push(buf);
    const span = this.span(first.start);
    if (format === undefined && parts.length === 1 && typeof parts[0] === "string") {
      return { type: "Literal", value: parts[0], span };
    }
    const node: Node = { type: "String", parts, span };
    if (format !== undefined) node.format = format;
    return node;
  }

  /** The end of the string literal the token belongs to (for a message about the whole literal). */
  private closingQuote(from: Token): number {
    let depth = 0;
    for (let i = this.pos; i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      if (t.kind === "QQSTRING_START") depth++;
      else if (t.kind === "QQSTRING_END") {
        if (depth === 0) return t.end;
        depth--;
      }
    }
    return from.end;
  }
}

/** How jq's parser names a token in `unexpected ...`. */
function tokenName(t: Token): string {
  switch (t.kind) {
    case "eof":
      return "end of file";
    case "op":
      return t.value.length === 1 ? `'${t.value}'` : t.value;
    case "keyword":
      return t.value;
    case "LOC":
      return "$__loc__";
    default:
      return t.kind;
  }
}

/** Whether a token can start a query (what jq's grammar accepts at the start of a program). */
function startsTerm(t: Token): boolean {
  switch (t.kind) {
    case "IDENT":
    case "FIELD":
    case "BINDING":
    case "LITERAL":
    case "FORMAT":
    case "LOC":
    case "QQSTRING_START":
      return true;
    case "keyword":
      return ["if", "try", "reduce", "foreach", "label", "def", "break"].includes(t.value);
    case "op":
      return [".", "..", "-", "(", "[", "{", "$"].includes(t.value);
    default:
      return false;
  }
}

const NOT_CONSTANT = Symbol("not constant");
type Constant = null | boolean | number | string | Constant[] | { [k: string]: Constant };

/**
 * The value of a constant expression as jq's compiler sees one (a literal, an array or object of
 * constants, arithmetic and comparisons of constants, which it folds), or NOT_CONSTANT.
 */
function constantOf(n: Node): Constant | typeof NOT_CONSTANT {
  switch (n.type) {
    case "Literal":
      return n.value;
    case "Array": {
      if (!n.body) return [];
      const items: Constant[] = [];
      const collect = (e: Node): boolean => {
        if (e.type === "Comma") return collect(e.left) && collect(e.right);
        if (e.type !== "Literal") return false;
        items.push(e.value);
        return true;
      };
      return collect(n.body) ? items : NOT_CONSTANT;
    }
    case "Object": {
      const o: { [k: string]: Constant } = {};
      for (const e of n.entries) {
        if (e.keyed || e.key.type !== "Literal" || typeof e.key.value !== "string" || !e.value) return NOT_CONSTANT;
        const v = constantOf(e.value);
        if (v === NOT_CONSTANT || (e.value.type !== "Literal" && e.value.type !== "Array" && e.value.type !== "Object")) return NOT_CONSTANT;
        o[e.key.value] = v;
      }
      return o;
    }
    case "Binary": {
      const a = constantOf(n.left);
      const b = constantOf(n.right);
      if (a === NOT_CONSTANT || b === NOT_CONSTANT) return NOT_CONSTANT;
      return foldBinary(n.op, a, b);
    }
    default:
      return NOT_CONSTANT;
  }
}

/** The folds a compile-time check needs (numbers and strings); anything else is left to run time. */
function foldBinary(op: string, a: Constant, b: Constant): Constant | typeof NOT_CONSTANT {
  if (typeof a === "number" && typeof b === "number") {
    switch (op) {
      case "+":
        return a + b;
      case "-":
        return a - b;
      case "*":
        return a * b;
      case "/":
        return b === 0 ? NOT_CONSTANT : a / b;
      case "<":
        return a < b;
      case ">":
        return a > b;
      case "<=":
        return a <= b;
      case ">=":
        return a >= b;
      case "==":
        return a === b;
      case "!=":
        return a !== b;
    }
  }
  if (typeof a === "string" && typeof b === "string" && op === "+") return a + b;
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b) && op === "+") return { ...a, ...b };
  return NOT_CONSTANT;
}

function kindName(v: Constant): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return "boolean";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** jq's 30-byte truncated dump of a constant in compile errors (ASCII constants in practice). */
function shortJson(v: Constant): string {
  const s = typeof v === "number" ? String(v) : JSON.stringify(v);
  if (s.length <= 29) return s;
  const delim = s[0] === '"' ? '"' : s[0] === "[" ? "]" : s[0] === "{" ? "}" : "";
  return s.slice(0, 30 - (delim ? 5 : 4)) + "..." + delim;
}

function lit(value: string, t: Token): Node {
  return { type: "Literal", value, span: { start: t.start, end: t.end } };
}

function identity(t: Token): Node {
  return { type: "Identity", span: { start: t.start, end: t.end } };
}

/** `$__loc__` as an object literal `{file, line}` built from constants. */
function locLiteral(text: string, t: Token): Node {
  const { line } = lineColumn(text, t.start);
  const span = { start: t.start, end: t.end };
  return {
    type: "Object",
    entries: [
      { key: { type: "Literal", value: "file", span }, value: { type: "Literal", value: "<top-level>", span } },
      { key: { type: "Literal", value: "line", span }, value: { type: "Literal", value: line, span } },
    ],
    span,
  };
}

function makeBinary(op: string, left: Node, right: Node): Node {
  const span = { start: left.span.start, end: right.span.end };
  switch (op) {
    case "//":
      return { type: "Alternative", left, right, span };
    case "and":
      return { type: "And", left, right, span };
    case "or":
      return { type: "Or", left, right, span };
    case "=":
    case "|=":
    case "+=":
    case "-=":
    case "*=":
    case "/=":
    case "%=":
    case "//=":
      return { type: "Assign", op, left, right, span };
    default:
      return { type: "Binary", op: op as "+", left, right, span };
  }
}

/** Where a token's character ends (an invalid character's token ends after its first byte: lexer.ts). */
function wholeEnd(t: Token): number {
  return t.kind === "INVALID_CHARACTER" ? t.start + t.value.length : t.end;
}
