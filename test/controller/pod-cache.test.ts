/** The pod cache's judgement of an update: only a new resourceVersion, or something a reconcile reads. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { changedOnlyVersion, trimPod } from "../../src/controller/pod-cache.js";

const fields = new Set(["spec.nodeName", "spec.schedulingGroup", "status.phase"]);
const pod = (resourceVersion: string, more: { labels?: Record<string, string>; deletionTimestamp?: string; phase?: string; conditions?: unknown[] } = {}) =>
  trimPod(
    {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "w-0", namespace: "team", uid: "u1", resourceVersion, ...(more.labels ? { labels: more.labels } : {}), ...(more.deletionTimestamp ? { deletionTimestamp: more.deletionTimestamp } : {}) },
      spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }] },
      status: { phase: more.phase ?? "Running", ...(more.conditions ? { conditions: more.conditions } : {}) },
    },
    fields,
  );

test("an update that changed only fields the cache does not keep is only a new resourceVersion; metadata, spec and status kept are changes", () => {
  const old = pod("10");
  assert.equal(changedOnlyVersion(pod("11", { conditions: [{ type: "Ready", status: "False" }] }), old), true, "a condition no Karta reads");
  assert.equal(changedOnlyVersion(pod("11"), old), true);
  assert.equal(changedOnlyVersion(pod("11", { phase: "Succeeded" }), old), false, "the phase is kept");
  assert.equal(changedOnlyVersion(pod("11", { labels: { a: "b" } }), old), false, "metadata is kept whole");
  assert.equal(changedOnlyVersion(pod("11", { deletionTimestamp: "2026-12-06T10:00:00Z" }), old), false);
});
