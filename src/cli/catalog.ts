/**
 * Which Karta answers for an object: the definitions of `-d` (a file, or a directory of them), else
 * those bundled with Karta (`definitions/` in the installed package), picked by the object's root kind.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { formatDiagnostic, hasSyntaxErrors, sortDiagnostics, type Diagnostic } from "../definition/diagnostic.js";
import { loadDefinitions, loadDefinitionValue, type Definition, type LoadResult } from "../definition/load.js";
import { guessedResource } from "../definition/resource-name.js";
import { yamlValues } from "./yaml-input.js";
import { listInputFiles } from "../files/index.js";
import { bundledDirectory } from "../files/package.js";
import { InputError, displayName, readInput } from "./objects.js";
import type { CliIO } from "./io.js";
import { EXIT_ERROR, EXIT_NO_DEFINITION, EXIT_USAGE } from "./exit-codes.js";

/** Definitions read from a file, a directory (recursively) or the bundled folder, with their load errors. */
export interface Catalog {
  /** How the source is named in messages: the file or directory, or `the bundled definitions`. */
  source: string;
  definitions: Definition[];
  errors: Diagnostic[];
  /** Whether these are the definitions bundled with Karta (checked by its tests, so not validated again). */
  bundled: boolean;
  /** Whether `source` is one file (whose only definition answers for any kind, as before). */
  single: boolean;
  /** Where each file named in messages is on disk (bundled files are named from the package root). */
  paths: Map<string, string>;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The bundled definitions folder; an InputError when the package has none. */
export function bundledDefinitionsFolder(): string {
  const dir = bundledDirectory("definitions");
  if (dir === undefined) throw new InputError("the bundled definitions/ folder is missing from this installation");
  return dir;
}

function bundledFileFor(dir: string, object: unknown): string | undefined {
  const o = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  if (typeof o.apiVersion !== "string" || typeof o.kind !== "string" || !/^[A-Za-z0-9]+$/.test(o.kind)) return undefined;
  // The core group (apiVersion v1) lives under core/, as Kubernetes names it (core/v1).
  const parts = o.apiVersion.includes("/") ? o.apiVersion.split("/") : ["core", o.apiVersion];
  if (parts.length !== 2 || parts.some((p) => !/^[a-z0-9.-]+$/.test(p))) return undefined;
  const file = path.join(dir, parts[0]!, parts[1]!, `${o.kind}.yaml`);
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A bundled file read as plain values (fast); the source positions, needed only to point at a field in
 * a message, are read from the text when first asked for.
 */
function loadFast(text: string, name: string): LoadResult {
  let values: unknown[];
  try {
    values = yamlValues(text, true);
  } catch {
    return loadDefinitions(text, name);
  }
  const out: LoadResult = { definitions: [], diagnostics: [] };
  for (const value of values) {
    const loaded = loadDefinitionValue(value, name);
    out.diagnostics.push(...loaded.diagnostics);
    out.definitions.push(...loaded.definitions);
  }
  if (out.diagnostics.length > 0) return loadDefinitions(text, name);
  let positioned: Definition[] | undefined;
  out.definitions = out.definitions.map((d, i) => {
    const full = (): Definition | undefined => (positioned ??= loadDefinitions(text, name).definitions)[i];
    return { ...d, document: i, shape: d.shape, locate: (p, o) => full()?.locate(p, o), locateInValue: (p, n) => full()?.locateInValue(p, n) };
  });
  return out;
}

/** Reads `-d FILE|DIR` (or the bundled definitions when undefined). Unreadable input is an InputError. */
export async function readCatalog(io: CliIO, option: string | undefined, object?: unknown): Promise<Catalog> {
  const dir = option === undefined ? bundledDefinitionsFolder() : option !== "-" && isDirectory(option) ? option : undefined;
  // The bundled definition of a kind lives at <group>/<version>/<Kind>.yaml: read just that one when it is there.
  const own = option === undefined ? bundledFileFor(dir!, object) : undefined;
  const files = own !== undefined ? [own] : dir !== undefined ? listInputFiles([dir], { recursive: true }) : [option!];
  const out: Catalog = { source: option === undefined ? "the bundled definitions" : displayName(option), definitions: [], errors: [], bundled: option === undefined, single: dir === undefined, paths: new Map() };
  for (const file of files) {
    // Bundled files are named from the package root (definitions/apps/v1/Deployment.yaml), wherever it is.
    const name = option === undefined ? path.join("definitions", path.relative(dir!, file)) : displayName(file);
    out.paths.set(name, file);
    const text = await readInput(io, file);
    const loaded = option === undefined ? loadFast(text, name) : loadDefinitions(text, name);
    out.definitions.push(...loaded.definitions);
    out.errors.push(...loaded.diagnostics.filter((d) => d.severity === "error"));
  }
  return out;
}

/** `Kind.version.group` (`PyTorchJob.v1.kubeflow.org`; `Job.v1.batch`; `Pod.v1` for the core group), as kubectl names resources. */
export function qualifiedKind(k: { group: string; version: string; kind: string }): string {
  return [k.kind, k.version, k.group].filter((s) => s !== "").join(".");
}

/** Whether `query` (`Kind`, `Kind.version`, `Kind.version.group`, `Kind.group`, or the same with the kind's resource; any case) names this kind. */
export function kindMatches(query: string, k: { group: string; version: string; kind: string }): boolean {
  const q = query.toLowerCase();
  // The kind, or its resource as kubectl names it (`pytorchjobs`, `pytorchjobs.kubeflow.org`).
  const forms = [k.kind.toLowerCase(), guessedResource(k.kind)].flatMap((n) => [n, `${n}.${k.version}`, `${n}.${k.version}.${k.group}`, `${n}.${k.group}`]).map((s) => s.toLowerCase().replace(/\.$/, ""));
  return forms.includes(q);
}

/** The definitions whose root component is of the object's kind (apiVersion and kind). */
export function definitionsFor(catalog: Catalog, object: unknown): Definition[] {
  const o = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  return catalog.definitions.filter((d) => {
    const k = d.karta.spec?.structureDefinition?.rootComponent?.kind;
    if (k === undefined || k.kind !== o.kind) return false;
    return (k.group === "" ? k.version : `${k.group}/${k.version}`) === o.apiVersion;
  });
}

/** Whether the catalog (or, for the bundled one, the bundled folder) has a definition for the object's kind. */
export function describes(catalog: Catalog, object: unknown): boolean {
  if (catalog.bundled) return bundledFileFor(bundledDefinitionsFolder(), object) !== undefined;
  return definitionsFor(catalog, object).length > 0;
}

/** The exit codes of a command for a definition with errors, and for no definition of the object's kind. */
export interface DefinitionExitCodes {
  invalid: number;
  none: number;
}

/**
 * The definition for `object` from `-d` (or the bundled ones), validated; or, after printing why, the
 * exit code: `codes.invalid` (1) for a definition with errors (2 for a file that does not parse),
 * `codes.none` (4) when no definition is there for the object's kind.
 */
export async function catalogDefinition(command: string, io: CliIO, catalog: Catalog, object: unknown, codes: DefinitionExitCodes = { invalid: EXIT_ERROR, none: EXIT_NO_DEFINITION }, objectSource?: string): Promise<Definition | number> {
  if (catalog.single && !catalog.bundled) return usableDefinition(command, io, catalog.source, catalog, object, catalog.bundled, codes);
  const kind = (object as { kind?: unknown } | null)?.kind;
  if (typeof kind !== "string" || kind === "") {
    // The definition is looked up by the object's kind: without one the object is not one to read (kubectl's words).
    io.stderr(`karta ${command}: ${objectSource !== undefined ? `${objectSource}: ` : ""}Object 'Kind' is missing (the definition is found by the object's kind; give one with -d FILE)\n`);
    return EXIT_USAGE;
  }
  if (catalog.single) return usableDefinition(command, io, catalog.source, catalog, object, catalog.bundled, codes);
  const candidates = definitionsFor(catalog, object);
  const apiVersion = (object as { apiVersion?: unknown }).apiVersion;
  if (candidates.length === 0 && (typeof apiVersion !== "string" || apiVersion === "")) {
    // Found by kind and apiVersion: without the version, what is missing is the object's, not a definition.
    io.stderr(`karta ${command}: ${objectSource !== undefined ? `${objectSource}: ` : ""}Object 'apiVersion' is missing (the definition is found by the object's apiVersion and kind; give one with -d FILE)\n`);
    return EXIT_USAGE;
  }
  if (candidates.length === 0) {
    // A file of the directory that did not load may be the one meant: say why it did not.
    for (const d of sortDiagnostics(catalog.errors)) io.stderr(formatDiagnostic(d) + "\n");
    const o = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
    io.stderr(`karta ${command}: no definition for ${String(o.kind)}${typeof o.apiVersion === "string" ? ` ${o.apiVersion}` : ""} in ${catalog.source}; give one with -d FILE ('karta definitions list' shows the bundled ones)\n`);
    return codes.none;
  }
  return usableDefinition(command, io, catalog.source, { definitions: candidates, errors: catalog.errors }, object, catalog.bundled, codes);
}

/**
 * With several definitions in the file, the one whose root kind is the object's; all of them when more
 * than one is (which to use is ambiguous).
 */
function pickDefinition(definitions: Definition[], object: unknown): Definition | Definition[] {
  if (definitions.length === 1) return definitions[0]!;
  const o = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  const hits = definitions.filter((d) => {
    const k = d.karta.spec?.structureDefinition?.rootComponent?.kind;
    return k !== undefined && k.kind === o.kind && (k.group === "" ? k.version : `${k.group}/${k.version}`) === o.apiVersion;
  });
  return hits.length > 1 ? hits : (hits[0] ?? definitions[0]!);
}

/**
 * The definition for `object` among those read from `file`, when it has no errors; otherwise the errors
 * are printed and the exit code returned: `codes.invalid` for a definition with errors, `codes.none` for a
 * file without any.
 */
async function usableDefinition(command: string, io: CliIO, file: string, loaded: { definitions: Definition[]; errors: Diagnostic[] }, object: unknown, trusted: boolean, codes: DefinitionExitCodes): Promise<Definition | number> {
  if (loaded.definitions.length === 0) {
    for (const d of sortDiagnostics(loaded.errors)) io.stderr(formatDiagnostic(d) + "\n");
    io.stderr(`karta ${command}: no Karta definition found in ${file}\n`);
    if (hasSyntaxErrors(loaded.errors)) return EXIT_USAGE;
    return loaded.errors.length > 0 ? codes.invalid : codes.none;
  }
  const definition = pickDefinition(loaded.definitions, object);
  if (Array.isArray(definition)) {
    const o = object as { apiVersion?: unknown; kind?: unknown };
    const where = [...new Set(definition.map((d) => d.file))].join(", ");
    io.stderr(`karta ${command}: ${definition.length} definitions for ${String(o.kind)} ${String(o.apiVersion)} in ${where} (${definition.map((d) => d.karta.metadata?.name ?? "unnamed").join(", ")}): which to use is ambiguous; keep one\n`);
    return EXIT_USAGE;
  }
  // The bundled definitions are validated by the project's tests; loading the validator for them would
  // only slow every command down.
  const checked = trusted ? [] : (await import("../definition/validate.js")).validateDefinition(definition, { lint: false });
  const problems = sortDiagnostics([...loaded.errors.filter((d) => d.source?.file === definition.file), ...checked]).filter((d) => d.severity === "error");
  if (problems.length > 0) {
    for (const d of problems) io.stderr(formatDiagnostic(d) + "\n");
    io.stderr(`karta ${command}: the definition has ${problems.length} error${problems.length === 1 ? "" : "s"}; fix them first (karta validate shows warnings too)\n`);
    return hasSyntaxErrors(problems) ? EXIT_USAGE : codes.invalid;
  }
  return definition;
}
