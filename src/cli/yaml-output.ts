/**
 * Objects printed as YAML that reads back as the same values in Karta (YAML 1.2) and in Go's readers
 * (go-yaml v2 under sigs.k8s.io/yaml, as kubectl and karmadactl read a file): `yaml.stringify` with
 * `lineWidth: 0` and no aliases, where a string either reader would take for another type (YAML 1.1's
 * `yes`, `on`, `y`, `~`; Go's `0o17`, `1_000`, `0x1F`) is double-quoted. Maps, sequences, whole numbers,
 * booleans, null and strings that stay plain (names, UIDs, paths, label keys) are printed here directly,
 * many times faster; any other value sends the whole object to the library, so the output is the
 * library's in every case. A property test compares both on generated objects.
 */
import { createRequire } from "node:module";
import type { Document, ToStringOptions } from "yaml";

const require = createRequire(import.meta.url);

/** Plain-scalar characters that can never need quoting inside a word. */
const WORD = /^[A-Za-z0-9_/][A-Za-z0-9_./-]*$/;
/** YAML 1.2 core schema scalars that would read back as something other than a string. */
const NOT_A_STRING = /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
/** Words go-yaml v2 reads as booleans, null, special floats or the merge key (its YAML 1.1 table). */
const GO_WORDS = new Set(
  "y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE off Off OFF ~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF <<".split(" "),
);
/** What go-yaml v2 reads as a number once it drops underscores: Go's integers of any base, its floats. */
const GO_NUMBER = /^[-+]?(?:0[xXoObB][0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?)$/;

/**
 * Whether a plain scalar would not read back as this string in Go (go-yaml v2's resolver) or in YAML
 * 1.2: such a string must be quoted. Dates are included (go-yaml reads `2024-01-02` as a timestamp).
 */
export function needsQuotes(s: string): boolean {
  if (s === "" || GO_WORDS.has(s) || NOT_A_STRING.test(s)) return true;
  const c = s.charCodeAt(0);
  // go-yaml tries numbers and timestamps only for a leading digit, sign or dot.
  if (!((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46)) return false;
  return GO_NUMBER.test(s.replace(/_/g, "")) || /^[0-9]{4}-/.test(s);
}

class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported();

function scalar(v: unknown): string {
  switch (typeof v) {
    case "string":
      if (WORD.test(v) && !needsQuotes(v)) return v;
      throw UNSUPPORTED;
    case "number":
      if (Number.isSafeInteger(v) && !Object.is(v, -0)) return String(v);
      throw UNSUPPORTED;
    case "boolean":
      return v ? "true" : "false";
    default:
      if (v === null) return "null";
      throw UNSUPPORTED;
  }
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A value after `key:` or `- `: inline for scalars and empty collections, else on the next lines. */
function nested(v: unknown, indent: string, out: string[], lead: string): void {
  if (Array.isArray(v)) {
    if (v.length === 0) out.push(`${lead} []\n`);
    else {
      out.push(`${lead}\n`);
      seq(v, indent, out);
    }
  } else if (isMap(v)) {
    let empty = true;
    for (const k in v) if (v[k] !== undefined) empty = false;
    if (empty) out.push(`${lead} {}\n`);
    else {
      out.push(`${lead}\n`);
      map(v, indent, out);
    }
  } else out.push(`${lead} ${scalar(v)}\n`);
}

function map(v: Record<string, unknown>, indent: string, out: string[]): void {
  const deeper = indent + "  ";
  for (const k of Object.keys(v)) {
    const x = v[k];
    if (x === undefined) continue;
    nested(x, deeper, out, `${indent}${scalar(k)}:`);
  }
}

function seq(v: unknown[], indent: string, out: string[]): void {
  const deeper = indent + "  ";
  for (const x of v) {
    if (x === undefined) throw UNSUPPORTED;
    const start = out.length;
    if (isMap(x) && Object.keys(x).some((k) => x[k] !== undefined)) map(x, deeper, out);
    else if (Array.isArray(x) && x.length > 0) seq(x, deeper, out);
    else {
      out.push(`${indent}- ${Array.isArray(x) ? "[]" : isMap(x) ? "{}" : scalar(x)}\n`);
      continue;
    }
    // The item's first line starts at the dash: `- key: value`, `- - item`.
    out[start] = `${indent}- ${out[start]!.slice(deeper.length)}`;
  }
}

/**
 * Strings the library would print in a form one reader gets wrong: a tab (go-yaml refuses it in a block
 * scalar's indentation), a leading `:` (go-yaml does not read it as a plain scalar), a line of spaces
 * only (lost from a block scalar), and the characters the library prints raw that YAML may not hold
 * raw or that YAML 1.1 reads as line breaks (escaped by {@link escapeRaw}).
 */
const AWKWARD = /\t|^:|(?:^|\n) +(?:\n|$)|[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;
/** The characters {@link AWKWARD} ends with; in the output they only occur inside double-quoted strings. */
const RAW = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

/** A character of {@link RAW} as a double-quoted string's escape (YAML 1.1 and 1.2 both have these). */
function escapeRaw(c: string): string {
  const code = c.charCodeAt(0);
  if (code === 0x85) return "\\N";
  if (code === 0x2028) return "\\L";
  if (code === 0x2029) return "\\P";
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** Options of {@link goSafeYaml} (yaml's own). */
export type YamlOptions = Pick<ToStringOptions, "indentSeq"> & { sortMapEntries?: boolean };

/**
 * `value` as `yaml.stringify(value, { aliasDuplicateObjects: false, lineWidth: 0, ...options })`
 * prints it, except that strings {@link needsQuotes} finds ambiguous, and a few the library would print
 * in a form a reader gets wrong, are double-quoted, keys included.
 */
export function goSafeYaml(value: unknown, options: YamlOptions = {}): string {
  const yaml = require("yaml") as typeof import("yaml");
  const doc: Document = new yaml.Document(value, { aliasDuplicateObjects: false, sortMapEntries: options.sortMapEntries ?? false });
  yaml.visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value === "string" && (needsQuotes(node.value) || AWKWARD.test(node.value))) node.type = "QUOTE_DOUBLE";
    },
  });
  return doc.toString({ lineWidth: 0, ...(options.indentSeq !== undefined ? { indentSeq: options.indentSeq } : {}) }).replace(RAW, escapeRaw);
}

/** One YAML document for `value` (no `---`), as {@link goSafeYaml} prints it. */
export function yamlDocument(value: unknown): string {
  try {
    const out: string[] = [];
    if (isMap(value) && Object.keys(value).some((k) => value[k] !== undefined)) map(value, "", out);
    else if (Array.isArray(value) && value.length > 0) seq(value, "", out);
    else throw UNSUPPORTED;
    return out.join("");
  } catch (err) {
    if (err !== UNSUPPORTED) throw err;
    // The library is loaded only for the objects that need it.
    return goSafeYaml(value);
  }
}

/** Documents separated by `---`, as the commands print a YAML stream. */
export function yamlStream(values: readonly unknown[]): string {
  return values.map(yamlDocument).join("---\n");
}
