/**
 * Against a real kube-apiserver: the Karta CRD is a structural schema the server accepts and establishes,
 * every bundled definition is stored as a Karta, and a Karta with a schema error is refused at the field
 * path our own loader reports.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { loadDefinitionValue, validateDefinition } from "../../src/definition/index.js";
import { validateKartaObject } from "../../src/controller/karta-status.js";
import { definitionFiles, definitionsDir } from "../bundled/helpers.js";
import { attempt, testCluster, type TestCluster } from "../support/cluster.js";
import { repoRoot } from "../support/conformance.js";
import { CRD_NAME, installKartaCrd, withSchemaDefaults } from "./helpers.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;


/** The CRD's schema of a Karta's spec (the server defaults stored Kartas from it). */
const specSchema = (
  parse(readFileSync(path.join(repoRoot, "deploy", "crd", "run.ai_kartas.yaml"), "utf8")) as {
    spec: { versions: { schema: { openAPIV3Schema: { properties: { spec: Parameters<typeof withSchemaDefaults>[0] } } } }[] };
  }
).spec.versions[0]!.schema.openAPIV3Schema.properties.spec;

function kartaOf(relative: string): Record<string, unknown> {
  return parse(readFileSync(path.join(definitionsDir, relative), "utf8")) as Record<string, unknown>;
}

describe("the Karta CRD on a real API server", { skip }, () => {
  const c = cluster as TestCluster;

  test("is accepted as a structural schema and becomes Established", async () => {
    await installKartaCrd(c);
    const got = (await c.objects.read({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: CRD_NAME } })) as {
      status?: { acceptedNames?: { kind?: string; plural?: string } };
    };
    assert.equal(got.status?.acceptedNames?.kind, "Karta");
    assert.equal(got.status?.acceptedNames?.plural, "kartas");
  });

  test("every bundled definition is stored as a Karta and reads back unchanged", async () => {
    await installKartaCrd(c);
    const files = definitionFiles();
    assert.ok(files.length >= 10, `only ${files.length} bundled definitions`);
    for (const file of files) {
      const karta = kartaOf(file);
      const name = (karta.metadata as { name: string }).name;
      await attempt(() => c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name } }));
      const created = await attempt(() => c.objects.create(karta as KubernetesObject));
      assert.ok(created.ok, `${file}: refused: ${created.ok ? "" : `${created.message} ${JSON.stringify(created.causes)}`}`);
      const back = (await c.objects.read({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name } })) as unknown as Record<string, unknown>;
      // Nothing pruned: the spec is stored as written, with the CRD schema's defaults filled in.
      assert.deepEqual(back.spec, withSchemaDefaults(specSchema, karta.spec), `${file}: the stored spec differs`);
      // And what the server returns is still a valid definition for our loader.
      const loaded = loadDefinitionValue(back, `${file} (from the server)`);
      assert.deepEqual(
        loaded.diagnostics.filter((d) => d.severity === "error"),
        [],
      );
      assert.equal(loaded.definitions.length, 1);
      const errors = validateDefinition(loaded.definitions[0]!).filter((d) => d.severity === "error");
      assert.deepEqual(errors, [], `${file}: our validator rejects what the server stored`);
    }
  });

  const invalid: { name: string; mutate: (spec: Record<string, any>) => void }[] = [
    { name: "a root component kind that is a string", mutate: (s) => (s.structureDefinition.rootComponent.kind = "PyTorchJob") },
    { name: "a missing root component name", mutate: (s) => delete s.structureDefinition.rootComponent.name },
    { name: "a child component list that is an object", mutate: (s) => (s.structureDefinition.childComponents = { worker: {} }) },
  ];
  for (const bad of invalid) {
    test(`a Karta with ${bad.name} is refused by the server and by our loader at the same field path`, async () => {
      await installKartaCrd(c);
      const karta = kartaOf("kubeflow.org/v1/PyTorchJob.yaml") as { metadata: { name: string }; spec: Record<string, unknown> };
      karta.metadata.name = `invalid-${bad.name.replace(/[^a-z]+/g, "-")}`.slice(0, 60).replace(/-+$/, "");
      bad.mutate(karta.spec);
      const created = await attempt(() => c.objects.create(karta as unknown as KubernetesObject));
      assert.ok(!created.ok, "the server accepted an invalid Karta");
      assert.equal(created.reason, "Invalid", created.message);
      // The server adds a field-less note that it skipped its CEL rules on an invalid object.
      const serverPaths = [...new Set(created.causes.filter((x) => x.field !== "<nil>").map((x) => x.field))].sort();
      const ours = validateKartaObject(karta);
      const ourPaths = [...new Set(ours.map((d) => d.path))].sort();
      assert.ok(serverPaths.length > 0, `no field in the server's answer: ${created.message}`);
      // Ours may add what follows from the same mistake (a member naming the unnamed component); the server's paths must all be among ours.
      assert.deepEqual(
        serverPaths.filter((p) => !ourPaths.includes(p)),
        [],
        `server: ${created.message}\nours: ${JSON.stringify(ours)}`,
      );
    });
  }
});
