/** Shared paths for the definition tests. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (tests run from dist/test/definition). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export const fixturesDir = path.join(repoRoot, "test", "fixtures", "definition");

export function fixture(name: string): string {
  return readFileSync(path.join(fixturesDir, name), "utf8");
}

/** The shared conformance data, read in place (never copied into the project). */
export const conformanceDir = process.env.KARTA_CONFORMANCE ?? path.resolve(repoRoot, "..", "shared", "conformance");
