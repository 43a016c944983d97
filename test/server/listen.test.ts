/**
 * Every server of `karta serve` and `karta controller` listens as a Go server given the same address
 * does (src/server/listen.ts): no host, 0.0.0.0 or :: is every address of both IP families. Started with
 * the commands' defaults, each answers on 127.0.0.1 and on ::1 (the ::1 checks are skipped, with a notice,
 * on a machine without an IPv6 loopback). A given address is listened on as it is.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import { createServer } from "node:net";
import path from "node:path";
import { isUnspecifiedHost, listenHost } from "../../src/server/listen.js";
import { SERVE_DEFAULTS } from "../../src/server/index.js";
import { defaultServingNames, ensureCertDir } from "../../src/server/certs.js";
import { parseBindAddress, startEndpoints } from "../../src/controller/endpoints.js";
import { startWebhook, POD_WEBHOOK_PATH } from "../../src/controller/webhook.js";
import { ControllerMetrics } from "../../src/controller/metrics.js";
import { silentLogger } from "../../src/controller/log.js";
import { FLAGS as CONTROLLER_FLAGS } from "../../src/cli/controller.js";
import { contextBody, eventually, spawnServe, startTestServer, tempDir } from "./helpers.js";

/** Whether this machine can listen on ::1. */
function hasIpv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(0, "::1", () => s.close(() => resolve(true)));
  });
}

const ipv6 = await hasIpv6Loopback();
if (!ipv6) console.log("notice: this machine has no IPv6 loopback (::1): the servers listening on every address are checked on 127.0.0.1 only");
const LOOPBACKS = ipv6 ? ["127.0.0.1", "::1"] : ["127.0.0.1"];

/** One request to host:port; the status, or the connection's error code (ECONNREFUSED). */
function status(host: string, port: number, options: { path: string; ca?: string; method?: string; body?: string }): Promise<number | string> {
  return new Promise((resolve) => {
    const request = options.ca === undefined ? http.request : https.request;
    const req = request({ host, port, path: options.path, method: options.method ?? "GET", agent: false, ...(options.ca !== undefined ? { ca: options.ca } : {}), headers: { "Content-Type": "application/json" } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end(options.body);
  });
}

test("an unspecified address is every address (Node.js told no host); a given one is kept", () => {
  for (const host of ["", "0.0.0.0", "::", "0:0:0:0:0:0:0:0", "0::0"]) {
    assert.ok(isUnspecifiedHost(host), host);
    assert.equal(listenHost(host), undefined, host);
  }
  for (const host of ["127.0.0.1", "::1", "10.0.0.1", "fd00::1", "localhost", "0.0.0.1"]) assert.equal(listenHost(host), host, host);
});

describe("karta serve with its default addresses", () => {
  test("the HTTPS server and the probes answer on 127.0.0.1 and ::1", async () => {
    // SERVE_DEFAULTS' addresses, ports picked by the system.
    assert.equal(SERVE_DEFAULTS.bindAddress, "0.0.0.0");
    const { server, caPem } = await startTestServer({ bindAddress: SERVE_DEFAULTS.bindAddress, metricsBindAddress: SERVE_DEFAULTS.metricsBindAddress.replace(/\d+$/, "0") });
    try {
      const body = contextBody("dual", "InterpretReplica", { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w" }, spec: { replicas: 1, template: { spec: { containers: [] } } } });
      for (const host of LOOPBACKS) {
        // The test certificate names 127.0.0.1 and localhost: on ::1 it is checked for localhost.
        const answer = host === "::1" ? await tlsAsLocalhost(host, server.port, caPem, body) : await status(host, server.port, { path: "/interpret", method: "POST", body, ca: caPem });
        assert.equal(answer, 200, host);
        assert.equal(await status(host, server.metricsPort, { path: "/readyz" }), 200, host);
      }
    } finally {
      await server.close();
    }
  });

  test("--processes 2, the flags' defaults but the ports: both families, HTTPS and probes", async () => {
    const dir = tempDir();
    const served = spawnServe(["--cert-dir", dir, "--processes", "2", "--workers", "1", "--secure-port", "0", "--metrics-bind-address", ":0"]);
    try {
      const { port, metricsPort } = await served.serving();
      const ca = readFileSync(path.join(dir, "ca.crt"), "utf8");
      await eventually(async () => (await status("127.0.0.1", metricsPort, { path: "/readyz" })) === 200, 60_000, "readiness");
      const body = contextBody("dual", "InterpretReplica", { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w" }, spec: { replicas: 1, template: { spec: { containers: [] } } } });
      // --cert-dir's certificate names 127.0.0.1 and ::1.
      for (const host of LOOPBACKS) {
        for (let i = 0; i < 2; i++) assert.equal(await status(host, port, { path: "/interpret", method: "POST", body, ca }), 200, `${host} #${i}`);
        assert.equal(await status(host, metricsPort, { path: "/readyz" }), 200, host);
      }
      served.child.kill("SIGTERM");
      assert.equal(await served.exited, 0, served.err());
    } finally {
      served.child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A POST over HTTPS to host, the certificate checked for localhost (a certificate of 127.0.0.1 and localhost only). */
function tlsAsLocalhost(host: string, port: number, ca: string, body: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = https.request({ host, port, servername: "localhost", path: "/interpret", method: "POST", ca, agent: false, headers: { "Content-Type": "application/json" } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end(body);
  });
}

describe("karta controller's servers with its default addresses", () => {
  const dir = tempDir("karta-listen-");
  let ca: string;
  let files: { certFile: string; keyFile: string };
  before(() => {
    files = ensureCertDir(dir, defaultServingNames());
    ca = readFileSync(files.certFile.replace(/tls\.crt$/, "ca.crt"), "utf8");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("/metrics, the probes and the admission webhook answer on 127.0.0.1 and ::1; 0.0.0.0 is the same; 127.0.0.1 is IPv4 alone", async () => {
    // The flags' defaults (:8080, :8081), on ports the system picks; and 0.0.0.0 given, as a Deployment may.
    const at = (flag: "metrics-bind-address" | "health-probe-bind-address") => parseBindAddress(CONTROLLER_FLAGS[flag].default.replace(/\d+$/, "0"))!;
    assert.equal(at("metrics-bind-address").host, "");
    const metrics = new ControllerMetrics();
    const probes = { healthy: () => true, ready: () => true };
    const defaults = await startEndpoints(at("metrics-bind-address"), at("health-probe-bind-address"), metrics.registry, probes);
    const explicit = await startEndpoints(parseBindAddress("0.0.0.0:0")!, parseBindAddress("[::]:0")!, metrics.registry, probes);
    const v4 = await startEndpoints(parseBindAddress("127.0.0.1:0")!, null, metrics.registry, probes);
    // As controller.ts starts it: no host.
    const webhook = await startWebhook({ host: "", port: 0, ...files, source: { podRoot: () => ({ found: false, pending: false, why: "no owner" }) }, metrics, log: silentLogger });
    try {
      const review = JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "u", kind: { group: "", version: "v1", kind: "Pod" }, operation: "CREATE", namespace: "n", object: { apiVersion: "v1", kind: "Pod", metadata: { name: "p" } } } });
      for (const host of LOOPBACKS) {
        for (const e of [defaults, explicit]) {
          assert.equal(await status(host, e.metricsPort!, { path: "/metrics" }), 200, `${host} /metrics`);
          assert.equal(await status(host, e.healthPort!, { path: "/readyz" }), 200, `${host} /readyz`);
        }
        assert.equal(await status(host, webhook.port, { path: `${POD_WEBHOOK_PATH}?timeout=5s`, method: "POST", body: review, ca }), 200, `${host} webhook`);
      }
      assert.equal(await status("127.0.0.1", v4.metricsPort!, { path: "/metrics" }), 200);
      if (ipv6) assert.equal(await status("::1", v4.metricsPort!, { path: "/metrics" }), "ECONNREFUSED", "127.0.0.1 given: IPv4 alone");
    } finally {
      await webhook.close(0);
      await Promise.all([defaults.close(), explicit.close(), v4.close()]);
    }
  });
});
