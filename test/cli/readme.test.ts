/**
 * The README's examples stay true: every `$ karta ...` line in a shell block is run in-process from the
 * repository root and its printed output compared with the lines under it (`...` stands for lines left out).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { commandNames } from "../../src/cli/commands.js";
import { repoRoot } from "../support/conformance.js";
import { examples, matches, readmeExamples, words } from "./readme-examples.js";

const readmeFile = path.join(repoRoot, "README.md");
const readme = readFileSync(readmeFile, "utf8");

/** The README's command reference: every command's `--help`, each in a collapsed block. */
async function commandReference(): Promise<string> {
  const blocks: string[] = [];
  for (const c of commandNames()) {
    const io = memoryIO();
    assert.equal(await main([c.name, "--help"], io), 0, io.err);
    blocks.push(`<details><summary><code>karta ${c.name}</code>: ${c.summary}</summary>\n\n\`\`\`text\n${io.out.trimEnd()}\n\`\`\`\n\n</details>`);
  }
  return blocks.join("\n\n");
}

test("the README's command reference is every command's --help (KARTA_UPDATE_README=1 rewrites it)", async () => {
  const want = readme.replace(/<!-- reference:start -->[\s\S]*<!-- reference:end -->/, `<!-- reference:start -->\n${await commandReference()}\n<!-- reference:end -->`);
  assert.notEqual(want, readme.replace(/<!-- reference:start -->[\s\S]*<!-- reference:end -->/, ""), "the README has the reference markers");
  if (process.env["KARTA_UPDATE_README"] === "1") writeFileSync(readmeFile, want);
  assert.equal(readFileSync(readmeFile, "utf8"), want, "the README's command reference differs from the commands' --help: run the tests with KARTA_UPDATE_README=1");
});

test("the README shows every command: the offline ones run as examples, the others as commands to run", () => {
  const shown = new Set(examples(readme).map((e) => words(e.command)[1]));
  // Servers run until stopped; get and describe read a live cluster: shown, not run by this test.
  const notRun = ["serve", "controller", "playground", "get", "describe"];
  for (const c of commandNames()) {
    if (notRun.includes(c.name)) assert.match(readme, new RegExp(`^\\$? ?karta ${c.name} `, "m"), `no example of karta ${c.name}`);
    else assert.ok(shown.has(c.name), `no \`$ karta ${c.name}\` example`);
  }
});

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
      if (example.exitCode !== undefined) assert.equal(code, example.exitCode, io.err);
      else assert.ok(code === 0 || code === 1, `exit code ${code}: ${io.err}`);
      assert.ok(matches(actual, example.expected), `output differs:\n${actual.join("\n")}\n--- expected ---\n${example.expected.join("\n")}`);
    } finally {
      process.chdir(cwd);
    }
  });
}
