/**
 * The columns and ages `karta get` and `karta describe` print, against kubectl's own code: Go's
 * text/tabwriter configured as kubectl's printers (min width 6, padding 3) and `kubectl describe` (0, 2),
 * and apimachinery's duration.HumanDuration, answered by tools/kubeprint (built by scripts/go-tool).
 * Trailing blanks, which tabwriter leaves after an empty last cell, are dropped by Karta as by kli.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { age, alignColumns, humanDuration } from "../../src/cli/table.js";
import { kubeprint, kubeprintSkip as skip } from "../support/kubeprint.js";

/** kubeprint's text for each case. */
const oracle = async (cases: object[]): Promise<string[]> => (await kubeprint(cases)).map((a) => a.text ?? "");

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

test("humanDuration is apimachinery's HumanDuration (boundaries and random durations)", { skip }, async () => {
  const boundaries = [-2001, -1999, -1000, -1, 0, 999, 1000, 119_999, 120_000, 125_000, 10 * MINUTE - 1, 10 * MINUTE, 3 * HOUR - 1, 3 * HOUR, 3 * HOUR + 5 * MINUTE, 8 * HOUR - 1, 8 * HOUR, 48 * HOUR - 1, 48 * HOUR, 50 * HOUR, 8 * DAY - 1, 8 * DAY, 730 * DAY - 1, 730 * DAY, 731 * DAY, 8 * 365 * DAY - 1, 8 * 365 * DAY, 40 * 365 * DAY];
  const random = fc.sample(fc.oneof(fc.integer({ min: -5000, max: 10 * MINUTE }), fc.integer({ min: 0, max: 10 * DAY }), fc.integer({ min: 0, max: 20 * 365 * DAY })), { numRuns: 3000, seed: 29 });
  const all = [...boundaries, ...random];
  const want = await oracle(all.map((ms) => ({ age: ms })));
  all.forEach((ms, i) => assert.equal(humanDuration(ms), want[i], `${ms} ms`));
  assert.equal(age(undefined), "<unknown>");
  assert.equal(age("2026-12-01T00:00:00Z", Date.parse("2026-12-01T00:05:00Z")), "5m");
});

test("alignColumns is Go's text/tabwriter as kubectl configures it", { skip }, async () => {
  const cell = fc.oneof(fc.constant(""), fc.stringMatching(/^[a-z0-9./:,()-]{1,14}$/), fc.constantFrom("|-- pod-0", "`-- é", "gpu: 8", "<none>", "9/9 ready"));
  const table = fc.integer({ min: 1, max: 6 }).chain((cols) => fc.array(fc.array(cell, { minLength: cols, maxLength: cols }), { minLength: 1, maxLength: 8 }));
  const layouts = [
    { minwidth: 6, padding: 3 },
    { minwidth: 0, padding: 2 },
  ];
  const cases = fc.sample(fc.tuple(table, fc.constantFrom(...layouts)), { numRuns: 1500, seed: 29 }).map(([rows, l]) => ({ rows, ...l }));
  const want = await oracle(cases);
  cases.forEach((c, i) => {
    const go = want[i]!.split("\n").slice(0, -1).map((l) => l.trimEnd());
    assert.deepEqual(alignColumns(c.rows, { minWidth: c.minwidth, padding: c.padding }), go, JSON.stringify(c));
  });
});
