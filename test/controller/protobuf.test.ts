/**
 * Kubernetes' protobuf as the controller reads it (src/controller/protobuf.ts and decodePod), on bytes
 * built here with the wire format's rules: varints of every size and sign, fields in any order decoded
 * into the JSON's keys and omitempty rules, malformed data refused with a clear error, and an informer
 * fed protobuf frames split at every byte by a local server (events, the watch-list bookmark, a 410 ERROR
 * event, a broken frame). test/cluster/protobuf.test.ts compares with what a real API server sends.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { KubeClient } from "../../src/controller/client.js";
import { Informer } from "../../src/controller/informer.js";
import type { KubernetesObject } from "../../src/controller/kubernetes-object.js";
import { decodePod, podDecoder, trimPod } from "../../src/controller/pod-cache.js";
import { objectMeta, ProtobufError, ProtoReader, status, statusOf, watchEvent, PROTOBUF } from "../../src/controller/protobuf.js";
import { eventually } from "../support/cluster.js";

// The wire format, written the way Go's generated code writes it.
const varint = (n: number | bigint): Buffer => {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
};
const int = (f: number, n: number | bigint): Buffer => Buffer.concat([varint(f * 8), varint(n)]);
const bytes = (f: number, ...parts: Buffer[]): Buffer => {
  const body = Buffer.concat(parts);
  return Buffer.concat([varint(f * 8 + 2), varint(body.length), body]);
};
const str = (f: number, s: string): Buffer => bytes(f, Buffer.from(s, "utf8"));
const entry = (f: number, k: string, v: string): Buffer => bytes(f, str(1, k), str(2, v));
const envelope = (apiVersion: string, kind: string, raw: Buffer): Buffer => Buffer.concat([Buffer.from("k8s\0", "latin1"), bytes(1, str(1, apiVersion), str(2, kind)), bytes(2, raw)]);
const event = (type: string, object: Buffer): Buffer => Buffer.concat([str(1, type), bytes(2, bytes(1, object))]);
const frame = (b: Buffer): Buffer => Buffer.concat([Buffer.from([b.length >>> 24, (b.length >>> 16) & 255, (b.length >>> 8) & 255, b.length & 255]), b]);
const reader = (b: Buffer): ProtoReader => new ProtoReader(b);
/** The message `m` as the current field of a reader (objectMeta and the like read the field they are at). */
const at = (m: Buffer): ProtoReader => {
  const r = reader(bytes(1, m));
  r.next();
  return r;
};

const podBytes = (name: string, rv: string, extra: Buffer[] = []): Buffer =>
  Buffer.concat([bytes(1, str(1, name), str(3, "ns"), str(5, `uid-${name}`), str(6, rv), bytes(8, int(1, 1_764_000_000))), bytes(2, str(10, "node-1"), ...extra), bytes(3, str(1, "Pending"))]);

test("varints: every size, int64 and int32 negatives in 10 bytes, rounding past 2^53 as JSON.parse", () => {
  for (const n of [0, 1, 127, 128, 300, 2 ** 28 - 1, 2 ** 28, 2 ** 31, 2 ** 32 + 5, 1_764_000_000, 2 ** 53 - 1, -1, -5, -(2 ** 31), -(2 ** 53) + 1]) {
    assert.equal(reader(varint(n)).varint(), n, String(n));
  }
  assert.equal(reader(varint(2n ** 63n - 1n)).varint(), JSON.parse("9223372036854775807"));
  assert.equal(reader(varint(2n ** 53n + 1n)).varint(), JSON.parse("9007199254740993"));
  assert.equal(reader(varint(-(2n ** 63n))).varint(), -(2 ** 63));
  assert.throws(() => reader(Buffer.from([0x80, 0x80])).varint(), /runs past the end/);
  assert.throws(() => reader(Buffer.alloc(11, 0x80)).varint(), /longer than 10 bytes/);
});

test("ObjectMeta: the JSON's keys in its order whatever the fields' order, omitempty as Go applies it", () => {
  // Fields written last to first, with the empty values Go's protobuf writes and its JSON omits.
  const m = Buffer.concat([
    str(14, "f/1"),
    bytes(13, str(1, "Job"), str(3, "j"), str(4, "u1"), str(5, "batch/v1"), int(6, 1), int(7, 0)),
    bytes(13, str(1, "ConfigMap"), str(3, "c"), str(4, "u2"), str(5, "v1")),
    entry(12, "note", 'a "quoted" <b>é✓</b>'),
    entry(11, "b", ""),
    entry(11, "a", "1"),
    int(10, 30),
    bytes(9, int(1, 1_764_000_060)),
    bytes(8, int(1, 1_764_000_000), int(2, 999)),
    int(7, 0),
    str(6, "42"),
    str(5, "uid"),
    str(4, ""),
    str(3, "ns"),
    str(2, ""),
    str(1, "p"),
    bytes(17, str(1, "kubectl")),
  ]);
  const meta = objectMeta(at(m));
  assert.equal(
    JSON.stringify(meta),
    JSON.stringify({
      name: "p",
      namespace: "ns",
      uid: "uid",
      resourceVersion: "42",
      creationTimestamp: "2025-11-24T16:00:00Z",
      deletionTimestamp: "2025-11-24T16:01:00Z",
      deletionGracePeriodSeconds: 30,
      labels: { b: "", a: "1" },
      annotations: { note: 'a "quoted" <b>é✓</b>' },
      ownerReferences: [
        { apiVersion: "batch/v1", kind: "Job", name: "j", uid: "u1", controller: true, blockOwnerDeletion: false },
        { apiVersion: "v1", kind: "ConfigMap", name: "c", uid: "u2" },
      ],
      finalizers: ["f/1"],
    }),
  );
  // Go's zero time is an empty message: no creationTimestamp (omitzero), a null deletionTimestamp (a pointer).
  assert.deepEqual(objectMeta(at(Buffer.concat([str(1, "p"), bytes(8), bytes(9), int(7, 3)]))), { name: "p", generation: 3, deletionTimestamp: null });
  // Times as Go's RFC 3339 layout writes them: a year in at least four digits (JavaScript's ISO format
  // writes six and a sign outside 0–9999), and Go's zero time, even sent as a message, as null.
  const times = (seconds: number) => objectMeta(at(Buffer.concat([bytes(8, int(1, seconds)), bytes(9, int(1, seconds))])));
  assert.deepEqual(times(0), { creationTimestamp: "1970-01-01T00:00:00Z", deletionTimestamp: "1970-01-01T00:00:00Z" });
  assert.deepEqual(times(253402300800), { creationTimestamp: "10000-01-01T00:00:00Z", deletionTimestamp: "10000-01-01T00:00:00Z" });
  assert.deepEqual(times(-62167219201), { creationTimestamp: "-0001-12-31T23:59:59Z", deletionTimestamp: "-0001-12-31T23:59:59Z" });
  assert.deepEqual(times(-62135596799), { creationTimestamp: "0001-01-01T00:00:01Z", deletionTimestamp: "0001-01-01T00:00:01Z" });
  assert.deepEqual(times(-62135596800), { deletionTimestamp: null });
});

test("Pod: metadata, and of spec and status the fields the decoder keeps, in the JSON's order", () => {
  const body = Buffer.concat([
    bytes(3, str(9, "BestEffort"), str(1, "Running"), bytes(2, str(1, "Ready")), str(3, "")),
    bytes(2, bytes(43, str(1, "pg-1")), int(25, 0), str(19, "sched"), bytes(2, str(1, "main")), str(10, "node-1"), str(8, ""), bytes(29, Buffer.alloc(0))),
    bytes(1, str(1, "p")),
  ]);
  const pod = decodePod(reader(body), { apiVersion: "v1", kind: "Pod" });
  assert.equal(
    JSON.stringify(pod),
    JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { nodeName: "node-1", schedulerName: "sched", priority: 0, runtimeClassName: "", schedulingGroup: { podGroupName: "pg-1" } }, status: { phase: "Running", qosClass: "BestEffort" } }),
  );
  assert.deepEqual(decodePod(reader(Buffer.alloc(0)), { apiVersion: "v1", kind: "Pod" }), { apiVersion: "v1", kind: "Pod", metadata: {}, spec: {}, status: {} });
  // A decoder for the fields a cache keeps gives what trimPod gives, and trimPod keeps it as it is.
  const fields = new Set(["spec.schedulingGroup", "spec.nodeName", "status.phase"]);
  const kept = podDecoder(fields)(reader(body), { apiVersion: "v1", kind: "Pod" });
  assert.equal(JSON.stringify(kept), JSON.stringify(trimPod(decodePod(reader(body), { apiVersion: "v1", kind: "Pod" }) as KubernetesObject, fields)));
  assert.equal(JSON.stringify(kept), JSON.stringify({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { nodeName: "node-1", schedulingGroup: { podGroupName: "pg-1" } }, status: { phase: "Running" } }));
  assert.equal(trimPod(kept as KubernetesObject, fields), kept);
  const more = { ...kept, spec: { ...(kept["spec"] as object), restartPolicy: "Never" } };
  assert.deepEqual(trimPod(more as KubernetesObject, fields), kept);
  const reordered = { metadata: kept["metadata"], apiVersion: "v1", kind: "Pod", spec: kept["spec"], status: kept["status"] };
  assert.equal(JSON.stringify(trimPod(reordered as KubernetesObject, fields)), JSON.stringify(kept), "keys in the JSON's order");
  assert.throws(() => decodePod(reader(Buffer.alloc(0)), { apiVersion: "v1", kind: "Node" }), /a Node in a watch of pods/);
});

test("Status: from an ERROR event and from a refused request's body", () => {
  const s = Buffer.concat([bytes(1), str(2, "Failure"), str(3, "too old resource version: 5 (9)"), str(4, "Expired"), bytes(5, str(1, "x"), bytes(4, str(1, "FieldValueInvalid"), str(3, "spec"))), int(6, 410)]);
  const want = { apiVersion: "v1", kind: "Status", metadata: {}, status: "Failure", message: "too old resource version: 5 (9)", reason: "Expired", details: { name: "x", causes: [{ reason: "FieldValueInvalid", field: "spec" }] }, code: 410 };
  assert.deepEqual(status(reader(s)), want);
  assert.deepEqual(statusOf(envelope("v1", "Status", s)), want);
  assert.equal(statusOf(Buffer.from("{}")), undefined);
  assert.deepEqual(watchEvent(event("ERROR", envelope("v1", "Status", s)), decodePod), { type: "ERROR", object: want });
});

test("malformed events are refused with what is wrong, never a crash or a partial object", () => {
  const pod = envelope("v1", "Pod", podBytes("a", "1"));
  const cases: [Buffer, RegExp][] = [
    [event("UPSERTED", pod), /a watch event of type 'UPSERTED'/],
    [str(1, "ADDED"), /a watch event ADDED without an object/],
    [event("ADDED", Buffer.from("{}")), /without Kubernetes' protobuf envelope/],
    [event("ADDED", envelope("v1", "Pod", Buffer.from([0x0a, 0x05, 0x0a]))), /runs past the end/],
    [event("ADDED", envelope("v1", "Pod", Buffer.from([0x0b]))), /wire type 3/],
    [event("ADDED", envelope("v1", "Pod", Buffer.from([0x00]))), /a field tag of 0/],
    [event("ADDED", envelope("v1", "Pod", bytes(1, int(1, 5)))), /field 1 has wire type 0, expected 2/],
    [Buffer.concat([str(1, "ADDED"), bytes(2, bytes(1, Buffer.concat([Buffer.from("k8s\0"), str(3, "gzip")])))]), /content encoding 'gzip'/],
  ];
  for (const [b, message] of cases) assert.throws(() => watchEvent(b, decodePod), (err: unknown) => err instanceof ProtobufError && message.test(err.message));
});

test("an informer fed protobuf frames split at every byte: events, the watch-list bookmark, a 410 ERROR event, a broken frame", async () => {
  const watches: string[] = [];
  const accepts: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    const rv = new URL(req.url ?? "/", "http://x").searchParams.get("resourceVersion") ?? "";
    watches.push(rv);
    accepts.push(String(req.headers.accept));
    res.writeHead(200, { "Content-Type": `${PROTOBUF};stream=watch` });
    const bookmark = (n: string) => frame(event("BOOKMARK", envelope("v1", "Pod", bytes(1, str(6, n), entry(12, "k8s.io/initial-events-end", "true")))));
    const added = (name: string, n: string) => frame(event("ADDED", envelope("v1", "Pod", podBytes(name, n))));
    let out: Buffer;
    if (watches.length === 1) out = Buffer.concat([added("a", "2"), added("b", "3"), bookmark("4")]);
    else if (watches.length === 2) out = frame(event("ERROR", envelope("v1", "Status", Buffer.concat([str(4, "Expired"), str(3, `too old resource version: ${rv} (9)`), int(6, 410)]))));
    else if (watches.length === 3) out = Buffer.concat([added("a", "2"), added("c", "10"), bookmark("11"), frame(Buffer.from([0x0b]))]);
    else out = Buffer.concat([added("a", "2"), added("c", "10"), bookmark("12")]);
    // One byte per write, each flushed on its own: frames cut at every place.
    let i = 0;
    const next = (): void => {
      if (i >= out.length) return void (watches.length === 4 ? undefined : res.end());
      res.write(out.subarray(i, ++i), next);
    };
    next();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const logs: string[] = [];
  const informer = new Informer<{ apiVersion: string; kind: string; metadata: { name: string; namespace: string; resourceVersion: string } }>(
    new KubeClient({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, insecureSkipTLSVerify: false, source: "test" }),
    { path: "/api/v1/pods", what: "pods", log: (level, msg, fields) => logs.push(`${level} ${msg} ${JSON.stringify(fields)}`), protobuf: decodePod },
  );
  try {
    await informer.start();
    assert.deepEqual(informer.list().map((p) => p.metadata.name).sort(), ["a", "b"]);
    await eventually(async () => (informer.get("c", "ns") && watches.length >= 4 ? true : undefined), 20_000, "the list after the 410, and a watch after the broken frame");
    assert.equal(informer.get("b", "ns"), undefined);
    assert.deepEqual(informer.get("c", "ns"), { apiVersion: "v1", kind: "Pod", metadata: { name: "c", namespace: "ns", uid: "uid-c", resourceVersion: "10", creationTimestamp: "2025-11-24T16:00:00Z" }, spec: { nodeName: "node-1" }, status: { phase: "Pending" } });
    assert.deepEqual(watches.slice(0, 4), ["", "4", "", "11"]);
    assert.ok(accepts.every((a) => a === `${PROTOBUF}, application/json`), accepts.join(" | "));
    assert.ok(logs.some((l) => l.includes("watch expired; listing again")), logs.join("\n"));
    // A stream that arrived wrong is a failed watch, not an outage: logged as an error, with what was wrong.
    assert.ok(logs.some((l) => l.startsWith("error watch failed; retrying") && l.includes("the watch stream sent an event that is not the protobuf expected: field 1 has wire type 3")), logs.join("\n"));
    assert.ok(!logs.some((l) => l.includes("API server unavailable")), logs.join("\n"));
  } finally {
    await informer.stop();
    server.closeAllConnections();
    server.close();
  }
});
