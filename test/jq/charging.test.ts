/**
 * Work done inside builtins is charged to the step budget and the size limits: a value with shared
 * structure (2^40 leaves in 40 levels, built in 40 steps) cannot make a builtin run for minutes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { compileJq, JqError } from "../../src/jq/index.js";

const BOMB = "def f(n): if n == 0 then [1] else f(n-1) as $x | [$x,$x] end;";
const limits = { maxSteps: 200_000 };

/** Runs `program` after the bomb's definition; returns the limit error's message. */
function limitOf(program: string): string {
  try {
    compileJq(`${BOMB} ${program}`, { limits }).run(null);
  } catch (e) {
    assert.ok(e instanceof JqError, String(e));
    assert.equal(e.kind, "limit", e.message);
    return e.message;
  }
  assert.fail(`${program}: expected the budget to run out`);
}

const WALKERS = [
  "f(40) | tostring",
  "f(40) | tojson",
  "f(40) | @text",
  "f(40) | @json",
  "f(40) | @base64",
  "f(40) | @html",
  'f(40) | "\\(.)"',
  "f(40) as $a | f(40) | . == $a",
  "f(40) as $a | [1, f(40)] | . == [1, $a]",
  "f(40) as $a | [1, f(40)] | . != [1, $a]",
  "f(40) | contains(f(40))",
  "f(40) | inside(f(40))",
  "[f(30), f(30)] | sort",
  "[f(30), f(30)] | unique",
  "[f(30), f(30)] | min",
  "[f(30), f(30)] | max",
  "[f(30), f(30)] | group_by(.)",
  "[f(30), f(30)] | index([f(30)])",
  "f(40) | [tostream] | length",
  "f(40) | [leaf_paths] | length",
  "f(40) | [paths] | length",
  "f(40) | flatten | length",
  "f(40) | [..] | length",
  "f(40) | walk(.)",
  'f(40) | tostring | [splits("1")] | length',
];

for (const program of WALKERS) {
  test(`budget: ${program}`, () => {
    assert.match(limitOf(program), /budget of 200000 steps|limit of \d+ (characters|elements)/);
  });
}

test("an error value too large to show is not walked whole", () => {
  try {
    compileJq(`${BOMB} f(40) | error`, { limits }).run(null);
    assert.fail("expected an error");
  } catch (e) {
    assert.ok(e instanceof JqError);
    assert.equal(e.kind, "error");
    assert.ok(e.message.length < 200_000);
  }
  assert.deepEqual(compileJq(`${BOMB} try (f(40) | error) catch length`, { limits }).run(null), [2]);
});

test("ordinary values still print and compare as before", () => {
  assert.deepEqual(compileJq(`${BOMB} f(3) | tostring`).run(null), ["[[[[1],[1]],[[1],[1]]],[[[1],[1]],[[1],[1]]]]"]);
  assert.deepEqual(compileJq(`${BOMB} [f(3), f(2)] | sort | .[0] == f(2)`).run(null), [true]);
});

/** Runs `program` with the default budget; returns the limit error's message. */
function defaultLimitOf(program: string): string {
  try {
    compileJq(program).run(null);
  } catch (e) {
    assert.ok(e instanceof JqError, String(e));
    assert.equal(e.kind, "limit", e.message);
    return e.message;
  }
  assert.fail(`${program}: expected a limit`);
}

test("text built in few steps is charged: the default budget bounds the memory of strings made in a loop", () => {
  // Each of these held gigabytes (and ended the process out of memory) before strings were charged.
  for (const program of [
    '[range(80) | ("x" * 60000000 + "\\(.)" | tojson)] | length',
    '[("x" * 60000000) as $s | range(80) | $s + tostring | tojson] | length',
    '[range(200) | ("x" * 1000000 | @base64 | @base64 | @base64 | ascii_downcase)] | length',
    '("x" * 40000000) as $s | [range(100) | $s | @base64 | length] | length',
    '("x" * 40000000) as $s | [range(100) | "\\($s)." | length] | length',
  ]) {
    assert.match(defaultLimitOf(program), /exceeded its budget of 20000000 steps/, program);
  }
  // Ordinary text stays cheap: a megabyte made and encoded a hundred times.
  assert.deepEqual(compileJq('[range(100) | ("x" * 1000000 | @base64)] | length').run(null), [100]);
});

test("split and fromjson hit the element limit of every array", () => {
  for (const program of ['"x" * 20000000 | split("") | length', '"a," * 20000000 | split(",") | length', '"[" + ("1," * 20000000) + "1]" | fromjson | length']) {
    assert.match(defaultLimitOf(program), /exceeded the limit of 16777216 elements for an array/, program);
  }
});
