/**
 * Line and column of a character offset in a text, as every reader names a place (`file:line:col`). No
 * parser loaded: the command line's fast readers use it too.
 */

/** The offset each line starts at. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/** The 1-based line of `offset`, given the text's line starts. */
export function lineAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** The 1-based line and column of `offset`, given the text's line starts. */
export function positionIn(starts: number[], offset: number): { line: number; column: number } {
  const line = lineAt(starts, offset);
  return { line, column: offset - starts[line - 1]! + 1 };
}

/** The 1-based line and column of `offset` in `text`. */
export function positionAt(text: string, offset: number): { line: number; column: number } {
  return positionIn(lineStarts(text), offset);
}
