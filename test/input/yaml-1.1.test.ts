/**
 * YAML read as kubectl reads it (sigs.k8s.io/yaml v1.6.0 over go-yaml v2, a YAML 1.1 reader), by every
 * reader of Karta: objects, definitions, interpreter customizations and `karta jq --yaml`. The expected
 * values are what sigs.k8s.io/yaml v1.6.0's YAMLToJSON printed for each document (the version kubectl
 * 1.34 and 1.35 pin), run once by a Go program; they are written here so the test needs no Go.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import jsyaml from "js-yaml";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { parseObjects } from "../../src/cli/objects.js";
import { loadDefinitions } from "../../src/definition/load.js";
import { parseSourceDocuments } from "../../src/definition/yaml-source.js";
import { parseYamlDocuments } from "../../src/interpreter/declarative/yaml-documents.js";
import { mayReadAsYaml11 } from "../../src/input/yaml.js";

/** Document, and the JSON sigs.k8s.io/yaml made of it. */
const CASES: [string, string][] = [
  ["v: y", '{"v":true}'],
  ["v: Yes", '{"v":true}'],
  ["v: yEs", '{"v":"yEs"}'],
  ["v: NO", '{"v":false}'],
  ["v: off", '{"v":false}'],
  ["v: On", '{"v":true}'],
  ["v: t", '{"v":"t"}'],
  ["v: 010", '{"v":8}'],
  ["v: 0o10", '{"v":8}'],
  ["v: 0O10", '{"v":8}'],
  ["v: -0x1F", '{"v":-31}'],
  ["v: 0B101", '{"v":5}'],
  ["v: -0b101", '{"v":-5}'],
  ["v: 1_000", '{"v":1000}'],
  ["v: 1__0", '{"v":10}'],
  ["v: _1", '{"v":"_1"}'],
  ["v: 09", '{"v":9}'],
  ["v: 00", '{"v":0}'],
  ["v: 0x_1F", '{"v":31}'],
  ["v: 1_000.5", '{"v":1000.5}'],
  ["v: 1.", '{"v":1}'],
  ["v: 1e", '{"v":"1e"}'],
  ["v: 0x", '{"v":"0x"}'],
  ["v: Infinity", '{"v":"Infinity"}'],
  ["v: .", '{"v":"."}'],
  ["v: e3", '{"v":"e3"}'],
  ["v: 1.e3", '{"v":1000}'],
  ["v: 0_", '{"v":0}'],
  ["v: 0x_", '{"v":"0x_"}'],
  ["v: 0_7", '{"v":7}'],
  ["v: 08", '{"v":8}'],
  ["v: ._5", '{"v":"._5"}'],
  ["v: +._5", '{"v":0.5}'],
  ["v: 1e1_0", '{"v":10000000000}'],
  ["v: .5_0", '{"v":0.5}'],
  ["no : v", '{"false":"v"}'],
  ["010 : v", '{"8":"v"}'],
  ["? no\n: v", '{"false":"v"}'],
  ['v: {"k":no}', '{"v":{"k":false}}'],
  ["<< : {a: 1}", '{"a":1}'],
  ["v: ! ", '{"v":""}'],
  ["m:\n  v: 'a\n  b'", '{"m":{"v":"a b"}}'],
  ["v: [yes, !!str no]", '{"v":[true,"no"]}'],
  ["v: 2001-12-14", '{"v":"2001-12-14"}'],
  ["v: 2001-12-14T21:59:43.10-05:00", '{"v":"2001-12-14T21:59:43.10-05:00"}'],
  ["v: 12:30:00", '{"v":"12:30:00"}'],
  ["v: 190:20:30", '{"v":"190:20:30"}'],
  ["v: '010'", '{"v":"010"}'],
  ['v: "yes"', '{"v":"yes"}'],
  ["yes: x", '{"true":"x"}'],
  ["y: x", '{"true":"x"}'],
  ["010: x", '{"8":"x"}'],
  ["1.0: x", '{"1":"x"}'],
  ["base: &b {a: 1, b: 2}\nm:\n  <<: *b\n  b: 3", '{"base":{"a":1,"b":2},"m":{"a":1,"b":3}}'],
  ["s: !!set {a, b}", '{"s":{"a":null,"b":null}}'],
  ["s: !!set\n  ? a\n  ? b", '{"s":{"a":null,"b":null}}'],
  ["b: !!binary aGVsbG8=", '{"b":"hello"}'],
  ["v: !!str 1", '{"v":"1"}'],
  ["v: !!str yes", '{"v":"yes"}'],
  ['v: !!int "1"', '{"v":1}'],
  ["v: !!int '0x1F'", '{"v":31}'],
  ["v: !!bool yes", '{"v":true}'],
  ["v: !!omap [a: 1, b: 2]", '{"v":[{"a":1},{"b":2}]}'],
  ["v: !foo bar", '{"v":"bar"}'],
  ["v: [no, on, 0b11, 'no']", '{"v":[false,true,3,"no"]}'],
  // A float too large for a double is text to go-yaml v2 (Go's ParseFloat fails).
  ["v: 1e400", '{"v":"1e400"}'],
  ["v: [-1e400, 1e4_00]", '{"v":["-1e400","1e4_00"]}'],
  ["1e400: x", '{"1e400":"x"}'],
  // A key that is a number is Go's text of it: an int64's digits, else a float32 as FormatFloat writes it.
  ["3.14159265358979: x", '{"3.1415927":"x"}'],
  ["1e20: x", '{"1e+20":"x"}'],
  ["0.00001: x", '{"1e-05":"x"}'],
  ["1234567.0: x", '{"1.234567e+06":"x"}'],
  ["-0.0: x", '{"-0":"x"}'],
  ["9223372036854775807: x", '{"9223372036854775807":"x"}'],
  ["12345678901234567890123: x", '{"1.2345679e+22":"x"}'],
  ["0b11: x", '{"3":"x"}'],
  [".inf: x", '{".inf":"x"}'],
  ["-.Inf: x", '{"-.inf":"x"}'],
  [".nan: x", '{".nan":"x"}'],
  // Halfway between two shortest decimals, Go's digits end even.
  ["302272.125: x", '{"302272.12":"x"}'],
  ["-1.5908792e+06: x", '{"-1.5908792e+06":"x"}'],
  // An alias key is the scalar it names.
  ["&k foo: 1\n*k : 2", '{"foo":2}'],
  ["a: &x 1e20\nb: {*x : y}\nc: *x", '{"a":1e20,"b":{"1e+20":true},"c":1e20}'],
  // Number keys in a flow mapping too.
  ["a: {1e6: x, 3.14159265358979: z}", '{"a":{"1e+06":"x","3.1415927":"z"}}'],
  // A merge overrides the keys written before it; the keys after it override the merge.
  ["base: &b {x: 1}\nmid: &m\n  <<: *b\n  z: 2\nout:\n  x: 0\n  <<: *m", '{"base":{"x":1},"mid":{"x":1,"z":2},"out":{"x":1,"z":2}}'],
  ["b: 1\n<<: {b: 2, c: 3}", '{"b":2,"c":3}'],
  ["x: &a {b: 2, c: 1}\nm:\n  b: 1\n  c: 3\n  <<: [*a, {c: 5, d: 1}]\n  d: 7", '{"x":{"b":2,"c":1},"m":{"b":2,"c":1,"d":7}}'],
];

/** Documents sigs.k8s.io/yaml refuses, and what Karta's message says. */
const REFUSED: [string, number, RegExp][] = [
  ["v: .inf", 1, /^\.inf is not a JSON number: JSON has no infinity or NaN/],
  ["m:\n  v: [1, -.Inf]", 2, /^-\.Inf is not a JSON number/],
  ["v: .NaN", 1, /^\.NaN is not a JSON number/],
  ["~: a", 1, /^a mapping key must be a string, a number or a boolean, not null/],
  ["m:\n  null: a", 2, /^a mapping key must be a string, a number or a boolean, not null/],
  ["[1, 2]: a", 1, /^a mapping key must be a string, a number or a boolean, not a list/],
  ["? {a: 1}\n: a", 1, /not a mapping/],
  ["{[a]: 1}", 1, /not a list/],
  ["- a: &k [1]\n- *k : 2", 2, /not a (list|alias)/],
  ["9223372036854775808: x", 1, /^mapping key 9223372036854775808: an integer above 2\^63-1 cannot be a key/],
  ["a: {~: x}", 1, /not null/],
  ["a: &l [1]\nb: {*l : 1}", 2, /not a list/],
];

/** A block scalar on the text's last line, without a line break: none in the value (libyaml's chomping at the end of input). */
const AT_END: [string, string][] = [
  ["v: |\n  x", '{"v":"x"}'],
  ["v: |+\n  x", '{"v":"x"}'],
  ["v: >\n  x\n\n  y", '{"v":"x\\ny"}'],
  ["v: |+\n  x\n\n  y", '{"v":"x\\n\\ny"}'],
  ["v: |\n  x # not a comment", '{"v":"x # not a comment"}'],
  ["v:\n  - |\n    x", '{"v":["x"]}'],
  ["v: |2\n   x", '{"v":" x"}'],
  // A last line of spaces is not the scalar's: its line break stays.
  ["v: |+\n  x\n  ", '{"v":"x\\n"}'],
  ["v: |\n  x\n#c", '{"v":"x\\n"}'],
];

describe("YAML is read as kubectl reads it (YAML 1.1, go-yaml v2)", () => {
  test("objects (inspect, compile, get -f...): each value as sigs.k8s.io/yaml makes it", () => {
    for (const [doc, json] of CASES) assert.deepEqual(parseObjects(`${doc}\n`, "c.yaml"), [JSON.parse(json)], doc);
  });

  test("the fast reader (js-yaml, YAML 1.2) is given only text it reads as kubectl does", () => {
    for (const [doc, json] of CASES) {
      if (mayReadAsYaml11(doc)) continue;
      let fast: unknown;
      try {
        fast = jsyaml.load(doc, { schema: jsyaml.CORE_SCHEMA });
      } catch {
        continue; // refused: the `yaml` library reads it
      }
      assert.deepEqual(fast, JSON.parse(json), doc);
    }
    assert.ok(CASES.filter(([doc]) => mayReadAsYaml11(doc)).length > 30);
    // The words inside longer text, and numbers without a leading zero, keep the fast reader.
    for (const doc of ["restartCount: 0", "port: 8080", "message: Back-off restarting", "image: nginx:1.27", "mode: 420"]) assert.equal(mayReadAsYaml11(doc), false, doc);
    // Nor does the JSON kubectl apply keeps in an annotation.
    const applied = 'metadata:\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: |\n      {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}\n';
    assert.equal(mayReadAsYaml11(applied), false);
  });

  test("what kubectl refuses (an infinity, a null or collection key, a key above int64) is an error naming the line", () => {
    for (const [doc, line, message] of REFUSED) {
      // Each reader names the line of the value or key refused.
      assert.throws(() => parseObjects(`${doc}\n`, "c.yaml"), (err: Error) => (err.message.startsWith(`c.yaml:${line}:`) && message.test(err.message.replace(/^c\.yaml:\d+:\d+: /, ""))) || assert.fail(`${doc}: ${err.message}`), doc);
      const customization = parseYamlDocuments(`${doc}\n`).errors[0];
      assert.deepEqual([customization?.line, message.test(customization?.message ?? "")], [line, true], doc);
      const [source] = parseSourceDocuments(`${doc}\n`, "d.yaml");
      const error = source!.errors[0];
      assert.deepEqual([error && source!.sourceMap.lineColumn(error.offset).line, message.test(error?.message ?? "")], [line, true], doc);
    }
  });

  test("a block scalar that ends the text without a line break has none, in every reader", () => {
    for (const [doc, json] of AT_END) {
      const expected = JSON.parse(json) as unknown;
      assert.deepEqual(parseObjects(doc, "c.yaml"), [expected], doc);
      assert.deepEqual(parseYamlDocuments(doc).documents.map((d) => d.value), [expected], doc);
      assert.deepEqual(parseSourceDocuments(doc, "d.yaml")[0]!.value, expected, doc);
      // With the line break, the value keeps it (clip) as before.
      if (!/\n[ \t]*$|#c$/.test(doc)) assert.notDeepEqual(parseObjects(`${doc}\n`, "c.yaml"), [expected], doc);
    }
  });

  test("a Job with suspend: no is not suspended, as kubectl applies it", () => {
    const [job] = parseObjects("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  suspend: no\n  parallelism: 010\n", "job.yaml") as { spec: unknown }[];
    assert.deepEqual(job!.spec, { suspend: false, parallelism: 8 });
  });

  test("definitions (with their positions) and interpreter customizations read the same values", () => {
    for (const [doc, json] of CASES) {
      const expected = JSON.parse(json) as unknown;
      assert.deepEqual(parseYamlDocuments(`${doc}\n`).documents.map((d) => d.value), [expected], doc);
      const [source] = parseSourceDocuments(`${doc}\n`, "d.yaml");
      assert.deepEqual([source!.errors, source!.value], [[], expected], doc);
    }
    // Of two equal keys the last is kept, as go-yaml v2 keeps it ({"a":2}); a definition refuses them (a linter's choice).
    assert.deepEqual(parseObjects("a: 1\na: 2\n", "o.yaml"), [{ a: 2 }]);
    assert.deepEqual(parseYamlDocuments("a: 1\nb: {c: 1, c: 3}\n").documents[0]!.value, { a: 1, b: { c: 3 } });
    assert.equal(parseSourceDocuments("a: 1\na: 2\n", "d.yaml")[0]!.errors[0]!.message, `key "a" is given twice in this mapping: keys must be unique (kubectl would keep the last)`);
  });

  test("a definition with quoted text continued at its key's column (kubectl get -o yaml writes long values so) reads, with the file's positions", () => {
    const text = [
      "spec:",
      "  structureDefinition:",
      "    rootComponent:",
      "      name: job",
      "      kind: {group: batch, version: v1, kind: Job}",
      "      specDefinition: {podTemplateSpecPath: .spec.template}",
      "      statusDefinition:",
      "        statusMappings:",
      "          running:",
      "          - byExpression:",
      "              expression: '.status.active",
      "> 0'",
      '              expectedResult: "true"',
      "      bogus: 1",
      "",
    ].join("\n");
    const loaded = loadDefinitions(text, "k.yaml");
    assert.equal(loaded.definitions.length, 1);
    const running = loaded.definitions[0]!.karta.spec?.structureDefinition?.rootComponent?.statusDefinition?.statusMappings as { running: { byExpression: { expression: string } }[] };
    assert.equal(running.running[0]!.byExpression.expression, ".status.active > 0");
    assert.deepEqual(
      loaded.diagnostics.filter((d) => d.severity === "error").map((d) => [d.source?.line, d.source?.column, d.path]),
      [[14, 7, "spec.structureDefinition.rootComponent.bogus"]],
    );
  });

  test("the fast path's gate takes time in proportion to the text (a long run of _ or . cannot make it backtrack)", { timeout: 20_000 }, () => {
    for (const text of [`v: |\n  ${"_".repeat(200_000)} end\n`, `v: ${"._".repeat(100_000)}x\n`, `k: 0${"_".repeat(200_000)}x\n`]) assert.equal(mayReadAsYaml11(text), false);
  });

  test("a list item's quoted text continued at the dash's column reads too", () => {
    assert.deepEqual(parseObjects("kind: Pod\nspec:\n  enableServiceLinks: no\n  args:\n  - 'a long\n  argument'\n", "p.yaml"), [{ kind: "Pod", spec: { enableServiceLinks: false, args: ["a long argument"] } }]);
  });

  test("a definition with a key given twice parses (exit 1, a finding), unlike one that does not parse (exit 2)", () => {
    const d = loadDefinitions("spec:\n  a: 1\n  a: 2\n", "d.yaml").diagnostics;
    assert.deepEqual(d.map((x) => x.code), ["duplicate-key"]);
    // With quoted text continued at its key's column as well: still the one finding, on its line.
    const both = loadDefinitions("metadata:\n  name: x\n  name: y\n  annotations:\n    note: 'a long\n    text'\n", "d.yaml").diagnostics;
    assert.deepEqual(both.map((x) => [x.code, x.source?.line]), [["duplicate-key", 3]]);
  });

  test("karta jq --yaml", async () => {
    const io = memoryIO("a: on\nb: 0o17\nc: !!set {x}\n");
    assert.equal(await main(["jq", "--yaml", "-c", "."], io), 0, io.err);
    assert.equal(io.out, '{"a":true,"b":15,"c":{"x":null}}\n');
  });
});
