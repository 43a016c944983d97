/**
 * What a watch of every pod costs, by encoding (`node dist/bench/run.js watch`): on a fresh API server per
 * phase (scripts/test-cluster), the controller benchmark's jobs and pods are created (32 requests in
 * flight) while one watcher process streams every pod with Karta's client (src/controller/client.ts), in
 * JSON (each line parsed, as the controller did) or in protobuf (each frame decoded by `decodePod`, as the
 * controller does now; "batched": read at most every 100 ms while events keep coming, as the controller
 * reads its pod watch), or while nothing watches. Phases alternate (none, JSON, protobuf, batched, then
 * the reverse order), and each reads kube-apiserver's CPU time (/proc/PID/stat) and the watcher's own.
 *
 * With KARTA_BENCH_WATCH_COWATCHER=1, a second process watches the pods in protobuf in every phase, as
 * kube-scheduler and the kubelets do in a cluster: the API server then keeps each pod's protobuf
 * encoding for both watchers, and a JSON watcher costs it an encoding of its own.
 *
 * Environment: KARTA_BENCH_WATCH_ROOTS (default 200 jobs, 50 pods each), KARTA_BENCH_WATCH_ROUNDS (default 2).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { KubeClient } from "../src/controller/client.js";
import { loadClusterAccess } from "../src/controller/kubeconfig.js";
import { decodePod } from "../src/controller/pod-cache.js";
import { median, type BenchResult } from "./harness.js";
import { cpuSeconds, createWorkloads, freshCluster, mean } from "./controller.js";

/** How the pods are watched: not at all, in JSON, in protobuf, or in protobuf read in batches (as the controller does). */
type Encoding = "none" | "json" | "protobuf" | "batched";
type Watching = Exclude<Encoding, "none">;

/** The batched watcher's window: the controller's pod watch (POD_WATCH_BATCH_MS in src/controller/workloads.ts). */
const BATCH_MS = 100;

interface Phase {
  encoding: Encoding;
  apiserverCpu: number;
  latencyMs: number;
  watcherCpu: number;
  events: number;
}

/** A watcher process: `node watch.js KUBECONFIG ENCODING`; prints its events and CPU seconds when sent SIGTERM. */
async function watcher(kubeconfig: string, encoding: Watching): Promise<void> {
  const client = new KubeClient(loadClusterAccess({ kubeconfig }));
  let events = 0;
  const stop = new AbortController();
  const start = process.cpuUsage(); // after the modules loaded: the watch's own CPU
  process.on("SIGTERM", () => {
    const u = process.cpuUsage(start);
    process.stdout.write(`${JSON.stringify({ events, cpu: (u.user + u.system) / 1e6 })}\n`, () => process.exit(0));
  });
  process.stdout.write("watching\n");
  for (;;) {
    await client
      .watch("/api/v1/pods", { allowWatchBookmarks: true }, () => events++, stop.signal, encoding === "json" ? {} : { protobuf: decodePod, ...(encoding === "batched" ? { batchMs: BATCH_MS } : {}) })
      .catch(() => undefined);
  }
}

function startWatcher(kubeconfig: string, encoding: Watching): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), kubeconfig, encoding], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.stdout!.once("data", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`the watcher exited with ${code}`)));
  });
}

function stopWatcher(child: ChildProcess): Promise<{ events: number; cpu: number }> {
  return new Promise((resolve) => {
    let out = "";
    child.stdout!.on("data", (b: Buffer) => (out += b.toString()));
    child.once("exit", () => resolve(JSON.parse(out.trim().split("\n").at(-1)!) as { events: number; cpu: number }));
    child.kill("SIGTERM");
  });
}

async function phase(encoding: Encoding, roots: number, cowatcher: boolean): Promise<Phase> {
  const cl = await freshCluster();
  const children: ChildProcess[] = [];
  try {
    if (cowatcher) children.push(await startWatcher(cl.kubeconfig, "protobuf"));
    const w = encoding === "none" ? undefined : await startWatcher(cl.kubeconfig, encoding);
    const api0 = cpuSeconds(cl.apiserverPid);
    const latencies: number[] = [];
    await createWorkloads(cl.c, "bench", roots, latencies);
    await new Promise((r) => setTimeout(r, 1000)); // the last events
    const apiserverCpu = cpuSeconds(cl.apiserverPid) - api0;
    const seen = w ? await stopWatcher(w) : { events: 0, cpu: 0 };
    return { encoding, apiserverCpu, latencyMs: mean(latencies), watcherCpu: seen.cpu, events: seen.events };
  } finally {
    for (const ch of children) ch.kill("SIGKILL");
    cl.close();
  }
}

export async function benchWatch(): Promise<{ title: string; results: BenchResult[] }> {
  const roots = Number(process.env["KARTA_BENCH_WATCH_ROOTS"] ?? 200);
  const rounds = Number(process.env["KARTA_BENCH_WATCH_ROUNDS"] ?? 2);
  const cowatcher = process.env["KARTA_BENCH_WATCH_COWATCHER"] === "1";
  const phases: Phase[] = [];
  const order: Encoding[] = ["none", "json", "protobuf", "batched"];
  for (let r = 0; r < rounds; r++) for (const e of r % 2 === 0 ? order : [...order].reverse()) phases.push(await phase(e, roots, cowatcher));
  const of = (e: Encoding, f: (p: Phase) => number): number => median(phases.filter((p) => p.encoding === e).map(f));
  const each = (e: Encoding, f: (p: Phase) => number, digits = 1): string => phases.filter((p) => p.encoding === e).map((p) => f(p).toFixed(digits)).join(", ");
  const base = of("none", (p) => p.apiserverCpu);
  const names: Record<Encoding, string> = { none: "no watch of the pods", json: "a JSON watch of every pod", protobuf: "a protobuf watch of every pod", batched: `a protobuf watch of every pod read every ${BATCH_MS} ms at most` };
  const results: BenchResult[] = order.map((e) => {
    const extra = of(e, (p) => p.apiserverCpu) - base;
    const perEvent = (x: Encoding): number => (of(x, (p) => p.watcherCpu) * 1e6) / of(x, (p) => p.events);
    const watcher = e === "none" ? "" : `; the watcher ${each(e, (p) => p.watcherCpu, 2)} s of CPU for ${of(e, (p) => p.events)} events (${perEvent(e).toFixed(1)} µs each${e === "batched" ? `, ${(perEvent(e) / perEvent("protobuf")).toFixed(2)}× the protobuf watcher's read as events come` : ""})`;
    return {
      name: names[e],
      opsPerSec: (roots * 50) / of(e, (p) => p.apiserverCpu),
      ...(e === "none" ? {} : { baseline: "no watch of the pods", ratio: base / of(e, (p) => p.apiserverCpu) }),
      note: `kube-apiserver CPU ${each(e, (p) => p.apiserverCpu)} s${e === "none" ? "" : ` (median ${extra >= 0 ? "+" : ""}${extra.toFixed(1)} s)`}; pod create latency ${each(e, (p) => p.latencyMs)} ms${watcher}`,
    };
  });
  return { title: `pod watch encodings: ${roots * 50} pods created against a fresh API server per phase, ${rounds} rounds alternating${cowatcher ? ", a protobuf watcher (as kube-scheduler) in every phase" : ""} (rate: pods per API server CPU second; ratio: no watch / with it)`, results };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.length === 4) await watcher(process.argv[2]!, process.argv[3] as Watching);
