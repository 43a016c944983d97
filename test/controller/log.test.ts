/** The controller logs through the project's pino logger: JSON lines with level, time, component, fields and msg. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { jsonLogger } from "../../src/controller/log.js";

test("karta controller's logger: one JSON line per call, pino's fields, errors as their message, debug only when verbose", () => {
  const lines: string[] = [];
  const log = jsonLogger((l) => void lines.push(l), false);
  log("info", "watching", { karta: "k", err: new Error("boom") });
  log("debug", "hidden");
  log("error", "reconcile failed", { key: "a|b|c" });
  assert.equal(lines.length, 2);
  const [info, error] = lines.map((l) => {
    assert.ok(l.endsWith("\n") && !l.slice(0, -1).includes("\n"), `one line: ${l}`);
    return JSON.parse(l) as Record<string, unknown>;
  });
  assert.equal(info!["msg"], "watching");
  assert.equal(info!["level"], 30);
  assert.equal(info!["component"], "karta-controller");
  assert.equal(info!["karta"], "k");
  assert.equal(info!["err"], "boom");
  assert.ok(!Number.isNaN(Date.parse(String(info!["time"]))));
  assert.equal(error!["level"], 50);
  const verbose: string[] = [];
  jsonLogger((l) => void verbose.push(l), true)("debug", "shown");
  assert.equal(JSON.parse(verbose[0]!)["msg"], "shown");
});
