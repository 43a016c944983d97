/** Properties: arbitrary objects and pods never make interpretation throw; the fast path agrees with jq. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { parse as yamlParse } from "yaml";
import { CompiledExpression, compileDefinition, compileInterpreter } from "../../src/interpret/index.js";
import { conformanceDir, repoRoot } from "../support/conformance.js";
import { catalogDefinition, karta } from "./helpers.js";

describe("robustness", () => {
  test("an expression written once for several statuses (a YAML alias) compiles once; one that does not compile is reported at each place", () => {
    const text = readFileSync(path.join(repoRoot, "definitions", "kubeflow.org", "v1", "PyTorchJob.yaml"), "utf8");
    const pytorch = compileDefinition(karta(text));
    const programs = pytorch.root!.status!.mappings.flatMap((m) => m.matchers.map((x) => x.expression?.program)).filter((p) => p !== undefined);
    assert.ok(programs.length >= 7, `status expressions: ${programs.length}`);
    assert.equal(new Set(programs).size, 1, "one program for the shared expression");
    const broken = karta(text);
    const mappings = broken.spec.structureDefinition.rootComponent.statusDefinition!.statusMappings as Record<string, { byExpression?: { expression: string } }[]>;
    for (const key of ["running", "failed"]) mappings[key]![0]!.byExpression!.expression = ".status | (";
    const parse = compileDefinition(broken).diagnostics.filter((d) => d.code === "jq-parse");
    assert.deepEqual(
      parse.map((d) => d.path),
      ["spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[0].byExpression.expression", "spec.structureDefinition.rootComponent.statusDefinition.statusMappings.failed[0].byExpression.expression"],
    );
    assert.equal(parse[0]!.message, parse[1]!.message);
  });

  test("an expression that stops at its limit on one pod is not run again on the others of that interpretation (16 pods took over a minute)", () => {
    const text = readFileSync(path.join(repoRoot, "definitions", "kubeflow.org", "v1", "PyTorchJob.yaml"), "utf8");
    const looping = karta(text);
    const worker = looping.spec.structureDefinition.childComponents!.find((c) => c.name === "worker")!;
    worker.podSelector!.componentTypeSelector!.keyPath = "until(false; .)";
    const interpreter = compileInterpreter(looping);
    const job = yamlParse(readFileSync(path.join(repoRoot, "examples", "pytorchjob.yaml"), "utf8"));
    const pods = Array.from({ length: 16 }, (_, i) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: `p${i}`, namespace: "ml-team", labels: { "training.kubeflow.org/replica-type": "worker" } } }));
    const t = Date.now();
    const r = interpreter.interpret(job, { pods });
    const errors = r.diagnostics.filter((d) => d.code === "jq-eval" && d.path.endsWith("componentTypeSelector.keyPath"));
    assert.equal(errors.length, 16, "each pod still reported");
    assert.match(errors[0]!.message, /evaluation exceeded its budget of \d+ steps$/);
    for (const e of errors.slice(1)) assert.match(e.message, /\(not run again in this interpretation: it stopped so on an earlier input\)$/);
    assert.ok(Date.now() - t < 30_000, `${Date.now() - t} ms`);
    // The next interpretation runs it again: the memo lasts one interpretation.
    const again = interpreter.interpret(job, { pods: pods.slice(0, 1) }).diagnostics.filter((d) => d.code === "jq-eval");
    assert.doesNotMatch(again[0]!.message, /not run again/);
  });

  test("an expression shared by several statuses that fails on the object is one error, naming how many more mappings share it", () => {
    const text = readFileSync(path.join(repoRoot, "definitions", "kubeflow.org", "v1", "PyTorchJob.yaml"), "utf8");
    const it = compileInterpreter(karta(text));
    const object = { apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", metadata: { name: "p" }, spec: { pytorchReplicaSpecs: {} }, status: { conditions: { a: 1 } } };
    const evaluation = it.interpret(object).diagnostics.filter((d) => d.code === "jq-eval");
    assert.equal(evaluation.length, 1, JSON.stringify(evaluation));
    assert.match(evaluation[0]!.message, /^failed to evaluate ByExpression: Cannot index number with string \("type"\) \(and in 6 more status mappings with the same expression\)$/);
  });

  test("every catalog definition survives arbitrary objects of its kind and arbitrary pods", (t) => {
    const dir = conformanceDir("karta-catalog");
    if (!dir) return t.skip("conformance data absent");
    const names = readdirSync(dir)
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => path.basename(f, ".yaml"));
    for (const name of names) {
      const def = catalogDefinition(name)!;
      const interpreter = compileInterpreter(def);
      const kind = def.karta.spec.structureDefinition.rootComponent.kind!;
      const apiVersion = kind.group ? `${kind.group}/${kind.version}` : kind.version;
      const labels = fc.dictionary(fc.constantFrom("ray.io/node-type", "ray.io/group", "training.kubeflow.org/replica-type", "app", "component"), fc.oneof(fc.string(), fc.constantFrom("head", "worker", "master", "predictor")));
      const pod = fc.oneof(fc.jsonValue(), fc.record({ metadata: fc.record({ name: fc.string(), labels }) }));
      fc.assert(
        fc.property(fc.jsonValue(), fc.jsonValue(), fc.array(pod, { maxLength: 4 }), (spec, status, pods) => {
          const object = { apiVersion, kind: kind.kind, metadata: { name: "x", uid: "u" }, spec, status };
          const r = interpreter.interpret(object, { pods });
          assert.equal(r.pods.length, pods.length);
          assert.ok(r.status.statuses.length > 0);
          for (const d of r.diagnostics) assert.notEqual(d.code, "internal", `${name}: ${d.message}`);
          interpreter.suspendPatch(object, "suspend");
          interpreter.setPodFieldPatch(object, { field: "label", key: "a", value: "b" });
        }),
        { numRuns: 25 },
      );
    }
  });

  test("a definition with any one field of another type never makes compiling or interpreting throw (the library takes unvalidated definitions)", () => {
    // Every field of three bundled definitions with gang groups, pod selectors and status, each replaced in turn.
    const replacements: unknown[] = [null, {}, [], "x", 5, [null], ["x"]];
    const cases: [string, string][] = [["kubeflow.org/v1/PyTorchJob.yaml", "pytorchjob"], ["ray.io/v1/RayCluster.yaml", "raycluster"], ["apps/v1/Deployment.yaml", "deployment"]];
    let runs = 0;
    for (const [file, example] of cases) {
      const def = yamlParse(readFileSync(path.join(repoRoot, "definitions", file), "utf8"));
      const object = yamlParse(readFileSync(path.join(repoRoot, "examples", `${example}.yaml`), "utf8"));
      const pods = yamlParse(readFileSync(path.join(repoRoot, "examples", `${example}-pods.yaml`), "utf8"))?.items ?? [];
      const fields = (v: unknown, at: string[]): string[][] => [at, ...(v !== null && typeof v === "object" ? Object.entries(v).flatMap(([k, x]) => fields(x, [...at, k])) : [])];
      for (const at of fields(def.spec, ["spec"])) {
        for (const r of replacements) {
          const broken = structuredClone(def);
          let parent = broken;
          for (const k of at.slice(0, -1)) parent = parent[k];
          parent[at.at(-1)!] = r;
          runs++;
          assert.doesNotThrow(() => compileInterpreter(broken).interpret(object, { pods }), `${file} ${at.join(".")} = ${JSON.stringify(r)}`);
        }
      }
    }
    assert.ok(runs > 1000, `${runs} runs`);
  });

  test("the direct accessor of simple paths gives what jq gives", () => {
    const texts = [".metadata.labels.app", '.metadata.labels["ray.io/group"]', '.spec.replicas // 1', '.metadata.labels["x"] // "0"', ".a.b.c"];
    const value = fc.jsonValue({ maxDepth: 4 });
    const shaped = fc.record({ metadata: fc.oneof(value, fc.record({ labels: fc.oneof(value, fc.dictionary(fc.constantFrom("app", "ray.io/group", "x"), value)) })), spec: value, a: value });
    for (const text of texts) {
      const e = new CompiledExpression(text, ["test"]);
      fc.assert(
        fc.property(fc.oneof(value, shaped), (input) => {
          let expected: { ok: true; values: unknown[] } | { ok: false };
          try {
            expected = { ok: true, values: e.program!.run(input) };
          } catch {
            expected = { ok: false };
          }
          const got = e.run(input);
          assert.equal(got.ok, expected.ok, text);
          if (got.ok && expected.ok) assert.deepEqual(got.values, expected.values, text);
        }),
        { numRuns: 300 },
      );
    }
  });
});
