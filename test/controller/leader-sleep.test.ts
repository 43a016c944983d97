/** The leader elector's wait between attempts leaves no listener on its stop signal (a standby waits every retry period). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { sleep } from "../../src/controller/leader.js";

test("leader election: waiting out the retry period leaves no abort listener behind; an abort ends the wait", async () => {
  const stop = new AbortController();
  for (let i = 0; i < 20; i++) await sleep(1, stop.signal);
  assert.equal(getEventListeners(stop.signal, "abort").length, 0);
  const started = Date.now();
  const waiting = sleep(60_000, stop.signal);
  stop.abort();
  await waiting;
  assert.ok(Date.now() - started < 1000);
});
