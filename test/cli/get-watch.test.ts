/**
 * `karta get --watch` when the API server stops answering watches (test/support/fake-apiserver.ts: it
 * answers discovery and lists, and refuses every watch with 500, as an API server whose etcd is down
 * answers). The workloads of the first list are printed; each failed watch is a warning on standard error
 * and is retried; SIGINT ends the command with 0 although its watches never started. (The watch against a
 * real API server is in test/cluster/cli-get.test.ts.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { kartaBin } from "../support/conformance.js";
import { FAKE_GET_OUTPUT, startFakeApiServer } from "../support/fake-apiserver.js";

/** `karta ARGS` started as a user's shell starts it: its output so far, and its exit code once it exits. */
function start(args: string[]): { child: ChildProcess; out: { stdout: string; stderr: string }; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [kartaBin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const out = { stdout: "", stderr: "" };
  child.stdout!.on("data", (c: Buffer) => (out.stdout += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (out.stderr += c.toString()));
  return { child, out, exited: new Promise((resolve) => child.on("exit", (code) => resolve(code))) };
}

/** The exit code within `ms`, else "running" (the process is then killed). */
async function exitWithin(p: ReturnType<typeof start>, ms: number): Promise<number | null | "running"> {
  const code = await Promise.race([p.exited, new Promise<"running">((r) => setTimeout(() => r("running"), ms))]);
  if (code === "running") p.child.kill("SIGKILL");
  return code;
}

test("--watch: watches the server refuses are warnings, retried; SIGINT ends it with 0 before any watch started", async () => {
  const server = await startFakeApiServer();
  try {
    const karta = start(["get", "pytorchjobs", "--watch", "--kubeconfig", server.kubeconfig]);
    const { child, out } = karta;
    const deadline = Date.now() + 30_000;
    // Two failures of one watch: it is retried.
    while ((out.stderr.match(/the watch failed/g) ?? []).length < 2 && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGINT");
    const code = await exitWithin(karta, 15_000);
    assert.equal(code, 0, `SIGINT ends it at once, with 0\n${out.stderr}`);
    assert.match(out.stdout, FAKE_GET_OUTPUT);
    const warnings = out.stderr.split("\n").filter((l) => l !== "" && !l.includes("serves no Karta definitions"));
    assert.ok(warnings.length >= 2, out.stderr);
    for (const w of warnings) assert.match(w, /^karta get: warning: the watch failed \(.*etcdserver: request timed out\); watching again$/);
    assert.ok(server.watches.length >= 2, `watches: ${server.watches.join(", ")}`);
  } finally {
    server.close();
  }
});

test("--watch with --request-timeout: the watch ends after that long with 0, as kubectl's watch request does", async () => {
  const server = await startFakeApiServer();
  try {
    const started = Date.now();
    const karta = start(["get", "pytorchjobs", "-w", "--request-timeout", "2s", "--kubeconfig", server.kubeconfig]);
    const code = await exitWithin(karta, 30_000);
    assert.equal(code, 0, `it ends by itself, with 0\n${karta.out.stderr}`);
    assert.ok(Date.now() - started >= 2_000, "not before the timeout");
    assert.match(karta.out.stdout, FAKE_GET_OUTPUT);
  } finally {
    server.close();
  }
});

test("--watch: a type no longer served (its CRD deleted: 404) is named in the warning, not a bare 404", async () => {
  const server = await startFakeApiServer({ gone: true });
  try {
    const karta = start(["get", "pytorchjobs", "--watch", "--kubeconfig", server.kubeconfig]);
    const { child, out } = karta;
    const deadline = Date.now() + 30_000;
    while (!/pytorchjobs\.kubeflow\.org is not served/.test(out.stderr) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGINT");
    assert.equal(await exitWithin(karta, 15_000), 0, out.stderr);
    assert.match(out.stderr, /^karta get: warning: the watch failed \(pytorchjobs\.kubeflow\.org is not served any more \(its CustomResourceDefinition deleted\?\)\); watching again$/m);
  } finally {
    server.close();
  }
});
