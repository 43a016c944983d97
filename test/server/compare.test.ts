/**
 * Every operation on the bundled examples answers through `karta serve` (real HTTPS on loopback,
 * driven by the project's webhook client, which follows Karmada's client semantics) exactly as
 * `karta interpret` answers offline.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse, parseAllDocuments, stringify } from "yaml";
import { runInterpret } from "../../src/cli/interpret.js";
import { memoryIO } from "../../src/cli/io.js";
import { WebhookInterpreter } from "../../src/interpreter/webhook/index.js";
import type { AggregatedStatusItem, KubeObject, Outcome } from "../../src/interpreter/types.js";
import type { RunningServer } from "../../src/server/server.js";
import { repoRoot, startTestServer } from "./helpers.js";

const CLONESET = `apiVersion: apps.kruise.io/v1alpha1
kind: CloneSet
metadata: {name: web, namespace: shop, generation: 2}
spec:
  replicas: 4
  template:
    spec:
      serviceAccountName: shop-sa
      containers:
        - name: app
          image: nginx
          resources: {requests: {cpu: 500m, memory: 128Mi}}
          envFrom: [{configMapRef: {name: shop-config}}]
status: {replicas: 4, readyReplicas: 3, updatedReplicas: 4, availableReplicas: 3, observedGeneration: 2}
`;

const OBJECTS: { name: string; text: string }[] = [
  { name: "examples/deployment.yaml", text: readFileSync(path.join(repoRoot, "examples/deployment.yaml"), "utf8") },
  { name: "examples/pytorchjob.yaml", text: readFileSync(path.join(repoRoot, "examples/pytorchjob.yaml"), "utf8") },
  { name: "cloneset.yaml", text: CLONESET },
  // Just created: no status yet (InterpretStatus has nothing to reflect).
  { name: "examples/pytorchjob.yaml without status", text: withoutStatus(readFileSync(path.join(repoRoot, "examples/pytorchjob.yaml"), "utf8")) },
];

function withoutStatus(text: string): string {
  const obj = parse(text) as KubeObject;
  delete obj.status;
  return stringify(obj);
}

const OPERATIONS = ["InterpretReplica", "InterpretComponent", "ReviseReplica", "Retain", "AggregateStatus", "InterpretStatus", "InterpretHealth", "InterpretDependency"] as const;

function statusItems(obj: KubeObject): AggregatedStatusItem[] {
  const status = (obj.status ?? {}) as KubeObject;
  return [
    { clusterName: "member1", status, applied: true, health: "Healthy" },
    { clusterName: "member2", status, applied: true, health: "Unhealthy" },
  ];
}

function observedOf(obj: KubeObject): KubeObject {
  const copy = JSON.parse(JSON.stringify(obj)) as KubeObject;
  (copy.metadata as KubeObject).resourceVersion = "42";
  const spec = copy.spec as KubeObject | undefined;
  if (spec && typeof spec.replicas === "number") spec.replicas = spec.replicas + 1;
  return copy;
}

/** The CLI's answer: the named values, or the error message. */
async function viaCli(op: string, objText: string, observedText: string, itemsText: string): Promise<{ ok: true; values: unknown[] } | { ok: false; error: string }> {
  const files = { "/obj.yaml": objText, "/observed.yaml": observedText, "/items.yaml": itemsText };
  const io = memoryIO("", files);
  const args = ["--operation", op];
  if (op === "Retain") args.push("--desired-file", "/obj.yaml", "--observed-file", "/observed.yaml");
  else args.push("--desired-file", "/obj.yaml");
  if (op === "ReviseReplica") args.push("--desired-replica", "7");
  if (op === "AggregateStatus") args.push("--status-file", "/items.yaml");
  const code = await runInterpret(args, io);
  if (code !== 0) {
    assert.equal(code, 1, io.err);
    const m = /^Execute \w+ error: (.*?)(?: \(layer: \w+\))?\n$/s.exec(io.err);
    assert.ok(m, io.err);
    return { ok: false, error: m[1]! };
  }
  return { ok: true, values: parseAllDocuments(io.out).map((d) => d.toJS() as unknown) };
}

async function viaServer(client: WebhookInterpreter, op: string, obj: KubeObject, observed: KubeObject, items: AggregatedStatusItem[]): Promise<Outcome<unknown[]>> {
  const wrap = <T>(o: Outcome<T>, f: (v: T) => unknown[]): Outcome<unknown[]> => (o.ok ? { ok: true, value: f(o.value) } : o);
  switch (op) {
    case "InterpretReplica":
      return wrap(await client.interpretReplica(obj), (v) => [v.replicas, v.replicaRequirements ?? null]);
    case "InterpretComponent":
      return wrap(await client.interpretComponent(obj), (v) => [v]);
    case "ReviseReplica":
      return wrap(await client.reviseReplica(obj, 7), (v) => [v]);
    case "Retain":
      return wrap(await client.retain(obj, observed), (v) => [v]);
    case "AggregateStatus":
      return wrap(await client.aggregateStatus(obj, items), (v) => [v]);
    case "InterpretStatus":
      return wrap(await client.interpretStatus(obj), (v) => [v ?? null]);
    case "InterpretHealth":
      return wrap(await client.interpretHealth(obj), (v) => [v]);
    default:
      return wrap(await client.interpretDependency(obj), (v) => [v]);
  }
}

describe("karta serve answers as karta interpret does", () => {
  let server: RunningServer;
  let client: WebhookInterpreter;
  before(async () => {
    const started = await startTestServer();
    server = started.server;
    client = new WebhookInterpreter([
      {
        apiVersion: "config.karmada.io/v1alpha1",
        kind: "ResourceInterpreterWebhookConfiguration",
        metadata: { name: "karta" },
        webhooks: [
          {
            name: "karta.interpreter.karta.dev",
            clientConfig: { url: started.url, caBundle: Buffer.from(started.caPem).toString("base64") },
            rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], kinds: ["*"] }],
            timeoutSeconds: 10,
            interpreterContextVersions: ["v1alpha1"],
          },
        ],
      },
    ]);
  });
  after(async () => server.close());

  let compared = 0;
  let failuresCompared = 0;
  let emptyStatuses = 0;
  for (const { name, text } of OBJECTS) {
    for (const op of OPERATIONS) {
      test(`${name} ${op}`, async () => {
        const obj = parse(text) as KubeObject;
        const observed = observedOf(obj);
        const items = statusItems(obj);
        const itemsText = items.map((i) => JSON.stringify(i)).join("\n---\n");
        const cli = await viaCli(op, text, JSON.stringify(observed), itemsText);
        const served = await viaServer(client, op, obj, observed, items);
        if (cli.ok) {
          if (op === "InterpretStatus" && cli.values[0] === null) {
            // No status to reflect: the wire format has no "none" (Karmada's client refuses a null
            // rawStatus), so the server sends an empty status, which the client accepts.
            assert.ok(served.ok, `server failed where the CLI answered: ${served.ok ? "" : served.error.message}`);
            assert.deepEqual(served.value, [{}]);
            emptyStatuses++;
            return;
          }
          assert.ok(served.ok, `server failed where the CLI answered: ${served.ok ? "" : served.error.message}`);
          assert.deepEqual(served.value, cli.values);
          compared++;
        } else {
          assert.ok(!served.ok, `server answered where the CLI failed with: ${cli.error}`);
          assert.match(served.error.message, /webhook call failed, get status code: \d+, msg: /);
          assert.ok(served.error.message.includes(cli.error), `${served.error.message}\n  should include: ${cli.error}`);
          failuresCompared++;
        }
      });
    }
  }
  test("the comparison covered answers and failures", () => {
    assert.ok(compared >= 12, `compared ${compared} answers`);
    assert.ok(failuresCompared >= 1, `compared ${failuresCompared} failures`);
    assert.ok(emptyStatuses >= 1, `compared ${emptyStatuses} answers with no status to reflect`);
  });
});
