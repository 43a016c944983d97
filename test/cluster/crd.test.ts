/**
 * Against a real kube-apiserver: the Karta CRD is a structural schema the server accepts and establishes,
 * every bundled definition is stored as a Karta, a Karta with a schema error is refused at the field
 * path our own loader reports, and a repeated item of each of the CRD's list maps (and a set) is refused
 * with exactly the errors, path and words, that `karta validate` gives.
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

  // Each list map of the schema (and a set), with a repeated item and with the repeat made distinct.
  // test/definition/list-maps.test.ts checks that every list map of the schema has a case there; the
  // same lists are here, on the bundled PyTorchJob Karta.
  const sd = (s: Record<string, any>): Record<string, any> => s.structureDefinition;
  const gang = (s: Record<string, any>): Record<string, any> => s.optimizationInstructions.gangScheduling;
  // `absentKey`: a key field is missing too, which both report otherwise (our "missing required field"
  // at the item, the server's Required value at the field); only the Duplicate value errors are compared.
  const duplicates: { name: string; absentKey?: boolean; repeat: (spec: Record<string, any>) => void; distinct: (spec: Record<string, any>) => void }[] = [
    {
      name: "childComponents",
      repeat: (s) => sd(s).childComponents.push({ ...sd(s).childComponents[1], ownerRef: "master" }),
      distinct: (s) => sd(s).childComponents.push({ ...sd(s).childComponents[1], name: "launcher", ownerRef: "master" }),
    },
    {
      name: "additionalChildKinds (a core Service twice, a Knative Service between)",
      repeat: (s) => sd(s).additionalChildKinds.push({ group: "serving.knative.dev", version: "v1", kind: "Service" }, { group: "", version: "v1", kind: "Service" }, { group: "", version: "v1", kind: "Service" }),
      distinct: (s) => sd(s).additionalChildKinds.push({ group: "serving.knative.dev", version: "v1", kind: "Service" }, { group: "", version: "v1", kind: "ConfigMap" }),
    },
    {
      name: "additionalChildKinds without a group (the key shown leaves it out)",
      absentKey: true,
      repeat: (s) => sd(s).additionalChildKinds.push({ version: "v1", kind: "ConfigMap" }, { group: "", version: "v1", kind: "ConfigMap" }, { kind: "ConfigMap", version: "v1" }),
      distinct: (s) => sd(s).additionalChildKinds.push({ group: "", version: "v1", kind: "ConfigMap" }),
    },
    {
      name: "childComponents without names",
      absentKey: true,
      repeat: (s) => sd(s).childComponents.push({ ownerRef: "master" }, { ownerRef: "worker" }),
      distinct: (s) => sd(s).childComponents.push({ name: "launcher", ownerRef: "master" }),
    },
    {
      name: "podGroups",
      repeat: (s) => (gang(s).podGroups = [{ name: "all", members: [{ componentName: "master" }] }, { name: "all", members: [{ componentName: "worker" }] }]),
      distinct: (s) => (gang(s).podGroups = [{ name: "all", members: [{ componentName: "master" }] }, { name: "workers", members: [{ componentName: "worker" }] }]),
    },
    {
      name: "members, and a set (filters)",
      repeat: (s) => (gang(s).podGroups = [{ name: "all", members: [{ componentName: "worker", filters: [".a", ".b", ".a"] }, { componentName: "worker" }] }]),
      distinct: (s) => (gang(s).podGroups = [{ name: "all", members: [{ componentName: "worker", filters: [".a", ".b"] }, { componentName: "master" }] }]),
    },
    {
      name: "subGroups",
      repeat: (s) => gang(s).podGroup.subGroups.push({ componentName: "master" }),
      distinct: (s) => (gang(s).podGroup.subGroups = [{ componentName: "master" }, { componentName: "worker" }, { componentName: "pytorchjob" }]),
    },
  ];
  for (const dup of duplicates) {
    test(`a repeated item of ${dup.name} is refused by the server with our errors, word for word; distinct items are stored`, async () => {
      await installKartaCrd(c);
      const make = (mutate: (spec: Record<string, any>) => void): KubernetesObject => {
        const karta = kartaOf("kubeflow.org/v1/PyTorchJob.yaml") as { metadata: { name: string }; spec: Record<string, unknown> };
        karta.metadata.name = `list-${dup.name.replace(/[^a-z]+/gi, "-").toLowerCase()}`.slice(0, 60).replace(/-+$/, "");
        mutate(karta.spec);
        return karta as unknown as KubernetesObject;
      };
      const repeated = make(dup.repeat);
      const ours = validateKartaObject(repeated).map((d) => `${d.path}: ${d.message}`);
      assert.ok(ours.length > 0, "our validator accepts the repeated item");
      const created = await attempt(() => c.objects.create(repeated));
      assert.ok(!created.ok, "the server accepted a repeated item");
      assert.equal(created.reason, "Invalid", created.message);
      const server = created.causes.filter((x) => x.field !== "<nil>").map((x) => `${x.field}: ${x.message}`);
      const repeats = (errors: string[]): string[] => errors.filter((e) => e.includes(": Duplicate value: ")).sort();
      assert.ok(repeats(server).length > 0, `the server reports no repeated item: ${created.message}`);
      assert.deepEqual(repeats(server), repeats(ours));
      if (!dup.absentKey) assert.deepEqual([...server].sort(), [...ours].sort());

      const distinct = make(dup.distinct);
      assert.deepEqual(validateKartaObject(distinct), []);
      await attempt(() => c.objects.delete(distinct));
      const stored = await attempt(() => c.objects.create(distinct));
      assert.ok(stored.ok, `the server refused distinct items: ${stored.ok ? "" : `${stored.message} ${JSON.stringify(stored.causes)}`}`);
    });
  }
});
