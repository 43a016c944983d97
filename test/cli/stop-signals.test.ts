/**
 * SIGTERM and SIGINT with a shutdown delay (src/cli/stop-signals.ts), the part `karta serve` and
 * `karta controller` share; the commands' own process tests send real signals.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { onStopSignals } from "../../src/cli/stop-signals.js";

function watch(delayMs: number, canDelay?: () => boolean): { calls: string[]; release: () => void; delaying: () => boolean } {
  const calls: string[] = [];
  const s = onStopSignals({ delayMs, ...(canDelay ? { canDelay } : {}), beginDelay: () => calls.push("delay"), stop: () => calls.push("stop") });
  return { calls, release: () => s.release(), delaying: () => s.delaying };
}

test("without a delay the first signal stops at once", () => {
  const w = watch(0);
  process.emit("SIGTERM");
  assert.deepEqual(w.calls, ["stop"]);
  w.release();
});

test("with a delay the first signal begins it and the stop comes when it is over", async () => {
  const w = watch(40);
  process.emit("SIGTERM");
  assert.deepEqual(w.calls, ["delay"]);
  assert.equal(w.delaying(), true);
  await sleep(120);
  assert.deepEqual(w.calls, ["delay", "stop"]);
  w.release();
});

test("a second signal ends the delay, and its timer stops nothing again", async () => {
  const w = watch(40);
  process.emit("SIGTERM");
  process.emit("SIGINT");
  assert.deepEqual(w.calls, ["delay", "stop"]);
  await sleep(120);
  assert.deepEqual(w.calls, ["delay", "stop"]);
  w.release();
});

test("a command that is not ready stops at once, delay or not", () => {
  const w = watch(1000, () => false);
  process.emit("SIGINT");
  assert.deepEqual(w.calls, ["stop"]);
  w.release();
});

test("after release neither a signal nor the delay's timer reaches the command", async () => {
  const w = watch(40);
  process.emit("SIGTERM");
  w.release();
  await sleep(120);
  process.emit("SIGTERM");
  assert.deepEqual(w.calls, ["delay"]);
});
