/**
 * Karmada's thirdparty conformance through `karta interpret`, as a user runs it: every case's objects
 * and status items written to files as the case writes them (YAML, and JSON as Go reads the YAML),
 * the command run with `-o json` and with `-o yaml`, and its printed output read as Go reads it (the
 * karmada-go oracle's sigs.k8s.io/yaml for YAML), compared exactly with Karmada's results
 * (thirdparty-cases.ts). Twice: with the suite's customizations (`-f customizations.yaml`), and with
 * Karta's bundled layers only (no -f: the bundled Kartas, Karta's thirdparty layer, the built-ins).
 *
 * The commands run in this process through `main` (what bin/karta.js runs), so that the suite's 2,256
 * runs do not each start Node; the first case of each operation also runs as a separate `karta`
 * process, and must print the same bytes. KARTA_THIRDPARTY_KIND restricts the run to kinds whose path contains it;
 * KARTA_THIRDPARTY_SHOW=N prints the first N failures.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { kartaBin, thirdpartyKindDirectories } from "../support/conformance.js";
import type { KarmadaGo } from "../support/karmada-go.js";
import { caseLabel, differences, openSuite, readKindCases, type ThirdpartyCase } from "./thirdparty-cases.js";

const TOTAL = 564;

type Format = "json" | "yaml";
type Mode = "customizations" | "bundled";

/** The command line of a case, its input files written to `dir` in the format given. */
function commandLine(c: ThirdpartyCase, mode: Mode, format: Format, dir: string): string[] {
  const args = ["interpret", "--operation", c.operation, "-o", format];
  if (mode === "customizations") args.push("-f", path.join(c.dir, "customizations.yaml"));
  const write = (name: string, yaml: string, value: unknown): string => {
    const file = path.join(dir, `${name}.${format}`);
    writeFileSync(file, format === "yaml" ? yaml : JSON.stringify(value, null, 2) + "\n");
    return file;
  };
  if (c.desiredText !== undefined) args.push("--desired-file", write("desired", c.desiredText, c.value.desiredObj));
  if (c.observedText !== undefined) args.push("--observed-file", write("observed", c.observedText, c.value.observedObj));
  if (c.statusItemTexts !== undefined) {
    // One item per document, as karmadactl reads --status-file; no items at all is an empty file.
    const items = c.value.statusItems as unknown[];
    const text = format === "yaml" ? c.statusItemTexts.map((t) => `---\n${t}`).join("") : items.map((i) => JSON.stringify(i) + "\n").join("");
    const file = path.join(dir, `status.${format}`);
    writeFileSync(file, text);
    args.push("--status-file", file);
  }
  if (c.value.inputReplicas !== undefined) args.push("--desired-replica", String(c.value.inputReplicas));
  return args;
}

/** The results a run printed, read as Go reads them; or why there are none. */
async function printedResults(go: KarmadaGo, format: Format, out: string): Promise<Record<string, unknown> | string> {
  if (format === "json") {
    try {
      return JSON.parse(out) as Record<string, unknown>;
    } catch (e) {
      return `output is not JSON: ${(e as Error).message}`;
    }
  }
  const read = await go.ask({ op: "yaml", text: out });
  if (!read.ok) return `output is not YAML as Go reads it: ${read.error}`;
  return read.value as Record<string, unknown>;
}

async function conformance(t: import("node:test").TestContext, mode: Mode): Promise<void> {
  const suite = openSuite(t);
  if (suite === undefined) return;
  const { base, go } = suite;
  const dir = mkdtempSync(path.join(tmpdir(), "karta-thirdparty-"));
  const only = process.env.KARTA_THIRDPARTY_KIND;
  const passed: Record<Format, number> = { json: 0, yaml: 0 };
  const failures: string[] = [];
  const perKind: string[] = [];
  const samples: { args: string[]; out: string; label: string }[] = [];
  const sampled = new Set<string>();
  const started = Date.now();
  try {
    for (const kindDir of thirdpartyKindDirectories(base)) {
      if (only && !kindDir.includes(only)) continue;
      const cases = await readKindCases(kindDir, base, go);
      let kindPassed = 0;
      for (const c of cases) {
        for (const format of ["json", "yaml"] as const) {
          const args = commandLine(c, mode, format, dir);
          const io = memoryIO();
          const code = await main(args, io);
          const results = code === 0 ? await printedResults(go, format, io.out) : `exit ${code}: ${io.err.trim()}`;
          const bad = typeof results === "string" ? [results] : await differences(go, c, results);
          if (bad.length === 0) {
            passed[format]++;
            if (format === "yaml") kindPassed++;
          } else failures.push(`[-o ${format}] ${caseLabel(c)}: ${bad.join("; ")}`);
          // The first case of each operation also runs as its own process (input files written again for it).
          const op = c.operation.toLowerCase();
          if (!sampled.has(op) && format === "json") {
            sampled.add(op);
            samples.push({ args: commandLine(c, mode, format, mkdtempSync(path.join(dir, "s"))), out: io.out, label: caseLabel(c) });
          }
        }
      }
      perKind.push(`${path.relative(base, kindDir)} ${kindPassed}/${cases.length}`);
    }
    // The same bytes from `karta` run as a user runs it (two at a time).
    const run = promisify(execFile);
    const spawned = async (s: (typeof samples)[number]): Promise<void> => {
      const { stdout } = await run(process.execPath, [kartaBin, ...s.args], { encoding: "utf8" }).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: `failed: ${e.stderr ?? ""}` }));
      assert.equal(stdout, s.out, `${s.label}: 'karta ${s.args.join(" ")}' printed what main() printed`);
    };
    for (let i = 0; i < samples.length; i += 2) await Promise.all(samples.slice(i, i + 2).map(spawned));
  } finally {
    go.close();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`karmada thirdparty conformance through 'karta interpret' (${mode}): -o json ${passed.json}, -o yaml ${passed.yaml} passed, ${failures.length} failed (${Date.now() - started} ms, ${samples.length} also as a process)`);
  if (process.env.KARTA_THIRDPARTY_VERBOSE) for (const k of perKind) console.log(`  ${k}`);
  for (const f of failures.slice(0, Number(process.env.KARTA_THIRDPARTY_SHOW ?? 0))) console.log(`  FAIL ${f}`);
  assert.deepEqual(failures, [], `${failures.length} runs differ from Karmada`);
  if (!only) {
    assert.equal(passed.json, TOTAL, "every case ran with -o json");
    assert.equal(passed.yaml, TOTAL, "every case ran with -o yaml");
  }
}

test("karta interpret reproduces Karmada's thirdparty cases with the suite's customizations", (t) => conformance(t, "customizations"));

test("karta interpret reproduces Karmada's thirdparty cases with Karta's bundled layers only", (t) => conformance(t, "bundled"));
