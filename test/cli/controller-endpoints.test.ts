/** What karta controller says of its metrics and probe endpoints: only what it serves. */
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runKarta } from "../support/cluster.js";
import { tempDir } from "../server/helpers.js";

test("'serving endpoints' names the ports served, and is not logged when both addresses are 0", async () => {
  // An API server that answers 503: the controller starts its endpoints, then gives up at --cache-sync-timeout.
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(503, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: 503, reason: "ServiceUnavailable", message: "etcd is down" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const dir = tempDir();
  const kubeconfig = path.join(dir, "kubeconfig");
  writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "http://127.0.0.1:${(server.address() as AddressInfo).port}"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`);
  try {
    const start = ["controller", "--kubeconfig", kubeconfig, "--leader-elect=false", "--cache-sync-timeout", "1s"];
    const lines = async (metrics: string, health: string) => {
      const r = await runKarta([...start, "--metrics-bind-address", metrics, "--health-probe-bind-address", health]);
      assert.equal(r.code, 1, r.stderr);
      return r.stderr.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
    };
    const off = await lines("0", "0");
    assert.equal(off.filter((l) => l["msg"] === "serving endpoints").length, 0, JSON.stringify(off));
    assert.ok(off.some((l) => l["msg"] === "not serving metrics or probes: --metrics-bind-address and --health-probe-bind-address are 0"), JSON.stringify(off));
    const metricsOnly = (await lines("127.0.0.1:0", "0")).find((l) => l["msg"] === "serving endpoints");
    assert.ok(metricsOnly && typeof metricsOnly["metricsPort"] === "number" && !("healthProbePort" in metricsOnly), JSON.stringify(metricsOnly));
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
