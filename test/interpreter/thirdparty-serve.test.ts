/**
 * Karmada's thirdparty conformance through `karta serve`, as Karmada's webhook client calls it: one
 * `karta serve` process per mode (the suite's customizations, or Karta's bundled layers only), every
 * case posted over HTTPS as the ResourceInterpreterContext Karmada's client encodes (the karmada-go
 * oracle builds the body), and the answer decoded, verified and its JSON Patch applied as Karmada's
 * client does (the oracle again, with evanphx/json-patch), then compared exactly with Karmada's results
 * (thirdparty-cases.ts). Every case's objects are read as Go reads the test file, so the documents that
 * are not valid YAML 1.2 run too. KARTA_THIRDPARTY_KIND and KARTA_THIRDPARTY_SHOW as in thirdparty-cli.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import https from "node:https";
import path from "node:path";
import { parseOperation } from "../../src/interpreter/types.js";
import { thirdpartyKindDirectories } from "../support/conformance.js";
import { eventually, spawnServe, tempDir, writeCerts } from "../server/helpers.js";
import { caseLabel, differences, openSuite, readKindCases, type ThirdpartyCase } from "./thirdparty-cases.js";

const TOTAL = 564;

type Mode = "customizations" | "bundled";

/** A running `karta serve` process. */
interface Served {
  url: string;
  ca: string;
  stop(): Promise<void>;
}

async function serve(args: string[]): Promise<Served> {
  const dir = tempDir();
  const certs = writeCerts(dir);
  const served = spawnServe(["--tls-cert-file", certs.certFile, "--tls-private-key-file", certs.keyFile, "--secure-port", "0", "--bind-address", "127.0.0.1", "--metrics-bind-address", "127.0.0.1:0", "--feature-gates", "MultiplePodTemplatesScheduling=true", ...args]);
  const { child } = served;
  const stop = async (): Promise<void> => {
    child.kill("SIGTERM");
    await served.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  let port: number;
  let metricsPort: number;
  try {
    ({ port, metricsPort } = await served.serving());
  } catch (e) {
    await stop();
    throw e;
  }
  // Request logs are not read: stop keeping them.
  child.stdout.removeAllListeners("data").resume();
  await eventually(async () => (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status === 200, 60_000, "karta serve to be ready");
  return { url: `https://127.0.0.1:${port}/interpret`, ca: readFileSync(certs.caFile, "utf8"), stop };
}

/** POSTs a body as Karmada's REST client does (its timeout as the ?timeout= parameter); the response body. */
function post(url: string, ca: string, agent: https.Agent, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${url}?timeout=10s`, { method: "POST", ca, agent, headers: { "Content-Type": "application/json", Accept: "application/json, */*", "Content-Length": Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** What Karmada's client passes for a case: the object (the observed one where the operation reads the member's), the observed one for Retain, the replicas for ReviseReplica. */
function callOf(c: ThirdpartyCase): { operation: string; object: unknown; observed?: unknown; replicas: number; statusItems?: unknown } {
  const operation = parseOperation(c.operation) ?? c.operation;
  const v = c.value;
  const call: ReturnType<typeof callOf> = { operation, object: operation === "Retain" ? v.desiredObj : (v.desiredObj ?? v.observedObj), replicas: operation === "ReviseReplica" ? (v.inputReplicas ?? 0) : 0 };
  if (operation === "Retain") call.observed = v.observedObj;
  if (v.statusItems !== undefined && v.statusItems !== null) call.statusItems = v.statusItems;
  return call;
}

async function conformance(t: import("node:test").TestContext, mode: Mode): Promise<void> {
  const suite = openSuite(t);
  if (suite === undefined) return;
  const { base, go } = suite;
  const only = process.env.KARTA_THIRDPARTY_KIND;
  const kinds = thirdpartyKindDirectories(base).filter((d) => !only || d.includes(only));
  const started = Date.now();
  const server = await serve(mode === "customizations" ? kinds.flatMap((d) => ["--customizations", path.join(d, "customizations.yaml")]) : []);
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
  let passed = 0;
  const failures: string[] = [];
  try {
    let uid = 0;
    for (const kindDir of kinds) {
      for (const c of await readKindCases(kindDir, base, go)) {
        const call = { uid: `${mode}-${++uid}`, ...callOf(c) };
        let body = (await go.value({ op: "request", ...call })) as string;
        // The one input Karmada's client cannot send: an empty list of items, which omitempty drops (a
        // script then sees nil). The case means the list: it is sent as another client would send it.
        if (Array.isArray(call.statusItems) && call.statusItems.length === 0) {
          const context = JSON.parse(body) as { request: Record<string, unknown> };
          context.request.aggregatedStatus = [];
          body = JSON.stringify(context);
        }
        const res = await post(server.url, server.ca, agent, body);
        let bad: string[];
        if (res.status !== 200) bad = [`HTTP ${res.status}: ${res.body}`];
        else {
          const read = await go.ask({ op: "response", uid: call.uid, operation: call.operation, object: call.object, body: res.body });
          bad = read.ok ? await differences(go, c, read.value as Record<string, unknown>) : [read.error];
        }
        if (bad.length === 0) passed++;
        else failures.push(`${caseLabel(c)}: ${bad.join("; ")}`);
      }
    }
  } finally {
    agent.destroy();
    go.close();
    await server.stop();
  }
  console.log(`karmada thirdparty conformance through 'karta serve' (${mode}): ${passed} passed, ${failures.length} failed (${Date.now() - started} ms)`);
  for (const f of failures.slice(0, Number(process.env.KARTA_THIRDPARTY_SHOW ?? 0))) console.log(`  FAIL ${f}`);
  assert.deepEqual(failures, [], `${failures.length} answers differ from Karmada`);
  if (!only) assert.equal(passed, TOTAL, "every case ran");
}

test("karta serve answers Karmada's thirdparty cases as Karmada computes them, with the suite's customizations", (t) => conformance(t, "customizations"));

test("karta serve answers Karmada's thirdparty cases as Karmada computes them, with Karta's bundled layers only", (t) => conformance(t, "bundled"));
