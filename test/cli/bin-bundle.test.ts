/**
 * bin/karta.js runs the bundled command line (dist/cli) only while the modules it was built from are
 * unchanged: checked on a copy of bin/ beside stand-in bundle and module files in a temporary folder.
 * An installed package (no src/ beside dist/) runs its bundle unchecked.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { repoRoot } from "../fixtures/objects.js";

function layout(): { dir: string; run: (bin?: string) => string; input: string; record: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-bin-"));
  mkdirSync(path.join(dir, "bin"));
  mkdirSync(path.join(dir, "dist", "cli"), { recursive: true });
  mkdirSync(path.join(dir, "dist", "src", "cli"), { recursive: true });
  // The repository's layout: the sources beside dist/ (an installed package has none).
  mkdirSync(path.join(dir, "src"));
  for (const f of ["karta.js", "kubectl-karta.js"]) copyFileSync(path.join(repoRoot, "bin", f), path.join(dir, "bin", f));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
  const stand = (word: string) => `export async function main() { process.stdout.write(${JSON.stringify(word)}); return 0; }\n`;
  writeFileSync(path.join(dir, "dist", "cli", "main.js"), stand("bundle"));
  const input = path.join(dir, "dist", "src", "cli", "main.js");
  writeFileSync(input, stand("modules"));
  const record = (): void => {
    const s = statSync(input);
    const hash = createHash("sha256").update(stand("modules")).digest("hex");
    writeFileSync(path.join(dir, "dist", "cli", "inputs.json"), JSON.stringify(["dist/src/cli/main.js", s.size, s.mtimeMs]));
    writeFileSync(path.join(dir, "dist", "cli", "hashes.json"), JSON.stringify({ "dist/src/cli/main.js": hash }));
  };
  const run = (bin = "karta.js"): string => {
    const p = spawnSync(process.execPath, [path.join(dir, "bin", bin)], { encoding: "utf8" });
    assert.equal(p.status, 0, p.stderr);
    return p.stdout;
  };
  return { dir, run, input, record };
}

test("bin/karta.js: the bundle while its inputs are unchanged, the modules otherwise", () => {
  const { dir, run, input, record } = layout();
  try {
    assert.equal(run(), "modules", "no inputs.json: no bundle");
    record();
    assert.equal(run(), "bundle");
    assert.equal(run("kubectl-karta.js"), "bundle", "the kubectl plugin is the same entry point");
    // Same contents, another time (as after npm pack): the contents decide.
    utimesSync(input, new Date(499162860000), new Date(499162860000));
    assert.equal(run(), "bundle");
    // Changed contents (a later tsc): the modules.
    writeFileSync(input, `export async function main() { process.stdout.write("modulez"); return 0; }\n`);
    assert.equal(run(), "modulez");
    rmSync(input);
    assert.throws(() => run(), "a missing module is not papered over by the bundle");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bin/karta.js in an installed package (no src/): the bundle, whatever the modules' times, without comparing them", () => {
  const { dir, run, input, record } = layout();
  try {
    rmSync(path.join(dir, "src"), { recursive: true });
    assert.equal(run(), "modules", "no inputs.json: no bundle");
    record();
    // npm gives the files new times: the bundle, with no hash of the modules (hashes.json is gone).
    utimesSync(input, new Date(499162860000), new Date(499162860000));
    rmSync(path.join(dir, "dist", "cli", "hashes.json"));
    assert.equal(run(), "bundle");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
