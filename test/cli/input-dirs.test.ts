/**
 * Directories named as input: each real file read once, whatever symbolic links lead to it again, and
 * only regular files (a FIFO would block the command).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { listInputFiles } from "../../src/files/index.js";
import { kartaBin, repoRoot } from "../support/conformance.js";

test("a directory with a symbolic link loop, a second link to itself and a FIFO: each file once, no hang", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-dirs-"));
  try {
    const pods = path.join(dir, "pods");
    mkdirSync(path.join(pods, "sub"), { recursive: true });
    copyFileSync(path.join(repoRoot, "examples", "pytorchjob-pods.yaml"), path.join(pods, "sub", "pods.yaml"));
    symlinkSync(".", path.join(pods, "self"));
    symlinkSync("..", path.join(pods, "sub", "up"));
    execFileSync("mkfifo", [path.join(pods, "fifo.yaml")]);
    assert.deepEqual(listInputFiles([pods], { recursive: true }), [path.join(pods, "sub", "pods.yaml")]);
    const io = memoryIO();
    assert.equal(await main(["inspect", "-f", path.join(repoRoot, "examples", "pytorchjob.yaml"), "--pods", pods], io), 0, io.err);
    assert.match(io.out, /^Pods: 4, matched 4, unmatched 0$/m);
    assert.match(io.out, /subgroup worker {2}minMember 1 {2}pods: 3$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a symbolic link to a directory is not followed (kubectl's -R does not follow one): a link out of the tree reads nothing of it", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-dirs-"));
  try {
    copyFileSync(path.join(repoRoot, "definitions", "batch", "v1", "Job.yaml"), path.join(dir, "Job.yaml"));
    symlinkSync("/proc/self", path.join(dir, "self"));
    symlinkSync(path.join(repoRoot, "definitions"), path.join(dir, "defs"));
    // A link to a file is read, as a file.
    symlinkSync(path.join(repoRoot, "definitions", "apps", "v1", "Deployment.yaml"), path.join(dir, "deployment.yaml"));
    assert.deepEqual(listInputFiles([dir], { recursive: true }), [path.join(dir, "Job.yaml"), path.join(dir, "deployment.yaml")]);
    // Named on the command line, a link to a directory is read.
    assert.ok(listInputFiles([path.join(dir, "defs")], { recursive: true }).length > 10);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a sub-directory that cannot be listed is reported as a file that cannot be read, not an internal error", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-dirs-"));
  try {
    copyFileSync(path.join(repoRoot, "definitions", "batch", "v1", "Job.yaml"), path.join(dir, "Job.yaml"));
    mkdirSync(path.join(dir, "locked"), { mode: 0o000 });
    // As a user without the permission root has: the command run as nobody when the tests run as root.
    const asUser = process.getuid?.() === 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
    execFileSync("chmod", ["755", dir]);
    execFileSync("chmod", ["644", path.join(dir, "Job.yaml")]);
    const r = spawnSync(asUser[0] ?? process.execPath, [...asUser.slice(1), ...(asUser.length ? [process.execPath] : []), kartaBin, "validate", dir], { encoding: "utf8" });
    assert.equal(r.status, 2, r.stderr);
    assert.equal(r.stderr, `karta validate: cannot read ${path.join(dir, "locked")}: permission denied\n`);
    assert.doesNotMatch(r.stderr, /internal error|EACCES|scandir/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Runs a command line in-process from the repository root: its exit code and what it printed. */
async function karta(args: string[], stdin = "") {
  const io = memoryIO(stdin);
  const cwd = process.cwd();
  process.chdir(repoRoot);
  try {
    return { code: await main(args, io), out: io.out, err: io.err };
  } finally {
    process.chdir(cwd);
  }
}

test("validate fails on a directory with nothing to validate, naming it, as kubectl apply -f emptydir/ does", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-empty-"));
  try {
    mkdirSync(path.join(dir, "sub"));
    writeFileSync(path.join(dir, "sub", "notes.txt"), "not a definition\n");
    const r = await karta(["validate", dir]);
    assert.equal(r.code, 1, r.err);
    assert.equal(r.err, `karta validate: ${dir}: no definition files in this directory (.yaml, .yml or .json, searched recursively)\n`);
    assert.equal(r.out, "0 files, 1 directory without any, 0 definitions: 0 errors, 0 warnings, 0 notices\n");
    // Beside a valid file it still fails; an empty --crd directory too.
    const mixed = await karta(["validate", "definitions/batch/v1/Job.yaml", dir]);
    assert.equal(mixed.code, 1);
    const crd = await karta(["validate", "--crd", dir, "definitions/batch/v1/Job.yaml"]);
    assert.equal(crd.code, 1);
    assert.match(crd.err, /^karta validate: --crd .*: no definition files/);
    // karta rbac names it too, and fails as validate does (and as for "no Karta definition found").
    const rbac = await karta(["rbac", "-d", dir]);
    assert.deepEqual([rbac.code, rbac.out], [1, ""]);
    // With -R=false, reading recursively is suggested only where a sub-directory holds definition files:
    // not for sub/ holding a text file, nor for a directory with none below it.
    for (const d of [dir, path.join(dir, "sub")]) {
      assert.equal((await karta(["validate", "-R=false", d])).err, `karta validate: ${d}: no definition files in this directory (.yaml, .yml or .json)\n`);
    }
    assert.equal(rbac.err, `karta rbac: -d ${dir}: no definition files in this directory (.yaml, .yml or .json, searched recursively)\n`);
    const json = await karta(["validate", dir, "-o", "json"]);
    assert.equal((JSON.parse(json.out) as { summary: { emptyDirectories: number } }).summary.emptyDirectories, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("validate reads a file named twice, or a file and its directory, once; two stdin readers are refused", async () => {
  const r = await karta(["validate", "definitions/batch/v1/Job.yaml", "./definitions/batch/v1/Job.yaml", "definitions/batch/v1/"]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, "2 files, 2 definitions: 0 errors, 0 warnings, 0 notices\n");
  const job = readFileSync(path.join(repoRoot, "definitions/batch/v1/Job.yaml"), "utf8");
  for (const args of [["validate", "-", "-"], ["validate", "--crd", "-", "-"]]) {
    const two = await karta(args, job);
    assert.equal(two.code, 2);
    assert.equal(two.out, "");
    assert.equal(two.err, "karta validate: only one input can be read from standard input\nRun 'karta validate --help' for usage.\n");
  }
});

test("-R, kubectl's flag, is accepted by validate and rbac (they recurse by default; -R=false reads a directory's top); interpret --check without -R says where the files are", async () => {
  for (const flag of ["-R", "--recursive", "-R=true"]) {
    const v = await karta(["validate", flag, "definitions/batch/"]);
    assert.deepEqual([v.code, v.out, v.err], [0, "2 files, 2 definitions: 0 errors, 0 warnings, 0 notices\n", ""], flag);
    const r = await karta(["rbac", flag, "-d", "definitions/batch/"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^kind: ClusterRole$/m);
  }
  const top = await karta(["validate", "-R=false", "definitions/"]);
  assert.equal(top.code, 1);
  assert.equal(top.err, "karta validate: definitions/: no definition files in this directory (.yaml, .yml or .json; its sub-directories hold some, read without -R=false)\n");
  const check = await karta(["interpret", "-f", "interpreter-customizations/", "--check"]);
  assert.deepEqual([check.code, check.out], [2, ""]);
  assert.equal(check.err, "karta interpret: --check: no ResourceInterpreterCustomization in interpreter-customizations/ (its sub-directories are read only with -R, --recursive)\n");
  assert.equal((await karta(["interpret", "-f", "interpreter-customizations/", "-R", "--check"])).code, 0);
});

test("an input past 500 MiB (a sparse file, /dev/zero, standard input) is refused as too large, not read until the memory is full", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-large-"));
  try {
    const sparse = path.join(dir, "big.yaml");
    execFileSync("truncate", ["-s", "600M", sparse]);
    const run = (args: string[], input?: Buffer) => spawnSync(process.execPath, [kartaBin, ...args], { encoding: "utf8", input, maxBuffer: 1 << 20 });
    const tooLarge = "file too large (Karta reads at most 500 MiB of an input)";
    for (const [args, err] of [
      [["validate", sparse], `karta validate: cannot read ${sparse}: ${tooLarge}\n`],
      [["inspect", "-f", sparse], `karta inspect: cannot read ${sparse}: ${tooLarge}\n`],
      [["inspect", "-f", "/dev/zero"], `karta inspect: cannot read /dev/zero: ${tooLarge}\n`],
      [["jq", ".", "/dev/zero"], "jq: error: Could not open file /dev/zero: File too large (Karta reads at most 500 MiB of an input)\n"],
    ] as const) {
      const r = run([...args]);
      assert.equal(r.status, 2, args.join(" "));
      assert.ok(r.stderr.startsWith(err), `${args.join(" ")}: ${r.stderr}`);
    }
    const piped = run(["validate", "-"], Buffer.alloc(501 * 1024 * 1024));
    assert.equal(piped.status, 2);
    assert.match(piped.stderr, /^karta validate: cannot read <stdin>: file too large/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
