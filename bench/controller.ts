/**
 * `karta controller` at scale against a real kube-apiserver (scripts/test-cluster): ROOTS PyTorchJobs
 * (the bundled Karta) of 50 pods each, 1 master and 49 workers, owned by the job with the labels the
 * training operator sets, created with bounded parallelism (32 requests in flight) by a plain HTTPS
 * client with keep-alive.
 *
 * Baseline, measured first in the same run with no controller: the same client writes the same jobs and
 * pods and, itself, the Workload and PodGroup `karta compile` gives for each job (the API server's write
 * floor for that work), then, apart, only the groups after listing the jobs. Then, in a fresh namespace,
 * the controller (`karta controller`, a child process of the built CLI) runs while the jobs and pods are
 * created: the time from the first request until every group exists, until its work queue is empty, its
 * CPU time (utime + stime from /proc/PID/stat) and peak RSS (VmHWM from /proc/PID/status), and its
 * reconciles per second.
 *
 * KARTA_BENCH_CONTROLLER_ROOTS (default 1000) scales it down for a quick run (pods: 50 per root).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { parse } from "yaml";
import { compileInterpreter } from "../src/interpret/index.js";
import { compileKarta } from "../src/scheduling/karta.js";
import type { Karta } from "../src/definition/index.js";
import { repoRoot, type BenchResult } from "./harness.js";
import { trainingOperatorPod } from "../test/fixtures/objects.js";

const PODS_PER_ROOT = 50;
const PARALLEL = 32;
const KARTA_FILE = path.join(repoRoot, "definitions", "kubeflow.org", "v1", "PyTorchJob.yaml");

type Obj = Record<string, any>;

/** A minimal Kubernetes client over one keep-alive HTTPS agent (the kubeconfig's client certificate). */
class Client {
  private readonly agent: https.Agent;
  private constructor(
    private readonly server: URL,
    options: https.AgentOptions,
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

  request(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<Obj> {
    const data = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        { host: this.server.hostname, port: this.server.port, path: p, method, agent: this.agent, headers: { accept: "application/json", ...(data ? { "content-type": "application/json" } : {}), ...headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString();
            if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${p}: ${res.statusCode} ${text.slice(0, 300)}`));
            else resolve(text ? (JSON.parse(text) as Obj) : {});
          });
        },
      );
      req.on("error", reject);
      req.end(data);
    });
  }

  /** Creates the object; 409 AlreadyExists is fine (setup steps). */
  async ensure(p: string, body: Obj): Promise<void> {
    try {
      await this.request("POST", p, body);
    } catch (err) {
      if (!/: 409 /.test((err as Error).message)) throw err;
    }
  }

  /** How many objects a namespaced list holds (metadata only). */
  async count(p: string): Promise<number> {
    const list = await this.request("GET", p, undefined, { accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1" });
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

/**
 * Creates `roots` jobs and their pods with at most PARALLEL requests in flight: a job's pods are created
 * before the next jobs (as an operator does), and `afterJob` runs with each job and its pods once they exist.
 */
async function createWorkloads(c: Client, ns: string, roots: number, afterJob?: (root: Obj, pods: Obj[]) => Promise<void>): Promise<void> {
  const pending: (() => Promise<void>)[] = [];
  let nextRoot = 0;
  const rootTask = async (i: number): Promise<void> => {
    const root = await c.request("POST", jobsPath(ns), job(ns, `job-${String(i).padStart(5, "0")}`));
    const pods: Obj[] = [];
    let left = PODS_PER_ROOT;
    for (let p = 0; p < PODS_PER_ROOT; p++) {
      const body = p === 0 ? trainingOperatorPod(root, "master", 0, CONTAINER) : trainingOperatorPod(root, "worker", p - 1, CONTAINER);
      pending.push(async () => {
        pods.push(await c.request("POST", podsPath(ns), body));
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

/** CPU seconds (user + system) of a process, from /proc/PID/stat. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  return (Number(fields[11]) + Number(fields[12])) / ticks; // utime, stime (fields 14 and 15)
}

/** Peak resident set (VmHWM) of a process in MiB, from /proc/PID/status. */
function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

function metricValue(text: string, name: string, labels: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchController(): Promise<{ title: string; results: BenchResult[] }[]> {
  const roots = Number(process.env["KARTA_BENCH_CONTROLLER_ROOTS"] ?? 1000);
  if (!Number.isInteger(roots) || roots < 1) throw new Error(`KARTA_BENCH_CONTROLLER_ROOTS must be a positive integer, not '${process.env["KARTA_BENCH_CONTROLLER_ROOTS"]}'`);
  const pods = roots * PODS_PER_ROOT;
  const script = path.join(repoRoot, "scripts", "test-cluster");
  const dir = mkdtempSync(path.join(tmpdir(), "karta-bench-controller-"));
  execFileSync(script, ["build"], { stdio: "ignore" });
  // `up` itself starts again on fresh ports when another process takes a picked one before it binds.
  try {
    execFileSync(script, ["up", dir, "--owner-pid", String(process.pid)], { stdio: ["ignore", "ignore", "pipe"] });
  } catch (err) {
    execFileSync(script, ["down", dir], { stdio: "ignore" });
    throw new Error(`scripts/test-cluster up failed: ${String((err as { stderr?: unknown }).stderr ?? err).slice(-2000)}`);
  }
  const kubeconfig = path.join(dir, "kubeconfig");
  const c = await Client.load(kubeconfig);
  let controller: ReturnType<typeof spawn> | undefined;
  try {
    // Setup: the Karta and PyTorchJob CRDs, the bundled PyTorchJob Karta, two namespaces.
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
    const kartaText = readFileSync(KARTA_FILE, "utf8");
    const karta = parse(kartaText) as Obj;
    const interpreter = compileInterpreter(karta as Karta);
    for (const ns of ["bench-baseline", "bench-groups", "bench-controller"]) await c.ensure("/api/v1/namespaces", { metadata: { name: ns } });

    // Baseline 1: one plain client writes the jobs, the pods and the groups (compiled here, as karta compile).
    let written = 0;
    const writeGroups = async (root: Obj, rootPods: Obj[], ns?: string): Promise<void> => {
      const result = compileKarta(interpreter, root, { pods: rootPods });
      if (!result.ok) throw new Error(JSON.stringify(result.issues));
      for (const o of [...(result.workload ? [result.workload] : []), ...result.compositePodGroups, ...result.podGroups] as Obj[]) {
        if (ns) o["metadata"].namespace = ns;
        await c.request("POST", groupPath(o["metadata"].namespace, o["kind"]), o);
        written++;
      }
    };
    let t = performance.now();
    await createWorkloads(c, "bench-baseline", roots, writeGroups);
    const floorMs = performance.now() - t;
    const groupWrites = written;
    const groupsPerRoot = groupWrites / roots;
    // Baseline 2: only the groups, after listing the jobs (what a controller must write at least).
    // (into a third namespace: the server keeps deleted groups while their finalizers stand)
    t = performance.now();
    const listed = (await c.request("GET", jobsPath("bench-baseline")))["items"] as Obj[];
    let next = 0;
    await Promise.all(Array.from({ length: PARALLEL }, async () => {
      while (next < listed.length) await writeGroups(listed[next++]!, [], "bench-groups");
    }));
    const groupFloorMs = performance.now() - t;

    // The controller watches every namespace: remove the baseline's jobs and pods first, so that it has
    // only its own to cache and reconcile (the groups stay, held by their finalizers; none is owned by a
    // live job).
    for (const p of [podsPath("bench-baseline"), jobsPath("bench-baseline")]) {
      for (;;) {
        try {
          await c.request("DELETE", p);
        } catch (err) {
          // A collection of 50,000 outlasts the server's 60 s request timeout (a 504 or a closed
          // connection); the deletion goes on.
          if (!/: 504 |socket hang up|ECONNRESET/.test(`${(err as Error).message} ${(err as { code?: string }).code}`)) throw err;
        }
        if ((await c.count(p)) === 0) break;
        await sleep(1000);
      }
    }

    // The controller: a child process of the built CLI, started and idle before the first request.
    // KARTA_BENCH_CONTROLLER_NODE_ARGS: options for the controller's node (e.g. --cpu-prof) when looking for a cost.
    const nodeArgs = (process.env["KARTA_BENCH_CONTROLLER_NODE_ARGS"] ?? "").split(" ").filter(Boolean);
    controller = spawn(process.execPath, [...nodeArgs, path.join(repoRoot, "bin", "karta.js"), "controller", "--kubeconfig", kubeconfig, "--leader-elect=false", "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "0"], { stdio: ["ignore", "ignore", "pipe"] });
    let log = "";
    controller.stderr!.on("data", (b: Buffer) => (log += b.toString()));
    const exited = new Promise<number | null>((resolve) => controller!.on("exit", (code) => resolve(code)));
    const pid = controller.pid!;
    await c.ensure("/apis/run.ai/v1alpha1/kartas", karta);
    const deadline = Date.now() + 60_000;
    while (!log.includes('"msg":"watching"')) {
      if (Date.now() > deadline || controller.exitCode !== null) throw new Error(`the controller did not start watching PyTorchJobs:\n${log}`);
      await sleep(100);
    }
    const metricsPort = (JSON.parse(log.split("\n").find((l) => l.includes('"msg":"serving endpoints"'))!) as { metricsPort: number }).metricsPort;
    const metrics = async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return { reconciles: metricValue(text, "controller_runtime_reconcile_total", 'controller="workload",result="success"'), errors: metricValue(text, "controller_runtime_reconcile_errors_total", 'controller="workload"'), depth: metricValue(text, "workqueue_depth", 'name="workload"') };
    };
    await sleep(1000);
    const cpu0 = cpuSeconds(pid);
    const reconciles0 = (await metrics()).reconciles;
    t = performance.now();
    let createdMs = 0;
    const creating = createWorkloads(c, "bench-controller", roots).then(() => void (createdMs = performance.now() - t));
    // Every group exists: as many Workloads and PodGroups as the baseline wrote.
    let groupsMs = 0;
    let done = false;
    while (!done) {
      await sleep(250);
      const n = (await c.count(groupPath("bench-controller", "Workload"))) + (await c.count(groupPath("bench-controller", "PodGroup"))) + (await c.count(groupPath("bench-controller", "CompositePodGroup")));
      if (n >= groupWrites) {
        groupsMs = performance.now() - t;
        done = true;
      }
      if (performance.now() - t > 1_800_000) throw new Error(`only ${n} of ${groupWrites} groups after 30 minutes`);
    }
    await creating;
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
    const cpu = cpuSeconds(pid) - cpu0;
    const rss = peakRssMiB(pid);
    const reconciles = last.reconciles - reconciles0;
    controller.kill("SIGTERM");
    const code = await exited;
    controller = undefined;
    if (code !== 0) throw new Error(`the controller exited with ${code}:\n${log.slice(-2000)}`);

    const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const scale = `${roots} PyTorchJobs, ${pods} pods, ${groupWrites} groups`;
    return [
      {
        title: `karta controller: ${scale} created against the real API server, ${PARALLEL} requests in flight (ratio: floor time / controller time)`,
        results: [
          { name: "floor: one client writes jobs, pods and groups itself", opsPerSec: 1000 / floorMs, note: s(floorMs) },
          { name: "controller: every group exists (from the first request)", opsPerSec: 1000 / groupsMs, baseline: "floor", ratio: floorMs / groupsMs, note: `${s(groupsMs)}; jobs and pods created in ${s(createdMs)}` },
          { name: "controller: work queue empty", opsPerSec: 1000 / idleMs, baseline: "floor", ratio: floorMs / idleMs, note: s(idleMs) },
          { name: "group writes alone: list the jobs, create the groups", opsPerSec: (groupWrites * 1000) / groupFloorMs, note: `${s(groupFloorMs)} for ${groupWrites} groups (${groupsPerRoot} per job): the API server's write floor` },
          { name: "controller: reconciles", opsPerSec: (reconciles * 1000) / idleMs, note: `${reconciles} reconciles (${(reconciles / roots).toFixed(1)} per job), ${last.errors} errors` },
          { name: "controller: CPU time", opsPerSec: roots / cpu, note: `${cpu.toFixed(1)} s user+system (${((cpu * 1000) / roots).toFixed(1)} ms per job; rate: jobs per CPU second)` },
          { name: "controller: peak RSS", opsPerSec: 0, note: `${rss.toFixed(0)} MiB (VmHWM) with ${pods} pods and ${roots} jobs cached` },
        ],
      },
    ];
  } finally {
    controller?.kill("SIGKILL");
    c.close();
    try {
      execFileSync(script, ["down", dir], { stdio: "ignore" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
