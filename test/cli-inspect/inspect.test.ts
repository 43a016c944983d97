/** `karta inspect`: reading definitions, objects and pods from files, directories and stdin; output; exit codes. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readFileSync } from "node:fs";
import { INSPECT_HELP, runInspect } from "../../src/cli/inspect.js";
import { parseObjects } from "../../src/cli/objects.js";
import { memoryIO } from "../../src/cli/io.js";
import { applyJsonPatch } from "../../src/interpret/index.js";
import { conformanceDir, repoRoot } from "../support/conformance.js";
import { fixturesDir } from "../interpret/helpers.js";

const fx = (name: string): string => path.join(fixturesDir, name);
const catalog = (name: string): string | undefined => {
  const dir = conformanceDir("karta-catalog");
  return dir ? path.join(dir, `${name}.yaml`) : undefined;
};

async function run(args: string[], stdin = "", files: Record<string, string> = {}) {
  const io = memoryIO(stdin, files);
  const code = await runInspect(args, io);
  return { code, out: io.out, err: io.err };
}

describe("karta inspect", () => {
  test("--help shows the usage and an example", async () => {
    const r = await run(["--help"]);
    assert.equal(r.code, 0);
    assert.equal(r.out, INSPECT_HELP);
    assert.match(r.out, /Example:\n {2}karta inspect -f examples\/pytorchjob.yaml/);
  });

  test("--help says set-label and set-annotation change the pod templates (a rollout), not the object's metadata", async () => {
    const r = await run(["--help"]);
    const help = r.out.replace(/\s+/g, " ");
    assert.match(help, /set-\* change every pod template of the workload \(the pods' schedulerName, priorityClassName, labels, annotations\), not the object's own metadata as 'kubectl label' does/);
    assert.match(help, /on a Deployment, StatefulSet or DaemonSet that is a new revision, a rollout that replaces every pod/);
    // As the patch it prints: the template's labels, not metadata.labels.
    const p = await run(["-f", path.join(repoRoot, "examples/deployment.yaml"), "--patch", "set-label", "a=b"]);
    assert.equal(p.code, 0, p.err);
    assert.deepEqual(JSON.parse(p.out), [{ op: "add", path: "/spec/template/metadata/labels/a", value: "b" }]);
  });

  test("a pod given twice is one pod (the same file twice, or a file and its directory), as a cluster holds one", async () => {
    const example = (f: string) => path.join(repoRoot, "examples", f);
    const once = JSON.parse((await run(["-f", example("pytorchjob.yaml"), "--pods", example("pytorchjob-pods.yaml"), "-o", "json"])).out) as { pods: unknown[] };
    const twice = await run(["-f", example("pytorchjob.yaml"), "--pods", example("pytorchjob-pods.yaml"), "--pods", example("pytorchjob-pods.yaml"), "-o", "json"]);
    assert.equal(twice.code, 0, twice.err);
    assert.equal(once.pods.length, 4);
    assert.deepEqual(JSON.parse(twice.out), once);
  });

  test("a bare Pod is its own pod: its group has it without --pods, given again it is one pod, another bare pod is not its", async () => {
    const pod = path.join(repoRoot, "examples", "pod.yaml");
    const alone = await run(["-f", pod]);
    assert.equal(alone.code, 0, alone.err);
    // A bare Pod is a kind KAI groups natively (PodJobGrouper): the notice says so, then Karta's group.
    assert.match(alone.out, /\nGroups:\n {2}notice: KAI Scheduler groups Pod v1 with its own PodJobGrouper .*;\n {10}below is .*\n {2}pg-0e6c2a4b-9d1f-4e8a-b7c3-5f2d1a0e9c84 {2}minMember 1 {2}\[pod\]\n {4}cuda-debug {2}pod\n\nPods: 1, matched 1, unmatched 0\n/);
    const json = JSON.parse((await run(["-f", pod, "-o", "json"])).out) as { pods: { pod: { name: string }; component?: string }[]; groups: { members: { pod: string }[] }[] };
    assert.deepEqual(json.pods.map((p) => [p.pod.name, p.component]), [["cuda-debug", "pod"]]);
    assert.deepEqual(json.groups.map((g) => g.members.map((m) => m.pod)), [["cuda-debug"]]);
    // Given as its own pod too: still one.
    assert.deepEqual(JSON.parse((await run(["-f", pod, "--pods", pod, "-o", "json"])).out).pods, json.pods);
    // Another bare pod of the namespace is a workload of its own.
    const other = "apiVersion: v1\nkind: Pod\nmetadata: {name: debug-shell, namespace: research, uid: other-uid}\n";
    const r = await run(["-f", pod, "--pods", "-"], other);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Pods: 2, matched 1, unmatched 1\n {2}debug-shell: pod debug-shell is a Pod of its own \(no owner\), not this Pod cuda-debug\n/);
  });

  test("each exit code says one thing, as --help lists them", async () => {
    const job = readFileSync(fx("job.yaml"), "utf8");
    const def = (running: string, extra = "") => `spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: batch, version: v1, kind: Job}
      specDefinition: {podTemplateSpecPath: .spec.template}
      statusDefinition: {statusMappings: {${running}: [{byExpression: {expression: "true", expectedResult: "true"}}]}}
${extra}`;
    // 0: printed, no errors.
    const ok = await run(["-d", "ok.yaml", "-f", "-", "-o", "json"], job, { "ok.yaml": def("running") });
    assert.deepEqual([ok.code, JSON.parse(ok.out).status.statuses, ok.err], [0, ["Running"], ""]);
    // 1: the definition has errors (a status the published CRD does not have): nothing printed.
    const invalid = await run(["-d", "bad.yaml", "-f", "-", "-o", "json"], job, { "bad.yaml": def("progressing") });
    assert.deepEqual([invalid.code, invalid.out], [1, ""]);
    assert.match(invalid.err, /unknown status "progressing": .*; the closest is "resuming"/);
    // 2: unreadable input.
    assert.equal((await run(["-d", "ok.yaml", "-f", "missing.yaml"], "", { "ok.yaml": def("running") })).code, 2);
    // 6: printed (the status stands), but a path failed on this object.
    const failing = def("running", `    childComponents:
    - name: sidecar
      ownerRef: job
      specDefinition: {podTemplateSpecPath: '.spec.sidecars[].template'}
`);
    const partial = await run(["-d", "partial.yaml", "-f", "-", "-o", "json"], job, { "partial.yaml": failing });
    assert.equal(partial.code, 6);
    assert.deepEqual(JSON.parse(partial.out).status.statuses, ["Running"]);
    assert.match(partial.err, /childComponents\[0\]\.specDefinition\.podTemplateSpecPath: failed to evaluate pod template spec path '\.spec\.sidecars\[\]\.template': Cannot iterate over null/);
    // The tree (the default) has them under Problems, and on stderr too.
    const tree = await run(["-d", "partial.yaml", "-f", "-"], job, { "partial.yaml": failing });
    assert.equal(tree.code, 6);
    assert.match(tree.out, /^Problems:\n {2}error: .*Cannot iterate over null/m);
    assert.equal(tree.err, partial.err);
    // 4: no definition for the object's kind (bundled, or in -d), or an object of another kind.
    const configMap = await run(["-f", "-"], "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n");
    assert.deepEqual([configMap.code, configMap.out], [4, ""]);
    assert.match(configMap.err, /^karta inspect: no definition for ConfigMap v1 in the bundled definitions/);
    const other = await run(["-d", "ok.yaml", "-f", "-"], "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n", { "ok.yaml": def("running") });
    assert.equal(other.code, 4);
    // --patch that cannot be made (no suspendDefinition to write) is 6 as well, with nothing on stdout:
    // `[]` would be a patch that a pipeline applies as a no-op.
    const patch = await run(["-d", "ok.yaml", "-f", "-", "--patch", "suspend"], job, { "ok.yaml": def("running") });
    assert.equal(patch.code, 6);
    assert.equal(patch.out, "");
    assert.match(patch.err, /suspendDefinition: the definition has no suspendDefinition/);
    for (const op of ["suspend", "resume"]) {
      const bundled = await run(["-f", path.join(repoRoot, "examples/deployment.yaml"), "--patch", op, "-o", "yaml"]);
      assert.deepEqual([bundled.code, bundled.out], [6, ""], bundled.err);
    }
  });

  test("usage errors exit 2", async () => {
    assert.equal((await run([])).code, 2);
    assert.equal((await run(["-d", "x.yaml"])).code, 2);
    assert.equal((await run(["-d", "x.yaml", "-f", "y.yaml", "-o", "xml"])).code, 2);
    assert.equal((await run(["-d", "x.yaml", "-f", "y.yaml", "--patch", "set-label", "novalue"])).code, 2);
    const missing = await run(["-d", "/nonexistent/karta.yaml", "-f", fx("job.yaml")]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /cannot read \/nonexistent\/karta\.yaml/);
  });

  test("input that does not parse or holds no single object exits 2, naming stdin as <stdin>", async () => {
    const job = "definitions/batch/v1/Job.yaml";
    // A document that is not an object, or whose apiVersion or kind is not a string, with or without -d.
    for (const [text, what] of [["42", "the workload is not an object .*found a number"], ["[1]", "the workload is not an object"], ['{"apiVersion":"v1","kind":["Pod"]}', "kind: expected a string, found a list"]] as const) {
      for (const args of [["-f", "-"], ["-d", job, "-f", "-"]]) {
        const r = await run(args, text);
        assert.deepEqual([r.code, r.out], [2, ""], `${text} ${args.join(" ")}`);
        assert.match(r.err, new RegExp(`^karta inspect: <stdin>: ${what}`));
      }
    }
    // A "billion laughs" document: the YAML reader refuses to expand it.
    let bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 1; i < 12; i++) bomb += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(", ")}]\n`;
    const laughs = await run(["-d", job, "-f", "-"], bomb);
    assert.equal(laughs.code, 2);
    assert.match(laughs.err, /^karta inspect: <stdin>:1:1: too many YAML alias expansions/);
    const two = await run(["-d", job, "-f", "-"], "apiVersion: batch/v1\nkind: Job\nmetadata: {name: a}\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: b}\n");
    assert.equal(two.code, 2);
    assert.equal(two.err, "karta inspect: <stdin>: expected one workload object, found 2\n");
    const pods = await run(["-d", job, "-f", fx("job.yaml"), "--pods", "pods.yaml"], "", { "pods.yaml": "items: [\n" });
    assert.equal(pods.code, 2);
    assert.match(pods.err, /^karta inspect: pods\.yaml:\d+:\d+: /);
  });

  test("the tree shows components, status, groups and unmatched pods", async (t) => {
    const def = catalog("kubeflow-org-pytorchjob-v1");
    if (!def) return t.skip("conformance data absent");
    const stray = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: debug-shell\n  labels: {run: debug}\n";
    const r = await run(["-d", def, "-f", fx("pytorchjob.yaml"), "--pods", fx("pytorchjob-pods.yaml"), "--pods", "-"], stray);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^PyTorchJob ml-team\/bert-finetune \(uid 6a1f0e52-1c4b-4e0a-9a53-3f6a2b7d9c10\)/);
    assert.match(r.out, /Status: Running, Initializing/);
    assert.match(r.out, /├─ master \(Pod v1\) {2}subtree scale 1 {2}replicas 1/);
    assert.match(r.out, /└─ worker \(Pod v1\) {2}subtree scale 2 {2}replicas 3, min 2, max 4/);
    assert.match(r.out, /per replica: cpu 6, memory 24Gi, nvidia\.com\/gpu 2/);
    assert.match(r.out, /total requests: cpu 22, memory 88Gi, nvidia\.com\/gpu 7/);
    assert.match(r.out, /pg-6a1f0e52-1c4b-4e0a-9a53-3f6a2b7d9c10-bert-finetune {2}minMember 2/);
    assert.match(r.out, /Pods: 5, matched 4, unmatched 1\n {2}debug-shell: no component found for pod debug-shell/);
  });

  test("-o json prints the whole interpretation; pods from a directory", async (t) => {
    const def = catalog("ray-io-raycluster-v1");
    if (!def) return t.skip("conformance data absent");
    const dir = mkdtempSync(path.join(tmpdir(), "karta-inspect-"));
    try {
      const pods = parseObjects(readFileSync(fx("raycluster-pods.yaml"), "utf8"), "pods");
      // One pod per file, as JSON and YAML, plus a file that is not YAML/JSON (ignored).
      pods.forEach((p, i) => writeFileSync(path.join(dir, `pod-${i}.json`), JSON.stringify(p)));
      writeFileSync(path.join(dir, "README.txt"), "not a pod");
      const r = await run(["-d", def, "-f", fx("raycluster.yaml"), "--pods", dir, "-o", "json"]);
      assert.equal(r.code, 0, r.err);
      const result = JSON.parse(r.out);
      assert.equal(result.pods.length, 4);
      assert.deepEqual(result.status.statuses, ["Running"]);
      assert.equal(result.groups[0].members.length, 4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("-o yaml", async (t) => {
    const def = catalog("batch-job-v1");
    if (!def) return t.skip("conformance data absent");
    const r = await run(["-d", def, "-f", fx("job.yaml"), "-o", "yaml"]);
    assert.equal(r.code, 0);
    assert.match(r.out, /^root:\n {2}apiVersion: batch\/v1\n {2}kind: Job/);
  });

  test("children are matched to components by kind", async (t) => {
    const def = catalog("apps-deployment-v1");
    if (!def) return t.skip("conformance data absent");
    const r = await run(["-d", def, "-f", fx("deployment.yaml"), "--children", fx("deployment-children.yaml")]);
    assert.equal(r.code, 0);
    assert.match(r.out, /Children:\n {2}ReplicaSet web-7c9f8d6b5 {2}→ replicaset/);
  });

  test("with several definitions in the file, the one for the object's kind is used", async (t) => {
    const job = catalog("batch-job-v1");
    const ray = catalog("ray-io-raycluster-v1");
    if (!job || !ray) return t.skip("conformance data absent");
    const both = readFileSync(ray, "utf8") + "\n---\n" + readFileSync(job, "utf8");
    const r = await run(["-d", "all.yaml", "-f", fx("job.yaml")], "", { "all.yaml": both });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Job batch\/pi-estimate/);
    assert.match(r.out, /job \(Job batch\/v1\) {2}subtree scale 4 {2}replicas 4/);
  });

  test("an object of another kind: exit 4 with both kinds named", async (t) => {
    const def = catalog("batch-job-v1");
    if (!def) return t.skip("conformance data absent");
    const r = await run(["-d", def, "-f", fx("deployment.yaml")]);
    assert.equal(r.code, 4);
    assert.equal(r.out, "");
    assert.match(r.err, /^karta inspect: .*deployment\.yaml: the object is Deployment apps\/v1, but the definition's root component is Job batch\/v1\n$/);
  });

  test("an object with no apiVersion or kind is refused, not shown as Initializing", async () => {
    const def = path.join(repoRoot, "definitions", "apps", "v1", "Deployment.yaml");
    const r = await run(["-d", def, "-f", "-"], '{"spec": {"replicas": 3}}');
    assert.equal(r.code, 4);
    assert.equal(r.out, "");
    assert.equal(r.err, "karta inspect: <stdin>: the object has no apiVersion or kind: the definition's root component is Deployment apps/v1\n");
    const noKind = await run(["-d", def, "-f", "-"], '{"apiVersion": "apps/v1", "spec": {"replicas": 3}}');
    assert.equal(noKind.code, 4);
    assert.match(noKind.err, /the object has no kind: the definition's root component is Deployment apps\/v1/);
  });

  test("a definition with errors shows the validator's diagnostics and exits 1", async () => {
    const bad = `apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: broken}
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: batch, version: v1, kind: Job}
    childComponents:
    - name: worker
      ownerRef: nobody
      specDefinition: {podTemplateSpecPath: .spec.template}
`;
    const r = await run(["-d", "broken.yaml", "-f", fx("job.yaml")], "", { "broken.yaml": bad });
    assert.equal(r.code, 1);
    assert.match(r.err, /broken\.yaml:\d+:\d+: error: spec\.structureDefinition\.rootComponent.*root component must have status definition/);
    assert.match(r.err, /child component 'worker' has owner ref to non-existing component 'nobody'/);
    assert.equal(r.out, "");
  });

  test("a pod matching two components is the first's, as upstream Karta and KAI take it, with a warning (exit 0)", async () => {
    const def = `spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: batch, version: v1, kind: Job}
      statusDefinition: {statusMappings: {running: [{byConditions: [{type: Running, status: "True"}]}]}}
    childComponents:
    - name: a
      ownerRef: job
      specDefinition: {podTemplateSpecPath: .spec.template}
      podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["job-name"]'}}
    - name: b
      ownerRef: job
      specDefinition: {podTemplateSpecPath: .spec.template}
      podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["batch.kubernetes.io/job-name"]'}}
`;
    const r = await run(["-d", "two.yaml", "-f", fx("job.yaml"), "--pods", fx("job-pods.yaml")], "", { "two.yaml": def });
    assert.equal(r.code, 0);
    assert.match(r.out, /warning: spec\.structureDefinition\.childComponents\[1\]\.podSelector\.componentTypeSelector: pod pi-estimate-4xk2p matches 2 components .*: it is taken for the first, a, as upstream Karta and KAI take it/);
    assert.match(r.out, /Pods: 4, matched 4, unmatched 0/);
  });

  test("--patch prints an RFC 6902 patch that applies", async (t) => {
    const def = catalog("jobset-x-k8s-io-jobset-v1alpha2");
    if (!def) return t.skip("conformance data absent");
    const object = parseObjects(readFileSync(fx("jobset.yaml"), "utf8"), "jobset")[0];
    const s = await run(["-d", def, "-f", fx("jobset.yaml"), "--patch", "suspend"]);
    assert.equal(s.code, 0, s.err);
    assert.deepEqual(JSON.parse(s.out), [{ op: "replace", path: "/spec/suspend", value: true }]);
    const l = await run(["-d", def, "-f", "-", "--patch", "set-label", "kai.scheduler/queue=research"], readFileSync(fx("jobset.yaml"), "utf8"));
    assert.equal(l.code, 0, l.err);
    const patched = applyJsonPatch(object, JSON.parse(l.out));
    assert.ok(patched.ok);
    const jobs = (patched.value as { spec: { replicatedJobs: { template: { spec: { template: { metadata: { labels: Record<string, string> } } } } }[] } }).spec.replicatedJobs;
    assert.deepEqual(
      jobs.map((j) => j.template.spec.template.metadata.labels["kai.scheduler/queue"]),
      ["research", "research"],
    );
  });

  test("pods given as a List, multi-document YAML or JSON array all read the same", () => {
    const pod = (n: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name: n } });
    const list = JSON.stringify({ apiVersion: "v1", kind: "List", items: [pod("a"), pod("b")] });
    const docs = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n";
    const arr = JSON.stringify([pod("a"), pod("b")]);
    for (const text of [list, docs, arr]) assert.deepEqual(parseObjects(text, "x"), [pod("a"), pod("b")]);
  });
});

describe("karta inspect: KAI Scheduler's plugin for the kind", () => {
  const example = (f: string) => path.join(repoRoot, "examples", f);
  /** The tree's Groups section: from `Groups` to the blank line after it. */
  const groupsSection = (out: string): string[] => {
    const lines = out.split("\n");
    const from = lines.findIndex((l) => l.startsWith("Groups"));
    return lines.slice(from, lines.indexOf("", from));
  };

  test("an object with an owner (a Deployment's ReplicaSet): KAI picks the plugin by the pods' top owner, and the notice says which", async () => {
    const rs = readFileSync(example("replicaset.yaml"), "utf8").replace(/^metadata:\n/m, "metadata:\n  ownerReferences:\n  - {apiVersion: apps/v1, kind: Deployment, name: web, uid: 0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0, controller: true}\n");
    const r = await run(["-f", "-", "--pods", example("replicaset-pods.yaml")], rs);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(groupsSection(r.out).slice(0, 3), [
      "Groups:",
      "  notice: KAI Scheduler picks its plugin by the pods' top owner, and this ReplicaSet apps/v1 is owned by Deployment apps/v1 web:",
      "          if that is the top owner, its DeploymentGrouper groups the pods; the groups below are this Karta's, which KAI builds only for a top owner of a kind without a plugin",
    ]);
    const json = JSON.parse((await run(["-f", "-", "-o", "json"], rs)).out) as { kaiPlugin: { ownedBy?: unknown } };
    assert.deepEqual(json.kaiPlugin.ownedBy, { apiVersion: "apps/v1", kind: "Deployment", name: "web" });
  });

  test("a kind KAI groups natively (PyTorchJob): a notice under Groups; -o json says which plugin", async () => {
    const r = await run(["-f", example("pytorchjob.yaml"), "--pods", example("pytorchjob-pods.yaml")]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(groupsSection(r.out), [
      "Groups:",
      "  notice: KAI Scheduler groups PyTorchJob kubeflow.org/v1 with its own PyTorchGrouper (PodGroups named pg-<name>-<uid>, with that plugin's subgroups and minMember);",
      "          below is what KAI's Karta grouper would build for a kind without a plugin",
      "  pg-3f6d2c1e-8a4b-4c7d-9e2f-1a2b3c4d5e6f-pytorchjob  minMember 2  minSubGroup 2  [pytorchjob]",
      "    subgroup master  minMember 1  pods: 1",
      "    subgroup worker  minMember 1  pods: 3",
      "    llama-finetune-master-0  master",
      "    llama-finetune-worker-0  worker",
      "    llama-finetune-worker-1  worker",
      "    llama-finetune-worker-2  worker",
    ]);
    const json = await run(["-f", example("pytorchjob.yaml"), "--pods", example("pytorchjob-pods.yaml"), "-o", "json"]);
    const result = JSON.parse(json.out) as Record<string, unknown>;
    assert.deepEqual(result.kaiPlugin, { name: "PyTorchGrouper", native: true, version: "v1", podGroupName: "pg-<name>-<uid>" });
    // Added beside the groups; the fields printed before are all still there, in their order.
    assert.deepEqual(Object.keys(result), ["root", "components", "status", "pods", "groups", "kaiPlugin", "gangPlan", "children", "diagnostics", "totalRequests"]);
    const yaml = await run(["-f", example("pytorchjob.yaml"), "-o", "yaml"]);
    assert.match(yaml.out, /\nkaiPlugin:\n {2}name: PyTorchGrouper\n {2}native: true\n/);
  });

  test("without pods, or without gang instructions, the notice follows the Groups line", async () => {
    const plan = await run(["-f", example("job.yaml")]);
    assert.deepEqual(groupsSection(plan.out).slice(0, 3), [
      "Groups: give --pods to see them; the definition's members:",
      "  notice: KAI Scheduler groups Job batch/v1 with its own K8sJobGrouper (PodGroups named pg-<name>-<uid>, minMember 1 (or the Job's kai.scheduler/batch-min-member annotation), no subgroups);",
      "          below is what KAI's Karta grouper would build for a kind without a plugin",
    ]);
    const noGang = readFileSync(path.join(repoRoot, "definitions/apps/v1/Deployment.yaml"), "utf8").replace(/\n {2}optimizationInstructions:[\s\S]*$/, "\n");
    assert.doesNotMatch(noGang, /gangScheduling/);
    const none = await run(["-d", "deployment.yaml", "-f", example("deployment.yaml"), "--pods", example("deployment-pods.yaml")], "", { "deployment.yaml": noGang });
    assert.equal(none.code, 0, none.err);
    assert.deepEqual(groupsSection(none.out), [
      "Groups: none (no gang scheduling instructions)",
      "  notice: KAI Scheduler groups Deployment apps/v1 with its own DeploymentGrouper (PodGroups named pg-<pod>-<uid>, one per pod, minMember 1 and no subgroups: no gang)",
    ]);
  });

  test("a skipped owner (TrainJob): KAI groups by the owner below it", async () => {
    const r = await run(["-f", example("trainjob.yaml"), "--pods", example("trainjob-pods.yaml")]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(groupsSection(r.out).slice(0, 3), [
      "Groups:",
      "  notice: KAI Scheduler skips TrainJob trainer.kubeflow.org/v1alpha1 (SkipTopOwnerGrouper) and groups its pods with the plugin of the owner below it (a JobSet: JobSetGrouper);",
      "          below is what KAI's Karta grouper would build for a kind without a plugin",
    ]);
  });

  test("kinds with no native plugin (Volcano's Job, InferenceService, the v1 Notebook): no notice; -o json names KAI's Karta grouper", async () => {
    const volcano = await run(["-f", example("volcano-job.yaml"), "--pods", example("volcano-job-pods.yaml")]);
    assert.equal(volcano.code, 0, volcano.err);
    assert.deepEqual(groupsSection(volcano.out), [
      "Groups:",
      "  pg-8e9f0a1b-2c3d-4e4f-9a5b-6c7d8e9f0a1b  minMember 4  [job]",
      "    mnist-dist-ps-0  task via job",
      "    mnist-dist-worker-0  task via job",
      "    mnist-dist-worker-1  task via job",
      "    mnist-dist-worker-2  task via job",
    ]);
    for (const name of ["volcano-job", "inferenceservice", "notebook"]) {
      const r = await run(["-f", example(`${name}.yaml`), "--pods", example(`${name}-pods.yaml`), "-o", "json"]);
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(JSON.parse(r.out).kaiPlugin, { name: "KartaGrouper", native: false, kartaLabels: true }, name);
      const tree = await run(["-f", example(`${name}.yaml`), "--pods", example(`${name}-pods.yaml`)]);
      assert.doesNotMatch(tree.out, /notice: KAI/, name);
    }
  });

  test("a Karta without the run.ai/karta-* labels KAI's fallback finds it by: a notice", async () => {
    const unlabelled = readFileSync(path.join(repoRoot, "definitions/milvus.io/v1beta1/Milvus.yaml"), "utf8").replace(/^ {4}run\.ai\/karta-.*\n/gm, "");
    assert.doesNotMatch(unlabelled, /run\.ai\/karta-/);
    const r = await run(["-d", "milvus.yaml", "-f", example("milvus.yaml"), "--pods", example("milvus-pods.yaml")], "", { "milvus.yaml": unlabelled });
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(groupsSection(r.out).slice(0, 3), [
      "Groups:",
      "  notice: KAI Scheduler's Karta fallback finds a Karta stored in the cluster by its labels run.ai/karta-group=milvus.io, run.ai/karta-version=v1beta1, run.ai/karta-kind=Milvus",
      "          (the Karta controller adds them when it admits a Karta); this definition does not carry them: stored as it is, KAI would group the pods with its DefaultGrouper (pg-<name>-<uid>, minMember 1)",
    ]);
    const json = await run(["-d", "milvus.yaml", "-f", example("milvus.yaml"), "-o", "json"], "", { "milvus.yaml": unlabelled });
    assert.deepEqual(JSON.parse(json.out).kaiPlugin, { name: "KartaGrouper", native: false, kartaLabels: false });
  });
});
