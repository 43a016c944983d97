/**
 * Reading ResourceInterpreterCustomization files and directories from disk (as `karmadactl interpret
 * -f` does): `.yaml`, `.yml` and `.json` files, directories optionally recursively.
 */
import { readTextFile } from "../../files/read.js";
import { listInputFiles } from "../../files/index.js";
import { parseCustomizations, type CustomizationLoad } from "./customization.js";

/**
 * Loads customizations from files and directories. Directories contribute their YAML/JSON files
 * (sorted by name), and subdirectories when `recursive`. Unreadable paths become issues.
 */
export function loadCustomizationFiles(paths: readonly string[], options: { recursive?: boolean } = {}): CustomizationLoad {
  const out: CustomizationLoad = { customizations: [], issues: [] };
  for (const p of listInputFiles(paths, { recursive: options.recursive ?? false })) {
    let text: string;
    try {
      text = readTextFile(p);
    } catch (e) {
      out.issues.push({ file: p, path: "", message: (e as Error).message });
      continue;
    }
    const loaded = parseCustomizations(text, p);
    out.customizations.push(...loaded.customizations);
    out.issues.push(...loaded.issues);
  }
  return out;
}
