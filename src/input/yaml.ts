/**
 * YAML read as kubectl reads a manifest: sigs.k8s.io/yaml over go-yaml v2, a YAML 1.1 reader. Plain
 * `yes`, `no`, `on`, `off`, `y` and `n` (in their three casings) are booleans, `010` is octal 8,
 * `0b101`, `0o17` and `1_000` are numbers, `<<` merges a mapping in, `!!set` is a mapping of nulls,
 * `!!binary` its decoded text and `!!omap` a list of one-key mappings. Where go-yaml v2 keeps YAML 1.1's
 * other forms as text, so does this: timestamps (`2001-12-14`) and sexagesimal numbers (`190:20:30`).
 * Keys that read as booleans or numbers are their text as JSON writes them (`yes:` is "true", `010:` "8"),
 * and of two equal keys the last is kept.
 *
 * Only the options live here: the `yaml` library itself is loaded by each reader when it needs it.
 */
import type { DocumentOptions, ParseOptions, SchemaOptions, Tags, ScalarTag, CollectionTag } from "yaml";

/** Tags of YAML 1.1 that go-yaml v2 does not resolve on a plain scalar: it keeps the text. */
const KEPT_AS_TEXT = new Set(["tag:yaml.org,2002:timestamp"]);

/**
 * Integers with a base prefix as go-yaml v2 reads them: Go's ParseInt (base 0) after the underscores are
 * dropped. So `0o17` and the upper-case `0O`, `0B`, `0X` are numbers, which YAML 1.1 does not know;
 * `0x_` (no digit) is text and `0_` is 0, where YAML 1.1's patterns read NaN.
 */
const prefixed: ScalarTag = {
  identify: (value) => typeof value === "number",
  default: true,
  tag: "tag:yaml.org,2002:int",
  test: /^[-+]?0(?:[oO](?=_*[0-7])[0-7_]+|[bB](?=_*[01])[01_]+|[xX](?=_*[0-9a-fA-F])[0-9a-fA-F_]+|[0-7_]*)$/,
  resolve: (source) => {
    const negative = source.startsWith("-");
    const body = source.replace(/^[-+]/, "").replaceAll("_", "");
    const radix = { o: 8, b: 2, x: 16 }[body[1]?.toLowerCase() as "o" | "b" | "x"];
    const n = radix === undefined ? parseInt(body, 8) : parseInt(body.slice(2), radix);
    // Go's integers have no -0.
    return negative && n !== 0 ? -n : n;
  },
};

/**
 * Floats as go-yaml v2 reads them, with Go's ParseFloat: a mantissa needs a digit (`.` and `e3` are
 * text, where YAML 1.1's patterns read them as NaN).
 */
const float: ScalarTag = {
  identify: (value) => typeof value === "number",
  default: true,
  tag: "tag:yaml.org,2002:float",
  // A text starting with "." goes to ParseFloat as written (an underscore only between digits, as in a
  // Go literal); one starting with a digit or a sign, without its underscores.
  test: /^(?:\.[0-9](?:_?[0-9])*(?:[eE][-+]?[0-9](?:_?[0-9])*)?|(?:[0-9][0-9_]*(?:\.[0-9_]*)?|[-+](?=[._]*[0-9])(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+))(?:[eE][-+]?[0-9][0-9_]*)?)$/,
  resolve: (source) => parseFloat(source.replaceAll("_", "")),
};

/** `!!binary`: the decoded bytes as text, as go-yaml v2 gives them to JSON (invalid UTF-8 replaced). */
const binary: ScalarTag = {
  identify: () => false,
  default: false,
  tag: "tag:yaml.org,2002:binary",
  resolve: (source, onError) => {
    const text = source.replace(/[\s]/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) {
      onError("!!binary value contains invalid base64 data");
      return source;
    }
    return new TextDecoder().decode(Uint8Array.from(atob(text), (c) => c.charCodeAt(0)));
  },
};

/** `!!set`: a mapping whose values are null, as go-yaml v2 decodes it. */
const set: CollectionTag = { collection: "map", default: false, tag: "tag:yaml.org,2002:set", identify: () => false, resolve: (map) => map };

/** `!!omap` and `!!pairs`: the list of one-key mappings as written. */
const omap: CollectionTag = { collection: "seq", default: false, tag: "tag:yaml.org,2002:omap", identify: () => false, resolve: (seq) => seq };
const pairs: CollectionTag = { ...omap, tag: "tag:yaml.org,2002:pairs" };

/** The YAML 1.1 tags, with go-yaml v2's readings in place of the library's. */
function kubectlTags(tags: Tags): Tags {
  const replaced = new Set([binary.tag, set.tag, omap.tag, pairs.tag]);
  const kept = tags.filter((t) => {
    // The schema's tags are objects; a name (a tag of the library by name) is kept as it is.
    if (typeof t === "string") return true;
    if (KEPT_AS_TEXT.has(t.tag) || replaced.has(t.tag)) return false;
    // Its finite floats (`.inf` and `.nan` are kept) and prefixed integers: ours, which need a digit.
    if (t.tag === float.tag && !String(t.test).includes("inf")) return false;
    if (t.tag === prefixed.tag && (t.format === "BIN" || t.format === "OCT" || t.format === "HEX")) return false;
    // Sexagesimal numbers (`190:20:30`): text to go-yaml v2.
    return t.format !== "TIME";
  });
  return [prefixed, ...kept, float, binary, set, omap, pairs];
}

/** Options of the `yaml` library for reading as kubectl does; spread them before a reader's own. */
export const KUBECTL_YAML: ParseOptions & DocumentOptions & SchemaOptions = {
  version: "1.1",
  merge: true,
  // go-yaml v2 keeps the last of two equal keys (a linter may still refuse them: definitions do).
  uniqueKeys: false,
  customTags: kubectlTags,
};

/**
 * Whether js-yaml's YAML 1.2 core schema could read `text` otherwise than kubectl does: a plain scalar
 * that YAML 1.1 reads as a boolean or a number (`no`, `on`, `010`, `0b1`, `1_000`), a merge key or a
 * tag. Such text goes to the `yaml` library with {@link KUBECTL_YAML}; the test may say yes for text
 * that reads the same (a word `no` inside a longer scalar), which only costs speed.
 */
export function mayReadAsYaml11(text: string): boolean {
  return YAML11.test(text);
}

/**
 * A whole plain scalar (a key at the start of a line or after `- `, a value after `: ` or `- `, an item of
 * a flow collection) that YAML 1.1 reads as a boolean or a number where YAML 1.2 reads text (or another
 * number), a merge key, or a tag. Words inside longer text or comments are not such scalars.
 */
const YAML11 = new RegExp(
  [
    // Where a plain scalar starts: a line (a key), after a colon, "- ", "? " or a flow indicator.
    "(?:^[ \\t]*|:[ \\t]*|[-?][ \\t]+|[[{,][ \\t]*)",
    // A word YAML 1.1 reads as a boolean, or a number only it reads so.
    "(?:[yYnN]|[Yy]es|YES|[Nn]o|NO|[Oo]n|ON|[Oo]ff|OFF|<<",
    "|[-+]?0[0-9_]+(?:\\.[0-9_]*)?|[-+]?0[oObBX][0-9a-fA-F_]*|[-+]0x[0-9a-fA-F_]*|0x[0-9a-fA-F]*_[0-9a-fA-F_]*",
    // A number with an underscore: up to its first underscore without one, so that no two parts can
    // take the same characters (a long run of "_" or "." must not backtrack).
    "|[-+]?[0-9._][0-9.eE+-]*_[0-9_.eE+-]*)",
    // ... that ends there: the end of the line, a comment, a flow indicator, or the colon of a key.
    "(?=[ \\t]*(?:$|#|[,\\]}])|[ \\t]*:(?:\\s|$))",
    // Or a tag.
    "|(?:^|[\\s,[{:-])!(?!=)",
  ].join(""),
  "m",
);

/**
 * The documents of `text` as kubectl reads them: `parse` (the `yaml` library's parseAllDocuments, which
 * the caller loads) with {@link KUBECTL_YAML} and `options`; when they do not parse, read again with
 * quoted continuation lines indented ({@link indentQuotedContinuations}) if that changes the text and
 * makes it parse. With the text the documents were read from (its lines are the input's).
 */
export function kubectlDocuments<D extends { errors: readonly unknown[] }>(parse: (text: string, options: ParseOptions & DocumentOptions & SchemaOptions) => readonly D[], text: string, options: ParseOptions & DocumentOptions & SchemaOptions = {}): { documents: readonly D[]; text: string } {
  const all = { ...KUBECTL_YAML, ...options };
  const documents = parse(text, all);
  if (documents.every((d) => d.errors.length === 0)) return { documents, text };
  const indented = indentQuotedContinuations(text);
  if (indented === text) return { documents, text };
  const retried = parse(indented, all);
  return retried.every((d) => d.errors.length === 0) ? { documents: retried, text: indented } : { documents, text };
}

/*
 * libyaml (and so go-yaml, which kubectl and karmadactl read files with) accepts a multi-line quoted
 * scalar whose continuation lines are indented no deeper than its key, as `kubectl get -o yaml` and
 * other emitters write long messages:
 *
 *     message: 'required fields ''accesskey''
 *     and ''secretkey'''
 *
 * The `yaml` library rejects that: a reader whose text fails to parse reads it again with such
 * continuation lines indented under their key.
 */
const KEY_WITH_QUOTED_VALUE = /^(\s*(?:-\s+)*)((?:[^\s'"#:][^:#]*?)|(?:"[^"]*")|(?:'[^']*')):\s+(['"])(.*)$/;
const ITEM_WITH_QUOTED_VALUE = /^(\s*(?:-\s+)+)(['"])(.*)$/;

/** Where a quoted scalar that starts with `quote` and continues with `rest` ends on this line (or -1). */
function closingIndex(quote: string, rest: string): number {
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (quote === "'") {
      if (c === "'") {
        if (rest[i + 1] === "'") {
          i++;
          continue;
        }
        return i;
      }
    } else if (c === "\\") {
      i++;
    } else if (c === '"') {
      return i;
    }
  }
  return -1;
}

/** Indents the continuation lines of multi-line quoted values under their keys. */
export function indentQuotedContinuations(text: string): string {
  const lines = text.split("\n");
  let quote: string | undefined;
  let minIndent = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (quote === undefined) {
      // A key's quoted value, or a list item's (`- 'text`).
      const m = KEY_WITH_QUOTED_VALUE.exec(line);
      const item = m ? undefined : ITEM_WITH_QUOTED_VALUE.exec(line);
      const [lead, open, rest] = m ? [m[1]!, m[3]!, m[4]!] : item ? [item[1]!, item[2]!, item[3]!] : [];
      if (open === undefined || closingIndex(open, rest!) >= 0) continue;
      quote = open;
      minIndent = lead!.length + 1;
      continue;
    }
    const indent = line.length - line.trimStart().length;
    if (line.trim() !== "" && indent < minIndent + 1) lines[i] = " ".repeat(minIndent + 1 - indent) + line;
    if (closingIndex(quote, line) >= 0) quote = undefined;
  }
  return lines.join("\n");
}
