/**
 * One exit code per class of failure in every command, as the README's table says: text that does not
 * parse, an alias bomb and standard input that cannot be read are unreadable input (2, at file:line:col);
 * a cluster that cannot be reached is an operation that failed (1); an object of another kind than -d's
 * is "no definition covers it" (4); a repeated flag naming an input or an operation, a value the API
 * server would refuse and a flag that means nothing with another are usage errors (2).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { kartaBin, repoRoot } from "../support/conformance.js";

const example = (f: string): string => path.join(repoRoot, "examples", f);
const PYTORCHJOB = example("pytorchjob.yaml");

async function karta(args: string[], files: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO("", files);
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

let bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
for (let i = 1; i < 6; i++) bomb += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(", ")}]\n`;

test("text that does not parse, or an alias bomb: exit 2 at file:line:col in every command that reads it", async () => {
  // On disk: webhook-config lists its files itself.
  const dir = mkdtempSync(path.join(tmpdir(), "karta-unparsed-"));
  const previous = process.cwd();
  process.chdir(dir);
  try {
    await unparsed();
  } finally {
    process.chdir(previous);
    rmSync(dir, { recursive: true, force: true });
  }
});

async function unparsed(): Promise<void> {
  const files = { "broken.yaml": "a: [\n", "bomb.yaml": bomb };
  for (const [name, text] of Object.entries(files)) writeFileSync(name, text);
  const commands = (f: string): string[][] => [
    ["interpret", "-f", f, "--check"],
    ["interpret", "-f", f, "--operation", "InterpretReplica", "--desired-file", PYTORCHJOB],
    ["interpret", "--operation", "InterpretReplica", "--desired-file", PYTORCHJOB, "--webhook-config", f],
    ["webhook-config", "--customizations", f],
    ["webhook-config", "--definitions", f],
    ["interpret", "-d", f, "--operation", "InterpretReplica", "--desired-file", PYTORCHJOB],
    ["validate", f],
    ["inspect", "-f", f],
  ];
  for (const args of commands("broken.yaml")) {
    const r = await karta(args, files);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    // validate reports on standard output, the others on standard error.
    assert.match(r.out + r.err, /broken\.yaml:2:1: (error: )?Flow sequence in block collection must be sufficiently indented and end with a \]\n/, args.join(" "));
  }
  for (const args of commands("bomb.yaml")) {
    const r = await karta(args, files);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.match(r.out + r.err, /bomb\.yaml:1:1: (error: )?too many YAML alias expansions/, args.join(" "));
  }
  // A customization that parses but is invalid is still exit 1.
  const invalid = await karta(["interpret", "-f", "ric.yaml", "--check"], { "ric.yaml": "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: x}\n" });
  assert.equal(invalid.code, 1, invalid.err);
}

test("a cluster that cannot be reached: exit 1 in inspect and compile, as in get and describe", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-down-"));
  try {
    const kubeconfig = path.join(dir, "config");
    writeFileSync(
      kubeconfig,
      "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n",
    );
    for (const command of ["inspect", "compile", "describe"]) {
      const r = spawnSync(process.execPath, [kartaBin, command, "pytorchjob/x", "--kubeconfig", kubeconfig], { encoding: "utf8" });
      assert.equal(r.status, 1, `${command}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^karta ${command}: .*cannot reach https://127\\.0\\.0\\.1:1`, "m"));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an object of another kind than -d's: exit 4 in compile as in inspect, with the command's prefix", async () => {
  const job = path.join(repoRoot, "definitions", "batch", "v1", "Job.yaml");
  for (const command of ["compile", "inspect"]) {
    const r = await karta([command, "-f", PYTORCHJOB, "-d", job]);
    assert.deepEqual([r.code, r.out], [4, ""], r.err);
    assert.equal(r.err, `karta ${command}: ${PYTORCHJOB}: the object is PyTorchJob kubeflow.org/v1, but the definition's root component is Job batch/v1\n`);
  }
});

/** Each file given as --pods or --children to inspect and compile: exit 2, nothing printed, `karta CMD: FILE: message`. */
async function refusedAsPodsOrChildren(files: Record<string, string>, expected: readonly (readonly [string, string])[]): Promise<void> {
  for (const [file, message] of expected) {
    for (const args of [
      ["inspect", "-f", PYTORCHJOB, "--pods", file],
      ["inspect", "-f", PYTORCHJOB, "--children", file],
      ["compile", "-f", PYTORCHJOB, "--pods", file],
    ]) {
      const r = await karta(args, files);
      assert.deepEqual([r.code, r.out], [2, ""], args.join(" "));
      assert.equal(r.err, `karta ${args[0]}: ${file}: ${message}\n`);
    }
  }
}

test("a document in --pods or --children that is not an object: exit 2, naming the file and what it is", async () => {
  await refusedAsPodsOrChildren({ "s.yaml": "hello\n", "l.yaml": "- 1\n- 2\n" }, [
    ["s.yaml", "expected an object, found a string"],
    ["l.yaml", "expected an object, found a list"],
  ]);
});

test("a pod, child or List whose apiVersion or kind is not a string: exit 2, naming the file and the field, not dropped", async () => {
  const files = {
    "kind.yaml": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: 7\n  metadata: {name: p}\n",
    "list.yaml": "apiVersion: 1\nkind: List\nitems: []\n",
    "null.yaml": "apiVersion: v1\nkind: null\nmetadata: {name: p}\n",
  };
  await refusedAsPodsOrChildren(files, [
    ["kind.yaml", "List: items[0]: kind: expected a string, found a number"],
    ["list.yaml", "apiVersion: expected a string, found a number"],
    ["null.yaml", "kind: expected a string, found null"],
  ]);
});

test("a file with a control character (a binary file) is refused at its place, as libyaml refuses it, by every reader", async () => {
  const files = { "nul.yaml": "\0".repeat(64), "ctl.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"a\u0001b\"\n" };
  const cases: [string[], string][] = [
    [["validate", "nul.yaml"], "nul.yaml:1:1: error: control characters are not allowed (U+0000: a binary file?)\n"],
    [["inspect", "-f", "ctl.yaml"], "karta inspect: ctl.yaml:4:11: control characters are not allowed (U+0001)\n"],
    [["inspect", "-f", PYTORCHJOB, "--pods", "nul.yaml"], "karta inspect: nul.yaml:1:1: control characters are not allowed (U+0000: a binary file?)\n"],
    [["interpret", "--operation", "InterpretHealth", "--desired-file", "ctl.yaml"], "karta interpret: fail to get desired object: ctl.yaml:4:11: control characters are not allowed (U+0001)\n"],
    [["jq", "--yaml", ".", "ctl.yaml"], "jq: error (at ctl.yaml): line 4: control characters are not allowed (U+0001)\n"],
  ];
  for (const [args, err] of cases) {
    const r = await karta(args, files);
    assert.notEqual(r.code, 0, args.join(" "));
    assert.equal(r.out.includes("control characters") ? r.out : r.err, args[0] === "validate" ? err + "1 file, 0 definitions: 1 error, 0 warnings, 0 notices\n" : err, args.join(" "));
  }
});

test("standard input that is a directory: exit 2, cannot read <stdin> (jq: Is a directory), in jq and the readers of -", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-stdin-"));
  const fd = openSync(dir, "r");
  try {
    const cases: [string[], string][] = [
      // jq 1.8.2's words.
      [["jq", "."], "jq: error: Is a directory"],
      [["jq", ".", "-"], "jq: error: Is a directory"],
      [["validate", "-"], "karta validate: cannot read <stdin>: is a directory"],
      [["inspect", "-f", "-"], "karta inspect: cannot read <stdin>: is a directory"],
      [["compile", "-f", "-"], "karta compile: cannot read <stdin>: is a directory"],
    ];
    for (const [args, message] of cases) {
      const r = spawnSync(process.execPath, [kartaBin, ...args], { stdio: [fd, "pipe", "pipe"], encoding: "utf8" });
      assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^${message}$`, "m"), args.join(" "));
    }
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("inspect --patch honours -o yaml and refuses -o tree", async () => {
  const json = await karta(["inspect", "-f", PYTORCHJOB, "--patch", "suspend"]);
  const yaml = await karta(["inspect", "-f", PYTORCHJOB, "--patch", "suspend", "-o", "yaml"]);
  assert.equal(yaml.code, json.code, yaml.err);
  assert.match(json.out, /^\[\n {2}\{\n {4}"op": /);
  assert.match(yaml.out, /^- op: /);
  const { parse } = await import("yaml");
  assert.deepEqual(parse(yaml.out), JSON.parse(json.out));
  const tree = await karta(["inspect", "-f", PYTORCHJOB, "--patch", "suspend", "-o", "tree"]);
  assert.equal(tree.code, 2);
  assert.match(tree.err, /^karta inspect: --patch prints a JSON Patch: -o takes yaml or json with it$/m);
});

test("a flag naming an input or an operation given twice with different values: a usage error; -f repeatable as kubectl's", async () => {
  const twice: [string[], string][] = [
    [["inspect", "-f", PYTORCHJOB, "--patch", "suspend", "--patch", "resume"], "--patch"],
    [["inspect", "-f", PYTORCHJOB, "--patch", "set-label", "a=1", "--patch", "set-label", "b=2"], "--patch"],
    [["inspect", "-f", PYTORCHJOB, "-d", "a.yaml", "-d", "b.yaml"], "--definition"],
    [["interpret", "--operation", "InterpretReplica", "--desired-file", "a.yaml", "--desired-file", "b.yaml"], "--desired-file"],
  ];
  for (const [args, flag] of twice) {
    const r = await karta(args);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.err, new RegExp(`^karta ${args[0]}: flag given twice with different values: ${flag}$`, "m"));
  }
  // The same value twice is the same command line.
  assert.equal((await karta(["inspect", "-f", PYTORCHJOB, "--patch", "suspend", "--patch", "suspend"])).code, 0);
  // -f twice: the files together hold the one object (the same file twice is read once); more is refused.
  const same = await karta(["inspect", "-f", PYTORCHJOB, "-f", PYTORCHJOB, "-o", "json"]);
  assert.equal(same.code, 0, same.err);
  // However it is spelled.
  const respelled = await karta(["inspect", "-f", PYTORCHJOB, "-f", path.join(path.dirname(PYTORCHJOB), ".", path.basename(PYTORCHJOB)), "-o", "json"]);
  assert.deepEqual([respelled.code, respelled.out], [0, same.out], respelled.err);
  for (const command of ["inspect", "compile"]) {
    const r = await karta([command, "-f", PYTORCHJOB, "-f", example("jobset.yaml")]);
    assert.deepEqual([r.code, r.out], [2, ""]);
    assert.equal(r.err, `karta ${command}: ${PYTORCHJOB}, ${example("jobset.yaml")}: expected one workload object, found 2\n`);
  }
  const split = await karta(["compile", "-f", "empty.yaml", "-f", PYTORCHJOB, "-o", "name"], { "empty.yaml": "# nothing\n" });
  assert.equal(split.code, 0, split.err);
  // A setting keeps the last value, as pflag (and kubectl) do: an alias can append an override.
  assert.equal((await karta(["inspect", "-f", PYTORCHJOB, "-o", "yaml", "-o", "json"])).out.startsWith("{"), true);
});

test("webhook-config refuses names, namespaces and paths the API server or karta serve would", async () => {
  const cases: [string[], RegExp][] = [
    [["--name", "Bad Name"], /invalid argument "Bad Name" for "--name": a lowercase RFC 1123 subdomain must consist of/],
    [["--path", "nolead"], /invalid argument "nolead" for "--path": must be a path that starts with \/ \(no \? or #\)/],
    [["--admission", "--controller-namespace", "BAD NS"], /invalid argument "BAD NS" for "--controller-namespace": a lowercase RFC 1123 label must consist of/],
    [["--service-namespace", "Team_A"], /invalid argument "Team_A" for "--service-namespace": a lowercase RFC 1123 label/],
  ];
  for (const [args, message] of cases) {
    const r = await karta(["webhook-config", ...args]);
    assert.deepEqual([r.code, r.out], [2, ""], args.join(" "));
    assert.match(r.err, message);
  }
  assert.equal((await karta(["webhook-config", "--admission", "--controller-namespace", "karta-system", "--name", "karta.example"])).code, 0);
});

test("--patch values the API server would refuse: usage errors in Kubernetes' words", async () => {
  const cases: [string[], string][] = [
    [["set-label", "a/b/c=v"], `--patch set-label: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters`],
    [["set-label", "k=@@@"], `--patch set-label: Invalid value: "@@@": a valid label must be an empty string or consist of alphanumeric characters`],
    [["set-label", `k=${"v".repeat(64)}`], `--patch set-label: Invalid value: "${"v".repeat(64)}": must be no more than 63 bytes`],
    [["set-label", "=v"], `--patch set-label: Invalid value: "": name part must be non-empty`],
    [["set-annotation", "bad key=v"], `--patch set-annotation: Invalid value: "bad key": name part must consist of`],
    [["set-priority-class", "Bad Name"], `--patch set-priority-class: Invalid value: "Bad Name": a lowercase RFC 1123 subdomain must consist of`],
    [["set-scheduler", "Kai_Scheduler"], `--patch set-scheduler: Invalid value: "Kai_Scheduler": a lowercase RFC 1123 subdomain`],
    [["set-label =v"], "invalid value 'set-label =v' for --patch: give KEY=VALUE as a separate argument: --patch set-label KEY=VALUE"],
  ];
  for (const [patch, message] of cases) {
    const r = await karta(["inspect", "-f", PYTORCHJOB, "--patch", ...patch]);
    assert.deepEqual([r.code, r.out], [2, ""], patch.join(" "));
    assert.ok(r.err.startsWith(`karta inspect: ${message}`), r.err);
  }
  for (const patch of [["set-label", "example.com/team=ml-a"], ["set-label", "empty="], ["set-annotation", "note=any text at all"], ["set-priority-class", "training-high"]]) {
    const r = await karta(["inspect", "-f", PYTORCHJOB, "--patch", ...patch]);
    assert.equal(r.code, 0, `${patch.join(" ")}: ${r.err}`);
  }
});

test("webhook-config: a directory given with nothing to read is an error of the input (exit 1, as validate and rbac), a dangling link in one unreadable (exit 2)", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-webhook-inputs-"));
  try {
    mkdirSync(path.join(dir, "empty"));
    mkdirSync(path.join(dir, "dangling"));
    symlinkSync(path.join(dir, "gone.yaml"), path.join(dir, "dangling", "gone.yaml"));
    const empty = await karta(["webhook-config", "--definitions", path.join(dir, "empty")]);
    assert.deepEqual([empty.code, empty.out], [1, ""]);
    assert.equal(empty.err, `karta webhook-config: --definitions ${path.join(dir, "empty")}: no definition files in this directory (.yaml, .yml or .json, searched recursively)\n`);
    const dangling = await karta(["webhook-config", "--customizations", path.join(dir, "dangling")]);
    assert.deepEqual([dangling.code, dangling.out], [2, ""]);
    assert.equal(dangling.err, `karta webhook-config: ${path.join(dir, "dangling", "gone.yaml")}: error: cannot read: no such file\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
