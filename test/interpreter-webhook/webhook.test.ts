/**
 * The webhook layer against a real HTTPS server on 127.0.0.1 with a certificate from a CA made at
 * test time: the ResourceInterpreterContext sent, each operation's response applied, and Karmada's
 * response checks as error values.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { MAX_RESPONSE_BYTES, WebhookInterpreter, type ResourceInterpreterWebhookConfiguration } from "../../src/interpreter/webhook/index.js";
import type { JsonValue, KubeObject } from "../../src/interpreter/types.js";
import { makeTestPki, type TestPki } from "./tls.js";

const SERVICE_HOST = "workload-webhook.karmada-system.svc";

/** An example.io Workload as the Karmada webhook example defines it (a Deployment-like CRD). */
const workload: KubeObject = {
  apiVersion: "workload.example.io/v1alpha1",
  kind: "Workload",
  metadata: { name: "nginx", namespace: "default", labels: { app: "nginx" } },
  spec: {
    replicas: 3,
    paused: false,
    template: {
      metadata: { labels: { app: "nginx" } },
      spec: {
        containers: [{ name: "nginx", image: "nginx:1.27", resources: { requests: { cpu: "250m", memory: "64Mi" } }, envFrom: [{ configMapRef: { name: "nginx-env" } }] }],
      },
    },
  },
};

interface Received {
  path: string;
  query: string;
  contentType: string | undefined;
  body: { apiVersion: string; kind: string; request: { [k: string]: JsonValue } };
}

type Reply = { status?: number; body?: unknown; delayMs?: number; raw?: string };

/** The webhook's answer per operation (Karmada's example webhook behaviour, written for the test). */
function answer(req: { [k: string]: JsonValue }): { [k: string]: JsonValue } {
  const obj = req.object as { [k: string]: any };
  const base = { uid: req.uid as string, successful: true };
  const patch = (ops: unknown[]) => ({ ...base, patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(ops)).toString("base64") });
  switch (req.operation) {
    case "InterpretReplica":
      return { ...base, replicas: obj.spec.replicas, replicaRequirements: { resourceRequest: { cpu: "250m", memory: "64Mi" }, namespace: "default" } };
    case "InterpretComponent":
      return { ...base, components: [{ name: "main", replicas: obj.spec.replicas, replicaRequirements: { resourceRequest: { cpu: "0.25" } } }] };
    case "ReviseReplica":
      return patch([{ op: "replace", path: "/spec/replicas", value: req.replicas }]);
    case "Retain":
      return patch([{ op: "replace", path: "/spec/paused", value: (req.observedObject as any).spec.paused }]);
    case "AggregateStatus": {
      const items = (req.aggregatedStatus ?? []) as { status: { readyReplicas: number } }[];
      return patch([{ op: "add", path: "/status", value: { readyReplicas: items.reduce((n, i) => n + i.status.readyReplicas, 0) } }]);
    }
    case "InterpretStatus":
      return { ...base, rawStatus: { readyReplicas: obj.status?.readyReplicas ?? 0 } };
    case "InterpretHealth":
      return { ...base, healthy: (obj.status?.readyReplicas ?? 0) === obj.spec.replicas };
    case "InterpretDependency":
      return { ...base, dependencies: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "nginx-env" }] };
    default:
      return { uid: req.uid as string, successful: false, status: { code: 400, message: `unsupported operation ${String(req.operation)}` } };
  }
}

let pki: TestPki | undefined;
let server: https.Server;
let port = 0;
const received: Received[] = [];
/** A per-test override of the server's reply. */
let override: ((r: Received) => Reply) | undefined;

before(async () => {
  pki = makeTestPki([SERVICE_HOST]);
  if (!pki) return;
  server = https.createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "https://localhost");
      const r: Received = { path: url.pathname, query: url.search, contentType: req.headers["content-type"], body: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
      received.push(r);
      const reply: Reply = override ? override(r) : { body: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: answer(r.body.request) } };
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status ?? 200, { "Content-Type": "application/json" });
        res.end(reply.raw ?? JSON.stringify(reply.body));
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

after(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

function serviceConfig(extra: Partial<{ timeoutSeconds: number; caBundle: string; versions: string[] }> = {}): ResourceInterpreterWebhookConfiguration {
  return {
    apiVersion: "config.karmada.io/v1alpha1",
    kind: "ResourceInterpreterWebhookConfiguration",
    metadata: { name: "examples" },
    webhooks: [
      {
        name: "workloads.example.com",
        rules: [{ operations: ["*"], apiGroups: ["workload.example.io"], apiVersions: ["v1alpha1"], kinds: ["Workload"] }],
        clientConfig: { service: { namespace: "karmada-system", name: "workload-webhook", port: 443, path: "/interpreter-workload" }, caBundle: extra.caBundle ?? pki!.caBundle },
        interpreterContextVersions: extra.versions ?? ["v1alpha1"],
        ...(extra.timeoutSeconds !== undefined ? { timeoutSeconds: extra.timeoutSeconds } : {}),
      },
    ],
  };
}

/** The layer, with the Service resolved to the test server (the TLS name checked stays the Service's). */
function layer(config = serviceConfig(), uid = "5b8a3c1e-7f0d-4e2a-9c61-0d4f5e6a7b8c"): WebhookInterpreter {
  return new WebhookInterpreter([config], {
    uid: () => uid,
    resolveService: (s) => `https://127.0.0.1:${port}${s.path ?? ""}`,
  });
}

const skip = (t: { skip: (m: string) => void }): boolean => {
  if (pki) return false;
  t.skip("openssl absent");
  return true;
};

describe("webhook layer over HTTPS", () => {
  test("InterpretReplica: the context sent and the replicas and requirements returned", async (t) => {
    if (skip(t)) return;
    override = undefined;
    received.length = 0;
    const out = await layer().interpretReplica(workload);
    assert.deepEqual(out, { ok: true, value: { replicas: 3, replicaRequirements: { resourceRequest: { cpu: "250m", memory: "64Mi" }, namespace: "default" } } });
    assert.equal(received.length, 1);
    const r = received[0]!;
    assert.equal(r.path, "/interpreter-workload");
    assert.equal(r.query, "?timeout=10s", "the default timeout is sent as the timeout parameter");
    assert.equal(r.contentType, "application/json");
    assert.equal(r.body.apiVersion, "config.karmada.io/v1alpha1");
    assert.equal(r.body.kind, "ResourceInterpreterContext");
    assert.deepEqual(r.body.request, {
      uid: "5b8a3c1e-7f0d-4e2a-9c61-0d4f5e6a7b8c",
      kind: { group: "workload.example.io", version: "v1alpha1", kind: "Workload" },
      name: "nginx",
      namespace: "default",
      operation: "InterpretReplica",
      object: workload,
      replicas: 0,
    });
  });

  test("ReviseReplica sends the replicas and applies the returned JSON Patch", async (t) => {
    if (skip(t)) return;
    override = undefined;
    received.length = 0;
    const out = await layer().reviseReplica(workload, 5);
    assert.ok(out.ok);
    assert.equal((out.value.spec as any).replicas, 5);
    assert.equal((workload.spec as any).replicas, 3, "the input is not modified");
    assert.equal(received[0]!.body.request.replicas, 5);
    assert.equal(received[0]!.body.request.observedObject, undefined);
  });

  test("Retain sends the observed object; AggregateStatus sends the items", async (t) => {
    if (skip(t)) return;
    override = undefined;
    received.length = 0;
    const observed = { ...workload, spec: { ...(workload.spec as object), paused: true } };
    const retained = await layer().retain(workload, observed);
    assert.ok(retained.ok);
    assert.equal((retained.value.spec as any).paused, true);
    assert.deepEqual(received[0]!.body.request.observedObject, observed);
    const items = [
      { clusterName: "member1", status: { readyReplicas: 2 }, applied: true, health: "Healthy" as const },
      { clusterName: "member2", status: { readyReplicas: 1 }, applied: true, health: "Healthy" as const },
    ];
    const aggregated = await layer().aggregateStatus(workload, items);
    assert.ok(aggregated.ok);
    assert.deepEqual(aggregated.value.status, { readyReplicas: 3 });
    assert.deepEqual(received[1]!.body.request.aggregatedStatus, items);
  });

  test("InterpretStatus, InterpretHealth, InterpretDependency, InterpretComponent", async (t) => {
    if (skip(t)) return;
    override = undefined;
    const observed = { ...workload, status: { readyReplicas: 3, replicas: 3 } };
    assert.deepEqual(await layer().interpretStatus(observed), { ok: true, value: { readyReplicas: 3 } });
    assert.deepEqual(await layer().interpretHealth(observed), { ok: true, value: true });
    assert.deepEqual(await layer().interpretHealth(workload), { ok: true, value: false });
    assert.deepEqual(await layer().interpretDependency(workload), { ok: true, value: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "default", name: "nginx-env" }] });
    assert.deepEqual(await layer().interpretComponent(workload), { ok: true, value: [{ name: "main", replicas: 3, replicaRequirements: { resourceRequest: { cpu: "250m" } } }] });
  });

  test("a url clientConfig is called directly (certificate for 127.0.0.1) with its timeoutSeconds", async (t) => {
    if (skip(t)) return;
    override = undefined;
    received.length = 0;
    const config = serviceConfig({ timeoutSeconds: 3 });
    config.webhooks[0]!.clientConfig = { url: `https://127.0.0.1:${port}/by-url`, caBundle: pki!.caBundle };
    const out = await new WebhookInterpreter([config]).interpretHealth({ ...workload, status: { readyReplicas: 3 } });
    assert.deepEqual(out, { ok: true, value: true });
    assert.equal(received[0]!.path, "/by-url");
    assert.equal(received[0]!.query, "?timeout=3s");
    assert.match(String(received[0]!.body.request.uid), /^[0-9a-f-]{36}$/, "a random uid by default");
  });

  test("a server certificate from another CA is refused", async (t) => {
    if (skip(t)) return;
    override = undefined;
    const other = makeTestPki([SERVICE_HOST])!;
    const out = await layer(serviceConfig({ caBundle: other.caBundle })).interpretReplica(workload);
    assert.equal(out.ok, false);
    if (!out.ok) {
      assert.equal(out.error.layer, "webhook");
      assert.match(out.error.message, /^Internal error occurred: failed calling webhook "examples\/workloads\.example\.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/interpreter-workload\?timeout=10s": .*(self-signed|unable to verify|signature)/);
    }
  });

  test("the certificate is checked against the Service's DNS name, not the dialled address", async (t) => {
    if (skip(t)) return;
    override = undefined;
    const config = serviceConfig();
    config.webhooks[0]!.clientConfig.service!.name = "other-webhook";
    const out = await new WebhookInterpreter([config], { resolveService: () => `https://127.0.0.1:${port}/` }).interpretReplica(workload);
    assert.equal(out.ok, false);
    if (!out.ok) assert.match(out.error.message, /other-webhook\.karmada-system\.svc/);
  });

  test("a webhook slower than timeoutSeconds fails with context deadline exceeded", async (t) => {
    if (skip(t)) return;
    override = (r) => ({ delayMs: 1500, body: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: answer(r.body.request) } });
    const started = Date.now();
    const out = await layer(serviceConfig({ timeoutSeconds: 1 })).interpretReplica(workload);
    override = undefined;
    assert.ok(Date.now() - started < 1400, "the call gives up at the deadline");
    assert.equal(out.ok, false);
    if (!out.ok) assert.match(out.error.message, /\?timeout=1s": context deadline exceeded$/);
  });

  const invalid: [string, (r: Received) => Reply, string | RegExp][] = [
    ["a different uid", (r) => ({ body: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: { ...answer(r.body.request), uid: "other" } } }), `reveived invalid webhook response: expected response.uid "5b8a3c1e-7f0d-4e2a-9c61-0d4f5e6a7b8c", got "other"`],
    ["no response", () => ({ body: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext" } }), "reveived invalid webhook response: webhook response was absent"],
    ["another kind", (r) => ({ body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: answer(r.body.request) } }), /unexpected response type/],
    ["unsuccessful without status", (r) => ({ body: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: { uid: r.body.request.uid, successful: false } } }), "reveived invalid webhook response: webhook require response.status when response.successful is false"],
    ["unsuccessful with status", (r) => ({ body: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: { uid: r.body.request.uid, successful: false, status: { code: 422, message: "spec.replicas is missing" } } } }), "webhook call failed, get status code: 422, msg: spec.replicas is missing"],
    ["HTTP 500", () => ({ status: 500, raw: "upstream exploded" }), "failed to call webhook: the server responded with the status code 500 but did not return more information"],
    ["a body that is not JSON", () => ({ raw: "<html><body>502 Bad Gateway</body></html>" }), /: failed to call webhook: .*is not valid JSON$/],
    ["a body over the response cap", () => ({ raw: `{"pad":"${"x".repeat(MAX_RESPONSE_BYTES)}"}` }), new RegExp(`: failed to call webhook: Post "[^"]+": response body exceeds ${MAX_RESPONSE_BYTES} bytes$`)],
  ];
  for (const [name, reply, message] of invalid) {
    test(`InterpretReplica with ${name} is an error value`, async (t) => {
      if (skip(t)) return;
      override = reply;
      const out = await layer().interpretReplica(workload);
      override = undefined;
      assert.equal(out.ok, false);
      if (!out.ok) {
        assert.equal(out.error.operation, "InterpretReplica");
        if (typeof message === "string") assert.equal(out.error.message, `Internal error occurred: failed calling webhook "examples/workloads.example.com": ${message}`);
        else assert.match(out.error.message, message);
      }
    });
  }

  const patchCases: [string, { [k: string]: JsonValue }, string | undefined][] = [
    ["patch and patchType both empty: unchanged", {}, undefined],
    ["patchType without patch", { patchType: "JSONPatch" }, "reveived invalid webhook response: webhook returned empty response.patch"],
    ["patch without patchType", { patch: Buffer.from("[]").toString("base64") }, "reveived invalid webhook response: webhook returned nil response.patchType"],
    ["another patch type", { patchType: "MergePatch", patch: Buffer.from("{}").toString("base64") }, `reveived invalid webhook response: webhook returned invalid response.patchType of "MergePatch"`],
  ];
  for (const [name, fields, message] of patchCases) {
    test(`ReviseReplica, ${name}`, async (t) => {
      if (skip(t)) return;
      override = (r) => ({ body: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: { uid: r.body.request.uid, successful: true, ...fields } } });
      const out = await layer().reviseReplica(workload, 7);
      override = undefined;
      if (message === undefined) assert.deepEqual(out, { ok: true, value: workload });
      else assert.deepEqual(out.ok ? undefined : out.error.message, `Internal error occurred: failed calling webhook "examples/workloads.example.com": ${message}`);
    });
  }

  test("a JSON Patch that does not apply, and dependencies without name or selector, are errors", async (t) => {
    if (skip(t)) return;
    override = (r) => ({
      body: {
        apiVersion: "config.karmada.io/v1alpha1",
        kind: "ResourceInterpreterContext",
        response: { uid: r.body.request.uid, successful: true, patchType: "JSONPatch", patch: Buffer.from(JSON.stringify([{ op: "test", path: "/spec/replicas", value: 4 }])).toString("base64") },
      },
    });
    const revised = await layer().reviseReplica(workload, 7);
    assert.equal(revised.ok ? "" : revised.error.message, `operation 0 (test): testing value "/spec/replicas" failed`);
    override = (r) => ({ body: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: { uid: r.body.request.uid, successful: true, dependencies: [{ apiVersion: "v1", kind: "Secret", namespace: "default" }] } } });
    const deps = await layer().interpretDependency(workload);
    override = undefined;
    assert.equal(deps.ok, false);
    if (!deps.ok) assert.match(deps.error.message, /reveived invalid webhook response: dependencies\[0\]: Invalid value: .*dependency can not leave name and labelSelector all empty$/);
  });

  test("absent or null dependencies and components decode as Go's nil (null), [] as an empty list", async (t) => {
    if (skip(t)) return;
    const reply = (fields: { [k: string]: JsonValue }) => (r: Received): Reply => ({
      body: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: { uid: r.body.request.uid, successful: true, ...fields } },
    });
    const values: unknown[] = [];
    const cases: { [k: string]: JsonValue }[] = [{}, { dependencies: null, components: null }, { dependencies: [], components: [] }];
    for (const fields of cases) {
      override = reply(fields);
      const deps = await layer().interpretDependency(workload);
      const comps = await layer().interpretComponent(workload);
      values.push(deps.ok ? deps.value : deps.error.message, comps.ok ? comps.value : comps.error.message);
    }
    override = undefined;
    assert.deepEqual(values, [null, null, null, null, [], []]);
  });

  test("wrongly typed response fields are error values, per operation", async (t) => {
    if (skip(t)) return;
    const respond = (fields: { [k: string]: JsonValue }) => (r: Received): Reply => ({
      body: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: { uid: r.body.request.uid, successful: true, ...fields } },
    });
    const errorOf = (o: { ok: boolean; error?: { message: string } }): string => (o.ok ? "" : o.error!.message);
    override = respond({ replicas: "3" });
    assert.match(errorOf(await layer().interpretReplica(workload)), /cannot unmarshal "3" into Go struct field ResourceInterpreterResponse\.response\.replicas of type int32$/);
    override = respond({ replicas: 3, replicaRequirements: { nodeClaim: 5 } });
    assert.match(errorOf(await layer().interpretReplica(workload)), /failed calling webhook "examples\/workloads\.example\.com": failed to call webhook: json: cannot unmarshal number into Go struct field ReplicaRequirements\.nodeClaim/);
    override = respond({ components: [{ name: 7, replicas: 1 }] });
    assert.match(errorOf(await layer().interpretComponent(workload)), /cannot unmarshal number into Go struct field Component\.name of type string$/);
    override = respond({ healthy: "yes" });
    assert.match(errorOf(await layer().interpretHealth(workload)), /cannot unmarshal string into Go struct field ResourceInterpreterResponse\.response\.healthy of type bool$/);
    override = respond({ patchType: "JSONPatch", patch: Buffer.from("{not json").toString("base64") });
    assert.match(errorOf(await layer().reviseReplica(workload, 5)), /^invalid JSON Patch: /);
    override = respond({ patchType: "JSONPatch", patch: Buffer.from(JSON.stringify([{ op: "remove", path: "/kind" }])).toString("base64") });
    assert.match(errorOf(await layer().retain(workload, workload)), /^Object 'Kind' is missing in /);
    override = respond({ patchType: "JSONPatch", patch: 42 });
    assert.match(errorOf(await layer().aggregateStatus(workload, [])), /cannot unmarshal non-string into Go struct field ResourceInterpreterResponse\.response\.patch/);
    override = undefined;
  });

  test("missing required response fields per operation", async (t) => {
    if (skip(t)) return;
    override = (r) => ({ body: { apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: { uid: r.body.request.uid, successful: true } } });
    const replica = await layer().interpretReplica(workload);
    const health = await layer().interpretHealth(workload);
    const status = await layer().interpretStatus(workload);
    override = undefined;
    assert.match(replica.ok ? "" : replica.error.message, /webhook returned nil response\.replicas$/);
    assert.match(health.ok ? "" : health.error.message, /webhook returned nil response\.healthy$/);
    assert.match(status.ok ? "" : status.error.message, /webhook returned nill response\.rawStatus$/);
  });
});
