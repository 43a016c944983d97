/**
 * The adversarial corpus (test/adversarial/cases/) through every entry point: each command, and the
 * library functions through driver.ts. Every case runs in a child process with a wall-clock bound and
 * a heap cap; the test asserts the bound, the exit (no signal, no crash, our exit codes), and our
 * message rather than an engine's ("Maximum call stack size exceeded", "internal error", a stack trace).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { kartaBin, repoRoot } from "../support/conformance.js";

const CASES = path.join(repoRoot, "test", "adversarial", "cases");
const karta = kartaBin;
const driver = path.join(repoRoot, "dist", "test", "adversarial", "driver.js");
const deployment = path.join(repoRoot, "definitions", "apps", "v1", "Deployment.yaml");
const example = path.join(repoRoot, "examples", "deployment.yaml");
const c = (name: string): string => path.join(CASES, name);

/** Wall-clock bound per case: generous, since this machine may be shared; a hang runs far past it. */
const WALL_MS = 120_000;
/** Heap cap given to each child (V8 aborts past it, which fails the case), and the resident-set bound asserted. */
const HEAP_MB = 512;
const RSS_KB = 1_200_000;
const TIME = "/usr/bin/time";

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  rssKb?: number;
}

/** Runs node with `args` under the bounds; measures peak RSS with /usr/bin/time when it is installed. */
function runBounded(args: string[], stdin = ""): Outcome {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-adv-"));
  const rssFile = path.join(dir, "rss");
  const node = [process.execPath, `--max-old-space-size=${HEAP_MB}`, ...args];
  const withTime = existsSync(TIME);
  const [cmd, ...rest] = withTime ? [TIME, "-f", "%M", "-o", rssFile, ...node] : node;
  const t = Date.now();
  const r = spawnSync(cmd!, rest, { input: stdin, encoding: "utf8", timeout: WALL_MS, maxBuffer: 256 << 20, killSignal: "SIGKILL" });
  const ms = Date.now() - t;
  let rssKb: number | undefined;
  try {
    if (withTime) rssKb = Number(readFileSync(rssFile, "utf8").trim().split("\n").pop());
  } catch {
    rssKb = undefined;
  }
  rmSync(dir, { recursive: true, force: true });
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? "", stderr: r.stderr ?? "", ms, rssKb };
}

const ENGINE_WORDS = /Maximum call stack size exceeded|internal error|RangeError|TypeError|\n\s+at .*\(.*:\d+:\d+\)|out of memory|is of the type number/;

function assertBounded(o: Outcome, label: string): void {
  assert.equal(o.signal, null, `${label}: killed by ${o.signal} after ${o.ms} ms\n${o.stderr.slice(0, 2000)}`);
  assert.ok(o.ms < WALL_MS, `${label}: ${o.ms} ms`);
  if (o.rssKb !== undefined && !Number.isNaN(o.rssKb)) assert.ok(o.rssKb < RSS_KB, `${label}: ${o.rssKb} KB resident`);
  assert.doesNotMatch(o.stderr, ENGINE_WORDS, `${label}: engine words reached the user`);
}

/** Exit codes: 2 for an object that cannot be read; 1 for a definition or customization with errors (as for any other error in one); inspect: 6 printed with evaluation errors, 4 an object of another kind. */
interface CommandCase {
  name: string;
  args: string[];
  stdin?: string;
  /** Expected exit code. */
  exit: number;
  /** Expected in stderr (or stdout for validate's report). */
  message: RegExp;
}

const BOMB = "def f(n): if n == 0 then [1] else f(n-1) as $x | [$x,$x] end;";
const COMMANDS: CommandCase[] = [
  { name: "jq: shared structure through tostring", args: ["jq", "-n", `${BOMB} f(40) | tostring | length`], exit: 5, message: /budget of 20000000 steps/ },
  { name: "jq: printing shared structure", args: ["jq", "-n", `${BOMB} f(40)`], exit: 5, message: /limit of 67108864 characters/ },
  { name: "jq: catastrophic regex", args: ["jq", 'test("(a+)+$")'], stdin: JSON.stringify("a".repeat(36) + "!"), exit: 5, message: /ran past its limit of 1000 ms/ },
  // karta jq exits as jq 1.8.2 does on an input that does not parse (5), YAML too.
  { name: "jq --yaml: alias bomb", args: ["jq", "--yaml", ".", c("alias-bomb.yaml")], exit: 5, message: /too many YAML alias expansions/ },
  { name: "jq --yaml: deep document", args: ["jq", "--yaml", ".", c("deep-1000.json")], exit: 5, message: /nested deeper than 256 levels/ },
  { name: "jq: deep JSON", args: ["jq", ".", c("deep-100k-array.json")], exit: 5, message: /Exceeds depth limit for parsing/ },
  { name: "interpret: deep object", args: ["interpret", "--operation", "InterpretReplica", "--desired-file", c("deep-1000.json")], exit: 2, message: /deep-1000\.json:1:\d+: nested deeper than 256 levels/ },
  { name: "interpret: deep array", args: ["interpret", "--operation", "InterpretReplica", "--desired-file", c("deep-100k-array.json")], exit: 2, message: /nested deeper than 256 levels/ },
  { name: "interpret: alias bomb", args: ["interpret", "--operation", "InterpretReplica", "--desired-file", c("alias-bomb.yaml")], exit: 2, message: /alias-bomb\.yaml:\d+:\d+: too many YAML alias expansions/ },
  { name: "interpret: Lua result nested 5,000 deep", args: ["interpret", "-f", c("lua-deep-result.yaml"), "--operation", "Retain", "--desired-file", example, "--observed-file", example], exit: 1, message: /nested deeper than 256 levels/ },
  { name: "interpret: Lua result 1e400", args: ["interpret", "-f", c("lua-inf-result.yaml"), "--operation", "Retain", "--desired-file", example, "--observed-file", example], exit: 1, message: /unsupported value: \+Inf/ },
  // `replicas: 1e400` is the text "1e400" to kubectl (too large for a float64), so a string where an int32 goes.
  { name: "interpret: replicas 1e400 (native)", args: ["interpret", "--operation", "InterpretReplica", "--desired-file", c("deployment-inf-replicas.yaml")], exit: 1, message: /Execute InterpretReplica error: unrecognized type: int32 \(layer: native\)/ },
  { name: "interpret: customization file nested too deep", args: ["interpret", "-f", c("deep-1000.json"), "--operation", "InterpretReplica", "--desired-file", example], exit: 2, message: /nested deeper than 256 levels/ },
  { name: "inspect: alias bomb", args: ["inspect", "-d", deployment, "-f", c("alias-bomb.yaml")], exit: 2, message: /too many YAML alias expansions/ },
  { name: "inspect: deep object", args: ["inspect", "-d", deployment, "-f", c("deep-100k-array.json")], exit: 2, message: /nested deeper than 256 levels/ },
  { name: "inspect: deep definition", args: ["inspect", "-d", c("deep-1000.json"), "-f", example], exit: 2, message: /nested deeper than 256 levels/ },
  { name: "inspect: object without apiVersion or kind", args: ["inspect", "-d", deployment, "-f", c("no-kind.json")], exit: 4, message: /no-kind\.json: the object has no apiVersion or kind/ },
  { name: "inspect: replicasPath over shared structure", args: ["inspect", "-d", c("karta-shared-structure.yaml"), "-f", example], exit: 6, message: /replicasPath: failed to evaluate .*budget of 20000000 steps/ },
  { name: "inspect: replicasPath with a catastrophic regex", args: ["inspect", "-d", c("karta-redos.yaml"), "-f", example], exit: 6, message: /ran past its limit of 1000 ms/ },
  { name: "inspect: replicas 1e400", args: ["inspect", "-d", deployment, "-f", c("deployment-inf-replicas.yaml")], exit: 6, message: /must yield an integer replica count, got "1e400"/ },
  { name: "validate: deep definition", args: ["validate", c("deep-1000.json")], exit: 2, message: /deep-1000\.json:1:\d+: error: nested deeper than 256 levels/ },
  { name: "validate: alias bomb", args: ["validate", c("alias-bomb.yaml")], exit: 2, message: /too many YAML alias expansions/ },
  { name: "compile: deep object", args: ["compile", "-d", deployment, "-f", c("deep-1000.json")], exit: 2, message: /nested deeper than 256 levels/ },
  { name: "validate: a missing file among good ones", args: ["validate", deployment, "/nonexistent/karta.yaml"], exit: 2, message: /^2 files \(1 unreadable\), 1 definition: 0 errors/m },
  { name: "jq: 60 MB strings built in a loop", args: ["jq", "-n", '[range(80) | ("x" * 60000000 + "\\(.)" | tojson)] | length'], exit: 5, message: /exceeded its budget of 20000000 steps/ },
  { name: "jq: a regex whose backtracking outgrows the stack on a 20 MB string (Oniguruma's words)", args: ["jq", "-n", '"a" * 20000000 | test("(a|b)*c")'], exit: 5, message: /^jq: error \(at <unknown>\): Regex failure: match-stack limit over$/m },
  { name: "jq: split past the array limit", args: ["jq", "-n", '"a," * 20000000 | split(",") | length'], exit: 5, message: /exceeded the limit of 16777216 elements/ },
];

for (const k of COMMANDS) {
  test(`command: ${k.name}`, () => {
    const o = runBounded([karta, ...k.args], k.stdin ?? "");
    assertBounded(o, k.name);
    assert.equal(o.code, k.exit, `${k.name}: exit ${o.code}\n${o.stderr.slice(0, 2000)}`);
    assert.match(o.stderr + o.stdout, k.message);
  });
}

const LIBRARY: [string, RegExp][] = [
  ["jq-shared-structure-tostring", /budget of 20000000 steps/],
  ["jq-shared-structure-equals", /budget of 20000000 steps/],
  ["jq-redos", /ran past its limit of 1000 ms/],
  ["jq-deep-fromjson", /Exceeds depth limit for parsing/],
  ["definition-deep", /nested deeper than 256 levels/],
  ["definition-alias-bomb", /too many YAML alias expansions/],
  ["interpret-no-kind", /the object has no apiVersion or kind/],
  ["webhook-deep-response", /nested deeper than 256 levels/],
  ["jsonpatch-deep", /nested deeper than 256 levels/],
  ["lua-deep-argument", /cannot pass the arguments of F to Lua: the value is nested deeper than 256 levels/],
];

for (const [name, message] of LIBRARY) {
  test(`library: ${name}`, () => {
    const o = runBounded([driver, name]);
    assertBounded(o, name);
    assert.equal(o.code, 0, `${name}: exit ${o.code}\n${o.stderr.slice(0, 2000)}`);
    const outcome = JSON.parse(o.stdout) as { outcome: string; message: string };
    assert.equal(outcome.outcome, "error");
    assert.match(outcome.message, message);
    assert.doesNotMatch(outcome.message, ENGINE_WORDS);
  });
}

test("library: a value nested 100,000 deep given to interpret returns, without an engine error", () => {
  const o = runBounded([driver, "interpret-deep-object"]);
  assertBounded(o, "interpret-deep-object");
  assert.equal(o.code, 0, o.stderr);
  assert.doesNotMatch(o.stdout, ENGINE_WORDS);
});
