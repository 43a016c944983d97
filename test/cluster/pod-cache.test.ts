/**
 * The controller's pod cache keeps only the fields read (src/controller/pod-cache.ts), against a real
 * kube-apiserver: before any Karta, a cached pod has its metadata, nodeName and phase but not its
 * containers; a Karta whose pod-group filter reads spec.priorityClassName widens the cache (a new list),
 * after which the same pod has that field too, and still no containers.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { KartaReconciler } from "../../src/controller/kartas.js";
import { WorkloadReconciler } from "../../src/controller/workloads.js";
import { silentLogger } from "../../src/controller/log.js";
import type { KubeClient } from "../../src/controller/client.js";
import { definitionsDir } from "../bundled/helpers.js";
import { attempt, eventually, kubeClient, testCluster, testNamespace, type TestCluster } from "../support/cluster.js";
import { installKartaCrd } from "./helpers.js";
import { ensureCrd } from "./live-examples.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;
const suffix = Math.random().toString(36).slice(2, 8);
type Obj = KubernetesObject & Record<string, any>;

describe("the controller's pod cache: the fields Kartas read", { skip }, () => {
  const c = cluster as TestCluster;
  const group = `podcache-${suffix}.karta.test`;
  const kartaName = `podcache-${suffix}`;
  let kartas: KartaReconciler;
  let workloads: WorkloadReconciler;
  let client: KubeClient;
  let ns: string;

  before(async () => {
    await installKartaCrd(c);
    await ensureCrd(c, "kubeflow.org", "PyTorchJob", { group });
    ns = await testNamespace({ name: "pod-cache" } as never, c);
    await c.objects.create({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: `high-${suffix}` }, value: 1000 } as KubernetesObject);
    await c.objects.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: ns, labels: { app: "x" } },
      spec: { nodeName: "node-1", priorityClassName: `high-${suffix}`, containers: [{ name: "main", image: "registry.k8s.io/pause:3.10" }] },
    } as KubernetesObject);
    client = kubeClient(c.kc);
    kartas = new KartaReconciler(client, silentLogger);
    workloads = new WorkloadReconciler(client, kartas, silentLogger);
    await kartas.start();
    await workloads.start();
  });
  after(async () => {
    await workloads?.stop();
    await kartas?.stop();
    client?.close();
    await attempt(() => c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: kartaName } }));
    await attempt(() => c.objects.delete({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name: `high-${suffix}` } }));
    await attempt(() => c.objects.delete({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: `pytorchjobs.${group}` } }));
  });

  const cached = (): Obj | undefined => [...workloads.cachedPods()].find((p) => p.metadata?.namespace === ns && p.metadata?.name === "p") as Obj | undefined;

  test("before a Karta reads more: metadata, nodeName and phase only", async () => {
    const pod = await eventually(async () => cached(), 10_000, "the pod in the cache");
    assert.deepEqual(pod.metadata!.labels, { app: "x" });
    assert.deepEqual(pod.spec, { nodeName: "node-1" });
    assert.deepEqual(pod.status, { phase: "Pending" });
  });

  test("a Karta whose filter reads spec.priorityClassName widens the cache; containers stay out", async () => {
    const karta = parse(readFileSync(path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml"), "utf8")) as Obj;
    karta.metadata = { name: kartaName };
    karta.spec.structureDefinition.rootComponent.kind.group = group;
    karta.spec.optimizationInstructions = { gangScheduling: { podGroups: [{ name: "g", members: [{ componentName: "worker", filters: ['.spec.priorityClassName == "training-high"'] }] }] } };
    await c.objects.create(karta);
    await eventually(async () => (workloads.watchedKartas().includes(kartaName) ? true : undefined), 30_000, "the Karta Ready and watched");
    // The wider cache replaces the old one once it has listed (the old one serves until then): watched
    // first, widened a list later, which on a busy machine is not at once.
    await eventually(async () => {
      const fields = workloads.cachedPodFields();
      return fields !== "all" && fields.has("spec.priorityClassName") ? true : undefined;
    }, 30_000, "the pod cache to keep spec.priorityClassName");
    const pod = await eventually(async () => (cached()?.spec?.priorityClassName ? cached() : undefined), 30_000, "the pod with spec.priorityClassName");
    assert.deepEqual(pod.spec, { nodeName: "node-1", priorityClassName: `high-${suffix}` });
  });
});
