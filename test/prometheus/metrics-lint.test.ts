/**
 * Every /metrics Karta serves passes the real promtool's lint (`promtool check metrics`, as an operator's
 * CI runs it against an endpoint): `karta serve` with --processes 1 and 2 (a serving process's own
 * registry, and the supervisor's aggregation), and the controller's endpoints.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startEndpoints } from "../../src/controller/endpoints.js";
import { ControllerMetrics } from "../../src/controller/metrics.js";
import { goTool } from "../support/go-tool.js";
import { spawnServe } from "../server/helpers.js";

const tool = goTool("prometheus");
const skip = "skip" in tool ? tool.skip : false;
if (skip) console.log(skip);
const promtool = "dir" in tool ? path.join(tool.dir, "promtool") : "";

/** `promtool check metrics` on a text (its standard input): the exit code and what it printed. */
function checkMetrics(text: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(promtool, ["check", "metrics"], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (out += c.toString()));
    child.on("close", (code) => resolve({ code: code ?? 1, out }));
    child.stdin.end(text);
  });
}

for (const processes of ["1", "2"]) {
  test(`promtool check metrics: karta serve --processes ${processes}`, { skip }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-lint-"));
    const served = spawnServe(["--cert-dir", dir, "--processes", processes, "--workers", "1", "--secure-port", "0", "--bind-address", "127.0.0.1", "--metrics-bind-address", "127.0.0.1:0"]);
    try {
      const { metricsPort } = await served.serving();
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      assert.match(text, /^karta_webhook_requests_in_flight /m);
      assert.match(text, /^process_cpu_seconds_total /m);
      const r = await checkMetrics(text);
      assert.equal(r.code, 0, r.out);
    } finally {
      served.child.kill("SIGTERM");
      await served.exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test("promtool check metrics: the controller's /metrics", { skip }, async () => {
  const ep = await startEndpoints({ host: "127.0.0.1", port: 0 }, null, new ControllerMetrics(), { healthy: () => true, ready: () => true });
  try {
    const text = await (await fetch(`http://127.0.0.1:${ep.metricsPort}/metrics`)).text();
    assert.match(text, /^# TYPE workqueue_depth gauge$/m);
    const r = await checkMetrics(text);
    assert.equal(r.code, 0, r.out);
  } finally {
    await ep.close();
  }
});
