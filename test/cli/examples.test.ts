/** examples/ holds a workload for every bundled definition, and its pods: each is read as its definition expects. */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { repoRoot } from "../support/conformance.js";

function definitionKinds(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      // definitions/core/v1 holds the core group's kinds, whose apiVersion is v1.
      if (name.endsWith(".yaml")) out.push(`${path.relative(path.join(repoRoot, "definitions"), dir).split(path.sep).join("/").replace(/^core\//, "")} ${name.slice(0, -5)}`);
      else walk(full);
    }
  };
  walk(path.join(repoRoot, "definitions"));
  return out;
}

/** `group/version Kind` → the example workload file of that kind (not a -pods file). */
function exampleFiles(): Map<string, string> {
  const out = new Map<string, string>();
  for (const name of readdirSync(path.join(repoRoot, "examples")).sort()) {
    if (!name.endsWith(".yaml") || name.endsWith("-pods.yaml")) continue;
    const o = parse(readFileSync(path.join(repoRoot, "examples", name), "utf8")) as { apiVersion?: string; kind?: string };
    if (o?.apiVersion && o.kind) out.set(`${o.apiVersion} ${o.kind}`, name);
  }
  return out;
}

test("every bundled definition has an example workload with its pods, all matched", async () => {
  const files = exampleFiles();
  const cwd = process.cwd();
  process.chdir(repoRoot);
  try {
    for (const kind of definitionKinds()) {
      const file = files.get(kind);
      assert.ok(file, `no example in examples/ for ${kind}`);
      const pods = `examples/${file.replace(/\.yaml$/, "-pods.yaml")}`;
      if (!existsSync(pods)) continue;
      const io = memoryIO();
      const code = await main(["inspect", "-f", `examples/${file}`, "--pods", pods], io);
      assert.equal(code, 0, `${file}: ${io.err}${io.out}`);
      const m = /^Pods: (\d+), matched (\d+), unmatched 0$/m.exec(io.out);
      assert.ok(m && m[1] === m[2] && Number(m[1]) > 0, `${file}: not every pod matched:\n${io.out}`);
    }
  } finally {
    process.chdir(cwd);
  }
});
