/**
 * kube-controller-manager v1.37.2 as the oracle of the Job integration (feature gate WorkloadWithJob): for
 * each Job of a table the Job controller makes a Workload and a PodGroup and creates the Job's pods in
 * that PodGroup; `karta compile job/NAME` against the same cluster makes the same objects, field by field,
 * and puts each pod in the same group (the differences are those docs/decisions.md explains). All the
 * while every bundled Karta is installed and `karta controller` runs: the Job controller's Jobs are left
 * to it, and the Jobs of a JobSet (which the Job controller does not gang) are the JobSet's.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { fixtureCases } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { clusterBinaries, controlPlane, eventually, testNamespace, type ControlPlane } from "../support/cluster.js";
import { withoutNulls } from "./helpers.js";
import {
  addNodes, allBound, applyBundledKartas, bundledKartas, installCrds, karta, make, startKartaController, waitWatching, type KartaController, type Obj,
} from "./gangs.js";

const skip = (await clusterBinaries()) ?? false;

type Loose = Record<string, any>;

/** The Jobs of the table: their spec (besides the pod template, which the table adds). */
const JOBS: { name: string; spec: Loose; template?: Loose }[] = [
  { name: "plain", spec: { parallelism: 2, completions: 2 } },
  { name: "more-completions", spec: { parallelism: 2, completions: 5 } },
  { name: "no-parallelism", spec: {} },
  { name: "indexed", spec: { parallelism: 3, completions: 3, completionMode: "Indexed" } },
  { name: "suspended", spec: { parallelism: 2, completions: 2, suspend: true } },
  { name: "gang-from-parallelism", spec: { parallelism: 3, completions: 3, scheduling: { schedulingPolicy: { gang: {} } } } },
  { name: "gang-min-count", spec: { parallelism: 4, completions: 4, scheduling: { schedulingPolicy: { gang: { minCount: 2 } } } } },
  { name: "basic", spec: { parallelism: 2, scheduling: { schedulingPolicy: { basic: {} } } } },
  { name: "topology-and-disruption", spec: { parallelism: 2, scheduling: { schedulingPolicy: { gang: {} }, schedulingConstraints: { topology: [{ key: "topology.kubernetes.io/zone" }] }, disruptionMode: { all: {} } } } },
  { name: "priority-class", spec: { parallelism: 2 }, template: { priorityClassName: "batch-high" } },
  // The longest name whose template name (`<job>-pgt-0`) is a DNS label.
  { name: "a-job-named-with-57-characters-the-most-its-template-cann", spec: { parallelism: 1 } },
];

/**
 * What the API server adds to a PodGroup on write (SetDefaults_PodGroup, and the Priority admission
 * plugin from the priority class), which `karta compile` leaves to it.
 */
function defaulted(spec: Loose, priority: number): Loose {
  return { disruptionMode: { single: {} }, preemptionPolicy: "PreemptLowerPriority", priority, ...spec };
}

describe("the Job controller (kube-controller-manager, WorkloadWithJob) and karta controller, every bundled Karta installed", { skip }, () => {
  let c: ControlPlane;
  let ns: string;
  let controller: KartaController;

  before(async () => {
    c = (await controlPlane({ scheduler: true, controllerManager: true, controllers: ["job-controller", "garbage-collector-controller", "podgroup-protection-controller"] })) as ControlPlane;
    ns = await testNamespace({ name: "job-oracle" } as never, c);
    await c.objects.create({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: "batch-high" }, value: 5000 } as Obj);
    await applyBundledKartas(c);
    const jobset = parse(readFileSync(path.join(repoRoot, "test", "fixtures", "definition", "crds", "jobset.x-k8s.io_jobsets.yaml"), "utf8")) as Obj;
    await installCrds(c, [jobset]);
    controller = await startKartaController(c, bundledKartas());
    await waitWatching(controller, ["batch-v1-job", "jobset-x-k8s-io-v1alpha2-jobset"]);
  });
  after(async () => {
    await controller?.stop();
    await c?.stop();
  });

  // The oracle: what the Job controller makes, and what `karta compile job/NAME` makes (as Karta runs beside it).
  for (const j of JOBS) {
    test(j.name, async () => {
      const job = {
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name: j.name, namespace: ns },
        // On no node (none has the label): they stay pending, leaving the nodes to the tests below.
        spec: { ...j.spec, template: { spec: { restartPolicy: "Never", nodeSelector: { "karta.test/case": "job-oracle" }, ...(j.template ?? {}), containers: [{ name: "c", image: "registry.invalid/c", resources: { requests: { cpu: "1" } } }] } } },
      } as Obj;
      const created = JSON.parse(JSON.stringify(await c.objects.create(job))) as Obj;
      const uid = created.metadata!.uid!;
      const owned = (o: Obj) => o.metadata?.ownerReferences?.some((r: { uid: string; controller?: boolean }) => r.uid === uid && r.controller);
      const [workload, podGroup] = await eventually(async () => {
        const w = ((await c.objects.list("scheduling.k8s.io/v1beta1", "Workload", ns)).items as Obj[]).find(owned);
        const g = ((await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", ns)).items as Obj[]).find(owned);
        return w && g ? ([JSON.parse(JSON.stringify(w)), JSON.parse(JSON.stringify(g))] as Obj[]) : undefined;
      }, 30_000, `the Job controller's Workload and PodGroup of Job ${j.name}`);

      const compiled = await karta(c, ["compile", `job/${j.name}`, "-n", ns, "-o", "json"]);
      assert.equal(compiled.code, 0, compiled.err);
      const [kw, kg] = (JSON.parse(compiled.out) as { items: Obj[] }).items;
      assert.equal(kw!.metadata!.name, workload!.metadata!.name);
      assert.deepEqual(kw!.metadata!.ownerReferences, workload!.metadata!.ownerReferences);
      assert.deepEqual(withoutNulls(workload!.spec), kw!.spec);
      assert.equal(kg!.metadata!.name, podGroup!.metadata!.name);
      // The Job controller also makes the Workload a (non-controller) owner of the PodGroup: its UID is
      // known only once the Workload exists.
      assert.deepEqual(podGroup!.metadata!.ownerReferences, [...kg!.metadata!.ownerReferences!, { apiVersion: "scheduling.k8s.io/v1beta1", kind: "Workload", name: workload!.metadata!.name, uid: workload!.metadata!.uid }]);
      assert.deepEqual(withoutNulls(podGroup!.spec), defaulted(kg!.spec, j.template?.priorityClassName ? 5000 : 0));

      if (j.spec.suspend) return;
      // The pods the Job controller creates are in its PodGroup, where `karta compile --pod-patches` puts them.
      const pods = await eventually(async () => {
        const list = ((await c.objects.list("v1", "Pod", ns)).items as Obj[]).filter((p) => p.metadata?.ownerReferences?.some((r: { uid: string }) => r.uid === uid));
        return list.length >= Math.min(j.spec.parallelism ?? 1, j.spec.completions ?? Infinity) ? list : undefined;
      }, 30_000, `the pods of Job ${j.name}`);
      const patches = await karta(c, ["compile", `job/${j.name}`, "-n", ns, "--pod-patches", "-o", "json"]);
      assert.equal(patches.code, 0, patches.err);
      const want = Object.fromEntries((JSON.parse(patches.out) as { pod: { name: string }; podGroupName: string }[]).map((p) => [p.pod.name, p.podGroupName]));
      assert.deepEqual(Object.fromEntries(pods.map((p) => [p.metadata!.name!, p.spec.schedulingGroup?.podGroupName])), want);
    });
  }

  test("Karta made and touched none of those Jobs' objects: the Job controller gangs them", async () => {
    const objects = [...(await c.objects.list("scheduling.k8s.io/v1beta1", "Workload", ns)).items, ...(await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", ns)).items] as Obj[];
    assert.equal(objects.length, JOBS.length * 2);
    assert.deepEqual(objects.filter((o) => (o.metadata!.managedFields ?? []).some((m) => m.manager === "karta")).map((o) => `${o.kind} ${o.metadata!.name}`), []);
  });

  test("a root Job is the Job controller's: one Workload and one PodGroup, its own, its pods in it and bound; Karta makes nothing", async (t) => {
    const ns = await testNamespace(t, c);
    const job = (await c.objects.create({
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "train", namespace: ns },
      spec: { parallelism: 3, completions: 3, scheduling: { schedulingPolicy: { gang: {} } }, template: { spec: { restartPolicy: "Never", nodeSelector: { "karta.test/case": ns }, containers: [{ name: "c", image: "registry.invalid/c", resources: { requests: { cpu: "1" } } }] } } },
    } as Obj)) as Obj;
    await addNodes(c, ns, 3);
    const pods = await eventually(async () => {
      const list = (await c.objects.list("v1", "Pod", ns)).items as Obj[];
      return list.length === 3 ? list : undefined;
    }, 30_000, "the Job's three pods");
    await allBound(c, ns, pods.map((p) => p.metadata!.name!));
    // A pause for anything Karta would do on the pods' events.
    await new Promise((r) => setTimeout(r, 2000));
    const workloads = (await c.objects.list("scheduling.k8s.io/v1beta1", "Workload", ns)).items as Obj[];
    const groups = (await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", ns)).items as Obj[];
    assert.equal(workloads.length, 1);
    assert.equal(groups.length, 1);
    for (const o of [...workloads, ...groups]) {
      assert.deepEqual((o.metadata!.managedFields ?? []).filter((m) => m.manager === "karta"), [], `${o.kind} ${o.metadata!.name} untouched by Karta`);
    }
    assert.ok(pods.every((p) => p.spec.schedulingGroup?.podGroupName === groups[0]!.metadata!.name));
    const events = (await c.core.listNamespacedEvent({ namespace: ns })).items.filter((e) => e.source?.component === "karta-controller" && e.involvedObject.uid === job.metadata!.uid);
    assert.deepEqual(events.map((e) => `${e.reason}: ${e.message}`), []);
  });

  test("a JobSet's Jobs are not the Job controller's (they have an owner): their pods, which it creates, are in the JobSet's gang", async (t) => {
    const ns = await testNamespace(t, c);
    const fx = fixtureCases().find((f) => f.name === "JobSet")!;
    const made = await make(c, { ...fx, pods: [] }, ns, ns);
    // Its Jobs as the JobSet controller makes them: the pods' labels and annotations in their templates,
    // one pod per completion index; the Job controller creates the pods.
    const byJob = new Map<string, Loose[]>();
    for (const p of fx.pods as Loose[]) {
      const owner = p.metadata.ownerReferences[0].name as string;
      byJob.set(owner, [...(byJob.get(owner) ?? []), p]);
    }
    const jobScoped = ["controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name", "batch.kubernetes.io/job-completion-index"];
    const meta = (m: Record<string, string> | undefined) => Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => !jobScoped.includes(k)));
    for (const [name, pods] of byJob) {
      await c.objects.create({
        apiVersion: "batch/v1",
        kind: "Job",
        metadata: { name, namespace: ns, ownerReferences: [{ apiVersion: made.root.apiVersion!, kind: made.root.kind!, name: made.root.metadata!.name!, uid: made.root.metadata!.uid!, controller: true, blockOwnerDeletion: true }] },
        spec: {
          parallelism: pods.length,
          completions: pods.length,
          completionMode: "Indexed",
          template: {
            metadata: { labels: meta(pods[0]!.metadata.labels), annotations: meta(pods[0]!.metadata.annotations) },
            spec: { restartPolicy: "Never", nodeSelector: { "karta.test/case": ns }, containers: [{ name: "c", image: "registry.invalid/c", resources: { requests: { cpu: "1" } } }] },
          },
        },
      } as Obj);
    }
    const expected = fx.pods.length;
    const pods = await eventually(async () => {
      const list = (await c.objects.list("v1", "Pod", ns)).items as Obj[];
      return list.length === expected ? list : undefined;
    }, 30_000, `the ${expected} pods of the JobSet's Jobs`);
    await addNodes(c, ns, expected);
    await allBound(c, ns, pods.map((p) => p.metadata!.name!));
    const workloads = (await c.objects.list("scheduling.k8s.io/v1beta1", "Workload", ns)).items as Obj[];
    assert.deepEqual(workloads.map((w) => w.spec.controllerRef.kind), ["JobSet"], "the JobSet's Workload alone");
    const composites = (await c.objects.list("scheduling.k8s.io/v1alpha3", "CompositePodGroup", ns)).items as Obj[];
    assert.equal(composites.length, 1);
    const groups = new Map(((await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", ns)).items as Obj[]).map((g) => [g.metadata!.name!, g]));
    for (const p of (await c.objects.list("v1", "Pod", ns)).items as Obj[]) {
      const group = groups.get(p.spec.schedulingGroup?.podGroupName);
      assert.equal(group?.spec.parentCompositePodGroupName, composites[0]!.metadata!.name, `pod ${p.metadata!.name} in a subgroup of the JobSet's gang`);
    }
  });
});
