/** Bad programs and bad inputs get clear errors and leave the process healthy. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileJq, jq, JqError, JqSyntaxError } from "../../src/jq/index.js";

function limitError(f: () => unknown, pattern: RegExp): void {
  assert.throws(f, (e: unknown) => e instanceof JqError && e.kind === "limit" && pattern.test(e.message));
}

/** What `karta jq` prints for a program that does not compile (empty when it compiles). */
function described(program: string): string {
  try {
    compileJq(program);
  } catch (e) {
    if (e instanceof JqSyntaxError) return e.describe();
  }
  return "";
}

describe("compile errors carry the position", () => {
  test("syntax error with a caret under the offending token", () => {
    const program = '.spec.jobs[] | select(.name == "a"]';
    assert.throws(
      () => compileJq(program),
      (e: unknown) =>
        e instanceof JqSyntaxError &&
        // The ']' closes no bracket that is open: jq's scanner calls it an invalid character.
        e.message === "syntax error, unexpected INVALID_CHARACTER, expecting ';' or ')'" &&
        e.line === 1 &&
        e.column === 35 &&
        e.describe() ===
          `jq: error: syntax error, unexpected INVALID_CHARACTER, expecting ';' or ')' at <top-level>, line 1, column 35:\n    ${program}\n${" ".repeat(38)}^`,
    );
  });
  test("after `. name` the error is on the token that follows the name, as jq's rule '.' IDENT error (jq 1.8.2 printed these)", () => {
    assert.equal(
      described(". a | 1"),
      'jq: error: syntax error, unexpected \'|\' at <top-level>, line 1, column 5:\n    . a | 1\n        ^\njq: error: try .["field"] instead of .field for unusually named fields at <top-level>, line 1, column 1:\n    . a | 1\n    ^^^^^',
    );
    assert.match(described(". a"), /^jq: error: syntax error, unexpected end of file at <top-level>, line 1, column 3:/);
    assert.match(described(". a.b"), /^jq: error: syntax error, unexpected FIELD at <top-level>, line 1, column 4:/);
  });
  test("an invalid character is jq's one-byte token: one caret, and a recovery span skips all its bytes (jq 1.8.2 printed these)", () => {
    assert.equal(described("foo☆"), "jq: error: syntax error, unexpected INVALID_CHARACTER, expecting end of file at <top-level>, line 1, column 4:\n    foo☆\n       ^");
    assert.equal(
      described(".“a”"),
      'jq: error: syntax error, unexpected INVALID_CHARACTER at <top-level>, line 1, column 2:\n    .“a”\n     ^\njq: error: try .["field"] instead of .field for unusually named fields at <top-level>, line 1, column 1:\n    .“a”\n    ^^',
    );
    assert.match(described("{☆: 1}"), /May need parentheses around object key expression at <top-level>, line 1, column 2:\n {4}\{☆: 1\}\n {5}\^\^\^$/);
  });
  test("position on a later line", () => {
    // As jq: an unexpected end of file is reported at the last thing read (the `[`).
    assert.throws(() => compileJq(".a |\n  .b |\n  .c["), (e: unknown) => e instanceof JqSyntaxError && e.line === 3 && e.column === 5);
  });
  test("unknown function, wrong arity, unknown variable", () => {
    assert.throws(() => compileJq("podSelector(.metadata)"), /podSelector\/1 is not defined/);
    assert.throws(() => compileJq(".spec | map"), /map\/0 is not defined/);
    assert.throws(() => compileJq(".spec[$index]"), /\$index is not defined/);
  });
  test("a program nested 10,000 levels deep is refused, not a stack overflow", () => {
    assert.throws(() => compileJq("[".repeat(10000) + "]".repeat(10000)), (e: unknown) => e instanceof JqSyntaxError && /nested more than/.test(e.message));
    assert.throws(() => compileJq("(".repeat(10000) + "." + ")".repeat(10000)), JqSyntaxError);
  });
});

describe("runaway programs stop with a budget error", () => {
  test("infinite recursion hits the depth limit, or the step budget when it is a tail call", () => {
    limitError(() => jq("def f: 1 + f; f", null), /recursion depth limit of 1000/);
    limitError(() => compileJq("def f: f; f", { limits: { maxSteps: 100_000 } }).run(null), /budget of 100000 steps/);
  });
  test("endless generators hit the step or size budget", () => {
    limitError(() => compileJq("last(repeat(1))", { limits: { maxSteps: 100_000 } }).run(null), /budget of 100000 steps/);
    // Each collected element is charged: the step budget ends this before the array size limit does.
    limitError(() => jq("[range(1e9)] | length", null), /budget of \d+ steps|limit of \d+ elements/);
    limitError(() => jq('[range(40)] | reduce .[] as $x (["pod"]; . + .) | length', null), /budget of \d+ steps|limit of \d+ elements/);
    assert.throws(() => jq('"x" * 1e10', null), /Repeat string result too long/);
  });
  test("a budget error cannot be caught by try", () => {
    limitError(() => jq('try (def f: 1 + f; f) catch "swallowed"', null), /recursion depth/);
    limitError(() => compileJq('try (def f: f; f) catch "swallowed"', { limits: { maxSteps: 100_000 } }).run(null), /budget of 100000 steps/);
  });
  test("output count is bounded", () => {
    limitError(() => compileJq("range(100)", { limits: { maxOutputs: 10 } }).run(null), /budget of 10 outputs/);
  });
  test("the engine keeps working after a failure", () => {
    assert.throws(() => jq("def f: f; f", null));
    assert.deepEqual(jq(".a + 1", { a: 1 }), [2]);
  });
});

describe("hostile inputs", () => {
  test("10,000 nested arrays: clear error or result, never a crash", () => {
    let v: unknown = [];
    for (let i = 0; i < 10000; i++) v = [v];
    assert.deepEqual(jq(".[0][0][0] | length", v), [1]);
    // Walked from work lists, as jq does; the paths are 50 million keys long in all: the budget stops them.
    assert.deepEqual(jq("[..] | length", v), [10001]);
    assert.deepEqual(jq("[limit(100; paths)] | length", v), [100]);
    limitError(() => jq("[paths] | length", v), /budget of 20000000 steps/);
    // Printing stops at jq 1.8.2's depth limit (10,000) instead of recursing.
    assert.doesNotMatch(jq("tojson", v)[0] as string, /<skipped: too deep>/);
    assert.match(jq("[.] | tojson", v)[0] as string, /<skipped: too deep>/);
  });
  test("walk follows the value as deep as it goes", () => {
    assert.deepEqual(jq('reduce range(3000) as $i (1; [.]) | walk(if type == "number" then . + 1 else . end) | getpath([range(3000) | 0])', null), [2]);
    assert.deepEqual(jq("walk(if type == \"object\" then del(.status) else . end)", { metadata: { name: "a" }, status: { phase: "Running" } }), [{ metadata: { name: "a" } }]);
    assert.deepEqual(jq("[walk(numbers // (., .))]", [1, "a"]), [[[1, "a", "a"], [1, "a", "a"]]]);
  });
  test("huge numbers print as jq prints them", () => {
    assert.deepEqual(jq("[1e1000, -1e1000] | tojson", null), ["[1.7976931348623157e+308,-1.7976931348623157e+308]"]);
    assert.deepEqual(jq(". + 1 | tostring", 2 ** 53), ["9007199254740992"]);
  });
  test("invalid UTF-8 decoded as replacement characters is an ordinary string", () => {
    const s = Buffer.from([0x61, 0xff, 0xfe, 0x62]).toString("utf8");
    assert.deepEqual(jq("length, utf8bytelength, explode", s), [4, 8, [97, 65533, 65533, 98]]);
  });
  test("fromjson on malformed text is a catchable error", () => {
    assert.deepEqual(jq('try fromjson catch "bad"', '{"a":'), ["bad"]);
  });
});

describe("the safe profile rejects what the reference validator rejects", () => {
  // The reference validator's words (upstream Karta's pkg/jq/validation.go).
  const rejected: [string, string][] = [
    [".spec.replicas = 3", "modifying operator '=' is not allowed"],
    [".spec.replicas |= . + 1", "modifying operator '|=' is not allowed"],
    [".spec.replicas += 1", "modifying operator '+=' is not allowed"],
    ["del(.status)", "del function is not allowed"],
    ["[..] | length", "recursive descent operator '..' is not allowed"],
    ["[range(3)]", "function 'range' may produce excessive output and is not allowed"],
    ["[paths]", "function 'paths' may produce excessive output and is not allowed"],
    ["[recurse(.children[]?)]", "function 'recurse' may produce excessive output and is not allowed"],
    ["walk(.)", "function 'walk' may produce excessive output and is not allowed"],
    ["first(repeat(.))", "function 'repeat' may produce excessive output and is not allowed"],
    ["def f: .spec | del(.x); f", "del function is not allowed"],
  ];
  for (const [program, reason] of rejected) {
    test(program, () => {
      assert.throws(() => compileJq(program, { safe: true }), {
        message: `JQ expression '${program}' failed validation: ${reason}`,
      });
    });
  }
  test("the error points at the refused construct", () => {
    assert.throws(() => compileJq('.spec | .metadata.labels["x"] = "y"', { safe: true }), (e: unknown) => e instanceof JqSyntaxError && e.column === 9);
  });
  test("read-only expressions pass", () => {
    for (const p of ['.metadata.labels["app"] // "x"', ".spec.jobs | to_entries[] | .key", "any(.a[]; . > 0)", "def f: .a; f"]) {
      assert.doesNotThrow(() => compileJq(p, { safe: true }), p);
    }
  });
});
