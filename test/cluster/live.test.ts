/**
 * `karta inspect KIND/NAME` and `karta compile KIND/NAME` read the workload, its pods and the objects in
 * between from a real kube-apiserver, as kubectl does, and print exactly what they print for the same
 * objects given as files: a PyTorchJob (pods owned by the job) and a Deployment (pods owned by a
 * ReplicaSet the Deployment owns), with pods of other owners left out.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, stringify } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { fixtureCases } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { attempt, testCluster, testNamespace, type TestCluster } from "../support/cluster.js";
import { keepPlainJson } from "../support/kube.js";
import { installKartaCrd } from "./helpers.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;
type Obj = KubernetesObject & Record<string, any>;

/** An object as a client sends it: no server-set metadata, no status, in `namespace`, owned by `owner`. */
function asCreated(o: Record<string, any>, namespace: string, owner?: KubernetesObject): Obj {
  const copy = structuredClone(o);
  for (const k of ["uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink"]) delete copy.metadata[k];
  delete copy.status;
  copy.metadata.namespace = namespace;
  if (owner) copy.metadata.ownerReferences = [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata!.name, uid: owner.metadata!.uid, controller: true, blockOwnerDeletion: true }];
  else delete copy.metadata.ownerReferences;
  return copy;
}

async function karta(args: string[], files: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO("", files);
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

describe("karta inspect and compile read KIND/NAME from the cluster", { skip }, () => {
  const c = cluster as TestCluster;
  const dir = mkdtempSync(path.join(tmpdir(), "karta-live-"));
  const kubeconfig = path.join(dir, "kubeconfig");
  let ns: string;
  const cases = new Map(fixtureCases().map((f) => [f.name, f]));
  // Read back as the server sent it, as the live commands read it (client-node's models reorder the keys).
  keepPlainJson(["Deployment", "ReplicaSet"].map((kind) => ({ group: "apps", version: "v1", kind })));
  const readBack = async (o: KubernetesObject) => JSON.parse(JSON.stringify(await c.objects.read(o as never))) as Obj;

  before(async () => {
    writeFileSync(kubeconfig, c.kc.exportConfig());
    ns = await testNamespace({ name: "live" } as never, c);
    const crd = parse(readFileSync(path.join(repoRoot, "test", "fixtures", "definition", "crds", "kubeflow.org_pytorchjobs.yaml"), "utf8")) as KubernetesObject;
    const r = await attempt(() => c.objects.create(crd));
    assert.ok(r.ok || r.reason === "AlreadyExists", r.ok ? "" : r.message);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("a PyTorchJob and the pods it owns: the same objects and pod patches as from files", async () => {
    const fixture = cases.get("PyTorchJob")!;
    const job = await (async () => {
      for (;;) {
        // The CRD may have been created just now: retry until it is served.
        const r = await attempt(() => c.objects.create(asCreated(fixture.workload, ns)));
        if (r.ok) return r.object;
        if (r.code !== 404) assert.fail(r.message);
        await new Promise((res) => setTimeout(res, 200));
      }
    })();
    for (const pod of fixture.pods) await c.objects.create(asCreated(pod, ns, job));
    // Pods of another owner and of none are not the job's.
    await c.objects.create(asCreated({ ...fixture.pods[0]!, metadata: { ...(fixture.pods[0]!.metadata as object), name: "stray" } }, ns));
    const name = job.metadata!.name!;
    const pods = (await c.core.listNamespacedPod({ namespace: ns })).items.map((p) => JSON.parse(JSON.stringify(p)) as Obj).filter((p) => p.metadata!.name !== "stray" && p.metadata!.ownerReferences?.[0]?.uid === job.metadata!.uid);
    assert.equal(pods.length, fixture.pods.length);
    const files = { "/mem/job.yaml": stringify(await readBack(job)), "/mem/pods.yaml": stringify({ apiVersion: "v1", kind: "List", items: pods }) };

    for (const flags of [["-o", "json"], ["-o", "json", "--pod-patches"]]) {
      const fromFiles = await karta(["compile", "-f", "/mem/job.yaml", "--pods", "/mem/pods.yaml", ...flags], files);
      assert.equal(fromFiles.code, 0, fromFiles.err);
      for (const ref of [[`pytorchjob/${name}`], [`pytorchjobs.kubeflow.org/${name}`], ["PyTorchJob", name], [`pytorchjob.v1.kubeflow.org/${name}`]]) {
        const live = await karta(["compile", ...ref, "-n", ns, "--kubeconfig", kubeconfig, "--context", c.kc.getCurrentContext(), ...flags]);
        assert.equal(live.code, 0, live.err);
        assert.equal(live.out, fromFiles.out, `karta compile ${ref.join(" ")} ${flags.join(" ")}`);
      }
    }
    const patches = JSON.parse((await karta(["compile", `pytorchjob/${name}`, "-n", ns, "--kubeconfig", kubeconfig, "--pod-patches", "-o", "json"])).out) as { pod: { name: string } }[];
    assert.deepEqual(patches.map((p) => p.pod.name).sort(), pods.map((p) => p.metadata!.name!).sort(), "the stray pod is left out");
  });

  test("a Deployment, the ReplicaSet it owns and that ReplicaSet's pods: the same interpretation as from files", async () => {
    const fixture = cases.get("Deployment")!;
    const deployment = await c.objects.create(asCreated(fixture.workload, ns));
    const template = (fixture.workload as any).spec.template;
    const rs = await c.objects.create({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name: `${deployment.metadata!.name}-6d4b9f7c8`, namespace: ns, labels: { ...template.metadata.labels, "pod-template-hash": "6d4b9f7c8" }, ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: deployment.metadata!.name!, uid: deployment.metadata!.uid!, controller: true }] },
      spec: { replicas: fixture.pods.length, selector: { matchLabels: { ...template.metadata.labels, "pod-template-hash": "6d4b9f7c8" } }, template: { ...template, metadata: { ...template.metadata, labels: { ...template.metadata.labels, "pod-template-hash": "6d4b9f7c8" } } } },
    } as KubernetesObject);
    const other = await c.objects.create({ ...structuredClone(rs), metadata: { name: "unrelated-rs", namespace: ns, labels: rs.metadata!.labels! } } as KubernetesObject);
    for (const pod of fixture.pods) await c.objects.create(asCreated(pod, ns, rs));
    await c.objects.create(asCreated({ ...fixture.pods[0]!, metadata: { ...(fixture.pods[0]!.metadata as object), name: "other-owner" } }, ns, other));
    const name = deployment.metadata!.name!;

    const live = await karta(["inspect", `deployment/${name}`, "-n", ns, "--kubeconfig", kubeconfig, "-o", "json"]);
    assert.equal(live.code, 0, live.err);
    const pods = (await c.core.listNamespacedPod({ namespace: ns })).items.map((p) => JSON.parse(JSON.stringify(p)) as Obj).filter((p) => p.metadata!.ownerReferences?.[0]?.uid === rs.metadata!.uid);
    const files = { "/mem/deployment.yaml": stringify(await readBack(deployment)), "/mem/pods.yaml": stringify({ apiVersion: "v1", kind: "List", items: pods }), "/mem/rs.yaml": stringify(await readBack(rs)) };
    const fromFiles = await karta(["inspect", "-f", "/mem/deployment.yaml", "--pods", "/mem/pods.yaml", "--children", "/mem/rs.yaml", "-o", "json"], files);
    assert.equal(fromFiles.code, 0, fromFiles.err);
    assert.equal(live.out, fromFiles.out);
    const seen = JSON.stringify(JSON.parse(live.out));
    for (const p of fixture.pods) assert.ok(seen.includes((p.metadata as { name: string }).name), `pod ${(p.metadata as { name: string }).name} is in the interpretation`);
    assert.ok(!seen.includes("other-owner"), "a pod of a ReplicaSet the Deployment does not own");
    // The tree output names the object as it was read.
    const tree = await karta(["inspect", `deployments.apps/${name}`, "-n", ns, "--kubeconfig", kubeconfig]);
    assert.equal(tree.code, 0, tree.err);
    assert.match(tree.out, new RegExp(`^Deployment ${ns}/${name}`));
  });

  test("inspect KIND/NAME of a kind without a KAI plugin says whether KAI's Karta fallback finds one Karta for it stored in the cluster: none, one (Ready or not), or several", async () => {
    await installKartaCrd(c);
    keepPlainJson([{ group: "run.ai", version: "v1alpha1", kind: "Karta" }]);
    // The bundled Milvus Karta and example moved to a group of this test's own: other suites store the bundled Kartas.
    const group = "live-kai.karta.test";
    const regroup = (text: string): string => text.replaceAll("milvus.io", group);
    const crd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: `milvuses.${group}` },
      spec: {
        group,
        scope: "Namespaced",
        names: { kind: "Milvus", plural: "milvuses", singular: "milvus", listKind: "MilvusList" },
        versions: [{ name: "v1beta1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
      },
    };
    const r = await attempt(() => c.objects.create(crd as never));
    assert.ok(r.ok || r.reason === "AlreadyExists", r.ok ? "" : r.message);
    const milvus = asCreated(parse(regroup(readFileSync(path.join(repoRoot, "examples", "milvus.yaml"), "utf8"))) as Obj, ns);
    for (;;) {
      // The CRD may have been created just now: retry until it is served.
      const made = await attempt(() => c.objects.create(milvus));
      if (made.ok) break;
      if (made.code !== 404) assert.fail(made.message);
      await new Promise((res) => setTimeout(res, 200));
    }
    const definitionText = regroup(readFileSync(path.join(repoRoot, "definitions", "milvus.io", "v1beta1", "Milvus.yaml"), "utf8"));
    const definitionFile = path.join(dir, "milvus-karta.yaml");
    writeFileSync(definitionFile, definitionText);
    const definition = parse(definitionText) as Obj;
    const names = ["live-milvus-a", "live-milvus-b"];
    const store = (name: string) => c.objects.create({ ...definition, metadata: { ...definition.metadata, name } } as never);
    const inspect = async () => {
      const ref = [`milvuses.${group}/${milvus.metadata!.name}`, "-d", definitionFile, "-n", ns, "--kubeconfig", kubeconfig];
      const json = await karta(["inspect", ...ref, "-o", "json"]);
      const tree = await karta(["inspect", ...ref]);
      assert.equal(json.code, 0, json.err);
      return { kai: (JSON.parse(json.out) as { kaiPlugin: Record<string, unknown> }).kaiPlugin, tree: tree.out };
    };
    try {
      const none = await inspect();
      assert.deepEqual(none.kai, { name: "KartaGrouper", native: false, kartaLabels: true, storedInCluster: false });
      assert.match(none.tree, /no Karta for Milvus live-kai\.karta\.test\/v1beta1 with gang instructions and the run\.ai\/karta-group\/-version\/-kind labels is stored in this cluster/);
      // Stored by hand, no controller: never Ready, which KAI does not ask.
      await store(names[0]!);
      const one = await inspect();
      assert.deepEqual(one.kai, { name: "KartaGrouper", native: false, kartaLabels: true, storedInCluster: true });
      assert.doesNotMatch(one.tree, /KAI Scheduler's Karta fallback/);
      await store(names[1]!);
      const two = await inspect();
      assert.deepEqual(two.kai, { name: "KartaGrouper", native: false, kartaLabels: true, storedInCluster: false, storedKartas: names });
      assert.match(two.tree, /2 Kartas for Milvus live-kai\.karta\.test\/v1beta1 with gang instructions are stored in this cluster \(live-milvus-a, live-milvus-b\): KAI Scheduler's Karta fallback takes none of them/);
    } finally {
      for (const name of names) await attempt(() => c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name } } as never));
    }
  });

  test("a missing object, an unknown kind, an unknown context and an unreachable server are errors in kubectl's words", async () => {
    // kli's exit code 3: the named workload does not exist, or its kind is not installed.
    const missing = await karta(["compile", "pytorchjob/none", "-n", ns, "--kubeconfig", kubeconfig]);
    assert.equal(missing.code, 3);
    assert.equal(missing.err, `karta compile: pytorchjobs.kubeflow.org "none" not found in namespace ${ns}\n`);
    const kind = await karta(["inspect", "nosuchkind/x", "-n", ns, "--kubeconfig", kubeconfig]);
    assert.equal(kind.code, 3);
    assert.match(kind.err, /the server doesn't have a resource type "nosuchkind"/);
    const ctx = await karta(["inspect", "pytorchjob/x", "--kubeconfig", kubeconfig, "--context", "nope"]);
    assert.equal(ctx.code, 1); // a kubeconfig or cluster error, as in get and describe
    assert.match(ctx.err, /context was not found for specified context: nope/);
    const down = c.kc.exportConfig().replace(/https:\/\/127\.0\.0\.1:\d+/, "https://127.0.0.1:1");
    writeFileSync(path.join(dir, "down"), down);
    const unreachable = await karta(["inspect", "pytorchjob/x", "--kubeconfig", path.join(dir, "down")]);
    assert.equal(unreachable.code, 1);
    assert.match(unreachable.err, /cannot reach https:\/\/127\.0\.0\.1:1/);
  });
});
