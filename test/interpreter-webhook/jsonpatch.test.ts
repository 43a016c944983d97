/** RFC 6902 JSON Patch over Kubernetes objects. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { applyJsonPatch, decodeJsonPatch, parsePointer, type JsonPatchOperation } from "../../src/jsonpatch/index.js";
import type { JsonValue } from "../../src/interpreter/types.js";

const deployment: JsonValue = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "shop", annotations: { "karmada.io/x~y": "1" } },
  spec: { replicas: 3, template: { spec: { containers: [{ name: "web", image: "nginx:1.27" }] } } },
};

function apply(ops: JsonPatchOperation[]): JsonValue {
  const out = applyJsonPatch(deployment, ops);
  assert.ok(out.ok, out.ok ? "" : out.error);
  return out.value;
}

describe("JSON Patch", () => {
  test("replace, add (member, index, '-'), remove; the input is untouched", () => {
    const out = apply([
      { op: "replace", path: "/spec/replicas", value: 5 },
      { op: "add", path: "/status", value: { readyReplicas: 5 } },
      { op: "add", path: "/spec/template/spec/containers/-", value: { name: "sidecar", image: "envoy:1.31" } },
      { op: "add", path: "/spec/template/spec/containers/0", value: { name: "init", image: "busybox" } },
      { op: "remove", path: "/metadata/namespace" },
    ]) as any;
    assert.equal(out.spec.replicas, 5);
    assert.deepEqual(out.status, { readyReplicas: 5 });
    assert.deepEqual(out.spec.template.spec.containers.map((c: { name: string }) => c.name), ["init", "web", "sidecar"]);
    assert.equal(out.metadata.namespace, undefined);
    assert.equal((deployment as any).spec.replicas, 3);
    assert.equal((deployment as any).spec.template.spec.containers.length, 1);
  });

  test("move, copy, test, and ~0/~1 escapes", () => {
    const out = apply([
      { op: "test", path: "/metadata/annotations/karmada.io~1x~0y", value: "1" },
      { op: "copy", from: "/spec/replicas", path: "/metadata/annotations/replicas" },
      { op: "move", from: "/metadata/annotations/karmada.io~1x~0y", path: "/metadata/labels" },
    ]) as any;
    assert.deepEqual(out.metadata.annotations, { replicas: 3 });
    assert.equal(out.metadata.labels, "1");
    assert.deepEqual(parsePointer("/a~1b/c~0d"), { ok: true, value: ["a/b", "c~d"] });
  });

  test("failures abort the whole patch and name the operation", () => {
    const cases: [JsonPatchOperation[], string][] = [
      [[{ op: "replace", path: "/spec/paused", value: true }], `operation 0 (replace): path "/spec/paused" does not exist`],
      [[{ op: "add", path: "/status/conditions", value: [] }], `operation 0 (add): path "/status/conditions": parent does not exist`],
      [[{ op: "remove", path: "/spec/template/spec/containers/1" }], `operation 0 (remove): path "/spec/template/spec/containers/1": array index out of bounds`],
      [[{ op: "replace", path: "/spec/replicas", value: 1 }, { op: "test", path: "/spec/replicas", value: 3 }], `operation 1 (test): testing value "/spec/replicas" failed`],
      [[{ op: "move", from: "/spec", path: "/spec/template/x" }], `operation 0 (move): cannot move "/spec" into its own child "/spec/template/x"`],
      [[{ op: "add", path: "spec", value: 1 }], `operation 0 (add): JSON Pointer "spec" must start with "/"`],
      [[{ op: "add", path: "/spec/template/spec/containers/01", value: 1 }], `operation 0 (add): path "/spec/template/spec/containers/01": array index out of bounds`],
    ];
    for (const [ops, message] of cases) assert.deepEqual(applyJsonPatch(deployment, ops), { ok: false, error: message });
  });

  test("a member named __proto__ is added as data", () => {
    const out = apply([{ op: "add", path: "/metadata/labels", value: {} }, { op: "add", path: "/metadata/labels/__proto__", value: { polluted: "yes" } }]);
    assert.equal(JSON.stringify((out as { metadata: { labels: unknown } }).metadata.labels), '{"__proto__":{"polluted":"yes"}}');
    assert.equal(({} as { polluted?: string }).polluted, undefined);
  });

  test("decoding checks each operation's members", () => {
    assert.deepEqual(decodeJsonPatch(`[{"op":"replace","path":"/spec/replicas","value":2}]`), { ok: true, value: [{ op: "replace", path: "/spec/replicas", value: 2 }] });
    assert.deepEqual(decodeJsonPatch(`{"op":"add"}`), { ok: false, error: "invalid JSON Patch: expected an array of operations" });
    assert.deepEqual(decodeJsonPatch(`[{"op":"add","path":"/a"}]`), { ok: false, error: `invalid JSON Patch: operation 0 (add): missing "value"` });
    assert.deepEqual(decodeJsonPatch(`[{"op":"merge","path":"/a"}]`), { ok: false, error: `invalid JSON Patch: operation 0: unknown op "merge"` });
    assert.deepEqual(decodeJsonPatch(`[{"op":"copy","path":"/a"}]`), { ok: false, error: `invalid JSON Patch: operation 0 (copy): missing "from"` });
    assert.deepEqual(decodeJsonPatch(`[{"op":"add","path":"/a","value":null}]`), { ok: true, value: [{ op: "add", path: "/a", value: null }] });
  });
});
