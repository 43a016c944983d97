/** The Karta bridge: WorkloadItem trees, the Workload API objects of one object, pod patches, and bad input as values. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { compileInterpreter, applyJsonPatch } from "../../src/interpret/index.js";
import { compileKarta, kartaWorkloadTree, GANG_SCHEDULING_PATH } from "../../src/scheduling/karta.js";
import type { CompileIssue } from "../../src/scheduling/karta/issues.js";
import { newBuilder } from "../../src/scheduling/index.js";
import { conformanceDir } from "../support/conformance.js";
import { bundledObject, bundledPods, compileFixtures, definitionFile, definitionText, emittedErrors, variant } from "./helpers.js";
import { fixtureCases, loadBundled } from "../bundled/helpers.js";

// The older podGroups format, as these four bundled definitions were written before they had subgroups.
const PYTORCH = path.join(compileFixtures, "older", "PyTorchJob-karta.yaml");
const LWS = path.join(compileFixtures, "older", "LeaderWorkerSet-karta.yaml");
const RAY = path.join(compileFixtures, "older", "RayCluster-karta.yaml");
const JOBSET = path.join(compileFixtures, "older", "JobSet-karta.yaml");
const JOBSET_SUBGROUPS = path.join(compileFixtures, "jobset-subgroups-karta.yaml");

const errors = (issues: CompileIssue[]) => issues.filter((i) => i.severity === "error");
const one = (issues: CompileIssue[]): CompileIssue => {
  const errs = errors(issues);
  assert.equal(errs.length, 1, JSON.stringify(errs, null, 2));
  return errs[0]!;
};

describe("the WorkloadItem tree", () => {
  test("older podGroups: one leaf per pod-group definition, gang minCount from the subtree scale", () => {
    const interpreter = compileInterpreter(definitionFile(PYTORCH));
    const view = interpreter.workload(bundledObject("PyTorchJob")).view!;
    const { tree, issues } = kartaWorkloadTree(view);
    assert.deepEqual(errors(issues), []);
    assert.equal(tree!.format, "podGroups");
    assert.equal(tree!.roots.length, 1);
    const item = tree!.roots[0]!;
    assert.equal(item.name, "job");
    assert.equal(item.path, `${GANG_SCHEDULING_PATH}.podGroups[0]`);
    assert.equal(item.children, undefined);
    // The item is a plain builder input: it validates and builds on its own.
    const owner = { apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: "bert-pretrain", uid: "u1", controller: true };
    const b = newBuilder(item, { name: "w", owner, allowedPolicies: ["Basic", "Gang"], allowedDisruptionModes: ["Single", "All"] });
    assert.deepEqual(b.validate(), []);
    const built = b.buildWorkload();
    assert.ok(built.ok);
    assert.deepEqual(built.value.spec.podGroupTemplates, [{ name: "job", schedulingPolicy: { gang: { minCount: 3 } } }]);
  });

  test("newer podGroup with subGroups: a composite over one leaf per subgroup", () => {
    const interpreter = compileInterpreter(definitionFile(JOBSET_SUBGROUPS));
    const view = interpreter.workload(bundledObject("JobSet")).view!;
    const { tree, issues } = kartaWorkloadTree(view);
    assert.deepEqual(errors(issues), []);
    const root = tree!.roots[0]!;
    assert.equal(root.name, "llm-pretrain");
    assert.deepEqual(root.children!.map((c) => [c.name, c.path]), [
      ["driver", `${GANG_SCHEDULING_PATH}.podGroup.subGroups[0]`],
      ["workers", `${GANG_SCHEDULING_PATH}.podGroup.subGroups[1]`],
    ]);
  });

  test("a definition without gang instructions is an error at gangScheduling", () => {
    const def = definitionFile(PYTORCH);
    const karta = variant(def.karta, (k) => delete k.spec.optimizationInstructions);
    const view = compileInterpreter(karta).workload(bundledObject("PyTorchJob")).view!;
    const { tree, issues } = kartaWorkloadTree(view);
    assert.equal(tree, undefined);
    const e = one(issues);
    assert.equal(e.path, GANG_SCHEDULING_PATH);
    assert.match(e.message, /^Required value: the definition has no gang scheduling instructions \(podGroups or podGroup\)/);
  });
});

describe("compileKarta on the bundled definitions", () => {
  test("PyTorchJob: one gang of master and workers, owned by the job", () => {
    const r = compileKarta(definitionFile(PYTORCH), bundledObject("PyTorchJob"), { pods: bundledPods("PyTorchJob") });
    assert.ok(r.ok, JSON.stringify(r.issues));
    const wl = r.workload!;
    assert.equal(wl.metadata.name, "bert-pretrain-9dbdc9d8f");
    assert.equal(wl.metadata.namespace, "nlp");
    assert.deepEqual(wl.metadata.ownerReferences, [
      { apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: "bert-pretrain", uid: "b7e3c9a1-52d4-4f08-8c6e-0a9d1e2f3b4c", controller: true, blockOwnerDeletion: true },
    ]);
    assert.deepEqual(wl.spec.controllerRef, { apiGroup: "kubeflow.org", kind: "PyTorchJob", name: "bert-pretrain" });
    assert.equal(r.podGroups.length, 1);
    assert.deepEqual(r.podGroups[0]!.spec.schedulingPolicy, { gang: { minCount: 3 } });
    assert.equal(r.podPatches.length, 5);
    assert.ok(r.podPatches.every((p) => p.podGroupName === r.podGroups[0]!.metadata.name));
    assert.deepEqual(emittedErrors(r), []);
  });

  test("PyTorchJob with the namespace's pods: another job's pods get no patch, a notice says whose they are", () => {
    const ours = bundledPods("PyTorchJob");
    // Another PyTorchJob in the namespace: the same labels but its own name and owner.
    const theirs = structuredClone(ours.slice(0, 2)).map((p) => {
      const meta = p.metadata as { name: string; ownerReferences: { name: string; uid: string }[] };
      meta.name = meta.name.replace("bert-pretrain", "gpt-sft");
      meta.ownerReferences = [{ ...meta.ownerReferences[0]!, name: "gpt-sft", uid: "e4f5a6b7-c8d9-4e0f-9a1b-2c3d4e5f6a7b" }];
      return p;
    });
    const r = compileKarta(definitionFile(PYTORCH), bundledObject("PyTorchJob"), { pods: [...ours, ...theirs] });
    assert.ok(r.ok, JSON.stringify(r.issues));
    assert.deepEqual(
      r.podPatches.map((p) => p.pod.name),
      ours.map((p) => (p.metadata as { name: string }).name),
    );
    assert.deepEqual(
      r.issues.filter((i) => i.code === "pod-unmatched").map((i) => [i.severity, i.pod]),
      [
        ["notice", "nlp/gpt-sft-master-0"],
        ["notice", "nlp/gpt-sft-worker-0"],
      ],
    );
    assert.match(r.issues.find((i) => i.code === "pod-unmatched")!.message, /belongs to PyTorchJob gpt-sft \(uid e4f5a6b7-c8d9-4e0f-9a1b-2c3d4e5f6a7b\), not to this PyTorchJob bert-pretrain/);
  });

  test("LeaderWorkerSet: one PodGroup per replica group, all from the one template", () => {
    const r = compileKarta(definitionFile(LWS), bundledObject("LeaderWorkerSet"), { pods: bundledPods("LeaderWorkerSet") });
    assert.ok(r.ok, JSON.stringify(r.issues));
    assert.deepEqual(r.workload!.spec.podGroupTemplates!.map((t) => t.name), ["group"]);
    assert.deepEqual(r.podGroups.map((g) => [g.metadata.name, g.spec.workloadRef?.templateName, g.spec.schedulingPolicy.gang?.minCount]), [
      ["llama-70b-vllm-7559c8dd9f-group-group-0-7cfd6bcb6f", "group", 3],
      ["llama-70b-vllm-7559c8dd9f-group-group-1-7cd58f4454", "group", 3],
    ]);
    const byPod = Object.fromEntries(r.podPatches.map((p) => [p.pod.name, p.podGroupName.includes("group-group-0") ? 0 : 1]));
    assert.deepEqual(byPod, { "llama-70b-vllm-0": 0, "llama-70b-vllm-0-1": 0, "llama-70b-vllm-0-2": 0, "llama-70b-vllm-1": 1, "llama-70b-vllm-1-1": 1, "llama-70b-vllm-1-2": 1 });
    assert.deepEqual(emittedErrors(r), []);
  });

  test("keyed groups in natural order: group 2 before group 10, whatever order the pods come in", () => {
    const pods = bundledPods("LeaderWorkerSet").map((p) =>
      variant(p, (c) => {
        const labels = (c.metadata as { labels: Record<string, string> }).labels;
        labels["leaderworkerset.sigs.k8s.io/group-index"] = labels["leaderworkerset.sigs.k8s.io/group-index"] === "0" ? "10" : "2";
      }),
    );
    for (const order of [pods, [...pods].reverse()]) {
      const r = compileKarta(definitionFile(LWS), bundledObject("LeaderWorkerSet"), { pods: order });
      assert.ok(r.ok, JSON.stringify(r.issues));
      assert.deepEqual(
        r.podGroups.map((g) => /group-group-(\d+)-/.exec(g.metadata.name ?? "")?.[1]),
        ["2", "10"],
      );
    }
  });

  test("LeaderWorkerSet without pods: the Workload, no groups, and a notice saying why", () => {
    const r = compileKarta(definitionFile(LWS), bundledObject("LeaderWorkerSet"));
    assert.ok(r.ok);
    assert.equal(r.podGroups.length, 0);
    const notice = r.issues.find((i) => i.code === "keyed-groups")!;
    assert.equal(notice.severity, "notice");
    assert.equal(notice.path, `${GANG_SCHEDULING_PATH}.podGroups[0]`);
    assert.match(notice.message, /give --pods/);
  });

  test("RayCluster: head and every worker group in one gang of KAI's minimum", () => {
    const r = compileKarta(definitionFile(RAY), bundledObject("RayCluster"), { pods: bundledPods("RayCluster") });
    assert.ok(r.ok, JSON.stringify(r.issues));
    assert.equal(r.podGroups.length, 1);
    assert.deepEqual(r.podGroups[0]!.spec.schedulingPolicy, { gang: { minCount: 6 } });
    assert.equal(r.podPatches.length, 8);
    assert.deepEqual(emittedErrors(r), []);
  });

  test("JobSet (bundled, older format): one gang of replicas x parallelism", () => {
    const r = compileKarta(definitionFile(JOBSET), bundledObject("JobSet"));
    assert.ok(r.ok, JSON.stringify(r.issues));
    assert.deepEqual(r.workload!.spec.podGroupTemplates, [{ name: "jobset", schedulingPolicy: { gang: { minCount: 9 } } }]);
    assert.deepEqual(emittedErrors(r), []);
  });

  test("JobSet with subGroups: a CompositePodGroup over a PodGroup per replicated job, topology carried", () => {
    const r = compileKarta(definitionFile(JOBSET_SUBGROUPS), bundledObject("JobSet"), { pods: bundledPods("JobSet") });
    assert.ok(r.ok, JSON.stringify(r.issues));
    const [composite] = r.workload!.spec.compositePodGroupTemplates!;
    assert.deepEqual(composite!.schedulingPolicy, { gang: { minGroupCount: 2 } });
    assert.deepEqual(composite!.schedulingConstraints, { topology: [{ key: "cloud.provider.com/topology-block" }] });
    assert.deepEqual(composite!.podGroupTemplates!.map((t) => [t.name, t.schedulingPolicy.gang?.minCount, t.schedulingConstraints?.topology?.[0]?.key]), [
      ["driver", 1, undefined],
      ["workers", 8, "cloud.provider.com/topology-rack"],
    ]);
    assert.equal(r.compositePodGroups.length, 1);
    const parent = r.compositePodGroups[0]!.metadata.name;
    assert.equal(r.compositePodGroups[0]!.spec.parentCompositePodGroupName, undefined);
    assert.deepEqual(r.podGroups.map((g) => g.spec.parentCompositePodGroupName), [parent, parent]);
    const counts = new Map<string, number>();
    for (const p of r.podPatches) counts.set(p.podGroupName, (counts.get(p.podGroupName) ?? 0) + 1);
    assert.deepEqual([...counts.values()], [1, 8]);
    // The preferred level cannot be carried: said, not silently dropped.
    const dropped = r.issues.find((i) => i.path.endsWith("subGroups[1].topology.preferredTopologyLevel"))!;
    assert.equal(dropped.severity, "notice");
    assert.deepEqual(emittedErrors(r), []);
  });

  test("pod patches apply: the pod names its leaf PodGroup", () => {
    const pods = bundledPods("JobSet");
    const r = compileKarta(definitionFile(JOBSET_SUBGROUPS), bundledObject("JobSet"), { pods });
    const patch = r.podPatches.find((p) => p.pod.name === "llm-pretrain-driver-0-0-jgzg8")!;
    const pod = pods.find((p) => (p.metadata as { name: string }).name === patch.pod.name)!;
    const applied = applyJsonPatch(pod, patch.patch);
    assert.ok(applied.ok);
    assert.deepEqual((applied.value as { spec: { schedulingGroup: unknown } }).spec.schedulingGroup, { podGroupName: "llm-pretrain-6744ffc59f-driver-6c47dcc7c5" });
  });

  test("a pod that already names another group is an error (the field is immutable)", () => {
    const pods = bundledPods("PyTorchJob").map((p, i) => (i === 0 ? variant(p, (c) => void ((c.spec as Record<string, unknown>).schedulingGroup = { podGroupName: "elsewhere" })) : p));
    const r = compileKarta(definitionFile(PYTORCH), bundledObject("PyTorchJob"), { pods });
    assert.equal(r.ok, false);
    assert.equal(r.workload, undefined);
    const e = one(r.issues);
    assert.equal(e.input, "pod");
    assert.equal(e.pod, "nlp/bert-pretrain-master-0");
    assert.equal(e.path, "spec.schedulingGroup.podGroupName");
    assert.match(e.message, /^Invalid value: "elsewhere": field is immutable/);
  });

  test("a pod already in its group needs no patch", () => {
    const first = compileKarta(definitionFile(PYTORCH), bundledObject("PyTorchJob"));
    const name = first.podGroups[0]!.metadata.name!;
    const pods = bundledPods("PyTorchJob").map((p) => variant(p, (c) => void ((c.spec as Record<string, unknown>).schedulingGroup = { podGroupName: name })));
    const r = compileKarta(definitionFile(PYTORCH), bundledObject("PyTorchJob"), { pods });
    assert.ok(r.ok);
    assert.ok(r.podPatches.every((p) => p.patch.length === 0));
  });
});

describe("the user's intent", () => {
  test("--policy basic makes every group basic, composite included", () => {
    const r = compileKarta(definitionFile(JOBSET_SUBGROUPS), bundledObject("JobSet"), { policy: "basic" });
    assert.ok(r.ok, JSON.stringify(r.issues));
    assert.deepEqual(r.compositePodGroups[0]!.spec.schedulingPolicy, { basic: {} });
    assert.ok(r.podGroups.every((g) => g.spec.schedulingPolicy.basic !== undefined));
    // An explicit gang leaves the counts to the definition, as the default does.
    const gang = compileKarta(definitionFile(JOBSET_SUBGROUPS), bundledObject("JobSet"), { policy: "gang" });
    const plain = compileKarta(definitionFile(JOBSET_SUBGROUPS), bundledObject("JobSet"));
    assert.deepEqual(gang.workload, plain.workload);
    assert.deepEqual(gang.workload!.spec.compositePodGroupTemplates![0]!.schedulingPolicy, { gang: { minGroupCount: 2 } });
  });

  test("--disruption all reaches every level; basic with all is refused at the option", () => {
    const r = compileKarta(definitionFile(JOBSET_SUBGROUPS), bundledObject("JobSet"), { disruptionMode: "all" });
    assert.ok(r.ok, JSON.stringify(r.issues));
    assert.deepEqual(r.compositePodGroups[0]!.spec.disruptionMode, { all: {} });
    assert.ok(r.podGroups.every((g) => g.spec.disruptionMode?.all !== undefined));
    const bad = compileKarta(definitionFile(JOBSET_SUBGROUPS), bundledObject("JobSet"), { policy: "basic", disruptionMode: "all" });
    const e = one(bad.issues);
    assert.deepEqual([e.input, e.path], ["option", "--disruption"]);
    assert.match(e.message, /the disruptionMode `all` is not supported with the Basic scheduling policy/);
  });

  test("--priority-class and --topology-key; a bad key is refused at the option", () => {
    const r = compileKarta(definitionFile(PYTORCH), bundledObject("PyTorchJob"), { priorityClassName: "training-high", topologyKey: "topology.kubernetes.io/zone" });
    assert.ok(r.ok, JSON.stringify(r.issues));
    assert.equal(r.podGroups[0]!.spec.priorityClassName, "training-high");
    assert.deepEqual(r.podGroups[0]!.spec.schedulingConstraints, { topology: [{ key: "topology.kubernetes.io/zone" }] });
    const bad = compileKarta(definitionFile(PYTORCH), bundledObject("PyTorchJob"), { topologyKey: "rack/zone/x" });
    const e = one(bad.issues);
    assert.deepEqual([e.input, e.path], ["option", "--topology-key"]);
  });

  test("the priority class of the pod templates when they agree; a notice when they differ", () => {
    const obj = bundledObject("PyTorchJob");
    const same = variant(obj, (o) => {
      const specs = (o.spec as { pytorchReplicaSpecs: Record<string, { template: { spec: Record<string, unknown> } }> }).pytorchReplicaSpecs;
      for (const s of Object.values(specs)) s.template.spec.priorityClassName = "nlp-train";
    });
    assert.equal(compileKarta(definitionFile(PYTORCH), same).podGroups[0]!.spec.priorityClassName, "nlp-train");
    const mixed = variant(same, (o) => void ((o.spec as { pytorchReplicaSpecs: { Master: { template: { spec: Record<string, unknown> } } } }).pytorchReplicaSpecs.Master.template.spec.priorityClassName = "nlp-critical"));
    const r = compileKarta(definitionFile(PYTORCH), mixed);
    assert.equal(r.podGroups[0]!.spec.priorityClassName, undefined);
    assert.match(r.issues.find((i) => i.code === "priority-class")!.message, /different priority classes \(nlp-critical, nlp-train\)/);
  });
});

describe("bad input: errors with a field path, no objects", () => {
  const jobset = definitionFile(JOBSET_SUBGROUPS);

  test("a subgroup with scale 0 is left out (notice), the rest compiles", () => {
    const obj = variant(bundledObject("JobSet"), (o) => {
      const jobs = (o.spec as { replicatedJobs: { name: string; replicas: number }[] }).replicatedJobs;
      jobs.find((j) => j.name === "workers")!.replicas = 0;
    });
    const r = compileKarta(jobset, obj);
    assert.equal(r.ok, true, JSON.stringify(r.issues));
    const notice = r.issues.find((i) => i.code === "gang-subgroup-empty")!;
    assert.equal(notice.severity, "notice");
    assert.equal(notice.path, `${GANG_SCHEDULING_PATH}.podGroup.subGroups[1]`);
    const [composite] = r.workload!.spec.compositePodGroupTemplates!;
    assert.deepEqual(composite!.schedulingPolicy, { gang: { minGroupCount: 1 } });
    assert.deepEqual(composite!.podGroupTemplates!.map((p) => p.name), ["driver"]);
  });

  test("every subgroup with scale 0: an error at subGroups", () => {
    const obj = variant(bundledObject("JobSet"), (o) => {
      for (const j of (o.spec as { replicatedJobs: { replicas: number }[] }).replicatedJobs) j.replicas = 0;
    });
    const r = compileKarta(jobset, obj);
    assert.equal(r.ok, false);
    assert.equal(r.podGroups.length, 0);
    const e = r.issues.find((i) => i.severity === "error")!;
    assert.equal(e.path, `${GANG_SCHEDULING_PATH}.podGroup.subGroups`);
  });

  test("a template name too long for a DNS label", () => {
    const long = "workers-of-the-large-language-model-pretraining-run-with-eight-hosts";
    const karta = variant(jobset.karta, (k) => {
      k.spec.structureDefinition.childComponents![1]!.name = long;
      k.spec.optimizationInstructions!.gangScheduling!.podGroup!.subGroups![1]!.componentName = long;
    });
    const r = compileKarta(karta, bundledObject("JobSet"));
    const e = one(r.issues);
    assert.equal(e.path, `${GANG_SCHEDULING_PATH}.podGroup.subGroups[1].componentName`);
    assert.match(e.message, /must be no more than 63 bytes \(it names a PodGroupTemplate\)/);
  });

  test("group keys that make an invalid PodGroup name", () => {
    const pods = bundledPods("LeaderWorkerSet").map((p) =>
      variant(p, (c) => {
        const labels = (c.metadata as { labels: Record<string, string> }).labels;
        labels["leaderworkerset.sigs.k8s.io/group-index"] = `Group_${labels["leaderworkerset.sigs.k8s.io/group-index"]}`;
      }),
    );
    const r = compileKarta(definitionFile(LWS), bundledObject("LeaderWorkerSet"), { pods });
    assert.equal(r.ok, false);
    const errs = errors(r.issues);
    assert.equal(errs.length, 2);
    assert.equal(errs[0]!.path, `${GANG_SCHEDULING_PATH}.podGroups[0].members[0].groupByKeyPaths`);
    assert.match(errs[0]!.message, /group keys \[group Group_0\].*is not valid: a lowercase RFC 1123 subdomain/);
  });

  test("an object that is not stored yet (no uid), or of another kind", () => {
    const noUid = variant(bundledObject("PyTorchJob"), (o) => delete (o.metadata as Record<string, unknown>).uid);
    const e = one(compileKarta(definitionFile(PYTORCH), noUid).issues);
    assert.deepEqual([e.input, e.path], ["object", "metadata.uid"]);
    const wrong = one(compileKarta(definitionFile(PYTORCH), bundledObject("JobSet")).issues);
    assert.deepEqual([wrong.input, wrong.path], ["object", "kind"]);
  });

  test("an older definition whose members have no scale under a gang", () => {
    const karta = variant(definitionFile(LWS).karta, (k) => {
      for (const c of k.spec.structureDefinition.childComponents!) c.scaleDefinition = { replicasPath: "0" };
    });
    const r = compileKarta(karta, bundledObject("LeaderWorkerSet"));
    const e = one(r.issues);
    assert.equal(e.path, `${GANG_SCHEDULING_PATH}.podGroups[0]`);
    assert.match(e.message, /subtree scale of its members \(group\) is 0/);
    // Basic needs no count.
    assert.ok(compileKarta(karta, bundledObject("LeaderWorkerSet"), { policy: "basic" }).ok);
  });

  test("never throws on garbage", () => {
    for (const [karta, object] of [
      [{} as never, null],
      [definitionFile(PYTORCH).karta, "text"],
      [definitionFile(PYTORCH).karta, { apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", metadata: { name: 5 } }],
    ] as const) {
      const r = compileKarta(karta, object);
      assert.equal(r.ok, false);
      assert.ok(errors(r.issues).length > 0);
    }
  });
});

describe("several older pod-group definitions", () => {
  test("one PodGroupTemplate each, side by side in one Workload", () => {
    const text = readFileSync(path.resolve(compileFixtures, "..", "..", "..", RAY), "utf8").replace(
      /podGroups:\n(\s+)- name: cluster\n\s+members:\n\s+- componentName: raycluster/,
      (_m, indent: string) =>
        `podGroups:\n${indent}- name: head\n${indent}  members:\n${indent}    - componentName: ray-head\n${indent}- name: workers\n${indent}  members:\n${indent}    - componentName: worker`,
    );
    const r = compileKarta(definitionText(text), bundledObject("RayCluster"), { pods: bundledPods("RayCluster") });
    assert.ok(r.ok, JSON.stringify(r.issues));
    // The worker member's scale is per instance (worker group): the largest, gpu-workers' 4.
    assert.deepEqual(r.workload!.spec.podGroupTemplates!.map((t) => [t.name, t.schedulingPolicy.gang?.minCount]), [
      ["head", 1],
      ["workers", 4],
    ]);
    assert.deepEqual(r.podGroups.map((g) => g.spec.workloadRef?.templateName), ["head", "workers"]);
    assert.equal(r.podPatches.filter((p) => p.podGroupName === r.podGroups[1]!.metadata.name).length, 7);
    assert.deepEqual(emittedErrors(r), []);
  });
});

describe("KAI's e2e custom job in the newer format (conformance catalog)", () => {
  const customJob = {
    apiVersion: "e2e.example.com/v1",
    kind: "CustomJob",
    metadata: { name: "train-custom", namespace: "e2e", uid: "5d1c0b7a-3e2f-4a19-8c6d-7b0a9f8e1d2c" },
    spec: {
      coordinator: { replicas: 1, template: { spec: { containers: [{ name: "coordinator", image: "busybox" }] } } },
      worker: { replicas: 3, template: { spec: { containers: [{ name: "worker", image: "busybox" }] } } },
    },
  };
  const pod = (name: string, role: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "e2e", labels: { "e2e.example.com/role": role } }, spec: { containers: [] } });

  test("a composite of coordinator and worker subgroups", (t) => {
    const dir = conformanceDir("karta-catalog");
    if (!dir) return t.skip("conformance data absent");
    const def = definitionFile(path.join(dir, "KAI-e2e-customjob-karta-podGroup-v2-format.yaml"));
    const pods = [pod("train-custom-coordinator-0", "coordinator"), ...[0, 1, 2].map((i) => pod(`train-custom-worker-${i}`, "worker"))];
    const r = compileKarta(def, customJob, { pods });
    assert.ok(r.ok, JSON.stringify(r.issues));
    const [composite] = r.workload!.spec.compositePodGroupTemplates!;
    assert.equal(composite!.name, "customjob");
    assert.deepEqual(composite!.schedulingPolicy, { gang: { minGroupCount: 2 } });
    assert.deepEqual(composite!.podGroupTemplates!.map((p) => [p.name, p.schedulingPolicy.gang?.minCount]), [
      ["coordinator", 1],
      ["worker", 3],
    ]);
    assert.equal(r.podPatches.filter((p) => p.podGroupName.includes("-worker-")).length, 3);
    assert.deepEqual(emittedErrors(r), []);
    const zero = compileKarta(def, variant(customJob, (o) => void (o.spec.worker.replicas = 0)));
    assert.equal(zero.ok, true);
    assert.deepEqual(zero.issues.map((i) => [i.severity, i.path]), [["notice", `${GANG_SCHEDULING_PATH}.podGroup.subGroups[1]`]]);
  });
});

describe("a component and its child both subgroups: interpret and compile agree", () => {
  // A driver with pods of its own that owns the executors (Spark-like), both listed as subgroups.
  const def = definitionText(`
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: nested}
spec:
  structureDefinition:
    rootComponent:
      name: app
      kind: {group: example.com, version: v1, kind: App}
      statusDefinition: {phaseDefinition: {path: .status.phase}, statusMappings: {running: [{byPhase: Running}]}}
    childComponents:
    - name: driver
      ownerRef: app
      specDefinition: {podTemplateSpecPath: .spec.driver}
      scaleDefinition: {replicasPath: "1"}
      podSelector: {componentTypeSelector: {keyPath: .metadata.labels.role, value: driver}}
    - name: executor
      ownerRef: driver
      specDefinition: {podTemplateSpecPath: .spec.executor}
      scaleDefinition: {replicasPath: .spec.executors}
      podSelector: {componentTypeSelector: {keyPath: .metadata.labels.role, value: executor}}
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: app
        subGroups:
        - componentName: driver
        - componentName: executor
`);
  const object = { apiVersion: "example.com/v1", kind: "App", metadata: { name: "etl", namespace: "data", uid: "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9" }, spec: { driver: { spec: { containers: [] } }, executor: { spec: { containers: [] } }, executors: 3 } };
  const pod = (name: string, role: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "data", labels: { role } }, spec: { containers: [] } });
  const pods = [pod("etl-driver", "driver"), ...[0, 1, 2].map((i) => pod(`etl-exec-${i}`, "executor"))];

  test("each pod in the subgroup of its nearest listed component; the driver's subgroup counts its own pod only", () => {
    const r = compileInterpreter(def).interpret(object, { pods });
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error"), []);
    const g = r.groups[0]!;
    assert.deepEqual(
      g.subGroups!.map((s) => [s.name, s.minMember, s.pods]),
      [
        ["driver", 1, ["etl-driver"]],
        ["executor", 3, ["etl-exec-0", "etl-exec-1", "etl-exec-2"]],
      ],
    );
    const c = compileKarta(def, object, { pods });
    assert.ok(c.ok, JSON.stringify(c.issues));
    const [composite] = c.workload!.spec.compositePodGroupTemplates!;
    assert.deepEqual(composite!.podGroupTemplates!.map((p) => [p.name, p.schedulingPolicy.gang?.minCount]), [
      ["driver", 1],
      ["executor", 3],
    ]);
    // Same membership: the template of each pod's PodGroup is the subgroup interpret gives it.
    const template = new Map(c.podGroups.map((p) => [p.metadata.name, p.spec.workloadRef?.templateName]));
    const compiled = Object.fromEntries(c.podPatches.map((p) => [p.pod.name, template.get(p.podGroupName)]));
    const interpreted = Object.fromEntries(g.subGroups!.flatMap((s) => s.pods.map((p) => [p, s.name])));
    assert.deepEqual(compiled, interpreted);
  });

  test("a scale-less parent listed with one of its children: the parent's subgroup holds the other child's pods", () => {
    const lws = definitionText(
      readFileSync(path.join(compileFixtures, "..", "..", "..", "definitions", "leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet.yaml"), "utf8").replace(
            "        subGroups:\n          - componentName: leader\n          - componentName: worker\n",
            "        subGroups:\n          - componentName: group\n          - componentName: leader\n",
          )
        // The Workload API needs template names apart from the subgroups'.
        .replace("      podGroup:\n        name: group\n", "      podGroup:\n        name: replica\n"),
    );
    const r = compileInterpreter(lws).interpret(bundledObject("LeaderWorkerSet"), { pods: bundledPods("LeaderWorkerSet") });
    const g = r.groups.find((x) => x.name.endsWith("-replica-0"))!;
    assert.deepEqual(
      g.subGroups!.map((s) => [s.name, s.minMember, s.pods]),
      [
        ["group", 2, ["llama-70b-vllm-0-1", "llama-70b-vllm-0-2"]],
        ["leader", 1, ["llama-70b-vllm-0"]],
      ],
    );
    const c = compileKarta(lws, bundledObject("LeaderWorkerSet"), { pods: bundledPods("LeaderWorkerSet") });
    assert.ok(c.ok, JSON.stringify(c.issues));
    const template = new Map(c.podGroups.map((p) => [p.metadata.name, p.spec.workloadRef?.templateName]));
    const compiled = Object.fromEntries(c.podPatches.map((p) => [p.pod.name, template.get(p.podGroupName)]));
    const interpreted = Object.fromEntries(r.groups.flatMap((x) => x.subGroups!.flatMap((s) => s.pods.map((p) => [p, s.name]))));
    assert.deepEqual(compiled, interpreted);
  });
});

describe("every bundled definition compiles its fixture, and compile puts each pod where interpret does", () => {
  for (const c of fixtureCases()) {
    test(c.name, () => {
      const definition = loadBundled(c.expected.definition).definition;
      const r = compileKarta(definition, c.workload, { pods: c.pods });
      assert.ok(r.ok, JSON.stringify(errors(r.issues)));
      assert.deepEqual(emittedErrors(r), []);
      const interpreted = compileInterpreter(definition).interpret(c.workload, { pods: c.pods });
      const template = new Map(r.podGroups.map((p) => [p.metadata.name, p.spec.workloadRef?.templateName]));
      const parent = new Map(r.podGroups.map((p) => [p.metadata.name, p.spec.parentCompositePodGroupName]));
      const compiled = Object.fromEntries(r.podPatches.map((p) => [p.pod.name, template.get(p.podGroupName)]));
      // Interpret's answer: the subgroup of each pod (newer form), else its group's pod-group definition.
      // Pods at a system priority (a DaemonSet's at system-node-critical) can be in no Workload API group,
      // whose priority is at most 1000000000: compile leaves their groups out, where KAI groups them.
      const system = new Set(c.pods.filter((p) => String((p as { spec?: { priorityClassName?: unknown } }).spec?.priorityClassName ?? "").startsWith("system-")).map((p) => (p as { metadata: { name: string } }).metadata.name));
      const groups = interpreted.groups.filter((g) => !g.members.some((m) => system.has(m.pod)));
      const want = Object.fromEntries(
        groups.flatMap((g) => (g.subGroups ? g.subGroups.flatMap((s) => s.pods.map((p) => [p, s.name])) : g.members.map((m) => [m.pod, g.definition]))),
      );
      assert.deepEqual(compiled, want);
      if (system.size > 0) assert.ok(r.issues.some((i) => i.code === "priority-class" && /system priority class/.test(i.message)), "a notice says why");
      // Pods of one interpreted group share one parent CompositePodGroup (newer form) or one PodGroup (older).
      for (const g of groups) {
        const names = new Set(r.podPatches.filter((p) => g.members.some((m) => m.pod === p.pod.name)).map((p) => (g.subGroups ? parent.get(p.podGroupName) : p.podGroupName)));
        assert.equal(names.size, g.members.length > 0 ? 1 : 0, g.name);
      }
      // Each subgroup's minCount is interpret's minMember; each composite's minGroupCount its minSubGroup.
      for (const g of interpreted.groups.filter((x) => x.subGroups)) {
        const composite = parent.get(r.podPatches.find((p) => p.pod.name === g.members[0]?.pod)?.podGroupName ?? "");
        if (composite === undefined) continue;
        assert.equal(r.compositePodGroups.find((x) => x.metadata.name === composite)?.spec.schedulingPolicy.gang?.minGroupCount, g.minSubGroup, g.name);
        for (const s of g.subGroups!) {
          const pg: (typeof r.podGroups)[number] | undefined = r.podGroups.find((p) => p.spec.parentCompositePodGroupName === composite && p.spec.workloadRef?.templateName === s.name);
          assert.equal(pg?.spec.schedulingPolicy.gang?.minCount, s.minMember, `${g.name}/${s.name}`);
        }
      }
    });
  }
});
