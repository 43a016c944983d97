/**
 * `karta get` and `karta describe` as a user runs them (`node bin/karta.js`, and `kubectl karta` through
 * bin/kubectl-karta.js) against the real API server with a kubeconfig: the README's examples on the bundled
 * JobSet, a PyTorchJob whose Karta is the cluster's (a not-ready pod, a pod no component claims, an
 * event), --all-types, filters, the machine formats, --watch, and kli's exit codes. Printed output is
 * compared whole; only ages (the time the test takes) are left out.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { definitionsDir } from "../bundled/helpers.js";
import { matches, readmeExamples, words } from "../cli/readme-examples.js";
import { kartaBin, repoRoot } from "../support/conformance.js";
import { faultModule } from "../support/faults.js";
import { accessOf, attempt, eventually, testCluster, testNamespace, type TestCluster } from "../support/cluster.js";
import { LiveCluster } from "../../src/cli/cluster.js";
import { kubectl } from "./gangs.js";
import { installKartaCrd } from "./helpers.js";
import { asCreated, createExample, deleteExample } from "./live-examples.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;
const suffix = Math.random().toString(36).slice(2, 8);
type Obj = KubernetesObject & Record<string, any>;

/** An age as kubectl prints it (5m, 3m20s, 2d4h...), at the end of a line or after `age: `. */
const AGE = /\b\d+(?:s|m|h|d|y)(?:\d+(?:s|m|h|d))?$/;
const withoutAges = (lines: string[]): string[] => lines.map((l) => l.replace(AGE, "<age>"));

describe("karta get and karta describe against the API server", { skip }, () => {
  const c = cluster as TestCluster;
  const dir = mkdtempSync(path.join(tmpdir(), "karta-get-"));
  const kubeconfig = path.join(dir, "kubeconfig");
  const group = `get-${suffix}.karta.test`;
  const kartaName = `get-${suffix}`;
  let ns: string;
  let job: Obj;

  /**
   * Runs a command with KUBECONFIG set, as a user's shell would: in this process (the command's printed
   * output, without paying a process start per case), or as the bin script `bin` when given.
   */
  const run = async (args: string[], bin?: string): Promise<{ code: number; out: string; err: string }> => {
    if (bin === undefined) {
      const io = memoryIO();
      const code = await main(args, io);
      return { code, out: io.out, err: io.err };
    }
    return new Promise((resolve) => {
      execFile(process.execPath, [path.join(repoRoot, "bin", bin), ...args], { env: { ...process.env, KUBECONFIG: kubeconfig }, cwd: repoRoot }, (err, out, errOut) => {
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out, err: errOut });
      });
    });
  };

  before(async () => {
    writeFileSync(kubeconfig, c.kc.exportConfig());
    process.env["KUBECONFIG"] = kubeconfig;
    await installKartaCrd(c);
    // The README's examples name the namespace `research`: reused when an earlier run left it.
    const research = await attempt(() => c.core.createNamespace({ body: { metadata: { name: "research" } } }));
    assert.ok(research.ok || research.reason === "AlreadyExists", research.ok ? "" : research.message);
    await deleteExample(c, "jobset", "research");
    await createExample(c, "jobset", "research");

    // A PyTorchJob of a group of its own, described by a Karta of the cluster's.
    ns = await testNamespace({ name: "get" } as never, c);
    const karta = parse(readFileSync(path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml"), "utf8")) as Obj;
    karta.metadata = { name: kartaName };
    karta.spec.structureDefinition.rootComponent.kind.group = group;
    await c.objects.create(karta);
    const created = await createExample(c, "pytorchjob", ns, { group });
    job = created.root;
    // worker-2 cannot be scheduled; a launcher pod matches no component.
    const worker = created.pods.find((p) => p.metadata!.name!.endsWith("worker-2"))!;
    delete worker.spec.nodeName;
    await c.core.deleteNamespacedPod({ name: worker.metadata!.name!, namespace: ns, gracePeriodSeconds: 0 });
    const pending = asCreated({ ...worker, metadata: { ...worker.metadata, name: worker.metadata!.name } }, ns, job);
    const again = (await c.objects.create(pending)) as Obj;
    await c.core.replaceNamespacedPodStatus({
      name: again.metadata!.name!,
      namespace: ns,
      body: { ...again, status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: "0/4 nodes are available" }] } } as never,
    });
    const stray = asCreated({ ...worker, metadata: { name: "llama-finetune-launcher", labels: { "training.kubeflow.org/job-name": "llama-finetune", "training.kubeflow.org/replica-type": "launcher" } } }, ns, job);
    delete stray.spec.nodeName;
    await c.objects.create(stray);
    await c.core.createNamespacedEvent({
      namespace: ns,
      body: {
        metadata: { name: `llama-finetune.${suffix}` },
        involvedObject: { apiVersion: job.apiVersion, kind: job.kind, name: job.metadata!.name, namespace: ns, uid: job.metadata!.uid },
        type: "Normal",
        reason: "GroupsCreated",
        message: "created Workload llama-finetune",
        source: { component: "karta-controller" },
        firstTimestamp: new Date(),
        lastTimestamp: new Date(),
        count: 1,
      },
    });
  });

  after(async () => {
    await deleteExample(c, "jobset", "research");
    await attempt(() => c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: kartaName } }));
    await attempt(() => c.objects.delete({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: `pytorchjobs.${group}` } }));
    rmSync(dir, { recursive: true, force: true });
  });

  const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
  for (const example of readmeExamples(readme, "cluster")) {
    test(`README: ${example.command}`, async () => {
      const r = await run(words(example.command).slice(1));
      assert.equal(r.code, 0, r.err);
      const actual = withoutAges(r.out.split("\n").filter((l) => l !== ""));
      const expected = withoutAges(example.expected);
      assert.ok(matches(actual, expected), `output differs:\n${actual.join("\n")}\n--- expected ---\n${expected.join("\n")}`);
    });
  }

  test("kubectl karta get prints what karta get prints", async () => {
    for (const args of [["get", "jobset", "-n", "research"], ["get", "jobset", "-n", "research", "-o", "json"]]) {
      const direct = await run(args, "karta.js");
      const plugin = await run(args, "kubectl-karta.js");
      assert.equal(plugin.code, 0, plugin.err);
      assert.deepEqual(withoutAges(plugin.out.split("\n")), withoutAges(direct.out.split("\n")));
    }
    const wide = await run(["get", "jobset", "-n", "research", "-o", "wide"], "kubectl-karta.js");
    const [head, row] = wide.out.split("\n");
    assert.match(head!, /^NAME +NAMESPACE +PHASE +COMPONENTS +PODS +GPUS +AGE +DESIRED +NODES +KARTA +ORIGIN$/);
    assert.match(row!, /^llm-pretrain +research +Running +replicatedjob +9\/9 +64 +\S+ +9 +gpu-node-0,gpu-node-1,\S+,gpu-node-8 +jobset-x-k8s-io-v1alpha2-jobset +catalog$/);
  });

  test("a type the cluster's Karta describes: -o json, one NAME -o yaml", async () => {
    const r = await run(["get", `pytorchjob.${group}`, "-n", ns, "-o", "json"]);
    assert.equal(r.code, 0, r.err);
    const list = JSON.parse(r.out) as { items: Record<string, unknown>[]; count: number };
    assert.equal(list.count, 1);
    assert.deepEqual(list.items[0], {
      name: "llama-finetune",
      namespace: ns,
      uid: job.metadata!.uid,
      type: { group, version: "v1", kind: "PyTorchJob" },
      karta: kartaName,
      origin: "cluster",
      phases: ["Running"],
      components: ["master", "worker"],
      pods: { ready: 3, total: 5 },
      desiredPods: 4,
      gpus: 32,
      nodes: ["dgx-a100-0", "dgx-a100-1", "dgx-a100-2"],
      createdAt: job.metadata!.creationTimestamp,
    });
    const one = await run(["get", `pytorchjob.${group}/llama-finetune`, "-n", ns, "-o", "yaml"]);
    assert.equal(one.code, 0, one.err);
    assert.deepEqual(parse(one.out), list.items[0]);
  });

  test("describe: the tree with a pod not scheduled, a pod no component claims, and the events", async () => {
    const r = await run(["describe", `pytorchjob.${group}`, "llama-finetune", "-n", ns]);
    assert.equal(r.code, 0, r.err);
    const want = [
      `PyTorchJob/llama-finetune   namespace: ${ns}   definition: ${kartaName} (cluster)   age: <age>`,
      "",
      "PyTorchJob/llama-finetune [Running]   3/4 ready                 gpu: 32",
      "|-- master                            1/1 ready                 gpu: 8    dgx-a100-0",
      "|   `-- llama-finetune-master-0       Running                   gpu: 8    dgx-a100-0",
      "|-- worker                            2/3 ready                 gpu: 24   dgx-a100-1,dgx-a100-2",
      "|   |-- llama-finetune-worker-0       Running                   gpu: 8    dgx-a100-1",
      "|   |-- llama-finetune-worker-1       Running                   gpu: 8    dgx-a100-2",
      "|   `-- llama-finetune-worker-2       Pending (Unschedulable)   gpu: 8    <none>",
      "`-- (no component)                    0/1 ready                 gpu: 8",
      "    `-- llama-finetune-launcher       Pending                   gpu: 8    <none>",
      "",
      "Phase: Running",
      "",
      "Resources:",
      "COMPONENT   REPLICAS   GPU   CPU   MEMORY",
      "master      1          8     16    128Gi",
      "worker      3          24    48    384Gi",
      "TOTAL       4          32    64    512Gi",
      "",
      "Events:",
      "  Type    Reason         Age   From              Message",
      "  ----    ------         ----  ----              -------",
      "  Normal  GroupsCreated  <age>  karta-controller  created Workload llama-finetune",
      "",
    ];
    const got = r.out.split("\n").map((l) => l.replace(/age: \S+$/, "age: <age>").replace(/^( {2}Normal {2}GroupsCreated {2})\S+ +/, (_, a: string) => `${a}<age>  `));
    assert.deepEqual(got, want);
  });

  test("--all-types: every described type, Jobs a JobSet controls left out; TYPE names the group when two share a kind", async () => {
    const r = await run(["get", "--all-types", "-n", "research"]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(withoutAges(r.out.trimEnd().split("\n")), ["NAME           NAMESPACE   TYPE     PHASE     COMPONENTS      PODS   GPUS   AGE", "llm-pretrain   research    JobSet   Running   replicatedjob   9/9    64     <age>"]);
    const mine = await run(["get", "--all-types", "-n", ns, "-o", "json"]);
    const items = (JSON.parse(mine.out) as { items: { name: string; type: { group: string } }[] }).items;
    assert.deepEqual(items.map((i) => [i.name, i.type.group]), [["llama-finetune", group]]);
    const table = await run(["get", "--all-types", "-A", "-l", "kai.scheduler/queue=research"]);
    assert.match(table.out, /^llm-pretrain +research +JobSet +Running/m);
    assert.doesNotMatch(table.out, /llama-finetune/);
  });

  test("a bare Pod is its own pod: 1/1 on its node in get, describe and --all-types, as kubectl get pod counts it", async (t) => {
    const bare = await testNamespace(t, c);
    const created = (await c.core.createNamespacedPod({
      namespace: bare,
      body: { metadata: { name: "lone" }, spec: { nodeName: "node-x", containers: [{ name: "c", image: "x", resources: { limits: { "nvidia.com/gpu": "2" } } }] } },
    })) as Obj;
    const started = new Date().toISOString();
    await c.core.replaceNamespacedPodStatus({
      name: "lone",
      namespace: bare,
      body: { ...created, status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }], containerStatuses: [{ name: "c", ready: true, restartCount: 0, image: "x", imageID: "", started: true, state: { running: { startedAt: started } } }] } } as never,
    });
    const viaKubectl = await kubectl(c, ["get", "pod", "lone", "-n", bare, "--no-headers"]);
    assert.match(viaKubectl.stdout, /^lone +1\/1 +Running /);

    const wide = await run(["get", "pod", "lone", "-n", bare, "-o", "wide"]);
    assert.equal(wide.code, 0, wide.err);
    assert.match(wide.out.split("\n")[1]!, new RegExp(`^lone +${bare} +Running +pod +1/1 +2 +\\S+ +1 +node-x +core-v1-pod +catalog$`));
    const list = await run(["get", "pods", "-n", bare, "-o", "json"]);
    const row = (JSON.parse(list.out) as { items: Record<string, unknown>[] }).items[0]!;
    assert.deepEqual([row.pods, row.desiredPods, row.nodes], [{ ready: 1, total: 1 }, 1, ["node-x"]]);
    const all = await run(["get", "--all-types", "-n", bare]);
    assert.match(all.out, new RegExp(`^lone +${bare} +Pod +Running +pod +1/1 +2 `, "m"));

    const described = await run(["describe", "pod", "lone", "-n", bare]);
    assert.equal(described.code, 0, described.err);
    const tree = described.out.split("\n").slice(2, 4);
    assert.match(tree[0]!, /^Pod\/lone \[Running\] +1\/1 ready +gpu: 2$/);
    assert.match(tree[1]!, /^`-- lone +Running +gpu: 2 +node-x$/);
    const json = JSON.parse((await run(["describe", "pod", "lone", "-n", bare, "-o", "json"])).out) as { pods: unknown; nodes: unknown; tree: { current: number; ready: number; pods: { name: string; node: string }[] } };
    assert.deepEqual([json.pods, json.nodes, json.tree.current, json.tree.ready, json.tree.pods.map((p) => `${p.name}@${p.node}`)], [{ ready: 1, total: 1 }, ["node-x"], 1, 1, ["lone@node-x"]]);
  });

  test("describe as kubectl describe: TYPE alone, -l, a NAME as a prefix, several TYPE/NAME; events for one workload only; get of two types", async (t) => {
    const pods = await testNamespace(t, c);
    for (const [name, app] of [["alpha-1", "a"], ["alpha-2", "a"], ["beta", "b"]] as const) {
      await c.core.createNamespacedPod({ namespace: pods, body: { metadata: { name, labels: { app } }, spec: { containers: [{ name: "c", image: "x" }] } } });
    }
    const headers = (out: string): string[] => out.split("\n").filter((l) => /^Pod\/\S+ {3}namespace: /.test(l)).map((l) => l.split(" ")[0]!);
    const events = (out: string): number => out.split("\n").filter((l) => l.startsWith("Events:")).length;
    const all = await run(["describe", "pod", "-n", pods]);
    assert.equal(all.code, 0, all.err);
    assert.deepEqual(headers(all.out).sort(), ["Pod/alpha-1", "Pod/alpha-2", "Pod/beta"]);
    assert.equal(events(all.out), 0, "events are shown for one workload only");
    // Each description after the first starts after two blank lines, as kubectl describe separates them.
    assert.equal(all.out.split("\n\n\nPod/").length, 3, all.out);
    assert.equal(events((await run(["describe", "pod", "-n", pods, "--show-events"])).out), 3);
    assert.deepEqual(headers((await run(["describe", "pod", "-n", pods, "-l", "app=a"])).out).sort(), ["Pod/alpha-1", "Pod/alpha-2"]);
    const prefix = await run(["describe", "pod", "alph", "-n", pods]);
    assert.equal(prefix.code, 0, prefix.err);
    assert.deepEqual(headers(prefix.out).sort(), ["Pod/alpha-1", "Pod/alpha-2"]);
    const one = await run(["describe", "pod", "alpha-1", "-n", pods]);
    assert.deepEqual([headers(one.out), events(one.out)], [["Pod/alpha-1"], 1]);
    const none = await run(["describe", "pod", "gamma", "-n", pods]);
    assert.deepEqual([none.code, none.out, none.err], [3, "", `karta describe: Pod "gamma" not found in namespace ${pods}\n`]);
    const some = await run(["describe", "pod/beta", `pytorchjob.${group}/gone`, "-n", pods]);
    assert.deepEqual([some.code, headers(some.out), events(some.out), some.err], [3, ["Pod/beta"], 0, `karta describe: PyTorchJob "gone" not found in namespace ${pods}\n`]);
    const json = JSON.parse((await run(["describe", "pod", "-n", pods, "-o", "json"])).out) as { count: number; items: { name: string; events?: unknown }[] };
    assert.deepEqual([json.count, json.items.map((i) => i.name).sort(), json.items.some((i) => "events" in i)], [3, ["alpha-1", "alpha-2", "beta"], false]);
    const empty = await testNamespace(t, c);
    const nothing = await run(["describe", "pod", "-n", empty]);
    assert.deepEqual([nothing.code, nothing.out, nothing.err], [0, "", `No workloads found in namespace ${empty}.\n`]);
    // get of TYPE/NAME of two types: one table with a TYPE column, the missing one reported after it.
    const mixed = await run(["get", "pod/beta", `pytorchjob.${group}/gone`, "-n", pods]);
    assert.equal(mixed.code, 3);
    assert.match(mixed.out, /^NAME +NAMESPACE +TYPE +PHASE /);
    assert.match(mixed.out.split("\n")[1]!, new RegExp(`^beta +${pods} +Pod +`));
    assert.equal(mixed.err, `karta get: PyTorchJob "gone" not found in namespace ${pods}\n`);
    // In the order given, as kubectl visits its arguments: the rows, and the missing ones after them.
    const interleaved = await run(["get", "pod/beta", `pytorchjob.${group}/gone`, "pod/nope", "pod/alpha-1", "-n", pods, "-o", "name"]);
    assert.deepEqual([interleaved.code, interleaved.out, interleaved.err], [3, "pod/beta\npod/alpha-1\n", `karta get: PyTorchJob "gone" not found in namespace ${pods}\nkarta get: Pod "nope" not found in namespace ${pods}\n`]);
    // NAMEs given are printed in their order, as kubectl prints named objects (not newest first).
    for (const names of [["beta", "alpha-1"], ["alpha-1", "beta"]]) {
      assert.equal((await run(["get", "pod", ...names, "-n", pods, "-o", "jsonpath={.items[*].name}"])).out, names.join(" "));
      assert.deepEqual(headers((await run(["describe", "pod", ...names, "-n", pods])).out), names.map((n) => `Pod/${n}`));
    }
    // A template that fails on what was found: exit 2 with kubectl's error, and the missing NAME still said.
    const failing = await run(["get", "pod", "beta", "gone", "-n", pods, "-o", "jsonpath={.items[0].nope}", "--allow-missing-template-keys=false"]);
    assert.equal(failing.code, 2);
    assert.match(failing.err, /^karta get: error executing jsonpath .*nope is not found/);
    assert.match(failing.err, new RegExp(`\nkarta get: Pod "gone" not found in namespace ${pods}\n$`));
  });

  test("describe of a negative replica count: counted as 0 as the interpretation counts it; Problems as inspect lists them, with severities", async () => {
    const negative = JSON.parse(JSON.stringify(job)) as Obj;
    negative.metadata = { name: "negative", namespace: ns };
    delete negative.status;
    delete negative.spec.pytorchReplicaSpecs.Master;
    delete negative.spec.elasticPolicy;
    negative.spec.pytorchReplicaSpecs.Worker.replicas = -5;
    await c.objects.create(negative);
    try {
      const wide = await run(["get", `pytorchjob.${group}/negative`, "-n", ns, "-o", "json"]);
      assert.equal(wide.code, 0, wide.err);
      assert.deepEqual(JSON.parse(wide.out).desiredPods, 0);
      const r = await run(["describe", `pytorchjob.${group}`, "negative", "-n", ns]);
      assert.equal(r.code, 0, r.err);
      const lines = r.out.split("\n");
      assert.match(lines[2]!, /^PyTorchJob\/negative \[\S+\] +0\/0 ready$/);
      assert.deepEqual(lines.filter((l) => /^(worker|TOTAL) /.test(l)).map((l) => l.split(/ +/).slice(0, 2)), [["worker", "0"], ["TOTAL", "0"]]);
      // The same problems `karta inspect` lists for the object with the same definition.
      const definition = path.join(dir, "negative-karta.yaml");
      writeFileSync(definition, JSON.stringify((await c.objects.read({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: kartaName } })) as Obj));
      const inspected = await run(["inspect", `pytorchjob.${group}/negative`, "-n", ns, "-d", definition]);
      const problems = (out: string): string[] => out.split("\n\n").find((b) => b.startsWith("Problems:\n"))?.split("\n").slice(1).filter((l) => l !== "") ?? [];
      assert.deepEqual(problems(r.out), problems(inspected.out));
      assert.match(problems(r.out)[0]!, /^ {2}error: spec\.optimizationInstructions\.gangScheduling\.podGroup\.subGroups: every subgroup has a scale of 0/);
      assert.ok(problems(r.out).some((l) => /^ {2}warning: .*yields a negative replica count \(-5\) on this object/.test(l)), r.out);
      const json = JSON.parse((await run(["describe", `pytorchjob.${group}`, "negative", "-n", ns, "-o", "json"])).out) as { problems: string[]; desiredPods: number };
      assert.deepEqual([json.desiredPods, json.problems], [0, problems(r.out).map((l) => l.trim())]);
    } finally {
      await attempt(() => c.objects.delete({ apiVersion: negative.apiVersion, kind: negative.kind, metadata: { name: "negative", namespace: ns } } as KubernetesObject));
    }
  });

  test("--phase and empty results", async () => {
    const none = await run(["get", "jobset", "-n", "research", "--phase", "Completed"]);
    assert.deepEqual([none.code, none.out], [0, ""]);
    assert.match(none.err, /^No workloads found in namespace research\.$/m);
    const json = await run(["get", "jobset", "-n", "research", "--phase", "Completed", "-o", "json"]);
    assert.deepEqual(JSON.parse(json.out), { items: [], count: 0 });
    const running = await run(["get", "--all-types", "-A", "--phase", "Running", "--phase", "Failed", "-o", "json"]);
    const names = (JSON.parse(running.out) as { items: { name: string; namespace: string }[] }).items.map((i) => `${i.namespace}/${i.name}`);
    assert.ok(names.includes("research/llm-pretrain") && names.includes(`${ns}/llama-finetune`), names.join(" "));
  });

  test("exit codes: 3 no such workload or kind not installed, 4 no Karta covers the type, 2 usage, 1 no cluster", async () => {
    const missing = await run(["get", "jobset/nope", "-n", "research"]);
    assert.deepEqual([missing.code, missing.err.trim().split("\n").at(-1)], [3, 'karta get: JobSet "nope" not found in namespace research']);
    // Names that exist are printed, then one line for each that does not (as kubectl), and the exit is 3.
    const some = await run(["get", "jobset", "llm-pretrain", "nope", "gone", "-n", "research", "-o", "name"]);
    assert.deepEqual([some.code, some.out, some.err], [3, "jobset.jobset.x-k8s.io/llm-pretrain\n", 'karta get: JobSet "nope" not found in namespace research\nkarta get: JobSet "gone" not found in namespace research\n']);
    const describeMissing = await run(["describe", "jobset/nope", "-n", "research"]);
    assert.equal(describeMissing.code, 3);
    const uncovered = await run(["get", "configmaps"]);
    assert.deepEqual([uncovered.code, uncovered.err.trim().split("\n").at(-1)], [4, 'karta get: no Karta definition covers "configmaps"']);
    const notInstalled = await run(["get", "flinkdeployment"]);
    assert.deepEqual([notInstalled.code, notInstalled.err.trim().split("\n").at(-1)], [3, "karta get: FlinkDeployment is not installed in this cluster"]);
    assert.equal((await run(["get"])).code, 2);
    assert.equal((await run(["get", "jobset", "--phase", "running"])).code, 2);
    const context = await run(["get", "jobset", "--context", "nope"]);
    assert.deepEqual([context.code, context.err.trim()], [1, 'karta get: kubeconfig: context was not found for specified context: nope']);
  });

  test("--as, --as-group: the API server authorizes the impersonated user, and refuses as it refuses kubectl", async () => {
    const refused = await run(["get", "jobset", "-n", "research", "--as", `nobody-${suffix}`]);
    const viaKubectl = await kubectl(c, ["get", "jobsets.jobset.x-k8s.io", "-n", "research", "--as", `nobody-${suffix}`]);
    // kubectl: "Error from server (Forbidden): <the server's message>"; karta names what it was doing, then the same message.
    const message = /^Error from server \(Forbidden\): (.+)$/m.exec(viaKubectl.stderr)?.[1];
    assert.ok(message?.includes(`User "nobody-${suffix}" cannot list resource "jobsets"`), viaKubectl.stderr);
    assert.deepEqual([refused.code, refused.err.trim().split("\n").at(-1)], [1, `karta get: listing jobsets.jobset.x-k8s.io in namespace research: ${message}`]);
    const admin = await run(["get", "jobset", "-n", "research", "--as", `nobody-${suffix}`, "--as-group", "system:masters"]);
    const plain = await run(["get", "jobset", "-n", "research"]);
    assert.equal(admin.code, 0, admin.err);
    assert.deepEqual(withoutAges(admin.out.split("\n")), withoutAges(plain.out.split("\n")));
  });

  test("-o name prints kind.group/name per workload, as kubectl get -o name", async () => {
    const r = await run(["get", `pytorchjob.${group}`, "-n", ns, "-o", "name"]);
    assert.equal(r.code, 0, r.err);
    const viaKubectl = await kubectl(c, ["get", `pytorchjobs.${group}`, "-n", ns, "-o", "name"]);
    assert.equal(r.out, viaKubectl.stdout);
    assert.match(r.out, new RegExp(`^pytorchjob\\.${group.replace(/\./g, "\\.")}/llama-finetune$`, "m"));
  });

  test("describe as a user who may read the workload and its pods but not Events: the rest, with a warning, as kubectl describe", async () => {
    const user = `reader-${suffix}`;
    const role = `karta-reader-${suffix}`;
    await c.objects.create({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: role, namespace: ns }, rules: [{ apiGroups: [group], resources: ["pytorchjobs"], verbs: ["get", "list", "watch"] }, { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] }] } as KubernetesObject);
    await c.objects.create({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name: role, namespace: ns }, subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: role } } as KubernetesObject);
    // The Karta that describes the workload's type, read cluster-wide.
    await c.objects.create({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: role }, rules: [{ apiGroups: ["run.ai"], resources: ["kartas"], verbs: ["get", "list", "watch"] }] } as KubernetesObject);
    await c.objects.create({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: role }, subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user }], roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role } } as KubernetesObject);
    // RBAC is read from the API server's cache: the bindings apply a moment later.
    let r = await run(["describe", `pytorchjob.${group}`, "llama-finetune", "-n", ns, "--as", user]);
    for (let i = 0; i < 100 && r.code !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      r = await run(["describe", `pytorchjob.${group}`, "llama-finetune", "-n", ns, "--as", user]);
    }
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^PyTorchJob\/llama-finetune /m);
    assert.match(r.out, /^Events: {2}<none>$/m);
    assert.match(r.err, /^karta describe: warning: events not shown: listing events in namespace .*: events is forbidden: /m);
  });

  test("a list the API server gzips (over 128 KiB, asked as kubectl asks) reads as the same objects uncompressed", async (t) => {
    const big = await testNamespace(t, c);
    const data = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, `${i}-${"0123456789abcdef".repeat(6)}`]));
    await Promise.all(Array.from({ length: 60 }, (_, i) => c.core.createNamespacedConfigMap({ namespace: big, body: { metadata: { name: `cm-${i}` }, data } })));
    const configmaps = { group: "", version: "v1", resource: { name: "configmaps", kind: "ConfigMap", namespaced: true, singularName: "configmap", verbs: [] } };
    // The server does compress this list when asked (so the client's gunzip is what reads it below).
    const access = accessOf(c.kc);
    const encoding = await new Promise<string | undefined>((resolve, reject) => {
      const u = new URL(`${access.server}/api/v1/namespaces/${big}/configmaps`);
      https
        .get({ host: u.hostname, port: u.port, path: u.pathname, ca: access.ca, cert: access.cert, key: access.key, headers: { "Accept-Encoding": "gzip" } }, (res) => {
          res.resume();
          resolve(res.headers["content-encoding"]);
        })
        .on("error", reject);
    });
    assert.equal(encoding, "gzip");
    const compressed = await LiveCluster.open({ kubeconfig }).list(configmaps, big);
    const plain = await LiveCluster.open({ kubeconfig, overrides: { disableCompression: true } }).list(configmaps, big);
    assert.equal(compressed.filter((o) => o.metadata?.name?.startsWith("cm-")).length, 60);
    assert.deepEqual(compressed, plain);
  });

  test("--watch prints a workload again when one of its pods changes; SIGINT ends it with 0", async () => {
    const child = spawn(process.execPath, [kartaBin, "get", `pytorchjob.${group}`, "-n", ns, "--watch"], { env: { ...process.env, KUBECONFIG: kubeconfig } });
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await eventually(async () => (out.includes("llama-finetune") ? true : undefined), 30_000, "the first list");
    await new Promise((r) => setTimeout(r, 1000));
    const pod = JSON.parse(JSON.stringify(await c.core.readNamespacedPod({ name: "llama-finetune-worker-0", namespace: ns }))) as Obj;
    pod.status.conditions = pod.status.conditions.map((x: Obj) => (x.type === "Ready" ? { ...x, status: "False", reason: "ContainersNotReady" } : x));
    await c.core.replaceNamespacedPodStatus({ name: "llama-finetune-worker-0", namespace: ns, body: pod as never });
    await eventually(async () => (/^llama-finetune +\S+ +Running +master,worker +2\/5 /m.test(out) ? true : undefined), 30_000, `a row with 2/5 pods ready (output: ${out})`);
    // A change of the workload alone (a label: no column shows it) prints its row again, as kubectl prints every event.
    const rows = (name: string): number => out.split("\n").filter((l) => l.startsWith(`${name} `)).length;
    const printedBefore = rows("llama-finetune");
    await c.objects.patch({ apiVersion: job.apiVersion, kind: job.kind, metadata: { name: "llama-finetune", namespace: ns, labels: { watched: "yes" } } } as KubernetesObject, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);
    await eventually(async () => (rows("llama-finetune") > printedBefore ? true : undefined), 30_000, `a row after a label change (output: ${out})`);
    // A workload created and deleted meanwhile: a row when it appears, and once more when it is gone (as kubectl).
    const brief = JSON.parse(JSON.stringify(job)) as Obj;
    brief.metadata = { name: "brief", namespace: ns };
    delete brief.status;
    await c.objects.create(brief);
    await eventually(async () => (/^brief +/m.test(out) ? true : undefined), 30_000, `a row for the new workload (output: ${out})`);
    const shown = rows("brief");
    await c.objects.delete({ apiVersion: brief.apiVersion, kind: brief.kind, metadata: { name: "brief", namespace: ns } } as KubernetesObject);
    await eventually(async () => (rows("brief") === shown + 1 ? true : undefined), 30_000, `a row once more for the deleted workload (output: ${out})`);
    child.kill("SIGINT");
    assert.equal(await exited, 0);
    assert.equal(out.split("\n").filter((l) => l.startsWith("NAME ")).length, 1, "one header");
  });

  test("--watch: an internal error is one line on standard error, then the watch stops and it exits 5", async () => {
    const child = spawn(process.execPath, ["--import", faultModule("reject"), kartaBin, "get", `pytorchjob.${group}`, "-n", ns, "--watch"], { env: { ...process.env, KUBECONFIG: kubeconfig } });
    let out = "";
    let err = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString()));
    child.stderr.on("data", (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await eventually(async () => (out.includes("llama-finetune") ? true : undefined), 30_000, "the first list");
    child.kill("SIGUSR2");
    assert.equal(await exited, 5, out + err);
    // One line of its own (a transient watch warning may precede it), and nothing of Node's report.
    assert.deepEqual(err.split("\n").filter((l) => l.includes("injected fault")), ["karta get: internal error: injected fault"]);
    assert.doesNotMatch(err, /\n {4}at /);
  });
});
