/**
 * The workload metrics on the controller's /metrics, scraped by a real Prometheus (built from its Go module
 * by scripts/go-tool) with the recording rules of deploy/prometheus: `karta controller` runs as a process
 * against the real API server, as the service account bound to the role `karta rbac` generates, and a
 * PyTorchJob (the bundled example: a master and three workers of 8 GPUs) is created with its pods. GPU
 * telemetry comes from a stand-in for NVIDIA's dcgm-exporter (this machine has no GPUs): one
 * DCGM_FI_DEV_GPU_UTIL series per GPU each pod requests, labelled with the pod's namespace and name as
 * dcgm-exporter's Kubernetes mapping labels them. A PromQL query of the recording rule then returns the
 * workload's GPUs per component; the exporter's families are checked as Prometheus stored them, and
 * again after the workload and its pods change.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { CustomObjectsApi, type KubernetesObject } from "@kubernetes/client-node";
import { controllerRbac } from "../../src/controller/rbac.js";
import type { Karta } from "../../src/definition/index.js";
import { definitionsDir } from "../bundled/helpers.js";
import { kartaBin, repoRoot } from "../support/conformance.js";
import { asServiceAccount, attempt, eventually, testCluster, testNamespace, type TestCluster } from "../support/cluster.js";
import { goTool } from "../support/go-tool.js";
import { installKartaCrd } from "./helpers.js";
import { createExample } from "./live-examples.js";

const cluster = await testCluster();
const tool = goTool("prometheus");
const skip = typeof cluster === "string" ? cluster : "skip" in tool ? tool.skip : false;
if (skip && "skip" in tool) console.log(tool.skip);
const suffix = Math.random().toString(36).slice(2, 8);
type Obj = KubernetesObject & Record<string, any>;

/** A free loopback port (the kernel's pick, released for the process that binds it next). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** One PromQL instant query against the Prometheus HTTP API: the series and their values. */
async function query(port: number, promql: string): Promise<{ labels: Record<string, string>; value: number }[]> {
  const r = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await r.json()) as { status: string; error?: string; data?: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  if (body.status !== "success") throw new Error(`${promql}: ${body.error}`);
  return body.data!.result.map((x) => ({ labels: x.metric, value: Number(x.value[1]) }));
}

/** The query's values by one label, once they equal `want`. */
async function until(port: number, promql: string, by: string, want: Record<string, number>, what: string): Promise<void> {
  let last = "";
  await eventually(async () => {
    const got = Object.fromEntries((await query(port, promql)).map((s) => [s.labels[by] ?? "", s.value]));
    last = JSON.stringify(got);
    return JSON.stringify(Object.entries(got).sort()) === JSON.stringify(Object.entries(want).sort()) ? true : undefined;
  }, 60_000, `${what}: ${promql} to give ${JSON.stringify(want)} (last: ${last})`).catch((err: Error) => assert.fail(`${err.message} (last: ${last})`));
}

describe("the exporter: Prometheus scrapes the controller and the recording rules join GPU metrics to components", { skip }, () => {
  const c = cluster as TestCluster;
  const dir = mkdtempSync(path.join(tmpdir(), "karta-exporter-"));
  const group = `exporter-${suffix}.karta.test`;
  const kartaName = `exporter-${suffix}`;
  const children: ChildProcess[] = [];
  let dcgm: Server;
  let ns: string;
  let promPort: number;
  let metricsPort: number;
  let job: Obj;
  let pods: Obj[];
  const workload = (extra = ""): string => `{namespace="${ns}", workload="llama-finetune"${extra}}`;

  before(async () => {
    await installKartaCrd(c);
    ns = await testNamespace({ name: "exporter" } as never, c);
    const karta = parse(readFileSync(path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml"), "utf8")) as Obj;
    karta.metadata = { name: kartaName };
    karta.spec.structureDefinition.rootComponent.kind.group = group;
    const { kc } = await asServiceAccount(c, ns, controllerRbac([karta as unknown as Karta], { namespace: ns }));
    writeFileSync(path.join(dir, "kubeconfig"), kc.exportConfig());

    const controller = spawn(process.execPath, [kartaBin, "controller", "--kubeconfig", path.join(dir, "kubeconfig"), "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "127.0.0.1:0", "--leader-elect=false"], { stdio: ["ignore", "ignore", "pipe"] });
    children.push(controller);
    let log = "";
    controller.stderr!.on("data", (b: Buffer) => (log += b.toString()));
    metricsPort = await eventually(async () => {
      const line = log.split("\n").find((l) => l.includes('"msg":"serving endpoints"'));
      return line ? (JSON.parse(line) as { metricsPort: number }).metricsPort : undefined;
    }, 30_000, `the controller's endpoints (stderr: ${log})`);

    await c.objects.create(karta);
    ({ root: job, pods } = await createExample(c, "pytorchjob", ns, { group }));

    // dcgm-exporter's series for the GPUs each pod requests, and one GPU of a pod no Karta describes.
    dcgm = createServer((_req, res) => {
      const lines = ["# TYPE DCGM_FI_DEV_GPU_UTIL gauge"];
      let gpu = 0;
      for (const p of [...pods.map((x) => ({ ns, name: x.metadata!.name!, gpus: Number(x.spec.containers[0].resources.limits["nvidia.com/gpu"]) })), { ns: "elsewhere", name: "stray", gpus: 1 }]) {
        for (let i = 0; i < p.gpus; i++, gpu++) lines.push(`DCGM_FI_DEV_GPU_UTIL{gpu="${i}",UUID="GPU-${gpu}",Hostname="node-${Math.floor(gpu / 8)}",container="pytorch",namespace="${p.ns}",pod="${p.name}"} ${50 + (gpu % 10)}`);
      }
      res.writeHead(200, { "Content-Type": "text/plain; version=0.0.4" }).end(lines.join("\n") + "\n");
    });
    await new Promise<void>((r) => dcgm.listen(0, "127.0.0.1", r));

    // The shipped rules, evaluated every second instead of every 30 s.
    writeFileSync(path.join(dir, "rules.yaml"), readFileSync(path.join(repoRoot, "deploy", "prometheus", "karta-rules.yaml"), "utf8").replace(/interval: 30s/, "interval: 1s"));
    writeFileSync(
      path.join(dir, "prometheus.yaml"),
      [
        "global: {scrape_interval: 1s, evaluation_interval: 1s}",
        `rule_files: ["${path.join(dir, "rules.yaml")}"]`,
        "scrape_configs:",
        // honor_labels keeps the namespace and pod labels of the exposition, as a ServiceMonitor with honorLabels does.
        `  - {job_name: karta, honor_labels: true, static_configs: [{targets: ["127.0.0.1:${metricsPort}"]}]}`,
        `  - {job_name: dcgm, honor_labels: true, static_configs: [{targets: ["127.0.0.1:${(dcgm.address() as AddressInfo).port}"]}]}`,
      ].join("\n") + "\n",
    );
    promPort = await freePort();
    const prometheus = spawn(path.join((tool as { dir: string }).dir, "prometheus"), [`--config.file=${path.join(dir, "prometheus.yaml")}`, `--storage.tsdb.path=${path.join(dir, "data")}`, `--web.listen-address=127.0.0.1:${promPort}`], { stdio: ["ignore", "ignore", "pipe"] });
    children.push(prometheus);
    let promLog = "";
    prometheus.stderr!.on("data", (b: Buffer) => (promLog = (promLog + b.toString()).slice(-4000)));
    await eventually(async () => ((await fetch(`http://127.0.0.1:${promPort}/-/ready`)).ok ? true : undefined), 60_000, `Prometheus ready (log: ${promLog})`);
  });

  after(async () => {
    for (const child of children) child.kill("SIGKILL");
    dcgm?.close();
    await attempt(() => c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: kartaName } }));
    await attempt(() => c.objects.delete({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: `pytorchjobs.${group}` } }));
    rmSync(dir, { recursive: true, force: true });
  });

  test("PromQL: the workload's GPUs per component, through the pod attribution", async () => {
    await until(promPort, `karta:gpus:component${workload()}`, "component", { master: 8, worker: 24 }, "GPUs per component");
    await until(promPort, `karta:gpus:workload${workload()}`, "workload", { "llama-finetune": 32 }, "GPUs of the workload");
    // 32 of the 33 GPU series with a pod belong to a described workload. Waited for too: a rule group writes
    // each rule's series as it evaluates it, so a query may land after the rules above and before this one.
    let coverage: { value: number }[] = [];
    await eventually(
      async () => {
        coverage = await query(promPort, "karta:join_coverage:ratio");
        return coverage.length === 1 && Math.abs(coverage[0]!.value - 32 / 33) < 1e-9 ? true : undefined;
      },
      60_000,
      "karta:join_coverage:ratio to be 32/33",
    ).catch(() => assert.fail(`karta:join_coverage:ratio: ${JSON.stringify(coverage)}, not one series of 32/33`));
  });

  test("the contract as Prometheus stored it: info, status, replicas, pods, pod attribution, exporter health", async () => {
    await until(promPort, `karta_workload_info${workload()}`, "karta", { [kartaName]: 1 }, "karta_workload_info");
    const info = (await query(promPort, `karta_workload_info${workload()}`))[0]!.labels;
    assert.deepEqual([info.workload_kind, info.workload_group, info.workload_version], ["PyTorchJob", group, "v1"]);
    await until(promPort, `karta_workload_status${workload()}`, "phase", { Initializing: 0, Running: 1, Completed: 0, Failed: 0, Degraded: 0, Suspended: 0, Suspending: 0, Resuming: 0, Undefined: 0 }, "status");
    await until(promPort, `karta_workload_component_replicas${workload()}`, "component", { master: 1, worker: 3 }, "replicas");
    await until(promPort, `karta_workload_component_pods${workload(', component="worker"')}`, "phase", { Pending: 0, Running: 3, Succeeded: 0, Failed: 0, Unknown: 0 }, "worker pods by phase");
    const attributed = await query(promPort, `karta_pod_workload_info${workload()}`);
    assert.deepEqual(
      attributed.map((s) => [s.labels.pod, s.labels.component, s.labels.component_instance ?? "", s.labels.uid]).sort(),
      pods.map((p) => [p.metadata!.name!, p.metadata!.name!.includes("master") ? "master" : "worker", "", p.metadata!.uid!]).sort(),
    );
    assert.ok(((await query(promPort, "karta_exporter_workloads"))[0]?.value ?? 0) >= 1);
    assert.ok(((await query(promPort, 'karta_exporter_kartas{valid="true"}'))[0]?.value ?? 0) >= 1);
    assert.equal((await query(promPort, 'karta_exporter_unattributed_pods{reason="jq_error"}'))[0]?.value, 0);
    const fresh = (await query(promPort, "time() - karta_exporter_last_event_timestamp_seconds"))[0]?.value ?? Infinity;
    assert.ok(fresh < 600, `last event ${fresh} s ago`);
  });

  test("the exposition: gauge and counter types, upstream's label names", async () => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    for (const name of ["karta_pod_workload_info", "karta_workload_info", "karta_workload_status", "karta_workload_component_replicas", "karta_workload_component_pods", "karta_exporter_kartas", "karta_exporter_workloads", "karta_exporter_unattributed_pods", "karta_exporter_last_event_timestamp_seconds"]) {
      assert.match(text, new RegExp(`^# TYPE ${name} gauge$`, "m"));
    }
    assert.match(text, /^# TYPE karta_exporter_attribution_errors_total counter$/m);
    const line = text.split("\n").find((l) => l.startsWith("karta_pod_workload_info{") && l.includes(`namespace="${ns}"`))!;
    assert.deepEqual([...line.matchAll(/(\w+)="/g)].map((m) => m[1]), ["namespace", "pod", "uid", "workload", "workload_kind", "workload_group", "component", "component_instance", "replica"]);
  });

  test("the metrics follow the cluster: a completed job, a deleted pod", async () => {
    const custom = c.kc.makeApiClient(CustomObjectsApi);
    const current = (await custom.getNamespacedCustomObject({ group, version: "v1", namespace: ns, plural: "pytorchjobs", name: job.metadata!.name! })) as Obj;
    current.status.conditions = [...current.status.conditions.map((x: Obj) => (x.type === "Running" ? { ...x, status: "False" } : x)), { type: "Succeeded", status: "True", reason: "PyTorchJobSucceeded", message: "done", lastTransitionTime: new Date().toISOString() }];
    await custom.replaceNamespacedCustomObjectStatus({ group, version: "v1", namespace: ns, plural: "pytorchjobs", name: job.metadata!.name!, body: current });
    await until(promPort, `karta_workload_status${workload(', phase=~"Running|Completed"')}`, "phase", { Running: 0, Completed: 1 }, "status after the job succeeded");
    const worker = pods.find((p) => p.metadata!.name!.endsWith("worker-2"))!;
    await c.core.deleteNamespacedPod({ name: worker.metadata!.name!, namespace: ns, gracePeriodSeconds: 0 });
    await until(promPort, `count by (workload) (karta_pod_workload_info${workload()})`, "workload", { "llama-finetune": 3 }, "pods after one was deleted");
    await until(promPort, `karta_workload_component_pods${workload(', component="worker", phase="Running"')}`, "component", { worker: 2 }, "running workers");
  });
});
