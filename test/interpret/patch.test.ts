/** Writes as JSON Patch: suspend/resume and pod fields, checked by applying them to the object. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { applyJsonPatch, compileInterpreter, jsonPointer, setOperation, type JsonPatchOperation } from "../../src/interpret/index.js";
import { catalogDefinition, fixtureObject, karta } from "./helpers.js";

function applied(object: unknown, patch: JsonPatchOperation[]): Record<string, unknown> {
  const r = applyJsonPatch(object, patch);
  assert.ok(r.ok, r.ok ? "" : r.error);
  return r.value as Record<string, unknown>;
}

describe("JSON Pointer and operations", () => {
  test("keys with / and ~ are escaped", () => {
    assert.equal(jsonPointer(["metadata", "labels", "kai.scheduler/queue", "a~b", 0]), "/metadata/labels/kai.scheduler~1queue/a~0b/0");
  });
  test("missing parents are built around the value; existing values are replaced", () => {
    const obj = { spec: { template: { spec: {} } } };
    assert.deepEqual(setOperation(obj, ["spec", "template", "metadata", "labels", "team"], "a"), { op: "add", path: "/spec/template/metadata", value: { labels: { team: "a" } } });
    assert.deepEqual(setOperation({ spec: { suspend: false } }, ["spec", "suspend"], true), { op: "replace", path: "/spec/suspend", value: true });
    assert.deepEqual(setOperation({ spec: {} }, ["spec", "suspend"], true), { op: "add", path: "/spec/suspend", value: true });
  });
});

describe("suspend and resume", () => {
  test("the catalog's PyTorchJob suspends through runPolicy.suspend (value written as JSON text)", (t) => {
    const def = catalogDefinition("kubeflow-org-pytorchjob-v1");
    if (!def) return t.skip("conformance data absent");
    const it = compileInterpreter(def);
    const job = fixtureObject("pytorchjob.yaml");
    const s = it.suspendPatch(job, "suspend");
    assert.deepEqual(s.diagnostics, []);
    assert.deepEqual(s.patch, [{ op: "replace", path: "/spec/runPolicy/suspend", value: true }]);
    const suspended = applied(job, s.patch);
    assert.equal((suspended.spec as { runPolicy: { suspend: boolean } }).runPolicy.suspend, true);
    const r = it.suspendPatch(suspended, "resume");
    assert.equal((applied(suspended, r.patch).spec as { runPolicy: { suspend: boolean } }).runPolicy.suspend, false);
  });
  test("a Job without spec.suspend gets it added", (t) => {
    const def = catalogDefinition("batch-job-v1");
    if (!def) return t.skip("conformance data absent");
    const job = fixtureObject("job.yaml");
    delete (job.spec as Record<string, unknown>).suspend;
    assert.deepEqual(compileInterpreter(def).suspendPatch(job, "suspend").patch, [{ op: "add", path: "/spec/suspend", value: true }]);
  });
  test("a definition without suspendDefinition says so", (t) => {
    const def = catalogDefinition("apps-deployment-v1");
    if (!def) return t.skip("conformance data absent");
    const r = compileInterpreter(def).suspendPatch(fixtureObject("deployment.yaml"), "suspend");
    assert.deepEqual(r.patch, []);
    assert.match(r.diagnostics[0]!.message, /no suspendDefinition/);
  });
  test("values are JSON text decoded as upstream decodes them; text that is not JSON is an error at the value, as upstream fails to suspend", () => {
    const it = compileInterpreter(
      karta(`
spec:
  structureDefinition:
    rootComponent:
      name: svc
      kind: {group: example.com, version: v1, kind: Service}
      statusDefinition: {statusMappings: {}}
      suspendDefinition:
        suspendActions: [{path: .spec.replicas, value: "0"}, {path: '.metadata.annotations["example.com/paused"]', value: '"paused"'}]
        resumeActions: [{path: .spec.replicas, value: "1"}, {path: .spec.mode, value: running}]
`),
    );
    const obj = { apiVersion: "example.com/v1", kind: "Service", metadata: { name: "s" }, spec: { replicas: 3 } };
    const r = it.suspendPatch(obj, "suspend");
    assert.deepEqual(r.patch, [
      { op: "replace", path: "/spec/replicas", value: 0 },
      { op: "add", path: "/metadata/annotations", value: { "example.com/paused": "paused" } },
    ]);
    const resumed = it.suspendPatch(obj, "resume");
    assert.deepEqual(resumed.patch, [{ op: "replace", path: "/spec/replicas", value: 1 }]);
    assert.deepEqual(
      resumed.diagnostics.map((d) => [d.severity, d.path, d.message]),
      [["error", "spec.structureDefinition.rootComponent.suspendDefinition.resumeActions[1].value", `failed to decode value "running": not JSON text (a string is written with its quotes, e.g. '"running"')`]],
    );
  });
});

describe("setting pod fields", () => {
  test("scheduler name on every replicated job of a JobSet (one location per instance)", (t) => {
    const def = catalogDefinition("jobset-x-k8s-io-jobset-v1alpha2");
    if (!def) return t.skip("conformance data absent");
    const it = compileInterpreter(def);
    const js = fixtureObject("jobset.yaml");
    const r = it.setPodFieldPatch(js, { field: "schedulerName", value: "kai-scheduler" });
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(
      r.patch.map((o) => o.path),
      ["/spec/replicatedJobs/0/template/spec/template/spec/schedulerName", "/spec/replicatedJobs/1/template/spec/template/spec/schedulerName"],
    );
    const after = it.interpret(applied(js, r.patch));
    assert.deepEqual(
      after.components[1]!.instances.map((i) => i.podTemplate!.spec.schedulerName),
      ["kai-scheduler", "kai-scheduler"],
    );
  });
  test("a label through podTemplateSpec, fragmented labelsPath and podSpec's metadataPath (KServe)", (t) => {
    const def = catalogDefinition("serving-kserve-io-inferenceservice-v1beta1");
    if (!def) return t.skip("conformance data absent");
    const it = compileInterpreter(def);
    const isvc = fixtureObject("inferenceservice.yaml");
    const r = it.setPodFieldPatch(isvc, { field: "label", key: "kai.scheduler/queue", value: "models" });
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual(r.patch, [
      { op: "add", path: "/spec/predictor/labels/kai.scheduler~1queue", value: "models" },
      { op: "add", path: "/spec/transformer/labels", value: { "kai.scheduler/queue": "models" } },
    ]);
    const after = it.interpret(applied(isvc, r.patch));
    for (const c of after.components.slice(1)) assert.equal((c.instances[0]!.podTemplate!.metadata!.labels as Record<string, string>)["kai.scheduler/queue"], "models");
  });
  test("a fragment the definition does not have, or a non-assignable path, is refused clearly", () => {
    const it = compileInterpreter(
      karta(`
spec:
  structureDefinition:
    rootComponent:
      name: nb
      kind: {group: example.com, version: v1, kind: Notebook}
      statusDefinition: {statusMappings: {}}
      specDefinition:
        fragmentedPodSpecDefinition:
          schedulerNamePath: '.spec.schedulerName // "default-scheduler"'
          resourcesPath: .spec.resources
`),
    );
    const obj = { apiVersion: "example.com/v1", kind: "Notebook", metadata: { name: "nb" }, spec: {} };
    const s = it.setPodFieldPatch(obj, { field: "schedulerName", value: "kai-scheduler" });
    assert.deepEqual(s.patch, []);
    assert.equal(s.diagnostics[0]!.path, "spec.structureDefinition.rootComponent.specDefinition.fragmentedPodSpecDefinition.schedulerNamePath");
    assert.match(s.diagnostics[0]!.message, /is not an assignable path: '"default-scheduler"' cannot be written to/);
    const l = it.setPodFieldPatch(obj, { field: "label", key: "a", value: "b" });
    assert.match(l.diagnostics[0]!.message, /the fragmented pod spec has no labelsPath/);
  });
  test("priority class on a PyTorchJob's master and worker templates", (t) => {
    const def = catalogDefinition("kubeflow-org-pytorchjob-v1");
    if (!def) return t.skip("conformance data absent");
    const job = fixtureObject("pytorchjob.yaml");
    const r = compileInterpreter(def).setPodFieldPatch(job, { field: "priorityClassName", value: "inference" });
    assert.deepEqual(
      r.patch.map((o) => [o.op, o.path]),
      [
        ["replace", "/spec/pytorchReplicaSpecs/Master/template/spec/priorityClassName"],
        ["replace", "/spec/pytorchReplicaSpecs/Worker/template/spec/priorityClassName"],
      ],
    );
  });
});
