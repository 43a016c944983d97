/**
 * The kustomize bases in deploy/ built by real kustomize (kubectl kustomize): the namespace is a base of its
 * own (deploy/namespace), so deleting one base never deletes the namespace of the other; and an overlay
 * that moves them to another namespace, with each base's namespace-references as transformers, moves every
 * reference to the namespace with them (the binding's subject, the webhooks' Service, the namespace the pod
 * webhook leaves out, the certificates' DNS names, cert-manager's inject-ca-from).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { repoRoot } from "../support/conformance.js";

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } } & Record<string, any>;

const deploy = path.join(repoRoot, "deploy");

function build(dir: string): { objects: Obj[]; text: string } {
  const text = execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return { objects: parseAllDocuments(text).map((d) => d.toJSON() as Obj), text };
}

function kubectlSkip(): string | false {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return false;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "kubectl is not installed: the kustomize bases are not built";
    throw err;
  }
}

/** An overlay (in a directory of its own, as a user's) over the given bases, with these transformers. */
function overlay(kustomization: Record<string, unknown>, fn: (objects: Obj[], text: string) => void): void {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-overlay-"));
  try {
    const rel = (p: unknown) => path.relative(path.join(dir, "ops"), path.join(deploy, p as string));
    mkdirSync(path.join(dir, "ops"));
    const k = { ...kustomization, resources: (kustomization.resources as string[]).map(rel), transformers: ((kustomization.transformers ?? []) as string[]).map(rel) };
    writeFileSync(path.join(dir, "ops", "kustomization.yaml"), stringify({ apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization", ...k }));
    const { objects, text } = build(path.join(dir, "ops"));
    fn(objects, text);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const find = (objects: Obj[], kind: string, name: string): Obj => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  assert.ok(o, `${kind}/${name}`);
  return o;
};

describe("deploy/ with kustomize", { skip: kubectlSkip() }, () => {
  test("the namespace is deploy/namespace's alone: neither the controller's base nor the webhook's owns it", () => {
    assert.deepEqual(build(path.join(deploy, "namespace")).objects.map((o) => [o.kind, o.metadata.name, o.metadata.labels]), [
      ["Namespace", "karta-system", { "app.kubernetes.io/part-of": "karta", "pod-security.kubernetes.io/enforce": "restricted" }],
    ]);
    for (const base of ["controller", "webhook"]) {
      const { objects } = build(path.join(deploy, base));
      assert.ok(!objects.some((o) => o.kind === "Namespace"), base);
      for (const o of objects) if (o.metadata.namespace !== undefined) assert.equal(o.metadata.namespace, "karta-system", `${base}: ${o.kind}/${o.metadata.name}`);
    }
  });

  test("an overlay in another namespace, with the bases' namespace-references, moves every reference to it", () => {
    overlay(
      { namespace: "ops", resources: ["namespace", "controller", "webhook"], transformers: ["controller/namespace-references", "webhook/namespace-references"] },
      (objects, text) => {
        assert.doesNotMatch(text, /karta-system/);
        assert.deepEqual(objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name), ["ops"]);
        for (const o of objects) {
          if (["Namespace", "ClusterRole", "ClusterRoleBinding", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"].includes(o.kind)) assert.equal(o.metadata.namespace, undefined, o.kind);
          else assert.equal(o.metadata.namespace, "ops", `${o.kind}/${o.metadata.name}`);
        }
        assert.deepEqual(find(objects, "ClusterRoleBinding", "karta-controller").subjects, [{ kind: "ServiceAccount", name: "karta-controller", namespace: "ops" }]);
        const mutating = find(objects, "MutatingWebhookConfiguration", "karta-controller");
        const validating = find(objects, "ValidatingWebhookConfiguration", "karta-controller");
        for (const config of [mutating, validating]) {
          assert.equal(config.metadata.annotations?.["cert-manager.io/inject-ca-from"], "ops/karta-controller-webhook", config.kind);
          for (const w of config.webhooks) assert.deepEqual([w.clientConfig.service.name, w.clientConfig.service.namespace], ["karta-controller-webhook", "ops"], w.name);
        }
        const pods = mutating.webhooks.find((w: { name: string }) => w.name === "podgroupname.karta.run.ai");
        assert.deepEqual(pods.namespaceSelector.matchExpressions, [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system", "ops"] }]);
        assert.deepEqual(find(objects, "Certificate", "karta-controller-webhook").spec.dnsNames, ["karta-controller-webhook.ops.svc", "karta-controller-webhook.ops.svc.cluster.local"]);
        assert.deepEqual(find(objects, "Certificate", "karta-webhook-serving").spec.dnsNames, ["karta-webhook.ops.svc", "karta-webhook.ops.svc.cluster.local"]);
      },
    );
    // One base alone, with its own references.
    overlay({ namespace: "ops", resources: ["webhook"], transformers: ["webhook/namespace-references"] }, (_objects, text) => assert.doesNotMatch(text, /karta-system/));
  });

  test("without the namespace-references transformers an overlay leaves references behind (kustomize runs a base's transformers before the overlay's namespace), as their comments say", () => {
    overlay({ namespace: "ops", resources: ["controller"] }, (objects) => {
      assert.deepEqual(find(objects, "Certificate", "karta-controller-webhook").spec.dnsNames[0], "karta-controller-webhook.karta-system.svc");
    });
  });
});
