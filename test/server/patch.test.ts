/** The JSON Patch the server sends takes the input object to the answer, and is empty when they are equal. */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { applyJsonPatch } from "../../src/jsonpatch/index.js";
import { createJsonPatch } from "../../src/jsonpatch/diff.js";
import type { JsonValue } from "../../src/interpreter/types.js";

test("applying createJsonPatch(a, b) to a gives b", () => {
  const value = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<JsonValue>;
  fc.assert(
    fc.property(value, value, (a, b) => {
      const ops = createJsonPatch(a, b);
      const applied = applyJsonPatch(a, ops);
      assert.ok(applied.ok, applied.ok ? "" : applied.error);
      // Compared as JSON, which has no -0.
      assert.deepEqual(JSON.parse(JSON.stringify(applied.value)), JSON.parse(JSON.stringify(b)));
      assert.deepEqual(createJsonPatch(a, JSON.parse(JSON.stringify(a)) as JsonValue), []);
    }),
    { numRuns: 1000 },
  );
});

test("keys needing escapes, and a changed field deep in an object", () => {
  const a = { metadata: { labels: { "app.kubernetes.io/name": "x", "a~b": "1" } }, spec: { replicas: 1 } };
  const b = { metadata: { labels: { "app.kubernetes.io/name": "y", "a~b": "1" } }, spec: { replicas: 1 } };
  assert.deepEqual(createJsonPatch(a, b), [{ op: "replace", path: "/metadata/labels/app.kubernetes.io~1name", value: "y" }]);
});
