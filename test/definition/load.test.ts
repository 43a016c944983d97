import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { loadDefinitions, loadDefinitionValue } from "../../src/definition/load.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { validateDefinition } from "../../src/definition/validate.js";
import { repoRoot } from "../fixtures/objects.js";
import { fixture } from "./helpers.js";

describe("loadDefinitions", () => {
  test("loads a full Karta with its fields typed and positioned", () => {
    const r = loadDefinitions(fixture("valid/pytorchjob.yaml"), "pytorchjob.yaml");
    assert.deepEqual(r.diagnostics, []);
    assert.equal(r.definitions.length, 1);
    const def = r.definitions[0]!;
    assert.equal(def.shape, "Karta");
    const sd = def.karta.spec.structureDefinition;
    assert.equal(sd.rootComponent.kind?.kind, "PyTorchJob");
    assert.equal(sd.childComponents?.[1]?.specDefinition?.podTemplateSpecPath, ".spec.pytorchReplicaSpecs.Worker.template");
    assert.deepEqual(sd.rootComponent.suspendDefinition?.suspendActions[0], { path: ".spec.runPolicy.suspend", value: "true" });
    // childComponents[1].ownerRef is on line 43, its value at column 19.
    assert.deepEqual(def.locate(["spec", "structureDefinition", "childComponents", 1, "ownerRef"]), { file: "pytorchjob.yaml", line: 43, column: 19 });
    assert.deepEqual(def.locate(["spec", "structureDefinition", "childComponents", 1, "ownerRef"], { atKey: true }), { file: "pytorchjob.yaml", line: 43, column: 9 });
    // A position inside a quoted jq expression: character 1 of the keyPath is 'm' of .metadata (the quote is column 22).
    assert.deepEqual(def.locateInValue(["spec", "structureDefinition", "childComponents", 1, "podSelector", "componentTypeSelector", "keyPath"], 1), {
      file: "pytorchjob.yaml",
      line: 52,
      column: 24,
    });
  });

  test("normalises the fragment style, keeping positions of the written fields", () => {
    const r = loadDefinitions(fixture("valid/jobset-fragment.yaml"), "f.yaml");
    assert.deepEqual(r.diagnostics, []);
    const def = r.definitions[0]!;
    assert.equal(def.shape, "fragment");
    assert.equal(def.karta.apiVersion, "run.ai/v1alpha1");
    assert.equal(def.karta.spec.structureDefinition.childComponents?.[0]?.instanceIdPath, ".spec.replicatedJobs[].name");
    assert.equal(def.karta.spec.optimizationInstructions?.gangScheduling?.podGroup?.subGroups?.[0]?.topology?.requiredTopologyLevel, "zone");
    assert.deepEqual(def.locate(["spec", "structureDefinition", "childComponents", 0, "instanceIdPath"]), { file: "f.yaml", line: 24, column: 21 });
    assert.deepEqual(def.locate(["spec", "optimizationInstructions", "gangScheduling", "podGroup", "name"]), { file: "f.yaml", line: 31, column: 13 });
  });

  test("accepts a bare spec, a Karta without apiVersion/kind, a List, several documents and JSON", () => {
    const bare = `structureDefinition:\n  rootComponent:\n    name: job\n`;
    const r1 = loadDefinitions(bare, "bare.yaml");
    assert.equal(r1.definitions[0]?.shape, "spec");
    assert.deepEqual(r1.definitions[0]?.locate(["spec", "structureDefinition", "rootComponent", "name"]), { file: "bare.yaml", line: 3, column: 11 });

    const specOnly = `{"spec": {"structureDefinition": {"rootComponent": {"name": "isvc"}}}}`;
    const r2 = loadDefinitions(specOnly, "seed.json");
    assert.equal(r2.definitions[0]?.karta.kind, "Karta");
    assert.deepEqual(r2.diagnostics, []);

    const list = `apiVersion: v1\nkind: List\nitems:\n- apiVersion: run.ai/v1alpha1\n  kind: Karta\n  spec:\n    structureDefinition:\n      rootComponent: {name: a}\n- spec:\n    structureDefinition:\n      rootComponent: {name: b, ownerName: x}\n`;
    const r3 = loadDefinitions(list, "list.yaml");
    assert.deepEqual(r3.definitions.map((d) => d.karta.spec.structureDefinition.rootComponent.name), ["a", "b"]);
    assert.equal(r3.diagnostics.length, 1);
    assert.equal(r3.diagnostics[0]?.message, 'unknown field "ownerName"; did you mean "ownerRef"?');
    assert.deepEqual(r3.diagnostics[0]?.source, { file: "list.yaml", line: 11, column: 32 });

    const multi = `rootComponent: {name: a}\n---\nrootComponent: {name: b}\n---\n`;
    const r4 = loadDefinitions(multi, "multi.yaml");
    assert.deepEqual(r4.definitions.map((d) => d.document), [0, 1]);
  });

  test("reports YAML syntax errors, documents that are not Kartas and the former kind name", () => {
    const r1 = loadDefinitions("spec:\n  structureDefinition: [\n", "bad.yaml");
    assert.equal(r1.definitions.length, 0);
    assert.equal(r1.diagnostics[0]?.severity, "error");
    assert.equal(r1.diagnostics[0]?.code, "yaml");
    assert.equal(r1.diagnostics[0]?.source?.file, "bad.yaml");

    const r2 = loadDefinitions("apiVersion: apps/v1\nkind: Deployment\nspec: {}\n", "dep.yaml");
    assert.match(r2.diagnostics[0]!.message, /^not a Karta \(kind is "Deployment"\)/);
    assert.deepEqual(r2.diagnostics[0]?.source, { file: "dep.yaml", line: 2, column: 7 });

    const r3 = loadDefinitions("apiVersion: optimization.nvidia.com/v1alpha1\nkind: ResourceInterface\nspec: {}\n", "ri.yaml");
    assert.match(r3.diagnostics[0]!.message, /former name of Karta/);

    const r4 = loadDefinitions("- 1\n- 2\n", "seq.yaml");
    assert.match(r4.diagnostics[0]!.message, /the document is not a mapping/);
  });

  test("unknown fields get a did-you-mean at the key; wrong types are reported at the value", () => {
    const r = loadDefinitions(fixture("invalid/unknown-fields.yaml"), "u.yaml");
    const got = r.diagnostics.map((d) => `${d.source?.line}:${d.source?.column} ${d.message}`);
    assert.deepEqual(got, [
      '13:7 unknown field "referencedComponents": not a Karta field; a child component names its parent with ownerRef',
      '16:9 unknown field "ownerName"; did you mean "ownerRef"?',
      '19:11 unknown field "fragmentedPodDefinition"; did you mean "fragmentedPodSpecDefinition"?',
      '24:20 expected a string, got the number 1; quote it: "1"',
    ]);
    // The decoded Karta leaves out what it could not decode; a number or boolean where text goes is read
    // as the quoted text the message suggests, so that no later check reports it again.
    const child = r.definitions[0]!.karta.spec.structureDefinition.childComponents![0]!;
    assert.equal("ownerName" in child, false);
    assert.equal(child.podSelector?.componentTypeSelector?.value, "1");
    // A component name given as a number: its type error alone, not also "component name is empty".
    const job = readFileSync(path.join(repoRoot, "definitions/batch/v1/Job.yaml"), "utf8").replace(/^ {6}name: job$/m, "      name: 5");
    const loaded = loadDefinitions(job, "job.yaml");
    assert.deepEqual(loaded.diagnostics.map((d) => d.code), ["type"]);
    assert.deepEqual(validateDefinition(loaded.definitions[0]!).filter((d) => d.path === "spec.structureDefinition.rootComponent.name"), []);
  });

  test("a typo in a field name is suggested by edit distance", () => {
    const r = loadDefinitions("rootComponent:\n  name: x\n  scaleDefinition: {replicaPath: .spec.replicas}\n", "t.yaml");
    assert.equal(r.diagnostics[0]?.message, 'unknown field "replicaPath"; did you mean "replicasPath"?');
    assert.equal(r.diagnostics[0]?.path, "spec.structureDefinition.rootComponent.scaleDefinition.replicaPath");
  });

  test("a status the published CRD does not list is refused, naming the accepted statuses and the closest", () => {
    // Upstream's catalog once used `progressing` and `pending`; its published CRD (run.ai/v1alpha1) has neither.
    const text = "spec:\n  structureDefinition:\n    rootComponent:\n      name: x\n      kind: {group: a, version: v1, kind: X}\n      statusDefinition:\n        statusMappings:\n          progressing: []\n          pending: []\n          resuming: []\n";
    const r = loadDefinitions(text, "x.yaml");
    const accepted = "initializing, running, completed, failed, degraded, suspended, suspending, resuming";
    assert.deepEqual(
      r.diagnostics.map((d) => [d.source?.line, d.code, d.path, d.message]),
      [
        [8, "unknown-status", "spec.structureDefinition.rootComponent.statusDefinition.statusMappings.progressing", `unknown status "progressing": the published Karta CRD (run.ai/v1alpha1) accepts ${accepted}; the closest is "resuming"`],
        [9, "unknown-status", "spec.structureDefinition.rootComponent.statusDefinition.statusMappings.pending", `unknown status "pending": the published Karta CRD (run.ai/v1alpha1) accepts ${accepted}; the closest is "running"`],
      ],
    );
  });
  test("empty values where the CRD requires content", () => {
    const text = `rootComponent:
  name: x
  suspendDefinition: {suspendActions: [], resumeActions: [{path: .spec.suspend, value: "false"}]}
  podSelector:
    componentTypeSelector: {keyPath: "", matchLabels: {}}
`;
    const got = loadDefinitions(text, "e.yaml").diagnostics.map((d) => `${d.source?.line}:${d.source?.column} ${d.path}: ${d.message}`);
    assert.deepEqual(got, [
      "3:39 spec.structureDefinition.rootComponent.suspendDefinition.suspendActions: must have at least 1 item",
      "5:38 spec.structureDefinition.rootComponent.podSelector.componentTypeSelector.keyPath: must not be empty",
      "5:55 spec.structureDefinition.rootComponent.podSelector.componentTypeSelector.matchLabels: must not be empty",
    ]);
  });

  test("an action's value is JSON text, as upstream's CRD types it: a bare boolean or number (Karta's earlier form) loads as its JSON text, with a warning", () => {
    const text = `rootComponent:
  name: x
  suspendDefinition: {suspendActions: [{path: .spec.suspend, value: true}], resumeActions: [{path: .spec.replicas, value: 3}]}
`;
    const r = loadDefinitions(text, "v.yaml");
    assert.deepEqual(
      r.diagnostics.map((d) => `${d.severity} ${d.source?.line}:${d.source?.column} ${d.path}: ${d.message}`),
      [
        'warning 3:69 spec.structureDefinition.rootComponent.suspendDefinition.suspendActions[0].value: expected JSON text in a string, as upstream\'s CRD types it, got the boolean true; read as "true" (write it so: upstream cannot decode the value)',
        'warning 3:123 spec.structureDefinition.rootComponent.suspendDefinition.resumeActions[0].value: expected JSON text in a string, as upstream\'s CRD types it, got the number 3; read as "3" (write it so: upstream cannot decode the value)',
      ],
    );
    const sd = r.definitions[0]!.karta.spec!.structureDefinition!.rootComponent!.suspendDefinition!;
    assert.deepEqual([sd.suspendActions[0]!.value, sd.resumeActions[0]!.value], ["true", "3"]);
  });

  test("a plain value (as read from the API) loads the same way, without positions", () => {
    const r = loadDefinitionValue({ apiVersion: "run.ai/v1alpha1", kind: "Karta", spec: { structureDefinition: { rootComponent: { name: "job", owner: "x" } } } });
    assert.equal(r.definitions[0]?.karta.spec.structureDefinition.rootComponent.name, "job");
    assert.deepEqual(r.diagnostics, [
      { severity: "error", path: "spec.structureDefinition.rootComponent.owner", message: 'unknown field "owner"; did you mean "ownerRef"?', code: "unknown-field" },
    ]);
    assert.equal(r.definitions[0]?.locate(["spec"]), undefined);
  });
});

describe("YAML the loader cannot map to JSON", () => {
  test("a mapping with a collection as key is a diagnostic, not a process warning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      const r = loadDefinitions("apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata:\n  name: x\n  ? [team, ml]\n  : owner\n", "k.yaml");
      assert.ok(r.diagnostics.length + r.definitions.length > 0);
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings, []);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
