/**
 * jq 1.7.1 semantics beyond jq's own test files (issue 12), one suite per class. Expected values come
 * from jq 1.7.1's manual and source (src/builtin.c, src/builtin.jq, src/parser.y, src/execute.c).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileJq, JqError } from "../../src/jq/index.js";
import { toJson } from "../../src/jq/native/json.js";

/** The outputs of `program` on `input` as compact JSON texts (what `jq -c` prints). */
function outputs(program: string, input: unknown = null, limits?: Parameters<typeof compileJq>[1]): string[] {
  return compileJq(program, limits).run(input).map((v) => toJson(v));
}
/** The message of the error `program` raises on `input`. */
function failure(program: string, input: unknown = null): string {
  try {
    compileJq(program).run(input);
  } catch (e) {
    if (e instanceof JqError) return e.message;
    throw e;
  }
  assert.fail(`${program} did not fail`);
}
const one = (program: string, input: unknown = null): string => {
  const out = outputs(program, input);
  assert.equal(out.length, 1, `${program}: ${out.length} outputs`);
  return out[0]!;
};

describe("class 1: the order of outputs of multi-argument builtins", () => {
  test("C builtins loop over their last argument outermost", () => {
    assert.equal(one("[fdim(0.25,0.625; 0.125,0.375)]"), "[0.125,0.5,0,0.25]");
    assert.equal(one("[pow(2,3; 1,2)]"), "[2,3,4,9]");
    assert.equal(one("[fma(1,2; 10; 0,100)]"), "[10,20,110,120]");
    assert.equal(one("[[1,2,3] | setpath(-2,0,2|[.]; 4,5)]"), "[[1,4,3],[4,2,3],[1,2,4],[1,5,3],[5,2,3],[1,2,5]]");
    // test(re; mode) is _match_impl(re; mode; true): mode outer, re fastest.
    assert.equal(one('[("ab","cd") | test("a","c"; "x","")]'), "[true,false,true,false,false,true,false,true]");
  });
  test("jq-defined builtins bind their $ parameters first argument outermost", () => {
    assert.equal(one("[range(0,1; 3,4)]"), "[0,1,2,0,1,2,3,1,2,1,2,3]");
    // range($init; $upto; $by): init outermost, by fastest.
    assert.equal(one("[range(0,10; 3,13; 1,2)]"), "[0,1,2,0,2,0,1,2,3,4,5,6,7,8,9,10,11,12,0,2,4,6,8,10,12,10,11,12,10,12]");
    assert.equal(one("[limit(1,2; 5,6,7)]"), "[5,5,6]");
    assert.equal(one('["a-b","c"] | [.[] | sub("-"; "+"; "g", "")]'), '["a+b","a+b","c","c"]');
  });
  test("binary operators loop over their right operand outermost", () => {
    assert.equal(one("[(1,2) + (10,20)]"), "[11,12,21,22]");
  });
});

describe("class 2: postfix ? covers the term it follows", () => {
  test("after an access it covers that access only", () => {
    assert.equal(one("[.[].name?]", [1, { name: 2 }, 3, { name: 4 }]), "[2,4]");
    assert.match(failure(".foo.bar.baz?", { foo: 128 }), /Cannot index number/);
    assert.equal(one("[.a[]?]", { a: 3 }), "[]");
    assert.match(failure("[.a.b[]?]", { a: 3 }), /Cannot index number/);
    assert.equal(one("[.[1:]?]", 3), "[]");
    assert.equal(one('[."a"?]', [1]), "[]");
    assert.equal(one("[.[0]?]", { a: 1 }), "[]");
  });
  test("the key expression still raises", () => {
    assert.match(failure('[.[error("k")]?]', {}), /k/);
  });
  test("after any other term it covers the whole term", () => {
    assert.equal(one("[(.a.b)?]", { a: 3 }), "[]");
    assert.equal(one('[error("x")?]'), "[]");
    assert.equal(one("[.a?.b?]", { a: 3 }), "[]");
    assert.equal(one("[(.[] | .a)?]", [{ a: 1 }, 2, { a: 3 }]), "[1]");
  });
  test("in path expressions", () => {
    assert.equal(one("[path(.[].a?)]", [1, { a: 2 }]), '[[1,"a"]]');
    assert.equal(one("[path(.a[]?)]", { a: 1 }), "[]");
    assert.equal(one(".[].a? |= 5", [1, { a: 2 }]), '[1,{"a":5}]');
    assert.match(failure("path(1 | .a?)", null), /Invalid path expression/);
  });
});

describe("class 3: updates are linear and never change a value the program still holds", () => {
  const big = Array.from({ length: 50_000 }, (_x, i) => i);
  const unlimited = { limits: { maxSteps: 1e8 } };
  test("updates over 50,000 elements complete (each copied container is then changed in place)", () => {
    assert.deepEqual(outputs("[range(.)] | .[] = 1 | add", 50_000, unlimited), ["50000"]);
    assert.deepEqual(outputs(".[] |= . + 1 | add", big, unlimited), [String(50_000 * 50_001 / 2)]);
    assert.deepEqual(outputs(".[] += 1 | .[-1]", big, unlimited), ["50000"]);
    assert.deepEqual(outputs("del(.[] | select(. % 2 == 0)) | length", big, unlimited), ["25000"]);
    assert.deepEqual(outputs("map({a: .}) | del(.[].a) | length", big, unlimited), ["50000"]);
    assert.deepEqual(outputs("reduce range(length) as $i (.; .[$i] = $i * 2) | .[-1]", big, unlimited), ["99998"]);
    assert.deepEqual(outputs("reduce .[] as $i ({}; .[$i | tostring] |= $i) | length", big, unlimited), ["50000"]);
    assert.deepEqual(outputs("with_entries(.value += 1) | .k49999", Object.fromEntries(big.map((i) => [`k${i}`, i])), unlimited), ["50000"]);
    assert.deepEqual(outputs("map([.]) | add | length", big, unlimited), ["50000"]);
    assert.deepEqual(outputs("map([.]) | flatten | length", big, unlimited), ["50000"]);
    assert.deepEqual(outputs("(limit(2; .[]), first(.[])) |= . * 10", [1, 2, 3]), ["[100,20,3]"]);
  });
  test("the input and every value a variable holds stay unchanged", () => {
    assert.deepEqual(outputs("[1,2,3] as $a | ($a | .[] = 0), $a"), ["[0,0,0]", "[1,2,3]"]);
    assert.deepEqual(outputs(". as $x | (.a.b, .a) |= [., .] | ., $x", { a: { b: 1 } }), ['{"a":[{"b":[1,1]},{"b":[1,1]}]}', '{"a":{"b":1}}']);
    assert.deepEqual(outputs("[.,.] | .[0].a = 9", { a: 1 }), ['[{"a":9},{"a":1}]']);
    assert.deepEqual(outputs("def f: reduce range(2) as $i ([]; .[$i] = $i); [f, f] | .[0][0] = 7"), ["[[7,1],[0,1]]"]);
    assert.deepEqual(outputs(". as $o | reduce range(2) as $i (.; .[$i] = 1) | [., $o]", [0]), ["[[1,1],[0]]"]);
    assert.deepEqual(outputs("[limit(3; repeat([]))] | .[0][0] = 1"), ["[[1],[],[]]"]);
    assert.deepEqual(outputs("reduce (1,2) as $i ({}; .a += [$i])"), ['{"a":[1,2]}']);
    assert.deepEqual(outputs("[[1]] as $x | [$x[0], [2]] | add | ., $x"), ["[1,2]", "[[1]]"]);
    assert.deepEqual(outputs(".[] = (1,2)", [0, 0]), ["[1,1]", "[2,2]"]);
    // The update sees a container already copied by this assignment: later paths must not alias it.
    assert.deepEqual(outputs('(.a[0].b, .a, .a[0].b) |= (if type == "array" then [.[0], .[0]] else . + 1 end)', { a: [{ b: 1 }] }), [
      '{"a":[{"b":3},{"b":2}]}',
    ]);
  });
  test("from_entries, add and flatten as jq 1.7.1 defines them", () => {
    assert.equal(one('[{"key":"a","value":1},{"name":"b","Value":2},{"key":false,"Key":"c"}] | from_entries'), '{"a":1,"b":2,"c":null}');
    assert.match(failure('[{"key":1}] | from_entries'), /Cannot use number \(1\) as object key/);
    assert.match(failure("[1] | from_entries"), /Cannot index number with .*Name/);
    assert.equal(one('{"a":[1,[2]],"b":3} | flatten'), "[1,2,3]");
    assert.equal(one("[[1],[2],null,[3]] | add"), "[1,2,3]");
    assert.equal(one('[{"a":1},null,{"b":2},{"a":3}] | add'), '{"a":3,"b":2}');
  });
});

describe("issue 13 item 4: every path that grows an array hits the array limit", () => {
  for (const program of [".[5e8] = 1", ".[1e8] = 1", "setpath([1e9]; 1)", ".[1e8] |= 1", ".[1e8] += 1", "reduce 1 as $i (.; .[1e8] = $i)", ".[0:0] = [range(20000000)]", "try (.[1e8] = 1) catch 0"]) {
    test(program, () => {
      assert.throws(
        () => compileJq(program, { limits: { maxSteps: 1e8 } }).run([]),
        (e: unknown) => e instanceof JqError && e.kind === "limit" && /limit of 16777216 elements for an array/.test(e.message),
      );
    });
  }
  test("just under the limit still works", () => {
    assert.deepEqual(outputs(".[16777215] = 1 | length", []), ["16777216"]);
  });
});
