/**
 * Gangs with subgroups where the cluster cannot gang a CompositePodGroup, under the real kube-scheduler:
 * - the API server serves CompositePodGroup but the scheduler lacks the CompositePodGroup gate: a composite
 *   is not ganged (the scheduler places each subgroup on its own), so the user says `--group-shape flat`
 *   and one PodGroup holds every pod of the gang;
 * - the API server does not serve CompositePodGroup: `karta controller` (auto) makes flat groups itself.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { fixtureCases } from "../bundled/helpers.js";
import { clusterBinaries, controlPlane, eventually, testNamespace, type ControlPlane } from "../support/cluster.js";
import {
  addNodes, allBound, applyBundledKartas, boundPods, bundledKartas, gangs, installCrds, kindCrds, make, noneBound, pytorchJob, startKartaController, waitWatching, type KartaController, type Obj,
} from "./gangs.js";

const PYTORCH = fixtureCases().find((f) => f.name === "PyTorchJob")!;
const LWS = fixtureCases().find((f) => f.name === "LeaderWorkerSet")!;
const KARTAS = ["kubeflow-org-v1-pytorchjob", "leaderworkerset-x-k8s-io-v1-leaderworkerset"];
// Skips (with its notice) where Go is missing; each describe starts its own cluster.
const skip = (await clusterBinaries()) ?? false;

/** The bundled PyTorchJob and LeaderWorkerSet Kartas, their CRDs, and the controller with `args`. */
async function install(c: ControlPlane): Promise<Obj[]> {
  await applyBundledKartas(c);
  const kartas = bundledKartas().filter((k) => KARTAS.includes(k.metadata!.name!));
  await installCrds(c, kindCrds(kartas));
  return kartas;
}

describe("a scheduler without the CompositePodGroup gate (the API server serves CompositePodGroup)", { skip }, () => {
  let c: ControlPlane;
  let kartas: Obj[];
  let controller: KartaController | undefined;

  before(async () => {
    c = (await controlPlane({ scheduler: true, schedulerFeatureGates: "CompositePodGroup=false" })) as ControlPlane;
    kartas = await install(c);
  });
  after(async () => {
    await controller?.stop();
    await c?.stop();
  });

  test("a composite is not ganged there: with room for 3 of a strict PyTorchJob's 4 pods, some bind", async (t) => {
    controller = await startKartaController(c, kartas, ["--group-shape", "composite"]);
    await waitWatching(controller, KARTAS);
    const ns = await testNamespace(t, c);
    const made = await make(c, pytorchJob(PYTORCH, 3), ns, ns);
    assert.equal(made.expected.compositePodGroups.length, 1);
    await addNodes(c, ns, 3);
    const bound = await eventually(async () => {
      const b = await boundPods(c, ns);
      return b.size > 0 ? b : undefined;
    }, 60_000, "a pod bound");
    assert.ok(bound.size < 4, "not all: there is no room");
    await controller.stop();
    controller = undefined;
  });

  test("--group-shape flat: one PodGroup per gang, none of the 4 pods bound with room for 3, all 4 on a fourth node", async (t) => {
    controller = await startKartaController(c, kartas, ["--group-shape", "flat"]);
    await waitWatching(controller, KARTAS);
    assert.equal(controller.logged("gang shape")?.groupShape, "flat");
    const ns = await testNamespace(t, c);
    const made = await make(c, pytorchJob(PYTORCH, 3), ns, ns, "flat");
    assert.deepEqual(made.expected.compositePodGroups, []);
    const gang = gangs(made.expected)[0]!;
    assert.equal(gang.needed, 4);
    await addNodes(c, ns, 3);
    await noneBound(c, ns, gang);
    await addNodes(c, ns, 1);
    await allBound(c, ns, made.pods.map((p) => p.metadata!.name!));
  });
});

describe("an API server that does not serve CompositePodGroup: karta controller makes flat groups (--group-shape auto)", { skip }, () => {
  let c: ControlPlane;
  let controller: KartaController | undefined;

  before(async () => {
    c = (await controlPlane({ scheduler: true, featureGates: "CompositePodGroup=false" })) as ControlPlane;
    const kartas = await install(c);
    controller = await startKartaController(c, kartas);
    await waitWatching(controller, KARTAS);
  });
  after(async () => {
    await controller?.stop();
    await c?.stop();
  });

  test("the controller says it makes flat groups, as CompositePodGroup is not served", () => {
    assert.deepEqual(controller!.logged("gang shape"), { ...controller!.logged("gang shape"), groupShape: "flat", compositePodGroupServed: false });
  });

  for (const [what, fx, groups] of [
    ["a strict PyTorchJob: one PodGroup of its 4 pods", pytorchJob(PYTORCH, 3), 1],
    ["a LeaderWorkerSet: one PodGroup per group of 3", LWS, 2],
  ] as const) {
    test(`${what}, all-or-nothing`, async (t) => {
      const ns = await testNamespace(t, c);
      const made = await make(c, fx, ns, ns, "flat");
      const read = (await Promise.all(made.pods.map(async (p) => (await c.objects.read(p as never)) as Obj))).map((p) => p.spec?.schedulingGroup?.podGroupName as string);
      assert.deepEqual(read, made.pods.map((p) => made.expected.podPatches.find((x) => x.pod.name === p.metadata!.name)?.podGroupName), "the webhook put each pod in its flat group");
      const all = gangs(made.expected);
      assert.equal(all.length, groups);
      const target = all.sort((a, b) => b.needed - a.needed)[0]!;
      await eventually(async () => ((await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", ns)).items.length === groups ? true : undefined), 30_000, `${groups} PodGroups`);
      await addNodes(c, ns, target.needed - 1);
      await noneBound(c, ns, target);
      await addNodes(c, ns, made.pods.length - target.needed + 1);
      await allBound(c, ns, made.pods.map((p) => p.metadata!.name!));
    });
  }
});
