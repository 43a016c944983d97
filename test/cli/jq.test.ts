/** `karta jq` run in-process: flags, output formats and exit codes as jq's. */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { repoRoot } from "../fixtures/objects.js";

async function karta(args: string[], stdin = "") {
  const io = memoryIO(stdin);
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}
const example = path.join(repoRoot, "examples", "pytorchjob.yaml");

describe("karta jq", () => {
  test("pretty output by default, -c compact, -r raw", async () => {
    assert.deepEqual(await karta(["jq", ".a"], '{"a":{"b":[1]}}'), { code: 0, out: '{\n  "b": [\n    1\n  ]\n}\n', err: "" });
    assert.equal((await karta(["jq", "-c", ".a"], '{"a":{"b":[1]}}')).out, '{"b":[1]}\n');
    assert.equal((await karta(["jq", "-r", ".[]"], '["x","y"]')).out, "x\ny\n");
    assert.equal((await karta(["jq", "-j", ".[]"], '["x",1]')).out, "x1");
  });
  test("a stream of values, slurp and null input", async () => {
    assert.equal((await karta(["jq", "-c", ".n"], '{"n":1}\n{"n":2}\n{"n":\n3}')).out, "1\n2\n3\n");
    assert.equal((await karta(["jq", "-c", "-s", "map(.n) | add"], '{"n":1} {"n":2}')).out, "3\n");
    assert.equal((await karta(["jq", "-n", "-c", "[inputs.n]"], '{"n":1} {"n":2}')).out, "[1,2]\n");
    assert.equal((await karta(["jq", "-c", "-s", "."], "")).out, "[]\n");
  });
  test("-n with -s: . is null and input is the slurped array, as in jq", async () => {
    const pods = '{"kind":"Pod","metadata":{"name":"mnist-worker-0"}}\n{"kind":"Pod","metadata":{"name":"mnist-worker-1"}}';
    assert.equal((await karta(["jq", "-n", "-s", "-c", "."], pods)).out, "null\n");
    assert.equal((await karta(["jq", "-ns", "-c", "input | map(.metadata.name)"], pods)).out, '["mnist-worker-0","mnist-worker-1"]\n');
    assert.equal((await karta(["jq", "-ns", "-c", "[inputs] | length"], pods)).out, "1\n");
  });
  test("--arg, --argjson, $ARGS, --tab, --indent, -S", async () => {
    const r = await karta(["jq", "-n", "-c", "--arg", "ns", "ml-team", "--argjson", "n", "3", "[$ns, $n, $ARGS.named]"]);
    assert.equal(r.out, '["ml-team",3,{"ns":"ml-team","n":3}]\n');
    assert.equal((await karta(["jq", "--tab", "."], "[1]")).out, "[\n\t1\n]\n");
    assert.equal((await karta(["jq", "--indent", "1", "."], "[1]")).out, "[\n 1\n]\n");
    assert.equal((await karta(["jq", "-S", "-c", "."], '{"b":1,"a":2}')).out, '{"a":2,"b":1}\n');
  });
  test("YAML input: a bundled PyTorchJob", async () => {
    const r = await karta(["jq", "-r", "--yaml", '.spec.pytorchReplicaSpecs | to_entries[] | "\\(.key)=\\(.value.replicas)"', example]);
    assert.deepEqual(r, { code: 0, out: "Master=1\nWorker=3\n", err: "" });
  });
  test("exit codes: -e, compile error 3, runtime error 5, usage 2, unreadable 2", async () => {
    assert.equal((await karta(["jq", "-e", ".a"], '{"a":false}')).code, 1);
    assert.equal((await karta(["jq", "-e", "empty"], "1")).code, 4);
    assert.equal((await karta(["jq", "-e", ".a"], '{"a":1}')).code, 0);
    const compile = await karta(["jq", ".a |"], "{}");
    assert.equal(compile.code, 3);
    assert.match(compile.err, /^jq: error: syntax error, unexpected end of file at 1:5\n/);
    const runtime = await karta(["jq", ".a.b"], '{"a":1}\n{"a":{"b":2}}');
    assert.equal(runtime.code, 5);
    assert.equal(runtime.out, "2\n", "later inputs are still processed");
    assert.match(runtime.err, /Cannot index number with string "b"/);
    assert.equal((await karta(["jq"])).code, 2);
    assert.equal((await karta(["jq", "--bogus", "."])).code, 2);
    const missing = await karta(["jq", ".", "/nonexistent/pods.json"]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /cannot read \/nonexistent\/pods.json/);
    const badJson = await karta(["jq", "."], '{"a":');
    assert.equal(badJson.code, 2);
    assert.match(badJson.err, /Unfinished JSON term/);
  });
  test("halt_error prints its message and exits with its code", async () => {
    const r = await karta(["jq", "-n", '"bye\\n" | halt_error(7)']);
    assert.deepEqual(r, { code: 7, out: "", err: "bye\n" });
  });
  test("the host environment is hidden unless --env", async () => {
    process.env["KARTA_TEST_SECRET"] = "s3cret";
    assert.equal((await karta(["jq", "-n", "-c", "$ENV.KARTA_TEST_SECRET"])).out, "null\n");
    assert.equal((await karta(["jq", "-n", "-c", "--env", "env.KARTA_TEST_SECRET"])).out, '"s3cret"\n');
    delete process.env["KARTA_TEST_SECRET"];
  });
  test("--help shows an example", async () => {
    const r = await karta(["jq", "--help"]);
    assert.equal(r.code, 0);
    assert.match(r.out, /Example:\n {2}karta jq/);
  });
});
