/**
 * Classes of difference found by running programs through both Karta and jq 1.8.2 (differential fuzzing;
 * docs/jq.md, item 13). Expected values are what jq 1.8.2 printed for the same programs.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileJq } from "../../src/jq/index.js";
import { toJson } from "../../src/jq/native/json.js";

/** The outputs of `program` (with null input) as the compact JSON texts `jq -c` prints. */
function outputs(program: string, input: unknown = null): string {
  return compileJq(program)
    .run(input)
    .map((v) => toJson(v))
    .join(" ");
}

describe("sorting with nan: jq's qsort (glibc's merge sort) decides where nan lands", () => {
  test("sort, sort_by, group_by, unique_by keep jq's order when keys are nan", () => {
    assert.equal(outputs("[1,2,3] | group_by(nan)"), "[[1],[2],[3]]");
    assert.equal(outputs("[nan,1,nan,2,nan] | sort"), "[null,null,null,1,2]");
    assert.equal(outputs('[{"a":nan,"i":0},{"a":1,"i":1},{"a":nan,"i":2}] | sort_by(.a) | map(.i)'), "[0,2,1]");
    assert.equal(outputs("[[nan,0],[1,1],[nan,2],[nan,3]] | unique_by(.[0]) | map(.[1])"), "[0,2,3,1]");
  });
});

describe("bsearch probes the elements jq's f_bsearch probes", () => {
  test("unsorted input, nan and targets between elements", () => {
    assert.equal(outputs('[3,1,null,"a",[0],{"b":1},false,true,2] | bsearch(-infinite)'), "-4");
    assert.equal(outputs("[1,2,3,4] | bsearch(nan)"), "-1");
    assert.equal(outputs("[1,2,3,4,5,6] | bsearch(0,3.5,7)"), "-1 -4 -7");
    assert.equal(outputs("[5,4,3,2,1] | bsearch(4)"), "-6");
  });
});

describe("fromstream takes an event's length before its path, as its jq definition", () => {
  test("an event without a length fails on its length", () => {
    assert.equal(outputs("try fromstream(false) catch ."), '"boolean (false) has no length"');
    assert.equal(outputs('try fromstream({"a":1,"b":2}) catch .'), '"Cannot index object with number (0)"');
  });
});

describe("setpath on null with a slice missing start or end", () => {
  test("fails as jq's parse_slice does", () => {
    for (const p of ['[{"start":1}]; [9]', "[{}]; 1", '[{"end":1}]; 1']) {
      assert.equal(outputs(`try (null | setpath(${p})) catch .`), '"Array/string slice indices must be integers"', p);
    }
  });
});

describe("compile errors: a closure's errors are reported only when the code around it has none (jq compiles closures level by level)", () => {
  /** The "... is not defined" reasons of a program's compile errors, in order. */
  const undefinedNames = (program: string): string[] => {
    try {
      compileJq(program);
    } catch (e) {
      const err = e as { message: string; more?: { reason: string }[] };
      return [err.message, ...(err.more ?? []).map((m) => m.reason)].map((m) => m.replace(/ at <top-level>[\s\S]*$/, ""));
    }
    return [];
  };
  test("arguments of functions written in jq, and definitions, are closures; arguments of C builtins are not", () => {
    assert.deepEqual(undefinedNames("path(a), b"), ["b/0 is not defined"]);
    assert.deepEqual(undefinedNames("with_entries(a), b"), ["b/0 is not defined"]);
    assert.deepEqual(undefinedNames("error(a), b"), ["b/0 is not defined"]);
    assert.deepEqual(undefinedNames("a += b"), ["b/0 is not defined"]);
    assert.deepEqual(undefinedNames("a |= b, c"), ["c/0 is not defined"]);
    assert.deepEqual(undefinedNames("$x, path(a)"), ["$x is not defined"]);
    assert.deepEqual(undefinedNames("select(a) | select(b)"), ["a/0 is not defined", "b/0 is not defined"]);
    assert.deepEqual(undefinedNames("def f(x): y; f(a)"), ["y/0 is not defined", "a/0 is not defined"]);
    assert.deepEqual(undefinedNames("has(a), b"), ["a/0 is not defined", "b/0 is not defined"]);
    assert.deepEqual(undefinedNames("pow(a; b), c"), ["a/0 is not defined", "b/0 is not defined", "c/0 is not defined"]);
    assert.deepEqual(undefinedNames("def has(x): x; has(a), b"), ["b/0 is not defined"]);
  });
});

describe("no slice after `Term.`: jq 1.8.2's grammar has `Term.[e]` and `Term.[]` only", () => {
  const reason = (program: string): string => {
    try {
      compileJq(program);
    } catch (e) {
      return (e as Error).message.split(" at <top-level>")[0]!;
    }
    return "compiled";
  };
  test("`.[0].[1:]`, `.a.[:2]`, `$x.[1:2]` are syntax errors; `.a.[0]`, `.a.[]` and `.[0][1:]` are not", () => {
    assert.equal(reason(".[0].[1:]"), "syntax error, unexpected ':', expecting '|' or ',' or ']'");
    assert.equal(reason(".[0].[1:2]"), "syntax error, unexpected ':', expecting '|' or ',' or ']'");
    assert.equal(reason(".a.[:2]"), "syntax error, unexpected ':'");
    assert.equal(reason("$__loc__.[1:]"), "syntax error, unexpected ':', expecting '|' or ',' or ']'");
    assert.equal(outputs('{"a":[1,2,3]} | [.a.[0], .a.[], .a[1:]]'), "[1,1,2,3,[2,3]]");
  });
});

describe("path mode goes on inside [...] (jq collects an array without leaving path tracking)", () => {
  test("accessing a value that is not at the current path inside [...] fails as jq's path checks do", () => {
    const message = (program: string): string => outputs(`try (${program}) catch .`);
    assert.equal(message("path([1 | .a])"), '"Invalid path expression near attempt to access element \\"a\\" of 1"');
    assert.equal(message("path([{} | .a])"), '"Invalid path expression near attempt to access element \\"a\\" of {}"');
    assert.equal(message('path(JOIN("b"; 3; []; .))'), '"Invalid path expression near attempt to access element [] of \\"b\\""');
    assert.equal(message("path([.a])"), '"Invalid path expression with result [null]"');
    assert.equal(outputs('{"a":[1,2]} | [paths([.[]?] | length > 1)]'), '[["a"]]');
  });
});

describe("reduce/foreach in a path expression: a constant init moves no path, so the source reads the input's", () => {
  test("the source's errors and results are jq 1.8.2's", () => {
    assert.equal(outputs("try path(reduce .[] as $x ({}; .)) catch ."), '"Cannot iterate over null (null)"');
    assert.equal(outputs("try path(foreach .[] as $x ({}; .)) catch ."), '"Cannot iterate over null (null)"');
    assert.equal(outputs('try path(INDEX({"a":1})) catch .'), '"Cannot iterate over null (null)"');
    assert.equal(outputs("[1,2] | try path(reduce .[] as $x ({}; .)) catch ."), '"Invalid path expression with result {}"');
    // An init that moves the path leaves it moved: the source's input is then no path.
    assert.equal(outputs('{"a":[1,2]} | try path(reduce .[] as $x (.a; .[0])) catch .'), '"Invalid path expression near attempt to iterate through {\\"a\\":[1,2]}"');
  });
});

describe("break is jq's error {\"__jq\": N}: a try between a break and its label catches it", () => {
  test("try, ? and ?// catch a break; the label ends on its own error, re-raised or not", () => {
    assert.equal(outputs("label $x | (label $y | try break $y catch .), .", 10), '{"__jq":1} 10');
    assert.equal(outputs("[label $f | ((break $f)?, 5)]"), "[5]");
    assert.equal(outputs("[label $out | .[] | (if . == 2 then break $out else . end)?]", [1, 2, 3]), "[1,3]");
    assert.equal(outputs("[label $f | .[] | try (if . > 1 then break $f else . end) catch .]", [1, 2, 3]), '[1,{"__jq":0},{"__jq":0}]');
    assert.equal(outputs("[label $f | [[1],2] | .[] as [$a] ?// $a | if $a == 1 then break $f else $a end]"), "[[1],2]");
    assert.equal(outputs('[label $f | error({"__jq":0}), 3]'), "[]");
    assert.equal(outputs("[label $f | try (try break $f catch error) catch error, 9]"), "[]");
    assert.equal(outputs("[label $a | try (label $b | 1, break $a, 2) catch ., 3]"), '[1,{"__jq":0},3]');
  });
  test("a break out of a |= update ends the assignment, not the path", () => {
    assert.equal(outputs("[label $f | [1,2] | .[] |= (if . == 2 then break $f else . end)]"), "[]");
  });
  test("labels are numbered as jq numbers them: its builtins that use a label count theirs", () => {
    const builtins = '[first(1,2), limit(1; 3), isempty(empty), any(.[]; .), ({"a":1} | map_values(.)), ({"a":{"b":1}} | walk(.))]';
    assert.equal(outputs(`${builtins} | label $f | try break $f catch .`, [1, 2, 3]), '{"__jq":7}');
  });
});

describe("a slice of the whole array is the array, as jq's slice shares it", () => {
  test("path() through a variable holding a whole-array slice keeps the path (jq 1.8.2 printed these)", () => {
    assert.equal(outputs(".[0:] as $x | path($x[0])", [0, 1]), "[0]");
    assert.equal(outputs(".[:5] as $x | path($x[1])", [0, 1]), "[1]");
    assert.throws(() => outputs(".[:1] as $x | path($x[0])", [0, 1]), /Invalid path expression near attempt to access element 0 of \[0\]/);
    assert.equal(outputs("[.[0:], .] | .[0][0] = 7", [0, 1]), "[[7,1],[0,1]]");
  });
});
