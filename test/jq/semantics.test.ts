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
    // Slice updates move what follows the slice (nothing when the length is kept), as jq's jv_set: within the default budget.
    assert.deepEqual(outputs(".[range(length)|{start:.,end:(.+1)}] = [1] | add", big), ["50000"]);
    assert.deepEqual(outputs("reduce range(8000) as $i (.; .[$i:$i+1] = [1]) | add", big.slice(0, 8000)), ["8000"]);
  });
  test("slice updates in place keep jq's results where the length changes (checked against jq 1.8.2)", () => {
    assert.deepEqual(outputs("[range(10)] | reduce range(5) as $i (.; .[$i:$i+2] = [$i])"), ["[0,1,2,3,4]"]);
    assert.deepEqual(outputs("[range(10)] | reduce range(5) as $i (.; .[$i:$i] = [$i, $i])"), ["[0,1,2,3,4,4,3,2,1,0,0,1,2,3,4,5,6,7,8,9]"]);
    assert.deepEqual(outputs("[[1],[2]] | . as $o | reduce (0,1) as $i (.; .[$i:$i+1] = [$i]) | [., $o]"), ["[[0,1],[[1],[2]]]"]);
    assert.deepEqual(outputs("[1,2,3] | reduce range(3) as $i (.; .[$i:] = [$i])"), ["[0,1,2]"]);
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
  test("reverse, range, finites, min, max and the *_by builtins as jq 1.8.2 defines them (checked against it)", () => {
    // def reverse: [.[length - 1 - range(0;length)]];
    assert.equal(one('[null, "", 0, {}] | map(reverse)'), "[[],[],[],[]]");
    assert.equal(failure('"abc" | reverse'), "Cannot index string with number (2)");
    assert.equal(failure("-2 | reverse"), "Cannot index number with number (1)");
    assert.equal(failure("true | reverse"), "boolean (true) has no length");
    // range/2 counts while not at the bound (for ever to nan); range/3 is jq's while loop, with jq's order and +.
    assert.equal(one("[limit(3; range(0; nan))]"), "[0,1,2]");
    assert.equal(one("[range(0; 10; null)] + [range([]; 3; 1)]"), "[]");
    assert.equal(failure('[limit(5; range(0; 10; "a"))]'), 'number (0) and string ("a") cannot be added');
    assert.equal(one("[[range(0; 10; 3)], [range(10; 0; -3)], [range(0; 3; 0)]]"), "[[0,3,6,9],[10,7,4,1],[]]");
    // def finites: select(isfinite); a non-number is not finite.
    assert.equal(one('[1, "a", null, infinite] | map(finites)'), "[1]");
    // The C builtins' messages name the input and its keys.
    assert.equal(failure("3 | min"), "number (3) and number (3) cannot be iterated over");
    assert.equal(failure("{} | min_by(.)"), "object ({}) and array ([]) cannot be iterated over");
    assert.equal(failure("{} | sort_by(.)"), "object ({}) and array ([]) cannot be sorted, as they are not both arrays");
    // Slices loop over the start outermost; an array pattern binds from its last element, and a
    // variable named twice keeps its first binding (all checked against jq 1.8.2).
    assert.deepEqual(outputs("[.[0,1:2,3]]", [1, 2, 3]), ["[[1,2],[1,2,3],[2],[2,3]]"]);
    assert.equal(failure(". as [[$a], {b: $b}] | 1", [1, 2]), 'Cannot index number with string ("b")');
    assert.equal(failure(". as [$a, $b] | 1", { a: 1 }), "Cannot index object with number (1)");
    assert.equal(one(". as {a: $x, b: $x} | $x", { a: 1, b: 2 }), "1");
    assert.equal(one(". as [{a: $x}, $x] | $x", [{ a: 3 }, 4]), "4");
    // A key expression sees the variables outside the pattern (its own are not defined there).
    assert.deepEqual(outputs('. as {k: $k} | . as {($k, "b"): $v} | $v', { k: "a", a: 5, b: 6 }), ["5", "6"]);
    assert.throws(() => compileJq(". as {$k, ($k): $v} | $v"), /\$k is not defined/);
    // A key with several outputs binds its variable afresh for each.
    assert.deepEqual(outputs('. as {("a","b"): $x} | $x', { a: 1, b: 2 }), ["1", "2"]);
    // null indexed in a path by anything but a name or a number fails as .[k] does.
    assert.equal(failure("path(.[null])"), "Cannot index null with null (null)");
    assert.equal(failure("del(.[true])"), "Cannot index null with boolean (true)");
    // An object key is checked when a value goes in: no value, no error.
    assert.deepEqual(outputs("{(.[]): empty}", { a: 1 }), []);
    assert.equal(failure('{(.[]): error("v")}', { a: 1 }), "v");
  });

  test("from_entries, add and flatten as jq 1.8.2 defines them", () => {
    assert.equal(one('[{"key":"a","value":1},{"name":"b","Value":2},{"key":false,"Key":"c"}] | from_entries'), '{"a":1,"b":2,"c":null}');
    assert.match(failure('[{"key":1}] | from_entries'), /Cannot use number \(1\) as object key/);
    // `.key // .Key // .name // .Name` all failing: jq's // raises the first error (checked against jq 1.8.2).
    assert.match(failure("[1] | from_entries"), /^Cannot index number with string \("key"\)$/);
    assert.equal(one('{"a":[1,[2]],"b":3} | flatten'), "[1,2,3]");
    assert.equal(one("[[1],[2],null,[3]] | add"), "[1,2,3]");
    assert.equal(one('[{"a":1},null,{"b":2},{"a":3}] | add'), '{"a":3,"b":2}');
  });
});

describe("issue 13 item 4: every path that grows an array hits the array limit", () => {
  for (const program of [".[5e8] = 1", ".[1e8] = 1", ".[1e8] |= 1", ".[1e8] += 1", "reduce 1 as $i (.; .[1e8] = $i)", ".[0:0] = [range(20000000)]", "try (.[1e8] = 1) catch 0"]) {
    test(program, () => {
      assert.throws(
        () => compileJq(program, { limits: { maxSteps: 1e8 } }).run([]),
        (e: unknown) => e instanceof JqError && e.kind === "limit" && /limit of 16777216 elements for an array/.test(e.message),
      );
    });
  }
  test("beyond jq's own bound (2^29 elements) it is jq's catchable error, as in jq 1.8.2", () => {
    assert.deepEqual(outputs("try setpath([1e9]; 1) catch ., try (.[999999999] = 0) catch .", []), ['"Array index too large"', '"Array index too large"']);
  });
  test("just under the limit still works", () => {
    assert.deepEqual(outputs(".[16777215] = 1 | length", []), ["16777216"]);
  });
});

describe("class 4: number builtins on subnormals, zeros, infinities and NaN", () => {
  test("no hang on subnormals", () => {
    assert.deepEqual(outputs("5e-324 | significand, logb, frexp, ldexp(.; 1074)"), ["1", "-1074", "[0.5,-1073]", "1"]);
    assert.deepEqual(outputs("[2.2250738585072014e-308, 1e-310] | map(significand, logb)"), ["[1,-1022,1.1505236063118787,-1030]"]);
    assert.equal(one("[1e-310 | frexp | .[0] * pow(2; .[1])]"), "[1e-310]");
  });
  test("isnan, isinfinite and isnormal are false for non-numbers", () => {
    assert.equal(one("[null, \"a\", [], {}, true] | map(isnan, isinfinite, isnormal) | unique"), "[false]");
    assert.equal(one("[nan, infinite, -infinite, 0, 5e-324, 1] | map(isnormal)"), "[false,false,false,false,false,true]");
    assert.equal(one("[nan, infinite, -infinite, 1] | map(isinfinite)"), "[false,true,true,false]");
  });
  test("fdim, fmin, fmax, fmod, remainder with NaN and infinities", () => {
    assert.equal(one("[fdim(1; nan), fdim(nan; 1)] | map(isnan)"), "[true,true]");
    assert.equal(one("[fdim(3; 1), fdim(1; 3), fmin(nan; 2), fmax(2; nan), fmod(7; -3), fmod(-7; 3)]"), "[2,0,2,2,1,-1]");
    assert.equal(one("[remainder(5; 3), remainder(-7; 2), remainder(7.5; 2), drem(6; 4), remainder(1; infinite)]"), "[-1,1,-0.5,-2,1]");
    assert.equal(one("[remainder(infinite; 1), remainder(1; 0), fmod(1; 0)] | map(isnan)"), "[true,true,true]");
    assert.equal(one("[-0 | remainder(.; 1), modf[0], trunc, round]"), "[-0,-0,-0,-0]");
  });
  test("ldexp, scalb, scalbln and logb at the ends of the range", () => {
    assert.equal(one("[ldexp(1; -1074), ldexp(1; 1023), ldexp(1; 1024), scalbln(3; 2), scalb(1; 2)]"), "[5e-324,8.98846567431158e+307,1.7976931348623157e+308,12,4]");
    assert.equal(one("[0, infinite, -infinite] | map(logb)"), "[-1.7976931348623157e+308,1.7976931348623157e+308,1.7976931348623157e+308]");
    assert.equal(one("[scalb(1; 2.5)] | map(isnan)"), "[true]");
  });
  test("gamma functions at zero and beyond overflow", () => {
    assert.equal(one("[0, -0, 1000, 5 | tgamma]"), "[1.7976931348623157e+308,-1.7976931348623157e+308,1.7976931348623157e+308,24]");
    assert.equal(one("[1000 | tgamma, lgamma] | map(isinfinite)"), "[true,false]");
  });
});

describe("class 5: the libm functions of jq 1.8.2 on glibc", () => {
  // Values from glibc (what jq 1.8.2 prints), rounded to 12 digits.
  const r12 = (program: string) => one(`[${program}] | map(. * 1e12 | round / 1e12)`);
  test("erf and erfc", () => {
    assert.equal(r12("1, -0.7, 3.5 | erf"), "[0.84270079295,-0.677801193837,0.999999256902]");
    assert.equal(r12("1, 3.5, 10, -1 | erfc"), "[0.15729920705,7.43098e-07,0,1.84270079295]");
  });
  test("Bessel functions of the first and second kind", () => {
    assert.equal(r12("1, 10, 30 | j0"), "[0.765197686558,-0.245935764451,-0.086367983581]");
    assert.equal(r12("1, 10, 30 | j1"), "[0.440050585745,0.043472746169,-0.118751062617]");
    assert.equal(r12("1, 10, 30 | y0"), "[0.088256964216,0.055671167284,-0.117295731687]");
    assert.equal(r12("1, 10, 30 | y1"), "[-0.7812128213,0.249015424207,0.084425570662]");
    assert.equal(r12("jn(2; 1.5), jn(5; 30), jn(-3; 2), yn(2; 1.5), yn(3; 40)"), "[0.232087672144,-0.143240295512,-0.128943249474,-0.932193759763,-0.006829103413]");
    assert.equal(one("[0 | j0, j1, y0, y1]"), "[1,0,-1.7976931348623157e+308,-1.7976931348623157e+308]");
  });
  test("C's conversions: an exponent or order out of int range (or NaN) is INT_MIN, as on x86-64", () => {
    assert.equal(one("[ldexp(1; nan), ldexp(1; infinite), ldexp(3; 2147483648), ldexp(3; 2147483647), scalbln(1; 3e9), scalbln(1; 1e20)]"), "[0,0,0,1.7976931348623157e+308,1.7976931348623157e+308,0]");
    assert.equal(one("[jn(2147483648; 2), jn(2147483647; 2), jn(nan; 0), yn(2147483648; 2), yn(1e10; 0.5)] | map(. * 1e12 | round / 1e12)"), "[null,0,0,-0.107032431541,-1.47147239267]");
  });
  test("pow as C's at ±1; fma rounded once", () => {
    assert.equal(one("[pow(1; nan), pow(1; infinite), pow(-1; infinite), pow(-1; -infinite), pow(nan; 0)]"), "[1,1,1,1,1]");
    assert.equal(one("[fma(0.1; 10; -1), fma(1e308; 10; -1e308), fma(1 + pow(2; -52); 1 - pow(2; -52); -1), fma(pow(2; -1074); 0.5; pow(2; -1073, -1074))]"), "[5.551115123125783e-17,1.7976931348623157e+308,-4.930380657631324e-32,1e-323,1e-323]");
  });
  test("integer powers rounded once, as glibc's pow (Math.pow is off by an ulp on some)", () => {
    // Each value is glibc 2.36's pow for the same arguments.
    assert.equal(
      one("[pow(10; -5), pow(10; 23), pow(10; -300), pow(-3; 34), pow(1.1; 10), pow(0.1; -3), pow(2; -1074), pow(2; -1075), pow(2; 1024), pow(7; 3), pow(-2; -3)]"),
      "[1e-05,100000000000000010000000,1e-300,16677181699666570,2.5937424601000023,999.9999999999999,5e-324,0,1.7976931348623157e+308,343,-0.125]",
    );
  });
  test("gamma functions to glibc's precision, lgamma_r with the sign of Γ", () => {
    assert.equal(r12("0.5, 2.5, -2.5, 1.0000001, 30.5 | tgamma"), "[1.772453850906,1.329340388179,-0.945308720483,0.999999942278,4.822696933490909e+31]");
    assert.equal(one("[170.5, -170.5 | tgamma] | map(tostring[:12])"), '["5.5620924145","-3.312739521"]');
    assert.equal(one("[0.5, 1.0000001, 3.14159 | lgamma]"), "[0.5723649429247001,-5.772155829918507e-08,0.8276919992014948]");
    assert.equal(one("[-2.5, -170.5, 2.5, -0 | lgamma_r[1]]"), "[-1,-1,1,-1]");
  });
  test("jn and yn of huge orders end at once or with the budget error", () => {
    assert.equal(r12("jn(1e6; 1e6), yn(1e5; 1e6), jn(2e9; 2)"), "[0.004473073183,0.000798893796,0]");
    assert.throws(() => compileJq("jn(1e9; 1e10)").run(null), (e: unknown) => e instanceof JqError && e.kind === "limit");
  });
  test("every libm name of jq 1.8.2 is a builtin (pow10 is gone)", () => {
    const names = "acos acosh asin asinh atan atanh cbrt ceil cos cosh erf erfc exp exp10 exp2 expm1 fabs floor gamma j0 j1 lgamma log log10 log1p log2 logb nearbyint rint round significand sin sinh sqrt tan tanh tgamma trunc y0 y1";
    for (const n of names.split(" ")) assert.doesNotThrow(() => compileJq(`1 | ${n}`).run(null), n);
    for (const n of "atan2 copysign drem fdim fmax fmin fmod hypot jn ldexp nextafter nexttoward pow remainder scalb scalbln yn".split(" ")) {
      assert.doesNotThrow(() => compileJq(`${n}(1; 2)`).run(null), n);
    }
    assert.equal(one("fma(2; 3; 4)"), "10");
    assert.throws(() => compileJq("1 | pow10"), /pow10\/0 is not defined/);
  });
});

describe("class 7: indexing edge cases", () => {
  test("a fractional index truncates toward zero (jq converts it to an int)", () => {
    assert.deepEqual(outputs(".[-2.8], .[2.9], .[-0.5], .[1e10], .[-1e10], .[nan]", [0, 1, 2]), ["1", "2", "0", "null", "null", "null"]);
  });
  test("an object index is a slice only with both start and end", () => {
    assert.match(failure('.[{"start":1}]', [0, 1, 2]), /slice indices must be integers/);
    assert.equal(one('.[{"start":1,"end":null}]', [0, 1, 2]), "[1,2]");
    assert.match(failure('.[1:"a"]', [0, 1, 2]), /Array\/string slice indices must be integers/);
  });
  test("indices of an empty array, and of anything in null", () => {
    assert.equal(one(".[[]]", [1, 2]), "[]");
    assert.equal(one("indices([])", [1, 2]), "[]");
    assert.equal(one("null | indices(0)"), "null");
    assert.equal(one("null | index(0)"), "null");
    assert.deepEqual(outputs("indices(1), indices([1,2])", [1, 2, 1, 2]), ["[0,2]", "[0,2]"]);
  });
  test("a value identical to the one at the current path keeps the path (jq's path_intact)", () => {
    assert.equal(one(". as $x | path($x | .[0])", [5]), "[0]");
    assert.match(failure("[9] as $x | path($x | .[0])", [5]), /Invalid path expression near attempt to access element 0 of \[9\]/);
    assert.match(failure("path(. = .x)", { x: 1 }), /Invalid path expression with result 1/);
    assert.equal(one("null | path(. = .x)"), "[]");
    assert.equal(one('path(.a | tostring)', { a: "s" }), '["a"]');
    // jq 1.8.2 keeps a number literal's text and strings on the heap: a literal is never the value at
    // the path; null, true and false are when the input is the same (as jq 1.8.2 printed these).
    assert.match(failure("1 | path(1)"), /Invalid path expression with result 1/);
    assert.match(failure('"a" | path("a")'), /Invalid path expression with result "a"/);
    assert.equal(one("true | path(true)"), "[]");
    assert.equal(one("null | path(null)"), "[]");
    assert.match(failure('{"b":1} | del(.a, null)'), /Invalid path expression with result null/);
    assert.equal(one("1 as $x | $x | path($x)"), "[]");
  });

  test("in a path expression a destructuring moves jq's tracked path on (jq 1.8.2's answers)", () => {
    assert.match(failure('[{"name":"x"},{"name":"y"}] | del(.[] | . as {name:$n} | select($n=="x"))'), /Invalid path expression with result \{"name":"x"\}/);
    assert.equal(one("[[1]] | path(. as [$x] | $x)"), "[0]");
    assert.match(failure('{"a":[1]} | path(.a | . as [$x] | 1)'), /Invalid path expression with result 1/);
    assert.equal(one('{"a":{"b":{"c":1}}} | [path(. as {a:{b:$v}} | $v)]'), '[["a","b"]]');
    assert.equal(one("null | [path(. as [$a, $b] | $a)]"), "[[1,0]]");
    assert.match(failure("[1,2] | [path(. as [$a, $b] | $a)]"), /Invalid path expression near attempt to access element 0 of \[1,2\]/);
    assert.match(failure('{"a":[1,2]} | [path(.a as [$x] | $x)]'), /Invalid path expression near attempt to access element 0 of \[1,2\]/);
  });

  test("reduce and foreach as path expressions, as jq runs them (jq 1.8.2's answers)", () => {
    assert.match(failure('{"a":{"a":1}} | [path(reduce (1,2) as $x (.; .a))]'), /Invalid path expression near attempt to access element "a" of \{"a":1\}/);
    assert.match(failure('{"a":{"a":1}} | [path(reduce 1 as $x (.; .a))]'), /Invalid path expression with result \{"a":1\}/);
    assert.equal(one('{"a":{"a":1}} | [path(reduce empty as $x (.a; .))]'), '[["a"]]');
    assert.match(failure('{"n":5} | path(reduce range(2) as $x (.n; 5))'), /Invalid path expression with result 5/);
    assert.equal(one('{"n":5} | path(reduce range(2) as $x (.n; .))'), '["n"]');
    assert.equal(one("[1,2] | [path(reduce .[] as $x (.; .))]"), "[[]]");
    assert.match(failure("[1,2] | [path(foreach .[] as $x (.; .))]"), /Invalid path expression with result \[1,2\]/);
    assert.equal(one("[1,2] | [path(foreach (1,2) as $x (.; .))]"), "[[],[]]");
    assert.equal(one('{"a":1} | [path(foreach (1,2) as $x (.; .; .a))]'), '[["a"],["a"]]');
    assert.match(failure("[1,2] | [path(foreach (1,2) as $x (.; .[0]))]"), /Invalid path expression near attempt to access element 0 of 1/);
  });

  test("ltrimstr, rtrimstr and trimstr are the slices their jq definitions take (jq 1.8.2's answers)", () => {
    assert.equal(one('"xabcx" | [path(trimstr("x"))]'), '[[{"start":1,"end":null},{"start":null,"end":3}]]');
    assert.equal(one('{"a":"xy"} | [path(.a | ltrimstr("x"))]'), '[["a",{"start":1,"end":null}]]');
    assert.equal(one('"😀a😀" | [path(trimstr("😀"))]'), '[[{"start":1,"end":null},{"start":null,"end":1}]]');
    assert.equal(one('"xabc" | [path(ltrimstr("y"))]'), "[[]]");
  });
});

describe("class 7b: path expressions through jq 1.8.2's generators", () => {
  test("while, until, recurse/2 and repeat are path expressions, as their jq definitions are", () => {
    const slice = '{"start":1,"end":null}';
    assert.deepEqual(outputs("[path(while(length > 0; .[1:]))]", [1, 2, 3]), [`[[],[${slice}],[${slice},${slice}]]`]);
    assert.deepEqual(outputs("[path(until(length < 2; .[1:]))]", [1, 2, 3]), [`[[${slice},${slice}]]`]);
    assert.deepEqual(outputs("[path(recurse(.[]?; . != 2))]", [1, [2]]), ["[[],[0],[1]]"]);
    assert.deepEqual(outputs("[path(limit(3; repeat(.[1:])))]", [1, 2, 3]), [`[[${slice}],[${slice}],[${slice}]]`]);
    assert.deepEqual(outputs('del(recurse(.[]?; type != "string") | select(. == 2))', [1, [2, "a"], 2]), ['[1,["a"]]']);
  });
  test("last(f) keeps its value in a variable: not a path (first, limit, nth and skip are)", () => {
    assert.equal(failure("path(last(.[]))", [1, 2, 3]), "Invalid path expression with result 3");
    assert.deepEqual(outputs("[path(first(.[]), limit(1; .[]), nth(1; .[]), skip(2; .[]))]", [1, 2, 3]), ["[[0],[0],[1],[2]]"]);
  });
  test("explode (and so ascii_downcase) names its input's type as jq 1.8.2 does", () => {
    assert.equal(failure("ascii_downcase", 1), "explode input must be a string");
  });
});

describe("class 8: iteration and tail recursion take no stack per step", () => {
  const big = { limits: { maxSteps: 1e8 } };
  test("while, until, recurse and range/3 over a million steps", () => {
    assert.deepEqual(outputs("[0 | while(. < 1000000; . + 1)] | length", null, big), ["1000000"]);
    assert.deepEqual(outputs("0 | until(. >= 1000000; . + 1)", null, big), ["1000000"]);
    assert.deepEqual(outputs("[limit(1000000; 0 | recurse(. + 1))] | length", null, big), ["1000000"]);
    assert.deepEqual(outputs("[0 | recurse(. + 1; . < 1000000)] | length", null, big), ["1000000"]);
    assert.deepEqual(outputs("[limit(1000000; 0 | repeat(1))] | length", null, big), ["1000000"]);
    assert.deepEqual(outputs("[range(0; 1000000; 1)] | length", null, big), ["1000000"]);
  });
  test("their outputs keep jq's depth-first order with several outputs per step", () => {
    assert.equal(one("[1 | while(. < 20; .*2, .*3)]"), "[1,2,4,8,16,12,6,12,18,3,6,12,18,9,18]");
    assert.equal(one("[1 | until(. > 20; .*2, .*3)]"), "[32,48,24,24,36,24,36,36,54,24,36,36,54,36,54,27]");
    assert.equal(one("[1 | recurse(.*2, .*3; . < 20)]"), "[1,2,4,8,16,12,6,12,18,3,6,12,18,9,18]");
    assert.equal(one('[{"a":[1]} | recurse(.[]?)]'), '[{"a":[1]},[1],1]');
    assert.equal(one("[1 | while(. < 3, . < 2; . + 1)]"), "[1,2,1,2]");
  });
  test("an error or a break after some outputs comes after them", () => {
    assert.deepEqual(outputs('[.[] | try (1 | while(. < 5; if . == 3 then error("x") else . + 1, . + 10 end)) catch "E"]', [0]), [
      '[1,2,3,"E"]',
    ]);
    assert.equal(one("[label $f | 1 | while(. < 5; if . == 3 then break $f else . + 1 end)]"), "[1,2,3]");
    assert.equal(one("[limit(4; 0 | while(true; . + 1))]"), "[0,1,2,3]");
  });
  test("tail-recursive definitions 100,000 deep", () => {
    assert.deepEqual(outputs("def f: if . >= 100000 then . else . + 1 | f end; 0 | f", null, big), ["100000"]);
    assert.deepEqual(outputs("def f($n; $acc): if $n == 0 then $acc else f($n - 1; $acc + $n) end; f(100000; 0)", null, big), ["5000050000"]);
    assert.deepEqual(outputs("def f: if length < 3 then . + [length] | f, . else . end; [[] | f]"), ["[[0,1,2],[0,1,2],[0,1],[0]]"]);
    assert.deepEqual(outputs("def fac: if . <= 1 then 1 else . * (. - 1 | fac) end; 10 | fac"), ["3628800"]);
  });
});

describe("class 6: parser and binding", () => {
  const syntaxError = (program: string): string => {
    try {
      compileJq(program);
    } catch (e) {
      return (e as Error).message;
    }
    assert.fail(`${JSON.stringify(program)} compiled`);
  };
  test("a program without a main expression is an error (jq 1.7.1)", () => {
    for (const p of ["", "  ", "# only a comment", "# one\n# two\n", "def f: 1;", "def f: 1; def g: 2;"]) {
      assert.match(syntaxError(p), /Top-level program not given \(try "\."\)/, JSON.stringify(p));
    }
  });
  test("an object may end with a comma", () => {
    assert.equal(one("{a,b,}", { a: 1, b: 2, c: 3 }), '{"a":1,"b":2}');
    assert.equal(one('{"a":1,}'), '{"a":1}');
    assert.match(syntaxError("{,}"), /syntax error/);
  });
  test("unary minus in an object value binds tighter than |", () => {
    assert.equal(one("{x:-.|abs}", 1), '{"x":1}');
    assert.equal(one("{x: - - 1}"), '{"x":1}');
    assert.equal(one("{x: -1|-.}"), '{"x":1}');
  });
  test("comments inside a multi-line string interpolation", () => {
    assert.equal(one('"a\\(1 # one\n + 2 # two\n)b"'), '"a3b"');
  });
  test("a later $parameter of the same name shadows the earlier one", () => {
    assert.deepEqual(outputs("def f($g;$g): $g; f(1;2,3)"), ["2", "3"]);
    assert.deepEqual(outputs("def f(g;$g): g; f(1;2,3)"), ["2", "3", "2", "3"]);
    assert.deepEqual(outputs("def f($a; $b): [$a, $b, a, b]; f(1,2; 3)"), ["[1,3,1,2,3]", "[2,3,1,2,3]"]);
  });
  test("a shorthand key with interpolation is evaluated once per output", () => {
    assert.deepEqual(outputs('{"\\(.a[])"}', { a: ["x", "y"], x: 10, y: 20 }), ['{"x":10}', '{"y":20}']);
    assert.deepEqual(outputs('{@base64 "x"}', { x: 1 }), ['{"x":1}']);
  });
});

describe("one-output expressions take the plain-call path with jq's semantics", () => {
  test("a binary operator evaluates its right operand first (its error wins)", () => {
    assert.match(failure(".a.b + .c.d", { a: 1, c: 2 }), /"d"/);
    assert.equal(compileJq(".a.b - .c.d").first({ a: { b: 5 }, c: { d: 2 } }), 3);
  });
  test("// and if keep their meaning; // does not catch an error on its left, as in jq", () => {
    assert.deepEqual(outputs('(.a.b? // "x"), (.d // "y"), (if .c then .c * 2 else 0 end), (.a and .c)', { a: 3, c: 2 }), ['"x"', '"y"', "4", "true"]);
    assert.match(failure('.a.b // "x"', { a: 3 }), /Cannot index number with string \("b"\)/);
  });
});

describe("class 3: fromstream rebuilds in place, as jq 1.7.1 defines it", () => {
  test("round trip of 20,000 leaves", () => {
    const o = Object.fromEntries(Array.from({ length: 20_000 }, (_x, i) => [`k${i}`, { v: [i] }]));
    assert.deepEqual(outputs("fromstream(tostream) == .", o, { limits: { maxSteps: 1e8 } }), ["true"]);
  });
  test("events of several values, truncated streams, and jq 1.7.1's errors", () => {
    assert.equal(one("[fromstream([[],3], [[\"a\"],1], [[\"a\"]], [[0],[]], [[0]])]"), '[3,{"a":1},[[]]]');
    assert.equal(one("[fromstream(1|truncate_stream([[0],1],[[1,0],2],[[1,0]],[[1]]))]"), "[[2]]");
    assert.equal(one("[.[] | tostream] | [fromstream(.[])]", { a: [1, { b: 2 }], c: "d" }), '[[1,{"b":2}],"d"]');
    assert.match(failure('fromstream(["x", 1])'), /cannot be added/);
    assert.equal(one("[fromstream([[0],1],[[0]]) as $v | $v | .[0] = 9, $v]"), "[[9],[1]]");
  });
});
