/** What karta controller says of its metrics and probe endpoints: only what it serves. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { runKarta } from "../support/cluster.js";
import { startUnavailableApiServer } from "../support/fake-apiserver.js";

test("'serving endpoints' names the ports served, and is not logged when both addresses are 0", async () => {
  // An API server that answers 503: the controller starts its endpoints, then gives up at --cache-sync-timeout.
  const { kubeconfig, close } = await startUnavailableApiServer();
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
    close();
  }
});
