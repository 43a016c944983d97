/**
 * YAML documents read as plain values, fast: js-yaml (YAML 1.2 core schema), several times faster to load
 * and to parse than the `yaml` library, which the commands keep for what needs it (source positions,
 * comments). Text js-yaml would read differently from `yaml` (anchors and aliases, which `yaml` expands
 * under a limit; `0b` numbers; `-.5`), and text it rejects, goes to `yaml`, so the values and the
 * messages are the same as before.
 */
import { createRequire } from "node:module";
import jsyaml from "js-yaml";
import { yamlDocumentValue } from "../input/index.js";
import { kubectlDocuments, mayReadAsYaml11 } from "../input/yaml.js";
import { positionAt } from "../interpreter/declarative/text-position.js";

/**
 * Where js-yaml and `yaml` part ways: a binary or sign-dot number, a number whose exponent may overflow
 * a double (js-yaml keeps `1e400` as a string; `yaml` reads Infinity).
 */
const DIFFERENT = /[-+]\.[0-9]|\b0b[01]|(?:^|[\s:,[{-])[-+]?[0-9]+(?:\.[0-9]*)?[eE][-+]?[0-9]{3,}(?=$|[\s,\]}#])/m;
/** An anchor (`&a`): both read its aliases alike, but only `yaml` bounds how many (a "billion laughs" document). */
const ANCHOR = /(?:^|[\s,[{:-])&\S/m;

const require = createRequire(import.meta.url);

/** A document that does not parse: the `yaml` library's message, and where (1-based line and column). */
export class YamlInputError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

/**
 * The non-empty documents of a YAML text as plain values; a YamlInputError for text that does not parse.
 * `trusted`: text shipped with Karta (the bundled definitions, whose statuses share jq through anchors),
 * read by js-yaml with its anchors; any other text with anchors goes to `yaml`, which bounds its aliases.
 */
export function yamlValues(text: string, trusted = false): unknown[] {
  if (!DIFFERENT.test(text) && !mayReadAsYaml11(text) && (trusted || !ANCHOR.test(text))) {
    try {
      return jsyaml.loadAll(text, undefined, { schema: jsyaml.CORE_SCHEMA }).filter((v) => v !== null && v !== undefined);
    } catch {
      // `yaml` says what is wrong, in the words the commands have always used.
    }
  }
  // Loaded only here: most input never needs it.
  const { parseAllDocuments } = require("yaml") as typeof import("yaml");
  const values: unknown[] = [];
  // Without the library's pretty errors (a message, then the line quoted): the place is given as file:line:col.
  const read = kubectlDocuments(parseAllDocuments, text, { prettyErrors: false });
  for (const doc of read.documents) {
    const e = doc.errors[0];
    if (e !== undefined) {
      const at = positionAt(read.text, e.pos[0]);
      throw new YamlInputError(e.message, at.line, at.column);
    }
    // Too many aliases (a "billion laughs" document), or an alias to nothing: bounded as every reader is.
    const value = yamlDocumentValue(doc, read.text);
    if ("error" in value) {
      const at = positionAt(read.text, value.offset ?? doc.contents?.range?.[0] ?? doc.range[0]);
      throw new YamlInputError(value.error, at.line, at.column);
    }
    const v = value.value;
    if (v === null || v === undefined) continue;
    values.push(v);
  }
  return values;
}
