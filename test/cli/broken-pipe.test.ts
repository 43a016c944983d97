/**
 * A reader that stops early (`karta jq -c . pods.jsonl | head -1`): the command's process, as a shell runs
 * it, with its standard output a pipe closed after the first line. It ends at once with 141 (what a shell
 * shows for a program killed by SIGPIPE, as jq and kubectl end) and prints nothing on standard error: no
 * stack trace of an unhandled EPIPE.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { kartaBin } from "../support/conformance.js";
import { repoRoot } from "../fixtures/objects.js";

/** Runs karta with `args`, closes its standard output after the first line; its exit code and stderr. */
function firstLineOnly(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; first: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [kartaBin, ...args], { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let first = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      if (first) return;
      out += c.toString();
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      first = out.slice(0, nl);
      child.stdout.destroy();
    });
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`still running 60 s after its reader closed the pipe; stderr: ${stderr}`));
    }, 60_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, first, stderr });
    });
  });
}

test("a command whose reader closes the pipe early ends with 141 and prints nothing more (a stream, and one printed document)", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-pipe-"));
  try {
    // 200,000 lines: far more than a pipe holds, so the command is still writing when the pipe closes.
    const input = path.join(dir, "objects.jsonl");
    writeFileSync(input, Array.from({ length: 200_000 }, (_, i) => JSON.stringify({ metadata: { name: `pod-${i}` } })).join("\n") + "\n");
    for (const [args, first] of [
      [["jq", "-c", ".metadata.name", input], '"pod-0"'],
      [["definitions", "list", "-o", "yaml"], "apiVersion: v1"],
    ] as const) {
      const r = await firstLineOnly([...args]);
      assert.equal(r.first, first, args.join(" "));
      assert.equal(r.stderr, "", `${args.join(" ")}: nothing on standard error`);
      assert.deepEqual([r.code, r.signal], [141, null], `${args.join(" ")}: exit 141`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a write error on standard output is one line on stderr; karta jq exits 2 as jq does, other commands 1", { skip: !existsSync("/dev/full") && "no /dev/full here" }, () => {
  const full = openSync("/dev/full", "w");
  try {
    for (const [args, code] of [
      [["jq", "-n", "1"], 2],
      [["definitions", "list"], 1],
    ] as const) {
      const r = spawnSync(process.execPath, [kartaBin, ...args], { cwd: repoRoot, stdio: ["ignore", full, "pipe"], encoding: "utf8" });
      assert.equal(r.status, code, `${args.join(" ")}: ${r.stderr}`);
      assert.match(r.stderr, /^karta: cannot write to standard output: ENOSPC: no space left on device/, args.join(" "));
    }
  } finally {
    closeSync(full);
  }
});
