/**
 * The Karta layer against Karmada's bundled (thirdparty) interpreters: for RayCluster and PyTorchJob,
 * InterpretComponent from our bundled Kartas equals both the expected output of Karmada's test cases and
 * what Karmada's own Lua script returns on the same object (run by our declarative layer), compared as
 * Karmada compares (components sorted by name, quantities semantically). PyTorchJob's InterpretDependency
 * cases are checked the same way. The conformance data is read at test time, never copied.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { createDeclarativeInterpreter, type DeclarativeInterpreter } from "../../src/interpreter/declarative/interpreter.js";
import { loadCustomizationFiles } from "../../src/interpreter/declarative/load.js";
import type { KubeObject } from "../../src/interpreter/types.js";
import { bundledLayer, comparableComponents, comparableDependencies, readCases, thirdpartyDir } from "./helpers.js";

const root = thirdpartyDir();

if (root === undefined) test("Karmada thirdparty conformance (Ray, PyTorchJob)", (t) => t.skip("conformance data absent"));

async function karmadaScript(kindDir: string): Promise<DeclarativeInterpreter> {
  const loaded = loadCustomizationFiles([path.join(kindDir, "customizations.yaml")]);
  assert.deepEqual(loaded.issues, []);
  return createDeclarativeInterpreter(loaded.customizations);
}

for (const kind of ["ray.io/v1/RayCluster", "kubeflow.org/v1/PyTorchJob"]) {
  describe(`${kind}: InterpretComponent from the bundled Karta equals Karmada's`, { skip: root === undefined ? "conformance data absent" : false }, () => {
    if (root === undefined) return;
    const dir = path.join(root, kind);
    const cases = readCases(path.join(dir, "testdata", "interpretcomponent-test.yaml"));
    test("the testdata has InterpretComponent cases", () => {
      assert.ok(cases.length >= 4, `${cases.length} cases`);
      assert.ok(cases.every((c) => c.operation === "InterpretComponent"));
    });
    for (const c of cases) {
      test(c.name, async () => {
        const object = (c.desiredObj ?? c.observedObj) as KubeObject;
        const ours = bundledLayer().interpretComponent(object);
        assert.ok(ours.ok, ours.ok ? "" : ours.error.message);
        assert.deepEqual(comparableComponents(ours.value), comparableComponents(c.output?.components ?? []), "expected output of the case");
        const script = await karmadaScript(dir);
        try {
          const theirs = await script.interpretComponent(object);
          assert.ok(theirs.ok, theirs.ok ? "" : theirs.error.message);
          assert.deepEqual(comparableComponents(ours.value), comparableComponents(theirs.value), "Karmada's script on the same object");
        } finally {
          script.close();
        }
      });
    }
  });
}

describe("kubeflow.org/v1/PyTorchJob: InterpretDependency from the bundled Karta equals Karmada's", { skip: root === undefined ? "conformance data absent" : false }, () => {
  if (root === undefined) return;
  const cases = readCases(path.join(root, "kubeflow.org/v1/PyTorchJob", "testdata", "interpretdependency-test.yaml"));
  for (const c of cases) {
    test(c.name, () => {
      const ours = bundledLayer().interpretDependency((c.desiredObj ?? c.observedObj) as KubeObject);
      assert.ok(ours.ok, ours.ok ? "" : ours.error.message);
      assert.deepEqual(comparableDependencies(ours.value), comparableDependencies(c.output?.dependencies ?? []));
      // Our layer already returns them in Karmada's sorted order.
      assert.deepEqual(ours.value, comparableDependencies(ours.value));
    });
  }
});
