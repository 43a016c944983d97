import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { applyFormat, base32Decode, base32Encode, isFormatName, toStringValue } from "../../src/jq/native/formats.js";
import { errorOf } from "../support/errors.js";


// jq.test: @text,@json,([1,.]|@csv,@tsv),@html,@uri,@sh,(@base64|.,@base64d) on "!()<>&'\"\t"
const SPECIAL = "!()<>&'\"\t";

describe("applyFormat: jq 1.7.1 conformance cases", () => {
  test("every format on the special-character string", () => {
    assert.equal(applyFormat("text", SPECIAL), SPECIAL);
    assert.equal(applyFormat("json", SPECIAL), '"!()<>&\'\\"\\t"');
    assert.equal(applyFormat("csv", [1, SPECIAL]), '1,"!()<>&\'""\t"');
    assert.equal(applyFormat("tsv", [1, SPECIAL]), "1\t!()<>&'\"\\t");
    assert.equal(applyFormat("html", SPECIAL), "!()&lt;&gt;&amp;&apos;&quot;\t");
    assert.equal(applyFormat("uri", SPECIAL), "%21%28%29%3C%3E%26%27%22%09");
    assert.equal(applyFormat("sh", SPECIAL), "'!()<>&'\\''\"\t'");
    assert.equal(applyFormat("base64", SPECIAL), "ISgpPD4mJyIJ");
    assert.equal(applyFormat("base64d", "ISgpPD4mJyIJ"), SPECIAL);
  });
  test("UTF-8 in base64 and uri; html escaping inside interpolation", () => {
    assert.equal(applyFormat("base64", "fo\u00f3bar\n"), "Zm/Ds2Jhcgo=");
    assert.equal(applyFormat("base64d", "Zm/Ds2Jhcgo="), "fo\u00f3bar\n");
    assert.equal(applyFormat("uri", "\u03bc"), "%CE%BC");
    assert.equal(applyFormat("html", "<script>hax</script>"), "&lt;script&gt;hax&lt;/script&gt;");
    assert.equal(applyFormat("html", "This works if x < y"), "This works if x &lt; y");
    assert.equal(applyFormat("sh", "O'Hara's Ale"), "'O'\\''Hara'\\''s Ale'");
    assert.equal(applyFormat("base64", "This is a message"), "VGhpcyBpcyBhIG1lc3NhZ2U=");
    assert.equal(applyFormat("base64d", "VGhpcyBpcyBhIG1lc3NhZ2U="), "This is a message");
  });
});

describe("applyFormat on Kubernetes data", () => {
  const pods = [
    ["web-0", "Running", 3, true, null],
    ["web-1", 'CrashLoopBackOff "OOMKilled"', 0, false, 1.5],
  ];
  test("@csv and @tsv rows", () => {
    assert.deepEqual(
      pods.map((r) => applyFormat("csv", r)),
      ['"web-0","Running",3,true,', '"web-1","CrashLoopBackOff ""OOMKilled""",0,false,1.5'],
    );
    assert.equal(applyFormat("tsv", ["app.kubernetes.io/name", "line1\nline2\r\t\\end", null, NaN]), "app.kubernetes.io/name\tline1\\nline2\\r\\t\\\\end\t\t");
    assert.equal(applyFormat("csv", [NaN, 1e17, -0]), ",1e+17,-0");
    assert.equal(applyFormat("csv", []), "");
  });
  test("@sh quotes arrays of arguments, dumps scalars", () => {
    assert.equal(applyFormat("sh", ["kubectl", "get", "pods", "-l", "app=web tier"]), "'kubectl' 'get' 'pods' '-l' 'app=web tier'");
    assert.equal(applyFormat("sh", [null, true, 3, 0.5]), "null true 3 0.5");
    assert.equal(applyFormat("sh", 42), "42");
  });
  test("non-strings go through tostring for text, html, uri, base64", () => {
    const labels = { app: "web", "app.kubernetes.io/part-of": "shop" };
    assert.equal(applyFormat("text", labels), '{"app":"web","app.kubernetes.io/part-of":"shop"}');
    assert.equal(toStringValue([1, "a"]), '[1,"a"]');
    assert.equal(applyFormat("html", ["<b>", 1]), "[&quot;&lt;b&gt;&quot;,1]");
    assert.equal(applyFormat("uri", { a: "b c" }), "%7B%22a%22%3A%22b%20c%22%7D");
    assert.equal(applyFormat("uri", "A-Za-z0-9-_.~"), "A-Za-z0-9-_.~");
    assert.equal(applyFormat("base64", 1), "MQ==");
    assert.equal(applyFormat("json", { status: { phase: "Running" } }), '{"status":{"phase":"Running"}}');
  });
  test("NUL becomes \\0 in escaped formats, as jq's escape_string does", () => {
    assert.equal(applyFormat("html", "a\u0000b"), "a\\0b");
    assert.equal(applyFormat("csv", ["a\u0000b"]), '"a\\0b"');
  });
});

describe("@base64d decoding", () => {
  test("unpadded input, stop at '=', invalid UTF-8 becomes U+FFFD", () => {
    assert.equal(applyFormat("base64d", "d2Vi"), "web");
    assert.equal(applyFormat("base64d", "d2ViLTA"), "web-0");
    assert.equal(applyFormat("base64d", "d2ViLTA=trailing garbage!"), "web-0");
    assert.equal(applyFormat("base64d", "/w=="), "\ufffd");
    assert.equal(applyFormat("base64d", ""), "");
    // A Secret's data value.
    assert.equal(applyFormat("base64d", "cGFzc3dvcmQxMjM="), "password123");
  });
  test("errors", () => {
    assert.equal(errorOf(() => applyFormat("base64d", "a")), 'string ("a") trailing base64 byte found');
    assert.equal(errorOf(() => applyFormat("base64d", "not base64!")), 'string ("not base64!") is not valid base64 data');
    assert.equal(errorOf(() => applyFormat("base64d", "d2Vi\n")), 'string ("d2Vi\\n") is not valid base64 data');
  });
});

describe("errors as jq 1.8.2 words them", () => {
  test("wrong input types", () => {
    assert.equal(errorOf(() => applyFormat("csv", { kind: "Pod" })), 'object ({"kind":"Pod"}) cannot be csv-formatted, only array');
    assert.equal(errorOf(() => applyFormat("tsv", "very-long-string")), 'string ("very-long-string") cannot be tsv-formatted, only array');
    assert.equal(errorOf(() => applyFormat("csv", [1, { a: 1 }])), 'object ({"a":1}) is not valid in a csv row');
    assert.equal(errorOf(() => applyFormat("tsv", [[1]])), "array ([1]) is not valid in a csv row");
    assert.equal(errorOf(() => applyFormat("sh", { a: 1 })), 'object ({"a":1}) can not be escaped for shell');
    assert.equal(errorOf(() => applyFormat("sh", [["x"]])), 'array (["x"]) can not be escaped for shell');
  });
  test("unknown formats; base32 offered although jq 1.7.1 lacks it", () => {
    assert.equal(errorOf(() => applyFormat("yaml", 1)), "yaml is not a valid format");
    assert.equal(applyFormat("base32", "foo"), "MZXW6===");
    assert.equal(applyFormat("base32d", "MZXW6==="), "foo");
    assert.ok(isFormatName("csv"));
    assert.ok(isFormatName("base32"));
    assert.ok(!isFormatName("yaml"));
  });
});

describe("base32 codecs (gojq extension, not in jq 1.7.1)", () => {
  test("RFC 4648 vectors and round trip", () => {
    const vectors: [string, string][] = [
      ["", ""],
      ["f", "MY======"],
      ["fo", "MZXQ===="],
      ["foo", "MZXW6==="],
      ["foob", "MZXW6YQ="],
      ["fooba", "MZXW6YTB"],
      ["foobar", "MZXW6YTBOI======"],
    ];
    for (const [plain, enc] of vectors) {
      assert.equal(base32Encode(plain), enc);
      assert.equal(base32Decode(enc), plain);
    }
    assert.equal(base32Decode(base32Encode("caf\u00e9 \u{1F600}")), "caf\u00e9 \u{1F600}");
    assert.match(errorOf(() => base32Decode("mzxw6")), /is not valid base32 data/);
  });
});
