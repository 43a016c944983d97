import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  codepointLength,
  compareCodepoints,
  dumpTruncated,
  explode,
  formatNumber,
  implode,
  parseJsonStream,
  parseJsonText,
  quoteString,
  toJson,
  toNumber,
  typeErrorSubject,
  utf8ByteLength,
} from "../../src/jq/native/json.js";
import { errorOf } from "../support/errors.js";

const deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {
    name: "web",
    namespace: "shop",
    labels: { "app.kubernetes.io/name": "web", tier: "frontend" },
    annotations: {},
  },
  spec: { replicas: 3, selector: { matchLabels: { app: "web" } }, paused: false, minReadySeconds: 0.5 },
  status: {
    conditions: [
      { type: "Available", status: "True", reason: "MinimumReplicasAvailable" },
      { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable" },
    ],
    observedGeneration: 7,
    collisionCount: null,
  },
};

function nested(depth: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}


describe("formatNumber (jq 1.7.1 jvp_dtoa_fmt)", () => {
  test("integers print plainly below 1e16 and in exponent form from 1e16 on", () => {
    assert.equal(formatNumber(3), "3");
    assert.equal(formatNumber(-42), "-42");
    assert.equal(formatNumber(1e15), "1000000000000000");
    assert.equal(formatNumber(1e16), "1e+16");
    assert.equal(formatNumber(1e17), "1e+17");
    assert.equal(formatNumber(Number("9007199254740993")), "9007199254740992");
    assert.equal(formatNumber(Number("13911860366432393")), "13911860366432392");
  });
  test("fractions, small numbers and two-digit exponents", () => {
    assert.equal(formatNumber(0.5), "0.5");
    assert.equal(formatNumber(0.0001), "0.0001");
    assert.equal(formatNumber(0.00001), "1e-05");
    assert.equal(formatNumber(-1e-7), "-1e-07");
    assert.equal(formatNumber(1.5e300), "1.5e+300");
    assert.equal(formatNumber(1e100), "1e+100");
    assert.equal(formatNumber(0.1 + 0.2), "0.30000000000000004");
    assert.equal(formatNumber(123.456), "123.456");
    assert.equal(formatNumber(5e-324), "5e-324");
    assert.equal(formatNumber(Number("12345678909876543212345")), "12345678909876543000000");
    assert.equal(formatNumber(1.5e32), "1.5e+32");
  });
  test("special values: -0, NaN, infinities (1e1000 prints as DBL_MAX)", () => {
    assert.equal(formatNumber(-0), "-0");
    assert.equal(formatNumber(0), "0");
    assert.equal(formatNumber(NaN), "null");
    assert.equal(formatNumber(Infinity), "1.7976931348623157e+308");
    assert.equal(formatNumber(-Infinity), "-1.7976931348623157e+308");
    assert.equal(formatNumber(parseJsonText("1e1000") as number), "1.7976931348623157e+308");
  });
  test("every printed number reads back to the same double", () => {
    for (const n of [1 / 3, 2 / 3, 1e-300, 123456789.123, Math.PI * 1e20, 4.35, 0.000123, 1e21, 9.999999999999999e22]) {
      assert.equal(Number(formatNumber(n)), n);
    }
  });
});

describe("toJson", () => {
  test("compact form has no spaces and keeps insertion order", () => {
    assert.equal(
      toJson(deployment.status),
      '{"conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable"},{"type":"Progressing","status":"True","reason":"NewReplicaSetAvailable"}],"observedGeneration":7,"collisionCount":null}',
    );
    assert.equal(toJson({ a: 1, b: [1, 2] }), '{"a":1,"b":[1,2]}');
    assert.equal(toJson([1, "foo", ["foo"]]), '[1,"foo",["foo"]]');
    assert.equal(toJson({ a: NaN }), '{"a":null}');
  });
  test("indented form as the jq CLI prints it", () => {
    assert.equal(
      toJson(deployment.metadata, { indent: 2 }),
      '{\n  "name": "web",\n  "namespace": "shop",\n  "labels": {\n    "app.kubernetes.io/name": "web",\n    "tier": "frontend"\n  },\n  "annotations": {}\n}',
    );
    assert.equal(toJson([[], {}, [1]], { indent: 4 }), "[\n    [],\n    {},\n    [\n        1\n    ]\n]");
    assert.equal(toJson({ a: [1] }, { indent: "\t" }), '{\n\t"a": [\n\t\t1\n\t]\n}');
    assert.equal(toJson([1], { indent: 0 }), "[1]");
    assert.equal(toJson("x", { indent: 2 }), '"x"');
  });
  test("sortKeys orders by codepoint, not UTF-16 unit", () => {
    assert.equal(toJson({ b: 1, a: { d: 1, c: 2 } }, { sortKeys: true }), '{"a":{"c":2,"d":1},"b":1}');
    assert.equal(toJson({ "\u{1F600}": 1, "\uE000": 2 }, { sortKeys: true }), '{"\uE000":2,"\u{1F600}":1}');
    assert.ok(compareCodepoints("\uE000", "\u{1F600}") < 0);
    assert.ok(compareCodepoints("a", "ab") < 0);
    assert.equal(compareCodepoints("x", "x"), 0);
  });
  test("string escaping: controls as \\uXXXX lowercase, DEL escaped, / and non-ASCII kept", () => {
    assert.equal(quoteString("Aa\r\n\t\b\f\u03bc"), '"Aa\\r\\n\\t\\b\\f\u03bc"');
    assert.equal(quoteString("\u0001\u001f\u007f/"), '"\\u0001\\u001f\\u007f/"');
    assert.equal(quoteString('say "hi" \\ there'), '"say \\"hi\\" \\\\ there"');
    assert.equal(toJson("!()<>&'\"\t"), '"!()<>&\'\\"\\t"');
    // A lone surrogate is U+FFFD; the text \ud83d beside an astral character stays text (as in jq 1.8.2).
    assert.equal(quoteString("\u{1F600}\\ud83d"), '"\u{1F600}\\\\ud83d"');
    assert.equal(quoteString("\u{1F600}\\\ud83d"), '"\u{1F600}\\\\\ufffd"');
  });
  test("ascii output escapes non-ASCII, astral characters as surrogate pairs", () => {
    assert.equal(toJson({ "caf\u00e9": "\u{1F600}" }, { ascii: true }), '{"caf\\u00e9":"\\ud83d\\ude00"}');
  });
  test("100,000 levels print without exhausting the stack; jq 1.8.2 skips beyond depth 10,000", () => {
    const deep = nested(100000);
    const full = toJson(deep, { maxDepth: Infinity });
    assert.equal(full.length, 200002);
    assert.ok(full.startsWith("[[[[") && full.endsWith("]]]]"));
    const jqLike = toJson(deep);
    assert.ok(jqLike.includes("<skipped: too deep>"));
    assert.equal(jqLike.split("[").length - 1, 10001);
    assert.equal(toJson(nested(10000)), "[".repeat(10001) + "]".repeat(10001));
    assert.equal(toJson(nested(10001)).length, 20021);
    const pretty = toJson(nested(10000), { indent: 1, maxDepth: Infinity });
    assert.ok(pretty.length > 10000);
  });
});

describe("dumpTruncated / typeErrorSubject (jq error message subjects)", () => {
  test("truncate to 29 bytes, ending in ... and the closing quote or bracket (jq 1.8.2)", () => {
    assert.equal(dumpTruncated("very-long-string"), '"very-long-string"');
    assert.equal(dumpTruncated("very-long-long-long-long-string"), '"very-long-long-long-long..."');
    assert.equal(dumpTruncated({ a: { b: { c: 33 } } }), '{"a":{"b":{"c":33}}}');
    assert.equal(dumpTruncated([3, 4, 5]), "[3,4,5]");
    assert.equal(dumpTruncated("xxxx" + "\u2606".repeat(8)), '"xxxx\u2606\u2606\u2606\u2606\u2606\u2606..."');
    assert.equal(dumpTruncated("very-long-string", 15), '"very-long..."');
    assert.equal(typeErrorSubject("1,2,"), 'string ("1,2,")');
    assert.equal(typeErrorSubject(null), "null (null)");
    assert.equal(typeErrorSubject(NaN), "number (null)");
    assert.equal(typeErrorSubject(deployment.metadata.labels), 'object ({"app.kubernetes.io/name"...})');
  });
});

describe("parseJsonText (fromjson)", () => {
  test("parses single values, including jq's extra number spellings", () => {
    assert.deepEqual(parseJsonText('["foo",1,["a",1,"b",2,{"foo":"bar"}]]'), ["foo", 1, ["a", 1, "b", 2, { foo: "bar" }]]);
    assert.deepEqual(parseJsonText(toJson(deployment)), deployment);
    assert.ok(Number.isNaN(parseJsonText("nan")));
    // jq 1.8 refuses a nan with a payload.
    assert.match(errorOf(() => parseJsonText("nan1234")), /^Invalid numeric literal at EOF at line 1, column 7/);
    assert.ok(Number.isNaN(parseJsonText("NaN")));
    assert.equal(parseJsonText("Infinity"), Infinity);
    assert.equal(parseJsonText("-Infinity"), -Infinity);
    assert.equal(parseJsonText("01"), 1);
    assert.equal(parseJsonText("+1"), 1);
    assert.equal(parseJsonText(".5"), 0.5);
    assert.equal(parseJsonText("1."), 1);
    assert.equal(parseJsonText("  true \n"), true);
    assert.ok(Object.is(parseJsonText("-0"), -0));
    assert.deepEqual(parseJsonText('{"a":nan}'), { a: NaN });
    assert.deepEqual(parseJsonText('{"a":1,"a":2}'), { a: 2 });
    assert.deepEqual(parseJsonText("\ufeff[1]"), [1]);
    assert.equal(parseJsonText('"\\udc00"'), "\ufffd");
    assert.equal(parseJsonText('"\\ud83d\\ude00"'), "\u{1F600}");
    const proto = parseJsonText('{"__proto__":{"x":1}}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(proto), ["__proto__"]);
    assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  });
  test("jq 1.7.1's error messages, positions and the (while parsing ...) suffix", () => {
    const cases: [string, string][] = [
      ['{"a":1', "Unfinished JSON term at EOF at line 1, column 6"],
      ["[1,]", "Expected another array element at line 1, column 4"],
      ['{"a" 1}', "Expected separator between values at line 1, column 7"],
      ["1 2", "Unexpected extra JSON values"],
      ["", "Expected JSON value"],
      ["   ", "Expected JSON value"],
      ["tru", "Invalid literal at EOF at line 1, column 3"],
      ["nul", "Invalid literal at EOF at line 1, column 3"],
      ['"abc', "Unfinished string at EOF at line 1, column 4"],
      ["[1 2]", "Expected separator between values at line 1, column 5"],
      ["-", "Invalid numeric literal at EOF at line 1, column 1"],
      ["1x", "Invalid numeric literal at EOF at line 1, column 2"],
      ['["\\x"]', "Invalid escape at line 1, column 5"],
      ['"\\ud800"', "Invalid \\uXXXX\\uXXXX surrogate pair escape at line 1, column 8"],
      ['"\\u12"', "Invalid \\uXXXX escape at line 1, column 6"],
      ['"\\u12zz"', "Invalid characters in \\uXXXX escape at line 1, column 8"],
      // jq checks the room for 4 digits in bytes: é is two.
      ['"\\u12é"', "Invalid characters in \\uXXXX escape at line 1, column 8"],
      ['"\\u1é"', "Invalid \\uXXXX escape at line 1, column 7"],
      ["1 ]", "Unmatched ']' at line 1, column 3"],
      ["[1,2]x", "Invalid numeric literal at EOF at line 1, column 6"],
      ["tru\n", "Invalid literal at line 2, column 0"],
      ['{"a":}', "Unmatched '}' at line 1, column 6"],
      ['{"a":1,}', "Expected another key-value pair at line 1, column 8"],
      ['{"a"}', "Objects must consist of key:value pairs at line 1, column 5"],
      ['{"a","b"}', "Objects must consist of key:value pairs at line 1, column 5"],
      ["[,1]", "Expected value before ',' at line 1, column 2"],
      ["{1:2}", "Object keys must be strings at line 1, column 3"],
      [":", "Expected string key before ':' at line 1, column 1"],
      // The string is a complete value, so the ':' arrives with nothing before it.
      ['"a":', "Expected string key before ':' at line 1, column 4"],
      ['["a":1]', "':' not as part of an object at line 1, column 5"],
      ["}", "Unmatched '}' at line 1, column 1"],
      ['"a\tb"', "Invalid string: control characters from U+0000 through U+001F must be escaped at line 1, column 5"],
      ['{\n  "kind": Pod\n}', "Invalid numeric literal at line 3, column 0"],
    ];
    for (const [text, msg] of cases) {
      assert.equal(errorOf(() => parseJsonText(text)), `${msg} (while parsing '${text}')`, text);
    }
  });
  test("depth: 10,000 levels parse, 10,001 exceed jq 1.8.2's limit; more with a raised limit", () => {
    const ok = "[".repeat(10000) + "]".repeat(10000);
    assert.equal(toJson(parseJsonText(ok), { maxDepth: Infinity }), ok);
    const tooDeep = "[".repeat(10001) + "]".repeat(10001);
    assert.match(errorOf(() => parseJsonText(tooDeep)), /^Exceeds depth limit for parsing at line 1, column 10001 \(while parsing/);
    // Pending object keys take a parser stack slot too.
    const objects = '{"a":'.repeat(5001) + "1" + "}".repeat(5001);
    assert.match(errorOf(() => parseJsonText(objects)), /^Exceeds depth limit for parsing at line 1, column 25001/);
    assert.ok(parseJsonText('{"a":'.repeat(5000) + "1" + "}".repeat(5000)));
    assert.match(errorOf(() => parseJsonText(ok, { maxDepth: 9999 })), /Exceeds depth limit/);
    const deepNaN = "[".repeat(20000) + "nan" + "]".repeat(20000);
    assert.ok(Array.isArray(parseJsonText(deepNaN, { maxDepth: 20000 })));
  });
});

describe("toNumber (tonumber)", () => {
  test("numbers, numeric strings and jq's parser leniency", () => {
    assert.deepEqual([1, "1"].map(toNumber), [1, 1]);
    assert.equal(toNumber("3"), 3);
    assert.equal(toNumber("-2.5e3"), -2500);
    assert.equal(toNumber("1e1000"), Infinity);
    assert.equal(toNumber("+Infinity"), Infinity);
    assert.equal(toNumber("1."), 1);
    assert.equal(toNumber(".5"), 0.5);
    assert.ok(Number.isNaN(toNumber("nan")));
    // A replica count read from an annotation.
    assert.equal(toNumber({ "deployment.kubernetes.io/revision": "7" }["deployment.kubernetes.io/revision"]), 7);
  });
  test("failures: jq 1.8 takes exactly a number (no blanks, no NUL)", () => {
    assert.equal(errorOf(() => toNumber("2a")), 'string ("2a") cannot be parsed as a number');
    assert.equal(errorOf(() => toNumber(" 12 ")), 'string (" 12 ") cannot be parsed as a number');
    assert.equal(errorOf(() => toNumber("1\u0000")), 'string ("1\\u0000") cannot be parsed as a number');
    assert.equal(errorOf(() => toNumber("0x10")), 'string ("0x10") cannot be parsed as a number');
    assert.equal(errorOf(() => toNumber("[1]")), 'string ("[1]") cannot be parsed as a number');
    assert.equal(errorOf(() => toNumber(null)), "null (null) cannot be parsed as a number");
    assert.equal(errorOf(() => toNumber([1])), "array ([1]) cannot be parsed as a number");
  });
});

describe("parseJsonStream (CLI input)", () => {
  test("JSONL, several values per line, values spanning lines, blank lines, BOM", () => {
    const pods = [
      { kind: "Pod", metadata: { name: "web-0" }, status: { phase: "Running" } },
      { kind: "Pod", metadata: { name: "web-1" }, status: { phase: "Pending" } },
    ];
    const text = "\ufeff" + pods.map((p) => JSON.stringify(p)).join("\n") + "\n\n" + toJson(pods[0], { indent: 2 }) + '\n1 2 "x""y"[3]{"a":\n4}\n  \n true\n';
    assert.deepEqual([...parseJsonStream(text, "pods.json")], [...pods, pods[0], 1, 2, "x", "y", [3], { a: 4 }, true]);
    assert.deepEqual([...parseJsonStream("")], []);
    assert.deepEqual([...parseJsonStream("\n\n")], []);
    assert.deepEqual([...parseJsonStream("1")], [1]);
    assert.deepEqual([...parseJsonStream("nan\r\n[1]\r\n")].length, 2);
  });
  test("pretty-printed values one after another, mixed with JSONL and scalars", () => {
    const pods = Array.from({ length: 5 }, (_, i) => ({
      kind: "Pod",
      metadata: { name: `web-${i}`, labels: { "app.kubernetes.io/name": "web" } },
      status: { phase: i % 2 ? "Pending" : "Running", message: 'quoted "}]" text \\' },
    }));
    const text =
      pods.map((p) => toJson(p, { indent: 2 })).join("\n") +
      "\n" +
      pods.map((p) => JSON.stringify(p)).join("\n") +
      '\n"a string"\n[\n 1,\n 2\n] 3\n4\n{"last":\ntrue}';
    assert.deepEqual([...parseJsonStream(text)], [...pods, ...pods, "a string", [1, 2], 3, 4, { last: true }]);
    assert.deepEqual([...parseJsonStream('{"a":1}{"b":2}[3]"s"\n')], [{ a: 1 }, { b: 2 }, [3], "s"]);
  });
  test("errors after pretty-printed values point at jq's line and column", () => {
    const text = toJson({ kind: "Service" }, { indent: 2 }) + "\n" + toJson({ kind: "Pod" }, { indent: 2 }) + '\n{\n  "kind": "Node",\n  "x": [1,]\n}\n';
    const got: unknown[] = [];
    const msg = errorOf(() => {
      for (const v of parseJsonStream(text)) got.push(v);
    });
    assert.deepEqual(got, [{ kind: "Service" }, { kind: "Pod" }]);
    assert.equal(msg, "Expected another array element at line 9, column 11");
    assert.equal(errorOf(() => [...parseJsonStream('{"a":1}]\n')]), "Unmatched ']' at line 1, column 8");
    assert.equal(errorOf(() => [...parseJsonStream('[1]\n  {"a":1} x\n')]), "Invalid numeric literal at line 3, column 0");
  });
  test("yields the values before a syntax error, then throws jq's parser message", () => {
    const got: unknown[] = [];
    const msg = errorOf(() => {
      for (const v of parseJsonStream('{"kind":"Pod"}\n{"kind":"Service"}\n{"kind": Deployment}\n[5]')) got.push(v);
    });
    assert.deepEqual(got, [{ kind: "Pod" }, { kind: "Service" }]);
    assert.equal(msg, "Invalid numeric literal at line 3, column 20");
    assert.equal(errorOf(() => [...parseJsonStream('{"ready": tru}')]), "Invalid literal at line 1, column 14");
    assert.equal(errorOf(() => [...parseJsonStream("1\n2\n[1,\n")]), "Unfinished JSON term at EOF at line 4, column 0");
    assert.equal(errorOf(() => [...parseJsonStream('"abc')]), "Unfinished string at EOF at line 1, column 4");
  });
  test("depth limit applies to lines parsed on the fast path too", () => {
    const line = "[".repeat(10001) + "]".repeat(10001);
    assert.match(errorOf(() => [...parseJsonStream(`1\n${line}\n`)]), /^Exceeds depth limit for parsing at line 2, column 10001$/);
    assert.equal([...parseJsonStream(`${line}\n`, undefined, { maxDepth: 20000 })].length, 1);
    assert.match(errorOf(() => [...parseJsonStream('"\\ud800"\n')]), /surrogate pair escape/);
    assert.deepEqual([...parseJsonStream('"\\udd00"\n')], ["\ufffd"]);
  });
});

describe("strings and codepoints", () => {
  test("explode/implode round trips and jq's replacement rules", () => {
    assert.deepEqual(explode("foobar"), [102, 111, 111, 98, 97, 114]);
    assert.equal(implode([65, 66, 67]), "ABC");
    assert.deepEqual(explode(implode([-1, 0, 1, 2, 3, 1114111, 1114112, 55295, 55296, 57343, 57344, 1.1, 1.9])), [
      65533, 0, 1, 2, 3, 1114111, 65533, 55295, 65533, 65533, 57344, 1, 1,
    ]);
    assert.deepEqual(explode("a\u{1F600}b"), [97, 0x1f600, 98]);
    assert.deepEqual(explode("\ud800x"), [65533, 120]);
    assert.equal(implode(explode("caf\u00e9 \u{1F600}")), "caf\u00e9 \u{1F600}");
    const big = Array.from({ length: 10000 }, (_, i) => 0x4e00 + (i % 100));
    assert.equal(codepointLength(implode(big)), 10000);
  });
  test("implode errors as jq 1.7.1", () => {
    assert.equal(errorOf(() => implode(123)), "implode input must be an array");
    assert.equal(errorOf(() => implode(["a"])), 'string ("a") can\'t be imploded, unicode codepoint needs to be numeric');
    assert.equal(errorOf(() => implode([NaN])), "number (null) can't be imploded, unicode codepoint needs to be numeric");
  });
  test("lengths in codepoints and UTF-8 bytes", () => {
    assert.equal(codepointLength("nginx:1.25"), 10);
    assert.equal(codepointLength("a\u{1F600}\u03bc"), 3);
    assert.equal(utf8ByteLength("asdf\u03bc"), 6);
    assert.equal(utf8ByteLength("\u03bc"), 2);
    assert.equal(utf8ByteLength("\u{1F600}"), 4);
    assert.equal(utf8ByteLength("\u20ac"), 3);
    assert.equal(utf8ByteLength("app.kubernetes.io/name"), 22);
  });
});
