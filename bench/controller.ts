/**
 * `karta controller` at scale against a real kube-apiserver (scripts/test-cluster): ROOTS PyTorchJobs
 * (the bundled Karta) of 50 pods each, 1 master and 49 workers, owned by the job with the labels the
 * training operator sets and naming the group the controller's admission webhook would give them,
 * created with bounded parallelism (32 requests in flight) by a plain HTTPS client with keep-alive.
 *
 * Every phase runs on a fresh API server (etcd and kube-apiserver started for it and stopped after), so no
 * phase inherits another's objects, history or caches:
 * - floor (the baseline): with no controller, the client writes the jobs and pods and, itself, the Workload,
 *   CompositePodGroup and PodGroups `karta compile` gives for each job once its pods exist (the API
 *   server's floor for that work); then, apart, only the groups after listing the jobs;
 * - controller: `karta controller` (a child process of the built CLI; with SHARDS > 1, one process per
 *   shard, `--total-shards N --shard I`) runs, started and synced before the first request, while the client
 *   creates the same jobs and pods: the time from the first request until every group exists and until
 *   the work queue is empty, the controller's CPU time and peak RSS, its reconciles and applies.
 * Both phases time every pod create (the API server's create latency as the client sees it) and read the
 * CPU time of kube-apiserver and etcd (/proc/PID/stat), so what the controller costs the API server shows.
 * ROUNDS > 1 alternates the phases (floor, controller, controller, floor, floor, controller...: each runs
 * first in half the rounds) and reports medians.
 *
 * Environment:
 *   KARTA_BENCH_CONTROLLER_ROOTS (default 1000)   jobs per phase (pods: 50 per job)
 *   KARTA_BENCH_CONTROLLER_ROUNDS (default 1)     rounds of floor + controller
 *   KARTA_BENCH_CONTROLLER_SHARDS (default 1)     controller processes, one per shard
 *   KARTA_BENCH_CONTROLLER_NODE_ARGS              options for the controller's node (default: the NODE_OPTIONS of
 *                                                 deploy/controller/deployment.yaml; e.g. --cpu-prof)
 *   KARTA_BENCH_CONTROLLER_ARGS                   extra `karta controller` flags
 *   KARTA_BENCH_PPROF=DIR                         a CPU profile of kube-apiserver per phase (go tool pprof)
 *   KARTA_BENCH_CONTROLLER_TIMELINE=1             every 5 s of a phase on stderr: pods created, and the CPU
 *                                                 seconds kube-apiserver, etcd, the client and the controller
 *                                                 used in those 5 s (where a phase's extra time goes)
 *   KARTA_BENCH_CONTROLLER_WATCH=1                also a phase where a bare watch of the pods (decoded and
 *                                                 dropped) runs instead of the controller: what any watcher
 *                                                 costs the API server
 *   KARTA_BENCH_CONTROLLER_APPLY_FLOOR=1          also the floor with the client writing the groups as the
 *                                                 controller does, by server-side apply (field manager
 *                                                 karta, force): what applying instead of creating costs the
 *                                                 API server, apart from the controller's own work
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { parse } from "yaml";
import { compileInterpreter, type CompiledInterpreter } from "../src/interpret/index.js";
import { compileKarta, compiledObjects } from "../src/scheduling/karta.js";
import { FIELD_MANAGER } from "../src/controller/workloads.js";
import type { Karta } from "../src/definition/index.js";
import { bundledDefinition, median, nodeOptions, repoRoot, type BenchResult } from "./harness.js";
import { trainingOperatorPod } from "../test/fixtures/objects.js";

const PODS_PER_ROOT = 50;
const PARALLEL = 32;
const KARTA_FILE = path.join(repoRoot, "definitions", "kubeflow.org", "v1", "PyTorchJob.yaml");
const SCRIPT = path.join(repoRoot, "scripts", "test-cluster");

type Obj = Record<string, any>;

/** A minimal Kubernetes client over one keep-alive HTTPS agent (the kubeconfig's client certificate). */
export class Client {
  private readonly agent: https.Agent;
  private constructor(
    readonly server: URL,
    readonly options: https.AgentOptions,
  ) {
    this.agent = new https.Agent({ ...options, keepAlive: true, maxSockets: PARALLEL });
  }

  static async load(kubeconfig: string): Promise<Client> {
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    const options: https.RequestOptions = {};
    await kc.applyToHTTPSOptions(options);
    return new Client(new URL(kc.getCurrentCluster()!.server), options as https.AgentOptions);
  }

  /** The response body as bytes (status < 300), else an Error naming the status. */
  raw(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<Buffer> {
    const data = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        { host: this.server.hostname, port: this.server.port, path: p, method, agent: this.agent, headers: { accept: "application/json", ...(data ? { "content-type": "application/json" } : {}), ...headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const all = Buffer.concat(chunks);
            if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${p}: ${res.statusCode} ${all.toString().slice(0, 300)}`));
            else resolve(all);
          });
        },
      );
      req.on("error", reject);
      req.end(data);
    });
  }

  async request(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<Obj> {
    const text = (await this.raw(method, p, body, headers)).toString();
    return text ? (JSON.parse(text) as Obj) : {};
  }

  /** Creates the object; 409 AlreadyExists is fine (setup steps). */
  async ensure(p: string, body: Obj): Promise<void> {
    try {
      await this.request("POST", p, body);
    } catch (err) {
      if (!/: 409 /.test((err as Error).message)) throw err;
    }
  }

  /**
   * How many objects a namespaced list holds: a page of one and the server's count of the rest
   * (metadata.remainingItemCount), so that polling costs the API server the same whether it holds ten
   * objects or thousands (a whole list, polled every 250 ms, was most of what the API server spent beyond
   * the floor's work); the whole list, metadata only, when the server gives no count.
   */
  async count(p: string): Promise<number> {
    const accept = { accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1" };
    const page = await this.request("GET", `${p}?limit=1`, undefined, accept);
    const items = ((page["items"] as unknown[] | null) ?? []).length;
    const meta = (page["metadata"] ?? {}) as { continue?: string; remainingItemCount?: number };
    if (!meta.continue) return items;
    if (typeof meta.remainingItemCount === "number") return items + meta.remainingItemCount;
    const list = await this.request("GET", p, undefined, accept);
    return ((list["items"] as unknown[] | null) ?? []).length;
  }

  close(): void {
    this.agent.destroy();
  }
}

const jobsPath = (ns: string) => `/apis/kubeflow.org/v1/namespaces/${ns}/pytorchjobs`;
const podsPath = (ns: string) => `/api/v1/namespaces/${ns}/pods`;
const groupPath = (ns: string, kind: string) => `/apis/scheduling.k8s.io/${kind === "CompositePodGroup" ? "v1alpha3" : "v1beta1"}/namespaces/${ns}/${kind.toLowerCase()}s`;

const CONTAINER = { name: "pytorch", image: "nvcr.io/nvidia/pytorch:24.10-py3", resources: { requests: { cpu: "8", memory: "64Gi" } } };

function job(ns: string, name: string): Obj {
  const template = { spec: { containers: [CONTAINER] } };
  return {
    apiVersion: "kubeflow.org/v1",
    kind: "PyTorchJob",
    metadata: { name, namespace: ns },
    spec: {
      runPolicy: { schedulingPolicy: { minAvailable: PODS_PER_ROOT } },
      pytorchReplicaSpecs: { Master: { replicas: 1, restartPolicy: "OnFailure", template }, Worker: { replicas: PODS_PER_ROOT - 1, restartPolicy: "OnFailure", template } },
    },
  };
}

let naming: CompiledInterpreter | undefined;

/**
 * Sets each pod's `spec.schedulingGroup.podGroupName` to the group `karta compile` puts it in, as the
 * controller's admission webhook does when pods are created in a cluster: the benchmark has no webhook
 * (bench/admission.ts measures it), and pods that name no group would have the controller report them
 * (a PodsWithoutGroup Event per job) where a deployment has none. The same pods in every phase.
 */
function nameGroups(root: Obj, pods: Obj[]): void {
  naming ??= compileInterpreter(bundledDefinition("kubeflow.org/v1/PyTorchJob.yaml"));
  const result = compileKarta(naming, root, { pods });
  if (!result.ok || result.podPatches.length !== pods.length) throw new Error(`the job's pods are not all in a group: ${JSON.stringify(result.issues)}`);
  const groupOf = new Map(result.podPatches.map((p) => [p.pod.name, p.podGroupName]));
  for (const pod of pods) pod["spec"].schedulingGroup = { podGroupName: groupOf.get(pod["metadata"].name) };
}

/**
 * Creates `roots` jobs and their pods with at most PARALLEL requests in flight: a job's pods are created
 * before the next jobs (as an operator does), and `afterJob` runs with each job and its pods once they
 * exist. The duration of every pod create goes into `latencies` (ms).
 */
export async function createWorkloads(c: Client, ns: string, roots: number, latencies: number[], afterJob?: (root: Obj, pods: Obj[]) => Promise<void>): Promise<void> {
  const pending: (() => Promise<void>)[] = [];
  let nextRoot = 0;
  const rootTask = async (i: number): Promise<void> => {
    const root = await c.request("POST", jobsPath(ns), job(ns, `job-${String(i).padStart(5, "0")}`));
    const pods: Obj[] = [];
    let left = PODS_PER_ROOT;
    const bodies = Array.from({ length: PODS_PER_ROOT }, (_, p) => (p === 0 ? trainingOperatorPod(root, "master", 0, CONTAINER) : trainingOperatorPod(root, "worker", p - 1, CONTAINER)));
    nameGroups(root, bodies);
    for (const body of bodies) {
      pending.push(async () => {
        const t = performance.now();
        const pod = await c.request("POST", podsPath(ns), body);
        latencies.push(performance.now() - t);
        pods.push(pod);
        if (--left === 0 && afterJob) pending.push(() => afterJob(root, pods));
      });
    }
  };
  let inflight = 0;
  const tracked = async (): Promise<void> => {
    // A worker leaves only when no other runs a task (a running task may queue more).
    for (;;) {
      const task = pending.shift() ?? (nextRoot < roots ? ((i) => () => rootTask(i))(nextRoot++) : undefined);
      if (task) {
        inflight++;
        try {
          await task();
        } finally {
          inflight--;
        }
        continue;
      }
      if (inflight === 0) return;
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, () => tracked()));
}

const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** CPU seconds (user + system) of a process, from /proc/PID/stat; 0 when it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime, stime (fields 14 and 15)
  } catch {
    return 0;
  }
}

/** Peak resident set (VmHWM) of a process in MiB, from /proc/PID/status. */
function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

function metricValue(text: string, name: string, labels: string): number {
  let sum = 0;
  for (const line of text.split("\n")) if (line.startsWith(`${name}{`) && line.includes(labels)) sum += Number(line.slice(line.lastIndexOf(" ") + 1));
  return sum;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** A fresh API server for one phase, with the CRDs, the Karta and the namespaces; stopped by `close`. */
export interface Cluster {
  dir: string;
  kubeconfig: string;
  c: Client;
  apiserverPid: number;
  etcdPid: number;
  karta: Obj;
  close(): void;
}

export async function freshCluster(): Promise<Cluster> {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-bench-controller-"));
  try {
    execFileSync(SCRIPT, ["up", dir, "--owner-pid", String(process.pid)], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (err) {
    execFileSync(SCRIPT, ["down", dir], { stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`scripts/test-cluster up failed: ${String((err as { stderr?: unknown }).stderr ?? err).slice(-2000)}`);
  }
  const kubeconfig = path.join(dir, "kubeconfig");
  const c = await Client.load(kubeconfig);
  const close = (): void => {
    c.close();
    try {
      execFileSync(SCRIPT, ["down", dir], { stdio: "ignore" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    for (const file of [path.join(repoRoot, "deploy", "crd", "run.ai_kartas.yaml"), path.join(repoRoot, "test", "fixtures", "definition", "crds", "kubeflow.org_pytorchjobs.yaml")]) {
      await c.ensure("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", parse(readFileSync(file, "utf8")) as Obj);
    }
    for (const crd of ["kartas.run.ai", "pytorchjobs.kubeflow.org"]) {
      for (;;) {
        const got = await c.request("GET", `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd}`);
        if ((got["status"]?.conditions ?? []).some((x: Obj) => x["type"] === "Established" && x["status"] === "True")) break;
        await sleep(200);
      }
    }
    await sleep(1000); // discovery of the new groups
    for (const ns of ["bench", "bench-groups"]) await c.ensure("/api/v1/namespaces", { metadata: { name: ns } });
    const karta = parse(readFileSync(KARTA_FILE, "utf8")) as Obj;
    return { dir, kubeconfig, c, apiserverPid: Number(readFileSync(path.join(dir, "kube-apiserver.pid"), "utf8")), etcdPid: Number(readFileSync(path.join(dir, "etcd.pid"), "utf8")), karta, close };
  } catch (err) {
    close();
    throw err;
  }
}

/** Starts a CPU profile of kube-apiserver for `seconds` into `file` (KARTA_BENCH_PPROF); resolves when written. */
function apiserverProfile(cl: Cluster, seconds: number, file: string): Promise<void> {
  return new Promise((resolve) => {
    const req = https.request(
      { host: cl.c.server.hostname, port: cl.c.server.port, path: `/debug/pprof/profile?seconds=${seconds}`, ...cl.c.options, timeout: (seconds + 60) * 1000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (b: Buffer) => chunks.push(b));
        res.on("end", () => {
          writeFileSync(file, Buffer.concat(chunks));
          resolve();
        });
      },
    );
    req.on("error", () => resolve());
    req.end();
  });
}

/**
 * Every 5 s until stopped (KARTA_BENCH_CONTROLLER_TIMELINE=1), a line on stderr: the pods created so far
 * and each process's CPU seconds in the last 5 s. Returns the function that stops it.
 */
function timeline(phase: string, cl: Cluster, latencies: number[], controllers: number[] = []): () => void {
  if (process.env["KARTA_BENCH_CONTROLLER_TIMELINE"] !== "1") return () => {};
  const t0 = performance.now();
  const read = () => ({ api: cpuSeconds(cl.apiserverPid), etcd: cpuSeconds(cl.etcdPid), client: process.cpuUsage(), controller: controllers.reduce((a, p) => a + cpuSeconds(p), 0) });
  let last = read();
  const timer = setInterval(() => {
    const now = read();
    const client = process.cpuUsage(last.client);
    const d = (x: number) => x.toFixed(1).padStart(4);
    process.stderr.write(
      `${phase} ${String(Math.round((performance.now() - t0) / 1000)).padStart(3)} s: pods ${String(latencies.length).padStart(5)}; CPU s in 5 s: kube-apiserver ${d(now.api - last.api)}, etcd ${d(now.etcd - last.etcd)}, client ${d((client.user + client.system) / 1e6)}${controllers.length ? `, controller ${d(now.controller - last.controller)}` : ""}\n`,
    );
    last = now;
  }, 5000);
  timer.unref(); // a phase that throws leaves no timer behind
  return () => clearInterval(timer);
}

interface PhaseResult {
  ms: number;
  podLatencies: number[];
  apiserverCpu: number;
  etcdCpu: number;
  clientCpu: number;
  load: [number, number];
}

interface FloorResult extends PhaseResult {
  groupWrites: number;
  groupsAloneMs: number;
}

interface ControllerResult extends PhaseResult {
  createdMs: number;
  idleMs: number;
  controllerCpu: number[];
  rss: number[];
  reconciles: number;
  /** Seconds spent in reconciles (their sum, over every worker). */
  reconcileSeconds: number;
  errors: number;
  applies: number;
  /** V8 heap in use at the end, MiB (the largest shard's). */
  heap: number;
  /** API requests the controller made during the phase, by "METHOD code". */
  requests: Record<string, number>;
}

function profileFile(name: string): string | undefined {
  const dir = process.env["KARTA_BENCH_PPROF"];
  if (!dir) return undefined;
  mkdirSync(dir, { recursive: true });
  return path.join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, "-")}.pb.gz`);
}

/** The Workloads, PodGroups and CompositePodGroups in the benchmark's namespace. */
async function countGroups(c: Client): Promise<number> {
  return (await c.count(groupPath("bench", "Workload"))) + (await c.count(groupPath("bench", "PodGroup"))) + (await c.count(groupPath("bench", "CompositePodGroup")));
}

/**
 * Baseline: the client writes jobs, pods and, once a job's pods exist, its groups (created with POST, or
 * with `write` "apply" by server-side apply as the controller writes them); then the groups alone.
 */
async function floorPhase(roots: number, write: "create" | "apply" = "create"): Promise<FloorResult> {
  const cl = await freshCluster();
  try {
    const { c } = cl;
    const interpreter = compileInterpreter(cl.karta as Karta);
    let written = 0;
    const writeGroups = async (root: Obj, rootPods: Obj[], ns?: string): Promise<void> => {
      const result = compileKarta(interpreter, root, { pods: rootPods });
      if (!result.ok) throw new Error(JSON.stringify(result.issues));
      for (const o of compiledObjects(result) as Obj[]) {
        if (ns) o["metadata"].namespace = ns;
        const collection = groupPath(o["metadata"].namespace, o["kind"]);
        if (write === "create") await c.request("POST", collection, o);
        else await c.request("PATCH", `${collection}/${o["metadata"].name}?fieldManager=${FIELD_MANAGER}&force=true`, o, { "content-type": "application/apply-patch+yaml" });
        written++;
      }
    };
    const prof = profileFile(write === "create" ? "apiserver-floor" : "apiserver-apply-floor");
    const profiling = prof ? apiserverProfile(cl, Number(process.env["KARTA_BENCH_PPROF_SECONDS"] ?? 20), prof) : undefined;
    const load0 = loadavg()[0]!;
    const cpu0 = { api: cpuSeconds(cl.apiserverPid), etcd: cpuSeconds(cl.etcdPid), client: process.cpuUsage() };
    const podLatencies: number[] = [];
    const stopTimeline = timeline(write === "create" ? "floor" : "apply floor", cl, podLatencies);
    const t = performance.now();
    // The controller's phase counts the groups every 250 ms until they all exist; the floor pays the same
    // requests while it writes, so that the API server's work differs only by the controller's.
    let writing = true;
    const polling = (async () => {
      while (writing) {
        await sleep(250);
        await countGroups(c);
      }
    })();
    await createWorkloads(c, "bench", roots, podLatencies, writeGroups).finally(() => (writing = false));
    const ms = performance.now() - t;
    await polling;
    stopTimeline();
    const client = process.cpuUsage(cpu0.client);
    const result = {
      ms,
      podLatencies,
      apiserverCpu: cpuSeconds(cl.apiserverPid) - cpu0.api,
      etcdCpu: cpuSeconds(cl.etcdPid) - cpu0.etcd,
      clientCpu: (client.user + client.system) / 1e6,
      load: [load0, loadavg()[0]!] as [number, number],
      groupWrites: written,
    };
    await profiling;
    // The groups alone, after listing the jobs (what a controller must write at least), in another namespace.
    const t2 = performance.now();
    const listed = (await c.request("GET", jobsPath("bench")))["items"] as Obj[];
    let next = 0;
    await Promise.all(Array.from({ length: PARALLEL }, async () => {
      while (next < listed.length) await writeGroups(listed[next++]!, [], "bench-groups");
    }));
    return { ...result, groupsAloneMs: performance.now() - t2 };
  } finally {
    cl.close();
  }
}

/** `karta controller` processes (one per shard) running while the client creates the jobs and pods. */
async function controllerPhase(roots: number, groupWrites: number, shards: number): Promise<ControllerResult> {
  const cl = await freshCluster();
  const children: { child: ChildProcess; log: () => string; exited: Promise<number | null>; metricsPort: number }[] = [];
  try {
    const { c } = cl;
    await c.ensure("/apis/run.ai/v1alpha1/kartas", cl.karta);
    const nodeArgs = nodeOptions("KARTA_BENCH_CONTROLLER_NODE_ARGS");
    const extra = (process.env["KARTA_BENCH_CONTROLLER_ARGS"] ?? "").split(" ").filter(Boolean);
    for (let shard = 0; shard < shards; shard++) {
      const shardArgs = shards > 1 ? [`--total-shards=${shards}`, `--shard=${shard}`] : [];
      const child = spawn(process.execPath, [...nodeArgs, path.join(repoRoot, "bin", "karta.js"), "controller", "--kubeconfig", cl.kubeconfig, "--leader-elect=false", "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "0", ...shardArgs, ...extra], { stdio: ["ignore", "ignore", "pipe"] });
      // The first lines (the ports) and the last 64 KB.
      let head = "";
      let tail = "";
      child.stderr!.on("data", (b: Buffer) => {
        if (head.length < 16_384) head += b.toString();
        else tail = (tail + b.toString()).slice(-65_536);
      });
      const log = () => head + tail;
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      const deadline = Date.now() + 120_000;
      while (!log().includes('"msg":"watching"')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the controller did not start watching PyTorchJobs:\n${log()}`);
        await sleep(100);
      }
      const metricsPort = (JSON.parse(log().split("\n").find((l) => l.includes('"msg":"serving endpoints"'))!) as { metricsPort: number }).metricsPort;
      children.push({ child, log, exited, metricsPort });
    }
    const metrics = async () => {
      const all = { reconciles: 0, reconcileSeconds: 0, errors: 0, depth: 0, applies: 0, heap: 0, requests: {} as Record<string, number> };
      for (const ch of children) {
        const text = await (await fetch(`http://127.0.0.1:${ch.metricsPort}/metrics`)).text();
        all.reconciles += metricValue(text, "controller_runtime_reconcile_total", 'controller="workload",result="success"');
        all.reconcileSeconds += metricValue(text, "controller_runtime_reconcile_time_seconds_sum", 'controller="workload"');
        all.errors += metricValue(text, "controller_runtime_reconcile_errors_total", 'controller="workload"');
        all.depth += metricValue(text, "workqueue_depth", 'name="workload"');
        all.applies += metricValue(text, "karta_group_writes_total", "");
        all.heap = Math.max(all.heap, Number(/^nodejs_heap_size_used_bytes (\d+)/m.exec(text)?.[1] ?? 0) / 1048576);
        for (const line of text.split("\n")) {
          const m = /^rest_client_requests_total\{method="(\w+)",code="([^"]+)"\} (\d+)/.exec(line);
          if (m) all.requests[`${m[1]} ${m[2]}`] = (all.requests[`${m[1]} ${m[2]}`] ?? 0) + Number(m[3]);
        }
      }
      return all;
    };
    await sleep(1000);
    const pids = children.map((ch) => ch.child.pid!);
    const prof = profileFile("apiserver-controller");
    const profiling = prof ? apiserverProfile(cl, Number(process.env["KARTA_BENCH_PPROF_SECONDS"] ?? 20), prof) : undefined;
    const load0 = loadavg()[0]!;
    const cpu0 = { controller: pids.map(cpuSeconds), api: cpuSeconds(cl.apiserverPid), etcd: cpuSeconds(cl.etcdPid), client: process.cpuUsage() };
    const m0 = await metrics();
    const podLatencies: number[] = [];
    const stopTimeline = timeline("controller", cl, podLatencies, pids);
    const t = performance.now();
    let createdMs = 0;
    let createCpu = { api: 0, etcd: 0, client: 0 };
    const creating = createWorkloads(c, "bench", roots, podLatencies).then(() => {
      createdMs = performance.now() - t;
      const client = process.cpuUsage(cpu0.client);
      createCpu = { api: cpuSeconds(cl.apiserverPid) - cpu0.api, etcd: cpuSeconds(cl.etcdPid) - cpu0.etcd, client: (client.user + client.system) / 1e6 };
    });
    // Every group exists: as many Workloads, CompositePodGroups and PodGroups as the floor wrote.
    let groupsMs = 0;
    for (;;) {
      await sleep(250);
      const n = await countGroups(c);
      if (n >= groupWrites) {
        groupsMs = performance.now() - t;
        break;
      }
      if (performance.now() - t > 1_800_000) throw new Error(`only ${n} of ${groupWrites} groups after 30 minutes`);
    }
    await creating;
    stopTimeline();
    const load1 = loadavg()[0]!;
    // Idle: the queue empty and no reconcile for 2 s; the time of the last reconcile seen.
    let last = await metrics();
    let idleMs = performance.now() - t;
    let quietSince = performance.now();
    while (performance.now() - quietSince < 2000) {
      await sleep(200);
      const m = await metrics();
      if (m.reconciles !== last.reconciles || m.depth > 0) {
        quietSince = performance.now();
        idleMs = performance.now() - t;
      }
      last = m;
    }
    const controllerCpu = pids.map((p, i) => cpuSeconds(p) - cpu0.controller[i]!);
    const heap = last.heap;
    const rss = pids.map(peakRssMiB);
    await profiling;
    for (const ch of children) ch.child.kill("SIGTERM");
    for (const ch of children) {
      const code = await ch.exited;
      if (code !== 0) throw new Error(`the controller exited with ${code}:\n${ch.log().slice(-2000)}`);
    }
    children.length = 0;
    return {
      ms: groupsMs,
      createdMs,
      idleMs,
      podLatencies,
      apiserverCpu: createCpu.api,
      etcdCpu: createCpu.etcd,
      clientCpu: createCpu.client,
      load: [load0, load1],
      controllerCpu,
      rss,
      reconciles: last.reconciles - m0.reconciles,
      reconcileSeconds: last.reconcileSeconds - m0.reconcileSeconds,
      errors: last.errors - m0.errors,
      applies: last.applies - m0.applies,
      heap,
      requests: Object.fromEntries(Object.entries(last.requests).map(([k, v]) => [k, v - (m0.requests[k] ?? 0)]).filter(([, v]) => (v as number) > 0)),
    };
  } finally {
    for (const ch of children) ch.child.kill("SIGKILL");
    cl.close();
  }
}

/** The floor's creates (jobs and pods only) while a bare watch of every pod runs in this process. */
async function watchPhase(roots: number): Promise<PhaseResult & { events: number; watches: number }> {
  const cl = await freshCluster();
  let events = 0;
  const stop = new AbortController();
  try {
    const { c } = cl;
    // Watched again from the last resourceVersion whenever the server ends the watch (a slow watcher's is closed).
    let rv = "";
    let watches = 0;
    const watchOnce = () =>
      new Promise<void>((resolve) => {
        watches++;
        const req = https.request({ host: c.server.hostname, port: c.server.port, path: `/api/v1/pods?watch=true&allowWatchBookmarks=true${rv ? `&resourceVersion=${rv}` : ""}`, ...c.options, signal: stop.signal }, (res) => {
          let pending = "";
          res.on("data", (b: Buffer) => {
            const lines = (pending + b.toString()).split("\n");
            pending = lines.pop()!;
            for (const l of lines) {
              if (!l) continue;
              const e = JSON.parse(l) as { object?: { metadata?: { resourceVersion?: string } } };
              rv = e.object?.metadata?.resourceVersion ?? rv;
              events++;
            }
          });
          res.on("close", () => resolve());
        });
        req.on("error", () => resolve());
        req.end();
      });
    const watching = (async () => {
      while (!stop.signal.aborted) await watchOnce();
    })();
    await sleep(500);
    const load0 = loadavg()[0]!;
    const cpu0 = { api: cpuSeconds(cl.apiserverPid), etcd: cpuSeconds(cl.etcdPid), client: process.cpuUsage() };
    const podLatencies: number[] = [];
    const t = performance.now();
    await createWorkloads(c, "bench", roots, podLatencies);
    const ms = performance.now() - t;
    const client = process.cpuUsage(cpu0.client);
    await sleep(1000); // the last events
    const result = { ms, podLatencies, apiserverCpu: cpuSeconds(cl.apiserverPid) - cpu0.api, etcdCpu: cpuSeconds(cl.etcdPid) - cpu0.etcd, clientCpu: (client.user + client.system) / 1e6, load: [load0, loadavg()[0]!] as [number, number], events, watches };
    stop.abort();
    await watching;
    return result;
  } finally {
    stop.abort();
    cl.close();
  }
}

export async function benchController(): Promise<{ title: string; results: BenchResult[] }[]> {
  const env = (name: string, dflt: number): number => {
    const v = Number(process.env[name] ?? dflt);
    if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer, not '${process.env[name]}'`);
    return v;
  };
  const roots = env("KARTA_BENCH_CONTROLLER_ROOTS", 1000);
  const rounds = env("KARTA_BENCH_CONTROLLER_ROUNDS", 1);
  const shards = env("KARTA_BENCH_CONTROLLER_SHARDS", 1);
  const pods = roots * PODS_PER_ROOT;
  execFileSync(SCRIPT, ["build"], { stdio: "ignore" });
  const floors: FloorResult[] = [];
  const runs: ControllerResult[] = [];
  const watches: (PhaseResult & { events: number; watches: number })[] = [];
  const applyFloors: FloorResult[] = [];
  for (let r = 0; r < rounds; r++) {
    // Every other round runs the controller first: on a machine whose speed drifts, neither phase is
    // always the one that runs first (the floor's group count is known from round 0).
    if (r % 2 === 1) runs.push(await controllerPhase(roots, floors[0]!.groupWrites, shards));
    const floor = await floorPhase(roots);
    floors.push(floor);
    if (process.env["KARTA_BENCH_CONTROLLER_WATCH"] === "1") watches.push(await watchPhase(roots));
    if (process.env["KARTA_BENCH_CONTROLLER_APPLY_FLOOR"] === "1") applyFloors.push(await floorPhase(roots, "apply"));
    if (r % 2 === 0) runs.push(await controllerPhase(roots, floor.groupWrites, shards));
  }
  const groupWrites = floors[0]!.groupWrites;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const med = <T>(xs: T[], f: (x: T) => number) => median(xs.map(f));
  const floorMs = med(floors, (f) => f.ms);
  const groupsMs = med(runs, (r) => r.ms);
  const floorLatency = med(floors, (f) => mean(f.podLatencies));
  const ctlLatency = med(runs, (r) => mean(r.podLatencies));
  const cpu = med(runs, (r) => r.controllerCpu.reduce((a, b) => a + b, 0));
  const rss = med(runs, (r) => Math.max(...r.rss));
  const verdict = (ratio: number) => (ratio <= 1.1 ? "met" : "NOT met");
  const loads = (xs: PhaseResult[]) => xs.map((x) => `${x.load[0].toFixed(1)}→${x.load[1].toFixed(1)}`).join(", ");
  const scale = `${roots} PyTorchJobs, ${pods} pods, ${groupWrites} groups${shards > 1 ? `, ${shards} shards` : ""}`;
  const medianOf = rounds > 1 ? `, median of ${rounds} rounds` : "";
  return [
    {
      title: `karta controller: ${scale} created against the real API server, ${PARALLEL} requests in flight, a fresh API server per phase${medianOf} (ratio: controller / floor; targets ≤ 1.1)`,
      results: [
        { name: "floor: one client writes jobs, pods and groups itself", opsPerSec: 1000 / floorMs, note: `${s(floorMs)}; load average ${loads(floors)}` },
        { name: "controller: every group exists (from the first request)", opsPerSec: 1000 / groupsMs, baseline: "floor", ratio: groupsMs / floorMs, note: `${s(groupsMs)}, ${(groupsMs / floorMs).toFixed(2)}× the floor's time (target ≤ 1.1×: ${verdict(groupsMs / floorMs)}); jobs and pods created in ${s(med(runs, (r) => r.createdMs))}; load average ${loads(runs)}` },
        { name: "controller: work queue empty", opsPerSec: 1000 / med(runs, (r) => r.idleMs), baseline: "floor", ratio: med(runs, (r) => r.idleMs) / floorMs, note: s(med(runs, (r) => r.idleMs)) },
        { name: "pod create latency, floor (mean)", opsPerSec: 1000 / floorLatency, note: `${ms(floorLatency)}; p50 ${ms(med(floors, (f) => quantile(f.podLatencies, 0.5)))}, p99 ${ms(med(floors, (f) => quantile(f.podLatencies, 0.99)))}` },
        { name: "pod create latency, controller running (mean)", opsPerSec: 1000 / ctlLatency, baseline: "floor", ratio: ctlLatency / floorLatency, note: `${ms(ctlLatency)}, ${(ctlLatency / floorLatency).toFixed(2)}× the floor's (target ≤ 1.1×: ${verdict(ctlLatency / floorLatency)}); p50 ${ms(med(runs, (r) => quantile(r.podLatencies, 0.5)))}, p99 ${ms(med(runs, (r) => quantile(r.podLatencies, 0.99)))}` },
        ...(watches.length > 0
          ? [
              {
                name: "pod create latency, a bare watch of the pods running (mean)",
                opsPerSec: 1000 / med(watches, (w) => mean(w.podLatencies)),
                baseline: "floor",
                ratio: med(watches, (w) => mean(w.podLatencies)) / floorLatency,
                note: `${ms(med(watches, (w) => mean(w.podLatencies)))}; jobs and pods created in ${s(med(watches, (w) => w.ms))} (${(med(watches, (w) => w.ms) / med(floors, (f) => f.ms)).toFixed(2)}× the floor's time, which also wrote the groups); kube-apiserver CPU ${med(watches, (w) => w.apiserverCpu).toFixed(1)} s; ${med(watches, (w) => w.events)} events over ${med(watches, (w) => w.watches)} watch(es); load average ${loads(watches)}`,
              },
            ]
          : []),
        ...(applyFloors.length > 0
          ? [
              {
                name: "floor, the groups written by server-side apply",
                opsPerSec: 1000 / med(applyFloors, (f) => f.ms),
                baseline: "floor",
                ratio: med(applyFloors, (f) => f.ms) / floorMs,
                note: `${s(med(applyFloors, (f) => f.ms))}, ${(med(applyFloors, (f) => f.ms) / floorMs).toFixed(2)}× the floor's time; pod create latency ${ms(med(applyFloors, (f) => mean(f.podLatencies)))}, ${(med(applyFloors, (f) => mean(f.podLatencies)) / floorLatency).toFixed(2)}× the floor's; kube-apiserver CPU ${med(applyFloors, (f) => f.apiserverCpu).toFixed(1)} s, etcd ${med(applyFloors, (f) => f.etcdCpu).toFixed(1)} s; the groups alone ${s(med(applyFloors, (f) => f.groupsAloneMs))}; load average ${loads(applyFloors)}`,
              },
            ]
          : []),
        { name: "kube-apiserver CPU, floor / controller running", opsPerSec: 0, note: `${med(floors, (f) => f.apiserverCpu).toFixed(1)} s / ${med(runs, (r) => r.apiserverCpu).toFixed(1)} s (etcd ${med(floors, (f) => f.etcdCpu).toFixed(1)} s / ${med(runs, (r) => r.etcdCpu).toFixed(1)} s; client ${med(floors, (f) => f.clientCpu).toFixed(1)} s / ${med(runs, (r) => r.clientCpu).toFixed(1)} s), while the jobs and pods are created` },
        { name: "group writes alone: list the jobs, create the groups", opsPerSec: (groupWrites * 1000) / med(floors, (f) => f.groupsAloneMs), note: `${s(med(floors, (f) => f.groupsAloneMs))} for ${groupWrites} groups (${groupWrites / roots} per job): the API server's write floor` },
        { name: "controller: reconciles", opsPerSec: (med(runs, (r) => r.reconciles) * 1000) / med(runs, (r) => r.idleMs), note: `${med(runs, (r) => r.reconciles)} reconciles (${(med(runs, (r) => r.reconciles) / roots).toFixed(2)} per job, ${ms(med(runs, (r) => (r.reconcileSeconds * 1000) / r.reconciles))} each on average), ${med(runs, (r) => r.applies)} group writes, ${med(runs, (r) => r.errors)} errors; API requests ${Object.entries(runs[0]!.requests).map(([k, v]) => `${k}: ${v}`).join(", ")}` },
        { name: "controller: CPU time", opsPerSec: roots / cpu, note: `${cpu.toFixed(1)} s user+system (${((cpu * 1000) / roots).toFixed(1)} ms per job; rate: jobs per CPU second)${shards > 1 ? `; per shard ${runs.map((r) => r.controllerCpu.map((x) => x.toFixed(1)).join(" / ")).join(", ")} s` : ""}` },
        { name: "controller: peak RSS", opsPerSec: 0, note: `${rss.toFixed(0)} MiB (VmHWM${shards > 1 ? ", largest shard" : ""}) with ${pods} pods and ${roots} jobs cached; V8 heap in use at the end ${med(runs, (r) => r.heap).toFixed(0)} MiB${shards > 1 ? `; per shard ${runs.map((r) => r.rss.map((x) => x.toFixed(0)).join(" / ")).join(", ")} MiB` : ""}` },
      ],
    },
  ];
}
