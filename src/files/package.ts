/**
 * The folders Karta ships with (`definitions/`, `interpreter-customizations/`), found relative to the
 * installed package: the directory of Karta's own package.json, two levels above this module's folder
 * (src/files) or three (dist/src/files). Never searched from the working directory, so an installed
 * `karta` reads its own copies wherever it runs.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

let root: string | null | undefined;

/** The package's root directory, or undefined when this module is not inside the Karta package. */
export function packageRoot(): string | undefined {
  if (root === undefined) {
    root = null;
    const here = path.dirname(fileURLToPath(import.meta.url));
    for (const up of ["../..", "../../.."]) {
      const dir = path.resolve(here, up);
      try {
        const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: unknown };
        if (pkg.name === "karta") {
          root = dir;
          break;
        }
      } catch {
        // not this level
      }
    }
  }
  return root ?? undefined;
}

/** A folder shipped with the package (`definitions`), or undefined when the package has none. */
export function bundledDirectory(name: string): string | undefined {
  const r = packageRoot();
  if (r === undefined) return undefined;
  const dir = path.join(r, name);
  return existsSync(dir) && statSync(dir).isDirectory() ? dir : undefined;
}
