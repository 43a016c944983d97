/**
 * A jq compile-time error with its position in the program, printed as jq 1.8.2 prints it:
 * `jq: error: syntax error, unexpected ']' at <top-level>, line 1, column 17:`, then the line and a
 * row of carets under the offending text. jq may report more than one error for a program (an
 * unterminated `if` after the syntax error inside it); they travel together.
 */
export class JqSyntaxError extends Error {
  /** The bare reason, e.g. `syntax error, unexpected ']'`. */
  readonly reason: string;
  /** Character offset into the program text (-1: the error has no position, as jq's "Top-level program not given"). */
  readonly offset: number;
  /** End (exclusive) of the offending text. */
  readonly end: number;
  /** 1-based line and column (in characters) of the offset. */
  readonly line: number;
  readonly column: number;
  readonly program: string;
  /** Further errors jq reports after this one, in order. */
  readonly more: readonly { reason: string; offset: number; end: number }[];

  constructor(reason: string, program: string, offset: number, end = offset + 1, more: readonly { reason: string; offset: number; end: number }[] = []) {
    const { line, column } = lineColumn(program, Math.max(0, offset));
    super(reason);
    this.name = "JqSyntaxError";
    this.reason = reason;
    this.offset = offset;
    this.end = end;
    this.line = line;
    this.column = column;
    this.program = program;
    this.more = more;
  }

  /** How many errors jq counts (`jq: 2 compile errors`). */
  get count(): number {
    return 1 + this.more.length;
  }

  /**
   * Each error as jq's message callback receives it: `<reason> at <top-level>, line L, column C:` (the
   * column in bytes, as jq counts), without the excerpt. jq's test runner compares the last one.
   */
  messages(): string[] {
    return this.all().map((e) => (e.offset < 0 ? e.reason : `${e.reason} at <top-level>, ${jqPosition(this.program, e.offset)}:`));
  }

  /** What jq's CLI prints for these errors, with the line and carets under each position (no count line). */
  describe(): string {
    return this.all()
      .map((e) => (e.offset < 0 ? `jq: error: ${e.reason}` : `jq: error: ${e.reason} at <top-level>, ${jqPosition(this.program, e.offset)}:\n${excerpt(this.program, e.offset, e.end)}`))
      .join("\n");
  }

  private all(): { reason: string; offset: number; end: number }[] {
    return [{ reason: this.reason, offset: this.offset, end: this.end }, ...this.more];
  }
}

/** jq's `line L, column C` of an offset: the column counts UTF-8 bytes from the start of the line, from 1. */
function jqPosition(text: string, offset: number): string {
  const { line, lineStart } = lineOf(text, offset);
  return `line ${line}, column ${utf8Length(text, lineStart, offset) + 1}`;
}

function lineOf(text: string, offset: number): { line: number; lineStart: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, lineStart };
}

/** The line of the error, then carets under it from the offset to the end (clipped to the line, at least one). */
function excerpt(text: string, offset: number, end: number): string {
  const { lineStart } = lineOf(text, offset);
  let lineEnd = text.indexOf("\n", lineStart);
  if (lineEnd < 0) lineEnd = text.length;
  const to = Math.min(end, Math.max(lineEnd, offset + 1));
  const pad = utf8Length(text, lineStart, offset);
  const width = Math.max(1, utf8Length(text, offset, Math.min(to, text.length)) + Math.max(0, to - text.length));
  return `    ${text.slice(lineStart, lineEnd)}\n    ${" ".repeat(pad)}${"^".repeat(width)}`;
}

/** UTF-8 bytes from `from` to `to`; an end half a unit into a character counts one byte of it (lexer.ts). */
function utf8Length(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    if (i + 1 > to) return n + 1;
    const c = text.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
  }
  return n;
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const { line, lineStart } = lineOf(text, offset);
  return { line, column: offset - lineStart + 1 };
}
