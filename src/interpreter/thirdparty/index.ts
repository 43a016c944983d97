/**
 * The thirdparty layer: ResourceInterpreterCustomizations bundled with Karta, run by the declarative
 * machinery with the layer name "thirdparty". They are our own scripts (Karmada's bundled ones are not
 * copied), kept as YAML files under `interpreter-customizations/<group>/<version>/<Kind>.yaml` at the
 * repository root so that they can be read, linted and checked with `karta interpret --check` like any
 * user customization. The directory is found from this module's location (source or compiled), or
 * given explicitly.
 */
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { CustomizationIssue, CustomizationLoad } from "../declarative/customization.js";
import { findConflicts } from "../declarative/customization.js";
import { createDeclarativeInterpreter, type DeclarativeInterpreter, type DeclarativeOptions } from "../declarative/interpreter.js";
import { loadCustomizationFiles } from "../declarative/load.js";

/** The directory name of the bundled customizations, at the package root. */
export const BUNDLED_DIRECTORY = "interpreter-customizations";

/**
 * The bundled customizations directory: the first `interpreter-customizations` found walking up from
 * this module (at most 6 levels: src/interpreter/thirdparty or dist/src/interpreter/thirdparty), or
 * undefined when the package was installed without it.
 */
export function bundledCustomizationsDir(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, BUNDLED_DIRECTORY);
    if (existsSync(candidate) && statSync(candidate).isDirectory()) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** Reads the bundled customizations (recursively) and reports conflicts between them as issues. */
export function loadBundledCustomizations(dir: string | undefined = bundledCustomizationsDir()): CustomizationLoad {
  if (dir === undefined) return { customizations: [], issues: [{ file: BUNDLED_DIRECTORY, path: "", message: `bundled customizations directory ${BUNDLED_DIRECTORY}/ not found` }] };
  const loaded = loadCustomizationFiles([dir], { recursive: true });
  const conflicts: CustomizationIssue[] = findConflicts(loaded.customizations);
  return { customizations: loaded.customizations, issues: [...loaded.issues, ...conflicts] };
}

/** Options of the thirdparty layer. */
export interface ThirdpartyOptions extends Omit<DeclarativeOptions, "layer"> {
  /** The directory of customizations (default: the bundled one). */
  dir?: string;
}

/**
 * Creates the thirdparty layer. Problems in the bundled files are returned with the layer (a broken
 * file leaves the others working).
 */
export async function createThirdpartyInterpreter(options: ThirdpartyOptions = {}): Promise<{ interpreter: DeclarativeInterpreter; issues: CustomizationIssue[] }> {
  const { dir, ...rest } = options;
  const loaded = loadBundledCustomizations(dir ?? bundledCustomizationsDir());
  const interpreter = await createDeclarativeInterpreter(loaded.customizations, { ...rest, layer: "thirdparty" });
  return { interpreter, issues: loaded.issues };
}
