/**
 * `karta controller`'s Karta reconciliation against a real kube-apiserver, running as a service account
 * bound to exactly the ClusterRole `karta rbac` generates (a missing rule fails these tests).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { KartaReconciler, type KartaObject } from "../../src/controller/kartas.js";
import { controllerRbac } from "../../src/controller/rbac.js";
import { silentLogger } from "../../src/controller/log.js";
import type { Karta } from "../../src/definition/index.js";
import { definitionsDir } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { asServiceAccount, attempt, eventually, testCluster, testNamespace, type TestCluster, kubeClient } from "../support/cluster.js";
import { installKartaCrd } from "./helpers.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;

const suffix = Math.random().toString(36).slice(2, 8);
const readYaml = (file: string) => parse(readFileSync(file, "utf8")) as Record<string, any>;

/** The bundled PyTorchJob Karta under a name unique to this run. */
function pytorchKarta(name: string): Record<string, any> {
  const k = readYaml(path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml"));
  k.metadata = { name };
  return k;
}

/** A Karta for a kind no CRD defines yet (group unique to this run). */
function trainJobKarta(name: string, group: string): Record<string, any> {
  const k = pytorchKarta(name);
  k.spec.structureDefinition.rootComponent.kind = { group, version: "v1", kind: "TrainJob" };
  for (const c of k.spec.structureDefinition.childComponents ?? []) if (c.kind?.group === "kubeflow.org") c.kind.group = group;
  return k;
}

function trainJobCrd(group: string): KubernetesObject {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `trainjobs.${group}` },
    spec: {
      group,
      names: { kind: "TrainJob", plural: "trainjobs", singular: "trainjob", listKind: "TrainJobList" },
      scope: "Namespaced",
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
    },
  } as KubernetesObject;
}

async function conditions(c: TestCluster, name: string): Promise<Record<string, { status: string; reason: string; message: string; observedGeneration?: number }>> {
  const k = (await c.objects.read({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name } })) as KartaObject;
  return Object.fromEntries((k.status?.conditions ?? []).map((x) => [x.type, x]));
}

describe("karta controller: Karta status, as the role karta rbac generates", { skip }, () => {
  const c = cluster as TestCluster;
  let reconciler: KartaReconciler;
  const group = `example-${suffix}.karta.test`;
  const names = { pytorch: `pytorchjob-${suffix}`, late: `trainjob-${suffix}`, invalid: `invalid-${suffix}` };

  before(async () => {
    await installKartaCrd(c);
    const pytorchCrd = readYaml(path.join(repoRoot, "test", "fixtures", "definition", "crds", "kubeflow.org_pytorchjobs.yaml"));
    const r = await attempt(() => c.objects.create(pytorchCrd as KubernetesObject));
    assert.ok(r.ok || r.reason === "AlreadyExists", r.ok ? "" : r.message);
    const ns = await testNamespace({ name: "controller-kartas" } as never, c);
    const role = controllerRbac([pytorchKarta("x"), trainJobKarta("y", group)] as unknown as Karta[], { namespace: ns });
    const { kc } = await asServiceAccount(c, ns, role);
    reconciler = new KartaReconciler(kubeClient(kc), silentLogger);
    await reconciler.start();
  });
  after(async () => {
    await reconciler?.stop();
    for (const name of Object.values(names)) await attempt(() => c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name } }));
    await attempt(() => c.objects.delete(trainJobCrd(group)));
  });

  test("the bundled PyTorchJob Karta with its CRD installed becomes Ready, with the root-kind labels", async () => {
    await c.objects.create(pytorchKarta(names.pytorch) as KubernetesObject);
    const conds = await eventually(async () => {
      const x = await conditions(c, names.pytorch);
      return x["Ready"]?.status === "True" ? x : undefined;
    }, 20_000, "Ready");
    assert.deepEqual(
      ["Validated", "CRDExists", "Ready"].map((t) => [t, conds[t]!.status, conds[t]!.reason, conds[t]!.message, conds[t]!.observedGeneration]),
      [["Validated", "True", "ValidationSucceeded", "", 1], ["CRDExists", "True", "CRDFound", "", 1], ["Ready", "True", "Ready", "", 1]],
    );
    const k = (await c.objects.read({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: names.pytorch } })) as KartaObject;
    assert.deepEqual(
      { g: k.metadata?.labels?.["run.ai/karta-group"], v: k.metadata?.labels?.["run.ai/karta-version"], k: k.metadata?.labels?.["run.ai/karta-kind"] },
      { g: "kubeflow.org", v: "v1", k: "PyTorchJob" },
    );
    assert.ok(reconciler.readyKartas().has(names.pytorch));
  });

  test("a Karta whose CRD is missing has CRDExists False, and becomes Ready once the CRD is applied", async () => {
    await c.objects.create(trainJobKarta(names.late, group) as KubernetesObject);
    const missing = await eventually(async () => {
      const x = await conditions(c, names.late);
      return x["CRDExists"] ? x : undefined;
    }, 20_000, "CRDExists");
    const message = `CRD for ${group}/TrainJob not found or does not serve version v1`;
    assert.deepEqual([missing["CRDExists"]!.status, missing["CRDExists"]!.reason, missing["CRDExists"]!.message], ["False", "CRDNotFound", message]);
    assert.deepEqual([missing["Ready"]!.status, missing["Ready"]!.reason, missing["Ready"]!.message], ["False", "NotReady", "Validated and CRDExists must both be True"]);
    assert.equal(missing["Validated"]!.status, "True");
    // The Warning Event upstream's operator records, on the Karta (cluster-scoped: in the default namespace).
    const event = await eventually(async () => {
      const list = (await c.objects.list("events.k8s.io/v1", "Event", "default")).items as (KubernetesObject & Record<string, any>)[];
      return list.find((e) => e.regarding?.name === names.late && e.reason === "CRDNotFound");
    }, 20_000, "the CRDNotFound Event");
    assert.deepEqual([event.type, event.action, event.note, event.reportingController, event.regarding.kind], ["Warning", "CheckingCRD", message, "karta-controller", "Karta"]);
    await c.objects.create(trainJobCrd(group));
    const ready = await eventually(async () => {
      const x = await conditions(c, names.late);
      return x["Ready"]?.status === "True" ? x : undefined;
    }, 20_000, "Ready after the CRD was applied");
    assert.equal(ready["CRDExists"]!.status, "True");
  });

  test("an invalid Karta has Validated False with the error's field path, and is not Ready", async () => {
    const k = pytorchKarta(names.invalid);
    // Passes the CRD's schema (a string), but is no jq program: our validator's error, not the server's.
    k.spec.structureDefinition.rootComponent.statusDefinition.conditionsDefinition.path = ".status.conditions[";
    const created = await attempt(() => c.objects.create(k as KubernetesObject));
    assert.ok(created.ok, created.ok ? "" : created.message);
    const conds = await eventually(async () => {
      const x = await conditions(c, names.invalid);
      return x["Validated"]?.reason === "ValidationFailed" ? x : undefined;
    }, 20_000, "Validated");
    assert.equal(conds["Validated"]!.status, "False");
    assert.match(conds["Validated"]!.message, /^spec\.structureDefinition\.rootComponent\.statusDefinition\.conditionsDefinition\.path: /);
    assert.equal(conds["Ready"]!.status, "False");
    assert.ok(!reconciler.readyKartas().has(names.invalid));
  });

  test("a fixed Karta becomes Ready, with observedGeneration following the spec", async () => {
    const current = (await c.objects.read({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: names.invalid } })) as KartaObject & { spec: any };
    current.spec.structureDefinition.rootComponent.statusDefinition.conditionsDefinition.path = ".status.conditions";
    await c.objects.replace(current as unknown as KubernetesObject);
    const conds = await eventually(async () => {
      const x = await conditions(c, names.invalid);
      return x["Ready"]?.status === "True" ? x : undefined;
    }, 20_000, "Ready after the fix");
    assert.equal(conds["Validated"]!.observedGeneration, 2);
  });
});
