/**
 * The README's examples stay true: every `$ karta ...` line in a shell block is run in-process from the
 * repository root and its printed output compared with the lines under it (`...` stands for lines left out).
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { repoRoot } from "../support/conformance.js";
import { examples, matches, readmeExamples, words } from "./readme-examples.js";

const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");

test("the README shows each command on a bundled example", () => {
  const shown = new Set(examples(readme).map((e) => words(e.command)[1]));
  for (const command of ["validate", "inspect", "compile", "interpret", "jq", "definitions", "get", "describe"]) assert.ok(shown.has(command), `no example of karta ${command}`);
});

test("the README shows validate, inspect, compile and interpret on more than one kind", () => {
  for (const command of ["validate", "inspect", "compile", "interpret"]) {
    // The workload (or definition) each example reads: its first file argument.
    const inputs = new Set(
      examples(readme)
        .map((e) => words(e.command))
        .filter((w) => w[1] === command)
        .map((w) => w.slice(2).find((a, i, all) => /^(examples|definitions)\//.test(a) && !["--pods", "--children"].includes(all[i - 1] ?? ""))),
    );
    inputs.delete(undefined);
    assert.ok(inputs.size >= 2, `karta ${command}: examples on ${[...inputs].join(", ") || "nothing"}`);
  }
});

for (const example of readmeExamples(readme, "offline")) {
  test(`README: ${example.command}`, async () => {
    const cwd = process.cwd();
    process.chdir(repoRoot);
    try {
      const io = memoryIO();
      const code = await main(words(example.command).slice(1), io);
      // Blank lines are not compared: the README leaves some out of its blocks.
      const actual = (io.out + io.err).split("\n").filter((l) => l !== "");
      assert.ok(code === 0 || code === 1, `exit code ${code}: ${io.err}`);
      assert.ok(matches(actual, example.expected), `output differs:\n${actual.join("\n")}\n--- expected ---\n${example.expected.join("\n")}`);
    } finally {
      process.chdir(cwd);
    }
  });
}
