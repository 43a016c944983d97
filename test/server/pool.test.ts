/**
 * Restarts of evaluation workers: a worker that crashes again and again (here: a heap limit too small
 * to load it) is restarted after a doubling backoff, capped; stopping a runaway script at its deadline
 * is not a crash and is replaced at once, however often it happens. And tasks given to a worker ahead
 * of time: each gets its own answer, and those waiting behind a runaway script go to another worker.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { EvaluationPool, type PoolEvent } from "../../src/server/pool.js";
import { RUNAWAY } from "./helpers.js";

const EMPTY = { definitions: [], customizations: [], webhookConfigurations: [], multiplePodTemplatesScheduling: false };

/** Health is the object's own status.ok, through Lua (so on a worker). */
const ECHO = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: echo
spec:
  target:
    apiVersion: example.io/v1
    kind: Echo
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          return obj.status.ok
        end
`;

const health = (kind: string, ok = true) => ({ operation: "InterpretHealth" as const, object: { apiVersion: "example.io/v1", kind, metadata: { name: "x" }, status: { ok } }, replicas: 0, aggregatedStatus: [] });

describe("evaluation pool: restarts", () => {
  test("a worker crashing in a loop is restarted with exponential backoff, capped", async () => {
    const restarts: { at: number; e: Extract<PoolEvent, { type: "restart" }> }[] = [];
    let sawBackoff = 0;
    const pool = new EvaluationPool({
      size: 1,
      maxHeapMb: 1,
      source: EMPTY,
      restartBackoff: { initialMs: 100, maxMs: 400 },
      onEvent: (e) => {
        if (e.type === "restart") restarts.push({ at: performance.now(), e });
      },
    });
    try {
      const until = performance.now() + 10_000;
      while (restarts.length < 7 && performance.now() < until) {
        sawBackoff = Math.max(sawBackoff, pool.backingOff);
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.ok(restarts.length >= 7, `only ${restarts.length} restarts`);
      assert.ok(restarts.every((r) => r.e.reason === "crashed"));
      assert.deepEqual(
        restarts.slice(0, 7).map((r) => r.e.delayMs),
        [0, 100, 200, 400, 400, 400, 400],
      );
      assert.deepEqual(
        restarts.slice(0, 7).map((r) => r.e.crashes),
        [1, 2, 3, 4, 5, 6, 7],
      );
      // The next crash comes no sooner than the backoff announced before it.
      for (let i = 1; i < 7; i++) assert.ok(restarts[i]!.at - restarts[i - 1]!.at >= restarts[i - 1]!.e.delayMs - 5, `restart ${i} came early`);
      assert.equal(sawBackoff, 1);
      assert.equal(pool.readyWorkers, 0);
    } finally {
      await pool.close();
    }
    assert.equal(pool.backingOff, 0);
  });

  test("workers stopped at a deadline are replaced at once every time", async () => {
    const restarts: Extract<PoolEvent, { type: "restart" }>[] = [];
    const pool = new EvaluationPool({
      size: 1,
      source: { ...EMPTY, customizations: [{ file: "runaway.yaml", text: RUNAWAY }] },
      restartBackoff: { initialMs: 5_000, maxMs: 5_000 },
      onEvent: (e) => {
        if (e.type === "restart") restarts.push(e);
      },
    });
    try {
      assert.ok(await pool.whenReady(60_000));
      const input = { operation: "InterpretHealth" as const, object: { apiVersion: "example.io/v1", kind: "Runaway", metadata: { name: "r" } }, replicas: 0, aggregatedStatus: [] };
      for (let i = 0; i < 3; i++) {
        const r = await pool.runOperation(input, Date.now() + 300);
        assert.equal(r.ok, false);
        assert.ok(await pool.whenReady(60_000), "the replacement became ready without a backoff");
      }
      assert.equal(restarts.length, 3);
      assert.ok(restarts.every((e) => e.delayMs === 0 && e.crashes === 0 && e.reason !== "crashed"), JSON.stringify(restarts));
    } finally {
      await pool.close();
    }
  });
});

describe("evaluation pool: tasks given ahead", () => {
  test("many tasks at once: each gets its own answer", async () => {
    const pool = new EvaluationPool({ size: 2, source: { ...EMPTY, customizations: [{ file: "echo.yaml", text: ECHO }] } });
    try {
      assert.ok(await pool.whenReady(60_000));
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => pool.runOperation(health("Echo", i % 3 === 0), Date.now() + 30_000)));
      assert.deepEqual(
        results.map((r) => (r.ok ? (r.value as { ok: boolean; value?: unknown }).value : r.message)),
        Array.from({ length: 200 }, (_, i) => i % 3 === 0),
      );
    } finally {
      await pool.close();
    }
  });

  test("tasks queued behind a runaway script are taken back and answered by the other worker", async () => {
    const events: PoolEvent[] = [];
    const pool = new EvaluationPool({
      size: 2,
      source: { ...EMPTY, customizations: [{ file: "echo.yaml", text: ECHO }, { file: "runaway.yaml", text: RUNAWAY }] },
      onEvent: (e) => events.push(e),
    });
    try {
      assert.ok(await pool.whenReady(60_000));
      const started = performance.now();
      const runaway = pool.runOperation(health("Runaway"), Date.now() + 30_000).then((r) => ({ r, ms: performance.now() - started }));
      // Given at the same moment: some are queued on the runaway's worker before it is seen to stall.
      const quick = await Promise.all(Array.from({ length: 20 }, () => pool.runOperation(health("Echo"), Date.now() + 30_000).then((r) => ({ r, ms: performance.now() - started }))));
      for (const q of quick) {
        assert.equal(q.r.ok && (q.r.value as { value?: unknown }).value, true, JSON.stringify(q.r));
        // The runaway runs for Lua's 1 s deadline; none of these waited for it.
        assert.ok(q.ms < 600, `a task answered after ${Math.round(q.ms)} ms`);
      }
      const { r, ms } = await runaway;
      assert.equal(r.ok, false);
      assert.ok(ms >= 900, `the runaway ended after ${Math.round(ms)} ms`);
      assert.ok(events.some((e) => e.type === "restart" && e.reason === "lua-deadline"), JSON.stringify(events));
    } finally {
      await pool.close();
    }
  });
});
