/**
 * The workload metrics, offline: what the exporter makes of the bundled examples (records, pod attribution
 * and its reasons), the families of a snapshot (zero-filled pod phases, declared and observed instances,
 * Karta counts with a shadowed one), the exposition as Prometheus reads it, and that a scrape evaluates
 * only what changed. Also the pod cache's trim: the fields Kartas' pod expressions read.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { Registry } from "prom-client";
import { compileInterpreter, type CompiledInterpreter } from "../../src/interpret/index.js";
import { podAttribution, UNKNOWN, workloadRecord, WorkloadExporter, type ExporterSource } from "../../src/controller/exporter.js";
import { BASE_POD_FIELDS, coversFields, podFieldsOf, podFieldsRead, trimPod } from "../../src/controller/pod-cache.js";
import type { Karta } from "../../src/definition/index.js";
import { loadBundled, repoRoot } from "../bundled/helpers.js";

type Obj = Record<string, any>;
const read = (f: string): any => parse(readFileSync(path.join(repoRoot, f), "utf8"));

function example(name: string, definition: string): { interpreter: CompiledInterpreter; root: Obj; pods: Obj[]; karta: Obj } {
  const { definition: d } = loadBundled(definition);
  return { interpreter: compileInterpreter(d), root: read(`examples/${name}.yaml`), pods: (read(`examples/${name}-pods.yaml`).items as Obj[]).filter((p) => p.kind === "Pod"), karta: d.karta as unknown as Obj };
}

const PYTORCH = { group: "kubeflow.org", version: "v1", kind: "PyTorchJob" };

test("workloadRecord: status, and each component instance with its desired replicas", () => {
  const py = example("pytorchjob", "kubeflow.org/v1/PyTorchJob.yaml");
  const { record } = workloadRecord(py.interpreter, py.root, PYTORCH, "k");
  assert.deepEqual(record, {
    uid: py.root.metadata.uid,
    ref: { namespace: "ml-team", name: "llama-finetune", ...PYTORCH },
    karta: "k",
    phases: ["Running"],
    components: [
      { component: "master", instance: "", replicas: 1 },
      { component: "worker", instance: "", replicas: 3 },
    ],
    errors: [],
  });
  const js = example("jobset", "jobset.x-k8s.io/v1alpha2/JobSet.yaml");
  // A list item has no apiVersion or kind: they come from the Karta's root kind.
  const { apiVersion: _a, kind: _k, ...item } = js.root;
  const jobset = workloadRecord(js.interpreter, item as Obj, { group: "jobset.x-k8s.io", version: "v1alpha2", kind: "JobSet" }, "j").record;
  assert.deepEqual(jobset.components, [
    { component: "replicatedjob", instance: "driver", replicas: 1 },
    { component: "replicatedjob", instance: "workers", replicas: 8 },
  ]);
  assert.deepEqual(jobset.errors, []);
});

test("podAttribution: component, instance and replica; <unknown> with jq_error or unknown_instance", () => {
  const js = example("jobset", "jobset.x-k8s.io/v1alpha2/JobSet.yaml");
  const { view } = workloadRecord(js.interpreter, js.root, { group: "jobset.x-k8s.io", version: "v1alpha2", kind: "JobSet" }, "j");
  assert.deepEqual(podAttribution(view!, js.pods[0]), { component: "replicatedjob", instance: "driver", replica: "" });
  const stranger = structuredClone(js.pods[1]!);
  stranger.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"] = "evaluator";
  assert.deepEqual(podAttribution(view!, stranger), { component: "replicatedjob", instance: UNKNOWN, replica: "", reason: "unknown_instance" });
  const pcs = example("podcliqueset", "grove.io/v1alpha1/PodCliqueSet.yaml");
  const pv = workloadRecord(pcs.interpreter, pcs.root, { group: "grove.io", version: "v1alpha1", kind: "PodCliqueSet" }, "p").view!;
  const prefill = pcs.pods.find((p) => p.metadata.name === "llm-disagg-1-prefill-x2k9p")!;
  assert.deepEqual(podAttribution(pv, prefill), { component: "clique", instance: "prefill", replica: "1" });
  const py = example("pytorchjob", "kubeflow.org/v1/PyTorchJob.yaml");
  const v = workloadRecord(py.interpreter, py.root, PYTORCH, "k").view!;
  const launcher = structuredClone(py.pods[0]!);
  launcher.metadata.labels["training.kubeflow.org/replica-type"] = "launcher";
  assert.deepEqual(podAttribution(v, launcher), { component: UNKNOWN, instance: UNKNOWN, replica: "", reason: "jq_error" });
});

/** The samples of one family in a text exposition: labels and value. */
function family(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  return text
    .split("\n")
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .map((l) => {
      const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(l)!;
      const labels = Object.fromEntries([...(m[1] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1]!, x[2]!]));
      return { labels, value: Number(m[2]) };
    });
}

/** A source of the exporter as the controller's caches would answer for these objects. */
function source(py: ReturnType<typeof example>, pods: Obj[], extra: Partial<ExporterSource> = {}): ExporterSource & { objects: Obj[] } {
  const objects = [py.root];
  const s: ExporterSource & { objects: Obj[] } = {
    objects,
    watchedRoots: () => [
      { karta: "pytorch", ready: { root: PYTORCH, karta: { metadata: { name: "pytorch", generation: 1 } } }, interpreter: py.interpreter, objects: () => s.objects, governs: true },
      { karta: "pytorch-copy", ready: { root: PYTORCH, karta: { metadata: { name: "pytorch-copy", generation: 1 } } }, interpreter: py.interpreter, objects: () => s.objects, governs: false },
    ],
    cachedPods: () => pods,
    resolve: (o) => {
      const ref = o.metadata?.ownerReferences?.[0];
      if (!ref) return { found: false };
      if (ref.name === "gone") return { found: false, missing: ref };
      return { found: true, root: { uid: ref.uid, name: ref.name } };
    },
    lastEventAt: 1_700_000_000_000,
    kartaValidity: () => new Map([["pytorch", true], ["pytorch-copy", true], ["broken", false]]),
    ...extra,
  };
  return s;
}

test("families: zero-filled pod phases over declared and observed instances; Karta counts; parked pods", () => {
  const py = example("pytorchjob", "kubeflow.org/v1/PyTorchJob.yaml");
  const pods = py.pods.map((p, i) => ({ ...p, metadata: { ...p.metadata, uid: `u${i}`, resourceVersion: "1", ownerReferences: [{ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: "llama-finetune", uid: py.root.metadata.uid, controller: true }] }, status: { phase: i === 3 ? "Pending" : "Running" } }));
  const launcher = structuredClone(pods[0]!);
  launcher.metadata.name = "launcher";
  launcher.metadata.uid = "u9";
  launcher.metadata.labels["training.kubeflow.org/replica-type"] = "launcher";
  const parked = { ...pods[1]!, metadata: { ...pods[1]!.metadata, name: "parked", uid: "u8", ownerReferences: [{ apiVersion: "v1", kind: "Job", name: "gone", uid: "x" }] } };
  const exporter = new WorkloadExporter(source(py, [...pods, launcher, parked]), new Registry());
  const s = exporter.snapshot();
  assert.equal(s.parked, 1);
  assert.deepEqual(s.kartas, { valid: 1, invalid: 1, shadowed: 1 });
  const pods5 = family(s.text, "karta_workload_component_pods");
  const rows = (component: string) => Object.fromEntries(pods5.filter((x) => x.labels.component === component).map((x) => [x.labels.phase, x.value]));
  assert.deepEqual(rows("master"), { Pending: 0, Running: 1, Succeeded: 0, Failed: 0, Unknown: 0 });
  assert.deepEqual(rows("worker"), { Pending: 1, Running: 2, Succeeded: 0, Failed: 0, Unknown: 0 });
  assert.deepEqual(rows(UNKNOWN), { Pending: 0, Running: 1, Succeeded: 0, Failed: 0, Unknown: 0 });
  assert.deepEqual(family(s.text, "karta_exporter_unattributed_pods"), [
    { labels: { reason: "no_owner" }, value: 1 },
    { labels: { reason: "unknown_instance" }, value: 0 },
    { labels: { reason: "jq_error" }, value: 1 },
  ]);
  const status = family(s.text, "karta_workload_status");
  assert.equal(status.length, 9);
  assert.deepEqual(status.filter((x) => x.value === 1).map((x) => x.labels.phase), ["Running"]);
  assert.deepEqual(family(s.text, "karta_exporter_last_event_timestamp_seconds"), [{ labels: {}, value: 1_700_000_000 }]);
  assert.equal(s.pods.get("ml-team/launcher")?.reason, "jq_error");
});

test("the exposition: every family with its type, escaped labels, and the counter", async () => {
  const py = example("pytorchjob", "kubeflow.org/v1/PyTorchJob.yaml");
  const root = { ...py.root, metadata: { ...py.root.metadata, name: 'a"b' } };
  const pod = { ...py.pods[0]!, metadata: { ...py.pods[0]!.metadata, uid: "p1", ownerReferences: [{ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: 'a"b', uid: root.metadata.uid }] }, status: { phase: "Running" } };
  const registry = new Registry();
  const s = source(py, [pod]);
  s.objects = [root];
  const exporter = new WorkloadExporter(s, registry);
  const text = (await registry.metrics()) + exporter.exposition();
  assert.match(text, /^# TYPE karta_pod_workload_info gauge$/m);
  assert.match(text, /^# TYPE karta_exporter_attribution_errors_total counter$/m);
  assert.ok(
    text.includes(`karta_pod_workload_info{namespace="ml-team",pod="llama-finetune-master-0",uid="p1",workload="a\\"b",workload_kind="PyTorchJob",workload_group="kubeflow.org",component="master",component_instance="",replica=""} 1`),
    text,
  );
  assert.ok(text.includes(`karta_workload_info{namespace="ml-team",workload="a\\"b",workload_kind="PyTorchJob",workload_group="kubeflow.org",workload_version="v1",karta="pytorch"} 1`));
  assert.ok(text.includes(`karta_workload_component_replicas{namespace="ml-team",workload="a\\"b",workload_kind="PyTorchJob",workload_group="kubeflow.org",component="worker",component_instance=""} 3`));
  assert.ok(text.includes(`karta_exporter_kartas{valid="false",reason="shadowed"} 1`));
  assert.ok(text.includes(`karta_exporter_attribution_errors_total{reason="status_eval"} 0`));
});

test("a scrape evaluates only the objects that changed since the last one", () => {
  const py = example("pytorchjob", "kubeflow.org/v1/PyTorchJob.yaml");
  let evaluations = 0;
  const counting: CompiledInterpreter = { ...py.interpreter, workload: (o: unknown) => (evaluations++, py.interpreter.workload(o)) };
  const s = source({ ...py, interpreter: counting }, []);
  s.objects = [{ ...py.root, metadata: { ...py.root.metadata, resourceVersion: "1" } }];
  const exporter = new WorkloadExporter(s, new Registry());
  exporter.snapshot();
  exporter.snapshot();
  assert.equal(evaluations, 1);
  s.objects = [{ ...py.root, metadata: { ...py.root.metadata, resourceVersion: "2" }, status: { conditions: [{ type: "Failed", status: "True" }] } }];
  const after = exporter.snapshot();
  assert.equal(evaluations, 2);
  assert.deepEqual(after.workloads[0]!.phases, ["Failed"]);
  s.objects = [];
  assert.equal(exporter.snapshot().workloads.length, 0);
});

test("pod lines: made again when the pod or its workload changes, dropped when the pod leaves the cache, streamed as the text", () => {
  const py = example("pytorchjob", "kubeflow.org/v1/PyTorchJob.yaml");
  const owner = [{ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: "llama-finetune", uid: py.root.metadata.uid, controller: true }];
  const pod = (i: number, rv: string, type = "worker"): Obj => {
    const p = structuredClone(py.pods[1]!);
    p.metadata = { ...p.metadata, name: `w-${i}`, uid: `u${i}`, resourceVersion: rv, ownerReferences: owner };
    p.metadata.labels["training.kubeflow.org/replica-type"] = type;
    return { ...p, status: { phase: "Running" } };
  };
  let pods = [pod(0, "1"), pod(1, "1")];
  const s = source(py, []);
  s.cachedPods = function* () {
    yield* pods;
  };
  const exporter = new WorkloadExporter(s, new Registry());
  const lines = (text: string) => family(text, "karta_pod_workload_info").map((x) => `${x.labels.pod}:${x.labels.component}`);
  assert.deepEqual(lines(exporter.snapshot().text), ["w-0:worker", "w-1:worker"]);
  // The pod changed (a new resourceVersion): its line is made again.
  pods = [pod(0, "2", "launcher"), pod(1, "1")];
  assert.deepEqual(lines(exporter.snapshot().text), [`w-0:${UNKNOWN}`, "w-1:worker"]);
  // A pod gone from the cache has no line, and comes back evaluated anew.
  pods = [pod(1, "1")];
  assert.deepEqual(lines(exporter.snapshot().text), ["w-1:worker"]);
  pods = [pod(0, "2"), pod(1, "1")];
  assert.deepEqual(lines(exporter.snapshot().text), ["w-0:worker", "w-1:worker"]);
  // No pods: the family is still declared. The streamed pieces are the text.
  pods = [];
  const text = exporter.snapshot().text;
  assert.match(text, /^# TYPE karta_pod_workload_info gauge$/m);
  assert.equal([...exporter.expositionParts()].join(""), text);
  assert.equal(exporter.exposition(), text);
});

test("a status that cannot be evaluated counts status_eval once per change", async () => {
  const py = example("pytorchjob", "kubeflow.org/v1/PyTorchJob.yaml");
  const broken = structuredClone(py.karta) as Obj;
  broken.spec.structureDefinition.rootComponent.statusDefinition.conditionsDefinition.path = ".status.conditions | error(\"boom\")";
  const registry = new Registry();
  const s = source({ ...py, interpreter: compileInterpreter(broken as Karta) }, []);
  const exporter = new WorkloadExporter(s, registry);
  exporter.snapshot();
  exporter.snapshot();
  assert.match(await registry.metrics(), /karta_exporter_attribution_errors_total\{reason="status_eval"\} 1\n/);
});

test("the pod cache keeps what the Kartas' pod expressions read", () => {
  for (const def of ["kubeflow.org/v1/PyTorchJob.yaml", "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet.yaml", "grove.io/v1alpha1/PodCliqueSet.yaml"]) {
    assert.deepEqual(podFieldsRead(loadBundled(def).definition.karta), new Set(), def);
  }
  const k = structuredClone(loadBundled("kubeflow.org/v1/PyTorchJob.yaml").definition.karta) as Obj;
  k.spec.optimizationInstructions.gangScheduling.podGroups = [{ name: "g", members: [{ componentName: "worker", groupByKeyPaths: [".spec.containers[0].resources.limits[\"nvidia.com/gpu\"]"], filters: [".status.podIP != null"] }] }];
  assert.deepEqual([...(podFieldsRead(k as Karta) as Set<string>)].sort(), ["spec.containers", "status.podIP"]);
  const all = podFieldsOf([k as Karta]);
  assert.ok(all !== "all" && all.has("spec.nodeName") && all.has("spec.containers"));
  k.spec.optimizationInstructions.gangScheduling.podGroups[0].members[0].groupByKeyPaths = ['getpath(["spec", "nodeName"])'];
  assert.equal(podFieldsRead(k as Karta), "all");
  assert.equal(podFieldsOf([], true), "all");
  assert.ok(coversFields("all", new Set(["spec.x"])) && coversFields(BASE_POD_FIELDS, new Set(["status.phase"])) && !coversFields(BASE_POD_FIELDS, "all"));
  const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { a: "b" } }, spec: { nodeName: "n", containers: [{ name: "c" }], volumes: [] }, status: { phase: "Running", conditions: [] } };
  assert.deepEqual(trimPod(pod, BASE_POD_FIELDS), { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { a: "b" } }, spec: { nodeName: "n" }, status: { phase: "Running" } });
  assert.equal(trimPod(pod, "all"), pod);
});
