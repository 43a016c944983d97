/** Shared paths for the definition tests. */
import { readFileSync } from "node:fs";
import path from "node:path";

/** The repository root (tests run from dist/test/definition). */
export { repoRoot } from "../support/conformance.js";
import { repoRoot } from "../support/conformance.js";

export const fixturesDir = path.join(repoRoot, "test", "fixtures", "definition");

export function fixture(name: string): string {
  return readFileSync(path.join(fixturesDir, name), "utf8");
}

/** The shared conformance data, read in place (never copied into the project). */
export { conformanceRoot as conformanceDir } from "../support/conformance.js";
