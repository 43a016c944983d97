/**
 * deploy/controller and deploy/namespace as kustomize builds them are accepted by a real kube-apiserver
 * (server-side dry run, so nothing is created): the Deployment, Service, Mutating- and
 * ValidatingWebhookConfiguration, PodDisruptionBudget, RBAC objects and the Namespace validate; so does
 * deploy/webhook's Deployment; both keep their preStop sleep. cert-manager's Issuers and Certificates need its CRDs, which the bare API
 * server has not: test/controller/deploy.test.ts checks how they fit the rest.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { readFileSync } from "node:fs";
import { parse, parseAllDocuments } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { repoRoot } from "../support/conformance.js";
import { attempt, testCluster, testNamespace, type TestCluster } from "../support/cluster.js";

const cluster = await testCluster();

function kustomize(dir: string): KubernetesObject[] | string {
  try {
    const out = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return parseAllDocuments(out).map((d) => d.toJSON() as KubernetesObject);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "kubectl is not installed: deploy/controller is not built with kustomize";
    throw err;
  }
}

const built = kustomize(path.join(repoRoot, "deploy", "controller"));
const namespaceBase = kustomize(path.join(repoRoot, "deploy", "namespace"));
const skip = typeof cluster === "string" ? cluster : typeof built === "string" ? built : false;
if (skip) console.log(`# skipped: ${skip}`);

describe("deploy/controller on the API server", { skip }, () => {
  const c = cluster as TestCluster;
  test("kubectl kustomize builds it and every object passes a server-side dry run", async (t) => {
    assert.deepEqual((built as KubernetesObject[]).map((o) => o.kind).sort(), [
      "Certificate", "Certificate", "ClusterRole", "ClusterRoleBinding", "Deployment", "Issuer", "Issuer", "MutatingWebhookConfiguration", "PodDisruptionBudget", "Role", "RoleBinding", "Service", "Service", "ServiceAccount", "ValidatingWebhookConfiguration",
    ]);
    const objects = [...(namespaceBase as KubernetesObject[]), ...(built as KubernetesObject[])];
    const ns = await testNamespace(t, c);
    for (const o of objects) {
      if (o.apiVersion === "cert-manager.io/v1") continue;
      assert.equal(o.metadata?.labels?.["app.kubernetes.io/part-of"], "karta", `${o.kind} carries the kustomization's label`);
      // The base's karta-system namespace may not exist here: namespaced objects go to the test's namespace.
      const copy = structuredClone(o) as KubernetesObject & { subjects?: { namespace: string }[] };
      if (copy.metadata?.namespace !== undefined) copy.metadata.namespace = ns;
      else copy.metadata = { ...copy.metadata, name: `${copy.metadata?.name}-${ns}` };
      for (const s of copy.subjects ?? []) s.namespace = ns;
      const r = await attempt(() => c.objects.create(copy, undefined, "All"));
      assert.ok(r.ok, r.ok ? "" : `${o.kind} ${o.metadata?.name}: ${r.message}`);
      // The preStop sleep is served (an API server whose PodLifecycleSleepAction gate were off would drop it).
      if (o.kind === "Deployment") assert.deepEqual(JSON.parse(JSON.stringify((r.object as { spec: { template: { spec: { containers: { lifecycle?: unknown }[] } } } }).spec.template.spec.containers[0]!.lifecycle)), { preStop: { sleep: { seconds: 5 } } });
    }
    const deployment = objects.find((o) => o.kind === "Deployment") as KubernetesObject & { spec: { template: { spec: { containers: { image: string }[] } } } };
    const webhook = parse(readFileSync(path.join(repoRoot, "deploy", "webhook", "kustomization.yaml"), "utf8")) as { images: { newName: string; newTag: string }[] };
    assert.equal(deployment.spec.template.spec.containers[0]!.image, `${webhook.images[0]!.newName}:${webhook.images[0]!.newTag}`, "the same image as deploy/webhook");
  });

  test("deploy/webhook's Deployment (karta serve) passes a server-side dry run with its preStop sleep", async (t) => {
    const objects = kustomize(path.join(repoRoot, "deploy", "webhook"));
    assert.ok(typeof objects !== "string", objects as string);
    const ns = await testNamespace(t, c);
    const deployment = structuredClone(objects.find((o) => o.kind === "Deployment")!);
    deployment.metadata!.namespace = ns;
    const r = await attempt(() => c.objects.create(deployment, undefined, "All"));
    assert.ok(r.ok, r.ok ? "" : r.message);
    assert.deepEqual(JSON.parse(JSON.stringify((r.object as { spec: { template: { spec: { containers: { lifecycle?: unknown }[] } } } }).spec.template.spec.containers[0]!.lifecycle)), { preStop: { sleep: { seconds: 5 } } });
  });
});
