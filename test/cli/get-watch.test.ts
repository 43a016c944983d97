/**
 * `karta get --watch` when the API server stops answering watches (test/support/fake-apiserver.ts: it
 * answers discovery and lists, and refuses every watch with 500, as an API server whose etcd is down
 * answers). The workloads of the first list are printed; each failed watch is a warning on standard error
 * and is retried; SIGINT ends the command with 0 although its watches never started. (The watch against a
 * real API server is in test/cluster/cli-get.test.ts.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { kartaBin } from "../support/conformance.js";
import { FAKE_GET_OUTPUT, startFakeApiServer } from "../support/fake-apiserver.js";

test("--watch: watches the server refuses are warnings, retried; SIGINT ends it with 0 before any watch started", async () => {
  const server = await startFakeApiServer();
  try {
    const child = spawn(process.execPath, [kartaBin, "get", "pytorchjobs", "--watch", "--kubeconfig", server.kubeconfig], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    // Two failures of one watch: it is retried.
    while ((stderr.match(/the watch failed/g) ?? []).length < 2 && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGINT");
    const code = await Promise.race([exited, new Promise<"running">((r) => setTimeout(() => r("running"), 15_000))]);
    if (code === "running") child.kill("SIGKILL");
    assert.equal(code, 0, `SIGINT ends it at once, with 0\n${stderr}`);
    assert.match(stdout, FAKE_GET_OUTPUT);
    const warnings = stderr.split("\n").filter((l) => l !== "" && !l.includes("serves no Karta definitions"));
    assert.ok(warnings.length >= 2, stderr);
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
    const child = spawn(process.execPath, [kartaBin, "get", "pytorchjobs", "-w", "--request-timeout", "2s", "--kubeconfig", server.kubeconfig], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const code = await Promise.race([exited, new Promise<"running">((r) => setTimeout(() => r("running"), 30_000))]);
    if (code === "running") child.kill("SIGKILL");
    assert.equal(code, 0, `it ends by itself, with 0\n${stderr}`);
    assert.ok(Date.now() - started >= 2_000, "not before the timeout");
    assert.match(stdout, FAKE_GET_OUTPUT);
  } finally {
    server.close();
  }
});
