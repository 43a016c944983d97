/**
 * Objects printed as YAML exactly as `yaml.stringify(value, { aliasDuplicateObjects: false, lineWidth: 0 })`
 * prints them, many times faster for the Kubernetes objects the commands print: maps, sequences, whole
 * numbers, booleans, null and strings that stay plain (names, UIDs, paths, label keys). Any other value
 * (a string needing quotes or a block scalar, a fraction) sends the whole object to `yaml.stringify`,
 * so the output is the library's in every case. A property test compares both on generated objects.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/** Plain-scalar characters that can never need quoting inside a word. */
const WORD = /^[A-Za-z0-9_/][A-Za-z0-9_./-]*$/;
/** YAML 1.2 core schema scalars that would read back as something other than a string. */
const NOT_A_STRING = /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;

class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported();

function scalar(v: unknown): string {
  switch (typeof v) {
    case "string":
      if (WORD.test(v) && !NOT_A_STRING.test(v)) return v;
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

/** One YAML document for `value` (no `---`), as yaml.stringify with lineWidth 0 and no aliases prints it. */
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
    return (require("yaml") as typeof import("yaml")).stringify(value, { aliasDuplicateObjects: false, lineWidth: 0 });
  }
}

/** Documents separated by `---`, as the commands print a YAML stream. */
export function yamlStream(values: readonly unknown[]): string {
  return values.map(yamlDocument).join("---\n");
}
