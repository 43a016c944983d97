import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { generatedSchemaFiles, jqFieldTable, kartaJsonSchema } from "../../src/definition/json-schema.js";
import { KARTA_TYPES, type FieldType } from "../../src/definition/schema-source.js";
import { repoRoot } from "./helpers.js";

describe("the schema table and the files generated from it", () => {
  test("every referenced type exists", () => {
    const refs = (t: FieldType): string[] => (t.type === "object" ? [t.ref] : t.type === "array" ? refs(t.items) : t.type === "map" ? refs(t.values) : []);
    for (const [name, spec] of Object.entries(KARTA_TYPES)) {
      for (const [field, f] of Object.entries(spec.fields)) {
        for (const r of refs(f.type)) assert.ok(KARTA_TYPES[r], `${name}.${field} refers to ${r}`);
      }
    }
  });

  test("schema/karta.schema.json, deploy/crd/run.ai_kartas.yaml and the chart's copy are up to date (KARTA_UPDATE_SCHEMA=1 rewrites them)", () => {
    for (const [file, text] of Object.entries(generatedSchemaFiles())) {
      const full = path.join(repoRoot, file);
      if (process.env.KARTA_UPDATE_SCHEMA === "1") {
        mkdirSync(path.dirname(full), { recursive: true });
        writeFileSync(full, text);
      }
      assert.equal(readFileSync(full, "utf8"), text, `${file} is stale`);
    }
  });

  test("the CRD manifest has the reference names, short name, scope and printer columns", () => {
    const crd = parse(readFileSync(path.join(repoRoot, "deploy/crd/run.ai_kartas.yaml"), "utf8"));
    assert.equal(crd.metadata.name, "kartas.run.ai");
    assert.deepEqual(crd.spec.names.shortNames, ["krt"]);
    assert.equal(crd.spec.scope, "Cluster");
    const v = crd.spec.versions[0];
    assert.equal(v.name, "v1alpha1");
    assert.deepEqual(
      v.additionalPrinterColumns.map((c: { name: string; jsonPath: string }) => `${c.name}=${c.jsonPath}`),
      ["Framework=.spec.structureDefinition.rootComponent.kind.kind", "Root Component=.spec.structureDefinition.rootComponent.name", "Age=.metadata.creationTimestamp"],
    );
    const component = v.schema.openAPIV3Schema.properties.spec.properties.structureDefinition.properties.childComponents;
    assert.deepEqual(component["x-kubernetes-list-map-keys"], ["name"]);
    assert.deepEqual(component.items.required, ["name"]);
  });

  test("the JSON Schema closes every object except metadata, and documents the document each jq field runs on", () => {
    const s = kartaJsonSchema() as { definitions: Record<string, { additionalProperties?: boolean; properties: Record<string, { description: string }> }> };
    assert.equal(s.definitions.ComponentDefinition!.additionalProperties, false);
    assert.equal(s.definitions.ObjectMeta!.additionalProperties, undefined);
    assert.match(s.definitions.PodGroupMember!.properties.filters!.description, /runs on the Pod/);
    const table = jqFieldTable();
    assert.ok(table.some((r) => r.type === "ComponentTypeSelector" && r.field === "keyPath" && r.document === "pod"));
    assert.ok(table.some((r) => r.type === "ScaleDefinition" && r.field === "replicasPath" && r.document === "workload"));
  });
});
