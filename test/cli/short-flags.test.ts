/**
 * Flags spelled as pflag (and so kubectl and every Kubernetes component) reads them: a shorthand boolean
 * with `=VALUE` (`-A=true`, `-w=false`, as strconv.ParseBool reads it), and klog's verbosity `-v/--v LEVEL`
 * on karta controller and karta serve. Run as a user runs the commands: main() with its output and exit code.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { FAKE_GET_OUTPUT, startFakeApiServer, startUnavailableApiServer } from "../support/fake-apiserver.js";
import { runKarta } from "../support/cluster.js";
import { spawnServe, tempDir } from "../server/helpers.js";

test("-A=true, -A=1, -w=false: a shorthand boolean takes the value after '=', as pflag reads it", async () => {
  const server = await startFakeApiServer();
  try {
    const kc = ["--kubeconfig", server.kubeconfig];
    for (const [flags, all] of [[["-A=true"], true], [["-A=1"], true], [["-A=T"], true], [["-A=false"], false], [["-A=0"], false], [["-w=false"], false], [["-w=false", "-A=False"], false], [["-Aw=0"], true]] as const) {
      server.urls.length = 0;
      const io = memoryIO();
      const code = await main(["get", "pytorchjob", ...flags, ...kc], io);
      const listed = server.urls.filter((u) => u.includes("/pytorchjobs"));
      if (all) {
        // The fake API server serves the namespace team only: asked for every namespace, it answers 404.
        assert.ok(listed.length > 0 && listed.every((u) => u.startsWith("/apis/kubeflow.org/v1/pytorchjobs")), `${flags.join(" ")}: ${listed.join(" ")}`);
      } else {
        assert.equal(code, 0, `${flags.join(" ")}: ${io.err}`);
        assert.match(io.out, FAKE_GET_OUTPUT);
        assert.ok(listed.every((u) => u.startsWith("/apis/kubeflow.org/v1/namespaces/team/pytorchjobs")), `${flags.join(" ")}: ${listed.join(" ")}`);
      }
    }
    for (const [flag, message] of [
      ["-A=maybe", "invalid value 'maybe' for -A: expected true or false"],
      ["-w=", "invalid value '' for -w: expected true or false"],
      ["-wA=yes", "invalid value 'yes' for -A: expected true or false"],
    ] as const) {
      const io = memoryIO();
      assert.equal(await main(["get", "pytorchjob", flag, ...kc], io), 2, flag);
      assert.equal(io.err, `karta get: ${message}\nRun 'karta get --help' for usage.\n`);
    }
  } finally {
    server.close();
  }
});

test("karta controller -v/--v LEVEL, as klog's: 4 and more log debug lines, less does not; -v alone and --verbose still do", async () => {
  // An API server that answers 503 to everything: the controller logs its first retry at info, the next at debug.
  const { kubeconfig, close } = await startUnavailableApiServer();
  try {
    // Eleven processes at once: the sync timeout leaves room for two retries on a loaded machine.
    const start = ["controller", "--kubeconfig", kubeconfig, "--leader-elect=false", "--metrics-bind-address", "0", "--health-probe-bind-address", "0", "--cache-sync-timeout", "6s"];
    const runs = await Promise.all(
      [["--v=4"], ["-v=4"], ["-v", "4"], ["-v4"], ["--v", "10"], ["-v"], ["-v", "--cache-sync-timeout", "6s"], ["--verbose"], ["--v=3"], ["-v", "0"], []].map(async (flags) => ({ flags, r: await runKarta([...start, ...flags]) })),
    );
    for (const { flags, r } of runs) {
      const levels = r.stderr.split("\n").filter((l) => l !== "").map((l) => (JSON.parse(l) as { level: number }).level);
      assert.equal(r.code, 1, `${flags.join(" ")}: ${r.stderr}`);
      const debug = flags.length > 0 && !["--v=3", "0"].includes(flags.at(-1)!);
      assert.equal(levels.includes(20), debug, `${flags.join(" ")}: ${r.stderr}`);
    }
  } finally {
    close();
  }
  for (const [flags, message] of [
    [["--v=x"], "invalid value 'x' for --v: expected an integer from 0 to 2147483647"],
    [["-v=-1"], "invalid value '-1' for -v: expected an integer from 0 to 2147483647"],
    [["-v", "-1"], "invalid value '-1' for -v: expected an integer from 0 to 2147483647"],
    [["--vv=2"], "unknown flag: --vv (did you mean --v?)"],
  ] as const) {
    const io = memoryIO();
    assert.equal(await main(["controller", ...flags], io), 2, flags.join(" "));
    assert.equal(io.err, `karta controller: ${message}\nRun 'karta controller --help' for usage.\n`);
  }
});

test("karta serve -v/--v LEVEL: 4 and more log debug lines whatever --log-level says; a bad level is a usage error", async () => {
  const dir = tempDir();
  const served = spawnServe(["--cert-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1", "--metrics-bind-address", "127.0.0.1:0", "--processes", "1", "--workers", "1", "--log-level", "error", "--v=4"]);
  try {
    // "serving" is an info line: logged only because -v 4 asked for debug lines.
    await served.serving();
  } finally {
    served.child.kill("SIGTERM");
    await served.exited;
    rmSync(dir, { recursive: true, force: true });
  }
  for (const flags of [["--v=x"], ["-v", "-2"]]) {
    const io = memoryIO();
    assert.equal(await main(["serve", "--cert-dir", "/tmp/x", ...flags], io), 2, flags.join(" "));
    assert.match(io.err, /^karta serve: invalid value '-?[x2]' for (-v|--v): expected an integer from 0 to 2147483647\n/);
  }
});
