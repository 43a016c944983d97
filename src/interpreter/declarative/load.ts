/**
 * Reading ResourceInterpreterCustomization files and directories from disk (as `karmadactl interpret
 * -f` does): `.yaml`, `.yml` and `.json` files, directories optionally recursively.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { parseCustomizations, type CustomizationLoad } from "./customization.js";

const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

/**
 * Loads customizations from files and directories. Directories contribute their YAML/JSON files
 * (sorted by name), and subdirectories when `recursive`. Unreadable paths become issues.
 */
export function loadCustomizationFiles(paths: readonly string[], options: { recursive?: boolean } = {}): CustomizationLoad {
  const out: CustomizationLoad = { customizations: [], issues: [] };
  const visit = (p: string, top: boolean): void => {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (e) {
      out.issues.push({ file: p, path: "", message: (e as Error).message });
      return;
    }
    if (isDir) {
      if (!top && !options.recursive) return;
      for (const name of readdirSync(p).sort()) {
        const child = path.join(p, name);
        let childIsDir = false;
        try {
          childIsDir = statSync(child).isDirectory();
        } catch {
          continue;
        }
        if (childIsDir) {
          if (options.recursive) visit(child, false);
        } else if (EXTENSIONS.has(path.extname(name).toLowerCase())) {
          visit(child, false);
        }
      }
      return;
    }
    let text: string;
    try {
      text = readFileSync(p, "utf8");
    } catch (e) {
      out.issues.push({ file: p, path: "", message: (e as Error).message });
      return;
    }
    const loaded = parseCustomizations(text, p);
    out.customizations.push(...loaded.customizations);
    out.issues.push(...loaded.issues);
  };
  for (const p of paths) visit(p, true);
  return out;
}
