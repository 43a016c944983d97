/**
 * Go's text/tabwriter as kubectl's printers configure it (github.com/liggitt/tabwriter: minimum width 6,
 * tab width 4, padding 3, padded with spaces, RememberWidths): text is cut into cells at tabs (and
 * vertical tabs), lines at newlines and form feeds; a column is as wide as its widest cell in each block
 * of consecutive lines that have a cell in it, plus the padding; a line's last cell is not padded. A line
 * without tabs (one cell) ends the blocks above it (Go flushes there), and with RememberWidths a column is
 * never narrower than it was before a flush. Widths count characters (Go counts runes).
 */

import { goRuneCount } from "../gofmt/index.js";

interface Cell {
  text: string;
  width: number;
}

export interface TabWriterOptions {
  minWidth: number;
  padding: number;
  rememberWidths: boolean;
}

/** kubectl's GetNewTabWriter. */
export const KUBECTL_TABWRITER: TabWriterOptions = { minWidth: 6, padding: 3, rememberWidths: true };

const runes = goRuneCount;

export class TabWriter {
  private lines: Cell[][] = [[]];
  /** The text of the cell being written (not yet ended by a tab or a newline). */
  private pending = "";
  private maxWidths: number[] = [];
  private out: string[] = [];

  constructor(private readonly options: TabWriterOptions = KUBECTL_TABWRITER) {}

  write(text: string): void {
    let from = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i];
      if (ch !== "\t" && ch !== "\v" && ch !== "\n" && ch !== "\f") continue;
      this.pending += text.slice(from, i);
      from = i + 1;
      const line = this.lines[this.lines.length - 1]!;
      line.push({ text: this.pending, width: runes(this.pending) });
      this.pending = "";
      if (ch === "\n" || ch === "\f") {
        this.lines.push([]);
        // A line of one cell shapes no column: what came before it can be written out.
        if (ch === "\f" || line.length === 1) this.flushLines();
      }
    }
    this.pending += text.slice(from);
  }

  /** Writes out everything written so far (an unfinished last line as it is) and returns the text. */
  flush(): string {
    this.flushLines();
    const text = this.out.join("");
    this.out = [];
    return text;
  }

  private flushLines(): void {
    if (this.pending.length > 0) {
      this.lines[this.lines.length - 1]!.push({ text: this.pending, width: runes(this.pending) });
      this.pending = "";
    }
    this.format([], 0, this.lines.length);
    this.lines = [[]];
  }

  /** Lays out lines [line0, line1) given the widths of the columns to the left. */
  private format(widths: number[], line0: number, line1: number): void {
    const column = widths.length;
    for (let at = line0; at < line1; at++) {
      if (column >= this.lines[at]!.length - 1) continue;
      // A block of lines with a cell in this column starts here.
      this.writeLines(widths, line0, at);
      line0 = at;
      let width = this.options.minWidth;
      for (; at < line1; at++) {
        const line = this.lines[at]!;
        if (column >= line.length - 1) break;
        width = Math.max(width, line[column]!.width + this.options.padding);
      }
      if (this.options.rememberWidths) {
        if (this.maxWidths.length < widths.length) this.maxWidths.push(...widths.slice(this.maxWidths.length));
        if (this.maxWidths.length === widths.length) this.maxWidths.push(width);
        else if (this.maxWidths[column]! > width) width = this.maxWidths[column]!;
        else if (this.maxWidths[column]! < width) this.maxWidths[column] = width;
      }
      this.format([...widths, width], line0, at);
      // `at` is the first line after the block, which has no cell in this column: the loop passes it.
      line0 = at;
    }
    this.writeLines(widths, line0, line1);
  }

  private writeLines(widths: number[], line0: number, line1: number): void {
    for (let i = line0; i < line1; i++) {
      const line = this.lines[i]!;
      line.forEach((cell, j) => {
        this.out.push(cell.text);
        if (j < widths.length) this.out.push(" ".repeat(Math.max(0, widths[j]! - cell.width)));
      });
      // The last line has no newline of its own (it is the text after the last one).
      if (i + 1 < this.lines.length) this.out.push("\n");
    }
  }
}
