/**
 * A file whose lines end with a lone CR (old Mac style) is read as YAML reads it (CR, LF and CR LF all
 * break lines, as libyaml and so kubectl read them) by every command, where the `yaml` library alone
 * read it as one line: validate found no definition, interpret no object, jq --yaml printed nothing.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { lfLineBreaks } from "../../src/input/yaml.js";
import { kartaBin, repoRoot } from "../support/conformance.js";

test("lfLineBreaks: each lone CR made LF, CR LF kept, the length kept", () => {
  assert.equal(lfLineBreaks("a: 1\rb: 2\r\nc: 3\n"), "a: 1\nb: 2\r\nc: 3\n");
  assert.equal(lfLineBreaks("plain\n"), "plain\n");
});

test("every command reads a file with CR line breaks as the same file with LF ones", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-cr-"));
  try {
    const cr = (name: string, from: string) => {
      const file = path.join(dir, name);
      writeFileSync(file, readFileSync(path.join(repoRoot, from), "utf8").replace(/\n/g, "\r"));
      return file;
    };
    const job = cr("job.yaml", "examples/pytorchjob.yaml");
    const def = cr("def.yaml", "definitions/kubeflow.org/v1/PyTorchJob.yaml");
    const run = (...args: string[]) => spawnSync(process.execPath, [kartaBin, ...args], { encoding: "utf8" });
    const lf = (...args: string[]) => run(...args.map((a) => (a === job ? path.join(repoRoot, "examples/pytorchjob.yaml") : a === def ? path.join(repoRoot, "definitions/kubeflow.org/v1/PyTorchJob.yaml") : a)));
    for (const args of [["validate", def], ["inspect", "-d", def, "-f", job, "-o", "json"], ["interpret", "--operation", "InterpretComponent", "--desired-file", job], ["jq", "--yaml", "-c", ".kind", job]]) {
      const got = run(...args);
      const want = lf(...args);
      assert.equal(got.status, 0, `${args.join(" ")}: ${got.stderr}`);
      assert.equal(got.stdout.replaceAll(dir, "X"), want.stdout.replace(/\/[^\s"]*\/(examples|definitions\/kubeflow\.org\/v1)/g, "X"), args.join(" "));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
