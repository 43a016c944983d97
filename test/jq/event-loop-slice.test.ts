/**
 * The event loop's time slice (what `karta serve` answers cheap requests under): runs in an open slice
 * stop at its wall-clock end or at a regex that would wait for the matching worker, and the slice
 * reports it so the caller can redo the work where it may take its full budget.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileJq, eventLoopSlice, JqError } from "../../src/jq/index.js";

// About a million steps: tens of milliseconds, far past a 1 ms slice, far below the full budget.
const HEAVY = "reduce range(1000000) as $i (0; . + $i)";
const SUM = (1_000_000 * 999_999) / 2;

describe("eventLoopSlice", () => {
  test("a cheap run in a slice completes and does not trip it", () => {
    const slice = eventLoopSlice(50);
    try {
      assert.deepEqual(compileJq("[.a, .b] | add").run({ a: 1, b: 2 }), [3]);
    } finally {
      assert.equal(slice.close(), false);
    }
  });

  test("a long run stops at the slice's end with a limit error and trips it; outside a slice it completes", () => {
    const program = compileJq(HEAVY);
    const slice = eventLoopSlice(1);
    const started = performance.now();
    assert.throws(() => program.run(null), (e: unknown) => e instanceof JqError && e.kind === "limit" && /time slice/.test(e.message));
    assert.ok(performance.now() - started < 500, "stopped soon after the slice ended");
    assert.equal(slice.close(), true);
    assert.deepEqual(program.run(null), [SUM]);
  });

  test("the full step budget still applies inside a slice", () => {
    const program = compileJq(HEAVY, { limits: { maxSteps: 5000 } });
    const slice = eventLoopSlice(10_000);
    assert.throws(() => program.run(null), (e: unknown) => e instanceof JqError && e.kind === "limit" && /budget of 5000 steps/.test(e.message));
    assert.equal(slice.close(), true);
  });

  test("a regex with backtracking risk on a long input is refused in a slice instead of waiting for its worker", () => {
    const program = compileJq('test("(a+)+$")');
    const input = "a".repeat(5000) + "b";
    const slice = eventLoopSlice(10_000);
    assert.throws(() => program.run(input), (e: unknown) => e instanceof JqError && e.kind === "limit" && /may block/.test(e.message));
    assert.equal(slice.close(), true);
  });

  test("closing twice is harmless and later runs are not in a slice", () => {
    const slice = eventLoopSlice(1);
    slice.close();
    slice.close();
    assert.deepEqual(compileJq(HEAVY).run(null), [SUM]);
  });
});
