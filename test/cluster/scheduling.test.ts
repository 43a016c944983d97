/**
 * Gangs under the real kube-scheduler v1.37.2, with every bundled Karta applied at once as a user applies
 * them, `karta controller` (as the role `karta rbac` prints, with its admission webhook) and
 * kube-controller-manager's garbage collector and podgroup-protection controller. Each workload is created
 * with its pods the way its operator makes them (labels, the real owner chain: Jobs for a JobSet,
 * StatefulSets for a LeaderWorkerSet, a JobSet for a TrainJob, Deployments and ReplicaSets for KServe...)
 * on fake Nodes of its own, one pod per node, and the test asserts what the scheduler binds: nothing of a
 * gang while it does not fit, all of it once it does; the elastic minimum; scale-up and scale-down; one
 * gang per LeaderWorkerSet group; composite trees; pods created before and after their groups; and that
 * deleting a workload removes its groups. `karta compile KIND/NAME` against the cluster agrees with what
 * the controller and the webhook did, and makes nothing for an object an outer owner governs.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { clone, definitionsDir, fixtureCases } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { attempt, controlPlane, eventually, forceDeletePods, testNamespace, type ControlPlane } from "../support/cluster.js";
import {
  addNodes, admitted, allBound, applyBundledKartas, boundPods, bundledKartas, gangs, groupOf, installCrds, karta, kindCrds, kubectl, make, makePods, noneBound, ownerRef,
  PRIORITY_CLASSES, pytorchJob, resourceRef, schedulablePod, startKartaController, waitWatching, workerPod, type KartaController, type Made, type Obj,
} from "./gangs.js";

const cp = await controlPlane({ scheduler: true, controllerManager: true, controllers: ["garbage-collector-controller", "podgroup-protection-controller"] });
const skip = typeof cp === "string" ? cp : false;

/**
 * The versions served where a kind has Kartas at several: the MPI operator's CRD serves kubeflow.org/v2beta1
 * MPIJob only (the training operator's v1 MPIJob is another install), and Dynamo's current operator
 * DynamoGraphDeployment v1beta1 (this cluster's CRDs have no conversion webhook to serve v1alpha1 beside it).
 */
const SERVED: Record<string, string[]> = { "kubeflow.org/MPIJob": ["v2beta1"], "nvidia.com/DynamoGraphDeployment": ["v1beta1"] };
/**
 * Fixtures left out: of a version the cluster does not serve as installed (see SERVED), and the bare Pod,
 * whose Karta the controller makes no groups from (a pod's group is named after its UID, which it has only
 * after the creation in which its spec.schedulingGroup must be set).
 */
const NOT_SERVED = new Set(["MPIJob-v1", "DynamoGraphDeployment-v1alpha1", "Pod"]);

describe("gangs under the real kube-scheduler, every bundled Karta applied", { skip, timeout: 900_000 }, () => {
  const c = cp as ControlPlane;
  const kartas = bundledKartas();
  /** `group/Kind` of every kind a bundled Karta describes. */
  const described = new Set(kartas.map((k) => `${k.spec.structureDefinition.rootComponent.kind.group}/${k.spec.structureDefinition.rootComponent.kind.kind}`));
  let controller: KartaController;
  let oneShot: { code: number; stderr: string };

  before(async () => {
    // As the README said before: CRD and definitions in one command, on a fresh cluster.
    oneShot = await kubectl(c, ["apply", "-f", path.join(repoRoot, "deploy", "crd", "run.ai_kartas.yaml"), "-f", path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml")]);
    await applyBundledKartas(c);
    await installCrds(c, kindCrds(kartas, SERVED));
    for (const name of PRIORITY_CLASSES) await c.objects.create({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name }, value: 1000 } as Obj);
    controller = await startKartaController(c, kartas);
    const served = kartas.filter((k) => {
      const root = k.spec.structureDefinition.rootComponent.kind;
      // The bare Pod's Karta is Ready, but the controller watches nothing for it (see NOT_SERVED).
      if (root.group === "" && root.kind === "Pod") return false;
      return SERVED[`${root.group}/${root.kind}`]?.includes(root.version) ?? true;
    });
    await waitWatching(controller, served.map((k) => k.metadata!.name!));
  });

  after(async () => {
    await controller?.stop();
    await c.stop();
  });

  test("the Karta CRD and a Karta in one kubectl apply fail on a fresh cluster; the README's sequence (CRD, wait, definitions) applied them all", async () => {
    assert.notEqual(oneShot.code, 0);
    // kubectl fails either way: its discovery has not seen the CRD yet ("no matches"), or has, while the
    // server does not yet serve the kind it just established (404 on the POST).
    assert.match(oneShot.stderr, /no matches for kind "Karta" in version "run\.ai\/v1alpha1"[\s\S]*ensure CRDs are installed first|the server could not find the requested resource \(post kartas\.run\.ai\)/);
    const list = await kubectl(c, ["get", "kartas", "-o", "name"]);
    assert.equal(list.stdout.trim().split("\n").length, kartas.length);
  });

  describe("every bundled definition with a gang binds all-or-nothing", { concurrency: 6 }, () => {
    for (const fx of fixtureCases()) {
      if (NOT_SERVED.has(fx.name)) continue;
      test(fx.name, async (t) => {
        const ns = await testNamespace(t, c);
        const label = ns;
        const made = await make(c, fx, ns, label);
        // Read back: the webhook's schedulingGroup is in the stored pods.
        made.pods = await Promise.all(made.pods.map(async (p) => JSON.parse(JSON.stringify(await c.objects.read(p as never))) as Obj));
        await admitted(c, made, ns);
        const all = made.pods.map((p) => p.metadata!.name!);
        const target = gangs(made.expected).sort((a, b) => b.needed - a.needed)[0];
        if (target && target.needed > 1) {
          await addNodes(c, label, target.needed - 1);
          await noneBound(c, ns, target);
        }
        await addNodes(c, label, all.length - (target && target.needed > 1 ? target.needed - 1 : 0));
        await allBound(c, ns, all);
        // What `karta compile` reads from the cluster is what the controller and the webhook did (a plain
        // batch/v1 Job compiles as the Job controller would without -d: given its Karta here).
        const job = made.root.apiVersion === "batch/v1" && made.root.kind === "Job" ? ["-d", path.join(definitionsDir, fx.expected.definition)] : [];
        const live = await karta(c, ["compile", resourceRef(made.root), "-n", ns, ...job, "--pod-patches", "-o", "json"]);
        assert.equal(live.code, 0, live.err);
        const patches = JSON.parse(live.out) as { pod: { name: string }; podGroupName: string }[];
        assert.deepEqual(Object.fromEntries(patches.map((p) => [p.pod.name, p.podGroupName])), Object.fromEntries(made.expected.podPatches.map((p) => [p.pod.name, p.podGroupName])));
        // An object between the workload and its pods whose kind has a Karta of its own makes nothing.
        for (const link of made.links.filter((l) => described.has(`${groupOf(l.apiVersion)}/${l.kind}`))) {
          const inner = await karta(c, ["compile", resourceRef(link), "-n", ns, "-o", "name"]);
          assert.equal(inner.code, 0, inner.err);
          assert.equal(inner.out, "", `${link.kind} ${link.metadata!.name}`);
          const governed = new RegExp(`its pods are in the groups of its owner ${made.root.kind} ${made.root.metadata!.name} \\(${made.root.apiVersion}\\), the outermost owner whose kind has a Karta`);
          assert.match(inner.err, governed);
          // inspect still shows what the inner Karta sees, and says whose groups the pods are in.
          const seen = await karta(c, ["inspect", resourceRef(link), "-n", ns]);
          assert.match(seen.err, governed);
        }
        await forceDeletePods(c, ns, all);
      });
    }
  });

  describe("one workload at a time, as its operator scales it", () => {
    const pytorch = fixtureCases().find((f) => f.name === "PyTorchJob")!;

    let strict: { ns: string; made: Made };

    test("a strict PyTorchJob: none of its 4 pods bound with room for 3; all 4 together on a fourth node (pods made after their groups)", async (t) => {
      const ns = await testNamespace(t, c);
      const fx = pytorchJob(pytorch, 3);
      // The groups first, then the pods, as the training operator creates the job before its pods.
      const pods = fx.pods;
      fx.pods = [];
      const job = await make(c, fx, ns, ns);
      await admitted(c, job, ns);
      fx.pods = pods;
      const made = { ...(await makePods(c, fx, ns, job.root)), links: [] };
      assert.equal(gangs(made.expected)[0]!.needed, 4);
      await addNodes(c, ns, 3);
      await noneBound(c, ns, gangs(made.expected)[0]!);
      await addNodes(c, ns, 1);
      const bound = await allBound(c, ns, made.pods.map((p) => p.metadata!.name!));
      assert.equal(new Set(bound.values()).size, 4, "one pod per node");
      strict = { ns, made };
    });

    test("scale-up: two more workers raise the worker gang to 5 and bind once there is room; scale-down lowers it", async () => {
      assert.ok(strict, "the strict test ran");
      const { ns, made } = strict;
      const job = (await c.objects.read(made.root as never)) as Obj;
      job.spec.pytorchReplicaSpecs.Worker.replicas = 5;
      await c.objects.replace(job);
      const worker0 = pytorch.pods.find((p: Record<string, any>) => p.metadata.name === "bert-pretrain-worker-0")!;
      const more: Obj[] = [];
      for (const i of [3, 4]) {
        const pod = schedulablePod(workerPod(worker0, i), ns, ns);
        pod.metadata.ownerReferences = [ownerRef(made.root)];
        more.push(JSON.parse(JSON.stringify(await c.objects.create(pod as Obj))) as Obj);
      }
      const workerGroup = async () => ((await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", ns)).items as Obj[]).find((g) => g.spec.workloadRef.templateName === "worker")!;
      await eventually(async () => ((await workerGroup()).spec.schedulingPolicy.gang.minCount === 5 ? true : undefined), 30_000, "the worker gang raised to 5");
      await addNodes(c, ns, 2);
      await allBound(c, ns, more.map((p) => p.metadata!.name!));
      // Down to 2 workers: the operator deletes the last three.
      const down = (await c.objects.read(made.root as never)) as Obj;
      down.spec.pytorchReplicaSpecs.Worker.replicas = 2;
      await c.objects.replace(down);
      await forceDeletePods(c, ns, ["bert-pretrain-worker-2", "bert-pretrain-worker-3", "bert-pretrain-worker-4"]);
      await eventually(async () => ((await workerGroup()).spec.schedulingPolicy.gang.minCount === 2 ? true : undefined), 30_000, "the worker gang lowered to 2");
    });

    test("deleting the job removes its Workload and groups (garbage collector and podgroup protection), once its pods are gone", async () => {
      assert.ok(strict, "the strict test ran");
      const { ns, made } = strict;
      await c.objects.delete(made.root as never, undefined, undefined, undefined, undefined, "Background");
      // No kubelet ends a bound pod's graceful deletion: the test does, as a node would.
      await eventually(async () => {
        const pods = (await c.core.listNamespacedPod({ namespace: ns })).items as unknown as Obj[];
        await forceDeletePods(c, ns, pods.filter((p) => p.metadata?.deletionTimestamp).map((p) => p.metadata!.name!));
        return pods.length === 0 ? true : undefined;
      }, 60_000, "the job's pods deleted by the garbage collector");
      for (const kind of ["Workload", "PodGroup"]) {
        await eventually(async () => ((await c.objects.list("scheduling.k8s.io/v1beta1", kind, ns)).items.length === 0 ? true : undefined), 60_000, `every ${kind} of the job gone`);
      }
      await eventually(async () => ((await c.objects.list("scheduling.k8s.io/v1alpha3", "CompositePodGroup", ns)).items.length === 0 ? true : undefined), 60_000, "the CompositePodGroup gone");
    });

    test("the elastic minimum: with room for 3 of 5 pods (minAvailable 3), the master and two workers bind; the rest once there is room", async (t) => {
      const ns = await testNamespace(t, c);
      const made = await make(c, pytorchJob(pytorch, 4, 3), ns, ns);
      await admitted(c, made, ns);
      assert.equal(gangs(made.expected)[0]!.needed, 3);
      await addNodes(c, ns, 3);
      const bound = await eventually(async () => {
        const b = await boundPods(c, ns);
        return b.size === 3 ? b : undefined;
      }, 60_000, "three pods bound");
      assert.ok(bound.has("bert-pretrain-master-0"), "the master is among them");
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal((await boundPods(c, ns)).size, 3, "no more than room for");
      await addNodes(c, ns, 2);
      await allBound(c, ns, made.pods.map((p) => p.metadata!.name!));
      await forceDeletePods(c, ns, made.pods.map((p) => p.metadata!.name!));
    });

    test("one gang per LeaderWorkerSet group: with room for one group of 3, exactly one group binds, whole", async (t) => {
      const ns = await testNamespace(t, c);
      const fx = fixtureCases().find((f) => f.name === "LeaderWorkerSet")!;
      const made = await make(c, fx, ns, ns);
      await admitted(c, made, ns);
      const groups = gangs(made.expected);
      assert.deepEqual(groups.map((g) => g.needed), [3, 3]);
      await addNodes(c, ns, 3);
      const bound = await eventually(async () => {
        const b = await boundPods(c, ns);
        return b.size === 3 ? b : undefined;
      }, 60_000, "one group bound");
      await new Promise((r) => setTimeout(r, 1500));
      const now = await boundPods(c, ns);
      assert.equal(now.size, 3);
      assert.ok(groups.some((g) => g.pods.every((p) => bound.has(p))), `one whole group bound: ${[...bound.keys()].join(", ")}`);
      await addNodes(c, ns, 3);
      await allBound(c, ns, made.pods.map((p) => p.metadata!.name!));
      await forceDeletePods(c, ns, made.pods.map((p) => p.metadata!.name!));
    });

    test("a RayCluster with only its head: the head pod is in a gang, and binds", async (t) => {
      const ns = await testNamespace(t, c);
      const fx = clone(fixtureCases().find((f) => f.name === "RayCluster")!);
      (fx.workload as Obj).spec.workerGroupSpecs = [];
      fx.pods = fx.pods.filter((p: Record<string, any>) => p.metadata.labels["ray.io/node-type"] === "head");
      const made = await make(c, fx, ns, ns);
      await admitted(c, made, ns);
      assert.equal(made.expected.podPatches.length, 1);
      await addNodes(c, ns, 1);
      await allBound(c, ns, made.pods.map((p) => p.metadata!.name!));
    });

    test("a root Job: its groups come after its first pod (pods made before their groups), and its pods bind together", async (t) => {
      const ns = await testNamespace(t, c);
      const fx = fixtureCases().find((f) => f.name === "Job")!;
      const made = await make(c, fx, ns, ns);
      const workload = made.expected.workload!;
      const got = await eventually(async () => {
        const r = await attempt(() => c.objects.read({ apiVersion: workload.apiVersion, kind: workload.kind, metadata: { name: workload.metadata.name!, namespace: ns } }));
        return r.ok ? (r.object as Obj) : undefined;
      }, 30_000, "the Job's Workload");
      const firstPod = Math.min(...made.pods.map((p) => Date.parse(p.metadata!.creationTimestamp as unknown as string)));
      assert.ok(Date.parse(got.metadata!.creationTimestamp as unknown as string) >= firstPod, "the Workload is made after the first pod");
      await admitted(c, { ...made, pods: await Promise.all(made.pods.map(async (p) => JSON.parse(JSON.stringify(await c.objects.read(p as never))) as Obj)) }, ns);
      await addNodes(c, ns, made.pods.length);
      await allBound(c, ns, made.pods.map((p) => p.metadata!.name!));
    });
  });
});
