/**
 * `karta validate [--crd FILE]... [--strict] [-o text|json] FILE...`: loads Karta definitions from files,
 * directories (recursively) or standard input (`-`), validates and lints them, optionally checks their
 * workload-side paths against CRDs, and prints every diagnostic sorted by position with a summary.
 * Exit code: 0 valid (maybe with warnings), 1 errors, 2 usage or unreadable input (a file that does not parse).
 */
import { parseCommand, usageError, type Flags } from "./args.js";
import { CliIO, readErrorReason, readSource } from "./io.js";
import { displayName } from "./objects.js";
import { expandInputs, noInputFiles } from "../files/index.js";
import { CrdIndex, loadCrds, type CrdDefinition } from "../definition/crd.js";
import { countSeverities, formatDiagnostic, hasSyntaxErrors, sortDiagnostics, type Diagnostic } from "../definition/diagnostic.js";
import { checkManagedLabels, checkUniqueRoot, type KartaLike } from "../definition/cluster-rules.js";
import { toDiagnostic } from "../definition/finding.js";
import { validateText } from "../definition/validate.js";

const HELP = `Usage: karta validate [-R] [--crd FILE]... [--strict] [-o text|json|yaml] FILE...

Validates Karta definitions (kartas.run.ai): the reference validator's rules, every jq expression
(syntax and safe profile), unknown fields, and lint warnings (paths on the wrong document, pod
selectors that are not mutually exclusive, non-assignable fragmented paths, null-safety, jq
builtins that gojq, the engine of upstream Karta and KAI Scheduler, does not define). The
rules a cluster holds its Kartas to hold across the files given, as 'karta controller''s admission
webhook refuses them: one Karta per root group/version/kind (among those with a metadata.name), and
run.ai/karta-* labels (when set) equal to the root kind. The errors are the ones the webhook answers with.

FILE is a YAML or JSON file (several documents allowed), a directory (searched recursively for
.yaml, .yml and .json files) or - for standard input. A file may hold a full Karta, a List of them,
a bare spec (structureDefinition: ...) or a fragment (rootComponent: ...). A file named twice (or
a file and its directory) is validated once; a directory without any definition file is an error.

Options:
  --crd FILE     check workload-side paths against this CRD manifest (or directory of them);
                 may be given several times
  -R, --recursive
                 kubectl's flag, the default here: directories are searched recursively;
                 -R=false reads only the files at a directory's top
  --strict       report warnings as errors
  -o, --output   text (default), json or yaml (the diagnostics and a summary)
  -h, --help     show this help

Output: file:line:col: error|warning|notice: <field path>: <message>, then a summary line.
Exit code: 0 valid (warnings allowed), 1 errors (a file or directory without a definition is one,
as 'kubectl apply -f DIR' fails with no objects), 2 usage error, or a file that cannot be read or
does not parse (YAML or JSON syntax).

Example:
  $ karta validate --crd examples/crds/ definitions/kubeflow.org/v1/PyTorchJob.yaml
  1 file, 1 definition: 0 errors, 0 warnings, 0 notices
  $ karta validate -R definitions/batch/
  2 files, 2 definitions: 0 errors, 0 warnings, 0 notices
`;

export const FLAGS = {
  crd: { type: "string", multiple: true },
  strict: { type: "boolean" },
  recursive: { type: "boolean", short: "R", unsetIsUndefined: true },
  output: { type: "string", short: "o", choices: ["text", "json", "yaml"], default: "text" },
} as const satisfies Flags;

/** Runs `karta validate`; returns the exit code. */
export async function runValidate(args: string[], io: CliIO): Promise<number> {
  const p = parseCommand(io, "validate", args, FLAGS, HELP, { positionals: true });
  if (typeof p === "number") return p;
  if (p.positionals.length === 0) return usageError(io, "validate", "no files to validate");
  if (p.values.crd.includes("")) return usageError(io, "validate", "flag needs an argument: --crd");
  if ([...p.values.crd, ...p.positionals].filter((f) => f === "-").length > 1) return usageError(io, "validate", "only one input can be read from standard input");
  const parsed = { crds: p.values.crd, strict: p.values.strict, output: p.values.output, inputs: p.positionals, recursive: p.values.recursive ?? true };
  // Definition files and CRD files that could not be read, counted apart (the summary counts definition files).
  let unreadable = 0;
  let unreadableCrds = 0;
  const read = async (file: string, crd = false): Promise<string | undefined> => {
    try {
      return await readSource(io, file);
    } catch (err) {
      if (crd) unreadableCrds++;
      else unreadable++;
      io.stderr(`karta validate: cannot read ${displayName(file)}: ${readErrorReason(err)}\n`);
      return undefined;
    }
  };

  // A directory with nothing to validate fails the run, as `kubectl apply -f emptydir/` does ("no objects
  // passed to apply"): a CI step on a mistyped or emptied directory must not pass.
  const crdInputs = expandInputs(parsed.crds, { recursive: parsed.recursive });
  const inputs = expandInputs(parsed.inputs, { recursive: parsed.recursive });
  for (const dir of crdInputs.empty) io.stderr(`karta validate: --crd ${dir}: ${noInputFiles(dir, parsed.recursive)}\n`);
  for (const dir of inputs.empty) io.stderr(`karta validate: ${dir}: ${noInputFiles(dir, parsed.recursive)}\n`);
  const empty = crdInputs.empty.length + inputs.empty.length;

  const diagnostics: Diagnostic[] = [];
  const crdDefinitions: CrdDefinition[] = [];
  for (const file of crdInputs.files) {
    const text = await read(file, true);
    if (text === undefined) continue;
    const loaded = loadCrds(text, displayName(file), { required: parsed.crds.includes(file) });
    crdDefinitions.push(...loaded.crds);
    diagnostics.push(...loaded.diagnostics);
  }
  const crds = parsed.crds.length > 0 ? new CrdIndex(crdDefinitions) : undefined;

  const files = inputs.files;
  let definitions = 0;
  // Earlier Kartas, for the one-Karta-per-root-kind rule: those with a name, as a cluster knows them (a
  // fragment or bare spec names no object, so whether two of them are one Karta cannot be told).
  const seen: { name: string; karta: KartaLike }[] = [];
  for (const file of files) {
    const text = await read(file);
    if (text === undefined) continue;
    const name = displayName(file);
    const result = validateText(text, name, { strict: parsed.strict, ...(crds ? { crds } : {}) });
    definitions += result.definitions.length;
    diagnostics.push(...result.diagnostics);
    for (const def of result.definitions) {
      const named = def.karta.metadata?.name;
      const findings = [...checkManagedLabels(def.karta), ...(named ? checkUniqueRoot(def.karta, seen) : [])];
      diagnostics.push(...findings.map((f) => toDiagnostic(def, f)));
      if (named) seen.push({ name: named, karta: def.karta });
    }
    if (result.definitions.length === 0 && !result.diagnostics.some((d) => d.severity === "error")) {
      diagnostics.push({ severity: "error", path: "", message: "no Karta definition found", source: { file: name, line: 1, column: 1 }, code: "empty" });
    }
  }

  const sorted = sortDiagnostics(diagnostics);
  const counts = countSeverities(sorted);
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
  // Files that could not be read are named on stderr and counted here: the summary never reads as a clean run.
  const summary = `${plural(files.length, "file")}${unreadable > 0 ? ` (${unreadable} unreadable)` : ""}${empty > 0 ? `, ${empty} ${empty === 1 ? "directory" : "directories"} without any` : ""}${unreadableCrds > 0 ? `, ${plural(unreadableCrds, "unreadable CRD file")}` : ""}, ${plural(definitions, "definition")}: ${plural(counts.error, "error")}, ${plural(counts.warning, "warning")}, ${plural(counts.notice, "notice")}`;
  if (parsed.output !== "text") {
    const report = { diagnostics: sorted, summary: { files: files.length, ...(unreadable > 0 ? { unreadable } : {}), ...(unreadableCrds > 0 ? { unreadableCrds } : {}), ...(empty > 0 ? { emptyDirectories: empty } : {}), definitions, errors: counts.error, warnings: counts.warning, notices: counts.notice } };
    io.stdout(parsed.output === "json" ? JSON.stringify(report, null, 2) + "\n" : (await import("yaml")).stringify(JSON.parse(JSON.stringify(report)), { lineWidth: 0 }));
  } else {
    for (const d of sorted) io.stdout(formatDiagnostic(d) + "\n");
    io.stdout(summary + "\n");
  }
  // A file that cannot be read or does not parse: upstream's validate exits with its usage code.
  if (unreadable > 0 || unreadableCrds > 0 || hasSyntaxErrors(sorted)) return 2;
  return counts.error > 0 || empty > 0 ? 1 : 0;
}
