import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { duplicateItems } from "../../src/definition/list-type.js";
import { validateKartaObject } from "../../src/controller/karta-status.js";
import { KARTA_TYPES, typeSpec } from "../../src/definition/schema-source.js";
import { validateText } from "../../src/definition/validate.js";

/**
 * A clean Karta with `list` (YAML lines) put at `where`: under the structure definition, under the
 * gang scheduling, or in a pod group's members. The line marked `# dup` starts the repeated item.
 */
function karta(where: "structure" | "gang" | "members", list: string[]): string {
  const indent = (n: number, lines: string[]): string[] => lines.map((l) => " ".repeat(n) + l);
  return [
    "apiVersion: run.ai/v1alpha1",
    "kind: Karta",
    "metadata: {name: lists}",
    "spec:",
    "  structureDefinition:",
    "    rootComponent:",
    "      name: job",
    "      kind: {group: batch, version: v1, kind: Job}",
    "      specDefinition: {podTemplateSpecPath: .spec.template}",
    "      statusDefinition:",
    "        conditionsDefinition: {path: .status.conditions}",
    '        statusMappings: {completed: [{byConditions: [{type: Complete, status: "True"}]}]}',
    ...(where === "structure" ? indent(4, list) : ["    childComponents: [{name: worker, ownerRef: job}]"]),
    ...(where === "structure"
      ? []
      : ["  optimizationInstructions:","    gangScheduling:", ...(where === "gang" ? indent(6, list) : ["      podGroups:","        - name: all", ...indent(10, list)])]),
    "",
  ].join("\n");
}

/** One case per list map of the schema, by `Type.field`: the list with a repeated key, and with distinct keys. */
const CASES: Record<string, { where: "structure" | "gang" | "members"; path: string; duplicate: string[]; distinct: string[]; key: string }> = {
  "StructureDefinition.childComponents": {
    where: "structure",
    path: "spec.structureDefinition.childComponents[1]",
    duplicate: ["childComponents:","  - {name: worker, ownerRef: job}","  - name: worker # dup","    ownerRef: job"],
    distinct: ["childComponents:","  - {name: worker, ownerRef: job}","  - name: launcher","    ownerRef: job"],
    key: '{"name":"worker"}',
  },
  "StructureDefinition.additionalChildKinds": {
    where: "structure",
    path: "spec.structureDefinition.additionalChildKinds[2]",
    // The core Service twice; the Knative Service between them is another kind.
    duplicate: ["additionalChildKinds:", '  - {group: "", version: v1, kind: Service}', "  - {group: serving.knative.dev, version: v1, kind: Service}", '  - {group: "", version: v1, kind: Service} # dup'],
    distinct: ["additionalChildKinds:", '  - {group: "", version: v1, kind: Service}', "  - {group: serving.knative.dev, version: v1, kind: Service}", '  - {group: "", version: v1, kind: ConfigMap}'],
    key: '{"group":"","kind":"Service","version":"v1"}',
  },
  "GangScheduling.podGroups": {
    where: "gang",
    path: "spec.optimizationInstructions.gangScheduling.podGroups[1]",
    duplicate: ["podGroups:","  - {name: all, members: [{componentName: job}]}","  - name: all # dup","    members: [{componentName: worker}]"],
    distinct: ["podGroups:","  - {name: all, members: [{componentName: job}]}","  - name: workers","    members: [{componentName: worker}]"],
    key: '{"name":"all"}',
  },
  "PodGroupDefinition.members": {
    where: "members",
    path: "spec.optimizationInstructions.gangScheduling.podGroups[0].members[1]",
    duplicate: ["members:","  - componentName: worker","  - componentName: worker # dup","    filters: [.spec.nodeName != null]"],
    distinct: ["members:","  - componentName: worker","  - componentName: job","    filters: [.spec.nodeName != null]"],
    key: '{"componentName":"worker"}',
  },
  "PodGroupComponentsMapping.subGroups": {
    where: "gang",
    path: "spec.optimizationInstructions.gangScheduling.podGroup.subGroups[1]",
    duplicate: ["podGroup:","  name: all","  subGroups:","    - componentName: job","    - componentName: job # dup","    - componentName: worker"],
    distinct: ["podGroup:","  name: all","  subGroups:","    - componentName: job","    - componentName: worker"],
    key: '{"componentName":"job"}',
  },
};

/** `Type.field` of every list map in the schema table. */
function listMaps(): string[] {
  const out: string[] = [];
  for (const [name, spec] of Object.entries(KARTA_TYPES)) {
    for (const [field, f] of Object.entries(spec.fields)) if (f.type.type === "array" && f.type.listMapKey !== undefined) out.push(`${name}.${field}`);
  }
  return out.sort();
}

function records(text: string): string[] {
  return validateText(text, "lists.yaml").diagnostics.map((d) => `${d.severity} ${d.source?.line}:${d.source?.column} ${d.path}: ${d.message}`);
}

describe("every list map of the schema refuses a repeated key, as the API server does", () => {
  test("each list map of the schema has a case here", () => {
    assert.deepEqual(Object.keys(CASES).sort(), listMaps());
  });

  for (const [name, c] of Object.entries(CASES)) {
    test(`${name}: a repeated key is an error at the repeated item, distinct keys are fine`, () => {
      const text = karta(c.where, c.duplicate);
      const lines = text.split("\n");
      const line = lines.findIndex((l) => l.endsWith("# dup"));
      const column = lines[line]!.indexOf("- ") + 3;
      const keys = [(typeSpec(name.split(".")[0]!).fields[name.split(".")[1]!]!.type as { listMapKey: string | string[] }).listMapKey].flat();
      assert.ok(keys.every((k) => c.key.includes(`"${k}":`)), "the key shown is the list's key");
      assert.deepEqual(records(text), [`error ${line + 1}:${column} ${c.path}: Duplicate value: ${c.key}`]);
      assert.deepEqual(records(karta(c.where, c.distinct)), []);
    });
  }

  test("a Karta object read from the API gets the same error, without a position", () => {
    const text = karta("structure", CASES["StructureDefinition.childComponents"]!.duplicate);
    const object = JSON.parse(JSON.stringify(validateText(text, "x.yaml").definitions[0]!.karta)) as unknown;
    const errors = validateKartaObject(object);
    assert.deepEqual(
      errors.map((d) => `${d.path}: ${d.message}`),
      ['spec.structureDefinition.childComponents[1]: Duplicate value: {"name":"worker"}'],
    );
    assert.equal(errors[0]!.source, undefined);
  });

  test("a kind listed twice is an error; a component's kind listed again still warns, at each listing", () => {
    const text = karta("structure", ["childComponents: [{name: worker, ownerRef: job, kind: {group: '', version: v1, kind: Pod}}]","additionalChildKinds:","  - {group: '', version: v1, kind: Pod}","  - {group: '', version: v1, kind: Pod}"]);
    assert.deepEqual(records(text), [
      "warning 15:9 spec.structureDefinition.additionalChildKinds[0]: kind v1, Kind=Pod is already the kind of component 'worker': list only kinds that are not components",
      'error 16:9 spec.structureDefinition.additionalChildKinds[1]: Duplicate value: {"group":"","kind":"Pod","version":"v1"}',
      "warning 16:9 spec.structureDefinition.additionalChildKinds[1]: kind v1, Kind=Pod is already the kind of component 'worker': list only kinds that are not components",
    ]);
  });

  test("a child may not take the root's name: the reference's message, as the root is not in the list", () => {
    const text = karta("structure", ["childComponents:","  - {name: job, ownerRef: job}"]);
    assert.deepEqual(
      records(text).filter((r) => r.startsWith("error")),
      ["error 14:16 spec.structureDefinition.childComponents[0].name: component name job is not unique"],
    );
  });

  test("a set list refuses a repeated item too", () => {
    const text = karta("members", ["members:","  - componentName: worker","    groupByKeyPaths: [gpu, zone, gpu]"]);
    assert.deepEqual(records(text), ['error 20:44 spec.optimizationInstructions.gangScheduling.podGroups[0].members[0].groupByKeyPaths[2]: Duplicate value: "gpu"']);
  });
});

describe("duplicateItems follows the API server's list-type validation", () => {
  const gvk = ["group","version","kind"];

  test("only the second occurrence of a key is reported, in list order", () => {
    assert.deepEqual(duplicateItems([{ name: "a" }, { name: "b" }, { name: "a" }, { name: "a" }, { name: "b" }], ["name"]), [
      { index: 2, message: 'Duplicate value: {"name":"a"}' },
      { index: 4, message: 'Duplicate value: {"name":"b"}' },
    ]);
  });

  test("fields other than the keys do not matter", () => {
    assert.deepEqual(duplicateItems([{ name: "a", ownerRef: "x" }, { name: "a", ownerRef: "y" }], ["name"]).map((d) => d.index), [1]);
  });

  test("an absent key is a value of its own: two items without it repeat it, shown as an empty key", () => {
    assert.deepEqual(duplicateItems([{ ownerRef: "x" }, { name: "a" }, { ownerRef: "y" }], ["name"]), [{ index: 2, message: "Duplicate value: {}" }]);
    // A null key is pruned by the server before it validates: the same as absent.
    assert.deepEqual(duplicateItems([{ name: null }, {}], ["name"]).map((d) => d.index), [1]);
    // A null item has no key either.
    assert.deepEqual(duplicateItems([null, {}], ["name"]).map((d) => d.index), [1]);
  });

  test("several keys: all must be equal; an absent one is left out of the key shown", () => {
    assert.deepEqual(duplicateItems([{ group: "", version: "v1", kind: "Service" }, { group: "serving.knative.dev", version: "v1", kind: "Service" }], gvk), []);
    assert.deepEqual(duplicateItems([{ version: "v1", kind: "Service" }, { group: "", version: "v1", kind: "Service" }], gvk), []);
    assert.deepEqual(duplicateItems([{ version: "v1", kind: "Service" }, { kind: "Service", version: "v1" }], gvk), [
      { index: 1, message: 'Duplicate value: {"kind":"Service","version":"v1"}' },
    ]);
  });

  test("values keep their JSON type and are shown as the server's field errors show them (Go's JSON)", () => {
    assert.deepEqual(duplicateItems([{ name: "1" }, { name: 1 }], ["name"]), []);
    assert.deepEqual(duplicateItems([{ name: 1 }, { name: 1 }], ["name"]), [{ index: 1, message: "Duplicate value: {\"name\":1}" }]);
    assert.deepEqual(duplicateItems([{ name: true }, { name: true }], ["name"])[0]?.message, 'Duplicate value: {"name":true}');
    assert.deepEqual(duplicateItems([{ name: 'a"\\\tb' }, { name: 'a"\\\tb' }], ["name"])[0]?.message, 'Duplicate value: {"name":"a\\"\\\\\\tb"}');
    assert.deepEqual(duplicateItems([{ name: "<a&b>" }, { name: "<a&b>" }], ["name"])[0]?.message, 'Duplicate value: {"name":"\\u003ca\\u0026b\\u003e"}');
    assert.deepEqual(duplicateItems(["a\tb", "a\tb"])[0]?.message, 'Duplicate value: "a\\tb"');
  });

  test("a map list holding an item that is not an object is not compared", () => {
    assert.deepEqual(duplicateItems([{ name: "a" }, "a", { name: "a" }], ["name"]), []);
  });

  test("sets compare whole items; strings are quoted, objects shown as JSON", () => {
    assert.deepEqual(duplicateItems(["a", "b", "a"]), [{ index: 2, message: 'Duplicate value: "a"' }]);
    assert.deepEqual(duplicateItems([{ b: 1, a: "x" }, { a: "x", b: 1 }]), [{ index: 1, message: 'Duplicate value: {"a":"x","b":1}' }]);
    assert.deepEqual(duplicateItems([1.5, 1.5, 2]), [{ index: 1, message: "Duplicate value: 1.5" }]);
  });
});
