/**
 * The command line as users run it. Start-up: whole `karta` processes (`--help`, `inspect` on the bundled
 * PyTorchJob example, `jq` on a JSON file) against `node -e 0`, interleaved in rounds so that machine load
 * hits all alike; the median of each. Output: `karta compile --pod-patches` of a Job with 100,000 pods
 * printed as YAML against the same as JSON (the whole command, and the printing alone). Input: 10,000
 * pods read as JSON Lines against the same pods as one `List` (kubectl's `-o json`).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runCompile } from "../src/cli/compile.js";
import { nodeIO, type CliIO } from "../src/cli/io.js";
import { readObjects } from "../src/cli/objects.js";
import { yamlStream } from "../src/cli/yaml-output.js";
import { compileBatchJob } from "../src/scheduling/karta/batch-job.js";
import { median, repoRoot, type BenchResult } from "./harness.js";

/** Wall time of a function (ms), the median of `rounds`. */
async function time(fn: () => unknown, rounds = 5): Promise<number> {
  const out: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await fn();
    out.push(performance.now() - start);
  }
  return median(out);
}

function ratioResult(name: string, ms: number, baseline: string, baseMs: number, limit: number, lowerIsBetter = true): BenchResult {
  const ratio = ms / baseMs;
  return { name: `${name} (${ms.toFixed(1)} ms)`, opsPerSec: 1000 / ms, baseline, ratio: lowerIsBetter ? baseMs / ms : ratio, note: `time ${ratio.toFixed(2)}× the baseline's (target ≤ ${limit}×: ${ratio <= limit ? "met" : "NOT met"})` };
}

/** Start-up of whole processes. */
export function benchStartup(rounds = 15): BenchResult[] {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-bench-"));
  try {
    const deployment = path.join(dir, "deployment.json");
    writeFileSync(deployment, JSON.stringify({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: { replicas: 3 } }));
    const karta = path.join(repoRoot, "bin", "karta.js");
    const runs: [string, string[], number][] = [
      ["node -e 0", ["-e", "0"], 0],
      ["karta --help", [karta, "--help"], 1.2],
      ["karta inspect (PyTorchJob example, its pods)", [karta, "inspect", "-f", "examples/pytorchjob.yaml", "--pods", "examples/pytorchjob-pods.yaml"], 2],
      ["karta jq .metadata.name deployment.json", [karta, "jq", ".metadata.name", deployment], 2],
    ];
    const times = runs.map(() => [] as number[]);
    for (let r = 0; r < rounds; r++) {
      runs.forEach(([, args], i) => {
        const start = performance.now();
        const p = spawnSync(process.execPath, args, { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"] });
        if (p.status !== 0) throw new Error(`${args.join(" ")}: exit ${p.status}: ${p.stderr}`);
        times[i]!.push(performance.now() - start);
      });
    }
    const base = median(times[0]!);
    return runs.map(([name, , limit], i) => (i === 0 ? { name: `${name} (${base.toFixed(1)} ms)`, opsPerSec: 1000 / base } : ratioResult(name, median(times[i]!), "node -e 0", base, limit)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const JOB_UID = "0c1f6a52-3b7e-4d19-8a2c-5e6f7a8b9c0d";

function job(pods: number): Record<string, unknown> {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: "sweep", namespace: "research", uid: JOB_UID },
    spec: { parallelism: pods, completions: pods, scheduling: { gang: {} }, template: { spec: { containers: [{ name: "trial", image: "python:3.12" }] } } },
  };
}

function pod(i: number): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: `sweep-${i}`, namespace: "research", uid: `${(i % 10).toString()}${i.toString(16).padStart(7, "0")}-aaaa-4bbb-8ccc-${i.toString(16).padStart(12, "0")}`, labels: { "batch.kubernetes.io/job-name": "sweep", "batch.kubernetes.io/job-completion-index": String(i) }, ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "sweep", uid: JOB_UID, controller: true }] },
    spec: { containers: [{ name: "trial", image: "python:3.12", resources: { requests: { cpu: "1", memory: "2Gi" } } }] },
    status: { phase: "Running" },
  };
}

/** An IO that reads real files and throws the output away (counting it). */
function sinkIO(): CliIO & { bytes: number } {
  const io = { ...nodeIO(), bytes: 0 };
  io.stdout = (t: string) => void (io.bytes += t.length);
  io.stderr = () => undefined;
  return io;
}

/** `karta compile --pod-patches` on 100,000 pods: -o yaml against -o json. */
export async function benchCompileOutput(pods = 100_000): Promise<BenchResult[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-bench-"));
  try {
    const jobFile = path.join(dir, "job.json");
    const podsFile = path.join(dir, "pods.jsonl");
    writeFileSync(jobFile, JSON.stringify(job(pods)));
    const all = Array.from({ length: pods }, (_, i) => pod(i));
    writeFileSync(podsFile, all.map((p) => JSON.stringify(p)).join("\n") + "\n");
    const run = async (output: string): Promise<void> => {
      const io = sinkIO();
      const code = await runCompile(["-f", jobFile, "--pods", podsFile, "--pod-patches", "-o", output], io);
      if (code !== 0 || io.bytes === 0) throw new Error(`karta compile -o ${output}: exit ${code}`);
    };
    const json = await time(() => run("json"), 3);
    const yaml = await time(() => run("yaml"), 3);
    const patches = compileBatchJob(job(pods) as unknown as Parameters<typeof compileBatchJob>[0], { pods: all }).podPatches;
    const printJson = await time(() => JSON.stringify(patches, null, 2), 3);
    const printYaml = await time(() => yamlStream(patches), 3);
    return [
      { name: `karta compile --pod-patches -o json, ${pods} pods (${json.toFixed(0)} ms)`, opsPerSec: 1000 / json },
      ratioResult(`karta compile --pod-patches -o yaml, ${pods} pods`, yaml, "-o json", json, 1.5),
      { name: `printing alone: JSON.stringify (${printJson.toFixed(0)} ms)`, opsPerSec: 1000 / printJson },
      { ...ratioResult("printing alone: YAML", printYaml, "JSON.stringify", printJson, 1.5), note: `time ${(printYaml / printJson).toFixed(2)}× JSON.stringify's (the command's figure above is the target)` },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 10,000 pods read as JSON Lines against the same pods as one List. */
export async function benchStreamInput(pods = 10_000): Promise<BenchResult[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-bench-"));
  try {
    const all = Array.from({ length: pods }, (_, i) => pod(i));
    const list = path.join(dir, "pods.json");
    const jsonl = path.join(dir, "pods.jsonl");
    const concatenated = path.join(dir, "pods-concatenated.json");
    // As kubectl prints them: `-o json` indents by 4; `jq -c '.items[]'` one per line; `jq '.items[]'` pretty, one after another.
    writeFileSync(list, JSON.stringify({ apiVersion: "v1", kind: "List", items: all }, null, 4));
    writeFileSync(jsonl, all.map((p) => JSON.stringify(p)).join("\n") + "\n");
    writeFileSync(concatenated, all.map((p) => JSON.stringify(p, null, 2)).join("\n") + "\n");
    const read = async (file: string): Promise<void> => {
      const n = (await readObjects(nodeIO(), [file])).length;
      if (n !== pods) throw new Error(`${file}: ${n} objects`);
    };
    const base = await time(() => read(list), 7);
    const concatenatedMs = await time(() => read(concatenated), 7);
    return [
      { name: `${pods} pods as one List (${base.toFixed(1)} ms)`, opsPerSec: 1000 / base },
      ratioResult(`${pods} pods as JSON Lines`, await time(() => read(jsonl), 7), "List", base, 1.5),
      (() => {
        const r = ratioResult(`${pods} pods as concatenated JSON`, concatenatedMs, "List", base, 1.5);
        return { ...r, note: `time ${(concatenatedMs / base).toFixed(2)}× the baseline's (no target: cut into values by a scanner)` };
      })(),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
