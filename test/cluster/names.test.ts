/**
 * Against a real kube-apiserver: the names, labels and owner references Karta generates are accepted as
 * they are, at the edges of the length limits and DNS rules. The root objects are real (the PyTorchJob CRD
 * is installed), so owner references point at objects the server holds, with their real UIDs.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { compileKarta, compiledObjects, generatePodGroupName, generateWorkloadName } from "../../src/scheduling/index.js";
import { applyJsonPatch } from "../../src/jsonpatch/index.js";
import { isDNS1123Subdomain } from "../../src/names/index.js";
import { fixtureCases, loadBundled } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { attempt, testCluster, testNamespace, type TestCluster } from "../support/cluster.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;

async function installCrd(c: TestCluster, file: string, name: string): Promise<void> {
  const crd = parse(readFileSync(path.join(repoRoot, "test", "fixtures", "definition", "crds", file), "utf8")) as KubernetesObject;
  const r = await attempt(() => c.objects.create(crd));
  assert.ok(r.ok || r.reason === "AlreadyExists", r.ok ? "" : r.message);
  for (let i = 0; i < 150; i++) {
    const got = (await c.objects.read({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name } })) as { status?: { conditions?: { type: string; status: string }[] } };
    if (got.status?.conditions?.some((x) => x.type === "Established" && x.status === "True")) {
      // Discovery of the new kind lags Established a little.
      for (let j = 0; j < 50; j++) {
        const probe = await attempt(() => c.objects.list("kubeflow.org/v1", "PyTorchJob", "default"));
        if (probe.ok) return;
        await new Promise((res) => setTimeout(res, 200));
      }
      return;
    }
    await new Promise((res) => setTimeout(res, 200));
  }
  assert.fail(`CRD ${name} not Established`);
}

function stripServerFields(o: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(o) as { metadata: Record<string, unknown>; status?: unknown };
  for (const k of ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"]) delete copy.metadata[k];
  delete copy.status;
  return copy;
}

describe("generated names, labels and owner references on a real API server", { skip }, () => {
  const c = cluster as TestCluster;
  const pytorch = fixtureCases().find((x) => x.name === "PyTorchJob")!;
  const { definition } = loadBundled(pytorch.expected.definition);

  const rootNames: [string, string][] = [
    ["the longest name a custom resource may have (253 characters)", "a".repeat(120) + "." + "b".repeat(132)],
    ["a name with dots", "bert.pretrain.v2"],
    ["a one-character name", "x"],
  ];
  for (const [title, rootName] of rootNames) {
    test(`a PyTorchJob with ${title}: Workload, PodGroup and pods accepted`, async (t) => {
      assert.ok(isDNS1123Subdomain(rootName) && rootName.length <= 253);
      await installCrd(c, "kubeflow.org_pytorchjobs.yaml", "pytorchjobs.kubeflow.org");
      const ns = await testNamespace(t, c);
      const job = stripServerFields(pytorch.workload) as { metadata: Record<string, unknown> };
      job.metadata.name = rootName;
      job.metadata.namespace = ns;
      const created = await attempt(() => c.objects.create(job as unknown as KubernetesObject));
      assert.ok(created.ok, created.ok ? "" : `the PyTorchJob itself was refused: ${created.message}`);
      const stored = created.object as unknown as Record<string, unknown>;
      const uid = (stored.metadata as { uid: string }).uid;

      const pods = pytorch.pods.map((p, i) => {
        const pod = stripServerFields(p) as { metadata: Record<string, unknown> };
        pod.metadata.name = `${rootName.slice(0, 240)}-${i}`;
        pod.metadata.namespace = ns;
        pod.metadata.ownerReferences = [{ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: rootName, uid, controller: true, blockOwnerDeletion: true }];
        const labels = pod.metadata.labels as Record<string, string>;
        // Label values are at most 63 characters: the operator puts the job name in one only when it fits.
        const oldName = (pytorch.workload.metadata as { name: string }).name;
        for (const k of Object.keys(labels)) if (labels[k] === oldName) labels[k] = rootName.slice(0, 63).replace(/[.]+$/, "");
        return pod;
      });
      const result = compileKarta(definition, stored, { pods });
      assert.ok(result.ok, JSON.stringify(result.issues));
      const workload = result.workload!;
      assert.equal(workload.metadata.name, generateWorkloadName(rootName, uid));
      assert.ok(workload.metadata.name!.length <= 253);
      for (const o of compiledObjects(result)) {
        const r = await attempt(() => c.objects.create(o as unknown as KubernetesObject));
        assert.ok(r.ok, r.ok ? "" : `${o.kind} ${o.metadata.name} (${o.metadata.name!.length} characters) refused: ${r.message}`);
        const back = r.object as unknown as { metadata: { ownerReferences?: unknown } };
        assert.deepEqual(JSON.parse(JSON.stringify(back.metadata.ownerReferences)), [{ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: rootName, uid, controller: true, blockOwnerDeletion: true }]);
      }
      for (const p of result.podPatches) {
        const pod = pods.find((x) => x.metadata.name === p.pod.name)!;
        const patched = applyJsonPatch(pod, p.patch);
        assert.ok(patched.ok);
        const r = await attempt(() => c.objects.create(patched.value as unknown as KubernetesObject));
        assert.ok(r.ok, r.ok ? "" : `pod ${p.pod.name} in group ${p.podGroupName} refused: ${r.message}`);
      }
    });
  }

  test("PodGroup names at the 253-character limit, from the longest Workload and template names", async (t) => {
    const ns = await testNamespace(t, c);
    const workloadName = generateWorkloadName("w".repeat(253), "0b6f1c1e-1111-4222-8333-944455556666");
    const templates = ["t".repeat(63), "short", "a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p-q-r-s-t-u-v-w-x-y-z-0-1-2-3-4-5"];
    const workload = {
      apiVersion: "scheduling.k8s.io/v1beta1",
      kind: "Workload",
      metadata: { name: workloadName, namespace: ns },
      spec: { controllerRef: { apiGroup: "kubeflow.org", kind: "PyTorchJob", name: "w".repeat(253) }, podGroupTemplates: templates.map((name) => ({ name, schedulingPolicy: { gang: { minCount: 2 } } })) },
    };
    const w = await attempt(() => c.objects.create(workload as KubernetesObject));
    assert.ok(w.ok, w.ok ? "" : w.message);
    for (const template of templates) {
      const name = generatePodGroupName(workloadName, template);
      assert.equal(name.length <= 253, true);
      const pg = { apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup", metadata: { name, namespace: ns }, spec: { workloadRef: { workloadName, templateName: template }, schedulingPolicy: { gang: { minCount: 2 } } } };
      const r = await attempt(() => c.objects.create(pg as KubernetesObject));
      assert.ok(r.ok, r.ok ? "" : `PodGroup ${name} (${name.length} characters) refused: ${r.message}`);
    }
  });

  test("the Karta labels of every bundled definition are valid label values (the server stores them)", async () => {
    // Applied as Karta objects in crd.test.ts; here the label values themselves, on a ConfigMap, need no CRD.
    const ns = "default";
    for (const fc of fixtureCases()) {
      const { definition: d } = loadBundled(fc.expected.definition);
      const kind = d.karta.spec!.structureDefinition!.rootComponent!.kind!;
      const labels = { "run.ai/karta-group": kind.group ?? "", "run.ai/karta-version": kind.version!, "run.ai/karta-kind": kind.kind! };
      const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "labels-", namespace: ns, labels } };
      const r = await attempt(() => c.objects.create(cm as KubernetesObject));
      assert.ok(r.ok, r.ok ? "" : `${fc.name}: ${r.message}`);
    }
  });
});
