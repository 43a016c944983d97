/**
 * The jq parser: tokens to an AST with source spans (precedence climbing over jq 1.7.1's grammar).
 *
 * Precedence, lowest first: `|` (right), `,`, `//` (right), assignment operators (non-assoc),
 * `or`, `and`, comparisons (non-assoc), `+ -`, `* / %`, then unary minus, `try`, postfix terms.
 * `def`, `label $x |` and `Term as $p |` extend as far right as possible.
 */
import type { Node, ObjectEntry, ObjectPatternEntry, Pattern, Span } from "./ast.js";
import { tokenize, Token, KEYWORDS } from "./lexer.js";
import { JqSyntaxError, lineColumn } from "./syntax-error.js";

/** How deeply a program may nest before it is rejected (keeps the parser and compiler off the JS stack limit). */
export const MAX_NESTING = 400;

interface BinaryLevel {
  ops: string[];
  assoc: "left" | "right" | "none";
}

// From loosest to tightest, below `|` and `,`.
const LEVELS: BinaryLevel[] = [
  { ops: ["//"], assoc: "right" },
  { ops: ["=", "|=", "+=", "-=", "*=", "/=", "%=", "//="], assoc: "none" },
  { ops: ["or"], assoc: "left" },
  { ops: ["and"], assoc: "left" },
  { ops: ["==", "!=", "<", "<=", ">", ">="], assoc: "none" },
  { ops: ["+", "-"], assoc: "left" },
  { ops: ["*", "/", "%"], assoc: "left" },
];

/** Parses a jq program into its AST. Throws {@link JqSyntaxError} with the position of the problem. */
export function parseJq(text: string): Node {
  const parser = new Parser(text, tokenize(text));
  const node = parser.parseProgram();
  return node;
}

class Parser {
  private pos = 0;
  private depth = 0;

  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
  ) {}

  parseProgram(): Node {
    this.skipModuleDirectives();
    if (this.peek().kind === "eof") {
      // jq 1.7.1 refuses a program without a main expression (empty, comments only).
      throw new JqSyntaxError('Top-level program not given (try ".")', this.text, this.peek().start);
    }
    const node = this.parsePipe();
    const t = this.peek();
    if (t.kind !== "eof") this.unexpected(t, "expecting end of program");
    return node;
  }

  private skipModuleDirectives(): void {
    const t = this.peek();
    if (t.kind === "keyword" && (t.value === "import" || t.value === "include")) {
      throw new JqSyntaxError(`${t.value} is not supported: Karta expressions cannot load modules`, this.text, t.start);
    }
    if (t.kind === "ident" && t.value === "module") {
      // `module <metadata>;` is accepted and ignored, with jq's checks on the metadata.
      this.next();
      const meta = this.parsePostfix(false);
      if (meta.type !== "Object" || !meta.entries.every((e) => e.key.type === "Literal" && e.value && isConstant(e.value))) {
        throw new JqSyntaxError(
          meta.type === "Object" || isConstant(meta) ? "Module metadata must be an object" : "Module metadata must be constant",
          this.text,
          t.start,
        );
      }
      this.expectOp(";");
    }
  }

  // ---- token helpers ----
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
  private expectOp(value: string): Token {
    const t = this.next();
    if (t.kind !== "op" || t.value !== value) this.unexpected(t, `expecting '${value}'`);
    return t;
  }
  private expectKeyword(value: string): Token {
    const t = this.next();
    if (t.kind !== "keyword" || t.value !== value) this.unexpected(t, `expecting ${value}`);
    return t;
  }
  private unexpected(t: Token, expecting?: string): never {
    const what =
      t.kind === "eof"
        ? "end of file"
        : t.kind === "op"
          ? `'${t.value}'`
          : t.kind === "field"
            ? "FIELD"
            : t.kind === "ident"
              ? "IDENT"
              : t.kind === "string"
                ? "QQSTRING_START"
                : t.kind === "number"
                  ? "LITERAL"
                  : t.kind === "keyword"
                    ? t.value
                    : t.kind === "var"
                      ? "'$'"
                      : "FORMAT";
    throw new JqSyntaxError(
      `syntax error, unexpected ${what}${expecting ? `, ${expecting}` : ""}`,
      this.text,
      t.start,
    );
  }
  private enter(t: Token): void {
    if (++this.depth > MAX_NESTING) {
      throw new JqSyntaxError(`program nested more than ${MAX_NESTING} levels deep`, this.text, t.start);
    }
  }
  private leave(): void {
    this.depth--;
  }
  private span(start: number): Span {
    return { start, end: this.tokens[Math.max(0, this.pos - 1)]!.end };
  }

  // ---- expressions ----
  parsePipe(): Node {
    const t = this.peek();
    this.enter(t);
    try {
      if (t.kind === "keyword" && t.value === "def") {
        const def = this.parseFuncDefHead();
        // Definitions with nothing after them: jq 1.7.1's "no main program" error.
        if (this.peek().kind === "eof") {
          throw new JqSyntaxError('Top-level program not given (try ".")', this.text, this.peek().start);
        }
        const rest = this.parsePipe();
        return { ...def, rest, span: this.span(t.start) };
      }
      const left = this.parseComma();
      if (this.isOp("|")) {
        this.next();
        const right = this.parsePipe();
        return { type: "Pipe", left, right, span: { start: left.span.start, end: right.span.end } };
      }
      return left;
    } finally {
      this.leave();
    }
  }

  private parseComma(): Node {
    let left = this.parseBinary(0);
    while (this.isOp(",")) {
      this.next();
      const right = this.parseBinary(0);
      left = { type: "Comma", left, right, span: { start: left.span.start, end: right.span.end } };
    }
    return left;
  }

  private binaryOpAt(level: number): string | undefined {
    const t = this.peek();
    const { ops } = LEVELS[level]!;
    if (t.kind === "op" && ops.includes(t.value)) return t.value;
    if (t.kind === "keyword" && ops.includes(t.value)) return t.value;
    return undefined;
  }

  private parseBinary(level: number): Node {
    if (level >= LEVELS.length) return this.parseUnary();
    const { assoc } = LEVELS[level]!;
    let left = this.parseBinary(level + 1);
    for (;;) {
      const op = this.binaryOpAt(level);
      if (op === undefined) return left;
      const opToken = this.next();
      const right = assoc === "right" ? this.parseBinary(level) : this.parseBinary(level + 1);
      left = makeBinary(op, left, right);
      if (assoc === "none" && this.binaryOpAt(level) !== undefined) this.unexpected(this.peek());
      void opToken;
    }
  }

  private parseUnary(): Node {
    const t = this.peek();
    if (t.kind === "op" && t.value === "-") {
      this.next();
      this.enter(t);
      try {
        // Unary minus binds like the multiplicative operators' operand.
        const operand = this.parseBinary(LEVELS.length - 1);
        return { type: "Neg", operand, span: this.span(t.start) };
      } finally {
        this.leave();
      }
    }
    return this.parsePostfix(true);
  }

  /** A term with its suffixes (`.a`, `[e]`, `[]`, `?`), and when allowed, `as $p | body`. */
  private parsePostfix(allowAs: boolean): Node {
    const first = this.peek();
    const start = first.start;
    // Whether the term so far ends with an access (`.a`, `."a"`, `[e]`, `[]`, `[a:b]`) that a `?` covers alone.
    let access = first.kind === "field" || (first.kind === "op" && first.value === "." && this.peek(1).kind === "string");
    let term = this.parsePrimary();
    for (;;) {
      const t = this.peek();
      if (t.kind === "field") {
        this.next();
        term = { type: "Index", target: term, index: lit(t.value, t), span: this.span(start) };
        access = true;
        continue;
      }
      if (t.kind === "op" && t.value === "." && this.peek(1).kind === "string") {
        this.next();
        const key = this.parseStringToken(this.next(), undefined);
        term = { type: "Index", target: term, index: key, span: this.span(start) };
        access = true;
        continue;
      }
      if (t.kind === "op" && t.value === "." && this.isOp("[", 1)) {
        this.next();
        term = this.parseBracketSuffix(term, start);
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
      break;
    }
    if (allowAs && this.isKeyword("as")) {
      this.next();
      const patterns = this.parsePatterns();
      this.expectOp("|");
      const body = this.parsePipe();
      return { type: "As", source: term, patterns, body, span: this.span(start) };
    }
    return term;
  }

  /** `[e]`, `[]`, `[a:b]`, `[:b]`, `[a:]` after a term. */
  private parseBracketSuffix(target: Node, start: number): Node {
    this.expectOp("[");
    if (this.isOp("]")) {
      this.next();
      return { type: "Iterate", target, span: this.span(start) };
    }
    if (this.isOp(":")) {
      this.next();
      const to = this.parsePipe();
      this.expectOp("]");
      return { type: "Slice", target, to, span: this.span(start) };
    }
    const index = this.parsePipe();
    if (this.isOp(":")) {
      this.next();
      if (this.isOp("]")) {
        this.next();
        return { type: "Slice", target, from: index, span: this.span(start) };
      }
      const to = this.parsePipe();
      this.expectOp("]");
      return { type: "Slice", target, from: index, to, span: this.span(start) };
    }
    this.expectOp("]");
    return { type: "Index", target, index, span: this.span(start) };
  }

  private parsePrimary(): Node {
    const t = this.next();
    const start = t.start;
    switch (t.kind) {
      case "number":
        return { type: "Literal", value: Number(t.value), span: { start, end: t.end } };
      case "string":
        return this.parseStringToken(t, undefined);
      case "format":
        if (this.peek().kind === "string") return this.parseStringToken(this.next(), t.value, start);
        return { type: "Format", name: t.value, span: { start, end: t.end } };
      case "field":
        return { type: "Index", target: identity(t), index: lit(t.value, t), span: { start, end: t.end } };
      case "var":
        if (t.value === "__loc__") return locLiteral(this.text, t);
        return { type: "Var", name: t.value, span: { start, end: t.end } };
      case "ident":
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
        if (n.kind === "string") {
          const key = this.parseStringToken(this.next(), undefined);
          return { type: "Index", target: identity(t), index: key, span: this.span(start) };
        }
        return identity(t);
      }
      case "..":
        return { type: "RecurseDefault", span: { start, end: t.end } };
      case "(": {
        this.enter(t);
        try {
          const inner = this.parsePipe();
          this.expectOp(")");
          return inner;
        } finally {
          this.leave();
        }
      }
      case "[": {
        if (this.isOp("]")) {
          this.next();
          return { type: "Array", span: this.span(start) };
        }
        this.enter(t);
        try {
          const body = this.parsePipe();
          this.expectOp("]");
          return { type: "Array", body, span: this.span(start) };
        } finally {
          this.leave();
        }
      }
      case "{":
        this.enter(t);
        try {
          return this.parseObject(start);
        } finally {
          this.leave();
        }
      case "-": {
        const operand = this.parsePostfix(false);
        return { type: "Neg", operand, span: this.span(start) };
      }
      default:
        return this.unexpected(t);
    }
  }

  private parseKeywordTerm(t: Token): Node {
    const start = t.start;
    this.enter(t);
    try {
      switch (t.value) {
        case "if":
          return this.parseIf(start);
        case "try": {
          const body = this.parsePostTry();
          if (this.isKeyword("catch")) {
            this.next();
            const handler = this.parsePostTry();
            return { type: "Try", body, handler, span: this.span(start) };
          }
          return { type: "Try", body, span: this.span(start) };
        }
        case "reduce": {
          const { source, patterns, init, update } = this.parseFoldHead();
          this.expectOp(")");
          return { type: "Reduce", source, patterns, init, update, span: this.span(start) };
        }
        case "foreach": {
          const { source, patterns, init, update } = this.parseFoldHead();
          let extract: Node | undefined;
          if (this.isOp(";")) {
            this.next();
            extract = this.parsePipe();
          }
          this.expectOp(")");
          const node: Node = { type: "Foreach", source, patterns, init, update, span: this.span(start) };
          if (extract) node.extract = extract;
          return node;
        }
        case "label": {
          const v = this.next();
          if (v.kind !== "var") this.unexpected(v, "expecting '$'");
          this.expectOp("|");
          const body = this.parsePipe();
          return { type: "Label", name: v.value, body, span: this.span(start) };
        }
        case "def": {
          this.pos--;
          return this.parsePipe();
        }
        default:
          return this.unexpected(t);
      }
    } finally {
      this.leave();
    }
  }

  /** The operand of `try` and `catch`: a postfix term (jq gives them the tightest precedence). */
  private parsePostTry(): Node {
    return this.parsePostfix(false);
  }

  /** `source as patterns (init; update` of `reduce` and `foreach`, up to what follows the update. */
  private parseFoldHead(): { source: Node; patterns: Pattern[]; init: Node; update: Node } {
    const source = this.parsePostfix(false);
    this.expectKeyword("as");
    const patterns = this.parsePatterns();
    this.expectOp("(");
    const init = this.parsePipe();
    this.expectOp(";");
    const update = this.parsePipe();
    return { source, patterns, init, update };
  }

  private parseIf(start: number): Node {
    const cond = this.parsePipe();
    this.expectKeyword("then");
    const then = this.parsePipe();
    const t = this.next();
    if (t.kind === "keyword" && t.value === "elif") {
      const elseNode = this.parseIf(t.start);
      return { type: "If", cond, then, else: elseNode, span: this.span(start) };
    }
    if (t.kind === "keyword" && t.value === "else") {
      const elseNode = this.parsePipe();
      this.expectKeyword("end");
      return { type: "If", cond, then, else: elseNode, span: this.span(start) };
    }
    if (t.kind === "keyword" && t.value === "end") return { type: "If", cond, then, span: this.span(start) };
    return this.unexpected(t, "expecting elif, else or end");
  }

  private parseCall(t: Token): Node {
    if (t.value === "break") {
      const v = this.next();
      if (v.kind !== "var") this.unexpected(v, "expecting '$'");
      return { type: "Break", name: v.value, span: this.span(t.start) };
    }
    if ((t.value === "null" || t.value === "true" || t.value === "false") && !this.isOp("(")) {
      return { type: "Literal", value: t.value === "null" ? null : t.value === "true", span: { start: t.start, end: t.end } };
    }
    const args: Node[] = [];
    if (this.isOp("(")) {
      this.enter(t);
      try {
        this.next();
        args.push(this.parsePipe());
        while (this.isOp(";")) {
          this.next();
          args.push(this.parsePipe());
        }
        this.expectOp(")");
      } finally {
        this.leave();
      }
    }
    return { type: "Call", name: t.value, args, span: this.span(t.start) };
  }

  /** `def name(params): body;` (the caller parses what follows). */
  private parseFuncDefHead(): { type: "FuncDef"; name: string; params: string[]; body: Node; span: Span } {
    const start = this.expectKeyword("def").start;
    const nameTok = this.next();
    if (nameTok.kind !== "ident" && nameTok.kind !== "keyword") this.unexpected(nameTok, "expecting IDENT");
    const params: string[] = [];
    if (this.isOp("(")) {
      this.next();
      for (;;) {
        const p = this.next();
        if (p.kind === "var") params.push("$" + p.value);
        else if (p.kind === "ident" || p.kind === "keyword") params.push(p.value);
        else this.unexpected(p, "expecting IDENT or '$'");
        if (this.isOp(";")) {
          this.next();
          continue;
        }
        this.expectOp(")");
        break;
      }
    }
    this.expectOp(":");
    const body = this.parsePipe();
    this.expectOp(";");
    return { type: "FuncDef", name: nameTok.value, params, body, span: this.span(start) };
  }

  // ---- objects ----
  private parseObject(start: number): Node {
    const entries: ObjectEntry[] = [];
    if (this.isOp("}")) {
      this.next();
      return { type: "Object", entries, span: this.span(start) };
    }
    for (;;) {
      entries.push(this.parseObjectEntry());
      if (this.isOp(",")) {
        this.next();
        // A trailing comma is allowed, as in jq 1.7.1 (`{a,b,}`).
        if (this.isOp("}")) {
          this.next();
          return { type: "Object", entries, span: this.span(start) };
        }
        continue;
      }
      this.expectOp("}");
      return { type: "Object", entries, span: this.span(start) };
    }
  }

  private parseObjectEntry(): ObjectEntry {
    const t = this.next();
    let key: Node;
    let shorthandValue: Node | undefined;
    let keyed = false;
    switch (t.kind) {
      case "ident":
      case "keyword":
        key = lit(t.value, t);
        shorthandValue = { type: "Index", target: identity(t), index: lit(t.value, t), span: { start: t.start, end: t.end } };
        break;
      case "var":
        if (t.value === "__loc__") {
          key = lit("__loc__", t);
          shorthandValue = locLiteral(this.text, t);
        } else {
          key = { type: "Var", name: t.value, span: { start: t.start, end: t.end } };
          shorthandValue = key;
          if (!this.isOp(":")) return { key: lit(t.value, t), value: shorthandValue };
        }
        break;
      case "number":
        throw new JqSyntaxError(
          `Cannot use number (${t.value}) as object key`,
          this.text,
          t.start,
        );
      case "string":
        key = this.parseStringToken(t, undefined);
        shorthandValue = { type: "Index", target: identity(t), index: key, span: key.span };
        keyed = true;
        break;
      case "format":
        if (this.peek().kind !== "string") this.unexpected(this.peek());
        key = this.parseStringToken(this.next(), t.value, t.start);
        shorthandValue = { type: "Index", target: identity(t), index: key, span: key.span };
        keyed = true;
        break;
      case "op":
        if (t.value === "(") {
          key = this.parsePipe();
          this.expectOp(")");
          if (key.type === "Literal" && typeof key.value === "number") {
            throw new JqSyntaxError(`Cannot use number (${key.value}) as object key`, this.text, t.start);
          }
          if (!this.isOp(":")) this.unexpected(this.peek(), "expecting ':'");
          break;
        }
        return this.unexpected(t);
      default:
        return this.unexpected(t);
    }
    if (this.isOp(":")) {
      this.next();
      return { key, value: this.parseObjectValue() };
    }
    // `{"\(e)"}`: the value is `.[k]` of each key k computed once (jq evaluates e once, not twice).
    return keyed ? { key, value: shorthandValue, keyed: true } : { key, value: shorthandValue };
  }

  /** `-` binds tighter than `|` in an object value: `{x: -.|abs}` is `{x: ((-.) | abs)}`. */
  private parseObjectNegation(): Node {
    const t = this.peek();
    if (t.kind === "op" && t.value === "-") {
      this.next();
      const operand = this.parseObjectNegation();
      return { type: "Neg", operand, span: this.span(t.start) };
    }
    return this.parsePostfix(false);
  }

  /** An object value: terms joined by `|`, optionally negated (jq's ExpD: no `,` and no binary operators). */
  private parseObjectValue(): Node {
    const left = this.parseObjectNegation();
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
    if (t.kind === "var") return { type: "VarPattern", name: t.value, span: { start: t.start, end: t.end } };
    if (t.kind === "op" && t.value === "[") {
      if (this.isOp("]")) this.unexpected(this.peek(), "expecting '$' or '[' or '{'");
      const elements = this.parseCommaList(() => this.parsePattern(), "]");
      return { type: "ArrayPattern", elements, span: this.span(t.start) };
    }
    if (t.kind === "op" && t.value === "{") {
      if (this.isOp("}")) this.unexpected(this.peek());
      const entries = this.parseCommaList(() => this.parseObjectPatternEntry(), "}");
      return { type: "ObjectPattern", entries, span: this.span(t.start) };
    }
    return this.unexpected(t, "expecting '$' or '[' or '{'");
  }

  /** Items separated by commas up to the closing token, which it consumes. */
  private parseCommaList<T>(item: () => T, close: string): T[] {
    const items = [item()];
    while (this.isOp(",")) {
      this.next();
      items.push(item());
    }
    this.expectOp(close);
    return items;
  }

  private parseObjectPatternEntry(): ObjectPatternEntry {
    const t = this.next();
    if (t.kind === "var") {
      if (this.isOp(":")) {
        this.next();
        return { keyVar: t.value, value: this.parsePattern() };
      }
      return { keyVar: t.value };
    }
    let key: Node;
    if (t.kind === "ident" || t.kind === "keyword") key = lit(t.value, t);
    else if (t.kind === "string") key = this.parseStringToken(t, undefined);
    else if (t.kind === "op" && t.value === "(") {
      key = this.parsePipe();
      this.expectOp(")");
    } else return this.unexpected(t);
    this.expectOp(":");
    return { key, value: this.parsePattern() };
  }

  // ---- strings ----
  /** Decodes a string token: escapes, and `\(...)` interpolations parsed as sub-programs. */
  private parseStringToken(t: Token, format: string | undefined, start = t.start): Node {
    const parts: (string | Node)[] = [];
    const src = this.text;
    let i = t.start + 1;
    const end = t.end - 1;
    let buf = "";
    while (i < end) {
      const c = src[i]!;
      if (c !== "\\") {
        buf += c;
        i++;
        continue;
      }
      const e = src[i + 1];
      switch (e) {
        case "n":
          buf += "\n";
          break;
        case "t":
          buf += "\t";
          break;
        case "r":
          buf += "\r";
          break;
        case "b":
          buf += "\b";
          break;
        case "f":
          buf += "\f";
          break;
        case "\\":
          buf += "\\";
          break;
        case "/":
          buf += "/";
          break;
        case '"':
          buf += '"';
          break;
        case "u": {
          const hex = src.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw this.invalidEscape(t, i);
          buf += String.fromCharCode(parseInt(hex, 16));
          i += 6;
          continue;
        }
        case "(": {
          const close = findInterpolationEnd(src, i + 2, end);
          if (buf) parts.push(buf);
          buf = "";
          const inner = new Parser(src, tokenize(src, i + 2, close));
          inner.depth = this.depth + 1;
          const expr = inner.parsePipe();
          if (inner.peek().kind !== "eof") inner.unexpected(inner.peek(), "expecting ')'");
          parts.push(expr);
          i = close + 1;
          continue;
        }
        default:
          throw this.invalidEscape(t, i);
      }
      i += 2;
    }
    if (buf || parts.length === 0) parts.push(buf);
    const span = { start, end: t.end };
    if (format === undefined && parts.length === 1 && typeof parts[0] === "string") {
      return { type: "Literal", value: parts[0], span };
    }
    const node: Node = { type: "String", parts, span };
    if (format !== undefined) node.format = format;
    return node;
  }

  private invalidEscape(t: Token, at: number): JqSyntaxError {
    const literal = this.text.slice(t.start, t.end);
    const { line, column } = lineColumn(literal, at - t.start + 1);
    return new JqSyntaxError(`Invalid escape at line ${line}, column ${column} (while parsing '${literal}')`, this.text, at);
  }
}

/** The offset of the `)` closing an interpolation whose body starts at `i`. */
function findInterpolationEnd(src: string, i: number, limit: number): number {
  let depth = 1;
  while (i < limit) {
    const c = src[i];
    if (c === '"') {
      // Skip a nested string, including its own interpolations.
      let j = i + 1;
      while (j < limit && src[j] !== '"') {
        if (src[j] === "\\" && src[j + 1] === "(") {
          j = findInterpolationEnd(src, j + 2, limit) + 1;
          continue;
        }
        j += src[j] === "\\" ? 2 : 1;
      }
      i = j + 1;
      continue;
    }
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
    i++;
  }
  return limit;
}

function isConstant(n: Node): boolean {
  switch (n.type) {
    case "Literal":
      return true;
    case "Array":
      return !n.body || constantElements(n.body);
    case "Object":
      return n.entries.every((e) => e.key.type === "Literal" && e.value !== undefined && isConstant(e.value));
    case "Neg":
      return n.operand.type === "Literal";
    default:
      return false;
  }
}

function constantElements(n: Node): boolean {
  return n.type === "Comma" ? constantElements(n.left) && constantElements(n.right) : isConstant(n);
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

export { KEYWORDS };
