/**
 * Where `karta serve` evaluates a request: on the event loop when no script can run for it (Kartas,
 * built-in and TypeScript interpreters), its jq in a time slice; on a worker for Lua customizations;
 * and a request whose jq runs past the event loop's slice is redone on a worker, where its full budget
 * applies, with the same answer.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RunningServer } from "../../src/server/server.js";
import { contextBody, metricsText, repoRoot, request, startTestServer, tempDir, type Response } from "./helpers.js";

const HEALTHY_LUA = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: scripted
spec:
  target:
    apiVersion: example.io/v1
    kind: Scripted
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          return obj.status ~= nil and obj.status.ok == true
        end
`;

// A Volcano Job Karta whose health compares every pair of a status list: quadratic, millions of steps
// for a few thousand items (far past a 2 ms slice, well within the full budget).
const SLOW_HEALTH = `expression: >-
        ([.status.xs[]? as $a | .status.xs[] | select(. == $a)] | length) == (.status.xs | length)`;

// The same pairs for dependencies (none): an operation of its own, timed apart from health.
const SLOW_DEPENDENCIES = `expression: '([.status.xs[]? as $a | .status.xs[] | select(. == $a)] | length) as $n | []'`;

function evaluations(text: string, thread: string): number {
  const m = new RegExp(`^karta_webhook_evaluations_total\\{thread="${thread}"\\} (\\d+)`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

describe("karta serve: event loop and workers", () => {
  let server: RunningServer;
  let url: string;
  let ca: string;
  let dir: string;
  before(async () => {
    dir = tempDir();
    writeFileSync(path.join(dir, "scripted.yaml"), HEALTHY_LUA);
    const job = readFileSync(path.join(repoRoot, "definitions", "batch.volcano.sh", "v1alpha1", "Job.yaml"), "utf8");
    const slow = job
      .replace(/expression: >-\n {8}\(\.status\.state\.phase[^\n]*\n[^\n]*\n/, SLOW_HEALTH + "\n")
      .replace("\n  karmada:\n", `\n  karmada:\n    dependencies:\n      ${SLOW_DEPENDENCIES}\n`);
    assert.ok(slow.includes(SLOW_HEALTH) && slow.includes(SLOW_DEPENDENCIES), "the expressions were replaced");
    writeFileSync(path.join(dir, "job.yaml"), slow);
    // Kinds slower than 1 ms go to the workers: the slow answers below take several, the cheap ones well
    // under one even on a busy machine (the default, 100 µs, is nearer what a cheap answer costs then).
    // The deadline is far: the slow answers take seconds under load, and these tests are about where
    // requests run, not how long they may.
    const s = await startTestServer({ customizations: [path.join(dir, "scripted.yaml")], definitions: [path.join(dir, "job.yaml")], eventLoopMaxUs: 1000, requestTimeoutMs: 120_000 });
    server = s.server;
    url = s.url;
    ca = s.caPem;
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const job = (xs: number[]): Record<string, unknown> => ({ apiVersion: "batch.volcano.sh/v1alpha1", kind: "Job", metadata: { name: "j", namespace: "default" }, spec: { tasks: [] }, status: { xs } });

  test("a Karta and a built-in kind are answered on the event loop, a Lua customization on a worker", async () => {
    const before = await metricsText(server);
    const karta = await request(url, ca, contextBody("k", "InterpretHealth", job([1, 2, 3])));
    assert.equal((karta.json() as Response).response.healthy, true);
    const builtin = await request(url, ca, contextBody("b", "InterpretReplica", { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec: { replicas: 2 } }));
    assert.equal((builtin.json() as Response).response.successful, true);
    const lua = await request(url, ca, contextBody("l", "InterpretHealth", { apiVersion: "example.io/v1", kind: "Scripted", metadata: { name: "s" }, status: { ok: true } }));
    assert.equal((lua.json() as Response).response.healthy, true);
    const bad = await request(url, ca, "{}");
    assert.deepEqual([bad.status, (bad.json() as Response).response.status?.code], [200, 400]);
    const now = await metricsText(server);
    assert.equal(evaluations(now, "event_loop") - evaluations(before, "event_loop"), 3);
    assert.equal(evaluations(now, "worker") - evaluations(before, "worker"), 1);
  });

  test("a request goes where its decoded kind and operation send it, whatever its text suggests", async () => {
    const scripted = { apiVersion: "example.io/v1", kind: "Scripted", metadata: { name: "s" }, status: { ok: true } };
    const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec: { replicas: 2 } };
    // A field before the request that reads, to a quick look at the text, as the other kind and operation.
    const decoy = (uid: string, operation: string, object: Record<string, unknown>, decoyOperation: string, decoyObject: Record<string, unknown>): string => {
      const parsed = JSON.parse(contextBody(uid, operation, object)) as Record<string, unknown>;
      return JSON.stringify({ apiVersion: parsed.apiVersion, kind: parsed.kind, note: { operation: decoyOperation, object: decoyObject }, request: parsed.request });
    };
    const before = await metricsText(server);
    // A Lua kind disguised as a built-in one: still on a worker, never on the event loop.
    const lua = await request(url, ca, decoy("disguised", "InterpretHealth", scripted, "InterpretReplica", deployment));
    assert.equal((lua.json() as Response).response.healthy, true);
    // A built-in kind disguised as a Lua one: sent to a worker, which answers it all the same.
    const builtin = await request(url, ca, decoy("builtin", "InterpretReplica", deployment, "InterpretHealth", scripted));
    assert.deepEqual([(builtin.json() as Response).response.successful, (builtin.json() as { response: { replicas?: number } }).response.replicas], [true, 2]);
    // A body laid out otherwise (metadata before kind): parsed here, then sent to a worker.
    const reordered = await request(url, ca, contextBody("reordered", "InterpretHealth", { metadata: scripted.metadata, status: scripted.status, apiVersion: scripted.apiVersion, kind: scripted.kind }));
    assert.equal((reordered.json() as Response).response.healthy, true);
    const now = await metricsText(server);
    assert.equal(evaluations(now, "event_loop") - evaluations(before, "event_loop"), 0);
    assert.equal(evaluations(now, "worker") - evaluations(before, "worker"), 3);
  });

  test("jq past the event loop's slice is redone on a worker, which answers", async () => {
    const before = await metricsText(server);
    const xs = Array.from({ length: 2500 }, (_, i) => i);
    const r = await request(url, ca, contextBody("slow", "InterpretHealth", job(xs)));
    const body = r.json() as Response;
    assert.equal(body.response.uid, "slow");
    assert.equal(body.response.successful, true, JSON.stringify(body));
    assert.equal(body.response.healthy, true);
    const now = await metricsText(server);
    assert.equal(evaluations(now, "event_loop_redone") - evaluations(before, "event_loop_redone"), 1);
    assert.equal(evaluations(now, "worker") - evaluations(before, "worker"), 1);
  });

  test("a kind and operation slow on the event loop go to the workers once 8 answers were timed", async () => {
    const before = await metricsText(server);
    const xs = Array.from({ length: 300 }, (_, i) => i);
    // A kind of its own for this test: the other tests time the Job's health.
    for (let i = 0; i < 12; i++) {
      const r = await request(url, ca, contextBody(`m-${i}`, "InterpretDependency", job(xs)));
      assert.equal((r.json() as Response).response.successful, true);
    }
    const now = await metricsText(server);
    const d = (t: string): number => evaluations(now, t) - evaluations(before, t);
    assert.equal(d("event_loop") + d("event_loop_redone"), 8, now);
    assert.equal(d("worker") - d("event_loop_redone"), 4, now);
  });

  test("a kind sent to the workers comes back to the event loop once its answers there are cheap", async () => {
    // After the test above, the Job's dependencies go to the workers; these cost a few µs.
    const before = await metricsText(server);
    let now = before;
    const d = (t: string): number => evaluations(now, t) - evaluations(before, t);
    // The first is answered on a worker (the last 8 timings were all slow); its timing brings the kind
    // back. On a machine busy enough to preempt each of those few-µs answers past 1 ms it takes more
    // than one, so the requests go on (up to 300) until 25 were answered on the event loop.
    for (let i = 0; i < 300 && d("event_loop") < 25; i++) {
      const r = await request(url, ca, contextBody(`c-${i}`, "InterpretDependency", job([i])));
      assert.equal((r.json() as Response).response.successful, true);
      if (i >= 29) now = await metricsText(server);
    }
    now = await metricsText(server);
    assert.ok(d("worker") >= 1 && d("event_loop") >= 25, now);
  });

  test("while a slow jq request is redone on a worker, cheap requests are answered at once", async () => {
    const xs = Array.from({ length: 2500 }, (_, i) => i);
    let slowDone = false;
    const slow = request(url, ca, contextBody("slow-2", "InterpretHealth", job(xs))).then((r) => {
      slowDone = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 20));
    // Not timed (a busy machine stretches any bound): the cheap answers all come while the slow one,
    // seconds of work on a worker, is still being evaluated.
    for (let i = 0; i < 5; i++) {
      const r = await request(url, ca, contextBody(`fast-${i}`, "InterpretHealth", job([i])));
      assert.equal((r.json() as Response).response.healthy, true);
    }
    assert.equal(slowDone, false, "the cheap requests were answered after the slow one");
    const last = (await slow).json() as Response;
    assert.equal(last.response.healthy, true, JSON.stringify(last));
  });
});
