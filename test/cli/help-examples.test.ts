/**
 * Every command's --help example runs as written from the repository root: each `karta ...` line that
 * needs no cluster (and no file a kubectl line before it writes) is run in-process and exits 0 (or the
 * `# exit N` it shows); a `$ karta ...` line's output is compared with the lines under it. Lines of a
 * server (serve, controller, playground) or of a live cluster (get, describe, inspect/compile KIND/NAME)
 * are shown, not run; the CA a server writes into its --cert-dir stands in for the file later lines read.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { commandNames } from "../../src/cli/commands.js";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { repoRoot } from "../support/conformance.js";
import { matches, words } from "./readme-examples.js";

/** Commands that serve until stopped or read a live cluster. */
const NOT_RUN: ReadonlySet<string> = new Set(["serve", "controller", "playground", "get", "describe"]);

interface HelpExample {
  /** The command whose help shows it. */
  help: string;
  /** The line, continuations joined, without `$ `. */
  line: string;
  /** The output shown under a `$ ` line. */
  expected: string[];
  shell: boolean;
}

async function helpText(command: string): Promise<string> {
  const io = memoryIO();
  assert.equal(await main([command, "--help"], io), 0, io.err);
  return io.out;
}

/** The lines of a help's Example section, `\`-continuations joined. */
function exampleLines(help: string, text: string): HelpExample[] {
  const at = text.search(/^Examples?:$/m);
  assert.ok(at >= 0, `karta ${help} --help has no Example section`);
  const out: HelpExample[] = [];
  let pending = "";
  for (const raw of text.slice(at).split("\n").slice(1)) {
    const line = raw.trim();
    if (line === "") continue;
    if (line.endsWith("\\")) {
      pending += line.slice(0, -1).trimEnd() + " ";
      continue;
    }
    const joined = pending + line;
    pending = "";
    const shell = joined.startsWith("$ ");
    if (shell || !out.at(-1)?.shell || /^(karta|kubectl|curl|source) /.test(joined)) out.push({ help, line: shell ? joined.slice(2) : joined, expected: [], shell });
    else out.at(-1)!.expected.push(joined);
  }
  return out;
}

/** Where the command ends: the first `|`, `>` or ` #` outside quotes (the line's length if none). */
function commandEnd(line: string): number {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "|" || c === ">" || (c === "#" && /\s/.test(line[i - 1] ?? " "))) return i;
  }
  return line.length;
}

/** The command line without a trailing comment, `| ...` or `> FILE`, and the file a redirect writes. */
function commandOf(line: string): { argv: string[]; writes?: string; exitCode?: number } {
  const code = /\s+#\s*exit (\d+)$/.exec(line);
  const end = commandEnd(line);
  const redirect = line[end] === ">" ? /^>\s*(\S+)/.exec(line.slice(end)) : null;
  const argv = words(line.slice(0, end).trim());
  return { argv, ...(redirect ? { writes: redirect[1]! } : {}), ...(code ? { exitCode: Number(code[1]) } : {}) };
}

test("every command's --help example runs as written from the repository root", async () => {
  const all: HelpExample[] = [];
  for (const c of commandNames()) all.push(...exampleLines(c.name, await helpText(c.name)));
  // What servers write into --cert-dir, read by later lines (webhook-config --ca-file).
  const files: Record<string, string> = {};
  for (const e of all) {
    const w = commandOf(e.line).argv;
    const dir = w[w.indexOf("--cert-dir") + 1];
    if (w.includes("--cert-dir") && dir) files[`${dir}/ca.crt`] = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  }
  const ran = new Set<string>();
  const cwd = process.cwd();
  process.chdir(repoRoot);
  try {
    /** Files a kubectl line writes: lines reading them need that cluster. */
    const fromCluster = new Set<string>();
    for (const e of all) {
      const { argv, writes, exitCode } = commandOf(e.line);
      const [tool, command] = argv;
      const live = (command === "inspect" || command === "compile") && !argv.some((a) => ["-f", "--object", "--filename"].includes(a));
      if (tool !== "karta" || NOT_RUN.has(command!) || live || argv.some((a) => fromCluster.has(a))) {
        if (writes !== undefined) fromCluster.add(writes);
        continue;
      }
      const io = memoryIO("", files);
      const code = await main(argv.slice(1), io);
      assert.equal(code, exitCode ?? 0, `karta ${e.help} --help: ${e.line}\n${io.err}`);
      if (e.shell) assert.ok(matches((io.out + io.err).split("\n").filter((l) => l !== ""), e.expected), `karta ${e.help} --help: ${e.line}: output differs:\n${io.out}${io.err}`);
      if (writes !== undefined) files[writes] = io.out;
      ran.add(e.help);
    }
  } finally {
    process.chdir(cwd);
  }
  // Each command that needs no cluster has an example that runs.
  for (const c of commandNames()) if (!NOT_RUN.has(c.name)) assert.ok(ran.has(c.name), `karta ${c.name} --help: no example ran`);
});

test("a help's example keeps its line continuations (a `\\` at the end of a line, the next line indented)", async () => {
  for (const c of commandNames()) {
    const text = await helpText(c.name);
    const example = text.slice(text.search(/^Examples?:$/m));
    // Two commands collapsed into one line leave a run of spaces inside it.
    for (const line of example.split("\n").slice(1)) assert.doesNotMatch(line.trim(), / {3,}(?=[^ #])/, `karta ${c.name} --help: ${line}`);
  }
});
