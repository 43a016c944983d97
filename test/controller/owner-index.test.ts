/** The owner-uid index the workload reconciler reads pods and groups from. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubernetesObject } from "../../src/controller/kubernetes-object.js";
import { OwnerIndex } from "../../src/controller/owner-index.js";

const obj = (name: string, owners: string[], namespace = "ns"): KubernetesObject => ({
  metadata: { name, namespace, ownerReferences: owners.map((uid) => ({ apiVersion: "v1", kind: "X", name: uid, uid })) },
});
const names = (objects: KubernetesObject[]) => objects.map((o) => o.metadata?.name).sort();

test("OwnerIndex: objects by owner uid, moved when their references change, dropped on delete", () => {
  const index = new OwnerIndex();
  const a = obj("a", ["u1"]);
  const b = obj("b", ["u1", "u2"]);
  const aOther = obj("a", ["u1"], "other");
  index.set(a);
  index.set(b);
  index.set(obj("c", []));
  index.set(aOther);
  assert.deepEqual(names(index.ownedBy("u1")), ["a", "a", "b"]);
  assert.deepEqual(names(index.ownedBy("u2")), ["b"]);
  assert.deepEqual(index.ownedBy("none"), []);
  // An update that changes the owner moves the object.
  const moved = obj("b", ["u3"]);
  index.set(moved, b);
  assert.deepEqual(names(index.ownedBy("u1")), ["a", "a"]);
  assert.deepEqual(index.ownedBy("u2"), []);
  assert.deepEqual(names(index.ownedBy("u3")), ["b"]);
  // An update keeps one entry, with the newest object.
  const newer = obj("b", ["u3"]);
  newer.metadata!.labels = { v: "2" };
  index.set(newer, moved);
  assert.equal(index.ownedBy("u3").length, 1);
  assert.equal(index.ownedBy("u3")[0]!.metadata?.labels?.["v"], "2");
  index.remove(a);
  assert.deepEqual(index.ownedBy("u1").map((o) => o.metadata?.namespace), ["other"]);
  // An object never indexed changes nothing.
  index.remove(obj("a", ["u1"], "other"));
  assert.equal(index.ownedBy("u1").length, 1);
});
