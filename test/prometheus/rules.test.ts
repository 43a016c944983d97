/**
 * The recording rules in deploy/prometheus, checked and unit-tested by the real promtool (built from its Go
 * module by scripts/go-tool): `promtool check rules`, `promtool test rules` with the cases in
 * karta-rules.test.yaml, and the same cases against rules without the join guard, which must fail (the unit
 * tests can tell a broken join). The PrometheusRule carries the same groups.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { repoRoot } from "../support/conformance.js";
import { goTool } from "../support/go-tool.js";

const tool = goTool("prometheus");
const skip = "skip" in tool ? tool.skip : false;
if (skip) console.log(skip);
const promtool = "dir" in tool ? path.join(tool.dir, "promtool") : "";
const rules = path.join(repoRoot, "deploy", "prometheus", "karta-rules.yaml");
const cases = path.join(repoRoot, "test", "prometheus", "karta-rules.test.yaml");

function run(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(promtool, args, { cwd: repoRoot }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

test("promtool check rules: deploy/prometheus/karta-rules.yaml", { skip }, async () => {
  const r = await run(["check", "rules", rules]);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /SUCCESS: 19 rules found/);
});

test("promtool test rules: GPUs, utilization, memory and CPU per workload, component and instance", { skip }, async () => {
  const r = await run(["test", "rules", cases]);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /SUCCESS/);
});

test("promtool test rules fails on rules that join karta_pod_workload_info without max by (a recreated pod)", { skip }, async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-rules-"));
  try {
    // The same layout, so the cases' relative rule_files path finds the broken copy.
    mkdirSync(path.join(dir, "deploy", "prometheus"), { recursive: true });
    mkdirSync(path.join(dir, "test", "prometheus"), { recursive: true });
    const text = readFileSync(rules, "utf8");
    const broken = text.replace(/max by \([^)]*\) \((karta_pod_workload_info[^)]*)\)$/gm, "$1");
    assert.notEqual(broken, text);
    writeFileSync(path.join(dir, "deploy", "prometheus", "karta-rules.yaml"), broken);
    cpSync(cases, path.join(dir, "test", "prometheus", "karta-rules.test.yaml"));
    const r = await run(["test", "rules", path.join(dir, "test", "prometheus", "karta-rules.test.yaml")]);
    assert.notEqual(r.code, 0, r.out);
    assert.match(r.out, /many-to-many matching not allowed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("deploy/prometheus/prometheusrule.yaml has the groups of karta-rules.yaml", () => {
  const plain = parse(readFileSync(rules, "utf8")) as { groups: unknown[] };
  const cr = parse(readFileSync(path.join(repoRoot, "deploy", "prometheus", "prometheusrule.yaml"), "utf8")) as { apiVersion: string; kind: string; spec: { groups: unknown[] } };
  assert.equal(cr.apiVersion, "monitoring.coreos.com/v1");
  assert.equal(cr.kind, "PrometheusRule");
  assert.deepEqual(cr.spec.groups, plain.groups);
});
