/**
 * `karta definitions list|show`: the Karta definitions bundled with Karta (or those of `-d`), by kind.
 * Exit code: 0 fine, 1 a definition file has errors, 2 usage or unreadable input, 4 no definition for the kind.
 */
import { parseCommand, usageError, type Flags } from "./args.js";
import { kindMatches, qualifiedKind, readCatalog, type Catalog } from "./catalog.js";
import { preferBuiltIn } from "./builtin-groups.js";
import { formatDiagnostic, hasSyntaxErrors, sortDiagnostics } from "../definition/diagnostic.js";
import type { Definition } from "../definition/load.js";
import type { CliIO } from "./io.js";
import { InputError, readInput } from "./objects.js";
import { EXIT_NO_DEFINITION, EXIT_USAGE } from "./exit-codes.js";
import { KUBECTL_FOLDED_OUTPUTS, printWithTemplate, TEMPLATE_FLAGS, TEMPLATE_FORMATS, TEMPLATE_FORMATS_HELP, templateFlagsHelp, templatePrinter } from "./output-templates.js";

export const DEFINITIONS_HELP = `Usage: karta definitions list [-d PATH] [--group G [--kind K [--version V]]] [--component-limit N]
                              [-o table|name|yaml|json|TEMPLATE] [--no-headers]
       karta definitions show KIND[.VERSION[.GROUP]] [-d PATH] [-o yaml|json|TEMPLATE]

Lists the Karta definitions bundled with Karta (definitions/<group>/<version>/<Kind>.yaml), one per
workload kind: its group, version and kind, its file, its components, and its gang format
(podGroups: one PodGroup per group of members; podGroup: one group with subGroups). 'show' prints
one definition, named as kubectl names resources: PyTorchJob, PyTorchJob.v1 or
PyTorchJob.v1.kubeflow.org, or its resource, pytorchjobs or pytorchjobs.kubeflow.org (any case).
'karta inspect' and 'karta compile' use the same definition for an object of that kind when no -d
is given.

  -d, --definition PATH   a Karta file or a directory of them instead of the bundled definitions
      --group G           list: only the definitions of API group G (core: "")
      --kind K            list: only kind K (with --group)
      --version V         list: only version V (with --kind)
      --component-limit N list's table: at most N components named in a row, then "+M more"
                          (default 3; 0: all)
  -o, --output FORMAT     list: table (default), name (KIND.VERSION.GROUP), yaml or json (a List of
                          the Kartas); show: yaml (default: the file as written) or json; or, for
                          either, a kubectl template over what json prints:
${TEMPLATE_FORMATS_HELP}
${templateFlagsHelp("the table, custom-columns")}
  -h, --help              show this help

Exit code: 0 fine, 1 a definition file has errors, 2 usage or unreadable input, 4 no definition for
the kind 'show' names.

Example:
  karta definitions list
  karta definitions list -o name
  karta definitions list -o jsonpath='{range .items[*]}{.metadata.name}{"\\n"}{end}'
  karta definitions list -o custom-columns='KIND:{.metadata.labels.run\\.ai/karta-kind},NAME:.metadata.name'
  karta definitions show PyTorchJob
  karta definitions show job.v1.batch -o json
`;

export const FLAGS = {
  definition: { type: "string", short: "d" },
  group: { type: "string" },
  kind: { type: "string", emptyIsUnset: true },
  version: { type: "string", emptyIsUnset: true },
  "component-limit": { type: "integer", min: 0, default: 3 },
  output: { type: "string", short: "o", choices: ["table", "name", "yaml", "json", ...TEMPLATE_FORMATS], foldCase: KUBECTL_FOLDED_OUTPUTS },
  ...TEMPLATE_FLAGS,
} as const satisfies Flags;

interface Row {
  kind: string;
  apiVersion: string;
  name: string;
  components: string[];
  gang: string;
  file: string;
}

function row(d: Definition): Row {
  const s = d.karta.spec?.structureDefinition;
  const k = s?.rootComponent?.kind ?? { group: "", version: "", kind: "" };
  const gang = d.karta.spec?.optimizationInstructions?.gangScheduling;
  const format = gang?.podGroup ? (gang.podGroup.subGroups?.length ? "podGroup+subGroups" : "podGroup") : gang?.podGroups?.length ? "podGroups" : "-";
  return {
    kind: k.kind,
    apiVersion: k.group === "" ? k.version : `${k.group}/${k.version}`,
    name: qualifiedKind(k),
    components: [s?.rootComponent?.name, ...(s?.childComponents ?? []).map((c) => c.name)].filter((n) => n !== undefined),
    gang: format,
    file: d.file,
  };
}

/** The components of a row as the table names them: at most `limit` (0: all), then how many more. */
function componentsCell(components: readonly string[], limit: number): string {
  if (limit === 0 || components.length <= limit) return components.join(",");
  return [...components.slice(0, limit), `+${components.length - limit} more`].join(",");
}

function table(rows: Row[], headers: boolean, componentLimit: number): string {
  const head = ["KIND", "APIVERSION", "COMPONENTS", "GANG", "FILE"];
  const cells = [...(headers ? [head] : []), ...rows.map((r) => [r.kind, r.apiVersion, componentsCell(r.components, componentLimit), r.gang, r.file])];
  const widths = head.map((_, c) => Math.max(...cells.map((r) => r[c]!.length)));
  return cells.map((r) => r.map((cell, c) => (c < r.length - 1 ? cell.padEnd(widths[c]! + 3) : cell)).join("")).join("\n") + "\n";
}

async function yaml(value: unknown): Promise<string> {
  const { stringify } = await import("yaml");
  return stringify(JSON.parse(JSON.stringify(value)), { lineWidth: 0, aliasDuplicateObjects: false });
}

/** Runs `karta definitions`. */
export async function runDefinitions(args: string[], io: CliIO): Promise<number> {
  const p = parseCommand(io, "definitions", args, FLAGS, DEFINITIONS_HELP, { positionals: true });
  if (typeof p === "number") return p;
  const [verb, ...rest] = p.positionals;
  if (verb !== "list" && verb !== "show") return usageError(io, "definitions", verb === undefined ? "say list or show" : `unknown subcommand '${verb}': expected list or show`);
  if (verb === "list" && rest.length > 0) return usageError(io, "definitions", `unexpected argument '${rest[0]}'`);
  if (verb === "show" && (rest.length !== 1 || rest[0]!.trim() === "")) return usageError(io, "definitions", rest.length <= 1 ? "show needs a KIND (e.g. PyTorchJob or PyTorchJob.v1.kubeflow.org)" : `unexpected argument '${rest[1]}'`);
  const output = p.values.output;
  if (verb === "show" && (output === "table" || output === "name")) return usageError(io, "definitions", `invalid value '${output}' for --output: show prints yaml, json or a template`);
  const { group, kind, version } = p.values;
  // As upstream's kli: the filters narrow one another, a version within a kind within a group.
  if (verb === "show" && (group !== undefined || kind !== undefined || version !== undefined)) return usageError(io, "definitions", "--group, --kind and --version filter list; show takes KIND.VERSION.GROUP");
  if (kind !== undefined && group === undefined) return usageError(io, "definitions", "--kind needs --group");
  if (version !== undefined && kind === undefined) return usageError(io, "definitions", "--version needs --kind");
  const template = templatePrinter(io, output, p.values);
  if (template && "error" in template) return usageError(io, "definitions", template.error);
  let catalog: Catalog;
  try {
    catalog = await readCatalog(io, p.values.definition);
  } catch (err) {
    if (err instanceof InputError) {
      io.stderr(`karta definitions: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  // Definitions given with -d are checked as karta validate checks them (a jq expression that does not
  // compile is an error too); the bundled ones are validated by the project's tests.
  const errors = catalog.bundled ? catalog.errors : sortDiagnostics([...catalog.errors, ...(await import("../definition/validate.js")).definitionErrors(catalog.definitions)]);
  for (const d of errors) io.stderr(formatDiagnostic(d) + "\n");
  // A file that does not parse is unreadable input (2); a definition with errors, an error (1).
  const failed = hasSyntaxErrors(errors) ? 2 : errors.length > 0 ? 1 : 0;
  const definitions = [...catalog.definitions].sort((a, b) => row(a).name.localeCompare(row(b).name));

  if (verb === "list") {
    // A definition without a kind cannot be named or used; its errors on stderr say why.
    const listed = definitions.filter((d) => {
      const k = d.karta.spec?.structureDefinition?.rootComponent?.kind;
      if (typeof k?.kind !== "string" || k.kind === "") return false;
      // Kinds and groups in any case, as kubectl names them; a version exactly.
      return (group === undefined || (k.group ?? "").toLowerCase() === group.toLowerCase()) && (kind === undefined || k.kind.toLowerCase() === kind.toLowerCase()) && (version === undefined || k.version === version);
    });
    const rows = listed.map(row);
    const list = { apiVersion: "v1", kind: "List", metadata: { resourceVersion: "" }, items: listed.map((d) => d.karta) };
    if (template) {
      if (!printWithTemplate(io, "definitions", template, [list])) return EXIT_USAGE;
    } else if (output === "name") io.stdout(rows.map((r) => r.name + "\n").join(""));
    else if (output === "json" || output === "yaml") {
      io.stdout(output === "json" ? JSON.stringify(list, null, 2) + "\n" : await yaml(list));
    } else if (rows.length > 0) io.stdout(table(rows, !p.values["no-headers"], p.values["component-limit"]));
    // As kubectl get: no table without rows, and the reason on stderr.
    else io.stderr(`No definitions found in ${catalog.source}.\n`);
    return failed;
  }

  const query = rest[0]!;
  // `job` is Job.v1.batch although Volcano's Job.v1alpha1.batch.volcano.sh matches too: a built-in
  // group first, as kubectl resolves it; two CRDs' kinds of one name stay ambiguous.
  const hits = preferBuiltIn(
    definitions.filter((d) => {
      const k = d.karta.spec?.structureDefinition?.rootComponent?.kind;
      return k !== undefined && kindMatches(query, k);
    }),
    (d) => d.karta.spec!.structureDefinition!.rootComponent!.kind!.group,
  );
  if (hits.length === 0) {
    io.stderr(`karta definitions: no definition for '${query}' in ${catalog.source} ('karta definitions list' shows them)\n`);
    return EXIT_NO_DEFINITION;
  }
  if (hits.length > 1) {
    io.stderr(`karta definitions: '${query}' names ${hits.length} definitions: ${hits.map((d) => row(d).name).join(", ")}; give KIND.VERSION.GROUP\n`);
    return 2;
  }
  const d = hits[0]!;
  // A definition with errors is not printed (as inspect prints nothing then): `show > file.yaml` would
  // keep a definition its errors above call broken.
  if (errors.some((e) => e.severity === "error" && e.source?.file === d.file)) {
    io.stderr(`karta definitions: ${row(d).name} not shown: ${d.file} has errors ('karta validate ${d.file}' lists them)\n`);
    return failed;
  }
  if (template) {
    if (!printWithTemplate(io, "definitions", template, [d.karta])) return EXIT_USAGE;
  } else if (output === "json") io.stdout(JSON.stringify(d.karta, null, 2) + "\n");
  else {
    // The file as written (comments included) when it holds just this definition.
    const alone = catalog.definitions.filter((x) => x.file === d.file).length === 1;
    const text = alone ? await readFileText(io, d, catalog) : undefined;
    io.stdout(text ?? (await yaml(d.karta)));
  }
  return failed;
}

async function readFileText(io: CliIO, d: Definition, catalog: Catalog): Promise<string | undefined> {
  if (!/\.ya?ml$/i.test(d.file)) return undefined;
  const real = catalog.paths.get(d.file) ?? d.file;
  try {
    return await readInput(io, real);
  } catch {
    return undefined;
  }
}
