/**
 * What `karta get` and `karta describe` make of a workload, offline: the bundled examples interpreted and
 * drawn (the README's JobSet tree exactly; a LeaderWorkerSet's groups multiplying its components), every
 * bundled example drawn with each of its pods exactly once, kubectl describe's event ages, the version
 * order of --all-types, and the commands' usage errors.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { compileInterpreter } from "../../src/interpret/index.js";
import { describeView, podView, type DescribeView, type TreeNode } from "../../src/cli/workload-view.js";
import { describeText, eventView } from "../../src/cli/describe.js";
import { versionPriority } from "../../src/cli/workload-types.js";
import { tableHeader, tableRows } from "../../src/cli/workload-table.js";
import { alignColumns } from "../../src/cli/table.js";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { fixtureCases, loadBundled, repoRoot } from "../bundled/helpers.js";

const read = (f: string): any => parse(readFileSync(path.join(repoRoot, f), "utf8"));

function view(example: string, definition: string, created?: string): DescribeView {
  const object = read(`examples/${example}.yaml`);
  if (created) object.metadata.creationTimestamp = created;
  const items = (read(`examples/${example}-pods.yaml`) as { items: any[] }).items;
  const pods = items.filter((p) => p.kind === "Pod");
  const { definition: d } = loadBundled(definition);
  const interpretation = compileInterpreter(d).interpret(object, { pods, children: items.filter((p) => p.kind !== "Pod") });
  const k = d.karta.spec!.structureDefinition!.rootComponent!.kind!;
  return describeView({ type: { group: k.group ?? "", version: k.version!, kind: k.kind! }, karta: d.karta.metadata!.name!, origin: "catalog", object, interpretation, pods });
}

test("describe: the README's JobSet tree, exactly", () => {
  const now = Date.parse("2026-12-01T00:05:00Z");
  const text = describeText(view("jobset", "jobset.x-k8s.io/v1alpha2/JobSet.yaml", "2026-12-01T00:00:00Z"), [], now);
  // The README's block, with its age and the lines it leaves out.
  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
  const block = readme.slice(readme.indexOf("$ karta describe jobset/llm-pretrain -n research\n")).split("```")[0]!.split("\n").slice(1, -1);
  const lines = text.split("\n").slice(0, -1);
  const cut = block.indexOf("...");
  assert.ok(cut > 0);
  assert.deepEqual(lines.slice(0, cut), block.slice(0, cut));
  assert.deepEqual(lines.slice(lines.length - (block.length - cut - 1)), block.slice(cut + 1));
  assert.equal(lines.length, 24, "the README leaves out six worker pods");
});

test("describe --pod-limit and --component-limit: at most N pods (those not ready first) and N components under each node, the rest on one line", () => {
  const v = view("jobset", "jobset.x-k8s.io/v1alpha2/JobSet.yaml");
  const workers = v.tree.children[0]!.children.find((c) => c.name === "workers")!;
  // One pod made unready in the view only (the counts drawn above it stay as interpreted: 8/8).
  const stuck = workers.pods[2]!;
  stuck.ready = false;
  stuck.phase = "Pending";
  stuck.reason = "Unschedulable";
  const tree = (limits: { pods: number; components: number }): string[] => {
    const lines = describeText(v, [], Date.now(), limits).split("\n");
    return lines.slice(2, lines.indexOf("", 2)).map((l) => l.replace(/(\S) {2,}/g, "$1 | ").trimEnd());
  };
  const all = tree({ pods: 0, components: 0 });
  assert.equal(all.length, 13);
  assert.deepEqual(tree({ pods: 2, components: 0 }).slice(5), [
    `        |-- ${stuck.name} | Pending (Unschedulable) | gpu: 8 | ${stuck.node}`,
    `        |-- ${workers.pods[0]!.name} | Running | gpu: 8 | ${workers.pods[0]!.node}`,
    "        `-- ... 6 more pods | 6/6 ready | gpu: 48",
  ]);
  assert.deepEqual(tree({ pods: 0, components: 1 }).slice(2), [
    "    |-- driver | 1/1 ready | gpu-node-0",
    // (the tree's own "|" and the spaces after it read as a cell boundary here)
    `    | | \`-- ${v.tree.children[0]!.children[0]!.pods[0]!.name} | Running | gpu-node-0`,
    "    `-- ... 1 more | 8/8 ready | gpu: 64",
  ]);
  // A limit at or above the count changes nothing.
  assert.deepEqual(tree({ pods: 8, components: 2 }), all);
});

test("a LeaderWorkerSet: its groups multiply the leader and worker pods and GPUs", () => {
  const v = view("leaderworkerset", "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet.yaml");
  assert.deepEqual([v.desiredPods, v.gpus, v.pods.ready, v.pods.total], [6, 48, 6, 6]);
  const group = v.tree.children[0]!;
  assert.deepEqual(
    group.children.map((c) => [c.name, c.desired, c.gpus, c.pods.length]),
    [
      ["leader", 2, 16, 2],
      ["worker", 4, 32, 4],
    ],
  );
  assert.deepEqual(v.resources.total, { component: "TOTAL", replicas: 6, gpus: 48, cpu: "192", memory: "2400Gi" });
});

test("a PodCliqueSet: pods grouped by the replicaSelector's key under each instance", () => {
  const v = view("podcliqueset", "grove.io/v1alpha1/PodCliqueSet.yaml");
  const clique = v.tree.children[0]!;
  const prefill = clique.children.find((c) => c.name === "prefill")!;
  assert.deepEqual(
    prefill.children.map((c) => [c.name, c.current, c.pods.map((p) => p.name)]),
    [
      ["prefill[0]", 2, ["llm-disagg-0-prefill-q7m3z", "llm-disagg-0-prefill-x2k9p"]],
      ["prefill[1]", 2, ["llm-disagg-1-prefill-q7m3z", "llm-disagg-1-prefill-x2k9p"]],
    ],
  );
});

/** Every pod row in a tree. */
function podRows(n: TreeNode): string[] {
  return [...n.pods.map((p) => p.name), ...n.children.flatMap(podRows)];
}

test("every bundled example: each pod drawn once, counts and GPUs add up, the text renders", () => {
  for (const f of fixtureCases()) {
    const { definition } = loadBundled(f.expected.definition);
    const pods = f.pods.filter((p) => p.kind === "Pod");
    const interpretation = compileInterpreter(definition).interpret(f.workload, { pods, children: f.pods.filter((p) => p.kind !== "Pod") });
    const v = describeView({ type: { group: "g", version: "v", kind: String(f.workload.kind) }, karta: "k", origin: "catalog", object: f.workload, interpretation, pods });
    const names = podRows(v.tree);
    assert.deepEqual([...names].sort(), pods.map((p: any) => p.metadata.name as string).sort(), f.name);
    assert.equal(v.pods.total, pods.length, f.name);
    assert.equal(v.pods.ready, pods.map(podView).filter((p) => p.ready).length, f.name);
    assert.equal(v.gpus, v.resources.total.gpus, f.name);
    assert.equal(v.desiredPods, v.resources.rows.reduce((n, r) => n + r.replicas, 0), f.name);
    const text = describeText(v, []);
    assert.ok(text.startsWith(`${f.workload.kind}/`), f.name);
    assert.ok(!text.includes("undefined") && !text.includes("NaN"), `${f.name}:\n${text}`);
  }
});

test("a pod's status: phase, why it is not ready (the scheduler's reason first), node, GPUs with init containers", () => {
  const pod = (status: object, spec: object = {}) => podView({ metadata: { name: "p" }, spec: { containers: [{ name: "c", resources: { limits: { "nvidia.com/gpu": "2" } } }], ...spec }, status });
  assert.deepEqual(pod({ phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable" }] }), { name: "p", phase: "Pending", ready: false, node: null, gpus: 2, reason: "Unschedulable" });
  assert.equal(pod({ phase: "Running", conditions: [{ type: "Ready", status: "False", reason: "ContainersNotReady" }] }, { nodeName: "n1" }).reason, "ContainersNotReady");
  assert.equal(pod({ phase: "Failed", reason: "Evicted" }).reason, "Evicted");
  assert.deepEqual(pod({ phase: "Running", conditions: [{ type: "Ready", status: "True" }] }, { nodeName: "n1" }), { name: "p", phase: "Running", ready: true, node: "n1", gpus: 2 });
  // An init container asking for more counts, as the scheduler counts it.
  assert.equal(pod({}, { initContainers: [{ name: "i", resources: { limits: { "amd.com/gpu": "4" } } }] }).gpus, 6);
  assert.equal(pod({}).phase, "Unknown");
});

test("events: kubectl describe's ages, repeats and field paths", () => {
  const now = Date.parse("2026-12-01T01:00:00Z");
  assert.deepEqual(eventView({ type: "Normal", reason: "Created", message: " made \n", firstTimestamp: "2026-12-01T00:55:00Z", source: { component: "karta-controller" } } as never, now), { type: "Normal", reason: "Created", age: "5m", from: "karta-controller", message: "made" });
  assert.equal(eventView({ count: 3, firstTimestamp: "2026-12-01T00:50:00Z", lastTimestamp: "2026-12-01T00:58:00Z" } as never, now).age, "2m (x3 over 10m)");
  assert.equal(eventView({ eventTime: "2026-12-01T00:59:00.000000Z", series: { count: 4, lastObservedTime: "2026-12-01T00:59:30.000000Z" } } as never, now).age, "30s (x4 over 60s)");
  const e = eventView({ involvedObject: { fieldPath: "spec.containers{c}" }, message: "pulled", reportingComponent: "kubelet" } as never, now);
  assert.deepEqual([e.message, e.from, e.age], ["spec.containers{c}: pulled", "kubelet", "<unknown>"]);
});

test("get's table: columns, wide columns, TYPE, <none>", () => {
  const v = view("pytorchjob", "kubeflow.org/v1/PyTorchJob.yaml", "2026-12-01T00:00:00Z");
  const now = Date.parse("2026-12-01T00:00:45Z");
  assert.deepEqual(alignColumns([tableHeader(false, true), ...tableRows([v], false, (x) => x.type.kind, now)]), [
    "NAME             NAMESPACE   TYPE         PHASE     COMPONENTS      PODS   GPUS   AGE",
    "llama-finetune   ml-team     PyTorchJob   Running   master,worker   4/4    32     45s",
  ]);
  assert.deepEqual(tableRows([{ ...v, namespace: "", components: [], nodes: [] }], true, undefined, now)[0], ["llama-finetune", "<none>", "Running", "<none>", "4/4", "32", "45s", "4", "<none>", "kubeflow-org-v1-pytorchjob", "catalog"]);
});

test("--all-types picks each kind's most stable version: GA, then beta, then alpha, newer first", () => {
  assert.deepEqual(["v1alpha1", "foo", "v1", "v2beta1", "v1beta2", "v2", "v1beta1", "v1alpha2"].sort(versionPriority), ["v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha2", "v1alpha1", "foo"]);
});

test("get and describe: usage errors (2) before any cluster is read, --help with an example", async () => {
  for (const [args, message] of [
    [["get"], "give a TYPE"],
    [["get", "jobset", "--all-types"], "not both"],
    [["get", "jobset", "-n", "a", "-A"], "-n NAMESPACE or -A"],
    [["get", "jobset", "x", "-A"], "across all namespaces"],
    [["get", "jobset/a", "b"], "'b' is a NAME after TYPE/NAME"],
    [["get", "jobset", "--phase", "running"], "expected Resuming, Suspending"],
    [["get", "jobset", "-o", "go-template={{.name}}"], "expected table, wide, json, yaml, name, jsonpath=..., jsonpath-as-json=..., jsonpath-file=..., custom-columns=... or custom-columns-file=..."],
    [["get", "jobset", "-o", "jsonpath={.a"], "error parsing jsonpath {.a, unclosed action"],
    [["describe"], "give the type of workload to describe: TYPE"],
    [["describe", "a/b/c"], "expected TYPE/NAME"],
    [["describe", "jobset/a", "b"], "'b' is a NAME after TYPE/NAME"],
    [["describe", "jobset", "x", "-l", "a=b"], "give NAMEs or -l SELECTOR, not both"],
    [["describe", "jobset", "x", "-A"], "across all namespaces"],
    [["describe", "jobset", "--show-events=maybe"], "expected true or false"],
    [["describe", "jobset/x", "-o", "wide"], "expected table, json, yaml, jsonpath=..."],
    [["describe", "jobset/x", "-o", "custom-columns="], "custom-columns format specified but no custom columns given"],
    [["describe", "jobset", "-f", "examples/jobset.yaml"], "-f describes the object in the file: not with 'jobset'"],
    [["describe", "-f", "examples/jobset.yaml", "-A"], "not with --all-namespaces"],
    [["describe", "jobset/x", "--pods", "examples/jobset-pods.yaml"], "--pods goes with -f FILE"],
  ] as [string[], string][]) {
    const io = memoryIO();
    assert.equal(await main(args, io), 2, args.join(" "));
    assert.ok(io.err.includes(message), `${args.join(" ")}: ${io.err}`);
  }
  for (const command of ["get", "describe"]) {
    const io = memoryIO();
    assert.equal(await main([command, "--help"], io), 0);
    assert.match(io.out, /\nExample:\n {2}karta /);
  }
});

test("describe -f FILE: the workload in a file, offline, with the pods given (upstream kli's file mode)", async () => {
  const cwd = process.cwd();
  process.chdir(repoRoot);
  try {
    const run = async (...args: string[]) => {
      const io = memoryIO();
      return { code: await main(["describe", ...args], io), out: io.out, err: io.err };
    };
    const text = await run("-f", "examples/jobset.yaml", "--pods", "examples/jobset-pods.yaml", "--pod-limit", "1");
    assert.equal(text.code, 0, text.err);
    const expected = describeText(view("jobset", "jobset.x-k8s.io/v1alpha2/JobSet.yaml"), undefined, Date.now(), { pods: 1, components: 0 });
    // The same view as the interpretation gives, under the bundled Karta's name, and what file mode cannot show.
    assert.equal(text.out, expected.replace("definition: k (catalog)", "definition: jobset-x-k8s-io-v1alpha2-jobset (catalog)") + "\n(file mode: no live status: the pods given with --pods, no events)\n");
    assert.match(text.out, /`-- \.\.\. 7 more pods +7\/7 ready +gpu: 56\n/);
    // No pods given: the components at 0 ready; a Karta given with -d is the file's.
    const json = JSON.parse((await run("-f", "examples/pytorchjob.yaml", "-d", "definitions/kubeflow.org/v1/PyTorchJob.yaml", "-o", "json")).out);
    assert.deepEqual([json.origin, json.pods, json.desiredPods, json.phases], ["file", { ready: 0, total: 0 }, 4, ["Running"]]);
    assert.equal((await run("-f", "examples/pytorchjob.yaml", "-o", "jsonpath={.origin}")).out, "catalog");
    // -o table, as kli names the default.
    assert.equal((await run("-f", "examples/pytorchjob.yaml", "-o", "table")).out, (await run("-f", "examples/pytorchjob.yaml")).out);
    const none = await run("-f", "examples/crds/kubeflow.org_pytorchjobs.yaml");
    assert.equal(none.code, 4, none.err);
    assert.match(none.err, /^karta describe: no definition for CustomResourceDefinition/);
  } finally {
    process.chdir(cwd);
  }
});
