/**
 * `karta controller` as a process against a real kube-apiserver, as the service account bound to the role
 * `karta rbac` generates: /healthz, /readyz and /metrics over real HTTP, reconcile metrics that move when a
 * Karta is reconciled, and a graceful SIGTERM that releases the Lease and exits 0; with
 * --shutdown-delay-duration, a SIGTERM first makes /readyz fail while the admission webhook goes on
 * answering (its answers closing their connections) until the delay is over.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import https from "node:https";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { runController } from "../../src/cli/controller.js";
import { controllerRbac } from "../../src/controller/rbac.js";
import { memoryIO } from "../../src/cli/io.js";
import { definitionsDir } from "../bundled/helpers.js";
import { kartaBin } from "../support/conformance.js";
import { asServiceAccount, attempt, eventually, testCluster, testNamespace, type TestCluster } from "../support/cluster.js";
import { installKartaCrd } from "./helpers.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;

/** The value of one sample line of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

/**
 * One HTTPS POST on a new connection the client would keep alive (as the API server's webhook client
 * does): the status and the Connection header answered, or the connection's error code.
 */
function post(port: number, path: string, ca: string, body: string): Promise<{ status: number; connection?: string } | string> {
  const agent = new https.Agent({ keepAlive: true });
  return new Promise<{ status: number; connection?: string } | string>((resolve) => {
    const req = https.request({ host: "127.0.0.1", port, path, method: "POST", ca, agent, headers: { "Content-Type": "application/json" } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ...(res.headers.connection !== undefined ? { connection: res.headers.connection } : {}) }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end(body);
  }).finally(() => agent.destroy());
}

test("karta controller: a malformed bind address is a usage error", async () => {
  const io = memoryIO();
  assert.equal(await runController(["--metrics-bind-address", "8080"], io), 2);
  assert.match(io.err, /invalid value '8080' for --metrics-bind-address: expected host:port/);
  const io2 = memoryIO();
  assert.equal(await runController(["--health-probe-bind-address", "localhost:99999"], io2), 2);
  assert.match(io2.err, /--health-probe-bind-address/);
  const io3 = memoryIO();
  assert.equal(await runController(["--shutdown-delay-duration", "soon"], io3), 2);
  assert.match(io3.err, /--shutdown-delay-duration must be a duration such as 5s, not 'soon'/);
});

describe("karta controller (process): probes, metrics and SIGTERM", { skip }, () => {
  const c = cluster as TestCluster;
  const dir = mkdtempSync(path.join(tmpdir(), "karta-controller-"));
  const karta = `process-${Math.random().toString(36).slice(2, 8)}`;
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await attempt(() => c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: karta } }));
  });

  test("serves /healthz, /readyz and /metrics; counts reconciles; SIGTERM releases the Lease and exits 0", async (t) => {
    await installKartaCrd(c);
    const ns = await testNamespace(t, c);
    const { kc } = await asServiceAccount(c, ns, controllerRbac([], { namespace: ns }));
    const kubeconfig = path.join(dir, "kubeconfig");
    writeFileSync(kubeconfig, kc.exportConfig());
    const child = spawn(
      process.execPath,
      [kartaBin, "controller", "--kubeconfig", kubeconfig, "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0",
        "--leader-elect-resource-namespace", ns, "--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s", "--leader-elect-retry-period", "500ms"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let err = "";
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    t.after(() => void child.kill("SIGKILL"));
    const ports = await eventually(async () => {
      const line = err.split("\n").find((l) => l.includes('"msg":"serving endpoints"'));
      return line ? (JSON.parse(line) as { metricsPort: number; healthProbePort: number }) : undefined;
    }, 30_000, `the endpoints (stderr: ${err})`);
    assert.notEqual(ports.metricsPort, ports.healthProbePort);
    const get = async (port: number, p: string) => {
      const r = await fetch(`http://127.0.0.1:${port}${p}`);
      return { status: r.status, body: await r.text(), type: r.headers.get("content-type") ?? "" };
    };
    assert.equal((await get(ports.healthProbePort, "/healthz")).status, 200);
    assert.equal((await get(ports.healthProbePort, "/metrics")).status, 404, "metrics on the probe port");
    assert.equal((await get(ports.metricsPort, "/readyz")).status, 404, "probes on the metrics port");
    assert.equal((await fetch(`http://127.0.0.1:${ports.healthProbePort}/healthz`, { method: "POST", body: "x" })).status, 405);
    await eventually(async () => ((await get(ports.healthProbePort, "/readyz")).status === 200 ? true : undefined), 30_000, "readiness");
    await eventually(async () => (err.includes('"msg":"reconciling"') ? true : undefined), 30_000, "leadership");

    // A Karta for a kind no CRD defines: reconciled once (CRDExists False), counted in the metrics.
    const k = parse(readFileSync(path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml"), "utf8")) as Record<string, any>;
    k.metadata = { name: karta };
    k.spec.structureDefinition.rootComponent.kind = { group: `${karta}.karta.test`, version: "v1", kind: "TrainJob" };
    await c.objects.create(k as KubernetesObject);
    await eventually(async () => {
      const got = (await c.objects.read({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: karta } })) as { status?: { conditions?: { type: string }[] } };
      return got.status?.conditions?.some((x) => x.type === "CRDExists") ? true : undefined;
    }, 20_000, "the Karta's status");
    // The reconcile is counted when it returns, a moment after its status write is visible.
    const m = await eventually(async () => {
      const r = await get(ports.metricsPort, "/metrics");
      return (sample(r.body, "controller_runtime_reconcile_total", 'controller="karta",result="success"') ?? 0) >= 1 ? r : undefined;
    }, 10_000, "the reconcile counted");
    assert.equal(m.status, 200);
    assert.match(m.type, /^text\/plain; version=0\.0\.4/);
    assert.ok((sample(m.body, "controller_runtime_reconcile_total", 'controller="karta",result="success"') ?? 0) >= 1, m.body);
    assert.ok((sample(m.body, "controller_runtime_reconcile_time_seconds_count", 'controller="karta"') ?? 0) >= 1);
    assert.equal(sample(m.body, "controller_runtime_reconcile_errors_total", 'controller="workload"'), 0);
    assert.equal(typeof sample(m.body, "workqueue_depth", 'name="karta"'), "number");
    assert.equal(sample(m.body, "leader_election_master_status", 'name="karta-controller"'), 1);
    assert.match(m.body, /^process_resident_memory_bytes \d+/m);

    child.kill("SIGTERM");
    assert.equal(await exited, 0, err);
    assert.match(err, /"msg":"shutting down"/);
    assert.match(err, /"msg":"stopped"/);
    const lease = (await c.objects.read({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "karta-controller", namespace: ns } })) as { spec?: { holderIdentity?: string } };
    assert.ok(!lease.spec?.holderIdentity, `the Lease is still held by ${lease.spec?.holderIdentity}`);
    await assert.rejects(fetch(`http://127.0.0.1:${ports.healthProbePort}/healthz`), "the probe server still answers after exit");
  });

  test("--shutdown-delay-duration: after SIGTERM, /readyz fails while the webhook answers on (closing its connections), then the usual stop", async (t) => {
    await installKartaCrd(c);
    const ns = await testNamespace(t, c);
    const { kc } = await asServiceAccount(c, ns, controllerRbac([], { namespace: ns }));
    const kubeconfig = path.join(dir, "kubeconfig-delay");
    writeFileSync(kubeconfig, kc.exportConfig());
    const certs = path.join(dir, "certs-delay");
    const delayMs = 4000;
    const child = spawn(
      process.execPath,
      [kartaBin, "controller", "--kubeconfig", kubeconfig, "--metrics-bind-address", "0", "--health-probe-bind-address", "127.0.0.1:0",
        "--webhook-port", "0", "--cert-dir", certs, "--shutdown-delay-duration", `${delayMs / 1000}s`,
        "--leader-elect-resource-namespace", ns, "--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s", "--leader-elect-retry-period", "500ms"],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let err = "";
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    t.after(() => void child.kill("SIGKILL"));
    const line = (msg: string) => err.split("\n").find((l) => l.includes(`"msg":${JSON.stringify(msg)}`));
    const { webhookPort } = await eventually(async () => (line("serving the admission webhook") ? (JSON.parse(line("serving the admission webhook")!) as { webhookPort: number }) : undefined), 60_000, `the webhook (${err})`);
    const { healthProbePort } = JSON.parse(line("serving endpoints")!) as { healthProbePort: number };
    const readyz = async () => (await fetch(`http://127.0.0.1:${healthProbePort}/readyz`)).status;
    await eventually(async () => ((await readyz()) === 200 ? true : undefined), 30_000, "ready");
    await eventually(async () => (line("reconciling") ? true : undefined), 30_000, "leading");
    const ca = readFileSync(path.join(certs, "ca.crt"), "utf8");
    const review = JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "u", kind: { group: "", version: "v1", kind: "Pod" }, operation: "CREATE", namespace: ns, object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: ns } } } });
    const before = await post(webhookPort, "/mutate-v1-pod?timeout=5s", ca, review);
    assert.deepEqual(before, { status: 200, connection: "keep-alive" }, "kept alive before");

    const signalled = Date.now();
    child.kill("SIGTERM");
    await eventually(async () => (line("shutting down after the delay: not ready, still serving") ? true : undefined), 5_000, "the delay logged");
    // During the delay: not ready, and a new connection's request is answered, its connection closed after.
    assert.equal(await readyz(), 503);
    const during = await post(webhookPort, "/mutate-v1-pod?timeout=5s", ca, review);
    assert.deepEqual(during, { status: 200, connection: "close" });
    assert.ok(Date.now() - signalled < delayMs - 500, "checked within the delay");
    assert.equal(child.exitCode, null, "still running");
    assert.equal(line("shutting down"), undefined, "the stop has not begun");

    assert.equal(await exited, 0, err);
    assert.ok(Date.now() - signalled >= delayMs, `exited ${Date.now() - signalled} ms after SIGTERM`);
    // Then the usual stop: the webhook closed, the Lease released.
    assert.match(err, /"msg":"shutting down"/);
    assert.equal(typeof (await post(webhookPort, "/mutate-v1-pod?timeout=5s", ca, review)), "string", "the webhook's port is closed");
    const lease = (await c.objects.read({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "karta-controller", namespace: ns } })) as { spec?: { holderIdentity?: string } };
    assert.ok(!lease.spec?.holderIdentity, `the Lease is still held by ${lease.spec?.holderIdentity}`);
  });
});
