/**
 * Kubernetes objects as the commands read them: from JSON or YAML text (a `List` flattened, as
 * `kubectl get -o yaml` prints it), from files, directories or stdin, pods picked out, and the
 * definition that matches an object, checked before use.
 */
import { parseAllDocuments } from "yaml";
import { formatDiagnostic, loadDefinitions, sortDiagnostics, validateDefinition, type Definition, type Diagnostic } from "../definition/index.js";
import { listInputFiles } from "../files/index.js";
import { findDeepNesting, yamlDocumentValue } from "../input/index.js";
import { apiVersionOf } from "../interpret/index.js";
import { readErrorReason, readSource, type CliIO } from "./io.js";

/** Input that cannot be read or understood: reported as `file: message`. */
export class InputError extends Error {}

/** The objects in a text: JSON (one value or several), or YAML documents; `List`s are flattened. Text that does not parse is an InputError. */
export function parseObjects(text: string, name: string): unknown[] {
  const deep = findDeepNesting(text);
  if (deep !== undefined) throw new InputError(`${name}:${deep.line}: ${deep.message}`);
  const trimmed = text.trimStart();
  let values: unknown[] | undefined;
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      const v = JSON.parse(text) as unknown;
      values = Array.isArray(v) ? v : [v];
    } catch {
      values = undefined; // several JSON values or YAML flow style: the YAML reader takes it
    }
  }
  if (values === undefined) {
    values = [];
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new InputError(`${name}: ${doc.errors[0]!.message}`);
      // Too many aliases (a "billion laughs" document), or an alias to nothing.
      const read = yamlDocumentValue(doc);
      if ("error" in read) throw new InputError(`${name}: ${read.error}`);
      const v = read.value;
      if (v === null || v === undefined) continue;
      values.push(v);
    }
  }
  const out: unknown[] = [];
  const flatten = (v: unknown): void => {
    if (v !== null && typeof v === "object" && !Array.isArray(v) && typeof (v as { kind?: unknown }).kind === "string" && /List$/.test((v as { kind: string }).kind) && Array.isArray((v as { items?: unknown }).items)) {
      for (const item of (v as { items: unknown[] }).items) flatten(item);
    } else out.push(v);
  };
  for (const v of values) flatten(v);
  return out;
}

/** Whether a value looks like a pod (a Pod, or an object without a kind). */
export function isPodLike(v: unknown): boolean {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const kind = (v as { kind?: unknown }).kind;
  return kind === undefined || kind === "Pod";
}

/** With several definitions in the file, the one whose root kind is the object's. */
export function pickDefinition(definitions: Definition[], object: unknown): Definition {
  if (definitions.length === 1) return definitions[0]!;
  const o = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  const hit = definitions.find((d) => {
    const k = d.karta.spec?.structureDefinition?.rootComponent?.kind;
    return k !== undefined && k.kind === o.kind && apiVersionOf(k) === o.apiVersion;
  });
  return hit ?? definitions[0]!;
}

/** How a file is named in messages: `<stdin>` for `-`. */
export function displayName(file: string): string {
  return file === "-" ? "<stdin>" : file;
}

/** Reads a file named on the command line (`-` for stdin); what fails is an InputError `cannot read FILE: why`. */
export async function readInput(io: CliIO, file: string): Promise<string> {
  try {
    return await readSource(io, file);
  } catch (err) {
    throw new InputError(`cannot read ${file}: ${readErrorReason(err)}`);
  }
}

/** The one workload object of a file; any other number of objects is an InputError. */
export async function readWorkloadObject(io: CliIO, file: string): Promise<unknown> {
  const objects = parseObjects(await readInput(io, file), displayName(file));
  if (objects.length !== 1) throw new InputError(`${displayName(file)}: expected one workload object, found ${objects.length}`);
  return objects[0];
}

/** The objects in files, directories (recursively) or stdin, each with the file it came from; `keep` picks some. */
export async function readObjects(io: CliIO, sources: readonly string[], keep: (v: unknown) => boolean = () => true): Promise<{ object: unknown; file: string }[]> {
  const out: { object: unknown; file: string }[] = [];
  for (const file of listInputFiles(sources, { recursive: true })) {
    for (const object of parseObjects(await readInput(io, file), displayName(file))) if (keep(object)) out.push({ object, file });
  }
  return out;
}

/** The definitions of a file, with their load errors (warnings are `karta validate`'s to show). */
export async function readDefinitions(io: CliIO, file: string): Promise<{ definitions: Definition[]; errors: Diagnostic[] }> {
  const loaded = loadDefinitions(await readInput(io, file), displayName(file));
  return { definitions: loaded.definitions, errors: loaded.diagnostics.filter((d) => d.severity === "error") };
}

/**
 * The definition for `object` among those read from `file`, when it has no errors; otherwise the errors
 * are printed and the exit code returned: 1 for a definition with errors, 2 for a file without any.
 */
export function usableDefinition(command: string, io: CliIO, file: string, loaded: { definitions: Definition[]; errors: Diagnostic[] }, object: unknown): Definition | number {
  if (loaded.definitions.length === 0) {
    for (const d of sortDiagnostics(loaded.errors)) io.stderr(formatDiagnostic(d) + "\n");
    io.stderr(`karta ${command}: no Karta definition found in ${file}\n`);
    return loaded.errors.length > 0 ? 1 : 2;
  }
  const definition = pickDefinition(loaded.definitions, object);
  const problems = sortDiagnostics([...loaded.errors.filter((d) => d.source?.file === definition.file), ...validateDefinition(definition, { lint: false })]).filter((d) => d.severity === "error");
  if (problems.length > 0) {
    for (const d of problems) io.stderr(formatDiagnostic(d) + "\n");
    io.stderr(`karta ${command}: the definition has ${problems.length} error${problems.length === 1 ? "" : "s"}; fix them first (karta validate shows warnings too)\n`);
    return 1;
  }
  return definition;
}
