/**
 * The server's per-request bookkeeping, written for speed: the request log line equals what pino writes
 * for the same call, and the request metrics scrape as prom-client's own counters and histograms would.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Counter, Histogram, Registry } from "prom-client";
import { createLogger, requestLogger, type RequestFields } from "../../src/server/log.js";
import { ServerMetrics } from "../../src/server/metrics.js";

test("the request log line is the line pino writes for log.info(fields, msg), and follows the level", () => {
  const lines: string[] = [];
  const log = createLogger("info", { write: (l: string) => void lines.push(l) });
  const write = requestLogger(log, "interpreted");
  const cases: RequestFields[] = [
    { uid: "6d3f1c2e-0000-4000-8000-000000000001", kind: "kubeflow.org/v1/PyTorchJob", operation: "InterpretHealth", layer: "karta", outcome: "success", status: 200, durationMs: 0.4 },
    { uid: 'quote " backslash \\ newline \n tab \t', kind: "", operation: "", layer: "", outcome: "bad_request", status: 400, durationMs: 12 },
    { uid: "unicode é 😀 \u2028 \u0000", kind: "v1/Pod", operation: "Retain", layer: "native", outcome: "failure", status: 200, durationMs: 1234.5 },
  ];
  for (const f of cases) {
    write(f);
    log.info({ ...f }, "interpreted");
    const [fast, pino] = lines.splice(0, 2) as [string, string];
    const strip = (l: string): unknown => ({ ...(JSON.parse(l) as Record<string, unknown>), time: "" });
    assert.deepEqual(strip(fast), strip(pino));
    // Byte for byte but the time (taken a moment apart).
    assert.equal(fast.replace(/"time":"[^"]*"/, ""), pino.replace(/"time":"[^"]*"/, ""));
  }
  log.level = "warn";
  write(cases[0]!);
  assert.deepEqual(lines, [], "nothing is written above info");
});

test("a request's uid and kind are cut to 256 characters in its log line", () => {
  const lines: string[] = [];
  const write = requestLogger(createLogger("info", { write: (l: string) => void lines.push(l) }), "interpreted");
  write({ uid: "u".repeat(1024 * 1024), kind: `evil.example/v1/${"K".repeat(1024 * 1024)}`, operation: "InterpretStatus", layer: "native", outcome: "success", status: 200, durationMs: 1 });
  const line = JSON.parse(lines[0]!) as { uid: string; kind: string };
  assert.equal(line.uid, `${"u".repeat(256)}... (1048576 characters)`);
  assert.equal(line.kind, `evil.example/v1/${"K".repeat(240)}... (1048592 characters)`);
  assert.ok(lines[0]!.length < 1000);
});

test("request metrics scrape as prom-client's counter and histogram with the same observations", async () => {
  const metrics = new ServerMetrics();
  const reference = new Registry();
  const counter = new Counter({ name: "karta_webhook_requests_total", help: "x", labelNames: ["operation", "kind", "outcome"], registers: [reference] });
  const histogram = new Histogram({ name: "karta_webhook_request_duration_seconds", help: "x", labelNames: ["operation"], buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [reference] });
  const requests: [string, string, string][] = [
    ["InterpretHealth", "kubeflow.org/v1/PyTorchJob", "success"],
    ["InterpretHealth", "kubeflow.org/v1/PyTorchJob", "success"],
    ["Retain", "apps/v1/Deployment", "failure"],
    ["", "", "too_large"],
  ];
  for (const [operation, kind, outcome] of requests) {
    metrics.requests.inc({ operation, kind, outcome });
    counter.inc({ operation, kind, outcome });
  }
  for (const [op, seconds] of [["InterpretHealth", 0.0004], ["InterpretHealth", 0.0005], ["InterpretHealth", 0.003], ["Retain", 11], ["Retain", 0.2]] as const) {
    metrics.duration.observe({ operation: op }, seconds);
    histogram.observe({ operation: op }, seconds);
  }
  const section = (text: string, name: string): string[] => text.split("\n").filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name}_`)).sort();
  const ours = await metrics.registry.metrics();
  const theirs = await reference.metrics();
  for (const name of ["karta_webhook_requests_total", "karta_webhook_request_duration_seconds"]) assert.deepEqual(section(ours, name), section(theirs, name), name);
  metrics.inFlight = 3;
  assert.match(await metrics.registry.metrics(), /^karta_webhook_requests_in_flight 3$/m);
});
