/**
 * Directories named as input: each real file read once, whatever symbolic links lead to it again, and
 * only regular files (a FIFO would block the command).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { listInputFiles } from "../../src/files/index.js";
import { repoRoot } from "../support/conformance.js";

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
