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

interface Example {
  command: string;
  expected: string[];
}

function examples(readme: string): Example[] {
  const out: Example[] = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let current: Example | undefined;
    for (const line of block[1]!.split("\n")) {
      if (line.startsWith("$ ")) {
        current = { command: line.slice(2), expected: [] };
        if (line.startsWith("$ karta ")) out.push(current);
      } else if (current && line !== "") current.expected.push(line);
    }
  }
  return out;
}

/** Splits a command line as a POSIX shell would for these examples: single and double quotes, backslashes in double quotes. */
function words(line: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === " ") {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let s = "";
      for (; line[j] !== '"'; j++) s += line[j] === "\\" && '"\\$`'.includes(line[j + 1]!) ? line[++j] : line[j];
      word = (word ?? "") + s;
      i = j;
    } else word = (word ?? "") + c;
  }
  if (word !== undefined) out.push(word);
  return out;
}

/** The expected lines, with `...` matching any number of lines, appear in the output in order. */
function matches(actual: string[], expected: string[]): boolean {
  const go = (a: number, e: number): boolean => {
    if (e === expected.length) return a === actual.length;
    if (expected[e] === "...") {
      for (let k = a; k <= actual.length; k++) if (go(k, e + 1)) return true;
      return false;
    }
    return a < actual.length && actual[a] === expected[e] && go(a + 1, e + 1);
  };
  return go(0, 0);
}

const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");

test("the README shows each command on a bundled example", () => {
  const shown = new Set(examples(readme).map((e) => words(e.command)[1]));
  for (const command of ["validate", "inspect", "compile", "interpret", "jq"]) assert.ok(shown.has(command), `no example of karta ${command}`);
});

for (const example of examples(readme)) {
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
