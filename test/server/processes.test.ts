/**
 * `karta serve --processes N` as an operator runs it: serving processes sharing the HTTPS port behind
 * one supervisor, which answers the probes and /metrics for all of them, writes their log lines out
 * whole, replaces one that dies, drains them all on SIGTERM and leaves none behind; and a process that
 * cannot start stops the command with its reason, once. The default (one process per CPU, the
 * container's CPU quota counted) is checked on cgroup files.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createLogger } from "../../src/server/log.js";
import { cgroupCpuQuota, startServingProcesses } from "../../src/server/processes.js";
import { SERVE_DEFAULTS } from "../../src/server/index.js";
import { contextBody, eventually, repoRoot, request, spawnServe, tempDir, writeCerts } from "./helpers.js";

/** Pids of the processes whose environment mentions `text` (the serving processes get their options there). */
function processesMentioning(text: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").includes(text)) found.push(Number(entry));
    } catch {
      // Exited, or not ours to read.
    }
  }
  return found;
}

interface Line {
  msg: string;
  component: string;
  process?: number;
  uid?: string;
}

const deployment = (replicas: number): Record<string, unknown> => ({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "w" }, spec: { replicas, template: { spec: { containers: [] } } } });

describe("karta serve --processes", () => {
  test("two processes share the port; probes, metrics and logs speak for both; one killed is replaced; SIGTERM drains both", async () => {
    const dir = tempDir();
    const served = spawnServe(["--cert-dir", dir, "--processes", "2", "--workers", "1", "--secure-port", "0", "--bind-address", "127.0.0.1", "--metrics-bind-address", "127.0.0.1:0"]);
    const { child, log: out } = served;
    const lines = (): Line[] => out().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Line);
    try {
      const serving = await served.serving();
      assert.equal(serving.processes, 2);
      assert.equal(serving.process, undefined);
      const probes = `http://127.0.0.1:${serving.metricsPort}`;
      const url = `https://127.0.0.1:${serving.port}/interpret`;
      const ca = readFileSync(path.join(dir, "ca.crt"), "utf8");
      const first = processesMentioning(dir);
      assert.equal(first.length, 2, "two serving processes");

      // Ready once every process's workers are (they start after the port is served).
      await eventually(async () => (await fetch(`${probes}/readyz`)).status === 200, 60_000, "readiness");
      assert.match(await (await fetch(`${probes}/readyz?verbose`)).text(), /^\[\+\]shutdown ok\n\[\+\]processes ok: 2\/2 serving\n\[\+\]workers ok: 2\/2 ready, 0 queued\n\[\+\]config ok: generation 1\nreadyz check passed\n$/);

      // 40 requests, 8 at a time, each on a connection of its own: connections go to the processes in turn.
      for (let i = 0; i < 40; i += 8) {
        const answers = await Promise.all(Array.from({ length: 8 }, (_, j) => request(url, ca, contextBody(`r${i + j}`, "InterpretReplica", deployment(i + j)))));
        answers.forEach((a, j) => {
          assert.equal(a.status, 200);
          assert.deepEqual((a.json() as { response: unknown }).response, { uid: `r${i + j}`, successful: true, replicas: i + j });
        });
      }
      const metrics = await (await fetch(`${probes}/metrics`)).text();
      assert.match(metrics, /^karta_webhook_requests_total\{operation="InterpretReplica",kind="apps\/v1\/Deployment",outcome="success"\} 40$/m);
      assert.match(metrics, /^karta_webhook_request_duration_seconds_count\{operation="InterpretReplica"\} 40$/m);
      assert.match(metrics, /^karta_config_generation 1$/m);
      assert.match(metrics, /^karta_serving_process_restarts_total 0$/m);
      // The process metrics cover the whole server, each once.
      for (const name of ["process_resident_memory_bytes", "process_cpu_seconds_total", "process_start_time_seconds", "nodejs_heap_size_total_bytes"]) assert.equal(metrics.match(new RegExp(`^${name} \\d`, "gm"))?.length, 1, name);

      // One serving process dies (its log lines written out first: a process killed loses what it buffered,
      // up to a second's worth): the supervisor says so, starts another, and serving goes on.
      await eventually(() => lines().filter((l) => l.msg === "interpreted").length === 40, 10_000, "the request lines");
      process.kill(first[0]!, "SIGKILL");
      await eventually(() => /"msg":"serving process \d was killed by SIGKILL: replacing it"/.test(out()), 30_000, "the replacement");
      await eventually(async () => processesMentioning(dir).length === 2 && (await (await fetch(`${probes}/readyz?verbose`)).text()).includes("[+]processes ok: 2/2 serving"), 60_000, "both processes serving again");
      assert.ok(!processesMentioning(dir).includes(first[0]!));
      assert.match(await (await fetch(`${probes}/metrics`)).text(), /^karta_serving_process_restarts_total 1$/m);
      const after = await request(url, ca, contextBody("after", "InterpretReplica", deployment(3)));
      assert.deepEqual((after.json() as { response: unknown }).response, { uid: "after", successful: true, replicas: 3 });

      child.kill("SIGTERM");
      assert.equal(await served.exited, 0, served.err());
      assert.deepEqual(processesMentioning(dir), [], "no serving process left");
      // Every line whole and JSON; each request logged once, by the process that answered it.
      const all = lines();
      assert.ok(all.every((l) => l.component === "karta-serve"));
      const answered = all.filter((l) => l.msg === "interpreted");
      assert.deepEqual(answered.map((l) => l.uid).sort(), [...Array.from({ length: 40 }, (_, i) => `r${i}`), "after"].sort());
      assert.deepEqual([...new Set(answered.map((l) => l.process))].sort(), [0, 1]);
      assert.equal(all.filter((l) => l.msg === "stopped" && l.process !== undefined).length, 2, out());
      assert.equal(all.at(-1)!.msg, "stopped");
      assert.equal(all.at(-1)!.process, undefined, "the supervisor's line comes last");
    } finally {
      child.kill("SIGKILL");
      for (const pid of processesMentioning(dir)) process.kill(pid, "SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a process that cannot start stops the command: its reason printed once, exit 1, none left", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "bad.yaml"), "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: x}\nspec: {target: {apiVersion: v1, kind: Foo}, customizations: {retention: {luaScript: 'function Retain(a, b) return a'}}}\n");
    const { child, exited, err: stderr } = spawnServe(["--cert-dir", dir, "--processes", "2", "--customizations", path.join(dir, "bad.yaml"), "--secure-port", "0", "--bind-address", "127.0.0.1", "--metrics-bind-address", "127.0.0.1:0"]);
    try {
      const code = await exited;
      const err = stderr();
      assert.equal(code, 1, err);
      assert.equal(err.match(/the configuration has errors/g)?.length, 1, err);
      assert.match(err, /karta serve: the configuration has errors\n {2}.*bad\.yaml:4:\d+: error: spec\.customizations\.retention\.luaScript: line 1 of the script: /);
      assert.deepEqual(processesMentioning(dir), []);
    } finally {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a serving process that stops answering is killed and replaced; close() drains the rest", async () => {
    const dir = tempDir();
    const certs = writeCerts(dir);
    const written: string[] = [];
    const log = createLogger("info", { write: (line: string) => void written.push(line) });
    const supervisor = await startServingProcesses({
      entry: path.join(repoRoot, "dist", "src", "cli", "serving-process.js"),
      processes: 2,
      serverOptions: { ...SERVE_DEFAULTS, securePort: 0, bindAddress: "127.0.0.1", metricsBindAddress: "127.0.0.1:0", tlsCertFile: certs.certFile, tlsPrivateKeyFile: certs.keyFile, workers: 1, definitions: [], customizations: [], multiplePodTemplatesScheduling: false, logLevel: "info" },
      metricsBindAddress: "127.0.0.1:0",
      path: "/interpret",
      workersPerProcess: 1,
      shutdownGracePeriodMs: 5_000,
      log,
      hangAfterMs: 1_500,
    });
    try {
      const readyz = async (): Promise<string> => (await fetch(`http://127.0.0.1:${supervisor.metricsPort}/readyz?verbose`)).text();
      await eventually(async () => (await readyz()).includes("[+]processes ok: 2/2 serving"), 60_000, "both processes serving");
      const [stopped] = processesMentioning(dir);
      // A stopped process keeps its connections and answers nothing, as a blocked event loop would.
      process.kill(stopped!, "SIGSTOP");
      await eventually(() => written.some((l) => /"msg":"serving process \d has not answered for 2 s: killing it"/.test(l)), 30_000, "the hang to be seen");
      await eventually(async () => (await readyz()).includes("[+]processes ok: 2/2 serving") && !processesMentioning(dir).includes(stopped!), 60_000, "a replacement serving");
      const answer = await request(`https://127.0.0.1:${supervisor.port}/interpret`, certs.caPem, contextBody("after-hang", "InterpretReplica", deployment(2)));
      assert.deepEqual((answer.json() as { response: unknown }).response, { uid: "after-hang", successful: true, replicas: 2 });
    } finally {
      await supervisor.close();
      assert.deepEqual(processesMentioning(dir), []);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the default counts the container's CPU quota (cgroup v2 cpu.max, v1 cfs quota)", () => {
    const root = tempDir("karta-cgroup-");
    try {
      assert.equal(cgroupCpuQuota(root), undefined, "no cgroup files: no limit");
      writeFileSync(path.join(root, "cpu.max"), "max 100000\n");
      assert.equal(cgroupCpuQuota(root), undefined);
      writeFileSync(path.join(root, "cpu.max"), "150000 100000\n");
      assert.equal(cgroupCpuQuota(root), 1.5);
      rmSync(path.join(root, "cpu.max"));
      mkdirSync(path.join(root, "cpu"));
      writeFileSync(path.join(root, "cpu", "cpu.cfs_quota_us"), "-1\n");
      writeFileSync(path.join(root, "cpu", "cpu.cfs_period_us"), "100000\n");
      assert.equal(cgroupCpuQuota(root), undefined);
      writeFileSync(path.join(root, "cpu", "cpu.cfs_quota_us"), "50000\n");
      assert.equal(cgroupCpuQuota(root), 0.5);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
