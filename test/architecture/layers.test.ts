/**
 * The architecture rules fail the build: `npm run lint:architecture` (which `npm test` runs before the
 * tests) on a small tree that breaks them on purpose reports each break with the rule and both files,
 * and exits non-zero. The project's own tree passing is `npm test` itself.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { repoRoot } from "../support/conformance.js";

const fixture = path.join(repoRoot, "test", "fixtures", "architecture");

/** The lint:architecture script of package.json, run in `dir` with the project's config. */
function lintArchitecture(dir: string): { status: number | null; output: string } {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> };
  const script = pkg.scripts["lint:architecture"];
  assert.ok(script, "package.json has a lint:architecture script");
  const command = script.replace(".dependency-cruiser.mjs", path.join(repoRoot, ".dependency-cruiser.mjs"));
  const r = spawnSync("sh", ["-c", command], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, PATH: `${path.join(repoRoot, "node_modules", ".bin")}${path.delimiter}${process.env["PATH"] ?? ""}` },
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

test("npm test's architecture lint fails on an upward import and on a cycle, naming the rule and both files", () => {
  const { status, output } = lintArchitecture(fixture);
  assert.notEqual(status, 0, output);
  assert.match(output, /error upward-import-from-jq: src\/jq\/engine\.ts → src\/cli\/main\.ts/);
  // Inside the interpreter: a layer may not import one above it either.
  assert.match(output, /error upward-import-from-interpreter-lua: src\/interpreter\/lua\/vm\.ts → src\/interpreter\/native\/common\.ts/);
  // A cycle through type-only imports is a cycle too.
  assert.match(output, /error no-circular: src\/definition\/component\.ts → \s*src\/definition\/status\.ts →\s*src\/definition\/component\.ts/);
  assert.match(output, /3 dependency violations \(3 errors/);
  // The page may import the core below it.
  assert.doesNotMatch(output, /playground\/src\/page\.ts/);
});
