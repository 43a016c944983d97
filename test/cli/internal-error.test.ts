/**
 * A bug of Karta's in a long-running command, as an operator sees it: `karta serve` and `karta
 * controller` run as processes with a module preloaded (`node --import`) that, on SIGUSR2 (sent once the
 * command logged that it is up), throws from a callback or rejects a promise nobody handles. The error is
 * one JSON log line in the command's own log (with its stack trace as a field), the command then stops as
 * it does on SIGTERM, and exits 5; nothing else is printed. `karta playground`, which prints text, says
 * so in one line on standard error (as every other command does). `karta get --watch` is checked against
 * a real API server in test/cluster/cli-get.test.ts.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { builtPlaygroundDir } from "../../src/cli/playground.js";
import { kartaBin } from "../support/conformance.js";
import { faultModule } from "../support/faults.js";


interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command with the fault module; sends SIGUSR2 once its output matches `up`. */
function runUntilExit(args: string[], fault: string, up: RegExp, timeoutMs = 60_000): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", fault, kartaBin, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let signalled = false;
    const seen = (): void => {
      if (signalled || !up.test(stdout + stderr)) return;
      signalled = true;
      child.kill("SIGUSR2");
    };
    child.stdout.on("data", (c: Buffer) => ((stdout += c.toString()), seen()));
    child.stderr.on("data", (c: Buffer) => ((stderr += c.toString()), seen()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`still running after ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

interface Line {
  level: number;
  msg: string;
  component: string;
  err?: string;
  origin?: string;
  stacktrace?: string;
}

/** Every line of a log, each of which must be a JSON object. */
function jsonLines(text: string): Line[] {
  return text
    .trim()
    .split("\n")
    .map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        assert.fail(`not a JSON log line: ${l}`);
      }
    });
}

function assertReported(lines: Line[], origin: string): void {
  const reported = lines.filter((l) => l.msg === "internal error: shutting down");
  assert.equal(reported.length, 1, JSON.stringify(lines));
  assert.equal(reported[0]!.level, 50);
  assert.equal(reported[0]!.err, "injected fault");
  assert.equal(reported[0]!.origin, origin);
  assert.match(reported[0]!.stacktrace ?? "", /^Error: injected fault\n {4}at /);
}

describe("an internal error in a long-running command", () => {
  test("karta serve: logged as one JSON line, drained as on SIGTERM, exit 5", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-crash-"));
    try {
      const r = await runUntilExit(["serve", "--cert-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1", "--metrics-bind-address", "127.0.0.1:0", "--workers", "1"], faultModule("throw"), /"msg":"serving"/);
      assert.equal(r.code, 5, r.stdout + r.stderr);
      // The certificate line aside, every line is the log's.
      const lines = jsonLines(r.stderr.replace(/^karta serve: (generated|using) .*\n/, ""));
      assert.ok(lines.every((l) => l.component === "karta-serve"));
      assertReported(lines, "uncaughtException");
      const msgs = lines.map((l) => l.msg);
      assert.ok(msgs.indexOf("serving") < msgs.indexOf("internal error: shutting down"), msgs.join(" / "));
      assert.ok(msgs.indexOf("internal error: shutting down") < msgs.indexOf("stopped"), msgs.join(" / "));
      // Standard error has the certificate line, the log, and nothing of Node's own report.
      assert.doesNotMatch(r.stderr.split("\n").filter((l) => !l.startsWith("{")).join("\n"), /injected fault|^ {4}at /m);
      assert.equal(r.stdout, "");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("karta controller: logged as one JSON line, stopped as on SIGTERM, exit 5", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-crash-"));
    try {
      // An API server that refuses connections: the controller keeps retrying its lists until it stops.
      const kubeconfig = path.join(dir, "kubeconfig");
      writeFileSync(
        kubeconfig,
        "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n",
      );
      const r = await runUntilExit(["controller", "--kubeconfig", kubeconfig, "--leader-elect=false", "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0"], faultModule("reject"), /"msg":"serving endpoints"/);
      assert.equal(r.code, 5, r.stdout + r.stderr);
      assert.equal(r.stdout, "");
      const lines = jsonLines(r.stderr);
      assert.ok(lines.every((l) => l.component === "karta-controller"));
      assertReported(lines, "unhandledRejection");
      assert.equal(lines.at(-1)!.msg, "stopped before the caches synced");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("karta playground: one line on standard error, stopped as on SIGTERM, exit 5", async (t) => {
    if (!builtPlaygroundDir()) {
      t.skip("dist/playground-page is not built (npm run build)");
      return;
    }
    const r = await runUntilExit(["playground", "--port", "0"], faultModule("throw"), /Karta playground at /);
    assert.equal(r.code, 5, r.stdout + r.stderr);
    assert.equal(r.stderr, "karta playground: internal error: injected fault\n");
    assert.match(r.stdout, /\nkarta playground: stopped\n$/);
  });
});
