/**
 * The playground's engine and editor helpers under Node: the same modules the page bundles
 * (playground/src/), on the bundled definitions and their examples.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { analyze, check, parseDocuments, podsOf } from "../../playground/src/engine.js";
import { completionsFor, hoverFor, jsonContext, keyAt, schemaAt, yamlContext, type JsonSchema } from "../../playground/src/schema-assist.js";
import { decodeState, encodeState } from "../../playground/src/share.js";
import { karmadaAnswers } from "../../playground/src/karmada.js";
import { groupsPicture } from "../../playground/src/picture.js";
import { repoRoot } from "../support/conformance.js";

const read = (rel: string): string => readFileSync(path.join(repoRoot, rel), "utf8");
const schema = JSON.parse(read("schema/karta.schema.json")) as JsonSchema;
const PYTORCH = read("definitions/kubeflow.org/v1/PyTorchJob.yaml");
const JOB = read("examples/pytorchjob.yaml");
const PODS = read("examples/pytorchjob-pods.yaml");

/** The text with the cursor at `|` removed, and the cursor's offset. */
function cursor(text: string): { text: string; pos: number } {
  const pos = text.indexOf("|");
  return { text: text.slice(0, pos) + text.slice(pos + 1), pos };
}

describe("playground engine", () => {
  test("the README's PyTorchJob: no diagnostics, one group of minMember 2, patches and Workload API objects", () => {
    const a = analyze(PYTORCH, JOB, PODS);
    assert.deepEqual(a.diagnostics, []);
    assert.equal(a.blocked, undefined);
    assert.equal(a.interpretation!.groups.length, 1);
    assert.equal(a.interpretation!.groups[0]!.minMember, 2);
    assert.equal(a.interpretation!.pods.length, 4);
    // KAI groups a PyTorchJob with its own plugin: the groups pane says so, as karta inspect does.
    assert.deepEqual(a.kaiNotice, [
      "KAI Scheduler groups PyTorchJob kubeflow.org/v1 with its own PyTorchGrouper (PodGroups named pg-<name>-<uid>, with that plugin's subgroups and minMember);",
      "below is what KAI's Karta grouper would build for a kind without a plugin",
    ]);
    assert.equal(analyze(read("definitions/milvus.io/v1beta1/Milvus.yaml"), read("examples/milvus.yaml"), read("examples/milvus-pods.yaml")).kaiNotice, undefined);
    assert.ok(a.compilation!.ok);
    // KAI's subgroups: a CompositePodGroup that needs both, over a master and a worker PodGroup.
    assert.equal(a.compilation!.compositePodGroups[0]!.spec.schedulingPolicy?.gang?.minGroupCount, 2);
    assert.deepEqual(a.compilation!.podGroups.map((p) => p.spec.schedulingPolicy?.gang?.minCount), [1, 1]);
    assert.deepEqual(a.patches!.suspend.patch, [{ op: "replace", path: "/spec/runPolicy/suspend", value: true }]);
    assert.equal(a.patches!.setScheduler.patch.length, 2);
  });

  test("every bundled definition validates clean and interprets its example", () => {
    const fixtures = path.join(repoRoot, "test", "fixtures", "bundled");
    for (const dir of ["Deployment", "InferenceService", "Job", "JobSet", "KnativeService", "LeaderWorkerSet", "MPIJob", "RayCluster", "StatefulSet"]) {
      const expected = read(`test/fixtures/bundled/${dir}/expected.yaml`);
      const def = /^definition: (.*)$/m.exec(expected)![1]!;
      const a = analyze(read(`definitions/${def}`), readFileSync(path.join(fixtures, dir, "workload.yaml"), "utf8"), readFileSync(path.join(fixtures, dir, "pods.yaml"), "utf8"));
      assert.deepEqual(a.diagnostics.filter((d) => d.severity === "error"), [], dir);
      assert.equal(a.blocked, undefined, dir);
      assert.ok(a.interpretation!.components.length > 0, dir);
    }
  });

  test("a typo in a field name: the diagnostic at its line and column with the did-you-mean; nothing interpreted", () => {
    const typo = PYTORCH.replace("    childComponents:", "    childComponent:");
    const line = typo.split("\n").indexOf("    childComponent:") + 1;
    const a = analyze(typo, JOB, PODS);
    // The typo, then the two subgroups that name the components it hid.
    assert.deepEqual(a.diagnostics.map((d) => d.path), ["spec.structureDefinition.childComponent", "spec.optimizationInstructions.gangScheduling.podGroup.subGroups[0].componentName", "spec.optimizationInstructions.gangScheduling.podGroup.subGroups[1].componentName"]);
    const d = a.diagnostics[0]!;
    assert.deepEqual([d.source?.line, d.source?.column], [line, 5]);
    assert.match(d.message, /did you mean "childComponents"\?/);
    assert.equal(a.interpretation, undefined);
    assert.match(a.blocked!, /3 errors; fix them first/);
  });

  test("a Karta in JSON is validated with positions too", () => {
    const json = JSON.stringify({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: "x" }, spec: { structureDefinition: { rootComponent: { name: "r", kind: { group: "g", version: "v1", kind: "K" } } }, optimizationInstuctions: {} } }, null, 2);
    const { diagnostics } = check(json, "", "");
    const unknown = diagnostics.find((d) => d.code === "unknown-field");
    assert.ok(unknown, JSON.stringify(diagnostics));
    assert.match(unknown.message, /did you mean "optimizationInstructions"/);
    assert.equal(json.split("\n")[unknown.source!.line - 1]!.trim().startsWith('"optimizationInstuctions"'), true);
  });

  test("object and pods problems are positioned; a List of pods and several documents are read", () => {
    const bad = parseDocuments("apiVersion: v1\nkind: Pod\nkind: Service\n");
    assert.equal(bad.problems.length, 1);
    assert.deepEqual([bad.problems[0]!.line, bad.problems[0]!.column], [3, 1]);
    assert.match(bad.problems[0]!.message, /unique/);
    const list = podsOf(parseDocuments("apiVersion: v1\nkind: List\nitems:\n- {kind: Pod, metadata: {name: a}}\n---\nkind: Pod\nmetadata: {name: b}\n"));
    assert.deepEqual(list.map((p) => (p as { metadata: { name: string } }).metadata.name), ["a", "b"]);
    const a = analyze(PYTORCH, "kind: [", PODS);
    assert.match(a.blocked!, /does not parse|no workload object/);
    const two = analyze(PYTORCH, JOB + "\n---\n" + JOB, PODS);
    assert.match(two.objectProblems[0]!.message, /expected one workload object, found 2/);
  });

  test("the picture draws one box per group with its minMember and flags unmatched pods", () => {
    const stray = "\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: stray<x>, namespace: ml-team}\nspec: {containers: [{name: c, image: busybox}]}\n";
    const svg = groupsPicture(analyze(PYTORCH, JOB, PODS + stray).interpretation!);
    assert.equal(svg.match(/<g class="group"/g)?.length, 1);
    assert.match(svg, /data-min-member="2"/);
    assert.match(svg, /<g class="pod unmatched" data-pod="stray&lt;x&gt;"/);
    assert.doesNotMatch(svg, /stray<x>/);
  });
});

describe("playground schema assistance", () => {
  test("the field path at the cursor, in YAML, through mappings and sequence items", () => {
    const c1 = cursor("spec:\n  structureDefinition:\n    childComponents:\n      - name: a\n        spec|\n");
    assert.deepEqual(yamlContext(c1.text, c1.pos), { path: ["spec", "structureDefinition", "childComponents", 0], mode: "key", partial: "spec", from: c1.pos - 4, present: ["name"] });
    const c2 = cursor("spec:\n  structureDefinition:\n    childComponents:\n    - name: a\n    - |");
    assert.deepEqual(yamlContext(c2.text, c2.pos)?.path, ["spec", "structureDefinition", "childComponents", 0]);
    const c3 = cursor("spec:\n  structureDefinition:\n    rootComponent:\n      statusDefinition:\n        statusMappings:\n          running:\n            - byConditions: []\n        conditionsDefinition: {}\n  optimizationInstructions:\n    gang|");
    assert.deepEqual(yamlContext(c3.text, c3.pos)?.path, ["spec", "optimizationInstructions"]);
    const c4 = cursor("apiVersion: |");
    assert.deepEqual(yamlContext(c4.text, c4.pos), { path: ["apiVersion"], mode: "value", partial: "", from: c4.pos, present: [] });
  });

  test("completions offer the schema's fields (not those present) and enum values", () => {
    const c = cursor("apiVersion: run.ai/v1alpha1\nkind: Karta\nsp|");
    const ctx = yamlContext(c.text, c.pos)!;
    const labels = completionsFor(schema, ctx, false).map((o) => o.label);
    assert.deepEqual(labels.sort(), ["metadata", "spec", "status"]);
    const spec = completionsFor(schema, ctx, false).find((o) => o.label === "spec")!;
    assert.equal(spec.apply, "spec:\n");
    assert.match(spec.detail, /KartaSpec \(required\)/);
    const v = cursor("apiVersion: |");
    assert.deepEqual(completionsFor(schema, yamlContext(v.text, v.pos)!, false).map((o) => o.label), ["run.ai/v1alpha1"]);
    const item = cursor("spec:\n  structureDefinition:\n    childComponents:\n      - name: a\n        |");
    const fields = completionsFor(schema, yamlContext(item.text, item.pos)!, false).map((o) => o.label);
    assert.ok(fields.includes("ownerRef") && fields.includes("specDefinition") && !fields.includes("name"), fields.join(","));
  });

  test("JSON: the path at the cursor and completions that insert quoted keys", () => {
    const c = cursor('{"apiVersion": "run.ai/v1alpha1", "spec": {"structureDefinition": {"childComponents": [{"name": "a"}, {"|');
    const ctx = jsonContext(c.text, c.pos)!;
    assert.deepEqual(ctx.path, ["spec", "structureDefinition", "childComponents", 1]);
    assert.equal(ctx.mode, "key");
    const opt = completionsFor(schema, ctx, true).find((o) => o.label === "ownerRef")!;
    assert.equal(opt.apply, '"ownerRef": ');
    const v = cursor('{"kind": "|');
    assert.deepEqual(completionsFor(schema, jsonContext(v.text, v.pos)!, true).map((o) => o.apply), ['"Karta"']);
  });

  test("hover names the field's path, type and description", () => {
    const text = PYTORCH;
    const pos = text.indexOf("podTemplateSpecPath") + 3;
    const hit = keyAt(text, pos, false)!;
    assert.deepEqual(hit.path, ["spec", "structureDefinition", "childComponents", 0, "specDefinition"]);
    const h = hoverFor(schema, hit)!;
    assert.equal(h.title, "spec.structureDefinition.childComponents[].specDefinition.podTemplateSpecPath");
    assert.match(h.description, /\S/);
    assert.ok(schemaAt(schema, ["spec", "structureDefinition", "rootComponent", "kind"])?.properties?.["group"]);
    assert.equal(keyAt(text, text.indexOf("# Karta for") + 2, false), undefined);
  });
});

describe("playground links", () => {
  test("the state survives the fragment; a damaged one says why", async () => {
    const state = { picked: "kubeflow.org/v1/PyTorchJob.yaml", karta: PYTORCH, object: JOB, pods: PODS + "ünïcode ✓" };
    const fragment = await encodeState(state);
    assert.match(fragment, /^#s=[A-Za-z0-9_-]+$/);
    assert.ok(fragment.length < (PYTORCH + JOB + PODS).length / 2, `compressed to ${fragment.length}`);
    assert.deepEqual(await decodeState(fragment), state);
    assert.match(((await decodeState("#s=AAAA")) as { error: string }).error, /cannot be read/);
    assert.match(((await decodeState("#other")) as { error: string }).error, /not a playground link/);
  });
});

describe("playground Karmada answers", () => {
  const customizations = ["argoproj.io/v1alpha1/Workflow.yaml"].map((f) => ({ file: f, text: read(`interpreter-customizations/${f}`) }));

  test("every operation, with the layer that answered, as karta interpret -d stacks them", async () => {
    const a = analyze(PYTORCH, JOB, PODS);
    const answers = await karmadaAnswers(a.definition!, a.object as never, customizations);
    assert.deepEqual(answers.map((o) => o.operation), ["InterpretReplica", "InterpretComponent", "ReviseReplica", "ReviseComponents", "InterpretStatus", "InterpretHealth", "InterpretDependency", "Retain", "AggregateStatus"]);
    const by = new Map(answers.map((o) => [o.operation, o]));
    // Each component one replica more, written back where the Karta's components keep their replicas.
    const revise = by.get("ReviseComponents")!;
    const specs = ((a.object as { spec: unknown }).spec as { pytorchReplicaSpecs: Record<string, { replicas: number }> }).pytorchReplicaSpecs;
    assert.deepEqual([revise.layer, revise.input], ["karta", `desired master=${specs["Master"]!.replicas + 1}, worker=${specs["Worker"]!.replicas + 1}`]);
    const revised = revise.results![0]![1] as { spec: { pytorchReplicaSpecs: Record<string, { replicas: number }> } };
    assert.deepEqual([revised.spec.pytorchReplicaSpecs["Master"]!.replicas, revised.spec.pytorchReplicaSpecs["Worker"]!.replicas], [specs["Master"]!.replicas + 1, specs["Worker"]!.replicas + 1]);
    assert.equal(by.get("InterpretComponent")!.layer, "karta");
    assert.deepEqual((by.get("InterpretComponent")!.results![0]![1] as { name: string }[]).map((c) => c.name), ["master", "worker"]);
    assert.equal(by.get("InterpretHealth")!.results![0]![1], true);
    assert.equal(by.get("InterpretReplica")!.ok, false);
    assert.match(by.get("InterpretReplica")!.error!, /default InterpretReplica interpreter for "kubeflow.org\/v1, Kind=PyTorchJob" not found/);
  });

  test("the Lua layer answers where the Karta is undecided", async () => {
    const a = analyze(read("test/fixtures/playground/workflow-karta.yaml"), read("test/fixtures/playground/workflow.yaml"), "");
    assert.equal(a.blocked, undefined);
    const answers = await karmadaAnswers(a.definition!, a.object as never, customizations);
    const health = answers.find((o) => o.operation === "InterpretHealth")!;
    assert.deepEqual([health.layer, health.results], ["thirdparty", [["healthy", true]]]);
    const replica = answers.find((o) => o.operation === "InterpretReplica")!;
    assert.deepEqual([replica.layer, replica.results![0]], ["karta", ["replica", 3]]);
  });
});
