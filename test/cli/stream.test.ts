/** Objects as a stream: JSON Lines and concatenated JSON values, read by every command that reads objects. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { parse, parseAllDocuments } from "yaml";
import { memoryIO } from "../../src/cli/io.js";
import { parseJsonStream } from "../../src/input/json-stream.js";
import { main } from "../../src/cli/main.js";
import { InputError, parseObjects } from "../../src/cli/objects.js";
import { yamlValues } from "../../src/cli/yaml-input.js";
import { KUBECTL_YAML } from "../../src/input/yaml.js";
import { listInputFiles } from "../../src/files/index.js";
import { repoRoot } from "../support/conformance.js";

const pods = (parse(readFileSync(path.join(repoRoot, "examples/pytorchjob-pods.yaml"), "utf8")) as { items: unknown[] }).items;

test("a List's items are objects, as kubectl reads a List; none when it has no items", () => {
  assert.throws(() => parseObjects('{"kind":"List","items":[1,{"kind":"Pod"}]}', "l.json"), (e: unknown) => e instanceof InputError && /^l\.json: List: items\[0\]: expected an object, found a number$/.test(e.message));
  assert.throws(() => parseObjects('{"kind":"PodList","items":{"a":1}}', "l.json"), (e: unknown) => e instanceof InputError && /^l\.json: PodList: items: expected a list of objects, found an object$/.test(e.message));
  assert.deepEqual(parseObjects('{"kind":"List","items":null}', "l.json"), []);
  assert.deepEqual(parseObjects('{"kind":"List"}', "l.json"), []);
  assert.deepEqual(parseObjects('{"kind":"List","items":[{"kind":"Pod"}]}', "l.json"), [{ kind: "Pod" }]);
});

describe("parseJsonStream", () => {
  test("JSON Lines, concatenated pretty values, values on one line, with their lines", () => {
    assert.deepEqual(parseJsonStream('{"a":1}\n{"b":2}\n\n[3]\n'), [
      { value: { a: 1 }, line: 1 },
      { value: { b: 2 }, line: 2 },
      { value: [3], line: 4 },
    ]);
    assert.deepEqual(parseJsonStream('{\n  "a": "}{"\n}\n{\n  "b": [1,\n 2]\n}{"c":3} 4 "x"'), [
      { value: { a: "}{" }, line: 1 },
      { value: { b: [1, 2] }, line: 4 },
      { value: { c: 3 }, line: 7 },
      { value: 4, line: 7 },
      { value: "x", line: 7 },
    ]);
    assert.deepEqual(parseJsonStream('\ufeff{"a":"\\"}"}\r\n{"b":1}\r\n'), [
      { value: { a: '"}' }, line: 1 },
      { value: { b: 1 }, line: 2 },
    ]);
  });

  test("a broken value is reported at its line", () => {
    assert.throws(() => parseJsonStream('{"a":1}\n{"b":\n'), /not closed/);
    try {
      parseJsonStream('{"a":1}\n{"b": tru}\n');
      assert.fail("no error");
    } catch (e) {
      assert.equal((e as { line: number }).line, 2);
    }
  });
});

describe("parseObjects", () => {
  const jsonl = pods.map((p) => JSON.stringify(p)).join("\n") + "\n";
  const pretty = pods.map((p) => JSON.stringify(p, null, 2)).join("\n");

  test("JSON Lines, concatenated JSON, a List and YAML all give the same objects", () => {
    const list = JSON.stringify({ apiVersion: "v1", kind: "List", items: pods }, null, 4);
    for (const text of [jsonl, pretty, list, pods.map((p) => JSON.stringify(p)).join("")]) assert.deepEqual(parseObjects(text, "pods"), pods);
  });

  test("YAML flow style still goes to the YAML reader; a broken stream names its line", () => {
    assert.deepEqual(parseObjects("{a: 1, b: [x, z]}\n", "f"), [{ a: 1, b: ["x", "z"] }]);
    assert.throws(() => parseObjects('{"a":1}\n{"b": nope}\n', "pods.jsonl"), (e: unknown) => e instanceof InputError && /^pods\.jsonl:2: invalid JSON/.test(e.message));
  });

  test("js-yaml and yaml read Kubernetes YAML alike; anchors and odd numbers go to yaml", () => {
    const text = readFileSync(path.join(repoRoot, "examples/raycluster-pods.yaml"), "utf8");
    assert.deepEqual(yamlValues(text), [parse(text, KUBECTL_YAML)]);
    // 0b101 is 5 to kubectl (YAML 1.1), text to YAML 1.2.
    assert.deepEqual(yamlValues("a: &x {b: 1}\nc: *x\nd: 0b101\ne: -.5\n"), [{ a: { b: 1 }, c: { b: 1 }, d: 5, e: -0.5 }]);
    assert.throws(() => parseObjects("a: [1,\n", "bad.yaml"), (e: unknown) => e instanceof InputError && /^bad\.yaml:2:1: Flow sequence/.test(e.message));
  });

  test("the bundled definitions, whose statuses share jq through anchors, read as trusted text give what yaml gives; untrusted anchors still go to yaml", () => {
    const dir = path.join(repoRoot, "definitions");
    const files = listInputFiles([dir], { recursive: true });
    assert.ok(files.length > 20, `bundled definitions: ${files.length}`);
    let anchored = 0;
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      if (/&\w+ /.test(text)) anchored++;
      assert.deepEqual(yamlValues(text, true), parseAllDocuments(text, KUBECTL_YAML).map((d) => d.toJS()), file);
    }
    assert.ok(anchored > 20, `definitions with an anchor: ${anchored}`);
    // yaml bounds aliases (a "billion laughs" document); js-yaml reads only trusted text with anchors.
    const laughs = ["a: &a [x, x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10).fill(`*${String.fromCharCode(97 + i)}`).join(", ")}]`)].join("\n");
    assert.throws(() => yamlValues(laughs), /alias/i);
  });

  test("inspect reads pods as JSON Lines from stdin; interpret reads a JSON object and status items as JSON Lines", async () => {
    const cwd = process.cwd();
    process.chdir(repoRoot);
    try {
      const yaml = memoryIO();
      await main(["inspect", "-f", "examples/pytorchjob.yaml", "--pods", "examples/pytorchjob-pods.yaml"], yaml);
      const stream = memoryIO(jsonl);
      assert.equal(await main(["inspect", "-f", "examples/pytorchjob.yaml", "--pods", "-"], stream), 0, stream.err);
      assert.equal(stream.out, yaml.out);
      const deployment = JSON.stringify(parse(readFileSync("examples/deployment.yaml", "utf8")));
      const items = [{ clusterName: "a", status: { readyReplicas: 1 } }, { clusterName: "b", status: { readyReplicas: 2 } }].map((i) => JSON.stringify(i)).join("\n");
      const io = memoryIO(items, { "d.json": deployment });
      assert.equal(await main(["interpret", "--operation", "AggregateStatus", "--desired-file", "d.json", "--status-file", "-", "-o", "json"], io), 0, io.err);
      assert.equal((JSON.parse(io.out) as { aggregatedStatus: { status: { readyReplicas: number } } }).aggregatedStatus.status.readyReplicas, 3);
    } finally {
      process.chdir(cwd);
    }
  });
});
