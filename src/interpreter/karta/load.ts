/**
 * Where the Karta layer's definitions come from: the Kartas bundled with the project (`definitions/`
 * at the package root, one file per root kind, found by walking up from this module like the
 * thirdparty customizations), and definitions a user gives (`karta interpret -d FILE`), which are
 * validated first and take precedence over the bundled ones for their kinds.
 */
import { bundledDirectory } from "../../files/package.js";
import { readdirSync, statSync } from "node:fs";
import { readTextFile } from "../../files/read.js";
import path from "node:path";
import { formatDiagnostic, type Diagnostic } from "../../definition/diagnostic.js";
import { loadDefinitions, type Definition } from "../../definition/load.js";
import { validateDefinition } from "../../definition/validate.js";
import type { ResourceKind } from "../types.js";
import { KartaLayer, type KartaLayerOptions, type LazyKartaSource, type OperationSupport } from "./layer.js";

/** The directory name of the bundled Kartas, at the package root. */
export const BUNDLED_DEFINITIONS_DIRECTORY = "definitions";

/** The bundled Kartas' directory, in the installed package (never searched from the working directory); undefined when it was installed without it. */
export function bundledDefinitionsDir(): string | undefined {
  return bundledDirectory(BUNDLED_DEFINITIONS_DIRECTORY);
}

/** Definitions read from files, with the problems found (as formatted diagnostics). */
export interface LoadedKartas {
  definitions: Definition[];
  diagnostics: Diagnostic[];
}

/** Every `.yaml`/`.yml`/`.json` file under `dir`, recursively, in sorted order. */
function definitionFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...definitionFiles(full));
    else if (/\.(ya?ml|json)$/i.test(name)) out.push(full);
  }
  return out;
}

/** Bundled files read in this process: they ship with the package and do not change while it runs. */
const bundledFiles = new Map<string, LoadedKartas>();

/** One bundled file's Kartas (read once per process). */
function readBundledFile(file: string): LoadedKartas {
  let known = bundledFiles.get(file);
  if (known === undefined) {
    const loaded = loadDefinitions(readTextFile(file), file);
    bundledFiles.set(file, (known = { definitions: loaded.definitions, diagnostics: loaded.diagnostics.filter((d) => d.severity === "error") }));
  }
  return { definitions: [...known.definitions], diagnostics: [...known.diagnostics] };
}

function missingDirectory(): LoadedKartas {
  return { definitions: [], diagnostics: [{ severity: "error", path: "", message: `bundled definitions directory ${BUNDLED_DEFINITIONS_DIRECTORY}/ not found`, code: "bundled" }] };
}

/**
 * Reads every bundled Karta (each file once per process). They are validated by the project's tests,
 * so only loading problems are reported here (a broken file leaves the others working).
 */
export function loadBundledKartas(dir: string | undefined = bundledDefinitionsDir()): LoadedKartas {
  if (dir === undefined) return missingDirectory();
  const out: LoadedKartas = { definitions: [], diagnostics: [] };
  for (const file of definitionFiles(dir)) {
    const loaded = readBundledFile(file);
    out.definitions.push(...loaded.definitions);
    out.diagnostics.push(...loaded.diagnostics);
  }
  return out;
}

/**
 * The bundled Kartas by the kind their file is named for (`definitions/<group>/<version>/<Kind>.yaml`,
 * `core/<version>/<Kind>.yaml` or `<version>/<Kind>.yaml` for the core group), each read and compiled when its kind is first asked
 * about: a command or a worker that answers for one kind does not read the other files. A test checks
 * that every file's root kind is the one its path names.
 */
export function bundledKartaFiles(dir: string): { kind: ResourceKind; file: string; load(): LoadedKartas }[] {
  return definitionFiles(dir).flatMap((file) => {
    const parts = path.relative(dir, file).split(path.sep);
    const kind = parts.pop()!.replace(/\.(ya?ml|json)$/i, "");
    if (parts.length < 1 || parts.length > 2) return [];
    // The core group's folder is `core` (or absent): its apiVersion is the version alone.
    const apiVersion = parts.length === 2 && parts[0] === "core" ? parts[1]! : parts.join("/");
    return [{ kind: { apiVersion, kind }, file, load: () => readBundledFile(file) }];
  });
}

/**
 * Loads user-supplied Kartas from text and validates them (without the linter): definitions with
 * errors are returned with their diagnostics, so that a caller can refuse them.
 */
export function loadKartaText(text: string, file: string): LoadedKartas {
  const loaded = loadDefinitions(text, file);
  const diagnostics = loaded.diagnostics.filter((d) => d.severity === "error");
  for (const d of loaded.definitions) diagnostics.push(...validateDefinition(d, { lint: false }).filter((x) => x.severity === "error"));
  return { definitions: loaded.definitions, diagnostics };
}

/** Options of {@link createKartaInterpreter}. */
export interface KartaInterpreterOptions extends KartaLayerOptions {
  /** User definitions; for their kinds they replace the bundled ones. */
  definitions?: readonly Definition[];
  /** Whether to add the bundled Kartas (default true). */
  bundled?: boolean;
  /** The bundled Kartas' directory (default: found from this module). */
  bundledDir?: string;
  /**
   * Karmada's built-in interpreters (the native layer): a bundled Karta does not answer an operation
   * they implement for its kind (Deployment health, Job replicas...), so that Kubernetes' own kinds
   * get Karmada's reference answers. User definitions are not affected.
   */
  builtin?: OperationSupport;
}

/**
 * Creates the Karta layer from user definitions and (by default) the bundled Kartas. Problems are
 * returned as text with the layer: bundled files that did not load, definitions left out.
 */
export function createKartaInterpreter(options: KartaInterpreterOptions = {}): { interpreter: KartaLayer; issues: string[] } {
  const { definitions = [], bundled = true, bundledDir, builtin, ...layerOptions } = options;
  const issues: string[] = [];
  const lazy: LazyKartaSource[] = [];
  if (bundled) {
    const dir = bundledDir ?? bundledDefinitionsDir();
    if (dir === undefined) issues.push(...missingDirectory().diagnostics.map(formatDiagnostic));
    else for (const f of bundledKartaFiles(dir)) lazy.push(builtin ? { ...f, deferTo: builtin } : f);
  }
  // User definitions replace the bundled ones of their kinds (a bundled file for such a kind is not read).
  const interpreter = new KartaLayer(definitions, layerOptions, lazy);
  for (const i of interpreter.issues) issues.push(`${i.source}: ${i.path ? `${i.path}: ` : ""}${i.message}`);
  return { interpreter, issues };
}
