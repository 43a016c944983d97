/**
 * `karta controller`'s workload reconciliation against a real kube-apiserver, as the service account bound
 * to the ClusterRole `karta rbac` generates: a PyTorchJob and its pods, created as the training operator
 * creates them, get the Workload and PodGroups `karta compile` gives for the same objects; scaling updates
 * them; its pods changing one after another requeue it about once a second, and not at all when they
 * change only what the pod cache does not keep, nor does its operator writing its status or a scheduler
 * its groups'; deleting the Karta stops its watch. A JobSet's Job writing its status requeues nothing either.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { setTimeout as sleep } from "node:timers/promises";
import { PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import { KartaReconciler } from "../../src/controller/kartas.js";
import { POD_RECONCILE_EVERY_MS, UNGROUPED_REASON, WorkloadReconciler } from "../../src/controller/workloads.js";
import { coversFields, podFieldsOf } from "../../src/controller/pod-cache.js";
import { controllerRbac } from "../../src/controller/rbac.js";
import { silentLogger } from "../../src/controller/log.js";
import type { Karta } from "../../src/definition/index.js";
import { compileKarta } from "../../src/scheduling/index.js";
import { definitionsDir, fixtureCases, loadBundled } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { asServiceAccount, attempt, eventually, testCluster, testNamespace, type TestCluster, kubeClient } from "../support/cluster.js";
import { installKartaCrd, withoutNulls } from "./helpers.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;
const suffix = Math.random().toString(36).slice(2, 8);

type Obj = KubernetesObject & Record<string, any>;

/** How often a PodsWithoutGroup Event may say more pods, here (10 minutes by default). */
const UNGROUPED_WINDOW_MS = 8000;

function strip(o: Record<string, unknown>): Obj {
  const c = structuredClone(o) as Obj;
  for (const k of ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"]) delete (c.metadata as Record<string, unknown>)[k];
  delete c.status;
  return c;
}

/** gang minCount per group, as `karta compile` gives it. */
function gangSizes(groups: { metadata: { name?: string }; spec: { schedulingPolicy?: { gang?: { minCount?: number } } } }[]): Record<string, number | undefined> {
  return Object.fromEntries(groups.map((g) => [g.metadata.name!, g.spec.schedulingPolicy?.gang?.minCount]));
}

/**
 * A Karta's CRD and the Karta (named `kartaName`) installed, a namespace for the test, and a Karta and a
 * workload reconciler running as the role `karta rbac` generates for it, once the Karta's kind is watched.
 */
async function watching(c: TestCluster, o: { crd: string; karta: string; kartaName: string; namespace: string }): Promise<{ ns: string; kartas: KartaReconciler; workloads: WorkloadReconciler }> {
  await installKartaCrd(c);
  const crd = parse(readFileSync(path.join(repoRoot, "test", "fixtures", "definition", "crds", o.crd), "utf8")) as KubernetesObject;
  const r = await attempt(() => c.objects.create(crd));
  assert.ok(r.ok || r.reason === "AlreadyExists", r.ok ? "" : r.message);
  const ns = await testNamespace({ name: o.namespace } as never, c);
  const karta = parse(readFileSync(path.join(definitionsDir, o.karta), "utf8")) as Obj;
  karta.metadata = { name: o.kartaName };
  const { kc } = await asServiceAccount(c, ns, controllerRbac([karta as unknown as Karta], { namespace: ns }));
  const client = kubeClient(kc);
  const kartas = new KartaReconciler(client, silentLogger);
  const workloads = new WorkloadReconciler(client, kartas, silentLogger, { ungroupedReportEveryMs: UNGROUPED_WINDOW_MS });
  await kartas.start();
  await workloads.start();
  await c.objects.create(karta);
  await eventually(async () => (workloads.watchedKartas().includes(o.kartaName) ? true : undefined), 30_000, `the watch of ${o.karta}`);
  return { ns, kartas, workloads };
}

async function stopWatching(c: TestCluster, kartaName: string, kartas: KartaReconciler | undefined, workloads: WorkloadReconciler | undefined): Promise<void> {
  await workloads?.stop();
  await kartas?.stop();
  await attempt(() => c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: kartaName } }));
}

/**
 * Writes `n` updates one at a time, each seen by the controller's watches before the next (its last
 * watch event later than before the write, or `seen` of what the write returned): the reconciles they queued.
 */
async function queuedBy(workloads: WorkloadReconciler, n: number, write: (i: number) => Promise<unknown>, seen?: (written: unknown) => boolean): Promise<number> {
  await settled(workloads); // the last test's requeues have run, those it left for later too
  const before = workloads.counters.reconciles;
  for (let i = 0; i < n; i++) {
    const since = workloads.lastEventAt;
    await sleep(5); // an event after the write is stamped later than `since`
    const written = await write(i);
    await eventually(async () => ((seen ? seen(written) : workloads.lastEventAt > since) ? true : undefined), 30_000, `update ${i + 1} of ${n}`);
  }
  await sleep(POD_RECONCILE_EVERY_MS + 500); // a pod's requeue waits up to a second after the last compile
  await settled(workloads);
  return workloads.counters.reconciles - before;
}

/**
 * Until nothing is queued, reconciling or waiting for a delayed requeue: a pod's (up to a second after its
 * root's last compile), or the end of a PodsWithoutGroup report window (the suite's pods name no group,
 * so more of them found within a window requeue their job when it ends, seconds later).
 */
async function settled(workloads: WorkloadReconciler): Promise<void> {
  await eventually(async () => {
    const m = workloads.queue.metrics();
    return m.depth + m.processing + m.waiting === 0 ? true : undefined;
  }, 30_000, "the work queue idle, with no requeue waiting");
}

/** Sets the label karta-test/kept of `o` to `value`. */
function labelled(c: TestCluster, ns: string, o: Obj, value: string): Promise<unknown> {
  return c.objects.patch({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata!.name, namespace: ns, labels: { "karta-test/kept": value } } } as never, undefined, undefined, "tick", undefined, PatchStrategy.MergePatch);
}

describe("karta controller: Workload API objects for live workloads, as the role karta rbac generates", { skip }, () => {
  const c = cluster as TestCluster;
  const kartaName = `pytorchjob-workloads-${suffix}`;
  let kartas: KartaReconciler;
  let workloads: WorkloadReconciler;
  let ns: string;
  const fixture = fixtureCases().find((x) => x.name === "PyTorchJob")!;
  const { definition } = loadBundled(fixture.expected.definition);

  before(async () => {
    ({ ns, kartas, workloads } = await watching(c, { crd: "kubeflow.org_pytorchjobs.yaml", karta: "kubeflow.org/v1/PyTorchJob.yaml", kartaName, namespace: "controller-workloads" }));
  });
  after(() => stopWatching(c, kartaName, kartas, workloads));

  let job: Obj;
  let pods: Obj[];

  test("a PyTorchJob and its pods get the Workload and PodGroups karta compile gives", async () => {
    const created = await c.objects.create({ ...strip(fixture.workload), metadata: { ...strip(fixture.workload).metadata, namespace: ns } } as Obj);
    job = created as Obj;
    pods = [];
    for (const p of fixture.pods) {
      const pod = strip(p);
      pod.metadata!.namespace = ns;
      pod.metadata!.ownerReferences = [{ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: job.metadata!.name!, uid: job.metadata!.uid!, controller: true, blockOwnerDeletion: true }];
      pods.push((await c.objects.create(pod)) as Obj);
    }
    const expected = compileKarta(definition, job, { pods });
    assert.ok(expected.ok, JSON.stringify(expected.issues));
    const wlName = expected.workload!.metadata.name!;
    const wl = await eventually(async () => {
      const got = await attempt(() => c.objects.read({ apiVersion: "scheduling.k8s.io/v1beta1", kind: "Workload", metadata: { name: wlName, namespace: ns } }));
      return got.ok ? (got.object as Obj) : undefined;
    }, 30_000, `Workload ${wlName}`);
    assert.deepEqual(withoutNulls(wl.spec), expected.workload!.spec);
    assert.equal(wl.metadata!.ownerReferences?.[0]?.uid, job.metadata!.uid);
    assert.ok(wl.metadata!.managedFields?.some((m: { manager?: string; operation?: string }) => m.manager === "karta" && m.operation === "Apply"), "applied by field manager karta");
    const groups = await eventually(async () => {
      const list = await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", ns);
      return list.items.length === expected.podGroups.length ? (list.items as Obj[]) : undefined;
    }, 30_000, "the PodGroups");
    assert.deepEqual(gangSizes(groups as never), gangSizes(expected.podGroups));
  });

  test("scaling the job updates the groups' gang sizes", async () => {
    const current = (await c.objects.read(job as never)) as Obj;
    current.spec.runPolicy = { ...(current.spec.runPolicy ?? {}), schedulingPolicy: { ...(current.spec.runPolicy?.schedulingPolicy ?? {}), minAvailable: 5 } };
    current.spec.pytorchReplicaSpecs.Worker.replicas = 6;
    const updated = (await c.objects.replace(current)) as Obj;
    const expected = compileKarta(definition, updated, { pods });
    assert.ok(expected.ok, JSON.stringify(expected.issues));
    const want = gangSizes(expected.podGroups);
    assert.notDeepEqual(want, gangSizes(compileKarta(definition, job, { pods }).podGroups), "the scale change must change the gang size");
    await eventually(async () => {
      const list = await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", ns);
      return JSON.stringify(gangSizes(list.items as never)) === JSON.stringify(want) ? true : undefined;
    }, 30_000, `PodGroups with gang sizes ${JSON.stringify(want)}`);
  });

  test("a job's pods changing one after another requeue it about once a second, not once per change", async () => {
    const before = workloads.counters.reconciles;
    const started = performance.now();
    for (let i = 0; i < 20; i++) {
      const p = pods[i % pods.length]!;
      await c.objects.patch({ apiVersion: "v1", kind: "Pod", metadata: { name: p.metadata!.name, namespace: ns, labels: { "karta-test/tick": String(i) } } } as never, undefined, undefined, "tick", undefined, PatchStrategy.MergePatch);
      await sleep(100);
    }
    // The changes' last requeue comes at most a second after the one before.
    await sleep(POD_RECONCILE_EVERY_MS + 500);
    const seconds = (performance.now() - started) / 1000;
    const reconciles = workloads.counters.reconciles - before;
    assert.ok(reconciles >= 1, "the pods' changes requeue their job");
    // Once per 100 ms coalescing window, 20 changes 100 ms apart would be about 20 reconciles.
    assert.ok(reconciles <= Math.ceil((seconds * 1000) / POD_RECONCILE_EVERY_MS) + 1, `${reconciles} reconciles in ${seconds.toFixed(1)} s`);
  });

  const reconcilesOf = (n: number, write: (i: number) => Promise<unknown>, seen?: (written: unknown) => boolean) => queuedBy(workloads, n, write, seen);
  const label = (o: Obj, value: string) => labelled(c, ns, o, value);

  test("a pod's update that changes only fields the cache does not keep (a condition no Karta reads) requeues nothing; a label does", async () => {
    const karta = parse(readFileSync(path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml"), "utf8")) as Karta;
    assert.ok(!coversFields(podFieldsOf([karta]), new Set(["status.conditions"])), "the PyTorchJob Karta must not read a pod's conditions");
    const p = { apiVersion: "v1", kind: "Pod", ...pods[0]! } as Obj;
    const conditions = async (i: number) => {
      const current = await c.core.readNamespacedPodStatus({ name: p.metadata!.name!, namespace: ns });
      await c.core.replaceNamespacedPodStatus({ name: p.metadata!.name!, namespace: ns, body: { ...current, status: { ...current.status, conditions: [{ type: "karta-test/Probe", status: i % 2 === 0 ? "True" : "False" }] } } as never });
    };
    assert.equal(await reconcilesOf(5, conditions), 0, "no reconcile for updates that change nothing it reads");
    assert.ok((await reconcilesOf(1, () => label(p, "pod"))) >= 1, "a label change requeues the job");
  });

  test("the job's operator writing its status requeues nothing (the PyTorchJob Karta's compile reads no status); a label does", async () => {
    const admin = kubeClient(c.kc);
    try {
      const at = `/apis/kubeflow.org/v1/namespaces/${ns}/pytorchjobs/${job.metadata!.name}/status`;
      const progress = async (i: number) => {
        const current = (await admin.get(at)) as Obj;
        await admin.replace(at, { ...current, status: { conditions: [{ type: "Created", status: "True", reason: "PyTorchJobCreated", message: `update ${i}` }], replicaStatuses: { Worker: { active: i } } } });
      };
      assert.equal(await reconcilesOf(5, progress), 0, "no reconcile for a new status");
      assert.ok((await reconcilesOf(1, () => label(job, "job"))) >= 1, "a label change requeues the job");
    } finally {
      admin.close();
    }
  });

  test("a scheduler writing a PodGroup's status requeues nothing (it changes none of Karta's fields); a label does", async () => {
    const admin = kubeClient(c.kc);
    try {
      const groups = await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", ns);
      const group = { apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup", ...groups.items[0] } as Obj;
      assert.ok(group.metadata?.name, "a PodGroup of the job");
      const at = `/apis/scheduling.k8s.io/v1beta1/namespaces/${ns}/podgroups/${group.metadata!.name}/status`;
      const scheduled = async (i: number) => {
        const current = (await admin.get(at)) as Obj;
        const condition = { type: "PodGroupScheduled", status: i % 2 === 0 ? "False" : "True", reason: i % 2 === 0 ? "Unschedulable" : "Scheduled", message: `update ${i}`, lastTransitionTime: new Date(Date.now() - 1000).toISOString().replace(/\.\d+Z$/, "Z") };
        return admin.replace<Obj>(at, { ...current, status: { ...current.status, conditions: [condition] } });
      };
      // The group watch is not the exporter's (no last-event stamp): the controller's group cache holds the write.
      const cache = (workloads as unknown as { groupWatch(kind: string): { informer: { get(name: string, namespace?: string): Obj | undefined } } }).groupWatch("PodGroup").informer;
      const cached = (written: unknown) => cache.get(group.metadata!.name!, ns)?.metadata?.resourceVersion === (written as Obj).metadata?.resourceVersion;
      // The first write adds its writer to managedFields (who wrote a group is read): that one may requeue.
      await reconcilesOf(1, scheduled, cached);
      assert.equal(await reconcilesOf(5, (i) => scheduled(i + 1), cached), 0, "no reconcile for a group's new status");
      assert.ok((await reconcilesOf(1, () => label(group, "group"), cached)) >= 1, "a label change requeues the job");
    } finally {
      admin.close();
    }
  });

  test("more pods without their group found within the report window are reported when it ends, with no other update", async () => {
    const events = async () => (await c.core.listNamespacedEvent({ namespace: ns })).items.filter((e) => e.reason === UNGROUPED_REASON && e.involvedObject.uid === job.metadata!.uid);
    // A worker as the operator creates it, not naming its group (as when the admission webhook is unreachable).
    const worker = pods.find((p) => p.metadata!.labels?.["training.kubeflow.org/replica-type"] === "worker")!;
    const ungrouped = (name: string): Obj => {
      const p = strip(worker);
      p.metadata!.name = name;
      delete p.spec.schedulingGroup;
      delete p.spec.nodeName;
      return p;
    };
    const names = ["karta-test-ungrouped-x", "karta-test-ungrouped-y"];
    try {
      await c.objects.create(ungrouped(names[0]!));
      const first = await eventually(async () => (await events()).find((e) => e.message?.includes(names[0]!)), 30_000, `an Event naming ${names[0]}`);
      const reported = Number(/^(\d+) pod\(s\)/.exec(first.message ?? "")?.[1]);
      assert.ok(reported >= 1, first.message);
      // Within the window: its reconcile records it and reports it when the window ends.
      await c.objects.create(ungrouped(names[1]!));
      const started = performance.now();
      const second = await eventually(async () => (await events()).find((e) => e.message?.startsWith(`${reported + 1} pod(s)`) && e.message.includes(names[1]!)), 30_000, `an Event naming ${reported + 1} pods`);
      assert.ok(second, "reported");
      assert.ok(performance.now() - started < UNGROUPED_WINDOW_MS + 5000, "when the window ended");
    } finally {
      for (const name of names) await attempt(() => c.core.deleteNamespacedPod({ name, namespace: ns, gracePeriodSeconds: 0 }));
    }
  });

  test("deleting the Karta stops its watch", async () => {
    await c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: kartaName } });
    await eventually(async () => (workloads.watchedKartas().includes(kartaName) ? undefined : true), 30_000, "the watch to stop");
  });
});

describe("karta controller: the objects between a workload and its pods", { skip }, () => {
  const c = cluster as TestCluster;
  const kartaName = `jobset-chain-${suffix}`;
  let kartas: KartaReconciler | undefined;
  let workloads: WorkloadReconciler;
  let ns: string;

  before(async () => {
    ({ ns, kartas, workloads } = await watching(c, { crd: "jobset.x-k8s.io_jobsets.yaml", karta: "jobset.x-k8s.io/v1alpha2/JobSet.yaml", kartaName, namespace: "controller-chain" }));
  });
  after(() => stopWatching(c, kartaName, kartas, workloads));

  test("a JobSet's Job writing its status (as the Job controller does at every pod change) requeues nothing; a label on the Job does", async () => {
    const fixture = fixtureCases().find((x) => x.name === "JobSet")!;
    const jobset = (await c.objects.create({ ...strip(fixture.workload), metadata: { ...strip(fixture.workload).metadata, namespace: ns } } as Obj)) as Obj;
    const ref = (o: Obj) => ({ apiVersion: o.apiVersion!, kind: o.kind!, name: o.metadata!.name!, uid: o.metadata!.uid!, controller: true, blockOwnerDeletion: true });
    // No controller-manager here: the test makes the JobSet's first Job and its pods, as the JobSet and Job controllers would.
    const jobName = (fixture.pods[0]!.metadata as Obj["metadata"])!.ownerReferences![0]!.name;
    const labels = { "karta-test/job": jobName };
    const job = (await c.objects.create({ apiVersion: "batch/v1", kind: "Job", metadata: { name: jobName, namespace: ns, ownerReferences: [ref(jobset)] }, spec: { template: { metadata: { labels }, spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } } } } as Obj)) as Obj;
    for (const p of fixture.pods.filter((x) => (x.metadata as Obj["metadata"])!.ownerReferences![0]!.name === jobName)) {
      const pod = strip(p);
      pod.metadata = { ...pod.metadata, namespace: ns, ownerReferences: [ref(job)] };
      await c.objects.create(pod);
    }
    await eventually(async () => ((await c.objects.list("scheduling.k8s.io/v1beta1", "Workload", ns)).items.length > 0 ? true : undefined), 30_000, "the JobSet's Workload");
    const admin = kubeClient(c.kc);
    try {
      const at = `/apis/batch/v1/namespaces/${ns}/jobs/${jobName}/status`;
      const counts = async (i: number) => {
        const current = (await admin.get(at)) as Obj;
        await admin.replace(at, { ...current, status: { ...current.status, active: 1 + (i % 2), ready: i % 2 } });
      };
      assert.equal(await queuedBy(workloads, 5, counts), 0, "no reconcile for a Job's new status");
      assert.ok((await queuedBy(workloads, 1, () => labelled(c, ns, job, "job"))) >= 1, "a label on the Job requeues the JobSet");
    } finally {
      admin.close();
    }
  });
});
