/**
 * The thirdparty layer: our bundled customizations load cleanly, and each operation they implement
 * passes Karmada's test cases for that kind (read from the conformance data at test time; skipped
 * when absent). Operations we do not bundle are left to other layers and not run.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseYamlDocuments } from "../../src/interpreter/declarative/yaml-documents.js";
import { createInterpreterFramework } from "../../src/interpreter/framework.js";
import { createNativeInterpreter } from "../../src/interpreter/native/index.js";
import { bundledCustomizationsDir, createThirdpartyInterpreter, loadBundledCustomizations, type ThirdpartyInterpreter } from "../../src/interpreter/thirdparty/index.js";
import { parseOperation, type JsonValue, type KubeObject, type Outcome } from "../../src/interpreter/types.js";
import { repoRoot } from "../fixtures/objects.js";
import { conformanceRoot } from "../support/conformance.js";

const conformance = conformanceRoot;
const thirdpartyData = path.join(conformance, "karmada-thirdparty", "resourcecustomizations");

interface Case {
  name: string;
  desiredObj?: KubeObject;
  observedObj?: KubeObject;
  inputReplicas?: number;
  operation: string;
  output?: Record<string, JsonValue>;
}

let ipt: ThirdpartyInterpreter;

before(async () => {
  const created = await createThirdpartyInterpreter();
  assert.deepEqual(created.issues, []);
  ipt = created.interpreter;
});

after(() => ipt.close());

/** Removes `{{EXCLUDE}}` fields of the expectation (Karmada's test helper semantics). */
function withoutExcluded(expected: JsonValue, actual: JsonValue): [JsonValue, JsonValue] {
  if (expected && typeof expected === "object" && !Array.isArray(expected) && actual && typeof actual === "object" && !Array.isArray(actual)) {
    const e: Record<string, JsonValue> = {};
    const a: Record<string, JsonValue> = { ...actual };
    for (const [k, v] of Object.entries(expected)) {
      if (v === "{{EXCLUDE}}") {
        delete a[k];
        continue;
      }
      [e[k], a[k]] = withoutExcluded(v, actual[k] ?? null);
      if (!(k in actual)) delete a[k];
    }
    return [e, a];
  }
  return [expected, actual];
}

const depKey = (d: { apiVersion: string; kind: string; namespace?: string; name?: string }) => [d.apiVersion, d.kind, d.namespace ?? "", d.name ?? ""].join("/");

async function run(c: Case): Promise<{ ok: true; results: Record<string, JsonValue> } | { ok: false; error: string }> {
  const op = parseOperation(c.operation)!;
  const obj = (c.desiredObj ?? c.observedObj)!;
  const unwrap = <T>(o: Outcome<T>, f: (v: T) => Record<string, JsonValue>) => (o.ok ? { ok: true as const, results: f(o.value) } : { ok: false as const, error: o.error.message });
  switch (op) {
    case "InterpretReplica":
      return unwrap(ipt.interpretReplica(obj), (v) => ({ replica: v.replicas }));
    case "ReviseReplica":
      return unwrap(ipt.reviseReplica(obj, c.inputReplicas ?? 0), (v) => ({ revised: v }));
    case "Retain":
      return unwrap(ipt.retain(c.desiredObj!, c.observedObj!), (v) => ({ retained: v }));
    case "InterpretHealth":
      return unwrap(ipt.interpretHealth(obj), (v) => ({ healthy: v }));
    case "InterpretDependency":
      return unwrap(ipt.interpretDependency(obj), (v) => ({ dependencies: [...(v ?? [])].sort((a, b) => depKey(a).localeCompare(depKey(b))) as unknown as JsonValue }));
    default:
      return { ok: false, error: `no comparison for ${op}` };
  }
}

describe("bundled thirdparty customizations", () => {
  test("are found next to the package and load without issues or conflicts", () => {
    const dir = bundledCustomizationsDir();
    assert.ok(dir !== undefined && dir.endsWith("interpreter-customizations"));
    const loaded = loadBundledCustomizations(dir);
    assert.deepEqual(loaded.issues, []);
    assert.deepEqual(loaded.customizations.map((c) => `${c.spec.target.apiVersion} ${c.spec.target.kind}`).sort(), ["argoproj.io/v1alpha1 Workflow"]);
    assert.deepEqual(loadBundledCustomizations(path.join(repoRoot, "no-such-dir")).customizations, []);
  });

  test("pass Karmada's test cases for the operations they implement", async (t) => {
    if (!existsSync(thirdpartyData)) {
      console.log(`notice: ${thirdpartyData} is absent; skipping`);
      t.skip("conformance data absent");
      return;
    }
    let passed = 0;
    const failures: string[] = [];
    for (const ric of loadBundledCustomizations().customizations) {
      const { apiVersion, kind } = ric.spec.target;
      const dir = path.join(thirdpartyData, ...apiVersion.split("/"), kind, "testdata");
      assert.ok(existsSync(dir), `conformance cases for ${apiVersion} ${kind}`);
      for (const file of readdirSync(dir).sort()) {
        for (const { value } of parseYamlDocuments(readFileSync(path.join(dir, file), "utf8")).documents) {
          const c = value as unknown as Case;
          const op = parseOperation(c.operation);
          if (!op || !ipt.supports({ apiVersion, kind }, op)) continue;
          const out = await run(c);
          const label = `${kind} ${file}: ${c.name}`;
          if (!out.ok) {
            failures.push(`${label}: ${out.error}`);
            continue;
          }
          for (const [key, expected] of Object.entries(c.output ?? {})) {
            let want = expected;
            if (key === "dependencies") want = [...(expected as { apiVersion: string; kind: string }[])].sort((a, b) => depKey(a).localeCompare(depKey(b))) as unknown as JsonValue;
            const [e, a] = withoutExcluded(want, out.results[key] ?? null);
            try {
              assert.deepEqual(a, e);
            } catch {
              failures.push(`${label}: ${key}: expected ${JSON.stringify(e)}, got ${JSON.stringify(a)}`);
            }
          }
          passed++;
        }
      }
    }
    console.log(`bundled thirdparty customizations: ${passed} Karmada cases run, ${failures.length} failed`);
    assert.deepEqual(failures, []);
    // Workflow: 2 InterpretReplica, 1 ReviseReplica, 2 Retain, 3 InterpretHealth, 3 InterpretDependency.
    assert.equal(passed, 11, "every Workflow case of a bundled operation ran");
  });

  test("answer through the framework below a user's layers and above native", async () => {
    const fw = createInterpreterFramework({ thirdparty: ipt, native: createNativeInterpreter() });
    const workflow: KubeObject = {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Workflow",
      metadata: { name: "nightly-etl-7x2kq", namespace: "data", generateName: "nightly-etl-" },
      spec: { entrypoint: "main", templates: [{ name: "main", container: { image: "ghcr.io/data/etl:1.9", command: ["etl", "--date", "{{workflow.creationTimestamp}}"] } }] },
      status: { phase: "Running", startedAt: "2026-11-29T02:00:00Z", progress: "1/3" },
    };
    assert.deepEqual(await fw.interpretHealth(workflow), { ok: true, value: true, layer: "thirdparty" });
    const failed = { ...workflow, status: { phase: "Failed", message: "child 'nightly-etl-7x2kq-1234' failed", progress: "1/3" } };
    assert.deepEqual(await fw.interpretHealth(failed), { ok: true, value: false, layer: "thirdparty" });
    assert.deepEqual(await fw.interpretReplica({ ...workflow, spec: { ...(workflow.spec as object), parallelism: 3 } }), { ok: true, value: { replicas: 3 }, layer: "thirdparty" });
    const aggregated = await fw.aggregateStatus(workflow, []);
    assert.equal(aggregated.ok ? "" : aggregated.error.layer, "framework", "Workflow status aggregation is not bundled");
  });
});
