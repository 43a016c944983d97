/**
 * Karta's kubectl JSONPath templates and custom columns (src/jsonpath), case by case: kubectl's documented
 * examples, how values print, range and its quirks, kubectl's errors, custom columns and their layout,
 * and the bounds on evaluation. test/jsonpath/differential.test.ts runs a larger corpus against kubectl's
 * own printers.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { JsonValue } from "../../src/input/index.js";
import { KUBECTL_DOC as DOC } from "./kubectl-doc.js";
import { customColumnsFilePrinter, customColumnsPrinter, jsonPathPrinter, MAX_RANGE_DEPTH, parse, relaxedJSONPathExpression, TabWriter, type JsonPathOptions } from "../../src/jsonpath/index.js";


/** What the template prints for the value, or its error. */
function run(template: string, value: JsonValue = DOC, options: JsonPathOptions = {}): string {
  const p = jsonPathPrinter(template, options);
  if (!p.ok) return `ERROR ${p.error}`;
  const out = p.printer.print(value);
  return out.ok ? out.text : `ERROR ${out.error}`;
}

/** The error's first line, without kubectl's dump of the object. */
const reason = (out: string): string => out.replace(/\. Printing more information[\s\S]*$/, "");

describe("kubectl's documented examples", () => {
  test("text, @, child, recursive descent, wildcard, index, union, filter, range, negative slice", () => {
    assert.equal(run("kind is {.kind}"), "kind is List");
    assert.ok(run("{@}").startsWith('{"items":[{"kind":"None","metadata":{"labels":'), "the input, keys sorted");
    assert.equal(run("{.kind}"), "List");
    assert.equal(run("{['kind']}"), "List");
    assert.equal(run("{..name}"), "127.0.0.1 127.0.0.2 myself e2e");
    assert.equal(run("{.items[*].metadata.name}"), "127.0.0.1 127.0.0.2");
    assert.equal(run("{.users[0].name}"), "myself");
    assert.equal(run("{.items[*]['metadata.name', 'status.capacity']}"), '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}');
    assert.equal(run('{.users[?(@.name=="e2e")].user.password}'), "secret");
    assert.equal(run("{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}"), '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] ');
    assert.equal(run("{.users[-1:].name}"), "e2e");
    assert.equal(run('{range .items[*]}{.metadata.name}{"\\t"}{.status.capacity.cpu}{"\\n"}{end}'), "127.0.0.1\t4\n127.0.0.2\t8\n");
    assert.equal(run("{.items[0].metadata.labels.kubernetes\\.io/hostname}"), "127.0.0.1");
  });

  test("{@} prints the object as Go's encoding/json does: keys sorted, <>& escaped", () => {
    assert.equal(run("{@}", { b: 1, a: "<&>", c: [1.5, null, true] }), '{"a":"\\u003c\\u0026\\u003e","b":1,"c":[1.5,null,true]}');
  });
});

describe("how values print", () => {
  const doc: JsonValue = { s: "a b", i: 7, big: 2 ** 60, f: 1.5e-7, g: 1234567.5, e: 1e21, t: true, n: null, m: { z: 1, a: [] }, l: [1, "x"], u: "é" };
  test("strings bare, numbers as Go prints an int64 or a float64, null, objects and arrays as JSON", () => {
    assert.equal(run("{.s}|{.i}|{.big}|{.f}|{.g}|{.e}|{.t}|{.n}|{.m}|{.l}", doc), 'a b|7|1152921504606846976|1.5e-07|1.2345675e+06|1e+21|true|null|{"a":[],"z":1}|[1,"x"]');
  });
  test("several results are joined by a space; literals print as Go prints an int, a float64, a bool", () => {
    assert.equal(run("{.l[*]}", doc), "1 x");
    assert.equal(run("{1}{2.50}{1000000.0}{true}{-0.0}", doc), "12.51e+06true-0");
  });
  test("jsonpath-as-json: each action's results as an indented JSON array", () => {
    assert.equal(run("{.l[*]}", doc, { asJSON: true }), '[\n    1,\n    "x"\n]\n');
    assert.equal(run("{.nope}{.m}", doc, { asJSON: true }), '[]\n[\n    {\n        "a": [],\n        "z": 1\n    }\n]\n');
  });
  test(".* on a string steps into its bytes (Go's uint8), as client-go does", () => {
    assert.equal(run("{.u.*}", doc), "195 169");
    assert.equal(run("{.s.*}", doc, { asJSON: true }), "[\n    97,\n    32,\n    98\n]\n");
  });
  test("quoted strings: Go's escapes, in double or single quotes", () => {
    assert.equal(run('{"a\\tb\\n"}{\'c\'}{"\\u00e9\\x41\\101"}'), "a\tb\ncéAA");
    assert.equal(reason(run('{"\\q"}')), 'ERROR error parsing jsonpath {"\\q"}, unquote string "\\q" error invalid syntax');
  });
});

describe("filters", () => {
  const doc: JsonValue = { l: [{ n: 1, s: "a" }, { n: 2.5, s: "b" }, { n: 3 }, { s: null }], flags: [true, false], ints: [1, 5, 3], floats: [0.5, 2.5], names: ["a", "b", "c"] };
  test("comparisons of numbers, strings and existence", () => {
    assert.equal(run("{.ints[?(@ > 1)]}", doc), "5 3");
    assert.equal(run("{.floats[?(@ > 1.0)]}", doc), "2.5", "a float literal compares with float64s");
    assert.equal(run('{.names[?(@ >= "b")]}', doc), "b c");
    assert.match(run('{.l[?(@.s >= "b")].s}', doc), /Error executing template: invalid type for comparison/, "null is no string");
    assert.equal(run("{.l[?(@.s)].n}", doc), "1 2.5", "a null value exists");
    assert.equal(run("{.l[?(@.s)]}", doc), '{"n":1,"s":"a"} {"n":2.5,"s":"b"} {"s":null}');
  });
  test("comparing values of different kinds is text/template's error", () => {
    assert.equal(reason(run('{.l[?(@.n == "1")]}', doc)), 'ERROR error executing jsonpath "{.l[?(@.n == \\"1\\")]}": Error executing template: incompatible types for comparison');
    assert.equal(reason(run("{.l[?(@.n > 1)]}", doc)), 'ERROR error executing jsonpath "{.l[?(@.n > 1)]}": Error executing template: incompatible types for comparison', "2.5 is a float64, 1 an int");
    assert.equal(reason(run("{.flags[?(@ < true)]}", doc)), 'ERROR error executing jsonpath "{.flags[?(@ < true)]}": Error executing template: invalid type for comparison');
    assert.equal(reason(run("{.l[?(@.n =< 1)]}", doc)), 'ERROR error executing jsonpath "{.l[?(@.n =< 1)]}": Error executing template: unrecognized filter operator =<');
  });
  test("a filter over something that is not an array", () => {
    assert.equal(reason(run("{.l[0][?(@.n)]}", doc)), 'ERROR error executing jsonpath "{.l[0][?(@.n)]}": Error executing template: map[n:1 s:a] is not array or slice and cannot be filtered');
  });
});

describe("range", () => {
  const doc: JsonValue = { items: [{ name: "a", tags: ["x", "y"] }, { name: "b", tags: [] }] };
  test("nested ranges, and a range over nothing", () => {
    assert.equal(run('{range .items[*]}{.name}:{range .tags[*]}{@},{end};{end}', doc), "a:x,y,;b:;");
    assert.equal(run("{range .nope[*]}{.name}{end}after", doc), "after");
  });
  test("a range without {end} runs the rest per value and then once more on the object, as client-go", () => {
    assert.equal(run("{range .items[*]}{.name}", doc), "ab", "a, b, then .name of the object: nothing");
    assert.equal(reason(run("{range .items[*]}{.name}", doc, { allowMissingKeys: false })), 'ERROR error executing jsonpath "{range .items[*]}{.name}": Error executing template: name is not found');
  });
  test("{end} outside a range, and unknown words, fail when the template runs", () => {
    assert.equal(reason(run("{end}", doc)), 'ERROR error executing jsonpath "{end}": Error executing template: not in range, nothing to end');
    assert.equal(reason(run("{foo}", doc)), 'ERROR error executing jsonpath "{foo}": Error executing template: unrecognized identifier foo');
  });
});

describe("errors", () => {
  test("parse errors, with kubectl's wording", () => {
    for (const [template, error] of [
      ["{.a", "unclosed action"],
      ["{.a[}", "unterminated array"],
      ["{.a[?(@.b}", "unterminated filter"],
      ["{.a[?(@.b)}", "unclosed array expect ]"],
      ["{.a[x]}", "invalid array index x"],
      ["{.a[1:-]}", "array index - is not a number"],
      ["{*}", "unrecognized character in action: U+002A '*'"],
      ["{.a,.b}", "unrecognized character in action: U+002C ','"],
      ["{.a\t}", "unrecognized character in action: U+0009"],
      ["{....a}", "invalid multiple recursive descent"],
      ["{1.2.3}", "cannot parse number 1.2.3"],
      ['{"a}', "unterminated quoted string"],
    ]) {
      assert.equal(run(template!), `ERROR error parsing jsonpath ${template}, ${error}`, template);
    }
    assert.equal(run(""), "ERROR template format specified but no template given");
  });

  test("missing keys print nothing (kubectl's default), or fail without --allow-missing-template-keys", () => {
    assert.equal(run("{.nope}x"), "x");
    const out = run("{.nope}", DOC, { allowMissingKeys: false });
    assert.equal(out, `ERROR error executing jsonpath "{.nope}": Error executing template: nope is not found. Printing more information for debugging the template:\n\ttemplate was:\n\t\t{.nope}\n\tobject given to jsonpath engine was:\n\t\tmap[string]interface {}{"items":[]interface {}{map[string]interface {}{"kind":"None", "metadata":map[string]interface {}{"labels":map[string]interface {}{"kubernetes.io/hostname":"127.0.0.1"}, "name":"127.0.0.1"}, "status":map[string]interface {}{"addresses":[]interface {}{map[string]interface {}{"address":"127.0.0.1", "type":"LegacyHostIP"}}, "capacity":map[string]interface {}{"cpu":"4"}}}, map[string]interface {}{"kind":"None", "metadata":map[string]interface {}{"name":"127.0.0.2"}, "status":map[string]interface {}{"addresses":[]interface {}{map[string]interface {}{"address":"127.0.0.2", "type":"LegacyHostIP"}, map[string]interface {}{"address":"127.0.0.3", "type":"another"}}, "capacity":map[string]interface {}{"cpu":"8"}}}}, "kind":"List", "users":[]interface {}{map[string]interface {}{"name":"myself", "user":map[string]interface {}{}}, map[string]interface {}{"name":"e2e", "user":map[string]interface {}{"password":"secret", "username":"admin"}}}}\n\n\n`);
  });

  test("indexes out of bounds, steps, types", () => {
    assert.equal(reason(run("{.items[5]}")), 'ERROR error executing jsonpath "{.items[5]}": Error executing template: array index out of bounds: index 5, length 2');
    assert.equal(reason(run("{.items[-3]}")), 'ERROR error executing jsonpath "{.items[-3]}": Error executing template: array index out of bounds: index -1, length 2');
    assert.equal(reason(run("{.items[0:2:0]}")), 'ERROR error executing jsonpath "{.items[0:2:0]}": Error executing template: step must be > 0');
    assert.equal(reason(run("{.kind[0]}")), 'ERROR error executing jsonpath "{.kind[0]}": Error executing template: string is not array or slice');
    assert.equal(run("{.items[1:1]}"), "", "an empty slice is no error");
  });
});

describe("custom columns", () => {
  const list: JsonValue = { items: [{ name: "a", pods: { ready: 1, total: 2 }, nodes: ["n1", "n2"] }, { name: "bbbbbbbbbb", pods: { ready: 0, total: 0 }, nodes: [] }], count: 2 };
  const print = (spec: string, value: JsonValue = list, noHeaders = false): string => {
    const p = customColumnsPrinter(spec, { noHeaders });
    if (!p.ok) return `ERROR ${p.error}`;
    const out = p.printer.print(value);
    return out.ok ? out.text : `ERROR ${out.error}`;
  };
  test("a row per item of a list (or the object), cells as %v, <none>, aligned as kubectl's tabwriter", () => {
    assert.equal(print("NAME:.name,READY:{.pods.ready},NODES:nodes[*],PODS:.pods"), "NAME         READY   NODES    PODS\na            1       n1,n2    map[ready:1 total:2]\nbbbbbbbbbb   0       <none>   map[ready:0 total:0]\n");
    assert.equal(print("NAME:.name", (list as { items: JsonValue[] }).items[0]!), "NAME\na\n");
    assert.equal(print("NAME:.name,X:.nope", list, true), "a            <none>\nbbbbbbbbbb   <none>\n");
    assert.equal(print("NAME:.name", { items: [] }), "NAME\n");
  });
  test("kubectl's errors for a spec", () => {
    assert.equal(print(""), "ERROR custom-columns format specified but no custom columns given");
    assert.equal(print("NAME"), "ERROR unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>");
    assert.equal(print("X:{.a}{.b}"), "ERROR unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'");
    assert.equal(print("X:.a["), "ERROR unterminated array");
    assert.equal(print("X:.name[0]"), "ERROR string is not array or slice");
  });
  test("RelaxedJSONPathExpression", () => {
    for (const path of ["a.b", ".a.b", "{a.b}", "{.a.b}"]) assert.deepEqual(relaxedJSONPathExpression(path), { ok: true, template: "{.a.b}" });
    assert.deepEqual(relaxedJSONPathExpression(""), { ok: true, template: "" });
  });
  test("a columns file: a line of headers and a line of paths; its header is always printed", () => {
    const p = customColumnsFilePrinter("NAME   READY\n.name  {.pods.ready}\n");
    assert.ok(p.ok);
    assert.deepEqual(p.printer.print(list), { ok: true, text: "NAME         READY\na            1\nbbbbbbbbbb   0\n" });
    assert.deepEqual(customColumnsFilePrinter("NAME\n"), { ok: false, error: "invalid template, missing spec line. Expected format is one line of space separated headers, one line of space separated column specs." });
    assert.deepEqual(customColumnsFilePrinter("A B\n.a\n"), { ok: false, error: "number of headers (2) and field specifications (1) don't match" });
  });
  test("written object by object (as kubectl's watch prints), the header once and the widths only growing", () => {
    const p = customColumnsPrinter("NAME:.name,READY:.pods.ready");
    assert.ok(p.ok);
    p.printer.write({ name: "long-name-here", pods: { ready: 1 } });
    assert.equal(p.printer.flush(), "NAME             READY\nlong-name-here   1\n");
    p.printer.write({ name: "a", pods: { ready: 2 } });
    assert.equal(p.printer.flush(), "a                2\n");
  });
});

test("tabwriter: blocks of lines with a cell in a column; a line without tabs ends them", () => {
  const w = new TabWriter();
  w.write("a\tbb\tc\naaaa\tb\nplain line\nx\ty\n");
  // Column 1 holds only "bb" (a line's last cell is no column's): its block is one line wide, at least 6.
  assert.equal(w.flush(), "a      bb    c\naaaa   b\nplain line\nx      y\n");
});

describe("bounds", () => {
  test("`..` over a deeply nested value walks without recursion", () => {
    let deep: JsonValue = { name: "bottom" };
    for (let i = 0; i < 100_000; i++) deep = { a: [deep] };
    assert.equal(run("{..name}", deep), "bottom");
  });
  test("printing a value nested deeper than 1000 levels is an error, not a crash", () => {
    let deep: JsonValue = 1;
    for (let i = 0; i < 5000; i++) deep = [deep];
    assert.match(run("{.x}", { x: deep }), /^ERROR .*nested more than 1000 levels deep/);
  });
  test("ranges nested deeper than the bound, and templates that make too many values, fail with a clear error", () => {
    const ranges = "{range @}".repeat(MAX_RANGE_DEPTH + 5);
    assert.match(run(ranges, { a: 1 }), new RegExp(`ranges nested more than ${MAX_RANGE_DEPTH} deep`));
    let nested: JsonValue = 1;
    for (let i = 0; i < 12; i++) nested = [nested];
    const wide = `{.l${"[0,0,0,0,0,0,0,0]".repeat(12)}}`;
    assert.match(run(wide, { l: nested }), /the template makes more than 10000000 values/);
  });
  test("a long template parses without recursion", () => {
    const long = "{.a}".repeat(50_000);
    const p = parse(long);
    assert.ok(p.ok && p.root.nodes.length === 50_000);
  });
});
