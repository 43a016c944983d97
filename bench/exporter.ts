/**
 * The workload metrics exporter (`node dist/bench/run.js exporter`): a /metrics scrape of 1,000 PyTorchJobs
 * and 8,000 pods (the bundled example, scaled), pods resolved through the controller's owner-chain code,
 * when nothing changed since the last scrape and when every object did. Baseline: prom-client rendering the
 * same samples from gauges whose values are already set (what a scrape costs without computing anything).
 * Also what a scrape, read in chunks as /metrics writes it, promotes to the old generation.
 */
import type { KubernetesObject } from "../src/controller/kubernetes-object.js";
import { readFileSync } from "node:fs";
import v8 from "node:v8";
import path from "node:path";
import { parse } from "yaml";
import { Gauge, Registry } from "prom-client";
import { compileInterpreter } from "../src/interpret/index.js";
import { CHUNK } from "../src/controller/endpoints.js";
import { WorkloadExporter, type ExporterSource } from "../src/controller/exporter.js";
import { resolveOwnerChain } from "../src/controller/owners.js";
import { bundledDefinition, repoRoot, type BenchResult } from "./harness.js";

const JOBS = 1000;

/**
 * Bytes the young generation's collections move into the old generation per call of `fn`: objects a
 * scrape keeps alive long enough to be promoted, garbage that only a full collection frees (V8's GC
 * profiler; the sum over scavenges of the old space's growth).
 */
function promotedPerCall(fn: () => void, calls: number): number {
  const oldSpace = (at: { heapSpaceStatistics: v8.HeapSpaceStatistics[] }): number => at.heapSpaceStatistics.find((x) => x.spaceName === "old_space")?.spaceUsedSize ?? 0;
  const profiler = new v8.GCProfiler();
  profiler.start();
  for (let i = 0; i < calls; i++) fn();
  let promoted = 0;
  for (const s of profiler.stop().statistics) if (s.gcType === "Scavenge") promoted += oldSpace(s.afterGC) - oldSpace(s.beforeGC);
  return promoted / calls;
}

async function timed(fn: () => Promise<unknown>, rounds: number): Promise<number> {
  await fn();
  const start = performance.now();
  for (let i = 0; i < rounds; i++) await fn();
  return (rounds * 1000) / (performance.now() - start);
}

export async function benchExporter(): Promise<BenchResult[]> {
  const interpreter = compileInterpreter(bundledDefinition("kubeflow.org/v1/PyTorchJob.yaml"));
  const job = parse(readFileSync(path.join(repoRoot, "examples", "pytorchjob.yaml"), "utf8")) as KubernetesObject & Record<string, unknown>;
  const podTemplates = (parse(readFileSync(path.join(repoRoot, "examples", "pytorchjob-pods.yaml"), "utf8")) as { items: (KubernetesObject & Record<string, unknown>)[] }).items;
  let version = 1;
  const roots: KubernetesObject[] = [];
  const pods: KubernetesObject[] = [];
  const build = (): void => {
    roots.length = 0;
    pods.length = 0;
    for (let j = 0; j < JOBS; j++) {
      const uid = `job-${j}`;
      roots.push({ ...job, metadata: { ...job.metadata, name: `job-${j}`, namespace: `ns-${j % 50}`, uid, resourceVersion: `${version}` } });
      for (let k = 0; k < 8; k++) {
        const t = podTemplates[k % podTemplates.length]!;
        pods.push({ ...t, metadata: { ...t.metadata, name: `job-${j}-${k}`, namespace: `ns-${j % 50}`, uid: `${uid}-${k}`, resourceVersion: `${version}`, ownerReferences: [{ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: `job-${j}`, uid, controller: true }] }, status: { phase: "Running" } } as KubernetesObject);
      }
    }
  };
  build();
  const lookup = { rootKarta: (gk: { group: string; kind: string }) => (gk.kind === "PyTorchJob" ? "pytorch" : undefined), object: () => null };
  const source: ExporterSource = {
    watchedRoots: () => [{ karta: "pytorch", ready: { root: { group: "kubeflow.org", version: "v1", kind: "PyTorchJob" }, karta: { metadata: { generation: 1 } } }, interpreter, objects: () => roots, governs: true }],
    cachedPods: () => pods,
    resolve: (o) => resolveOwnerChain(o, o.metadata?.namespace ?? "", lookup),
    lastEventAt: Date.now(),
    kartaValidity: () => new Map([["pytorch", true]]),
  };
  const exporter = new WorkloadExporter(source, new Registry());
  const scrape = async (): Promise<string> => exporter.exposition();
  const samples = (await scrape()).split("\n").filter((l) => l !== "" && !l.startsWith("#")).length;

  // The same number of samples, already set, rendered by prom-client.
  const base = new Registry();
  const gauge = new Gauge({ name: "baseline_info", help: "h", labelNames: ["namespace", "pod", "uid", "workload", "workload_kind", "workload_group", "component", "component_instance", "replica"], registers: [base] });
  for (let i = 0; i < samples; i++) gauge.set({ namespace: `ns-${i % 50}`, pod: `pod-${i}`, uid: `u-${i}`, workload: `job-${i >> 3}`, workload_kind: "PyTorchJob", workload_group: "kubeflow.org", component: "worker", component_instance: "", replica: "" }, 1);
  const baseline = await timed(() => base.metrics(), 10);
  const steady = await timed(scrape, 10);
  const changed = await timed(async () => {
    version++;
    build();
    await scrape();
  }, 5);
  // What /metrics does with the pieces: chunks of its size handed on (src/controller/endpoints.ts).
  const chunked = (): void => {
    let chunk = "";
    for (const p of exporter.expositionParts()) if ((chunk += p).length >= CHUNK) chunk = "";
  };
  const promoted = promotedPerCall(chunked, 20);
  const note = `${JOBS} jobs, ${pods.length} pods, ${samples} samples`;
  return [
    { name: "prom-client, the same samples already set (baseline)", opsPerSec: baseline, note },
    { name: "exporter scrape, nothing changed", opsPerSec: steady, baseline: "prom-client, the same samples already set (baseline)", ratio: steady / baseline, note: `${note}; ${(promoted / 1024).toFixed(0)} KiB promoted to the old generation per scrape in chunks (as /metrics writes it)` },
    { name: "exporter scrape, every object changed", opsPerSec: changed, baseline: "prom-client, the same samples already set (baseline)", ratio: changed / baseline, note },
  ];
}
