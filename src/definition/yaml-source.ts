/**
 * YAML (and JSON) documents with the source position of every node, so that a diagnostic about
 * `spec.structureDefinition.childComponents[1].ownerRef` can point at `file:line:col`, and an error at
 * character 17 of a jq expression can point inside the YAML scalar that holds it.
 */
import { createRequire } from "node:module";
import type { LineCounter, Node as YamlNode } from "yaml";
import { findUnreadableText, yamlDocumentValue } from "../input/index.js";
import { jsonValueSpans } from "../input/json-stream.js";
import { indentQuotedContinuations, KUBECTL_YAML, lfLineBreaks } from "../input/yaml.js";
import { formatPath, type PathSegment } from "./diagnostic.js";

// The `yaml` library is loaded when a text is first read: a definition given as a value needs none of it.
const require = createRequire(import.meta.url);
let yamlModule: typeof import("yaml") | undefined;
const Y = (): typeof import("yaml") => (yamlModule ??= require("yaml") as typeof import("yaml"));

/** The line counter of a definition without text: it has no positions, so it never counts a line. */
export function newLineCounter(): Pick<LineCounter, "linePos"> {
  return { linePos: (offset: number) => ({ line: 1, col: offset + 1 }) };
}

/** Where one node is: its key (for map values) and its value. Offsets are character offsets into the file text. */
export interface NodeLocation {
  keyOffset?: number;
  valueOffset: number;
  /** For scalars: the raw source of the value and its style, to map offsets inside the value. */
  scalar?: { source: string; style: string };
}

/** Positions of one document's nodes, by formatted path (`a.b[0].c`). */
export class SourceMap {
  readonly locations = new Map<string, NodeLocation>();
  constructor(
    readonly file: string,
    private readonly lineCounter: Pick<LineCounter, "linePos">,
  ) {}

  /** The 1-based line and column of a character offset. */
  lineColumn(offset: number): { line: number; column: number } {
    const { line, col } = this.lineCounter.linePos(offset);
    return { line: Math.max(1, line), column: Math.max(1, col) };
  }

  /** The location recorded for a path, or for its closest recorded ancestor. */
  find(segments: readonly PathSegment[]): { location: NodeLocation; exact: boolean } | undefined {
    for (let n = segments.length; n >= 0; n--) {
      const loc = this.locations.get(formatPath(segments.slice(0, n)));
      if (loc) return { location: loc, exact: n === segments.length };
    }
    return undefined;
  }
}

/** One YAML document: its plain value (undefined for an empty document) and the positions of its nodes. */
export interface SourceDocument {
  value: unknown;
  sourceMap: SourceMap;
  /** Syntax errors of this document, with their offsets; `duplicateKey` for a key given twice (the text parses). */
  errors: { message: string; offset: number; duplicateKey?: true }[];
  /** Offset of the document's start, for diagnostics about the whole document. */
  offset: number;
}

/** Parses YAML or JSON text, possibly several `---`-separated documents. Never throws. */
export function parseSourceDocuments(text: string, file: string): SourceDocument[] {
  const lineCounter = new (Y().LineCounter)();
  // Before the parser: a deeply nested document can exhaust its stack or memory.
  const deep = findUnreadableText(text);
  if (deep !== undefined) {
    countLines(lineCounter, text, deep.offset);
    return [{ value: undefined, sourceMap: new SourceMap(file, lineCounter), errors: [{ message: deep.message, offset: deep.offset }], offset: 0 }];
  }
  const out: SourceDocument[] = [];
  // JSON values one after another (JSON Lines, or pretty-printed ones) are documents, as kubectl reads
  // them; each is parsed on its own, its offsets moved to where it is in the file.
  const spans = jsonValueSpans(text);
  if (spans) {
    countLines(lineCounter, text, text.length);
    for (const { start, end } of spans) out.push(...parseDocuments(text.slice(start, end), start, file, lineCounter, false));
  } else {
    const docs = parseDocuments(text, 0, file, lineCounter, true);
    out.push(...((docs.some((d) => d.errors.length > 0) && withContinuations(text, file)) || docs));
  }
  if (out.length === 0) {
    // A file with no documents at all (empty or only comments).
    out.push({ value: undefined, sourceMap: new SourceMap(file, lineCounter), errors: [], offset: 0 });
  }
  return out;
}

/** Tells `counter` where the lines of `text` start, up to offset `end` (the parser does it for a text it reads whole). */
function countLines(counter: LineCounter, text: string, end: number): void {
  counter.addNewLine(0);
  for (let i = text.indexOf("\n"); i >= 0 && i < end; i = text.indexOf("\n", i + 1)) counter.addNewLine(i + 1);
}

/**
 * The documents of a text go-yaml reads and the `yaml` library does not: quoted text continued at its
 * key's column (as `kubectl get -o yaml` writes a long value), read with those lines indented
 * (indentQuotedContinuations). Positions are the file's: the added indentation is taken off each line's
 * columns. Undefined when that does not make the text parse (a key given twice aside).
 */
function withContinuations(text: string, file: string): SourceDocument[] | undefined {
  const indented = indentQuotedContinuations(text);
  if (indented === text) return undefined;
  const lines = text.split("\n");
  const added = indented.split("\n").map((l, i) => l.length - (lines[i]?.length ?? l.length));
  const counter = new (Y().LineCounter)();
  const positions = {
    linePos: (offset: number) => {
      const { line, col } = counter.linePos(offset);
      return { line, col: Math.max(1, col - (added[line - 1] ?? 0)) };
    },
  };
  const docs = parseDocuments(indented, 0, file, counter, true, positions);
  // A key given twice is a finding of its own, not a reason to keep the first reading's errors.
  return docs.some((d) => d.errors.some((e) => !e.duplicateKey)) ? undefined : docs;
}

/**
 * The documents of `text`, found at offset `base` of the file, whose lines `lineCounter` has counted, or
 * counts as it parses the whole file (`whole`); `positions` tells the file's line and column of an
 * offset (the line counter's, unless the text was changed).
 */
function parseDocuments(text: string, base: number, file: string, lineCounter: LineCounter, whole: boolean, positions: Pick<LineCounter, "linePos"> = lineCounter): SourceDocument[] {
  const docs = Y().parseAllDocuments(lfLineBreaks(text), { ...KUBECTL_YAML, ...(whole ? { lineCounter } : {}), uniqueKeys: true, prettyErrors: false, logLevel: "error" });
  const out: SourceDocument[] = [];
  for (const doc of Array.isArray(docs) ? docs : []) {
    const sourceMap = new SourceMap(file, positions);
    const errors: SourceDocument["errors"] = doc.errors.map((e) =>
      e.code === "DUPLICATE_KEY" ? { message: duplicateKeyMessage(text, e.pos[0]), offset: base + e.pos[0], duplicateKey: true as const } : { message: yamlMessage(e.message), offset: base + e.pos[0] },
    );
    let value: unknown;
    if (errors.length === 0) {
      // Aliases are bounded ("billion laughs").
      const read = yamlDocumentValue(doc, text);
      if ("error" in read) errors.push({ message: read.error, offset: base + (read.offset ?? doc.range[0]) });
      else value = read.value;
      if (doc.contents) record(doc.contents as YamlNode, [], undefined, sourceMap, text, base);
    }
    out.push({ value, sourceMap, errors, offset: base + doc.range[0] });
  }
  return out;
}

/** A key given twice, named as written (the parser's message does not name it). */
function duplicateKeyMessage(text: string, offset: number): string {
  const key = /^(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|[^\n]*?(?=[ \t]*:(?:[ \t\n]|$)))/.exec(text.slice(offset, offset + 1024))?.[0];
  return `${key ? `key ${key.startsWith('"') || key.startsWith("'") ? key : JSON.stringify(key)}` : "a key"} is given twice in this mapping: keys must be unique (kubectl would keep the last)`;
}

/** The yaml package appends a code excerpt on a second line; keep the first. */
function yamlMessage(message: string): string {
  return message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
}

function record(node: YamlNode, path: PathSegment[], keyOffset: number | undefined, map: SourceMap, text: string, base: number): void {
  const range = node.range;
  if (!range) return;
  const loc: NodeLocation = { valueOffset: base + range[0] };
  if (keyOffset !== undefined) loc.keyOffset = keyOffset;
  if (Y().isScalar(node)) {
    const style = node.type ?? Y().Scalar.PLAIN;
    loc.scalar = { source: text.slice(range[0], range[1]), style };
  }
  map.locations.set(formatPath(path), loc);
  if (Y().isMap(node)) {
    for (const pair of node.items) {
      if (!Y().isPair(pair)) continue;
      const key = pair.key as YamlNode | null;
      const keyName = Y().isScalar(key) ? String(key.value) : key ? String(key) : "";
      const kOffset = key?.range ? base + key.range[0] : undefined;
      const value = pair.value as YamlNode | null;
      if (value && !Y().isAlias(value)) record(value, [...path, keyName], kOffset, map, text, base);
      else if (kOffset !== undefined) map.locations.set(formatPath([...path, keyName]), { keyOffset: kOffset, valueOffset: value?.range ? base + value.range[0] : kOffset });
    }
  } else if (Y().isSeq(node)) {
    node.items.forEach((item, i) => {
      const child = item as YamlNode | null;
      if (child && !Y().isAlias(child)) record(child, [...path, i], undefined, map, text, base);
      else if (child?.range) map.locations.set(formatPath([...path, i]), { valueOffset: base + child.range[0] });
    });
  }
}

/**
 * The offset in the file of character `index` of a scalar's value. The value and its source differ by
 * quotes, escapes, folded line breaks and block indentation; walking both in step maps one onto the other.
 */
export function scalarOffset(location: NodeLocation, index: number): number {
  const scalar = location.scalar;
  if (!scalar) return location.valueOffset;
  const src = scalar.source;
  let s = 0;
  // Skip the opening quote or the block header line.
  if (scalar.style === Y().Scalar.QUOTE_DOUBLE || scalar.style === Y().Scalar.QUOTE_SINGLE) s = 1;
  else if (scalar.style === Y().Scalar.BLOCK_FOLDED || scalar.style === Y().Scalar.BLOCK_LITERAL) {
    const nl = src.indexOf("\n");
    s = nl < 0 ? src.length : nl + 1;
    while (s < src.length && src[s] === " ") s++;
  }
  return location.valueOffset + Math.min(alignedIndex(src, s, index, scalar.style), Math.max(0, src.length));
}

/** Advances through the source for `index` value characters; returns the source index of the next one. */
function alignedIndex(src: string, start: number, index: number, style: string): number {
  let s = start;
  for (let v = 0; v < index && s < src.length; v++) {
    const c = src[s]!;
    if (style === Y().Scalar.QUOTE_SINGLE && c === "'" && src[s + 1] === "'") s += 2;
    else if (style === Y().Scalar.QUOTE_DOUBLE && c === "\\") s += escapeLength(src, s);
    else if (c === "\n" || c === "\r" || ((c === " " || c === "\t") && style !== Y().Scalar.BLOCK_LITERAL && breaksLine(src, s))) {
      // A line break with its indentation folds into one value character (a space or a newline).
      s++;
      while (s < src.length && /[ \t\r\n]/.test(src[s]!)) s++;
    } else s++;
  }
  return s;
}

/** Whether the run of blanks at `s` ends the line (trailing blanks fold with the line break). */
function breaksLine(src: string, s: number): boolean {
  let i = s;
  while (src[i] === " " || src[i] === "\t") i++;
  return src[i] === "\n" || src[i] === "\r";
}

function escapeLength(src: string, s: number): number {
  const c = src[s + 1];
  if (c === "x") return 4;
  if (c === "u") return 6;
  if (c === "U") return 10;
  if (c === "\n") {
    let n = 2;
    while (/[ \t]/.test(src[s + n] ?? "")) n++;
    return n;
  }
  return 2;
}
