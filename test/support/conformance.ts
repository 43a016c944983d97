/** Where the conformance data from other projects lives (never copied into the project). */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** The folder `../shared/conformance/<name>` beside the repository, or undefined (with a printed notice) when absent. */
export function conformanceDir(name: string): string | undefined {
  const base = process.env["KARTA_CONFORMANCE"] ?? path.resolve(repoRoot, "..", "shared", "conformance");
  const dir = path.join(base, name);
  if (!existsSync(dir)) {
    console.log(`notice: conformance data ${dir} is absent; skipping`);
    return undefined;
  }
  return dir;
}
