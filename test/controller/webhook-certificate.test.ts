/** `karta controller` checks its admission webhook's certificate at start, as `karta serve` does, before it connects. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runController } from "../../src/cli/controller.js";
import { memoryIO } from "../../src/cli/io.js";
import { tempDir, writeCerts } from "../server/helpers.js";
import { kartaBin } from "../support/conformance.js";

test("a webhook certificate or key that is not a usable pair stops the controller at start (exit 1), before it reads the kubeconfig", async () => {
  const dir = tempDir("karta-controller-");
  try {
    const certs = writeCerts(dir);
    const start = async (args: string[]): Promise<{ code: number; err: string }> => {
      const io = memoryIO();
      const code = await runController([...args, "--kubeconfig=/nonexistent/kubeconfig", "--metrics-bind-address=0", "--health-probe-bind-address=0"], io);
      return { code, err: io.err };
    };
    // A usable pair passes: the kubeconfig is what stops it.
    const good = await start(["--tls-cert-file", certs.certFile, "--tls-private-key-file", certs.keyFile]);
    assert.equal(good.code, 1, good.err);
    assert.match(good.err, /nonexistent\/kubeconfig/);
    const emptyKey = path.join(dir, "empty.key");
    writeFileSync(emptyKey, "");
    const bad = await start(["--tls-cert-file", certs.certFile, "--tls-private-key-file", emptyKey]);
    assert.equal(bad.code, 1, bad.err);
    const line = JSON.parse(bad.err.trim().split("\n").at(-1)!) as { msg: string; err: string };
    assert.equal(line.msg, "cannot start");
    assert.equal(line.err, `${certs.certFile}, ${emptyKey}: not a usable certificate and key: the key file is empty`);
    assert.doesNotMatch(bad.err, /kubeconfig/);
    // --cert-dir reuses the files it finds: an emptied certificate there is refused too.
    mkdirSync(path.join(dir, "generated"));
    writeCerts(path.join(dir, "generated"));
    writeFileSync(path.join(dir, "generated", "tls.crt"), "");
    const reused = await start(["--cert-dir", path.join(dir, "generated")]);
    assert.equal(reused.code, 1, reused.err);
    assert.match(reused.err, /tls\.crt, \S*tls\.key: not a usable certificate and key: the certificate file is empty/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a --cert-dir that cannot be created stops the controller at once (exit 1, saying why), a procfs path included; missing parents are created", () => {
  const dir = tempDir("karta-controller-");
  try {
    writeFileSync(path.join(dir, "file"), "");
    const start = (certDir: string) => {
      // As a user runs it, with a deadline: Node 20's recursive mkdir never returned under /proc.
      const r = spawnSync(process.execPath, [kartaBin, "controller", "--cert-dir", certDir, "--kubeconfig=/nonexistent/kubeconfig", "--metrics-bind-address=0", "--health-probe-bind-address=0", "--leader-elect=false"], { encoding: "utf8", timeout: 30_000 });
      assert.equal(r.signal, null, `${certDir}: still running after 30 s`);
      return { code: r.status, line: JSON.parse(r.stderr.trim().split("\n").at(-1)!) as { msg: string; err: string } };
    };
    const cases: [string, RegExp][] = [
      [path.join(dir, "file", "certs"), /: not a directory$/],
      ...(process.platform === "linux" ? ([["/proc/karta-nope", /: cannot create: no such file or directory$/], ["/proc/karta-nope/a/b", /: cannot create: no such file or directory$/]] as [string, RegExp][]) : []),
    ];
    for (const [certDir, why] of cases) {
      const r = start(certDir);
      assert.equal(r.code, 1, certDir);
      assert.equal(r.line.msg, "cannot start", certDir);
      assert.ok(r.line.err.startsWith(`--cert-dir ${certDir}: `) && why.test(r.line.err), r.line.err);
    }
    // Missing parents are made, as mkdir -p makes them: the kubeconfig is what stops it.
    const nested = path.join(dir, "a", "b", "certs");
    const made = start(nested);
    assert.equal(made.code, 1);
    assert.match(made.line.err, /nonexistent\/kubeconfig/);
    assert.ok(existsSync(path.join(nested, "tls.crt")));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
