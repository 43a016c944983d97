/**
 * Start-up: a command loads only what it needs. Walks the static imports of the compiled modules (dynamic
 * `import()` is what loads the rest on demand) from each command's module; and, for what is loaded on
 * demand, lists what a command's process loaded.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { kartaBin, repoRoot } from "../support/conformance.js";

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "src");

/** Every module `entry` loads before it runs: project files (relative to src/) and packages. */
function staticImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    const rel = path.relative(src, file);
    if (seen.has(rel)) return;
    seen.add(rel);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/^\s*(?:import|export)\s(?:[^;]*?\sfrom\s)?["']([^"']+)["']/gm)) {
      const spec = m[1]!;
      if (spec.startsWith(".")) visit(path.resolve(path.dirname(file), spec));
      else seen.add(spec);
    }
  };
  visit(path.join(src, entry));
  return seen;
}

const heavy = (mods: Set<string>, names: string[]): string[] => names.filter((n) => mods.has(n));

test("--help loads the command table and nothing else", () => {
  const mods = staticImports("cli/main.js");
  // files/read-error.js: a table of words for errno codes, no imports; files/read.js: the bounded file reader (node:fs only).
  assert.deepEqual([...mods].filter((m) => m.endsWith(".js")).sort(), ["cli/commands.js", "cli/io.js", "cli/main.js", "files/read-error.js", "files/read.js"]);
});

test("inspect and compile load neither the validator, the linter, the CRD code, the Lua VM nor the yaml library", () => {
  for (const entry of ["cli/inspect.js", "cli/compile.js"]) {
    const mods = staticImports(entry);
    assert.deepEqual(heavy(mods, ["definition/validate.js", "definition/lint.js", "definition/crd.js", "definition/index.js", "cli/validate.js", "wasmoon", "yaml"]), [], entry);
  }
});

test("jq loads no YAML reader (only --yaml does), no interpreter and no kubectl template printer", () => {
  const mods = staticImports("cli/jq.js");
  assert.deepEqual(heavy(mods, ["yaml", "js-yaml", "wasmoon", "interpret/index.js", "jsonpath/index.js"]), []);
});

test("interpret loads the Lua VM and the webhook client only when a run needs them", () => {
  const mods = staticImports("cli/interpret.js");
  assert.deepEqual(heavy(mods, ["wasmoon", "interpreter/lua/vm.js", "interpreter/webhook/interpreter.js", "interpreter/thirdparty/index.js", "definition/index.js"]), []);
});

test("inspect and compile of a bundled example never load the yaml library at run time (the bundled definitions are read by js-yaml, anchors and all)", () => {
  // A preload that lists, at exit, every CommonJS module the process loaded (yaml is one; js-yaml is ESM).
  const dir = mkdtempSync(path.join(tmpdir(), "karta-startup-"));
  try {
    const preload = path.join(dir, "loaded.mjs");
    writeFileSync(preload, `import { createRequire } from "node:module";\nconst Module = createRequire(import.meta.url)("node:module");\nprocess.on("exit", () => process.stderr.write("LOADED " + JSON.stringify(Object.keys(Module._cache)) + "\\n"));\n`);
    for (const command of ["inspect", "compile"]) {
      const p = spawnSync(process.execPath, ["--import", pathToFileURL(preload).href, kartaBin, command, "-f", "examples/pytorchjob.yaml", "--pods", "examples/pytorchjob-pods.yaml"], { cwd: repoRoot, encoding: "utf8" });
      assert.equal(p.status, 0, p.stderr);
      const loaded = JSON.parse(/^LOADED (.*)$/m.exec(p.stderr)![1]!) as string[];
      assert.deepEqual(loaded.filter((f) => /[\\/]yaml([\\/]|\.cjs$)/.test(f)), [], command);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
