/** `karta compile`: golden outputs for the bundled definitions, the Job path, output formats, errors and exit codes. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { COMPILE_HELP, runCompile } from "../../src/cli/compile.js";
import { memoryIO } from "../../src/cli/io.js";
import { validatePodGroup, validateWorkload, validateCompositePodGroup, type CompositePodGroup, type PodGroup, type Workload } from "../../src/scheduling/index.js";
import { repoRoot } from "../support/conformance.js";

const at = (...p: string[]): string => path.join(repoRoot, ...p);
const bundled = (kind: string, file: string): string => at("test", "fixtures", "bundled", kind, file);
const fixture = (name: string): string => at("test", "fixtures", "compile", name);
const golden = (name: string): string =>
  readFileSync(at("test", "fixtures", "compile", "golden", name), "utf8")
    .split("\n")
    .filter((line, i, lines) => !(line.startsWith("#") && lines.slice(0, i).every((l) => l.startsWith("#"))))
    .join("\n");

async function run(args: string[], stdin = "", files: Record<string, string> = {}) {
  const io = memoryIO(stdin, files);
  const code = await runCompile(args, io);
  return { code, out: io.out, err: io.err };
}

/** Every document of a YAML stream passes our own validation for its kind. */
function assertValidStream(text: string): number {
  const docs = parseAllDocuments(text).map((d) => d.toJS() as { kind: string });
  for (const d of docs) {
    const errs = d.kind === "Workload" ? validateWorkload(d as Workload) : d.kind === "PodGroup" ? validatePodGroup(d as PodGroup) : validateCompositePodGroup(d as CompositePodGroup);
    assert.deepEqual(errs, [], `${d.kind} is invalid`);
  }
  return docs.length;
}

const LWS = at("definitions", "leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet.yaml");
const JOBSET_SUBGROUPS = fixture("jobset-subgroups-karta.yaml");

describe("karta compile: golden outputs", () => {
  const cases: [string, string[]][] = [
    ["pytorchjob.yaml", ["-d", at("definitions", "kubeflow.org", "v1", "PyTorchJob.yaml"), "-f", bundled("PyTorchJob", "workload.yaml")]],
    ["leaderworkerset.yaml", ["-d", LWS, "-f", bundled("LeaderWorkerSet", "workload.yaml"), "--pods", bundled("LeaderWorkerSet", "pods.yaml")]],
    ["leaderworkerset-pod-patches.yaml", ["-d", LWS, "-f", bundled("LeaderWorkerSet", "workload.yaml"), "--pods", bundled("LeaderWorkerSet", "pods.yaml"), "--pod-patches"]],
    ["raycluster.yaml", ["-d", at("definitions", "ray.io", "v1", "RayCluster.yaml"), "-f", bundled("RayCluster", "workload.yaml"), "--pods", bundled("RayCluster", "pods.yaml")]],
    ["jobset.yaml", ["-d", at("definitions", "jobset.x-k8s.io", "v1alpha2", "JobSet.yaml"), "-f", bundled("JobSet", "workload.yaml")]],
    ["jobset-subgroups.yaml", ["-d", JOBSET_SUBGROUPS, "-f", bundled("JobSet", "workload.yaml"), "--pods", bundled("JobSet", "pods.yaml")]],
    ["jobset-subgroups-pod-patches.yaml", ["-d", JOBSET_SUBGROUPS, "-f", bundled("JobSet", "workload.yaml"), "--pods", bundled("JobSet", "pods.yaml"), "--pod-patches"]],
    ["job.yaml", ["-f", fixture("job-gang.yaml")]],
  ];
  for (const [name, args] of cases) {
    test(name, async () => {
      const r = await run(args);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, golden(name));
      if (!name.includes("pod-patches")) assert.ok(assertValidStream(r.out) >= 2);
    });
  }
});

describe("karta compile", () => {
  test("--help shows the usage and an example", async () => {
    const r = await run(["--help"]);
    assert.equal(r.code, 0);
    assert.equal(r.out, COMPILE_HELP);
    assert.match(r.out, /Example:\n {2}karta compile -d definitions\/kubeflow\.org\/v1\/PyTorchJob\.yaml -f examples\/pytorchjob\.yaml\n/);
    assert.match(r.out, /\n {2}kubectl get pytorchjob bert-pretrain -o yaml > job\.yaml\n {2}kubectl get pods/);
  });

  test("pods at a system priority class (above a pod group's maximum priority) are in no group: nothing to make, no patch, a notice", async () => {
    const r = await run(["-f", "examples/daemonset.yaml", "-o", "json"]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /notice: spec\.optimizationInstructions\.gangScheduling\.podGroups\[0\]: the pod templates use the system priority class system-node-critical, above the 1000000000 a pod group's priority may be/);
    assert.deepEqual((JSON.parse(r.out) as { items: unknown[] }).items, []);
    const patches = await run(["-f", "examples/daemonset.yaml", "--pods", "examples/daemonset-pods.yaml", "--pod-patches", "-o", "json"]);
    assert.equal(patches.code, 0, patches.err);
    assert.deepEqual(JSON.parse(patches.out), []);
    // Without pods there is nothing to patch: a usage error, not an empty output.
    const none = await run(["-f", "examples/daemonset.yaml", "--pod-patches"]);
    assert.deepEqual([none.code, none.out], [2, ""]);
    assert.match(none.err, /^karta compile: --pod-patches needs the object's pods: give --pods SOURCE/);
  });

  test("-o json prints a v1 List of the same objects", async () => {
    const r = await run(["-d", JOBSET_SUBGROUPS, "-f", bundled("JobSet", "workload.yaml"), "-o", "json"]);
    assert.equal(r.code, 0, r.err);
    const list = JSON.parse(r.out) as { apiVersion: string; kind: string; items: { kind: string; metadata: { name: string } }[] };
    assert.equal(list.apiVersion, "v1");
    assert.equal(list.kind, "List");
    assert.deepEqual(list.items.map((i) => i.kind), ["Workload", "CompositePodGroup", "PodGroup", "PodGroup"]);
    const yaml = await run(["-d", JOBSET_SUBGROUPS, "-f", bundled("JobSet", "workload.yaml")]);
    assert.deepEqual(parseAllDocuments(yaml.out).map((d) => d.toJS() as unknown), list.items);
  });

  test("--pod-patches -o json: one entry per pod with its RFC 6902 patch", async () => {
    const r = await run(["-f", fixture("job-gang.yaml"), "--pods", fixture("job-gang-pods.yaml"), "--pod-patches", "-o", "json"]);
    assert.equal(r.code, 0, r.err);
    const patches = JSON.parse(r.out) as { pod: { name: string }; patch: { op: string; path: string }[] }[];
    assert.deepEqual(patches.map((p) => [p.pod.name, p.patch[0]!.op, p.patch[0]!.path]), [
      ["allreduce-bench-0-x7k2p", "add", "/spec/schedulingGroup"],
      ["allreduce-bench-1-m4q9d", "add", "/spec/schedulingGroup"],
    ]);
    assert.match(r.err, /job-gang-pods\.yaml: pod perf\/other-job-0-abcde: warning: metadata: not a pod of Job allreduce-bench/);
  });

  test("the object from stdin, options applied to every group", async () => {
    const r = await run(["-d", JOBSET_SUBGROUPS, "-f", "-", "--disruption", "all", "--priority-class", "research-high"], readFileSync(bundled("JobSet", "workload.yaml"), "utf8"));
    assert.equal(r.code, 0, r.err);
    const docs = parseAllDocuments(r.out).map((d) => d.toJS() as { kind: string; spec: { disruptionMode?: unknown; priorityClassName?: string } });
    for (const d of docs.filter((x) => x.kind !== "Workload")) {
      assert.deepEqual(d.spec.disruptionMode, { all: {} });
      assert.equal(d.spec.priorityClassName, "research-high");
    }
  });

  test("usage errors exit 2", async () => {
    assert.equal((await run([])).code, 2);
    assert.equal((await run(["-f", "x.yaml", "--policy", "strict"])).code, 2);
    assert.equal((await run(["-f", "x.yaml", "-o", "table"])).code, 2);
    assert.equal((await run(["-f", "-", "--pods", "-"])).code, 2);
    const missing = await run(["-f", "/nonexistent/object.yaml"]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /cannot read \/nonexistent\/object\.yaml/);
    const broken = await run(["-f", "job.yaml"], "", { "job.yaml": "apiVersion: batch/v1\nkind: Job\nspec: [1,\n" });
    assert.equal(broken.code, 2);
    assert.match(broken.err, /^karta compile: job\.yaml:\d+:\d+: /);
    // Without -d, the bundled definition of the kind answers; a kind without one exits 4 (kli's: no Karta covers the type).
    const noDef = await run(["-f", "cm.yaml"], "", { "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, uid: u}\n" });
    assert.equal(noDef.code, 4);
    assert.match(noDef.err, /^karta compile: no definition for ConfigMap v1 in the bundled definitions; give one with -d FILE \('karta definitions list' shows the bundled ones\)\n$/);
    const bundledDef = await run(["-f", bundled("LeaderWorkerSet", "workload.yaml")]);
    const explicit = await run(["-f", bundled("LeaderWorkerSet", "workload.yaml"), "-d", path.join(repoRoot, "definitions")]);
    assert.equal(bundledDef.code, 0, bundledDef.err);
    assert.equal(bundledDef.out, explicit.out);
    // A bad option value is a usage error said as inspect says one (`karta inspect: --patch ...: Invalid
    // value: ...`): no `error:`, then the Run line; nothing on stdout.
    const key = await run(["-f", fixture("job-gang.yaml"), "--topology-key", "a/b/c"]);
    assert.deepEqual([key.code, key.out], [2, ""]);
    assert.match(key.err, /^karta compile: --topology-key: Invalid value: "a\/b\/c": a node label key.*\nRun 'karta compile --help' for usage\.\n$/);
    const priority = await run(["-f", fixture("job-gang.yaml"), "--priority-class", "Bad"]);
    assert.deepEqual([priority.code, priority.out], [2, ""]);
    assert.match(priority.err, /^karta compile: --priority-class: Invalid value: "Bad": a lowercase RFC 1123 subdomain.*\nRun 'karta compile --help' for usage\.\n$/);
    // An empty value is a value, refused as such (not "flag needs an argument").
    const emptyKey = await run(["-f", fixture("job-gang.yaml"), "--topology-key", ""]);
    assert.deepEqual([emptyKey.code, emptyKey.err], [2, `karta compile: --topology-key: Invalid value: "": a node label key name part must be non-empty\nRun 'karta compile --help' for usage.\n`]);
    const emptyClass = await run(["-f", fixture("job-gang.yaml"), "--priority-class="]);
    assert.deepEqual([emptyClass.code, emptyClass.err], [2, `karta compile: --priority-class: Forbidden: must not be empty\nRun 'karta compile --help' for usage.\n`]);
  });

  test("errors exit 1, at the field and its position in the Karta, with nothing on stdout", async () => {
    // Both replicated jobs scaled to 0: no subgroup has a minimum, so there is nothing to gang.
    const obj = readFileSync(bundled("JobSet", "workload.yaml"), "utf8")
      .replace("  - name: workers\n    replicas: 2\n", "  - name: workers\n    replicas: 0\n")
      .replace("  - name: driver\n    replicas: 1\n", "  - name: driver\n    replicas: 0\n");
    const r = await run(["-d", JOBSET_SUBGROUPS, "-f", "jobset.yaml"], "", { "jobset.yaml": obj });
    assert.equal(r.code, 1);
    assert.equal(r.out, "");
    const karta = readFileSync(JOBSET_SUBGROUPS, "utf8");
    // The list's position is its first item, the line after `subGroups:`.
    const line = karta.split("\n").findIndex((l) => l.includes("subGroups:")) + 2;
    assert.ok(r.err.startsWith(`${JOBSET_SUBGROUPS}:${line}:11: error: spec.optimizationInstructions.gangScheduling.podGroup.subGroups: Invalid value: "llm-pretrain": every subgroup has a scale of 0: there is nothing to gang\n`), r.err);
    assert.match(r.err, /notice: spec\.optimizationInstructions\.gangScheduling\.podGroup\.subGroups\[1\]: subgroup workers: component workers has a scale of 0: the subgroup is left out/);
  });

  test("a pod with an unknown instance id is reported with its file; the other pods are compiled", async () => {
    const pods = readFileSync(bundled("RayCluster", "pods.yaml"), "utf8").replace("ray.io/group: cpu-workers", "ray.io/group: retired-group");
    const r = await run(["-d", at("definitions", "ray.io", "v1", "RayCluster.yaml"), "-f", bundled("RayCluster", "workload.yaml"), "--pods", "pods.yaml", "--pod-patches"], "", { "pods.yaml": pods });
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /^pods\.yaml: pod ray\/llm-batch-cpu-workers-worker-\w+: warning: metadata: pod llm-batch-cpu-workers-worker-\w+: could not match instance id "retired-group"\. existing instance ids \[gpu-workers cpu-workers spare-gpu\]: no patch \(the other pods are compiled\)$/m);
    const patched = parseAllDocuments(r.out).map((d) => (d.toJS() as { pod: { name: string } }).pod.name);
    assert.equal(patched.length, 7);
  });

  test("objects given with the pods link them to their owner: another JobSet's pod, through its Job, gets no patch", async () => {
    const extra = [
      "apiVersion: batch/v1",
      "kind: Job",
      "metadata:",
      "  name: other-run-driver-0",
      "  uid: 9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",
      "  ownerReferences: [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: other-run, uid: 0b1c2d3e-4f50-4617-8a9b-0c1d2e3f4a5b, controller: true}]",
      "---",
      "apiVersion: v1",
      "kind: Pod",
      "metadata:",
      "  name: other-run-driver-0-0-x",
      "  namespace: research",
      "  labels: {jobset.sigs.k8s.io/jobset-name: other-run, jobset.sigs.k8s.io/replicatedjob-name: driver}",
      "  ownerReferences: [{apiVersion: batch/v1, kind: Job, name: other-run-driver-0, uid: 9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a, controller: true}]",
      "",
    ].join("\n");
    const args = ["-d", at("definitions", "jobset.x-k8s.io", "v1alpha2", "JobSet.yaml"), "-f", bundled("JobSet", "workload.yaml"), "--pods", bundled("JobSet", "pods.yaml"), "--pods", "extra.yaml", "--pod-patches"];
    const r = await run(args, "", { "extra.yaml": extra });
    assert.equal(r.code, 0, r.err);
    assert.equal(
      r.err,
      "extra.yaml: pod research/other-run-driver-0-0-x: notice: metadata: pod other-run-driver-0-0-x belongs to JobSet other-run (uid 0b1c2d3e-4f50-4617-8a9b-0c1d2e3f4a5b) through Job other-run-driver-0, not to this JobSet llm-pretrain: no patch\n",
    );
    assert.equal(parseAllDocuments(r.out).length, 9);
  });

  test("a definition without gang instructions is refused at the field", async () => {
    const karta = readFileSync(LWS, "utf8").replace(/ {2}optimizationInstructions:[\s\S]*$/, "");
    const r = await run(["-d", "karta.yaml", "-f", bundled("LeaderWorkerSet", "workload.yaml")], "", { "karta.yaml": karta });
    assert.equal(r.code, 1);
    assert.match(r.err, /karta\.yaml:\d+:\d+: error: spec\.optimizationInstructions\.gangScheduling: Required value: the definition has no gang scheduling instructions/);
  });

  test("object errors name the object's file", async () => {
    const obj = readFileSync(bundled("PyTorchJob", "workload.yaml"), "utf8").replace(/^ {2}uid: .*$/m, "");
    const r = await run(["-d", at("definitions", "kubeflow.org", "v1", "PyTorchJob.yaml"), "-f", "job.yaml"], "", { "job.yaml": obj });
    assert.equal(r.code, 1);
    assert.match(r.err, /^job\.yaml: error: metadata\.uid: Required value: the Workload's name hashes the object's UID/m);
    // A name the API server would refuse, or a uid that is not text: the object's one error, not one per compiled object.
    const badName = readFileSync(bundled("PyTorchJob", "workload.yaml"), "utf8").replace(/^ {2}name: .*$/m, "  name: Bad_Name");
    const named = await run(["-d", at("definitions", "kubeflow.org", "v1", "PyTorchJob.yaml"), "-f", "job.yaml"], "", { "job.yaml": badName });
    assert.equal(named.code, 1);
    assert.deepEqual(named.err.trimEnd().split("\n"), [`job.yaml: error: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`]);
    const numberUid = readFileSync(bundled("PyTorchJob", "workload.yaml"), "utf8").replace(/^ {2}uid: .*$/m, "  uid: 5");
    const typed = await run(["-d", at("definitions", "kubeflow.org", "v1", "PyTorchJob.yaml"), "-f", "job.yaml"], "", { "job.yaml": numberUid });
    assert.equal(typed.code, 1);
    assert.match(typed.err, /^job\.yaml: error: metadata\.uid: Invalid value: 5: must be a string$/m);
  });

  test("what the API server cannot decode is an error, not an object printed: a gang count past int32, a Job's count that is no int32", async () => {
    // A TFJob's one group counts every replica: two roles at the int32 maximum sum past it.
    const huge = readFileSync(at("examples", "tfjob.yaml"), "utf8").replace(/replicas: \d+/g, "replicas: 2147483647");
    const r = await run(["-f", "job.yaml"], "", { "job.yaml": huge });
    assert.equal(r.code, 1, r.err);
    assert.equal(r.out, "");
    assert.match(r.err, /minCount: Invalid value: \d{10,}: must be an int32: the API server cannot decode it into its int32 field/);
    const job = readFileSync(at("examples", "job.yaml"), "utf8");
    for (const [edit, want] of [
      [(t: string) => t.replace(/parallelism: \d+/, 'parallelism: "abc"'), /^job\.yaml: error: spec\.parallelism: Invalid value: "abc": must be an int32/m],
      [(t: string) => t.replace(/^spec:$/m, "spec:\n  managedBy: kueue.x-k8s.io/multikueue"), /^job\.yaml: error: spec\.managedBy: the Job is managed by kueue\.x-k8s\.io\/multikueue \(spec\.managedBy\): the Job controller does not sync it/m],
    ] as const) {
      const edited = edit(job);
      assert.notEqual(edited, job);
      const j = await run(["-f", "job.yaml"], "", { "job.yaml": edited });
      assert.equal(j.code, 1, j.err);
      assert.match(j.err, want);
    }
  });

  test("a Job that has started or finished gets its objects with a notice: the Job controller makes them only for a new Job", async () => {
    const job = readFileSync(at("examples", "job.yaml"), "utf8");
    const started = await run(["-f", "job.yaml", "-o", "name"], "", { "job.yaml": job });
    assert.equal(started.code, 0, started.err);
    assert.match(started.out, /^workload\.scheduling\.k8s\.io\//);
    assert.match(started.err, /^job\.yaml: notice: status: the Job has started: the Job controller makes these objects only for a new Job/m);
    const fresh = await run(["-f", "job.yaml", "-o", "name"], "", { "job.yaml": job.slice(0, job.indexOf("\nstatus:")) + "\n" });
    assert.deepEqual([fresh.code, fresh.err], [0, ""]);
    const finished = job.replace(/^status:\n/m, "status:\n  conditions: [{type: Complete, status: 'True'}]\n");
    const done = await run(["-f", "job.yaml", "-o", "name"], "", { "job.yaml": finished });
    assert.match(done.err, /^job\.yaml: notice: status: the Job has finished \(condition Complete\): the Job controller no longer syncs it/m);
  });

  test("an invalid definition is reported before compiling", async () => {
    const karta = readFileSync(LWS, "utf8").replace("ownerRef: group\n        # The leaders", "ownerRef: nowhere\n        # The leaders");
    const r = await run(["-d", "karta.yaml", "-f", bundled("LeaderWorkerSet", "workload.yaml")], "", { "karta.yaml": karta });
    assert.equal(r.code, 1);
    assert.match(r.err, /child component 'leader' has owner ref to non-existing component 'nowhere'/);
    assert.match(r.err, /fix them first/);
  });
});
