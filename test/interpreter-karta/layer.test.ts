/**
 * The Karta layer on realistic workloads (the bundled fixtures of test/fixtures/bundled and operator-shaped
 * objects): what each operation answers, what it leaves to other layers, its place in the framework (a
 * user's Lua customization overrides it; an undecided health falls through) and `karta interpret -d`.
 */
import { describe, test } from "node:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import assert from "node:assert/strict";
import { runInterpret } from "../../src/cli/interpret.js";
import { memoryIO } from "../../src/cli/io.js";
import { customizationOf } from "../../src/interpreter/declarative/customization.js";
import { createDeclarativeInterpreter } from "../../src/interpreter/declarative/interpreter.js";
import { createInterpreterFramework, UNDECIDED } from "../../src/interpreter/framework.js";
import { componentNames, createKartaInterpreter, fitComponentName, KartaLayer, loadKartaText } from "../../src/interpreter/karta/index.js";
import { createNativeInterpreter } from "../../src/interpreter/native/index.js";
import type { KubeObject } from "../../src/interpreter/types.js";
import { parse, stringify } from "yaml";
import { bundledLayer, fixtureWorkload, readBundled } from "./helpers.js";

/** The bundled Kartas with these files' `spec.karmada` extension removed: health from the status mappings alone. */
function mappingsOnlyLayer(...files: string[]): KartaLayer {
  const defs = files.flatMap((f) => {
    const karta = parse(readBundled(f)) as { spec: Record<string, unknown> };
    delete karta.spec.karmada;
    return loadKartaText(stringify(karta), f).definitions;
  });
  return new KartaLayer(defs);
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

function value<T>(o: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!o.ok) assert.fail(o.error.message);
  return o.value;
}

const cond = (type: string, status: string, reason = type): KubeObject => ({ type, status, reason, lastTransitionTime: "2026-11-29T19:20:00Z" });

/** An OpenKruise CloneSet Karta, as a user would write one (a plain, assignable replicas path). */
const CLONESET_KARTA = `apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: apps-kruise-io-v1alpha1-cloneset}
spec:
  structureDefinition:
    rootComponent:
      name: cloneset
      kind: {group: apps.kruise.io, version: v1alpha1, kind: CloneSet}
      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: .spec.replicas}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions, typeFieldName: type, statusFieldName: status}
        statusMappings:
          running:
            - byExpression: {expression: "(.status.readyReplicas // 0) >= (.spec.replicas // 1)", expectedResult: "true"}
          failed:
            - byConditions: [{type: FailedScale, status: "True"}]
`;

function cloneSet(): KubeObject {
  return {
    apiVersion: "apps.kruise.io/v1alpha1",
    kind: "CloneSet",
    metadata: { name: "sample", namespace: "shop", generation: 3 },
    spec: {
      replicas: 5,
      selector: { matchLabels: { app: "sample" } },
      template: {
        metadata: { labels: { app: "sample" } },
        spec: {
          serviceAccountName: "sample",
          containers: [{ name: "main", image: "nginx:1.27", resources: { requests: { cpu: "250m", memory: "256Mi" } } }],
        },
      },
      updateStrategy: { type: "InPlaceIfPossible", maxUnavailable: "20%" },
    },
    status: { observedGeneration: 3, replicas: 5, readyReplicas: 5, updatedReplicas: 5, availableReplicas: 5 },
  };
}

function userLayer(text: string, file = "user.yaml"): KartaLayer {
  const loaded = loadKartaText(text, file);
  assert.deepEqual(loaded.diagnostics, []);
  const { interpreter, issues } = createKartaInterpreter({ definitions: loaded.definitions });
  assert.deepEqual(issues, []);
  return interpreter;
}

describe("InterpretComponent", () => {
  test("RayCluster: the head and one component per worker group, counted in pods (numOfHosts, suspended groups)", () => {
    const components = value(bundledLayer().interpretComponent(fixtureWorkload("RayCluster")));
    assert.deepEqual(
      components.map((c) => [c.name, c.replicas]),
      [
        ["ray-head", 1],
        ["gpu-workers", 4],
        ["cpu-workers", 3],
        ["spare-gpu", 0],
      ],
    );
    assert.deepEqual(components[1]!.replicaRequirements, { resourceRequest: { cpu: "16", memory: "120Gi", "nvidia.com/gpu": "8" } });
    for (const c of components) assert.equal("namespace" in (c.replicaRequirements ?? {}), false, "a Component's requirements have no namespace");
  });

  test("LeaderWorkerSet: leader and worker replicas are multiplied by the number of groups", () => {
    const lws = fixtureWorkload("LeaderWorkerSet");
    const spec = lws.spec as { replicas: number; leaderWorkerTemplate: { size: number } };
    const components = value(bundledLayer().interpretComponent(lws));
    assert.deepEqual(
      components.map((c) => [c.name, c.replicas]),
      [
        ["leader", spec.replicas],
        ["worker", spec.replicas * (spec.leaderWorkerTemplate.size - 1)],
      ],
    );
  });

  test("JobSet: replicated jobs are named by their names; names over 32 characters are shortened, unique", () => {
    const jobset = fixtureWorkload("JobSet");
    const jobs = (jobset.spec as { replicatedJobs: KubeObject[] }).replicatedJobs;
    const long = clone(jobs[1]!);
    long.name = "workers-with-a-name-much-longer-than-karmada-allows";
    const twin = clone(jobs[1]!);
    twin.name = "workers-with-a-name-much-longer-than-karmada-allows-too";
    (jobset.spec as { replicatedJobs: KubeObject[] }).replicatedJobs = [...jobs, long, twin];
    const names = value(bundledLayer().interpretComponent(jobset)).map((c) => c.name);
    assert.deepEqual(names.slice(0, 2), ["driver", "workers"]);
    assert.equal(new Set(names).size, names.length);
    for (const n of names) assert.ok(n.length <= 32, n);
    assert.match(names[2]!, /^workers-with-a-name-muc-[0-9a-f]{8}$/);
  });

  test("PyTorchJob without a Master reports the worker only", () => {
    const job = fixtureWorkload("PyTorchJob");
    delete (job.spec as { pytorchReplicaSpecs: Record<string, unknown> }).pytorchReplicaSpecs.Master;
    assert.deepEqual(
      value(bundledLayer().interpretComponent(job)).map((c) => c.name),
      ["worker"],
    );
  });

  test("a replica count the definition cannot read is an error value naming the Karta field", () => {
    const job = fixtureWorkload("PyTorchJob");
    (job.spec as { pytorchReplicaSpecs: { Worker: KubeObject } }).pytorchReplicaSpecs.Worker.replicas = 2.5;
    const out = bundledLayer().interpretComponent(job);
    assert.equal(out.ok, false);
    if (!out.ok) {
      assert.equal(out.error.layer, "karta");
      assert.match(out.error.path ?? "", /^spec\.structureDefinition\.childComponents\[1\]\.scaleDefinition/);
      assert.match(out.error.message, /must yield an integer replica count, got 2\.5/);
    }
  });

  test("naming rule: instance ids, then <component>-<id>, then numbered; at most 32 characters", () => {
    assert.deepEqual(
      componentNames([{ component: "ray-head" }, { component: "worker", instance: "ray-head" }, { component: "worker", instance: "gpu" }, { component: "gpu" }]),
      ["ray-head", "worker-ray-head", "gpu", "gpu-2"],
    );
    assert.equal(fitComponentName("x".repeat(32)), "x".repeat(32));
    assert.equal(fitComponentName("x".repeat(33)).length, 32);
    assert.notEqual(fitComponentName("a".repeat(40)), fitComponentName(`${"a".repeat(39)}b`));
  });
});

describe("InterpretReplica and ReviseReplica", () => {
  test("single-template kinds answer InterpretReplica; multi-template kinds InterpretComponent only", () => {
    const layer = bundledLayer();
    const kind = (apiVersion: string, k: string) => ({ apiVersion, kind: k });
    assert.equal(layer.supports(kind("apps/v1", "Deployment"), "InterpretReplica"), true);
    assert.equal(layer.supports(kind("apps/v1", "Deployment"), "InterpretComponent"), false);
    assert.equal(layer.supports(kind("ray.io/v1", "RayCluster"), "InterpretReplica"), false);
    assert.equal(layer.supports(kind("ray.io/v1", "RayCluster"), "InterpretComponent"), true);
    assert.equal(layer.supports(kind("v1", "ConfigMap"), "InterpretHealth"), false);
    const deployment = fixtureWorkload("Deployment");
    for (const op of ["Retain", "AggregateStatus", "InterpretStatus"] as const) assert.equal(layer.supports(kind("apps/v1", "Deployment"), op), false);
    assert.deepEqual(layer.retain(deployment, deployment), { ok: false, error: { operation: "Retain", message: "no Karta interprets Retain for Deployment apps/v1", layer: "karta" } });
    const r = value(layer.interpretReplica(deployment));
    assert.equal(r.replicas, (deployment.spec as { replicas: number }).replicas);
    assert.ok(r.replicaRequirements?.resourceRequest?.cpu);
  });

  test("ReviseReplica writes an assignable replicas path, and only that", () => {
    const layer = userLayer(CLONESET_KARTA);
    const original = cloneSet();
    const revised = value(layer.reviseReplica(original, 2));
    assert.equal((revised.spec as { replicas: number }).replicas, 2);
    assert.deepEqual({ ...revised, spec: { ...(revised.spec as object), replicas: 5 } }, original);
    assert.equal((original.spec as { replicas: number }).replicas, 5, "the input is not modified");
    const missing = cloneSet();
    delete (missing.spec as { replicas?: number }).replicas;
    assert.equal((value(layer.reviseReplica(missing, 3)).spec as { replicas: number }).replicas, 3, "a missing field is added");
    // `.spec.replicas // 1`: the default is what the API assumes when the field is absent; ReviseReplica writes `.spec.replicas`.
    const deployment = fixtureWorkload("Deployment");
    assert.equal((value(bundledLayer().reviseReplica(deployment, 7)).spec as { replicas: number }).replicas, 7);
    // A replica count computed from several fields cannot be written.
    const computed = userLayer(CLONESET_KARTA.replace("replicasPath: .spec.replicas", "replicasPath: (.spec.replicas // 1) * 2"));
    assert.equal(computed.supports({ apiVersion: "apps.kruise.io/v1alpha1", kind: "CloneSet" }, "ReviseReplica"), false);
  });
});

describe("InterpretHealth", () => {
  const ray = (status: KubeObject | undefined, suspend = false): KubeObject => {
    const w = fixtureWorkload("RayCluster");
    if (status === undefined) delete w.status;
    else w.status = status;
    if (suspend) (w.spec as { suspend?: boolean }).suspend = true;
    return w;
  };
  const cases: [string, KubeObject, boolean | typeof UNDECIDED][] = [
    ["RayCluster ready", ray({ state: "ready", conditions: [cond("RayClusterProvisioned", "True", "AllPodRunningAndReadyFirstTime"), cond("HeadPodReady", "True", "HeadPodRunningAndReady")] }), true],
    ["RayCluster head lost after provisioning (Degraded)", ray({ conditions: [cond("RayClusterProvisioned", "True", "AllPodRunningAndReadyFirstTime"), cond("HeadPodReady", "False", "HeadPodNotReady")] }), false],
    // KubeRay's condition type is ReplicaFailure (Karmada's own RayCluster rule reads RayClusterReplicaFailure).
    ["RayCluster replica failure wins over ready", ray({ state: "ready", conditions: [cond("ReplicaFailure", "True", "FailedCreateWorkerPod")] }), false],
    ["RayCluster failed (older operators)", ray({ state: "failed" }), false],
    ["RayCluster just created (Initializing): undecided", ray(undefined), UNDECIDED],
    ["RayCluster suspended: undecided", ray({ state: "suspended", conditions: [cond("RayClusterSuspended", "True")] }, true), UNDECIDED],
  ];
  for (const [name, obj, expected] of cases) {
    test(`status mappings: ${name}`, () => assert.equal(value(mappingsOnlyLayer("ray.io/v1/RayCluster.yaml").interpretHealth(obj)), expected));
  }

  test("the spec.karmada health expression decides where the mappings do not (Karmada's RayCluster rule)", () => {
    const layer = bundledLayer();
    assert.equal(value(layer.interpretHealth(ray(undefined))), false, "just created: not provisioned yet");
    assert.equal(value(layer.interpretHealth(ray({ state: "suspended", conditions: [cond("RayClusterSuspended", "True")] }, true))), false);
    assert.equal(value(layer.interpretHealth(cases[0]![1])), true);
  });

  test("OpenKruise kinds: health as Karmada's own scripts decide it; what they cannot compare is an error (Unknown), not unhealthy", () => {
    const layer = bundledLayer();
    const meta = { name: "w", namespace: "ns", generation: 2 };
    const health = (apiVersion: string, kind: string, spec: unknown, status: unknown): boolean | string => {
      const o = layer.interpretHealth({ apiVersion, kind, metadata: meta, ...(spec === undefined ? {} : { spec }), ...(status === undefined ? {} : { status }) } as KubeObject);
      return o.ok ? (o.value as boolean) : `error: ${o.error.message.replace(/^.*expression: /, "")}`;
    };
    const rollout = { observedGeneration: 2, updatedReplicas: 3, availableReplicas: 3 };
    for (const [apiVersion, kind] of [["apps.kruise.io/v1alpha1", "CloneSet"], ["apps.kruise.io/v1beta1", "StatefulSet"]] as const) {
      assert.equal(health(apiVersion, kind, { replicas: 3 }, rollout), true, kind);
      assert.equal(health(apiVersion, kind, { replicas: 4 }, rollout), false, kind);
      assert.equal(health(apiVersion, kind, { replicas: 3 }, undefined), "error: the object has no status yet: health unknown", kind);
      // Karmada's script compares the counts with `<`: one that is not set fails it.
      assert.equal(health(apiVersion, kind, { replicas: 3 }, { observedGeneration: 2, updatedReplicas: 3 }), "error: status.availableReplicas is not set yet: health unknown", kind);
      // The generation is compared first (with ~=, nil is only unequal), the spec read after it.
      assert.equal(health(apiVersion, kind, undefined, { ...rollout, observedGeneration: 1 }), false, kind);
      assert.equal(health(apiVersion, kind, undefined, rollout), "error: the object has no spec: health unknown", kind);
    }
    const ds = (status: unknown) => health("apps.kruise.io/v1alpha1", "DaemonSet", {}, status);
    assert.equal(ds({ observedGeneration: 2, desiredNumberScheduled: 2, updatedNumberScheduled: 2, numberAvailable: 2 }), true);
    assert.equal(ds({ observedGeneration: 2, desiredNumberScheduled: 2, numberAvailable: 2 }), "error: status.updatedNumberScheduled is not set yet: health unknown");
    const bcj = (status: unknown) => health("apps.kruise.io/v1alpha1", "BroadcastJob", {}, status);
    // nil == 0 is false and nil ~= 0 true in Lua, as null in jq: no `succeeded` is healthy while active, no `failed` unhealthy.
    assert.equal(bcj({ desired: 1, active: 0, failed: 0 }), true);
    assert.equal(bcj({ desired: 1, active: 1, succeeded: 0 }), false);
    assert.equal(bcj({ desired: 1, active: 0, succeeded: 0, failed: 0 }), false);
    assert.equal(bcj(undefined), "error: the object has no status yet: health unknown");
    // UnitedDeployment's script answers false for a missing status or spec, and fails on a missing count.
    const ud = (spec: unknown, status: unknown) => health("apps.kruise.io/v1alpha1", "UnitedDeployment", spec, status);
    assert.equal(ud({ replicas: 3 }, undefined), false);
    assert.equal(ud(undefined, rollout), false);
    assert.equal(ud({ replicas: 3 }, { observedGeneration: 2, availableReplicas: 3 }), "error: status.updatedReplicas is not set yet: health unknown");
  });

  test("PyTorchJob: Succeeded healthy, Restarting unhealthy, Created only undecided (status mappings)", () => {
    const job = (conditions: KubeObject[]): KubeObject => ({ ...fixtureWorkload("PyTorchJob"), status: { conditions } });
    const layer = mappingsOnlyLayer("kubeflow.org/v1/PyTorchJob.yaml");
    assert.equal(value(layer.interpretHealth(job([cond("Created", "True", "PyTorchJobCreated"), cond("Running", "False"), cond("Succeeded", "True", "PyTorchJobSucceeded")]))), true);
    assert.equal(value(layer.interpretHealth(job([cond("Created", "True"), cond("Running", "True"), cond("Restarting", "True", "PyTorchJobRestarting")]))), false);
    assert.equal(value(layer.interpretHealth(job([cond("Created", "True", "PyTorchJobCreated")]))), UNDECIDED);
  });
});

describe("InterpretDependency", () => {
  test("PyTorchJob: ConfigMaps, Secrets, ServiceAccount and PVCs of both templates, deduplicated and sorted", () => {
    const job = fixtureWorkload("PyTorchJob");
    const ns = (job.metadata as { namespace: string }).namespace;
    const specs = (job.spec as { pytorchReplicaSpecs: Record<string, { template: { spec: KubeObject } }> }).pytorchReplicaSpecs;
    for (const role of ["Master", "Worker"]) {
      const pod = specs[role]!.template.spec;
      pod.serviceAccountName = "trainer";
      pod.imagePullSecrets = [{ name: "registry-creds" }];
      pod.volumes = [...((pod.volumes as KubeObject[] | undefined) ?? []), { name: "data", persistentVolumeClaim: { claimName: "corpus" } }, { name: "hf", secret: { secretName: `hf-token-${role.toLowerCase()}` } }];
    }
    const deps = value(bundledLayer().interpretDependency(job));
    assert.deepEqual(
      deps.map((d) => `${d.apiVersion} ${d.kind} ${d.namespace}/${d.name}`),
      [
        `v1 ConfigMap ${ns}/bert-pretrain-config`,
        `v1 PersistentVolumeClaim ${ns}/corpus`,
        `v1 Secret ${ns}/hf-token-master`,
        `v1 Secret ${ns}/hf-token-worker`,
        `v1 Secret ${ns}/registry-creds`,
        `v1 ServiceAccount ${ns}/trainer`,
      ],
    );
  });
});

describe("in the framework", () => {
  const rayComponentsRic = customizationOf("raycluster-site-policy", { apiVersion: "ray.io/v1", kind: "RayCluster" }, {
    componentResource: `function GetComponents(obj) return {{name = "whole-cluster", replicas = 8}} end`,
    healthInterpretation: `function InterpretHealth(obj) return obj.status ~= nil and obj.status.state == "ready" end`,
  });

  test("a user's Lua customization overrides the Karta for the same operation, and only that one", async () => {
    const declarative = await createDeclarativeInterpreter([rayComponentsRic]);
    try {
      const ray = fixtureWorkload("RayCluster");
      const fw = createInterpreterFramework({ declarative, karta: bundledLayer(), native: createNativeInterpreter() }, { multiplePodTemplatesScheduling: true });
      const components = await fw.interpretComponents(ray);
      assert.ok(components.ok);
      assert.equal(components.layer, "declarative");
      assert.deepEqual(components.value, [{ name: "whole-cluster", replicas: 8 }]);
      const deps = await fw.getDependencies(ray);
      assert.ok(deps.ok);
      assert.equal(deps.layer, "karta", "no customization for InterpretDependency: the Karta answers");
      const withoutUser = createInterpreterFramework({ karta: bundledLayer(), native: createNativeInterpreter() }, { multiplePodTemplatesScheduling: true });
      const workload = await withoutUser.interpretWorkload(ray);
      assert.ok(workload.ok);
      assert.equal(workload.layer, "karta");
      assert.equal(workload.value.mode, "components");
    } finally {
      declarative.close();
    }
  });

  test("an undecided health falls through to the next layer; a decided one does not", async () => {
    const thirdparty = await createDeclarativeInterpreter([rayComponentsRic], { layer: "thirdparty" });
    try {
      const fw = createInterpreterFramework({ karta: mappingsOnlyLayer("ray.io/v1/RayCluster.yaml"), thirdparty, native: createNativeInterpreter() });
      const fresh = fixtureWorkload("RayCluster");
      fresh.status = { state: "ready" };
      const decided = await fw.interpretHealth(fresh);
      assert.deepEqual(decided, { ok: true, value: true, layer: "karta" });
      const created = fixtureWorkload("RayCluster");
      delete created.status;
      const undecided = await fw.interpretHealth(created);
      assert.deepEqual(undecided, { ok: true, value: false, layer: "thirdparty" });
    } finally {
      thirdparty.close();
    }
  });

  test("bundled Kartas leave Kubernetes' own kinds to the built-in interpreters, except where those have no answer", async () => {
    const native = createNativeInterpreter();
    const { interpreter: karta, issues } = createKartaInterpreter({ builtin: native });
    assert.deepEqual(issues, []);
    const fw = createInterpreterFramework({ karta, native });
    const deployment = fixtureWorkload("Deployment");
    const fromNative = await fw.interpretReplica(deployment);
    assert.equal(fromNative.ok && fromNative.layer, "native");
    assert.equal(fw.answering({ apiVersion: "apps/v1", kind: "Deployment" }, "InterpretHealth"), "native");
    const revised = await fw.reviseReplica(deployment, 1);
    assert.ok(revised.ok);
    assert.equal(revised.layer, "native");
    assert.equal((revised.value.spec as { replicas: number }).replicas, 1);
    // Karmada has no built-in Job health: the bundled Job Karta answers it.
    const job = fixtureWorkload("Job");
    const health = await fw.interpretHealth(job);
    assert.ok(health.ok);
    assert.equal(health.layer, "karta");
    // Custom resources are not affected.
    assert.equal(fw.answering({ apiVersion: "ray.io/v1", kind: "RayCluster" }, "InterpretHealth"), "karta");
    // Without the built-in interpreters to defer to, the bundled Deployment Karta answers InterpretReplica.
    const alone = createInterpreterFramework({ karta: bundledLayer(), native });
    const replica = await alone.interpretReplica(deployment);
    assert.equal(replica.ok && replica.layer, "karta");
  });

  test("a user's Karta for a Kubernetes kind answers even where a built-in interpreter exists", async () => {
    const mine = loadKartaText(readBundled("apps/v1/Deployment.yaml"), "my-deployment.yaml").definitions;
    const native = createNativeInterpreter();
    const { interpreter: karta } = createKartaInterpreter({ definitions: mine, builtin: native });
    const fw = createInterpreterFramework({ karta, native });
    const health = await fw.interpretHealth(fixtureWorkload("Deployment"));
    assert.ok(health.ok);
    assert.equal(health.layer, "karta");
  });

  test("the bundled Kartas are read per kind: each file is named for its root kind, and all of them load cleanly", () => {
    const { interpreter, issues } = createKartaInterpreter();
    assert.deepEqual(issues, []);
    const named = interpreter.kinds.map((k) => `${k.apiVersion} ${k.kind}`).sort();
    assert.ok(named.length > 30, `${named.length} bundled kinds`);
    // Asking about one kind reads that file only.
    assert.ok(interpreter.supports({ apiVersion: "ray.io/v1", kind: "RayCluster" }, "InterpretComponent"));
    assert.equal(interpreter.workloadFor({ apiVersion: "example.io/v1", kind: "Nothing" }), undefined);
    assert.deepEqual(interpreter.loadAll(), []);
    assert.deepEqual(interpreter.kinds.map((k) => `${k.apiVersion} ${k.kind}`).sort(), named, "every file defines the kind its path names");
  });

  test("a bundled file whose definition is for another kind than its path names is reported and left out", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-bundled-"));
    try {
      mkdirSync(path.join(dir, "ray.io", "v1"), { recursive: true });
      writeFileSync(path.join(dir, "ray.io", "v1", "RayJob.yaml"), readBundled("ray.io/v1/RayCluster.yaml"));
      const { interpreter } = createKartaInterpreter({ bundledDir: dir });
      assert.equal(interpreter.workloadFor({ apiVersion: "ray.io/v1", kind: "RayJob" }), undefined);
      assert.match(interpreter.issues[0]?.message ?? "", /the file is for RayJob ray\.io\/v1, but this definition's root kind is RayCluster ray\.io\/v1/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("user definitions replace the bundled one for their kind; definitions that do not compile are left out", () => {
    const mine = CLONESET_KARTA.replace("kind: {group: apps.kruise.io, version: v1alpha1, kind: CloneSet}", "kind: {group: ray.io, version: v1, kind: RayCluster}");
    const { interpreter, issues } = createKartaInterpreter({ definitions: loadKartaText(mine, "mine.yaml").definitions });
    assert.deepEqual(issues, []);
    assert.equal(interpreter.workloadFor({ apiVersion: "ray.io/v1", kind: "RayCluster" })?.source, "mine.yaml");
    const broken = new KartaLayer(loadKartaText(CLONESET_KARTA.replace("replicasPath: .spec.replicas", "replicasPath: .spec.replicas |"), "broken.yaml").definitions);
    assert.equal(broken.kinds.length, 0);
    assert.equal(broken.issues[0]?.source, "broken.yaml");
    assert.match(broken.issues[0]!.message, /jq/);
  });
});

describe("karta interpret", () => {
  const RAY = `apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: raycluster-sample, namespace: ml}
spec:
  rayVersion: "2.9.0"
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers:
        - {name: ray-head, image: "rayproject/ray:2.9.0", resources: {requests: {cpu: "1", memory: 2Gi}}}
  workerGroupSpecs:
  - groupName: gpu-group
    replicas: 2
    rayStartParams: {}
    template:
      spec:
        containers:
        - {name: ray-worker, image: "rayproject/ray:2.9.0-gpu", resources: {requests: {cpu: "2", memory: 8Gi, nvidia.com/gpu: "1"}}}
`;
  const files = { "raycluster.yaml": RAY, "cloneset.karta.yaml": CLONESET_KARTA, "cloneset.yaml": JSON.stringify(cloneSet()) };

  test("the bundled Kartas answer by default", async () => {
    const io = memoryIO("", files);
    const code = await runInterpret(["--operation", "InterpretComponent", "--desired-file", "raycluster.yaml", "--show-layer"], io);
    assert.equal(io.err, "");
    assert.equal(code, 0);
    assert.equal(
      io.out,
      [
        "# layer: karta",
        "---",
        "# [1/1] components:",
        "- name: ray-head",
        "  replicaRequirements:",
        "    resourceRequest:",
        '      cpu: "1"',
        "      memory: 2Gi",
        "  replicas: 1",
        "- name: gpu-group",
        "  replicaRequirements:",
        "    resourceRequest:",
        '      cpu: "2"',
        "      memory: 8Gi",
        '      nvidia.com/gpu: "1"',
        "  replicas: 2",
        "",
      ].join("\n"),
    );
  });

  test("-d answers from the user's Karta", async () => {
    const io = memoryIO("", files);
    const code = await runInterpret(["-d", "cloneset.karta.yaml", "--operation", "ReviseReplica", "--desired-file", "cloneset.yaml", "--desired-replica", "2", "--show-layer"], io);
    assert.equal(io.err, "");
    assert.equal(code, 0);
    assert.match(io.out, /^# layer: karta\n---\n# \[1\/1\] revised:\n/);
    assert.match(io.out, /\n {2}replicas: 2\n/);
  });

  test("-d with an invalid Karta prints its errors and exits 1", async () => {
    const io = memoryIO("", { ...files, "bad.karta.yaml": CLONESET_KARTA.replace("      name: cloneset\n", "") });
    const code = await runInterpret(["-d", "bad.karta.yaml", "--operation", "InterpretHealth", "--observed-file", "cloneset.yaml"], io);
    assert.equal(code, 1);
    assert.match(io.err, /bad\.karta\.yaml:\d+:\d+: error: /);
    assert.equal(io.out, "");
  });
});
