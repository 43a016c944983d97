/**
 * Multi-document YAML (or JSON) reading with the tolerance of the Go YAML decoder Kubernetes tools use.
 *
 * libyaml (and so go-yaml, which kubectl and karmadactl read files with) accepts a multi-line quoted
 * scalar whose continuation lines are indented no deeper than its key, as `kubectl get -o yaml` and
 * other emitters write long messages:
 *
 *     message: 'required fields ''accesskey''
 *     and ''secretkey'''
 *
 * The `yaml` library (read with kubectl's YAML 1.1 options, src/input/yaml.ts) rejects that. When a
 * document fails to parse, it is read again with such continuation lines indented under their key.
 */
import { parseAllDocuments } from "yaml";
import { findUnreadableText, yamlDocumentValue } from "../../input/index.js";
import { kubectlDocuments } from "../../input/yaml.js";
import { lineAt, lineStarts, positionAt, positionIn } from "./text-position.js";
import type { JsonValue } from "../types.js";

/** One document: its value and the 1-based line it starts on. */
export interface YamlDocument {
  value: JsonValue;
  line: number;
}

/** A parse error with its 1-based line and, when the parser gives one, its 1-based column. */
export interface YamlError {
  line: number;
  column?: number;
  message: string;
}

/** Reads every non-empty document of `text`. */
export function parseYamlDocuments(text: string): { documents: YamlDocument[]; errors: YamlError[] } {
  // Before any parser: a deeply nested document can exhaust the parser's stack or memory.
  const deep = findUnreadableText(text);
  if (deep !== undefined) return { documents: [], errors: [{ ...positionAt(text, deep.offset), message: deep.message }] };
  // JSON (what kubectl -o json and most tools write) is one document: JSON.parse holds it at about its
  // own size, where the YAML parser's syntax tree takes some 30 times the text.
  const json = parseJsonDocument(text);
  if (json !== undefined) return json;
  return parse(text);
}

/**
 * Reads the objects of `text` as kubectl reads a manifest: every document, a document that is a list
 * (a `kind` ending in "List", with `items`) standing for its items. Each object carries the line of
 * its document.
 */
export function parseYamlObjects(text: string): { objects: YamlDocument[]; errors: YamlError[] } {
  const { documents, errors } = parseYamlDocuments(text);
  const objects: YamlDocument[] = [];
  for (const { value, line } of documents) {
    const isList = typeof value === "object" && value !== null && !Array.isArray(value) && Array.isArray(value.items) && typeof value.kind === "string" && value.kind.endsWith("List");
    for (const item of isList ? (value.items as JsonValue[]) : [value]) objects.push({ value: item, line });
  }
  return { objects, errors };
}

/** A text that is one JSON object or array, as a document; undefined when it is not (YAML reads it then). */
function parseJsonDocument(text: string): { documents: YamlDocument[]; errors: YamlError[] } | undefined {
  let at = 0;
  while (at < text.length && /\s/.test(text[at]!)) at++;
  if (text[at] !== "{" && text[at] !== "[") return undefined;
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return undefined; // YAML flow style, or several documents: the YAML reader says what is wrong
  }
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < at; i = text.indexOf("\n", i + 1)) line++;
  return { documents: [{ value, line }], errors: [] };
}

function parse(input: string): { documents: YamlDocument[]; errors: YamlError[] } {
  const documents: YamlDocument[] = [];
  const errors: YamlError[] = [];
  const { documents: docs, text } = kubectlDocuments(parseAllDocuments, input, { prettyErrors: false });
  const starts = lineStarts(text);
  for (const doc of docs) {
    const line = lineAt(starts, doc.contents?.range?.[0] ?? doc.range?.[0] ?? 0);
    if (doc.errors.length > 0) {
      // Where the parser stopped (prettyErrors is off, so linePos is unset): line and column, as every reader names them.
      for (const err of doc.errors) errors.push(err.pos ? { ...positionIn(starts, err.pos[0]), message: err.message } : { line, message: err.message });
      continue;
    }
    const read = yamlDocumentValue(doc, text);
    if ("error" in read) {
      errors.push(read.offset !== undefined ? { ...positionIn(starts, read.offset), message: read.error } : { line, message: read.error });
      continue;
    }
    const value = read.value as JsonValue | undefined;
    if (value === null || value === undefined) continue;
    documents.push({ value, line });
  }
  return { documents, errors };
}
