/**
 * A jq compile-time error with its position in the program, printed as jq prints it:
 * `jq: error: syntax error, unexpected ']' at 1:17` followed by the line and a caret.
 */
export class JqSyntaxError extends Error {
  /** The bare reason, e.g. `syntax error, unexpected ']'`. */
  readonly reason: string;
  /** Character offset into the program text. */
  readonly offset: number;
  /** 1-based line and column of the offset. */
  readonly line: number;
  readonly column: number;
  readonly program: string;

  constructor(reason: string, program: string, offset: number) {
    const { line, column } = lineColumn(program, offset);
    super(reason);
    this.name = "JqSyntaxError";
    this.reason = reason;
    this.offset = offset;
    this.line = line;
    this.column = column;
    this.program = program;
  }

  /** The message jq's CLI prints, with an excerpt of the offending line and a caret under the position. */
  describe(): string {
    const lines = this.program.split("\n");
    const text = lines[this.line - 1] ?? "";
    return `jq: error: ${this.reason} at ${this.line}:${this.column}\n    ${text}\n    ${" ".repeat(Math.max(0, this.column - 1))}^`;
  }
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
