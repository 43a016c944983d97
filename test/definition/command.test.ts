import { describe, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFileSync } from "node:fs";
import { repoRoot } from "../support/conformance.js";
import { memoryIO } from "../../src/cli/io.js";
import { runValidate } from "../../src/cli/validate.js";
import { fixture, fixturesDir } from "./helpers.js";

const f = (name: string): string => path.join(fixturesDir, name);

describe("karta validate", () => {
  test("a valid definition: exit 0 and a summary", async () => {
    const io = memoryIO();
    assert.equal(await runValidate([f("valid/pytorchjob.yaml")], io), 0);
    assert.equal(io.out, "1 file, 1 definition: 0 errors, 0 warnings, 0 notices\n");
  });

  test("errors: file:line:col lines sorted by position, exit 1", async () => {
    const io = memoryIO();
    assert.equal(await runValidate([f("invalid/child-owner-refs.yaml")], io), 1);
    const lines = io.out.trimEnd().split("\n");
    assert.equal(lines[1], `${f("invalid/child-owner-refs.yaml")}:14:9: error: spec.structureDefinition.childComponents[0]: child component 'launcher' has no owner ref`);
    assert.equal(lines.at(-1), "1 file, 1 definition: 5 errors, 1 warning, 0 notices");
  });

  test("warnings alone pass; --strict makes them fail", async () => {
    const io = memoryIO();
    assert.equal(await runValidate([f("invalid/lint.yaml")], io), 0);
    assert.equal(await runValidate(["--strict", f("invalid/lint.yaml")], memoryIO()), 1);
  });

  test("what upstream's engine (gojq) cannot compile is a warning at the call, format or variable", async () => {
    const io = memoryIO();
    const file = f("invalid/upstream-engine.yaml");
    assert.equal(await runValidate([file], io), 0);
    const gojq = (error: string) => `jq: gojq v0.12.19, the engine upstream Karta and KAI Scheduler evaluate Kartas with, cannot compile this (${error}): the expression fails there on every workload`;
    assert.deepEqual(io.out.trimEnd().split("\n"), [
      `${file}:12:51: warning: spec.structureDefinition.rootComponent.statusDefinition.phaseDefinition.path: ${gojq("variable not defined: $__loc__")}`,
      `${file}:20:39: warning: spec.structureDefinition.childComponents[0].instanceIdPath: ${gojq("function not defined: keys_unsorted/0")}; '.[]' and 'to_entries' give one order within each engine`,
      `${file}:23:69: warning: spec.structureDefinition.childComponents[0].podSelector.componentTypeSelector.keyPath: ${gojq("function not defined: debug/0")}`,
      `${file}:24:71: warning: spec.structureDefinition.childComponents[0].podSelector.componentInstanceSelector.idPath: ${gojq("format not defined: @base32d")}`,
      "1 file, 1 definition: 0 errors, 4 warnings, 0 notices",
    ]);
  });

  test("an empty jq expression is a warning: upstream's validator skips it, but every evaluation fails", async () => {
    const text = readFileSync(path.join(repoRoot, "definitions/batch/v1/Job.yaml"), "utf8").replace(/replicasPath: [^\n]+/, 'replicasPath: ""');
    const io = memoryIO(text);
    assert.equal(await runValidate(["-"], io), 0);
    assert.match(io.out, /^<stdin>:\d+:\d+: warning: spec\.structureDefinition\.rootComponent\.scaleDefinition\.replicasPath: empty jq expression at 'Spec\.StructureDefinition\.RootComponent\.ScaleDefinition\.ReplicasPath': evaluating it fails on every workload/m);
    assert.equal(await runValidate(["--strict", "-"], memoryIO(text)), 1);
  });

  test("--crd checks workload paths; -o json lists the same records", async () => {
    const io = memoryIO();
    assert.equal(await runValidate(["--crd", f("crds"), "-o", "json", f("invalid/crd-paths.yaml")], io), 1);
    const out = JSON.parse(io.out) as { diagnostics: { severity: string; path: string; message: string; source: { line: number; column: number } }[]; summary: { errors: number } };
    assert.equal(out.summary.errors, 5);
    const typo = out.diagnostics.find((d) => d.message.includes("did you mean .spec.pytorchReplicaSpecs?"));
    assert.deepEqual(typo?.source, { file: f("invalid/crd-paths.yaml"), line: 21, column: 37 });
  });

  test("directories recursively and standard input", async () => {
    const io = memoryIO(fixture("valid/jobset-fragment.yaml"));
    assert.equal(await runValidate([f("valid"), "-"], io), 0);
    assert.match(io.out, /^3 files, 3 definitions: 0 errors/m);
  });

  test("usage errors and unreadable files exit 2", async () => {
    const none = memoryIO();
    assert.equal(await runValidate([], none), 2);
    assert.match(none.err, /no files to validate/);
    const badOpt = memoryIO();
    assert.equal(await runValidate(["-o", "xml", "x.yaml"], badOpt), 2);
    assert.match(badOpt.err, /invalid value 'xml' for -o: expected text, json or yaml/);
    const missing = memoryIO();
    assert.equal(await runValidate([f("valid/pytorchjob.yaml"), f("does-not-exist.yaml")], missing), 2);
    assert.match(missing.err, /cannot read .*does-not-exist\.yaml/);
    assert.match(missing.out, /^2 files \(1 unreadable\), 1 definition: /m);
    // A CRD file that cannot be read is counted as one, not as a definition file.
    const missingCrd = memoryIO();
    assert.equal(await runValidate(["--crd", f("does-not-exist.yaml"), f("valid/pytorchjob.yaml")], missingCrd), 2);
    assert.match(missingCrd.out, /^1 file, 1 unreadable CRD file, 1 definition: /m);
    for (const args of [["--crd=", f("valid/pytorchjob.yaml")], [f("valid/pytorchjob.yaml"), "--crd"]]) {
      const noCrd = memoryIO();
      assert.equal(await runValidate(args, noCrd), 2, args.join(" "));
      assert.match(noCrd.err, /flag needs an argument: --crd/);
    }
    const crdEquals = memoryIO();
    assert.equal(await runValidate([`--crd=${f("crds")}`, "--output=json", f("invalid/crd-paths.yaml")], crdEquals), 1);
    assert.equal((JSON.parse(crdEquals.out) as { summary: { errors: number } }).summary.errors, 5);
  });

  test("--help prints usage with an example", async () => {
    const io = memoryIO();
    assert.equal(await runValidate(["--help"], io), 0);
    assert.match(io.out, /^Usage: karta validate/);
    assert.match(io.out, /Example:/);
  });
});
