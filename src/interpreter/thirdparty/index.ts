/**
 * The thirdparty layer: ResourceInterpreterCustomizations bundled with Karta, run by the declarative
 * machinery with the layer name "thirdparty". They are our own scripts (Karmada's bundled ones are not
 * copied), kept as YAML files under `interpreter-customizations/<group>/<version>/<Kind>.yaml` at the
 * repository root so that they can be read, linted and checked with `karta interpret --check` like any
 * user customization. The directory is found from this module's location (source or compiled), or
 * given explicitly.
 */
import { bundledDirectory } from "../../files/package.js";
import type { CustomizationIssue, CustomizationLoad } from "../declarative/customization.js";
import { findConflicts } from "../declarative/customization.js";
import { createDeclarativeInterpreter, type DeclarativeInterpreter, type DeclarativeOptions } from "../declarative/interpreter.js";
import { loadCustomizationFiles } from "../declarative/load.js";

/** The directory name of the bundled customizations, at the package root. */
export const BUNDLED_DIRECTORY = "interpreter-customizations";

/** The bundled customizations' directory, in the installed package (never searched from the working directory); undefined when it was installed without it. */
export function bundledCustomizationsDir(): string | undefined {
  return bundledDirectory(BUNDLED_DIRECTORY);
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
