/** KAI Scheduler's pod-grouper plugin table and its lookup (exact GVK, then version `*`), as hub.go picks a plugin. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { KAI_PLUGINS, groupVersionKindOf, hasKaiKartaLabels, kaiFallbackKartas, kaiGroupsNotice, kaiPluginExact, kaiPluginFor, kaiPluginNotice, kaiPluginSummary } from "../../src/scheduling/index.js";
import type { Karta } from "../../src/definition/index.js";

const gvk = (apiVersion: string, kind: string) => groupVersionKindOf(apiVersion, kind);
const plugin = (apiVersion: string, kind: string): string | undefined => kaiPluginFor(gvk(apiVersion, kind))?.plugin;

describe("KAI's plugin table", () => {
  test("one row per GVK; a skipped owner names no PodGroup, every other row does", () => {
    const keys = KAI_PLUGINS.map((e) => `${e.group}/${e.version}/${e.kind}`);
    assert.equal(new Set(keys).size, keys.length);
    // hub.go: 34 entries in the table literal, then Argo Workflow, five run.ai workloads, TrainJob and DGD.
    assert.equal(KAI_PLUGINS.length, 34 + 1 + 5 + 1 + 1);
    for (const e of KAI_PLUGINS) {
      if (e.skipTopOwner) assert.deepEqual([e.plugin, e.podGroupName], ["SkipTopOwnerGrouper", undefined], e.kind);
      else assert.ok(e.podGroupName?.startsWith("pg-"), e.kind);
    }
  });

  test("version * is registered only for run.ai's workload kinds and nvidia.com's DynamoGraphDeployment", () => {
    const wildcard = KAI_PLUGINS.filter((e) => e.version === "*").map((e) => `${e.group} ${e.kind}`);
    assert.deepEqual(wildcard, [
      "run.ai InferenceWorkload",
      "run.ai TrainingWorkload",
      "run.ai DistributedWorkload",
      "run.ai InteractiveWorkload",
      "run.ai DistributedInferenceWorkload",
      "nvidia.com DynamoGraphDeployment",
    ]);
  });
});

describe("kaiPluginFor: the exact GVK, then version *", () => {
  test("native kinds at their registered versions", () => {
    assert.equal(plugin("kubeflow.org/v1", "PyTorchJob"), "PyTorchGrouper");
    assert.equal(plugin("batch/v1", "Job"), "K8sJobGrouper");
    assert.equal(plugin("batch/v1", "CronJob"), "CronJobGrouper");
    assert.equal(plugin("apps/v1", "Deployment"), "DeploymentGrouper");
    assert.equal(plugin("apps/v1", "StatefulSet"), "DefaultGrouper");
    assert.equal(plugin("v1", "Pod"), "PodJobGrouper");
    assert.equal(plugin("serving.knative.dev/v1", "Service"), "KnativeGrouper");
    assert.equal(plugin("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"), "LwsGrouper");
    assert.equal(plugin("jobset.x-k8s.io/v1alpha2", "JobSet"), "JobSetGrouper");
    assert.equal(plugin("grove.io/v1alpha1", "PodCliqueSet"), "GroveGrouper");
    // Both registered versions, each on its own (no wildcard).
    assert.equal(plugin("kubeflow.org/v1", "MPIJob"), "MpiGrouper");
    assert.equal(plugin("kubeflow.org/v2beta1", "MPIJob"), "MpiGrouper");
    assert.equal(plugin("ray.io/v1alpha1", "RayCluster"), "RayClusterGrouper");
    assert.equal(plugin("ray.io/v1", "RayJob"), "RayJobGrouper");
    assert.equal(plugin("machinelearning.seldon.io/v1alpha2", "SeldonDeployment"), "DefaultGrouper");
  });

  test("a version not registered, where the kind has no * entry, has no plugin", () => {
    assert.equal(plugin("kubeflow.org/v1alpha1", "MPIJob"), undefined);
    assert.equal(plugin("ray.io/v2", "RayCluster"), undefined);
    assert.equal(plugin("jobset.x-k8s.io/v1", "JobSet"), undefined);
    assert.equal(plugin("kubeflow.org/v2", "PyTorchJob"), undefined);
    // Notebook is registered for v1beta1 only: the v1 Notebook (Kubeflow 1.7+) goes to the Karta fallback.
    assert.equal(plugin("kubeflow.org/v1beta1", "Notebook"), "NotebookGrouper");
    assert.equal(plugin("kubeflow.org/v1", "Notebook"), undefined);
    // RunaiJob is registered for v1 only, unlike run.ai's workload kinds.
    assert.equal(plugin("run.ai/v1", "RunaiJob"), "RunaiJobGrouper");
    assert.equal(plugin("run.ai/v2", "RunaiJob"), undefined);
  });

  test("the * entries match any version: DynamoGraphDeployment and run.ai's workloads are skipped owners", () => {
    for (const version of ["v1alpha1", "v1beta1", "v1", "v2"]) {
      const e = kaiPluginFor(gvk(`nvidia.com/${version}`, "DynamoGraphDeployment"));
      assert.deepEqual([e?.plugin, e?.version, e?.skipTopOwner], ["SkipTopOwnerGrouper", "*", true], version);
    }
    assert.equal(kaiPluginFor(gvk("run.ai/v2alpha1", "TrainingWorkload"))?.skipTopOwner, true);
    // The wildcard is per group and kind.
    assert.equal(plugin("dynamo.nvidia.com/v1alpha1", "DynamoGraphDeployment"), undefined);
    assert.equal(plugin("run.ai/v1", "TrainJob"), undefined);
  });

  test("exact SkipTopOwner entries: TrainJob and Argo Workflow at their one version", () => {
    assert.equal(kaiPluginFor(gvk("trainer.kubeflow.org/v1alpha1", "TrainJob"))?.skipTopOwner, true);
    assert.equal(kaiPluginFor(gvk("trainer.kubeflow.org/v1alpha1", "TrainJob"))?.below, "a JobSet: JobSetGrouper");
    assert.equal(kaiPluginFor(gvk("trainer.kubeflow.org/v1", "TrainJob")), undefined);
    assert.equal(kaiPluginFor(gvk("argoproj.io/v1alpha1", "Workflow"))?.plugin, "SkipTopOwnerGrouper");
  });

  test("kinds with no native plugin (the Karta fallback, else the DefaultGrouper)", () => {
    // The same kind in another group is another kind.
    assert.equal(plugin("batch.volcano.sh/v1alpha1", "Job"), undefined);
    assert.equal(plugin("apps.kruise.io/v1beta1", "StatefulSet"), undefined);
    assert.equal(plugin("apps/v1", "DaemonSet"), undefined);
    assert.equal(plugin("serving.kserve.io/v1beta1", "InferenceService"), undefined);
    assert.equal(plugin("milvus.io/v1beta1", "Milvus"), undefined);
    assert.equal(plugin("sparkoperator.k8s.io/v1beta2", "SparkApplication"), undefined);
    assert.equal(plugin("example.com/v1", "TeamJob"), undefined);
    // Case matters, as in Go's map keys.
    assert.equal(plugin("kubeflow.org/v1", "pytorchjob"), undefined);
  });

  test("kaiPluginExact is the exact lookup alone (the SkipTopOwner grouper's for the owner below)", () => {
    assert.equal(kaiPluginExact(gvk("jobset.x-k8s.io/v1alpha2", "JobSet"))?.plugin, "JobSetGrouper");
    assert.equal(kaiPluginExact(gvk("nvidia.com/v1beta1", "DynamoGraphDeployment")), undefined);
    assert.equal(kaiPluginExact({ group: "nvidia.com", version: "*", kind: "DynamoGraphDeployment" })?.plugin, "SkipTopOwnerGrouper");
  });

  test("groupVersionKindOf reads v1 as the core group", () => {
    assert.deepEqual(gvk("v1", "Pod"), { group: "", version: "v1", kind: "Pod" });
    assert.deepEqual(gvk("kubeflow.org/v1", "PyTorchJob"), { group: "kubeflow.org", version: "v1", kind: "PyTorchJob" });
  });
});

describe("kaiPluginSummary and kaiPluginNotice", () => {
  const milvus = gvk("milvus.io/v1beta1", "Milvus");
  const labels = { "run.ai/karta-group": "milvus.io", "run.ai/karta-version": "v1beta1", "run.ai/karta-kind": "Milvus" };

  test("a native kind: its plugin, the entry's version and its PodGroup names; the notice says the groups are not KAI's", () => {
    const pytorch = gvk("kubeflow.org/v1", "PyTorchJob");
    const s = kaiPluginSummary(pytorch, undefined);
    assert.deepEqual(s, { name: "PyTorchGrouper", native: true, version: "v1", podGroupName: "pg-<name>-<uid>" });
    assert.deepEqual(kaiPluginNotice(s, pytorch, { gang: true, shown: true }), [
      "KAI Scheduler groups PyTorchJob kubeflow.org/v1 with its own PyTorchGrouper (PodGroups named pg-<name>-<uid>, with that plugin's subgroups and minMember);",
      "below is what KAI's Karta grouper would build for a kind without a plugin",
    ]);
    // Nothing shown (no gang instructions): the first part alone, without its semicolon.
    assert.deepEqual(kaiPluginNotice(s, pytorch, { gang: false, shown: false }), [
      "KAI Scheduler groups PyTorchJob kubeflow.org/v1 with its own PyTorchGrouper (PodGroups named pg-<name>-<uid>, with that plugin's subgroups and minMember)",
    ]);
  });

  test("a skipped owner: the owner below decides", () => {
    const dgd = gvk("nvidia.com/v1beta1", "DynamoGraphDeployment");
    const s = kaiPluginSummary(dgd, undefined);
    assert.deepEqual(s, { name: "SkipTopOwnerGrouper", native: true, version: "*", skipTopOwner: true, below: "with Grove, a PodCliqueSet: GroveGrouper" });
    assert.match(kaiPluginNotice(s, dgd, { gang: true, shown: true })[0]!, /^KAI Scheduler skips DynamoGraphDeployment nvidia\.com\/v1beta1 \(SkipTopOwnerGrouper\) and groups its pods with the plugin of the owner below it \(with Grove, a PodCliqueSet: GroveGrouper\);$/);
    const runai = gvk("run.ai/v2", "TrainingWorkload");
    assert.deepEqual(kaiPluginNotice(kaiPluginSummary(runai, undefined), runai, { gang: true, shown: false }), ["KAI Scheduler skips TrainingWorkload run.ai/v2 (SkipTopOwnerGrouper) and groups its pods with the plugin of the owner below it"]);
  });

  test("a kind without a plugin: KAI's Karta grouper, found by the run.ai/karta-* labels", () => {
    assert.ok(hasKaiKartaLabels(labels, milvus));
    assert.ok(!hasKaiKartaLabels(undefined, milvus));
    assert.ok(!hasKaiKartaLabels({ ...labels, "run.ai/karta-version": "v1" }, milvus));
    // The core group's label is the empty string.
    assert.ok(hasKaiKartaLabels({ "run.ai/karta-group": "", "run.ai/karta-version": "v1", "run.ai/karta-kind": "Pod" }, gvk("v1", "Pod")));
    const labelled = kaiPluginSummary(milvus, labels);
    assert.deepEqual(labelled, { name: "KartaGrouper", native: false, kartaLabels: true });
    assert.deepEqual(kaiPluginNotice(labelled, milvus, { gang: true, shown: true }), []);
    const bare = kaiPluginSummary(milvus, {});
    assert.deepEqual(bare, { name: "KartaGrouper", native: false, kartaLabels: false });
    assert.deepEqual(kaiPluginNotice(bare, milvus, { gang: true, shown: true }), [
      "KAI Scheduler's Karta fallback finds a Karta stored in the cluster by its labels run.ai/karta-group=milvus.io, run.ai/karta-version=v1beta1, run.ai/karta-kind=Milvus",
      "(the Karta controller adds them when it admits a Karta); this definition does not carry them: stored as it is, KAI would group the pods with its DefaultGrouper (pg-<name>-<uid>, minMember 1)",
    ]);
    // Without gang instructions KAI's fallback passes the Karta over whatever its labels.
    assert.deepEqual(kaiPluginNotice(bare, milvus, { gang: false, shown: false }), []);
  });
});

describe("an object with an owner: KAI picks the plugin by the pods' top owner", () => {
  const karta = { apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: "rs" }, spec: { structureDefinition: {}, optimizationInstructions: { gangScheduling: { podGroups: [{}] } } } } as unknown as Karta;
  const interpretation = (apiVersion: string, kind: string) => ({ root: { apiVersion, kind }, groups: [], gangPlan: [{}] }) as never;
  test("the first ownerReference's plugin, with its name; the summary says who owns it", () => {
    const rs = { metadata: { ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "web", controller: true }] } };
    const r = kaiGroupsNotice(interpretation("apps/v1", "ReplicaSet"), karta, rs);
    assert.deepEqual(r.notice, [
      "KAI Scheduler picks its plugin by the pods' top owner, and this ReplicaSet apps/v1 is owned by Deployment apps/v1 web:",
      "if that is the top owner, its DeploymentGrouper groups the pods; the groups below are this Karta's, which KAI builds only for a top owner of a kind without a plugin",
    ]);
    assert.deepEqual(r.summary.ownedBy, { apiVersion: "apps/v1", kind: "Deployment", name: "web" });
    // A Job of a JobSet: the JobSet's plugin.
    const job = { metadata: { ownerReferences: [{ apiVersion: "jobset.x-k8s.io/v1alpha2", kind: "JobSet", name: "js" }] } };
    assert.match(kaiGroupsNotice(interpretation("batch/v1", "Job"), karta, job).notice[1]!, /^if that is the top owner, its JobSetGrouper groups the pods;/);
    // An owner of a kind without a plugin: a Karta stored for it, else the DefaultGrouper.
    const owned = { metadata: { ownerReferences: [{ apiVersion: "example.com/v1", kind: "Thing", name: "t" }] } };
    assert.match(kaiGroupsNotice(interpretation("apps/v1", "StatefulSet"), karta, owned).notice[1]!, /^if that is the top owner, a Karta stored for it \(else KAI's DefaultGrouper\) groups the pods;/);
  });
  test("a skipped owner (TrainJob) hands the pods to this object's own plugin, by its exact GVK (a JobSet: JobSetGrouper; a kind without one: the DefaultGrouper, never a Karta)", () => {
    const trained = { metadata: { ownerReferences: [{ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name: "tj" }] } };
    assert.equal(
      kaiGroupsNotice(interpretation("jobset.x-k8s.io/v1alpha2", "JobSet"), karta, trained).notice[1],
      "if that is the top owner, KAI skips it (SkipTopOwnerGrouper) and groups the pods by this JobSet with its JobSetGrouper; the groups below are this Karta's, which KAI builds only for a top owner of a kind without a plugin",
    );
    assert.match(kaiGroupsNotice(interpretation("example.com/v1", "Thing"), karta, trained).notice[1]!, /^if that is the top owner, KAI skips it \(SkipTopOwnerGrouper\) and groups the pods by this Thing with its DefaultGrouper \(minMember 1: a skipped owner's next one is never grouped with a Karta\);/);
  });
  test("no owner: the kind's own notice; an owner with nothing to group: the owner's notice alone", () => {
    assert.match(kaiGroupsNotice(interpretation("apps/v1", "ReplicaSet"), karta, { metadata: {} }).notice[0]!, /^KAI Scheduler groups ReplicaSet apps\/v1 with its own DefaultGrouper \(PodGroups named pg-<name>-<uid>, minMember 1 and no subgroups: no gang\);$/);
    const none = { root: { apiVersion: "batch/v1", kind: "Job" }, groups: [], gangPlan: [] } as never;
    const job = kaiGroupsNotice(none, karta, { metadata: { ownerReferences: [{ apiVersion: "batch/v1", kind: "CronJob", name: "nightly" }] } });
    assert.deepEqual(job.summary.ownedBy, { apiVersion: "batch/v1", kind: "CronJob", name: "nightly" });
    assert.deepEqual(job.notice, ["KAI Scheduler picks its plugin by the pods' top owner, and this Job batch/v1 is owned by CronJob batch/v1 nightly:", "if that is the top owner, its CronJobGrouper groups the pods"]);
  });
});

describe("read from a cluster: KAI's Karta fallback reads the Kartas stored there", () => {
  const labels = { "run.ai/karta-group": "milvus.io", "run.ai/karta-version": "v1beta1", "run.ai/karta-kind": "Milvus" };
  const karta = { apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: "m", labels }, spec: { structureDefinition: {}, optimizationInstructions: { gangScheduling: { podGroups: [{}] } } } } as unknown as Karta;
  const shown = { root: { apiVersion: "milvus.io/v1beta1", kind: "Milvus" }, groups: [{}], gangPlan: [] } as never;
  test("none stored for a kind without a plugin: the DefaultGrouper, said so", () => {
    const r = kaiGroupsNotice(shown, karta, {}, { storedKartas: [] });
    assert.deepEqual(r.summary, { name: "KartaGrouper", native: false, kartaLabels: true, storedInCluster: false });
    assert.deepEqual(r.notice, [
      "no Karta for Milvus milvus.io/v1beta1 with gang instructions and the run.ai/karta-group/-version/-kind labels is stored in this cluster: KAI Scheduler's Karta fallback finds none and groups the pods",
      "with its DefaultGrouper (pg-<name>-<uid>, minMember 1: no gang); below is what it would build from this definition once stored",
    ]);
  });
  test("several stored: KAI's fallback takes none of them (its error), said so with their names", () => {
    const r = kaiGroupsNotice(shown, karta, {}, { storedKartas: ["m", "m2"] });
    assert.deepEqual(r.summary, { name: "KartaGrouper", native: false, kartaLabels: true, storedInCluster: false, storedKartas: ["m", "m2"] });
    assert.deepEqual(r.notice, [
      `2 Kartas for Milvus milvus.io/v1beta1 with gang instructions are stored in this cluster (m, m2): KAI Scheduler's Karta fallback takes none of them ("found multiple Kartas with gang scheduling instructions") and groups the pods`,
      "with its DefaultGrouper (pg-<name>-<uid>, minMember 1: no gang); below is what it would build from this definition stored alone",
    ]);
  });
  test("one stored: no notice; a native kind: the plugin's notice, whatever is stored; offline: nothing said about the cluster", () => {
    assert.deepEqual(kaiGroupsNotice(shown, karta, {}, { storedKartas: ["m"] }).notice, []);
    assert.deepEqual(kaiGroupsNotice(shown, karta, {}, { storedKartas: ["m"] }).summary, { name: "KartaGrouper", native: false, kartaLabels: true, storedInCluster: true });
    assert.equal(kaiGroupsNotice(shown, karta, {}).summary.native === false && "storedInCluster" in kaiGroupsNotice(shown, karta, {}).summary, false);
    const job = { root: { apiVersion: "batch/v1", kind: "Job" }, groups: [{}], gangPlan: [] } as never;
    assert.match(kaiGroupsNotice(job, karta, {}, { storedKartas: [] }).notice[0]!, /^KAI Scheduler groups Job batch\/v1 with its own K8sJobGrouper/);
  });
  test("the stored Kartas KAI's fallback takes: labelled for the kind, its root kind (version too), not being deleted, not empty, with gang instructions; Ready or not", () => {
    const gvk = { group: "milvus.io", version: "v1beta1", kind: "Milvus" };
    const stored = (name: string, change: (k: any) => void = () => {}) => {
      const k: any = {
        metadata: { name, labels: { ...labels } },
        spec: { structureDefinition: { rootComponent: { name: "milvus", kind: { ...gvk } } }, optimizationInstructions: { gangScheduling: { podGroups: [{}] } } },
        status: { conditions: [{ type: "Ready", status: "False" }] },
      };
      change(k);
      return k;
    };
    const items = [
      stored("taken"),
      stored("unlabelled", (k) => delete k.metadata.labels),
      stored("other-version-label", (k) => (k.metadata.labels["run.ai/karta-version"] = "v1")),
      stored("other-root-version", (k) => (k.spec.structureDefinition.rootComponent.kind.version = "v1")),
      stored("deleting", (k) => (k.metadata.deletionTimestamp = "2026-12-07T00:00:00Z")),
      stored("empty", (k) => (k.spec.structureDefinition.rootComponent.name = "")),
      stored("no-gang", (k) => delete k.spec.optimizationInstructions),
      stored("podgroup", (k) => (k.spec.optimizationInstructions.gangScheduling = { podGroup: {} })),
      stored("children-only", (k) => {
        k.spec.structureDefinition.rootComponent.name = "";
        k.spec.structureDefinition.childComponents = [{ name: "w" }];
      }),
    ];
    assert.deepEqual(kaiFallbackKartas(items, gvk), ["taken", "podgroup", "children-only"]);
    assert.deepEqual(kaiFallbackKartas([null, 3, {}, { spec: "x" }], gvk), []);
  });
});
