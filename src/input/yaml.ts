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
  // A number too large for a double fails Go's ParseFloat, and go-yaml v2 keeps the text (`1e400`).
  resolve: (source) => {
    const n = parseFloat(source.replaceAll("_", ""));
    return Number.isFinite(n) ? n : source;
  },
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
 * tag; an infinity or NaN, or a key that is a number or null (see {@link readAsKubectl}); a last line
 * without a line break, which may end a block scalar. Such text goes to the `yaml` library with
 * {@link KUBECTL_YAML}; the test may say yes for text that reads the same (a word `no` inside a longer
 * scalar), which only costs speed.
 */
export function mayReadAsYaml11(text: string): boolean {
  return YAML11.test(text) || GO_KEY.test(text) || GO_FLOW_KEY.test(text) || (INF_OR_NAN.test(text) && INF_OR_NAN_VALUE.test(text)) || (!text.endsWith("\n") && /[|>]/.test(text));
}

/** `.inf` or `.nan` anywhere (a quick scan), and as a whole plain scalar. */
const INF_OR_NAN = /\.(?:inf|Inf|INF|nan|NaN|NAN)/;
const INF_OR_NAN_VALUE = /(?:^|[\s:,[{-])[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)(?=$|[\s,:\]}#])/m;

/**
 * A key that is a number (starts with a digit, a sign or a dot), null, a flow collection, an alias, or
 * explicit (`? `). A line that only starts with `{` (the JSON that `kubectl apply` keeps in an
 * annotation) is not such a key.
 */
/** The same keys in a flow mapping (`{1e6: x}`, `{a: 1, ~: 2}`). */
const GO_FLOW_KEY = /[{,][ \t]*(?:[-+.]?[0-9][^:,{}[\]\n]*|~|null|Null|NULL)[ \t]*:(?:[ \t,}\]]|$)/m;
const GO_KEY = /^[ \t]*(?:-[ \t]+)*(?:(?:[-+.]?[0-9][^:\n]*|~|null|Null|NULL|[[{][^\n]*[\]}][ \t]*|\*\S+[ \t]+)?:(?:[ \t]|$)|\?(?:[ \t]|$))/m;

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
 * `text` with each lone CR made a LF: YAML breaks lines at CR LF, CR or LF, as libyaml (and so kubectl)
 * reads them, where the `yaml` library breaks them at LF only (a file with CR line breaks would be one
 * line). The length is kept, so offsets and positions hold.
 */
export function lfLineBreaks(text: string): string {
  return text.includes("\r") ? text.replace(/\r(?!\n)/g, "\n") : text;
}

/**
 * The documents of `text` as kubectl reads them (lone CRs read as line breaks, {@link lfLineBreaks}): `parse` (the `yaml` library's parseAllDocuments, which
 * the caller loads) with {@link KUBECTL_YAML} and `options`; when they do not parse, read again with
 * quoted continuation lines indented ({@link indentQuotedContinuations}) if that changes the text and
 * makes it parse. With the text the documents were read from (its lines are the input's).
 */
export function kubectlDocuments<D extends { errors: readonly unknown[] }>(parse: (text: string, options: ParseOptions & DocumentOptions & SchemaOptions) => readonly D[], given: string, options: ParseOptions & DocumentOptions & SchemaOptions = {}): { documents: readonly D[]; text: string } {
  const text = lfLineBreaks(given);
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

const NODE_TYPE = Symbol.for("yaml.node.type");
const MAP = Symbol.for("yaml.map");
const SEQ = Symbol.for("yaml.seq");
const SCALAR = Symbol.for("yaml.scalar");
const ALIAS = Symbol.for("yaml.alias");

/** The parts of the `yaml` library's nodes read here (by their type symbol: the library is not loaded). */
interface Node {
  [NODE_TYPE]?: symbol;
  value?: unknown;
  items?: unknown[];
  range?: [number, number, number];
  source?: string;
  type?: string;
  tag?: string;
  resolve?(doc: unknown): Node | undefined;
}
interface Pair {
  key: Node | null;
  value: Node | null;
}

/**
 * Makes a parsed document read as sigs.k8s.io/yaml reads it, where the `yaml` library's `toJS` would differ;
 * the reason it cannot be read, if kubectl refuses it. In place, on the nodes:
 * - a key that is a number is its Go text: an integer's digits, a float as Go formats a float32 (`1.5`,
 *   `1e+20`, `.inf`); a null key or a collection as a key is an error, as in kubectl;
 * - a merge (`<<`) overrides the keys written before it, as go-yaml v2 assigns in order;
 * - a block scalar that ends the text on a line without a line break has no final line break
 *   (libyaml's clip and keep chomping at the end of the input);
 * - an infinity or NaN is an error (Go's JSON encoder refuses them).
 * `text` is the text the document was parsed from, when its ranges are offsets in it.
 */
export function readAsKubectl(doc: { contents: unknown }, text?: string): KubectlRefusal | undefined {
  const visit = (node: Node | null | undefined, seen: Set<Node>): KubectlRefusal | undefined => {
    if (!node || typeof node !== "object" || seen.has(node)) return undefined;
    seen.add(node);
    const type = node[NODE_TYPE];
    if (type === SCALAR) return scalarProblem(node, text);
    if (type !== MAP && type !== SEQ) return undefined;
    const items = node.items ?? [];
    for (const item of items) {
      const pair = type === MAP ? (item as Pair) : undefined;
      // A key that is a scalar is written as text below (`.inf:` is the key ".inf").
      const problem = pair ? ((pair.key?.[NODE_TYPE] === SCALAR ? undefined : visit(pair.key, seen)) ?? visit(pair.value, seen)) : visit(item as Node, seen);
      if (problem) return problem;
    }
    if (type === MAP) return mapProblem(node, items as Pair[], doc);
    return undefined;
  };
  return visit(doc.contents as Node, new Set());
}

/** What kubectl refuses in a document: why, and where (an offset in the text the document was read from). */
export interface KubectlRefusal {
  message: string;
  offset?: number;
}

const refusal = (node: Node, message: string): KubectlRefusal => (node.range ? { message, offset: node.range[0] } : { message });

function scalarProblem(node: Node, text: string | undefined): KubectlRefusal | undefined {
  const v = node.value;
  if (typeof v === "number" && !Number.isFinite(v)) return refusal(node, `${node.source ?? String(v)} is not a JSON number: JSON has no infinity or NaN (kubectl refuses the value)`);
  if (typeof v === "string" && text !== undefined && (node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED") && node.range?.[1] === text.length && v.endsWith("\n") && /\n[ \t]*\S[^\n]*$/.test(text)) {
    node.value = v.slice(0, -1);
  }
  return undefined;
}

/** Keys as Go text, merges in order; the reason a key cannot be a JSON key. */
function mapProblem(map: Node, pairs: Pair[], doc: unknown): KubectlRefusal | undefined {
  const written = new Map<string, number>();
  const dropped = new Set<number>();
  for (let i = 0; i < pairs.length; i++) {
    const key = pairs[i]!.key;
    const type = key?.[NODE_TYPE];
    if (type === SCALAR && typeof key!.value === "symbol") {
      for (const name of mergedKeys(pairs[i]!.value, doc)) {
        const at = written.get(name);
        if (at !== undefined) dropped.add(at);
        written.delete(name);
      }
      continue;
    }
    // go-yaml follows an alias: the key is the scalar it names.
    const named = followAlias(key, doc);
    const kind = named?.[NODE_TYPE];
    if (kind === MAP || kind === SEQ) return refusal(key!, `a mapping key must be a string, a number or a boolean, not a ${kind === SEQ ? "list" : "mapping"} (kubectl refuses it)`);
    const v = named?.value;
    if (!named || v === null || v === undefined) return refusal(key ?? map, "a mapping key must be a string, a number or a boolean, not null (kubectl refuses it)");
    let name = String(v);
    if (typeof v === "number") {
      const text = goNumberKey(named, v);
      if (text === undefined) return refusal(key!, `mapping key ${named.source ?? v}: an integer above 2^63-1 cannot be a key (kubectl refuses it)`);
      name = text;
      // An alias gets a scalar of its own for the key: the aliased value stays a number where it is a value.
      if (named === key) named.value = text;
      else pairs[i]!.key = new (named.constructor as new (value: unknown) => Node)(text);
    }
    written.set(name, i);
  }
  if (dropped.size > 0) map.items = pairs.filter((_, i) => !dropped.has(i));
  return undefined;
}

/** The node an alias names, or the node itself. */
function followAlias(node: Node | null | undefined, doc: unknown): Node | undefined {
  return node?.[NODE_TYPE] === ALIAS ? node.resolve?.(doc) : (node ?? undefined);
}

/** The keys a merge brings: of a mapping (its own and those merged into it), an alias to one, or a list of those. */
function mergedKeys(value: Node | null, doc: unknown, seen = new Set<Node>()): string[] {
  const target = followAlias(value, doc);
  const maps = target?.[NODE_TYPE] === SEQ ? (target.items ?? []).map((n) => followAlias(n as Node, doc)) : [target];
  return maps.flatMap((m) => {
    if (m?.[NODE_TYPE] !== MAP || seen.has(m)) return [];
    seen.add(m);
    return (m.items as Pair[]).flatMap((p) => (typeof p.key?.value === "symbol" ? mergedKeys(p.value, doc, seen) : [String(p.key?.value)]));
  });
}

/**
 * A number key as sigs.k8s.io/yaml writes it: an int64 in digits, any other number as a float32 (Go's
 * ParseInt, then ParseUint, then ParseFloat, on the text without underscores); undefined for a uint64
 * above int64's range, a key type sigs.k8s.io/yaml refuses.
 */
function goNumberKey(key: Node, v: number): string | undefined {
  const m = key.tag === "tag:yaml.org,2002:float" ? null : /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec((key.source ?? String(v)).replaceAll("_", ""));
  if (m) {
    const n = BigInt(/^0[0-7]+$/.test(m[2]!) ? `0o${m[2]!.slice(1)}` : m[2]!) * (m[1] === "-" ? -1n : 1n);
    if (n >= -(2n ** 63n) && n < 2n ** 63n) return n.toString();
    if (n >= 0n && n < 2n ** 64n) return undefined;
  }
  return goFloat32Text(v);
}

/**
 * When `f` lies exactly halfway between two decimals of `p` + 1 digits, the one with the even last digit
 * (Go's choice; toExponential takes the larger), if it reads back as `f`.
 */
function tieToEven(f: number, p: number): string | undefined {
  // A float's exact decimal expansion; one of more than 100 digits is no halfway point this short.
  const [mantissa, e] = Math.abs(f).toExponential(99).split("e") as [string, string];
  const digits = mantissa.replace(".", "").replace(/0+$/, "");
  if (digits.length !== p + 2 || !digits.endsWith("5") || Number(digits[p]) % 2 !== 0) return undefined;
  const lower = `${f < 0 ? "-" : ""}${digits[0]}${p > 0 ? `.${digits.slice(1, p + 1)}` : ""}e${e}`;
  return Math.fround(Number(lower)) === f ? lower : undefined;
}

/** Go's strconv.FormatFloat(v, 'g', -1, 32), with go-yaml's names for infinities and NaN. */
export function goFloat32Text(v: number): string {
  const f = Math.fround(v);
  if (Number.isNaN(f)) return ".nan";
  if (!Number.isFinite(f)) return f > 0 ? ".inf" : "-.inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  // The shortest decimal that reads back as the same float32.
  let text = f.toExponential(8);
  for (let p = 0; p < 9; p++) {
    const t = f.toExponential(p);
    if (Math.fround(Number(t)) === f) {
      text = tieToEven(f, p) ?? t;
      break;
    }
  }
  const [mantissa, e] = text.split("e") as [string, string];
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace(/^-/, "").replace(".", "").replace(/0+$/, "") || "0";
  const exp = Number(e);
  if (exp < -4 || exp >= 6) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  const point = exp + 1;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
