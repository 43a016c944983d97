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
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { compileKarta, type WorkloadCompilation } from "../../src/scheduling/index.js";
import { clone, definitionsDir, fixtureCases, loadBundled, type FixtureCase } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { attempt, controlPlane, eventually, forceDeletePods, registerNodes, testNamespace, type ControlPlane } from "../support/cluster.js";
import { applyBundledKartas, boundPods, bundledKartas, installCrds, kindCrds, kubectl, startKartaController, triedUnschedulable, waitWatching, type KartaController, type Obj } from "./gangs.js";

const cp = await controlPlane({ scheduler: true, controllerManager: true, controllers: ["garbage-collector-controller", "podgroup-protection-controller"] });
const skip = typeof cp === "string" ? cp : false;

/** The MPI operator's CRD serves kubeflow.org/v2beta1 MPIJob only (the training operator's v1 MPIJob is another install). */
const SERVED = { "kubeflow.org/MPIJob": ["v2beta1"] };
/** Fixtures of a kind the cluster does not serve as installed (see SERVED). */
const NOT_SERVED = new Set(["MPIJob-v1"]);

/**
 * The objects an operator puts between its workload and the pods' direct owner, which the fixtures name
 * only by reference: KServe and the NIM and Seldon operators make a Deployment (whose ReplicaSet owns the
 * pods), Knative a Configuration, Revision and Deployment, Dynamo a PodCliqueSet, Kubeflow Trainer a JobSet.
 */
const DEPLOYMENT = { apiVersion: "apps/v1", kind: "Deployment" };
const BETWEEN: Record<string, { apiVersion: string; kind: string }[]> = {
  InferenceService: [DEPLOYMENT],
  NIMService: [DEPLOYMENT],
  SeldonDeployment: [DEPLOYMENT],
  KnativeService: [{ apiVersion: "serving.knative.dev/v1", kind: "Configuration" }, { apiVersion: "serving.knative.dev/v1", kind: "Revision" }, DEPLOYMENT],
  DynamoGraphDeployment: [{ apiVersion: "grove.io/v1alpha1", kind: "PodCliqueSet" }],
  TrainJob: [{ apiVersion: "jobset.x-k8s.io/v1alpha2", kind: "JobSet" }],
};

const CASE_LABEL = "karta.test/case";
const PRIORITY_CLASSES = ["ci-builds", "ci-runners", "training-high"];

function ownerRef(o: Obj): { apiVersion: string; kind: string; name: string; uid: string; controller: true; blockOwnerDeletion: true } {
  return { apiVersion: o.apiVersion!, kind: o.kind!, name: o.metadata!.name!, uid: o.metadata!.uid!, controller: true, blockOwnerDeletion: true };
}

/** An object as plain JSON, to edit freely. */
type Loose = Record<string, any>;

/** An object as a client sends it: no server-set metadata, no status, in `namespace`. */
function asSent(o: Record<string, unknown>, namespace: string): Loose {
  const c = clone(o) as Loose;
  for (const k of ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink"]) delete c.metadata[k];
  delete c.status;
  c.metadata.namespace = namespace;
  if (c.apiVersion === "batch/v1" && c.kind === "Job") {
    // The Job's selector and its labels are generated from its uid on create.
    delete c.spec.selector;
    for (const k of ["controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name"]) delete c.spec?.template?.metadata?.labels?.[k];
  }
  return c;
}

/** The least object of a kind that its API accepts, owned by `owner`. */
function linkObject(kind: { apiVersion: string; kind: string }, name: string, namespace: string, owner: Obj): Obj {
  const labels = { "karta.test/link": name };
  const template = { metadata: { labels }, spec: { restartPolicy: kind.kind === "Job" ? "Never" : "Always", containers: [{ name: "c", image: "registry.invalid/c" }] } };
  const spec: Record<string, unknown> =
    kind.apiVersion === "apps/v1"
      ? { replicas: 0, selector: { matchLabels: labels }, template, ...(kind.kind === "StatefulSet" ? { serviceName: name } : {}) }
      : kind.apiVersion === "batch/v1"
        ? { suspend: true, template }
        : {};
  return { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name, namespace, ownerReferences: [ownerRef(owner)] }, spec };
}

/**
 * A fixture pod as its operator would create it here: on the case's nodes (nodeSelector), needing one
 * CPU (one pod per fake node), at the default scheduler, without what this cluster cannot provide
 * (volumes, affinities, node names); labels, annotations and priority class kept.
 */
function schedulablePod(p: Record<string, unknown>, namespace: string, caseLabel: string): Loose {
  const pod = asSent(p, namespace);
  const spec = pod.spec as Record<string, any>;
  for (const k of ["nodeName", "schedulerName", "priority", "preemptionPolicy", "affinity", "topologySpreadConstraints", "volumes", "resourceClaims", "schedulingGroup", "overhead", "runtimeClassName", "schedulingGates", "initContainers", "resources", "serviceAccountName", "serviceAccount", "hostNetwork"]) delete spec[k];
  spec.nodeSelector = { [CASE_LABEL]: caseLabel };
  spec.containers = (spec.containers as { name: string; image?: string }[]).map((c, i) => ({ name: c.name, image: c.image ?? "registry.invalid/c", ...(i === 0 ? { resources: { requests: { cpu: "1" } } } : {}) }));
  delete pod.metadata.ownerReferences;
  return pod;
}

/** A workload made in the cluster with its owner chain and pods, and what `karta compile` makes for it. */
interface Made {
  root: Obj;
  links: Obj[];
  pods: Obj[];
  expected: WorkloadCompilation;
}

/** Creates the fixture's workload, the objects between it and its pods, and its pods (owners before what they own). */
async function make(c: ControlPlane, fx: FixtureCase, namespace: string, caseLabel: string): Promise<Made> {
  const created = async (o: Loose): Promise<Obj> => JSON.parse(JSON.stringify(await c.objects.create(o as Obj))) as Obj;
  const root = await created(asSent(fx.workload, namespace));
  const links: Obj[] = [];
  let parent = root;
  for (const kind of BETWEEN[fx.name] ?? []) {
    parent = await created(linkObject(kind, `${root.metadata!.name}-${kind.kind.toLowerCase()}`, namespace, parent));
    links.push(parent);
  }
  const refOf = (p: Record<string, any>): { apiVersion: string; kind: string; name: string } => {
    const refs = (p.metadata.ownerReferences ?? []) as { apiVersion: string; kind: string; name: string; controller?: boolean }[];
    return refs.find((r) => r.controller) ?? refs[0]!;
  };
  const podNames = new Set(fx.pods.map((p: Record<string, any>) => p.metadata.name as string));
  const owners = new Map<string, Obj>([[`${root.kind}/${root.metadata!.name}`, root]]);
  const pods: Obj[] = [];
  let pending = [...fx.pods] as Record<string, any>[];
  while (pending.length > 0) {
    const next: Record<string, any>[] = [];
    for (const p of pending) {
      const ref = refOf(p);
      const key = `${ref.kind}/${ref.name}`;
      if (!owners.has(key)) {
        // A LeaderWorkerSet's workers' StatefulSet is named after, and owned by, the leader pod.
        const leader = ref.kind === "StatefulSet" && podNames.has(ref.name) ? owners.get(`Pod/${ref.name}`) : parent;
        if (!leader) {
          next.push(p);
          continue;
        }
        const link = await created(linkObject({ apiVersion: ref.apiVersion, kind: ref.kind }, ref.name, namespace, leader));
        owners.set(key, link);
        links.push(link);
      }
      const pod = schedulablePod(p, namespace, caseLabel);
      pod.metadata.ownerReferences = [ownerRef(owners.get(key)!)];
      const made = await created(pod);
      owners.set(`Pod/${made.metadata!.name}`, made);
      pods.push(made);
    }
    assert.ok(next.length < pending.length, `pods whose owners cannot be made: ${next.map((p) => p.metadata.name).join(", ")}`);
    pending = next;
  }
  const definition = loadBundled(fx.expected.definition).definition;
  const expected = compileKarta(definition, root, { pods, owners: links });
  assert.ok(expected.ok, JSON.stringify(expected.issues.filter((i) => i.severity === "error")));
  return { root, links, pods, expected };
}

/** The top-level gangs of a compilation: their pods and how many of them must be placed together. */
function gangs(r: WorkloadCompilation): { name: string; pods: string[]; needed: number }[] {
  const podsOf = (group: string) => r.podPatches.filter((p) => p.podGroupName === group).map((p) => p.pod.name);
  const top = r.podGroups.filter((g) => !g.spec.parentCompositePodGroupName).map((g) => ({ name: g.metadata.name!, pods: podsOf(g.metadata.name!), needed: g.spec.schedulingPolicy.gang?.minCount ?? 1 }));
  const composites = r.compositePodGroups.map((cpg) => {
    const children = r.podGroups.filter((g) => g.spec.parentCompositePodGroupName === cpg.metadata.name);
    const sizes = children.map((g) => g.spec.schedulingPolicy.gang?.minCount ?? 1).sort((a, b) => a - b);
    const needed = sizes.slice(0, cpg.spec.schedulingPolicy.gang?.minGroupCount ?? sizes.length).reduce((a, b) => a + b, 0);
    return { name: cpg.metadata.name!, pods: children.flatMap((g) => podsOf(g.metadata.name!)), needed };
  });
  return [...top, ...composites];
}

/** Waits until the controller made the groups compile gives (by name) and the webhook put each pod where compile does. */
async function admitted(c: ControlPlane, made: Made, namespace: string): Promise<void> {
  const { expected } = made;
  for (const o of [...(expected.workload ? [expected.workload] : []), ...expected.compositePodGroups, ...expected.podGroups]) {
    await eventually(async () => ((await attempt(() => c.objects.read({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata.name!, namespace } }))).ok ? true : undefined), 30_000, `${o.kind} ${o.metadata.name}`);
  }
  const want = Object.fromEntries(made.pods.map((p) => [p.metadata!.name!, expected.podPatches.find((x) => x.pod.name === p.metadata!.name)?.podGroupName ?? null]));
  const got = Object.fromEntries(made.pods.map((p) => [p.metadata!.name!, (p.spec?.schedulingGroup?.podGroupName as string | undefined) ?? null]));
  assert.deepEqual(got, want, "the webhook put each pod in the group karta compile gives it");
}

/** Runs `karta` in this process against the cluster; its exit code and output. */
async function karta(c: ControlPlane, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO("", {});
  const code = await main([...args, "--kubeconfig", c.kubeconfig], io);
  return { code, out: io.out, err: io.err };
}

/** The case's nodes: `count` of one CPU each, labelled for it. */
let nodeSerial = 0;
async function addNodes(c: ControlPlane, caseLabel: string, count: number): Promise<void> {
  await registerNodes(c, Array.from({ length: count }, () => ({ name: `${caseLabel}-${nodeSerial++}`, cpu: "1", labels: { [CASE_LABEL]: caseLabel } })));
}

/** Asserts that none of these pods is bound once the scheduler has tried their gang and found it unschedulable. */
async function noneBound(c: ControlPlane, namespace: string, gang: { name: string; pods: string[] }): Promise<void> {
  await eventually(async () => {
    const groups = (await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", namespace)).items as Obj[];
    const mine = groups.filter((g) => g.metadata!.name === gang.name || g.spec?.parentCompositePodGroupName === gang.name);
    return mine.some(triedUnschedulable) ? true : undefined;
  }, 60_000, `the scheduler to find gang ${gang.name} unschedulable`);
  // A binding in flight would land within the scheduler's backoff (1 s).
  await new Promise((r) => setTimeout(r, 1500));
  const bound = await boundPods(c, namespace);
  assert.deepEqual(gang.pods.filter((p) => bound.has(p)), [], `pods of gang ${gang.name} bound while it does not fit`);
}

async function allBound(c: ControlPlane, namespace: string, names: readonly string[]): Promise<Map<string, string>> {
  return eventually(async () => {
    const bound = await boundPods(c, namespace);
    return names.every((n) => bound.has(n)) ? bound : undefined;
  }, 60_000, `pods ${names.join(", ")} bound`);
}

const groupOf = (apiVersion: string | undefined): string => (apiVersion?.includes("/") ? apiVersion.split("/")[0]! : "");

/** `Kind.group/name`, as `karta compile` takes an object from the cluster. */
function resourceRef(o: Obj): string {
  const group = groupOf(o.apiVersion);
  return `${o.kind}${group ? `.${group}` : ""}/${o.metadata!.name}`;
}

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
    const served = kartas.filter((k) => !(k.spec.structureDefinition.rootComponent.kind.kind === "MPIJob" && k.spec.structureDefinition.rootComponent.kind.version === "v1"));
    await waitWatching(controller, served.map((k) => k.metadata!.name!));
  });

  after(async () => {
    await controller?.stop();
    await c.stop();
  });

  test("the Karta CRD and a Karta in one kubectl apply fail on a fresh cluster; the README's sequence (CRD, wait, definitions) applied them all", async () => {
    assert.notEqual(oneShot.code, 0);
    assert.match(oneShot.stderr, /no matches for kind "Karta" in version "run\.ai\/v1alpha1"[\s\S]*ensure CRDs are installed first/);
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
          assert.match(inner.err, new RegExp(`its pods are in the groups of its owner ${made.root.kind} ${made.root.metadata!.name} \\(${made.root.apiVersion}\\), the outermost owner whose kind has a Karta`));
        }
        await forceDeletePods(c, ns, all);
      });
    }
  });

  describe("one workload at a time, as its operator scales it", () => {
    const pytorch = fixtureCases().find((f) => f.name === "PyTorchJob")!;
    /** The bert-pretrain PyTorchJob with `workers` workers (pods worker-0..), strict unless `minAvailable`. */
    function pytorchJob(workers: number, minAvailable?: number): FixtureCase {
      const fx = clone(pytorch);
      const w = fx.workload as Obj;
      w.spec.pytorchReplicaSpecs.Worker.replicas = workers;
      if (minAvailable === undefined) delete w.spec.runPolicy.schedulingPolicy.minAvailable;
      else w.spec.runPolicy.schedulingPolicy.minAvailable = minAvailable;
      const worker0 = fx.pods.find((p: Record<string, any>) => p.metadata.name === "bert-pretrain-worker-0")!;
      fx.pods = [fx.pods.find((p: Record<string, any>) => p.metadata.labels["training.kubeflow.org/replica-type"] === "master")!, ...Array.from({ length: workers }, (_, i) => workerPod(worker0, i))];
      return fx;
    }
    function workerPod(worker0: Record<string, any>, i: number): Record<string, any> {
      const p = clone(worker0);
      p.metadata.name = `bert-pretrain-worker-${i}`;
      p.metadata.labels["training.kubeflow.org/replica-index"] = String(i);
      return p;
    }

    let strict: { ns: string; made: Made };

    test("a strict PyTorchJob: none of its 4 pods bound with room for 3; all 4 together on a fourth node (pods made after their groups)", async (t) => {
      const ns = await testNamespace(t, c);
      const fx = pytorchJob(3);
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
      const made = await make(c, pytorchJob(4, 3), ns, ns);
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

/** Creates the fixture's pods for an existing root (owned by it directly), read back after admission. */
async function makePods(c: ControlPlane, fx: FixtureCase, namespace: string, root: Obj): Promise<Omit<Made, "links">> {
  const pods: Obj[] = [];
  for (const p of fx.pods) {
    const pod = schedulablePod(p, namespace, namespace);
    pod.metadata.ownerReferences = [ownerRef(root)];
    pods.push(JSON.parse(JSON.stringify(await c.objects.create(pod as Obj))) as Obj);
  }
  const expected = compileKarta(loadBundled(fx.expected.definition).definition, root, { pods });
  assert.ok(expected.ok, JSON.stringify(expected.issues));
  assert.deepEqual(
    Object.fromEntries(pods.map((p) => [p.metadata!.name!, p.spec?.schedulingGroup?.podGroupName ?? null])),
    Object.fromEntries(pods.map((p) => [p.metadata!.name!, expected.podPatches.find((x) => x.pod.name === p.metadata!.name)?.podGroupName ?? null])),
  );
  return { root, pods, expected };
}
