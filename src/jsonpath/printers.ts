/**
 * kubectl's two template printers, as kubectl v0.37.2 builds them for `-o jsonpath=TEMPLATE` (and
 * `jsonpath-as-json`, `jsonpath-file`) and `-o custom-columns=SPEC` (and `custom-columns-file`):
 *
 * - the JSONPath printer (cli-runtime's JSONPathPrinter, missing keys allowed unless told otherwise)
 *   writes each action's results separated by spaces, with `jsonpath-as-json` each as an indented JSON
 *   array; an error is cli-runtime's "error executing jsonpath …" with its dump of the template and the
 *   object (in Go syntax);
 * - the custom-columns printer (kubectl's get.CustomColumnsPrinter) writes a header (unless --no-headers;
 *   a columns file always has one) and a row per item of a list (or the object alone), each cell the
 *   values of its path (wrapped as `{.path}`: kubectl's RelaxedJSONPathExpression) as `%v` prints them,
 *   joined by commas, `<none>` for none, aligned by kubectl's tabwriter.
 *
 * Pure: the caller reads a template file and hands its text. Errors are values. One difference on
 * purpose: a column's path that does not parse is an error when the printer is built, where kubectl finds
 * it only when printing (after the header).
 */
import { goQuote } from "../gofmt/index.js";
import type { JsonValue } from "../input/index.js";
import { Execution } from "./evaluate.js";
import type { ListNode } from "./nodes.js";
import { parse } from "./parse.js";
import { TabWriter } from "./tabwriter.js";
import { goJSON, goSprint, goSyntax, resultText, TooDeep, type Value } from "./values.js";

/** What a printer wrote, or its error (with what it wrote before it, where kubectl writes that too). */
/** What a printer made of a value; `missing`: fields the template asked of values that had none (printed as nothing). */
export type Printed = { ok: true; text: string; missing?: readonly string[] } | { ok: false; error: string; text?: string };
export type Built<P> = { ok: true; printer: P } | { ok: false; error: string };

/** The most text a printer writes for one object: a template that prints more fails instead. */
export const MAX_OUTPUT = 128 * 1024 * 1024;
const tooLong = `the output is longer than ${MAX_OUTPUT / (1024 * 1024)} MiB`;

export interface JsonPathOptions {
  /** `jsonpath-as-json`: each action's results as an indented JSON array. */
  asJSON?: boolean;
  /** kubectl's --allow-missing-template-keys (default true): a missing key is no result, not an error. */
  allowMissingKeys?: boolean;
}

export class JsonPathPrinter {
  constructor(
    readonly template: string,
    private readonly root: ListNode,
    private readonly options: JsonPathOptions,
  ) {}

  /** The template applied to a value (as kubectl prints an object); each call starts afresh. */
  print(value: JsonValue): Printed {
    try {
      const execution = new Execution(this.root, this.options.allowMissingKeys ?? true);
      const found = execution.findResults(value);
      if (!found.ok) return { ok: false, error: this.executionError(found.error, value) };
      const parts: string[] = [];
      let length = 0;
      for (const results of found.results) {
        const text = this.options.asJSON ? goJSON(results as JsonValue[], "    ") + "\n" : results.map(resultText).join(" ");
        length += text.length;
        if (length > MAX_OUTPUT) return { ok: false, error: this.executionError(tooLong, value) };
        parts.push(text);
      }
      return { ok: true, text: parts.join(""), ...(execution.missing.size > 0 ? { missing: [...execution.missing] } : {}) };
    } catch (err) {
      if (err instanceof TooDeep) return { ok: false, error: `error executing jsonpath: ${err.message}` };
      throw err;
    }
  }

  /** cli-runtime's error: the template's error, then the template and the object given to it. */
  private executionError(error: string, value: Value): string {
    return (
      `error executing jsonpath ${goQuote(this.template)}: Error executing template: ${error}. Printing more information for debugging the template:\n` +
      `\ttemplate was:\n\t\t${this.template}\n` +
      `\tobject given to jsonpath engine was:\n\t\t${goSyntax(value)}\n\n\n`
    );
  }
}

/**
 * The printer of `-o jsonpath=TEMPLATE` (the template of `jsonpath-file=FILE` read by the caller), with
 * kubectl's errors: "template format specified but no template given", "error parsing jsonpath T, …".
 */
export function jsonPathPrinter(template: string, options: JsonPathOptions = {}): Built<JsonPathPrinter> {
  if (template === "") return { ok: false, error: "template format specified but no template given" };
  const parsed = parse(template);
  if (!parsed.ok) return { ok: false, error: `error parsing jsonpath ${template}, ${parsed.error}` };
  return { ok: true, printer: new JsonPathPrinter(template, parsed.root, options) };
}

/** kubectl's RelaxedJSONPathExpression: `a.b`, `.a.b`, `{a.b}` and `{.a.b}` all become `{.a.b}`. */
export function relaxedJSONPathExpression(expression: string): { ok: true; template: string } | { ok: false; error: string } {
  if (expression === "") return { ok: true, template: "" };
  const m = /^\{\.?([^{}]+)\}$|^\.?([^{}]+)$/.exec(expression);
  if (!m) return { ok: false, error: "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'" };
  return { ok: true, template: `{.${m[1] || m[2]}}` };
}

interface Column {
  header: string;
  root: ListNode;
}

/** `fmt.Sprint` of a cell value, with kubectl's escapes of terminal control characters. */
const escapeTerminal = (s: string): string => s.replaceAll("\x1b", "^[").replaceAll("\r", "\\r");

export class ColumnsPrinter {
  private headerWritten = false;
  private readonly writer = new TabWriter();

  constructor(
    private readonly columns: readonly Column[],
    private readonly noHeaders: boolean,
  ) {}

  /** The headers, in order. */
  get headers(): string[] {
    return this.columns.map((c) => c.header);
  }

  /**
   * Writes a value (a list's items, or the object) into the printer's columns without flushing them: as
   * kubectl's watch prints objects one by one into one tabwriter, whose widths only grow. The header is
   * written once. On an error, the rows before it stay written.
   */
  write(value: JsonValue): { ok: true } | { ok: false; error: string } {
    if (!this.noHeaders && !this.headerWritten) {
      this.writer.write(this.headers.join("\t") + "\n");
      this.headerWritten = true;
    }
    // One template state per column for the whole list, as kubectl's printer parses each once per object.
    const runs = this.columns.map((c) => new Execution(c.root, true));
    const list = typeof value === "object" && value !== null && !Array.isArray(value) && Array.isArray(value["items"]);
    const items = list ? (value["items"] as JsonValue[]) : [value];
    try {
      let length = 0;
      for (const item of items) {
        const cells: string[] = [];
        for (const run of runs) {
          const found = run.findResults(item);
          if (!found.ok) return { ok: false, error: found.error };
          const texts = found.results.length === 0 || found.results[0]!.length === 0 ? ["<none>"] : [];
          for (const results of found.results) for (const v of results) texts.push(escapeTerminal(goSprint(v)));
          cells.push(texts.join(","));
        }
        const row = cells.join("\t") + "\n";
        length += row.length;
        if (length > MAX_OUTPUT) return { ok: false, error: tooLong };
        this.writer.write(row);
      }
      return { ok: true };
    } catch (err) {
      if (err instanceof TooDeep) return { ok: false, error: err.message };
      throw err;
    }
  }

  /** The text written since the last flush, aligned. */
  flush(): string {
    return this.writer.flush();
  }

  /** One value printed alone, as `kubectl get -o custom-columns=…` prints its list. */
  print(value: JsonValue): Printed {
    const written = this.write(value);
    const text = this.flush();
    return written.ok ? { ok: true, text } : { ok: false, error: written.error, text };
  }
}

function columnsOf(pairs: readonly { header: string; path: string }[], noHeaders: boolean): Built<ColumnsPrinter> {
  const templates: { header: string; template: string }[] = [];
  for (const { header, path } of pairs) {
    const relaxed = relaxedJSONPathExpression(path);
    if (!relaxed.ok) return relaxed;
    templates.push({ header, template: relaxed.template });
  }
  // Each column's path parses here, where kubectl parses it when it prints (after the header).
  const columns: Column[] = [];
  for (const { header, template } of templates) {
    const p = parse(template);
    if (!p.ok) return { ok: false, error: p.error };
    columns.push({ header, root: p.root });
  }
  return { ok: true, printer: new ColumnsPrinter(columns, noHeaders) };
}

/** The printer of `-o custom-columns=SPEC` (HEADER:PATH,... ), with kubectl's errors. */
export function customColumnsPrinter(spec: string, options: { noHeaders?: boolean } = {}): Built<ColumnsPrinter> {
  if (spec === "") return { ok: false, error: "custom-columns format specified but no custom columns given" };
  const pairs: { header: string; path: string }[] = [];
  for (const part of spec.split(",")) {
    const colon = part.indexOf(":");
    if (colon < 0) return { ok: false, error: `unexpected custom-columns spec: ${part}, expected <header>:<json-path-expr>` };
    pairs.push({ header: part.slice(0, colon), path: part.slice(colon + 1) });
  }
  return columnsOf(pairs, options.noHeaders ?? false);
}

/** Go's unicode.IsSpace, as bufio.ScanWords splits. */
const SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;
const words = (line: string): string[] => line.split(SPACE).filter((w) => w !== "");

/**
 * The printer of `-o custom-columns-file=FILE`, given the file's text: a line of headers and a line of
 * paths, separated by white space. Its header is always printed (kubectl ignores --no-headers here).
 */
export function customColumnsFilePrinter(text: string): Built<ColumnsPrinter> {
  // bufio.Scanner's lines: split at \n, a trailing \r dropped, no empty last line.
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  if (text.endsWith("\n") || text === "") lines.pop();
  const help = "Expected format is one line of space separated headers, one line of space separated column specs.";
  if (lines.length < 1) return { ok: false, error: `invalid template, missing header line. ${help}` };
  if (lines.length < 2) return { ok: false, error: `invalid template, missing spec line. ${help}` };
  const headers = words(lines[0]!);
  const specs = words(lines[1]!);
  if (headers.length !== specs.length) return { ok: false, error: `number of headers (${headers.length}) and field specifications (${specs.length}) don't match` };
  return columnsOf(
    headers.map((header, i) => ({ header, path: specs[i]! })),
    false,
  );
}
