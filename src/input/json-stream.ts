/**
 * A stream of JSON values as `kubectl ... -o json | jq -c '.items[]'` and friends produce it: JSON Lines
 * (one value per line) or values simply concatenated (pretty-printed one after another, or on one line).
 * JSON Lines go through JSON.parse a line at a time (as fast as one large document); at the first line
 * that is not a whole value, the rest is cut into values by a scanner that follows strings and brackets.
 */

/** A value of the stream and the line (1-based) it starts on. */
export interface StreamValue {
  value: unknown;
  line: number;
}

/** Text that is not a stream of JSON values: the line and a message. */
export class JsonStreamError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function lineAt(text: string, index: number, from = 0, line = 1): number {
  for (let i = text.indexOf("\n", from); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Where the value starting at `start` ends (exclusive), following strings and brackets; -1 when it does not. */
function valueEnd(text: string, start: number): number {
  const open = text.charCodeAt(start);
  if (open !== 0x7b && open !== 0x5b && open !== 0x22) {
    // A number, true, false or null: up to the next space or bracket.
    let i = start;
    while (i < text.length && !SPACE.has(text.charCodeAt(i)) && !"{[\"".includes(text[i]!)) i++;
    return i;
  }
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: up to the closing quote not escaped.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
      if (i >= text.length) return -1;
      if (depth === 0) return i + 1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}

/** Concatenated values from `offset` on (line numbers continue from `line`). */
function concatenated(text: string, offset: number, line: number, out: StreamValue[]): void {
  let i = offset;
  let counted = offset;
  for (;;) {
    while (i < text.length && SPACE.has(text.charCodeAt(i))) i++;
    if (i >= text.length) return;
    line = lineAt(text, i, counted, line);
    counted = i;
    const end = valueEnd(text, i);
    if (end < 0) throw new JsonStreamError(line, "unexpected end of input: a JSON value is not closed");
    try {
      out.push({ value: JSON.parse(text.slice(i, end)) as unknown, line });
    } catch (err) {
      throw new JsonStreamError(line, `invalid JSON: ${err instanceof Error ? err.message : String(err)}`);
    }
    i = end;
  }
}

/** The JSON values of a text, in order; throws JsonStreamError at the first that does not parse. */
export function parseJsonStream(text: string): StreamValue[] {
  const out: StreamValue[] = [];
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (start < text.length) {
    let nl = text.indexOf("\n", start);
    if (nl < 0) nl = text.length;
    const end = nl > start && text.charCodeAt(nl - 1) === 0x0d ? nl - 1 : nl;
    let blank = true;
    for (let i = start; i < end && blank; i++) if (!SPACE.has(text.charCodeAt(i))) blank = false;
    if (!blank) {
      let value: unknown;
      try {
        value = JSON.parse(text.slice(start, end));
      } catch {
        // Not one value per line: scan the rest.
        concatenated(text, start, line, out);
        return out;
      }
      out.push({ value, line });
    }
    start = nl + 1;
    line++;
  }
  return out;
}

/**
 * Where each value of a text of two or more JSON objects or arrays one after another is (`start`, `end`
 * exclusive, as offsets), the way kubectl reads a file that starts with `{`: a stream of JSON values
 * (`kubectl get ... -o json | jq -c '.items[]'`). Undefined for any other text (one value, YAML, a value
 * not closed, or text between the values), which is then read as YAML documents.
 */
export function jsonValueSpans(text: string): { start: number; end: number }[] | undefined {
  const spans: { start: number; end: number }[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < text.length && SPACE.has(text.charCodeAt(i))) i++;
    if (i >= text.length) break;
    const c = text.charCodeAt(i);
    if (c !== 0x7b && c !== 0x5b) return undefined;
    const end = valueEnd(text, i);
    if (end < 0) return undefined;
    spans.push({ start: i, end });
    i = end;
  }
  return spans.length >= 2 && text.charCodeAt(spans[0]!.start) === 0x7b ? spans : undefined;
}
