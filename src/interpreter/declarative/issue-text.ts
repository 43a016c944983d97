/**
 * A customization (or webhook configuration) issue as every command prints it: `file:line:col: error:
 * path: message`, the column found in the file's text when the reader gave only the line.
 */
import { LineCounter, parseAllDocuments } from "yaml";
import type { CustomizationIssue } from "./customization.js";

/** `file:line:col: error: path: message` (column 1 when unknown). */
export function issueText(i: CustomizationIssue | { file: string; line?: number; column?: number; path: string; message: string }): string {
  const col = "column" in i && i.column !== undefined ? i.column : 1;
  return `${i.file}${i.line !== undefined ? `:${i.line}:${col}` : ""}: error: ${i.path ? `${i.path}: ` : ""}${i.message}`;
}

/** A customization issue as every command prints it, `file:line:col: error: path: message`, located in `text`. */
export function customizationIssueText(text: string, i: CustomizationIssue): string {
  return issueText({ ...i, ...(locateIssue(text, i) ?? {}) });
}

/**
 * The column of a customization issue: a YAML error's own, or the position of the field (or of its
 * nearest parent present) in the document starting at the issue's line. The line alone is
 * what the customization reader reports.
 */
function locateIssue(text: string, i: CustomizationIssue): { line: number; column: number } | undefined {
  if (i.line === undefined) return undefined;
  if (i.column !== undefined) return { line: i.line, column: i.column };
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc });
  const list = Array.isArray(docs) ? docs : [docs];
  if (i.path === "") {
    for (const d of list) {
      const e = d.errors[0];
      if (e?.linePos) return { line: e.linePos[0].line, column: e.linePos[0].col };
    }
    return undefined;
  }
  const doc = list.filter((d) => d.contents?.range && lc.linePos(d.contents.range[0]).line <= i.line!).pop();
  if (!doc) return undefined;
  const segments = i.path.split(/\.|\[(\d+)\]/).filter((x) => x !== undefined && x !== "").map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  for (let n = segments.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(segments.slice(0, n), true);
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    if (range) {
      const at = lc.linePos(range[0]);
      return { line: at.line, column: at.col };
    }
  }
  return undefined;
}

