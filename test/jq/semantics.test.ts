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
