/**
 * The controller's informer (src/controller/informer.ts) against a real kube-apiserver: objects from the
 * initial list and from the watch (added, modified) reach the cache and the handlers through the
 * transform (here: without metadata.managedFields, which the server sets on every write), and nothing else
 * of them changes.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { PatchStrategy, type KubernetesObject as ClientObject } from "@kubernetes/client-node";
import type { KubernetesObject } from "../../src/controller/kubernetes-object.js";
import { Informer } from "../../src/controller/informer.js";
import { withoutManagedFields } from "../../src/controller/kartas.js";
import { silentLogger } from "../../src/controller/log.js";
import { kubeClient, testCluster, testNamespace, type TestCluster } from "../support/cluster.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;
type Obj = KubernetesObject & Record<string, any>;

const pod = (namespace: string, name: string): Obj => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace, labels: { app: "lean" } },
  spec: { containers: [{ name: "main", image: "registry.k8s.io/pause:3.10" }] },
});

function waitFor<T>(what: string, check: () => T | undefined, ms = 15_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const until = Date.now() + ms;
    const poll = (): void => {
      const v = check();
      if (v !== undefined) return resolve(v);
      if (Date.now() > until) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(poll, 50);
    };
    poll();
  });
}

describe("the controller's informer", { skip }, () => {
  const c = cluster as TestCluster;
  let ns: string;
  before(async () => {
    ns = await testNamespace({ name: "lean-informer" } as never, c);
  });
  after(async () => {
    await c.core.deleteNamespace({ name: ns }).catch(() => undefined);
  });

  test("listed, added and modified pods arrive stripped; the server's copy keeps them", async () => {
    await c.objects.create(pod(ns, "listed") as ClientObject);
    const informer = new Informer<Obj>(kubeClient(c.kc), { path: `/api/v1/namespaces/${ns}/pods`, what: "pods", log: silentLogger, transform: withoutManagedFields });
    const seen: Obj[] = [];
    informer.on("add", (o) => seen.push(o));
    informer.on("update", (o) => seen.push(o));
    await informer.start();
    try {
      const listed = informer.get("listed", ns);
      assert.ok(listed, "the listed pod is cached");
      assert.equal(listed.metadata?.managedFields, undefined);
      assert.equal(listed.metadata?.labels?.["app"], "lean");
      assert.equal(listed.spec.containers[0].image, "registry.k8s.io/pause:3.10");

      await c.objects.create(pod(ns, "watched") as ClientObject);
      const added = await waitFor("the added pod", () => informer.get("watched", ns));
      assert.equal(added.metadata?.managedFields, undefined);
      await c.objects.patch({ apiVersion: "v1", kind: "Pod", metadata: { name: "watched", namespace: ns, labels: { step: "2" } } } as never, undefined, undefined, "lean-test", undefined, PatchStrategy.MergePatch);
      const modified = await waitFor("the modified pod", () => {
        const p = informer.get("watched", ns);
        return p?.metadata?.labels?.["step"] === "2" ? p : undefined;
      });
      assert.equal(modified.metadata?.managedFields, undefined);
      assert.ok(seen.length >= 3 && seen.every((o) => o.metadata?.managedFields === undefined), "handlers see stripped objects");

      // The server still has them (the informer only trims its own copies).
      const onServer = (await c.core.readNamespacedPod({ name: "watched", namespace: ns })) as unknown as Obj;
      assert.ok(Array.isArray(onServer.metadata?.managedFields) && onServer.metadata.managedFields.length >= 2, "the API server sets managedFields on each write");
    } finally {
      await informer.stop();
    }
  });

  test("recheck: an object kept while what it depends on was unknown is dropped, as a delete, once it is refused", async () => {
    // As a shard keeps a pod whose owner is not cached yet, and drops it once the owner is another shard's.
    const refused = new Set<string>();
    const informer = new Informer<Obj>(kubeClient(c.kc), { path: `/api/v1/namespaces/${ns}/pods`, what: "pods", log: silentLogger, keep: (o) => !refused.has(o.metadata?.name ?? "") });
    const deleted: string[] = [];
    informer.on("delete", (o) => deleted.push(o.metadata?.name ?? ""));
    await c.objects.create(pod(ns, "kept") as ClientObject);
    await informer.start();
    try {
      const kept = informer.get("kept", ns)!;
      const listed = informer.get("listed", ns)!;
      assert.ok(kept && listed);
      refused.add("kept");
      informer.recheck(listed);
      informer.recheck(kept);
      assert.equal(informer.get("kept", ns), undefined);
      assert.ok(informer.get("listed", ns));
      assert.deepEqual(deleted, ["kept"]);
      informer.recheck(kept); // no longer cached: nothing happens
      assert.deepEqual(deleted, ["kept"]);
    } finally {
      await informer.stop();
    }
  });
});
