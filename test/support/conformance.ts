/** Where the conformance data from other projects lives (never copied into the project). */
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (tests run from dist/test/..., three levels below it). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
/** The `karta` command as a user runs it (bin/karta.js). */
export const kartaBin = path.join(repoRoot, "bin", "karta.js");

/** `../shared/conformance` beside the repository (KARTA_CONFORMANCE overrides it); it may be absent. */
export const conformanceRoot: string = process.env["KARTA_CONFORMANCE"] ?? path.resolve(repoRoot, "..", "shared", "conformance");

/** The folder `../shared/conformance/<name>` beside the repository, or undefined (with a printed notice) when absent. */
export function conformanceDir(name: string): string | undefined {
  const dir = path.join(conformanceRoot, name);
  if (!existsSync(dir)) {
    console.log(`notice: conformance data ${dir} is absent; skipping`);
    return undefined;
  }
  return dir;
}

/**
 * The kind folders of Karmada's thirdparty suite below `dir` (`<group>/<version>/<Kind>`, each with a
 * customizations.yaml), sorted.
 */
export function thirdpartyKindDirectories(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (!statSync(p).isDirectory()) continue;
    if (existsSync(path.join(p, "customizations.yaml"))) out.push(p);
    else out.push(...thirdpartyKindDirectories(p));
  }
  return out;
}
