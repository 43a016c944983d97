/**
 * scripts/test-cluster itself: every process `up` starts is stopped by its reaper once the owner exits,
 * even when the checkout the script ran from has been deleted meanwhile; an `up` that fails leaves nothing
 * running; `up` refuses to start with a binary missing from the cache.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { repoRoot } from "../support/conformance.js";
import { alive, clusterBinaries, clusterBinDir, clusterScript, eventually, run } from "../support/cluster.js";

// Skips (with its notice) where Go is missing.
const skip = (await clusterBinaries()) ?? false;

/** The pids of the processes `up` recorded in DIR (servers, reaper). */
function pids(dir: string): Map<string, number> {
  return new Map(readdirSync(dir).filter((f) => f.endsWith(".pid")).map((f) => [f.slice(0, -4), Number(readFileSync(path.join(dir, f), "utf8"))]));
}

/** A copy of the parts of a checkout the script reads: itself and the modules naming the versions. */
function copyCheckout(): string {
  const checkout = mkdtempSync(path.join(tmpdir(), "karta-checkout-"));
  mkdirSync(path.join(checkout, "scripts"));
  copyFileSync(clusterScript, path.join(checkout, "scripts", "test-cluster"));
  for (const m of ["kubernetes", "etcd"]) {
    mkdirSync(path.join(checkout, "tools", "cluster", m), { recursive: true });
    copyFileSync(path.join(repoRoot, "tools", "cluster", m, "go.mod"), path.join(checkout, "tools", "cluster", m, "go.mod"));
  }
  return checkout;
}

describe("scripts/test-cluster", { skip }, () => {
  test("the reaper stops every process up started once the owner exits, though the checkout is gone", async () => {
    const checkout = copyCheckout();
    const dir = path.join(tmpdir(), `karta-reaped-${process.pid}`);
    const owner = spawn("sleep", ["600"], { stdio: "ignore" });
    try {
      const up = await run(path.join(checkout, "scripts", "test-cluster"), ["up", dir, "--with", "scheduler,controller-manager", "--owner-pid", String(owner.pid)]);
      assert.equal(up.code, 0, up.stderr);
      const started = pids(dir);
      assert.deepEqual([...started.keys()].sort(), ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "reaper"]);
      for (const [name, pid] of started) assert.ok(alive(pid), `${name} runs`);
      rmSync(checkout, { recursive: true, force: true });
      owner.kill("SIGKILL");
      await eventually(async () => ([...started.values()].some(alive) || existsSync(dir) ? undefined : true), 60_000, "every process stopped and the directory removed");
    } finally {
      owner.kill("SIGKILL");
      rmSync(checkout, { recursive: true, force: true });
      if (existsSync(dir)) await run(clusterScript, ["down", dir]);
    }
  });

  test("an up that fails stops what it started (and keeps the logs)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-failed-up-"));
    try {
      const up = await run(clusterScript, ["up", dir, "--with", "scheduler", "--feature-gates", "NoSuchGate=true"]);
      assert.equal(up.code, 1);
      assert.match(up.stderr, /kube-apiserver exited during startup/);
      assert.match(readFileSync(path.join(dir, "kube-apiserver.log"), "utf8"), /unrecognized feature gate: NoSuchGate/);
      for (const [name, pid] of pids(dir)) assert.ok(!alive(pid), `${name} (pid ${pid}) still runs`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("up refuses a cache missing any binary, naming it", async () => {
    const cache = mkdtempSync(path.join(tmpdir(), "karta-partial-cache-"));
    try {
      for (const b of ["etcd", "kube-apiserver"]) symlinkSync(path.join(clusterBinDir(), b), path.join(cache, b));
      const up = await run(clusterScript, ["up", path.join(cache, "c")], { ...process.env, KARTA_CLUSTER_CACHE: cache });
      assert.equal(up.code, 1);
      assert.match(up.stderr, /binaries missing in .* \(kube-scheduler kube-controller-manager kubectl\): run 'scripts\/test-cluster build' first/);
      assert.ok(!existsSync(path.join(cache, "c")), "nothing started");
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
});
