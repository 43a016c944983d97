/**
 * Regular expressions are bounded: patterns that can backtrack without bound run in the regex worker
 * under a deadline (and charge the step budget for the time they take); the others run in the calling
 * thread, on inputs short enough for their worst case. Results are the same either way.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { compileJq, JqError } from "../../src/jq/index.js";
import { backtrackRisk, patternRisk, REGEX_TIMEOUT_MS } from "../../src/jq/native/regex.js";

function limitMessage(program: string, input: unknown, limits?: { maxSteps: number }): string {
  try {
    compileJq(program, { limits }).run(input);
  } catch (e) {
    assert.ok(e instanceof JqError, String(e));
    assert.equal(e.kind, "limit", e.message);
    return e.message;
  }
  assert.fail("expected a limit error");
}

test("a catastrophic pattern fails at the deadline with our message, and the next call works", () => {
  const message = limitMessage('test("(a+)+$")', "a".repeat(36) + "!");
  assert.equal(message, `regular expression "(a+)+$" ran past its limit of ${REGEX_TIMEOUT_MS} ms (it backtracks too much on this input)`);
  // `try` cannot catch it: the run ends.
  limitMessage('try test("(a+)+$") catch "caught"', "a".repeat(36) + "!");
  assert.deepEqual(compileJq('test("(a+)+$")').run("aaa"), [true]);
  assert.deepEqual(compileJq('[match("(a)(b)?"; "g") | .captures | map(.string)]').run("xaab"), [[["a", null], ["a", "b"]]]);
});

test("the patterns are sorted by their worst case", () => {
  const cases: [string, string][] = [
    ["gpu", "linear"],
    ["\\bfoo\\b", "linear"],
    ["^\\d{1,3}$", "linear"],
    ["x(a|b)", "linear"],
    ["^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "quadratic"],
    ["a.*b", "quadratic"],
    ["(ab)+", "quadratic"],
    ["(a+)+$", "unbounded"],
    ["(a|aa)*c", "unbounded"],
    ["a*a*b", "unbounded"],
    ["(a)\\1", "unbounded"],
    ["(?>a+)b", "unbounded"],
  ];
  for (const [p, want] of cases) assert.equal(patternRisk(p), want, p);
  assert.equal(backtrackRisk("[(+*)]+"), "quadratic");
});

test("time spent in the worker is charged to the step budget", () => {
  // Each call takes at least a thread round trip (tens of microseconds): a few thousand calls pass 100,000 steps.
  const message = limitMessage('[range(40000) | "ab" | test("(?:a|b)*c")] | length', null, { maxSteps: 100_000 });
  assert.match(message, /budget of 100000 steps/);
});

test("property: a pattern run in the worker matches as its in-thread equivalent does", () => {
  const pairs: [string, string][] = [
    ["(?:a|b)+", "[ab]+"],
    ["(?:a|b)*c", "[ab]*c"],
    ["x(?:y|z)*", "x[yz]*"],
  ];
  for (const [worker, inline] of pairs) {
    assert.equal(patternRisk(worker), "unbounded");
    assert.notEqual(patternRisk(inline), "unbounded");
  }
  const matches = (p: string) => compileJq(`[match(${JSON.stringify(p)}; "g") | [.offset, .length, .string]]`);
  const compiled = pairs.map(([w, i]) => [matches(w), matches(i)] as const);
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom("a", "b", "c", "x", "y", "z", "é", "😀"), maxLength: 30 }), (s) => {
      for (const [w, i] of compiled) assert.deepEqual(w.run(s), i.run(s));
    }),
    { numRuns: 150 },
  );
});

test("long inputs move a quadratic pattern to the worker; results are the same", () => {
  const long = "a".repeat(10_000) + "b";
  assert.deepEqual(compileJq('[match("a*b") | .length]').run(long), [[10_001]]);
  assert.deepEqual(compileJq('test("^a+$")').run(long), [false]);
});
