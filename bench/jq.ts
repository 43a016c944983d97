/**
 * The jq engine against a hand-written accessor (the ceiling) and @michaelhomer/jqjs (the baseline
 * npm package) on Karta's expressions over ~5 KB objects; and `karta jq -c` over a 100,000-pod stream
 * against the system jq and the Node.js floor (parse each line, print one field).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { compile as jqjsCompile } from "@michaelhomer/jqjs";
import { compileJq } from "../src/jq/index.js";
import { BenchResult, opsPerSecond, repoRoot } from "./harness.js";


const container = (name: string, gpu: number) => ({
  name,
  image: "ghcr.io/example/llama-finetune:2.3.0",
  command: ["torchrun", "--nnodes=4", "--nproc_per_node=8", "train.py", "--config", "/etc/train/config.yaml"],
  env: Array.from({ length: 8 }, (_x, i) => ({ name: `NCCL_SETTING_${i}`, value: `value-${i}` })),
  resources: { requests: { cpu: "16", memory: "128Gi" }, limits: gpu ? { "nvidia.com/gpu": String(gpu) } : { cpu: "16" } },
  volumeMounts: [{ name: "dshm", mountPath: "/dev/shm" }, { name: "data", mountPath: "/data" }],
});
const template = (gpu: number) => ({
  metadata: { labels: { team: "ml", "app.kubernetes.io/name": "llama-finetune" } },
  spec: {
    priorityClassName: "training-high",
    containers: [container("pytorch", gpu)],
    volumes: [{ name: "dshm", emptyDir: { medium: "Memory" } }, { name: "data", persistentVolumeClaim: { claimName: "datasets" } }],
    tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
  },
});

/** A PyTorchJob of about 5 KB, with a JobSet-style job list and pod-style labels so every expression has data. */
export function benchObject(): any {
  return {
    apiVersion: "kubeflow.org/v1",
    kind: "PyTorchJob",
    metadata: {
      name: "llama-finetune",
      namespace: "ml-team",
      uid: "3f6d2c1e-8a4b-4c7d-9e2f-1a2b3c4d5e6f",
      labels: {
        "training.kubeflow.org/job-name": "llama-finetune",
        "training.kubeflow.org/replica-type": "worker",
        "leaderworkerset.sigs.k8s.io/group-index": "3",
      },
    },
    spec: {
      runPolicy: { cleanPodPolicy: "None" },
      pytorchReplicaSpecs: {
        Master: { replicas: 1, restartPolicy: "OnFailure", template: template(8) },
        Worker: { replicas: 3, restartPolicy: "OnFailure", template: template(8) },
      },
      jobs: [
        { name: "driver", spec: template(8).spec },
        { name: "loader", spec: template(0).spec },
      ],
      // RayCluster-style groups, for the instanceIdPath expression of the bundled RayCluster Karta.
      workerGroupSpecs: [
        { groupName: "gpu-group", replicas: 2, template: { spec: { containers: [{ name: "ray-worker" }] } } },
        { groupName: "cpu-group", replicas: 4, template: { spec: { containers: [{ name: "ray-worker" }] } } },
      ],
    },
    status: {
      conditions: [
        { type: "Created", status: "True", reason: "PyTorchJobCreated" },
        { type: "Running", status: "True", reason: "PyTorchJobRunning" },
        { type: "Ready", status: "True", reason: "AllReplicasReady" },
      ],
    },
  };
}

/** The expressions measured, each with the hand-written JS that computes the same. */
export const EXPRESSIONS: { expr: string; plain: boolean; hand: (o: any) => unknown }[] = [
  { expr: '.metadata.labels["training.kubeflow.org/replica-type"]', plain: true, hand: (o) => o.metadata?.labels?.["training.kubeflow.org/replica-type"] ?? null },
  { expr: ".spec.jobs | to_entries[] | .key", plain: false, hand: (o) => Object.keys(o.spec.jobs).map((k, i) => (Array.isArray(o.spec.jobs) ? i : k)) },
  { expr: '.metadata.labels["leaderworkerset.sigs.k8s.io/group-index"] // "0"', plain: true, hand: (o) => o.metadata?.labels?.["leaderworkerset.sigs.k8s.io/group-index"] || "0" },
  {
    expr: 'any(.spec.jobs[].spec.containers[]; (.resources.limits["nvidia.com/gpu"] // 0) > 0)',
    plain: false,
    hand: (o) => o.spec.jobs.some((j: any) => j.spec.containers.some((c: any) => (c.resources?.limits?.["nvidia.com/gpu"] ?? 0) > 0)),
  },
  { expr: ".spec.pytorchReplicaSpecs.Master.template", plain: true, hand: (o) => o.spec?.pytorchReplicaSpecs?.Master?.template ?? null },
  { expr: ".spec.pytorchReplicaSpecs.Worker.template", plain: true, hand: (o) => o.spec?.pytorchReplicaSpecs?.Worker?.template ?? null },
  { expr: ".spec.jobs[].name", plain: false, hand: (o) => o.spec.jobs.map((j: any) => j.name) },
  {
    expr: '.status.conditions[] | select(.type == "Ready") | .status',
    plain: false,
    hand: (o) => o.status.conditions.filter((c: any) => c.type === "Ready").map((c: any) => c.status),
  },
  // The bundled RayCluster's instanceIdPath: `?` after an iteration (try) on the hot path.
  { expr: ".spec.workerGroupSpecs[]?.groupName", plain: false, hand: (o) => (o.spec.workerGroupSpecs ?? []).map((g: any) => g.groupName ?? null) },
];

/** Updates over 100,000 elements, each with the hand-written JS that computes the same. */
export const UPDATES: { expr: string; input: () => unknown; hand: (v: any) => unknown }[] = [
  { expr: ".[] = 1", input: () => numbers(), hand: (a: number[]) => a.map(() => 1) },
  { expr: ".[] |= . + 1", input: () => numbers(), hand: (a: number[]) => a.map((x) => x + 1) },
  { expr: ".[] += 1", input: () => numbers(), hand: (a: number[]) => a.map((x) => x + 1) },
  { expr: "del(.[] | select(. % 2 == 0))", input: () => numbers(), hand: (a: number[]) => a.filter((x) => x % 2 !== 0) },
  { expr: "to_entries | map(.value += 1) | from_entries", input: () => keyed(), hand: (o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v + 1])) },
  { expr: "reduce range(length) as $i (.; .[$i] = $i)", input: () => numbers(), hand: (a: number[]) => { const r = a.slice(); for (let i = 0; i < r.length; i++) r[i] = i; return r; } },
];
const UPDATE_SIZE = 100_000;
function numbers(): number[] {
  return Array.from({ length: UPDATE_SIZE }, (_x, i) => i);
}
function keyed(): Record<string, number> {
  return Object.fromEntries(Array.from({ length: UPDATE_SIZE }, (_x, i) => [`k${i}`, i]));
}

/** Updates of 100,000 elements (ratio: karta / hand-written JS); each must be linear in the size touched. */
export function benchUpdates(ms = 300): BenchResult[] {
  const results: BenchResult[] = [];
  for (const { expr, input, hand } of UPDATES) {
    const value = input();
    const ours = compileJq(expr, { limits: { maxSteps: 1e9 } });
    const oursOps = opsPerSecond(() => ours.run(value), ms);
    const handOps = opsPerSecond(() => hand(value), ms);
    results.push({ name: `karta ${expr} (${UPDATE_SIZE} elements)`, opsPerSec: oursOps, baseline: "hand-written", ratio: oursOps / handOps, note: `${(1000 / oursOps).toFixed(1)} ms per run` });
  }
  return results;
}

export function benchExpressions(ms = 300): BenchResult[] {
  const obj = benchObject();
  const results: BenchResult[] = [];
  for (const { expr, plain, hand } of EXPRESSIONS) {
    const ours = compileJq(expr);
    const theirs = jqjsCompile(expr) as (input: unknown) => Iterable<unknown>;
    // A plain path has one value: read it as Karta does, with first(); generators collect all outputs.
    const oursOps = plain ? opsPerSecond(() => ours.first(obj), ms) : opsPerSecond(() => ours.run(obj), ms);
    const handOps = opsPerSecond(() => hand(obj), ms);
    const jqjsOps = opsPerSecond(() => [...theirs(obj)], ms);
    const vsJqjs = oursOps / jqjsOps;
    const vsHand = oursOps / handOps;
    results.push({ name: `karta ${expr}`, opsPerSec: oursOps, baseline: "jqjs", ratio: vsJqjs, note: vsJqjs >= 3 ? "target >= 3x: met" : "target >= 3x: MISSED" });
    results.push({
      name: `  vs hand-written`,
      opsPerSec: handOps,
      baseline: "hand-written",
      ratio: vsHand,
      note: plain ? (1 / vsHand <= 10 ? "plain path, target within 10x: met" : "plain path, target within 10x: MISSED") : "",
    });
  }
  return results;
}

/** A pod of about 1 KB, as the kubelet reports it. */
function pod(i: number): object {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `llama-finetune-worker-${i}`,
      namespace: "ml-team",
      uid: `6a1c9e0f-${String(i).padStart(4, "0")}-4a3b-9c8d-7e6f5a4b3c2d`,
      labels: {
        "training.kubeflow.org/job-name": "llama-finetune",
        "training.kubeflow.org/operator-name": "pytorchjob-controller",
        "training.kubeflow.org/replica-type": "worker",
        "training.kubeflow.org/replica-index": String(i),
      },
      ownerReferences: [{ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: "llama-finetune", uid: "3f6d2c1e-8a4b-4c7d-9e2f-1a2b3c4d5e6f", controller: true }],
    },
    spec: {
      nodeName: `gpu-node-${i % 512}`,
      schedulerName: "kai-scheduler",
      containers: [{ name: "pytorch", image: "ghcr.io/example/llama-finetune:2.3.0", resources: { limits: { "nvidia.com/gpu": "8" } } }],
    },
    status: { phase: "Running", podIP: `10.0.${i % 250}.${i % 200}`, conditions: [{ type: "Ready", status: "True" }] },
  };
}

function timeCommand(cmd: string, args: string[]): number | undefined {
  const start = performance.now();
  const r = spawnSync(cmd, args, { stdio: ["ignore", "ignore", "pipe"], maxBuffer: 1 << 30 });
  const ms = performance.now() - start;
  if (r.error || r.status !== 0) return undefined;
  return ms;
}

function best(runs: number, f: () => number | undefined): number | undefined {
  let min: number | undefined;
  for (let i = 0; i < runs; i++) {
    const t = f();
    if (t === undefined) return undefined;
    min = min === undefined ? t : Math.min(min, t);
  }
  return min;
}

export function benchStream(count = 100_000, runs = 3): BenchResult[] {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-bench-"));
  try {
    const lines: string[] = [];
    for (let i = 0; i < count; i++) lines.push(JSON.stringify(pod(i)));
    const input = lines.join("\n") + "\n";
    const file = path.join(dir, "pods.jsonl");
    writeFileSync(file, input);
    const floorScript = path.join(dir, "floor.mjs");
    writeFileSync(
      floorScript,
      [
        'import { readFileSync } from "node:fs";',
        "const text = readFileSync(process.argv[2], 'utf8');",
        "const out = [];",
        "for (const line of text.split('\\n')) { if (line) out.push(JSON.stringify(JSON.parse(line).metadata.name)); }",
        "process.stdout.write(out.join('\\n') + '\\n');",
      ].join("\n"),
    );
    const karta = path.join(repoRoot, "bin", "karta.js");
    const filter = ".metadata.name";
    const tKarta = best(runs, () => timeCommand(process.execPath, [karta, "jq", "-c", filter, file]))!;
    const tFloor = best(runs, () => timeCommand(process.execPath, [floorScript, file]))!;
    const tJq = best(runs, () => timeCommand("jq", ["-c", filter, file]));
    const mb = (input.length / 1e6).toFixed(0);
    const results: BenchResult[] = [
      { name: `node floor: JSON.parse + print (${count} pods, ${mb} MB)`, opsPerSec: 1000 / tFloor, note: `${tFloor.toFixed(0)} ms` },
      {
        name: `karta jq -c ${filter}`,
        opsPerSec: 1000 / tKarta,
        baseline: "node floor",
        ratio: tFloor / tKarta,
        note: `${tKarta.toFixed(0)} ms; target within 1.5x of the floor: ${tKarta <= 1.5 * tFloor ? "met" : "MISSED"}`,
      },
    ];
    if (tJq !== undefined) {
      results.push({
        name: `system jq -c ${filter}`,
        opsPerSec: 1000 / tJq,
        baseline: "karta jq",
        ratio: tKarta / tJq,
        note: `${tJq.toFixed(0)} ms; karta faster: ${tKarta < tJq ? "yes" : "NO"}`,
      });
    } else {
      results.push({ name: "system jq", opsPerSec: 0, note: "not installed: skipped" });
    }
    return results;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
