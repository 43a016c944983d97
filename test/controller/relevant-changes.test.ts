/**
 * Which watch updates the controller queues a reconcile for: not one that changed only a resourceVersion
 * (pods trimmed to what Kartas read), nor a root's new status where the compile reads none.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { podFieldsRead, trimPod } from "../../src/controller/pod-cache.js";
import { changedOnly, compileReadsStatus } from "../../src/controller/relevant-changes.js";
import type { Karta } from "../../src/definition/index.js";
import { definitionsDir } from "../bundled/helpers.js";

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

test("a pod update that changed only fields the cache does not keep is only a new resourceVersion; metadata, spec and status kept are changes", () => {
  const old = pod("10");
  assert.equal(changedOnly(pod("11", { conditions: [{ type: "Ready", status: "False" }] }), old), true, "a condition no Karta reads");
  assert.equal(changedOnly(pod("11"), old), true);
  assert.equal(changedOnly(pod("11", { phase: "Succeeded" }), old), false, "the phase is kept");
  assert.equal(changedOnly(pod("11", { labels: { a: "b" } }), old), false, "metadata is kept whole");
  assert.equal(changedOnly(pod("11", { deletionTimestamp: "2026-12-06T10:00:00Z" }), old), false);
  assert.equal(changedOnly(pod("11", { phase: "Succeeded" }), old, true), true, "with status: its changes do not count");
});

const karta = (scale: string, podKey = '.metadata.labels["role"]', more: { template?: string; instanceId?: string; karmada?: string } = {}): Karta =>
  ({
    apiVersion: "run.ai/v1alpha1",
    kind: "Karta",
    metadata: { name: "k" },
    spec: {
      structureDefinition: {
        rootComponent: {
          name: "job",
          kind: { group: "example.com", version: "v1", kind: "Job" },
          specDefinition: { podTemplateSpecPath: more.template ?? ".spec.template" },
          scaleDefinition: { replicasPath: scale },
          statusDefinition: { conditionsDefinition: { path: ".status.conditions" } },
          suspendDefinition: { suspendActions: [{ path: ".status.suspended", value: true }], resumeActions: [{ path: ".status.suspended", value: false }] },
          podSelector: { componentTypeSelector: { keyPath: podKey, value: "worker" } },
          ...(more.instanceId ? { instanceIdPath: more.instanceId } : {}),
        },
      },
      ...(more.karmada ? { karmada: { health: { expression: more.karmada } } } : {}),
    },
  }) as unknown as Karta;

test("a compile reads the root's status when an expression it evaluates reads under .status, uses the whole object, or reads what cannot be followed; the generic status, actions and Karmada's expressions do not count", () => {
  assert.equal(compileReadsStatus(karta(".spec.replicas")), false, "the status mapping and the suspend actions name .status, but the compile never evaluates them");
  assert.equal(compileReadsStatus(karta(".spec.replicas", undefined, { karmada: ".status.ready == true" })), false, "Karmada's health expression");
  assert.equal(compileReadsStatus(karta(".status.replicas")), true);
  assert.equal(compileReadsStatus(karta(".spec.replicas", undefined, { instanceId: ".status.shards[].id" })), true, "an instance id");
  assert.equal(compileReadsStatus(karta(".spec.replicas", undefined, { template: "." })), true, "the whole object as the pod template (a Pod as its own root)");
  assert.equal(compileReadsStatus(karta('if has("status") then 2 else 1 end')), true, "a builtin given the whole object");
  assert.equal(compileReadsStatus(karta("tojson | length")), true);
  assert.equal(compileReadsStatus(karta('"\\(.)" | length')), true, "an interpolation of the whole object");
  assert.equal(compileReadsStatus(karta("[.[]] | length")), true, "`.[]` yields .status too");
  assert.equal(compileReadsStatus(karta(".[$__loc__.file]")), true, "a read that cannot be followed");
  assert.equal(compileReadsStatus(karta(".spec | keys | length")), false, "the whole of .spec is not its status");
});

test("a pod expression that iterates or uses the whole pod keeps the whole pod in the cache", () => {
  assert.deepEqual(podFieldsRead(karta(".spec.replicas")), new Set());
  assert.equal(podFieldsRead(karta(".spec.replicas", "[.[]] | length")), "all");
  assert.equal(podFieldsRead(karta(".spec.replicas", "tojson")), "all");
  assert.equal(podFieldsRead(karta(".spec.replicas", ".spec | tojson")), "all");
  assert.deepEqual(podFieldsRead(karta(".spec.replicas", ".spec.nodeSelector | tojson")), new Set(["spec.nodeSelector"]));
});

test("the bundled Kartas: 42 of 44 compile without the root's status; a DaemonSet's scale is its status", () => {
  const files: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.endsWith(".yaml")) files.push(path.join(d, e.name));
    }
  };
  walk(definitionsDir);
  const reading = files.filter((f) => compileReadsStatus(parse(readFileSync(f, "utf8")) as Karta)).map((f) => path.relative(definitionsDir, f));
  for (const f of ["kubeflow.org/v1/PyTorchJob.yaml", "jobset.x-k8s.io/v1alpha2/JobSet.yaml", "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet.yaml", "ray.io/v1/RayCluster.yaml", "batch/v1/Job.yaml"]) {
    assert.ok(files.includes(path.join(definitionsDir, f)) && !reading.includes(f), f);
  }
  assert.ok(reading.includes("apps/v1/DaemonSet.yaml"), "replicasPath: .status.desiredNumberScheduled");
  // AppWrapper reads through a path the analysis cannot follow (getpath): counted as reading it.
  assert.deepEqual(reading.sort(), ["apps/v1/DaemonSet.yaml", "workload.codeflare.dev/v1beta2/AppWrapper.yaml"]);
});
