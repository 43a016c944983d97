/**
 * jq 1.8.2's security classes (path depth, containment depth, deep equality and comparison, object
 * merge depth, numeric literal length, code points, string search types) with its messages, and the
 * evaluation budget on every operation that walks a structure: a value of 2^36 paths built from shared
 * subtrees in 36 steps stops with the budget error in well under a second of CPU time (issue 31).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileJq, jq, JqError } from "../../src/jq/index.js";

/** The value's only output, or the message of the error it raises (caught by `try`, so not a limit). */
function caught(program: string, input: unknown = null): unknown {
  const out = jq(`try (${program}) catch {error: .}`, input);
  assert.equal(out.length, 1, program);
  return out[0];
}

/** CPU milliseconds (user and system) spent by `f`: wall time is meaningless on a loaded machine. */
function cpuMs(f: () => void): number {
  const before = process.cpuUsage();
  f();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

let plainLoop: number | undefined;
/** CPU milliseconds of a loop of plain interpreter steps that runs until the budget ends it. */
function plainLoopMs(): number {
  plainLoop ??= cpuMs(() => {
    try {
      compileJq("reduce range(1e9) as $x (0; . + 1)").run(null);
    } catch (e) {
      if (!(e instanceof JqError && e.kind === "limit")) throw e;
    }
  });
  return plainLoop;
}

/** A value nested `n` levels deep, built by the program: `[[...[0]...]]` or `{"a":{"a":...}}`. */
const nested = (n: number, shape = "[.]") => `reduce range(${n}) as $_ (0; ${shape})`;

describe("jq 1.8.2's depth limits (10,000), with its messages", () => {
  test("path depth: getpath, setpath, delpaths, paths in path expressions and pick", () => {
    const path = (n: number) => `[range(${n}) | 0]`;
    assert.equal(caught(`getpath(${path(10000)})`), null);
    assert.equal(caught(`setpath(${path(10000)}; 1) | getpath(${path(10000)})`), 1);
    assert.equal(caught(`delpaths([${path(10000)}])`), null);
    for (const program of [
      `getpath(${path(10001)})`,
      `setpath(${path(10001)}; 1)`,
      `delpaths([${path(10001)}])`,
      `path(getpath(${path(10001)}))`,
      `getpath(${path(10001)}) |= 1`,
      `pick(getpath(${path(10001)}))`,
      `setpath([range(10001) | "a"]; 1)`,
    ]) {
      assert.deepEqual(caught(program), { error: "Path too deep" }, program);
    }
  });
  test("containment depth: contains and inside", () => {
    assert.equal(caught(`${nested(10000)} as $x | ${nested(10000)} | contains($x)`), true);
    assert.deepEqual(caught(`${nested(10001)} as $x | ${nested(10001)} | contains($x)`), { error: "Containment check too deep" });
    assert.deepEqual(caught(`${nested(10001)} as $x | [${nested(10001)}] | inside([$x])`), { error: "Containment check too deep" });
  });
  test("deep equality and comparison: ==, !=, index, <, sort, unique, group_by", () => {
    assert.equal(caught(`${nested(10000)} as $x | ${nested(10000)} | . == $x`), true);
    for (const [program, error] of [
      [`${nested(10001)} as $x | ${nested(10001)} | . == $x`, "Equality check too deep"],
      [`${nested(10001, "{a: .}")} as $x | ${nested(10001, "{a: .}")} | . != $x`, "Equality check too deep"],
      [`${nested(10001)} as $x | [${nested(10001)}] | index([$x])`, "Equality check too deep"],
      [`${nested(10001)} as $x | ${nested(10001)} | . < $x`, "Comparison too deep"],
      [`[${nested(10001)}, ${nested(10001)}] | sort`, "Comparison too deep"],
      [`[${nested(10001)}, ${nested(10001)}] | unique`, "Comparison too deep"],
      [`[${nested(10001)}, ${nested(10001)}] | group_by(.)`, "Comparison too deep"],
    ]) {
      assert.deepEqual(caught(program), { error }, program);
    }
  });
  test("object merge depth: *", () => {
    assert.equal(caught(`${nested(10000, "{a: .}")} as $x | ${nested(10000, "{a: .}")} | . * $x | getpath([range(10000) | "a"])`), 0);
    assert.deepEqual(caught(`${nested(10002, "{a: .}")} as $x | ${nested(10002, "{a: .}")} | . * $x`), { error: "Object merge too deep" });
  });
  test("parsing and printing depth: fromjson refuses, tojson abbreviates", () => {
    assert.match((caught(`${nested(10001, "{a: .}")} | tojson | fromjson`) as { error: string }).error, /^Exceeds depth limit for parsing at line 1, column 25001/);
    assert.match(jq(`[${nested(10000)}] | tojson`, null)[0] as string, /<skipped: too deep>/);
  });
});

describe("numeric literals, code points and string searches", () => {
  test("a literal of a million digits is read at once, in the program, in JSON text and by tonumber", () => {
    // jq 1.8.2 refuses literals longer than 999,999,999 digits, which it would otherwise keep whole;
    // Karta keeps no literal (have_literal_numbers is false): any length becomes the nearest double.
    const digits = "1".repeat(1_000_000);
    let out: unknown[] = [];
    const ms = cpuMs(() => {
      out = compileJq(`[${digits}, ("${digits}" | tonumber, fromjson), ("0.${"0".repeat(1_000_000)}1" | tonumber), ("1e${"9".repeat(100_000)}" | fromjson)] | map(tojson)`).run(null);
    });
    assert.deepEqual(out, [["1.7976931348623157e+308", "1.7976931348623157e+308", "1.7976931348623157e+308", "0", "1.7976931348623157e+308"]]);
    assert.ok(ms < 1000, `${ms} ms of CPU`);
  });
  test("implode: code points outside Unicode become U+FFFD, non-numbers are refused", () => {
    assert.equal(caught("[1114112, -1, 55296] | implode"), "\ufffd\ufffd\ufffd");
    assert.deepEqual(caught('["a"] | implode'), { error: 'string ("a") can\'t be imploded, unicode codepoint needs to be numeric' });
  });
  test("_strindices checks both types", () => {
    assert.deepEqual(caught('"abc" | _strindices(1)'), { error: "number (1) is not a string" });
    assert.deepEqual(caught('1 | _strindices("a")'), { error: "number (1) cannot be searched, as it is not a string" });
  });
});

describe("the evaluation budget bounds every structural walk", () => {
  // 2^36 paths, 2^35 leaves: built in 36 steps because both halves are the same value.
  const SHARED = "reduce range(36) as $_ (0; [., .])";
  const SHARED_OBJECT = "reduce range(36) as $_ (0; {a: ., b: .})";
  const programs = [
    `${SHARED} | [paths] | length`,
    `${SHARED} | [paths(type == "number")] | length`,
    `${SHARED} | [leaf_paths] | length`,
    `${SHARED} | [..] | length`,
    `${SHARED} | [tostream] | length`,
    `${SHARED} | fromstream(tostream)`,
    `${SHARED} | [getpath(paths)] | length`,
    `${SHARED} | reduce paths as $p (.; setpath($p; getpath($p)))`,
    `${SHARED} | delpaths([paths])`,
    `${SHARED} | del(.. | numbers)`,
    `${SHARED} | (.. | numbers) |= . + 1`,
    `${SHARED} | pick(..)`,
    `${SHARED} | walk(.)`,
    `${SHARED} | walk(if type == "number" then . + 1 else . end)`,
    `${SHARED} | flatten`,
    `${SHARED} | any(..; . == 1)`,
    `${SHARED} | contains(.)`,
    `${SHARED} as $x | ${SHARED} | contains($x)`,
    `${SHARED} as $x | [${SHARED}] | inside([$x])`,
    `${SHARED} as $x | ${SHARED} | . == $x`,
    `${SHARED} as $x | ${SHARED} | [., $x] | sort`,
    `${SHARED} | [., .] | unique`,
    `${SHARED} | [., .] | group_by(.)`,
    `${SHARED} | [., .] | min`,
    `${SHARED} | tojson`,
    `${SHARED_OBJECT} | . * .`,
    `${SHARED_OBJECT} | [paths] | length`,
    // Slices: assignment copies, and array subtraction compares, element by element.
    "[range(1e7)] | .[5:] = .",
    "[range(1e6)] | reduce range(30) as $_ (.; .[1:] |= . + .)",
    "[range(1e6)] as $a | $a - $a",
    '("a" * 1e7) | indices("a" * 1e5)',
  ];
  for (const program of programs) {
    test(program.replace(SHARED_OBJECT, "SHARED_OBJECT").replace(SHARED, "SHARED").replace(SHARED, "SHARED"), () => {
      let error: unknown;
      const ms = cpuMs(() => {
        try {
          compileJq(program).run(null);
        } catch (e) {
          error = e;
        }
      });
      assert.ok(error instanceof JqError && error.kind === "limit", String(error));
      assert.match(error.message, /budget of 20000000 steps|limit of \d+ (elements|characters)/);
      // Under a second of CPU on an idle machine; on a loaded one (CPU time grows with contention), no
      // slower than twice a plain loop spending the same budget, measured in the same run.
      const allowed = Math.max(1000, 2 * plainLoopMs());
      assert.ok(ms < allowed, `${ms} ms of CPU (allowed ${allowed})`);
    });
  }
  test("slice assignment far past the end of a huge array neither crashes nor allocates the gap", () => {
    assert.deepEqual(jq('null | .[1e9:1e9+1] = ["a"]', null), [["a"]]);
    assert.deepEqual(jq('[1, 2] | .[1e300:] = ["a"], .[-1e9:] = ["a"], .[:-1e9] = ["a"]', null), [
      [1, 2, "a"],
      ["a"],
      ["a", 1, 2],
    ]);
    assert.deepEqual(caught("[range(1e6)] | .[1e6 + 0.5:] = [1] | length"), 1_000_001);
    assert.deepEqual(caught(".[2147483647] = 1"), { error: "Array index too large" });
  });
});

test("tostream over a value 100,000 deep stops at the budget: the paths its levels keep (depth² elements) are charged, not built until the heap is full", () => {
  const t = Date.now();
  assert.throws(() => jq("reduce range(100000) as $i (1; [.]) | [tostream] | length", null), (e: unknown) => e instanceof JqError && /exceeded its budget/.test(e.message));
  assert.ok(Date.now() - t < 10_000, `${Date.now() - t} ms`);
  // A shallower one is still streamed whole.
  assert.deepEqual(jq("reduce range(3000) as $i (1; [.]) | [tostream] | length", null), [3001]);
});
