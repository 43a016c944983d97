/** The webhook request decoder: returns a request or an error value for any input, never throws. */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeContext, peekRoute } from "../../src/server/context.js";

test("decodeContext returns a value or an error for any text", () => {
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.json(), fc.jsonValue().map((v) => JSON.stringify({ apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", request: v }))), (text) => {
      const d = decodeContext(text);
      assert.equal(typeof d.ok, "boolean");
      if (!d.ok) assert.equal(typeof d.message, "string");
    }),
    { numRuns: 2000 },
  );
});

test("a request with every field is decoded; each missing field is named", () => {
  const object = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w" } };
  const good = { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", request: { uid: "u", operation: "Retain", object, observedObject: object, replicas: 3, aggregatedStatus: [{ clusterName: "m1" }] } };
  const d = decodeContext(JSON.stringify(good));
  assert.ok(d.ok);
  assert.equal(d.request.replicas, 3);
  const without = (field: string): string => {
    const r = { ...good.request } as Record<string, unknown>;
    delete r[field];
    const out = decodeContext(JSON.stringify({ ...good, request: r }));
    assert.ok(!out.ok);
    return out.message;
  };
  assert.match(without("uid"), /request\.uid: Required value/);
  assert.match(without("operation"), /request\.operation: Required value/);
  // As apimachinery's NotSupported: the value and the operations Karmada defines.
  const unknown = decodeContext(JSON.stringify({ ...good, request: { ...good.request, operation: "interpretReplica" } }));
  assert.ok(!unknown.ok);
  assert.match(unknown.message, /^request\.operation: Unsupported value: "interpretReplica": supported values: "InterpretReplica", "InterpretComponent", "ReviseReplica", .*"InterpretDependency"$/);
  assert.match(without("object"), /request\.object: Required value/);
  assert.match(without("observedObject"), /request\.observedObject: Required value for Retain/);
  // An item is read as Go reads it into AggregatedStatusItem: no clusterName is "", a wrong type is an error.
  const noName = decodeContext(JSON.stringify({ ...good, request: { ...good.request, aggregatedStatus: [{ applied: false, health: "Healthy", extra: 1 }] } }));
  assert.ok(noName.ok);
  assert.deepEqual(noName.request.aggregatedStatus, [{ clusterName: "", health: "Healthy" }]);
  const badItem = decodeContext(JSON.stringify({ ...good, request: { ...good.request, aggregatedStatus: [{ clusterName: 7 }] } }));
  assert.ok(!badItem.ok && badItem.uid === "u" && /aggregatedStatus\[0\]\.clusterName: expected a string, got number/.test(badItem.message));
  // No items (Karmada omits an empty list) is Go's nil: absent, not [].
  const { aggregatedStatus: _items, ...bare } = good.request;
  const none = decodeContext(JSON.stringify({ ...good, request: bare }));
  assert.ok(none.ok && !("aggregatedStatus" in none.request));
  const empty = decodeContext(JSON.stringify({ ...good, request: { ...good.request, aggregatedStatus: [] } }));
  assert.ok(empty.ok && Array.isArray(empty.request.aggregatedStatus) && empty.request.aggregatedStatus.length === 0);
  const badReplicas = decodeContext(JSON.stringify({ ...good, request: { ...good.request, replicas: 1.5 } }));
  assert.ok(!badReplicas.ok && badReplicas.message === "request.replicas: Invalid value: 1.5: must be an integer");
});

test("objects nested deeper than the limit of every reader are refused with the uid; the envelope does not count", () => {
  // As text: a value thousands of levels deep is more than JSON.stringify can print.
  const nest = (depth: number): string => '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
  const body = (spec: string, status = "{}"): string =>
    `{"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterContext","request":{"uid":"u","operation":"AggregateStatus",` +
    `"object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"w"},"spec":${spec}},"aggregatedStatus":[{"clusterName":"m1","status":${status}}]}}`;
  // 256 levels in an object (its own level and spec's included) and in a member's status pass.
  assert.ok(decodeContext(body(nest(254), nest(255))).ok);
  const deep = decodeContext(body(nest(5000)));
  assert.ok(!deep.ok);
  assert.equal(deep.uid, "u");
  assert.match(deep.message, /^line 1: nested deeper than 256 levels \(the limit on the objects Karta reads\)$/);
  assert.ok(!decodeContext(body("{}", nest(300))).ok);
});

test("peekRoute reads the kind and operation of a body laid out as Karmada writes it, as the decoder does", () => {
  const object = { apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", metadata: { name: "p" }, spec: {} };
  const request = { uid: "u", kind: { group: "kubeflow.org", version: "v1", kind: "PyTorchJob" }, name: "p", namespace: "default", operation: "InterpretReplica", object };
  const context = (r: unknown): string => JSON.stringify({ apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", request: r });
  assert.deepEqual(peekRoute(context(request)), { operation: "InterpretReplica", apiVersion: "kubeflow.org/v1", kind: "PyTorchJob" });
  // Indented as `kubectl` or a person would write it.
  assert.deepEqual(peekRoute(JSON.stringify(JSON.parse(context(request)), null, 2)), { operation: "InterpretReplica", apiVersion: "kubeflow.org/v1", kind: "PyTorchJob" });
  // Laid out otherwise, or with escapes: no answer (the body is parsed instead).
  assert.equal(peekRoute(context({ ...request, object: { metadata: object.metadata, apiVersion: object.apiVersion, kind: object.kind } })), undefined);
  assert.equal(peekRoute(context({ ...request, object: { ...object, kind: 'Py"Job' } })), undefined);
  assert.equal(peekRoute(context({ uid: "u", object })), undefined);
  assert.equal(peekRoute("not json"), undefined);
  fc.assert(
    fc.property(fc.jsonValue(), fc.jsonValue(), fc.constantFrom("InterpretHealth", "Retain", "x"), (spec, extra, operation) => {
      // Anything may follow: the object's own fields, and the request's after it.
      const text = context({ uid: "u", operation, object: { ...object, spec }, observedObject: extra });
      const peeked = peekRoute(text);
      const decoded = decodeContext(text);
      if (peeked !== undefined && decoded.ok) assert.deepEqual(peeked, { operation: decoded.request.operation, apiVersion: decoded.request.object.apiVersion, kind: decoded.request.object.kind });
    }),
    { numRuns: 500 },
  );
});
