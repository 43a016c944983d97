/**
 * kubectl's template output formats, shared by `get`, `describe` and `definitions`: `-o jsonpath=…`
 * (`jsonpath-as-json=`, `jsonpath-file=`), `-o custom-columns=…` (`custom-columns-file=`), `--template`,
 * `--no-headers` and `--allow-missing-template-keys`, applied to the value the command's `-o json` prints: the flags,
 * their help, the printer built from them (kubectl's usage errors), and printing with it.
 */
import { systemErrorText } from "../files/read-error.js";
import type { JsonValue } from "../input/index.js";
import { customColumnsFilePrinter, customColumnsPrinter, JsonPathPrinter, jsonPathPrinter, type ColumnsPrinter } from "../jsonpath/index.js";
import type { Flags } from "./args.js";
import type { CliIO } from "./io.js";

/** kubectl's template formats as `-o` choices: each takes its template, spec or file after `=`. */
export const TEMPLATE_FORMATS = ["jsonpath=", "jsonpath-as-json=", "jsonpath-file=", "custom-columns=", "custom-columns-file="] as const;

/** The template formats by name (`jsonpath`), as `-o` names them without a template and messages list them. */
const TEMPLATE_NAMES: readonly string[] = TEMPLATE_FORMATS.map((f) => f.slice(0, -1));
const TEMPLATE_NAMES_TEXT = `${TEMPLATE_NAMES.slice(0, -1).join(", ")} or ${TEMPLATE_NAMES[TEMPLATE_NAMES.length - 1]}`;

/** The -o values kubectl reads in any case (its JSON, YAML and name printers lowercase the format). */
export const KUBECTL_FOLDED_OUTPUTS = ["json", "yaml", "name"] as const;

/** The flags kubectl has with them. */
export const TEMPLATE_FLAGS = {
  "no-headers": { type: "boolean" },
  template: { type: "string", emptyIsUnset: true },
  "allow-missing-template-keys": { type: "boolean", unsetIsUndefined: true },
} as const satisfies Flags;

/** The help lines of the template formats, under a command's -o line (which says what they print). */
export const TEMPLATE_FORMATS_HELP = `                          jsonpath=TEMPLATE, jsonpath-as-json=TEMPLATE, jsonpath-file=FILE (kubectl's
                          JSONPath templates), custom-columns=HEADER:PATH,... (each PATH a JSONPath
                          such as .a.b), custom-columns-file=FILE`;

/** The help lines of the flags that go with them; `headers` says which output's header --no-headers drops. */
export const templateFlagsHelp = (headers: string): string => `      --template T        the template (or file) of -o jsonpath, jsonpath-as-json, jsonpath-file,
                          custom-columns or custom-columns-file given without one, as kubectl takes it
      --no-headers        no header row (${headers})
      --allow-missing-template-keys=false
                          a key that a jsonpath template names and a value lacks is an error (default:
                          it prints nothing, as kubectl)`;

/** A printer of kubectl's template formats. */
export type TemplatePrinter = { kind: "jsonpath"; printer: JsonPathPrinter; run: TemplateRun } | { kind: "columns"; printer: ColumnsPrinter };

/** What a jsonpath printer has done in this command (a --watch prints with it once per event). */
interface TemplateRun {
  /** Some text printed, by any call. */
  printed: boolean;
  /** The note that the template printed nothing given. */
  noted: boolean;
}

/** Go's os error text for a file that cannot be read (`open FILE: no such file or directory`). */
function goReadError(path: string, err: unknown): string {
  const reason = systemErrorText(err).toLowerCase();
  return (err as { code?: string })?.code === "EISDIR" ? `read ${path}: ${reason}` : `open ${path}: ${reason}`;
}

/**
 * The printer that `-o FORMAT` names when FORMAT is one of kubectl's template formats (undefined for the
 * command's own formats), or a usage error with kubectl's wording: a template that is missing or does not
 * parse, a file that cannot be read, a custom-columns spec that is not HEADER:PATH,...
 */
export function templatePrinter(io: CliIO, output: string | undefined, flags: { "no-headers": boolean; "allow-missing-template-keys"?: boolean | undefined; template?: string | undefined }): TemplatePrinter | { error: string } | undefined {
  const given = flags.template;
  if (output === undefined) return given === undefined ? undefined : { error: `--template needs -o ${TEMPLATE_NAMES_TEXT} (go-template is not supported)` };
  const eq = output.indexOf("=");
  const format = eq < 0 ? output : output.slice(0, eq);
  if (given !== undefined && !TEMPLATE_NAMES.includes(format)) return { error: `--template needs -o ${TEMPLATE_NAMES_TEXT}, not -o ${output}` };
  if (given !== undefined && eq >= 0) return { error: `give the template once: -o ${format}=TEMPLATE or -o ${format} --template TEMPLATE` };
  // As kubectl: the template of --template, else the text after the format's '='.
  const value = given ?? (eq < 0 ? "" : output.slice(eq + 1));
  const file = (label: string): string | { error: string } => {
    try {
      return io.readFile(value);
    } catch (err) {
      return { error: `error reading ${label} ${value}, ${goReadError(value, err)}` };
    }
  };
  switch (format) {
    case "jsonpath":
    case "jsonpath-as-json":
    case "jsonpath-file": {
      if (value === "") return { error: "template format specified but no template given" };
      const template = format === "jsonpath-file" ? file("--template") : value;
      if (typeof template !== "string") return template;
      const options = { asJSON: format === "jsonpath-as-json", allowMissingKeys: flags["allow-missing-template-keys"] ?? true };
      // An empty file is an empty template (it prints nothing), as kubectl reads one.
      const run = { printed: false, noted: false };
      if (template === "") return { kind: "jsonpath", printer: new JsonPathPrinter("", { type: "list", nodes: [] }, options), run };
      const built = jsonPathPrinter(template, options);
      return built.ok ? { kind: "jsonpath", printer: built.printer, run } : { error: built.error };
    }
    case "custom-columns":
    case "custom-columns-file": {
      if (value === "") return { error: "custom-columns format specified but no custom columns given" };
      const text = format === "custom-columns-file" ? file("template") : undefined;
      if (typeof text === "object") return text;
      const built = text === undefined ? customColumnsPrinter(value, { noHeaders: flags["no-headers"] }) : customColumnsFilePrinter(text);
      return built.ok ? { kind: "columns", printer: built.printer } : { error: built.error };
    }
  }
  return undefined;
}

/** A value as `-o json` prints it (what kubectl's printers see: JSON, without undefined members). */
const asJson = (value: unknown): JsonValue => JSON.parse(JSON.stringify(value) ?? "null") as JsonValue;

/**
 * Prints values with a template printer, as kubectl prints objects one after another (custom columns:
 * the header once, the columns as wide as any row so far). A template that fails on a value is reported
 * as `karta COMMAND: ERROR` (what custom columns printed before it stays printed); returns false then.
 */
export function printWithTemplate(io: CliIO, command: string, printer: TemplatePrinter, values: readonly unknown[]): boolean {
  let failed: string | undefined;
  if (printer.kind === "jsonpath") {
    const missing = new Set<string>();
    const run = printer.run;
    for (const value of values) {
      const out = printer.printer.print(asJson(value));
      if (!out.ok) {
        failed = out.error;
        break;
      }
      for (const m of out.missing ?? []) missing.add(m);
      if (out.text.trim() !== "") run.printed = true;
      io.stdout(out.text);
    }
    // kubectl prints nothing for a field no value has; a template written for Kubernetes objects
    // (.metadata.name) over Karta's rows would print nothing without saying why. Said once: --watch
    // prints with the template at every event.
    if (failed === undefined && !run.printed && !run.noted && missing.size > 0 && values.length > 0) {
      run.noted = true;
      io.stderr(`karta ${command}: note: the template printed nothing: no value has ${[...missing].map((m) => `'${m}'`).join(", ")} (-o json shows the fields there are)\n`);
    }
  } else {
    for (const value of values) {
      const out = printer.printer.write(asJson(value));
      if (!out.ok) {
        failed = out.error;
        break;
      }
    }
    const text = printer.printer.flush();
    if (text !== "") io.stdout(text);
  }
  if (failed === undefined) return true;
  io.stderr(`karta ${command}: ${failed}${failed.endsWith("\n") ? "" : "\n"}`);
  return false;
}
