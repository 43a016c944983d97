/** The owner-uid index the workload reconciler reads pods and groups from. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubernetesObject } from "@kubernetes/client-node";
import { OwnerIndex } from "../../src/controller/owner-index.js";

const obj = (name: string, owners: string[], namespace = "ns"): KubernetesObject => ({
  metadata: { name, namespace, ownerReferences: owners.map((uid) => ({ apiVersion: "v1", kind: "X", name: uid, uid })) },
});
const names = (objects: KubernetesObject[]) => objects.map((o) => o.metadata?.name).sort();

test("OwnerIndex: objects by owner uid, moved when their references change, dropped on delete", () => {
  const index = new OwnerIndex();
  index.set(obj("a", ["u1"]));
  index.set(obj("b", ["u1", "u2"]));
  index.set(obj("c", []));
  index.set(obj("a", ["u1"], "other"));
  assert.deepEqual(names(index.ownedBy("u1")), ["a", "a", "b"]);
  assert.deepEqual(names(index.ownedBy("u2")), ["b"]);
  assert.deepEqual(index.ownedBy("none"), []);
  // An update that changes the owner moves the object.
  index.set(obj("b", ["u3"]));
  assert.deepEqual(names(index.ownedBy("u1")), ["a", "a"]);
  assert.deepEqual(index.ownedBy("u2"), []);
  assert.deepEqual(names(index.ownedBy("u3")), ["b"]);
  // An update keeps one entry, with the newest object.
  const newer = obj("b", ["u3"]);
  newer.metadata!.labels = { v: "2" };
  index.set(newer);
  assert.equal(index.ownedBy("u3").length, 1);
  assert.equal(index.ownedBy("u3")[0]!.metadata?.labels?.["v"], "2");
  index.remove(obj("a", [], "ns"));
  assert.deepEqual(index.ownedBy("u1").map((o) => o.metadata?.namespace), ["other"]);
  index.remove(obj("never-seen", ["u1"]));
  assert.equal(index.ownedBy("u1").length, 1);
});
