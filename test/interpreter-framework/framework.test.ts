/**
 * The layered framework: one interpreter per operation chosen by priority (declarative > webhook >
 * karta > thirdparty > native), a Karta's undecided health falling through, the
 * InterpretComponent/InterpretReplica decision under the MultiplePodTemplatesScheduling gate, and
 * errors naming the layer.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createDeclarativeInterpreter, type DeclarativeInterpreter } from "../../src/interpreter/declarative/interpreter.js";
import { parseCustomizations } from "../../src/interpreter/declarative/customization.js";
import { createInterpreterFramework, UNDECIDED, type KartaLayerContract } from "../../src/interpreter/framework.js";
import { createNativeInterpreter } from "../../src/interpreter/native/index.js";
import { createThirdpartyInterpreter, type ThirdpartyInterpreter } from "../../src/interpreter/thirdparty/index.js";
import { createKartaInterpreter } from "../../src/interpreter/karta/index.js";
import { fail, ok, type Interpreter, type KubeObject, type Operation, type Outcome, type ResourceKind } from "../../src/interpreter/types.js";

const deployment: KubeObject = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "checkout", namespace: "shop", generation: 4, labels: { app: "checkout" } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "checkout" } },
    template: {
      metadata: { labels: { app: "checkout" } },
      spec: {
        serviceAccountName: "checkout",
        containers: [{ name: "checkout", image: "ghcr.io/shop/checkout:2.4.1", resources: { requests: { cpu: "500m", memory: "256Mi" } } }],
      },
    },
  },
  status: { observedGeneration: 4, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 },
};

const cloneSet: KubeObject = {
  apiVersion: "apps.kruise.io/v1alpha1",
  kind: "CloneSet",
  metadata: { name: "frontend", namespace: "shop", generation: 2 },
  spec: {
    replicas: 5,
    selector: { matchLabels: { app: "frontend" } },
    template: { metadata: { labels: { app: "frontend" } }, spec: { containers: [{ name: "frontend", image: "nginx:1.27", resources: { requests: { cpu: "100m" } } }] } },
  },
  status: { observedGeneration: 2, replicas: 5, updatedReplicas: 5, readyReplicas: 5, availableReplicas: 5, expectedUpdatedReplicas: 5 },
};

/** A Flux GitRepository, answered by the thirdparty layer's reconciled kinds. */
const gitRepository: KubeObject = {
  apiVersion: "source.toolkit.fluxcd.io/v1",
  kind: "GitRepository",
  metadata: { name: "podinfo", namespace: "flux-system", generation: 1 },
  spec: { interval: "1m", url: "https://github.com/stefanprodan/podinfo", ref: { branch: "master" } },
  status: { observedGeneration: 1, conditions: [{ type: "Ready", status: "True", reason: "Succeeded", message: "stored artifact" }] },
};

/** A FlinkDeployment: a JobManager and TaskManagers with their own pod resources. */
const flink: KubeObject = {
  apiVersion: "flink.apache.org/v1beta1",
  kind: "FlinkDeployment",
  metadata: { name: "clickstream", namespace: "analytics" },
  spec: {
    flinkVersion: "v1_19",
    jobManager: { replicas: 1, resource: { cpu: 1, memory: "2048m" } },
    taskManager: { replicas: 3, resource: { cpu: 2, memory: "4096m" } },
  },
};

const CUSTOMIZATIONS = `
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: checkout-replicas
spec:
  target: {apiVersion: apps/v1, kind: Deployment}
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj)
          return obj.spec.replicas * 2, nil
        end
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          return obj.status.readyReplicas.missing
        end
---
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: cloneset-override
spec:
  target: {apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet}
  customizations:
    replicaRevision:
      luaScript: |
        function ReviseReplica(obj, n)
          obj.spec.replicas = n + 100
          return obj
        end
---
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: flink-components
spec:
  target: {apiVersion: flink.apache.org/v1beta1, kind: FlinkDeployment}
  customizations:
    componentResource:
      luaScript: |
        function GetComponents(obj)
          return {
            {name = "jobmanager", replicas = obj.spec.jobManager.replicas,
             replicaRequirements = {resourceRequest = {cpu = tostring(obj.spec.jobManager.resource.cpu), memory = "2Gi"}}},
            {name = "taskmanager", replicas = obj.spec.taskManager.replicas,
             replicaRequirements = {resourceRequest = {cpu = tostring(obj.spec.taskManager.resource.cpu), memory = "4Gi"}}},
          }
        end
`;

type Handlers = Partial<{ [K in keyof Omit<Interpreter, "supports">]: Interpreter[K] }>;

/** An in-memory layer implementing `ops` for `kinds`, recording its calls. */
function fakeLayer(kinds: ResourceKind[], handlers: Handlers, calls: string[] = []): Interpreter {
  const opOf: Record<string, Operation> = {
    interpretReplica: "InterpretReplica",
    interpretComponent: "InterpretComponent",
    reviseReplica: "ReviseReplica",
    reviseComponents: "ReviseComponents",
    retain: "Retain",
    aggregateStatus: "AggregateStatus",
    interpretStatus: "InterpretStatus",
    interpretHealth: "InterpretHealth",
    interpretDependency: "InterpretDependency",
  };
  const implemented = new Set(Object.keys(handlers).map((k) => opOf[k]));
  const unexpected = <T>(op: Operation): Outcome<T> => fail(op, "called without support");
  const record = (name: string) => calls.push(name);
  return {
    supports: (kind, op) => implemented.has(op) && kinds.some((k) => k.apiVersion === kind.apiVersion && k.kind === kind.kind),
    interpretReplica: (o) => (record("interpretReplica"), handlers.interpretReplica ? handlers.interpretReplica(o) : unexpected("InterpretReplica")),
    interpretComponent: (o) => (record("interpretComponent"), handlers.interpretComponent ? handlers.interpretComponent(o) : unexpected("InterpretComponent")),
    reviseReplica: (o, n) => (record("reviseReplica"), handlers.reviseReplica ? handlers.reviseReplica(o, n) : unexpected("ReviseReplica")),
    reviseComponents: (o, c) => (record("reviseComponents"), handlers.reviseComponents ? handlers.reviseComponents(o, c) : unexpected("ReviseComponents")),
    retain: (d, o) => (record("retain"), handlers.retain ? handlers.retain(d, o) : unexpected("Retain")),
    aggregateStatus: (o, i) => (record("aggregateStatus"), handlers.aggregateStatus ? handlers.aggregateStatus(o, i) : unexpected("AggregateStatus")),
    interpretStatus: (o) => (record("interpretStatus"), handlers.interpretStatus ? handlers.interpretStatus(o) : unexpected("InterpretStatus")),
    interpretHealth: (o) => (record("interpretHealth"), handlers.interpretHealth ? handlers.interpretHealth(o) : unexpected("InterpretHealth")),
    interpretDependency: (o) => (record("interpretDependency"), handlers.interpretDependency ? handlers.interpretDependency(o) : unexpected("InterpretDependency")),
  };
}

const DEPLOYMENT: ResourceKind = { apiVersion: "apps/v1", kind: "Deployment" };
const CLONESET: ResourceKind = { apiVersion: "apps.kruise.io/v1alpha1", kind: "CloneSet" };
const GITREPOSITORY: ResourceKind = { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository" };

let declarative: DeclarativeInterpreter;
let thirdparty: ThirdpartyInterpreter;
const native = createNativeInterpreter();

before(async () => {
  const loaded = parseCustomizations(CUSTOMIZATIONS, "customizations.yaml");
  assert.deepEqual(loaded.issues, []);
  declarative = await createDeclarativeInterpreter(loaded.customizations);
  const tp = await createThirdpartyInterpreter();
  assert.deepEqual(tp.issues, []);
  thirdparty = tp.interpreter;
});

after(() => {
  declarative.close();
  thirdparty.close();
});

describe("one interpreter per operation, by layer priority", () => {
  test("native alone answers Kubernetes kinds", async () => {
    const fw = createInterpreterFramework({ native });
    const replica = await fw.interpretReplica(deployment);
    assert.deepEqual(replica, { ok: true, value: { replicas: 3, replicaRequirements: { resourceRequest: { cpu: "500m", memory: "256Mi" } } }, layer: "native" });
    assert.deepEqual(await fw.interpretHealth(deployment), { ok: true, value: true, layer: "native" });
    const deps = await fw.getDependencies(deployment);
    assert.deepEqual(deps, { ok: true, value: [{ apiVersion: "v1", kind: "ServiceAccount", namespace: "shop", name: "checkout" }], layer: "native" });
  });

  test("a user's customization overrides only the operations it defines", async () => {
    const fw = createInterpreterFramework({ declarative, thirdparty, native });
    assert.deepEqual(await fw.interpretReplica(deployment), { ok: true, value: { replicas: 6 }, layer: "declarative" });
    const revised = await fw.reviseReplica(deployment, 1);
    assert.ok(revised.ok);
    assert.equal(revised.layer, "native");
    assert.equal((revised.value.spec as { replicas: number }).replicas, 1);
    assert.deepEqual(fw.layersFor(DEPLOYMENT, "InterpretReplica"), ["declarative", "native"]);
    assert.equal(fw.answering(DEPLOYMENT, "Retain"), "native");
  });

  test("the bundled CloneSet Karta answers a CloneSet; the declarative layer overrides it per operation", async () => {
    const { interpreter: karta, issues } = createKartaInterpreter({ builtin: native });
    assert.deepEqual(issues, []);
    const fw = createInterpreterFramework({ declarative, karta, thirdparty, native });
    const replica = await fw.interpretReplica(cloneSet);
    assert.deepEqual(replica, { ok: true, value: { replicas: 5, replicaRequirements: { resourceRequest: { cpu: "100m" } } }, layer: "karta" });
    const revised = await fw.reviseReplica(cloneSet, 2);
    assert.ok(revised.ok);
    assert.equal(revised.layer, "declarative");
    assert.equal((revised.value.spec as { replicas: number }).replicas, 102);
    assert.deepEqual(await fw.interpretHealth(cloneSet), { ok: true, value: true, layer: "karta" });
    assert.deepEqual(await fw.interpretHealth(gitRepository), { ok: true, value: true, layer: "thirdparty" });
  });

  test("the webhook sits between declarative and thirdparty/native", async () => {
    const calls: string[] = [];
    const webhook = fakeLayer([DEPLOYMENT, CLONESET], {
      interpretReplica: () => ok({ replicas: 42 }),
      retain: (d) => ok({ ...d, metadata: { ...(d.metadata as object), annotations: { retainedBy: "webhook" } } }),
    }, calls);
    const fw = createInterpreterFramework({ declarative, webhook, thirdparty, native });
    assert.deepEqual(await fw.interpretReplica(deployment), { ok: true, value: { replicas: 6 }, layer: "declarative" });
    assert.deepEqual(await fw.interpretReplica(cloneSet), { ok: true, value: { replicas: 42 }, layer: "webhook" });
    const retained = await fw.retain(deployment, deployment);
    assert.equal(retained.ok && retained.layer, "webhook");
    assert.deepEqual(calls, ["interpretReplica", "retain"], "the webhook is not asked when the declarative layer answers");
  });

  test("a Karta answers above thirdparty; a user's Lua overrides the Karta", async () => {
    const karta: KartaLayerContract = fakeLayer([CLONESET, DEPLOYMENT], {
      interpretReplica: (o) => ok({ replicas: (o.spec as { replicas: number }).replicas + 1000 }),
      reviseReplica: (o) => ok(o),
    }) as unknown as KartaLayerContract;
    const fw = createInterpreterFramework({ declarative, karta, thirdparty, native });
    assert.deepEqual(await fw.interpretReplica(cloneSet), { ok: true, value: { replicas: 1005 }, layer: "karta" });
    assert.deepEqual(await fw.interpretReplica(deployment), { ok: true, value: { replicas: 6 }, layer: "declarative" });
    const revised = await fw.reviseReplica(cloneSet, 2);
    assert.equal(revised.ok && revised.layer, "declarative");
  });

  test("a Karta's undecided health falls through to the next layer implementing InterpretHealth", async () => {
    let verdict: boolean | typeof UNDECIDED = UNDECIDED;
    const karta = { ...fakeLayer([CLONESET, GITREPOSITORY, DEPLOYMENT], { interpretHealth: () => ok(false) }), interpretHealth: () => ok(verdict) } as KartaLayerContract;
    const fw = createInterpreterFramework({ karta, thirdparty, native });
    assert.deepEqual(await fw.interpretHealth(gitRepository), { ok: true, value: true, layer: "thirdparty" });
    assert.deepEqual(await fw.interpretHealth(deployment), { ok: true, value: true, layer: "native" });
    verdict = false;
    assert.deepEqual(await fw.interpretHealth(gitRepository), { ok: true, value: false, layer: "karta" });
    verdict = UNDECIDED;
    const alone = createInterpreterFramework({ karta });
    const out = await alone.interpretHealth(cloneSet);
    assert.deepEqual(out, { ok: false, error: { operation: "InterpretHealth", message: `default InterpretHealth interpreter for "apps.kruise.io/v1alpha1, Kind=CloneSet" not found`, layer: "framework" } });
  });
});

describe("errors name the layer", () => {
  test("a failing script is the declarative layer's error; no fallback to lower layers", async () => {
    const fw = createInterpreterFramework({ declarative, native });
    const out = await fw.interpretHealth(deployment);
    assert.equal(out.ok, false);
    if (!out.ok) {
      assert.equal(out.error.layer, "declarative");
      assert.equal(out.error.operation, "InterpretHealth");
      assert.match(out.error.message, /index|attempt/);
    }
  });

  test("no layer implements the operation: Karmada's default-interpreter message", async () => {
    const fw = createInterpreterFramework({ thirdparty, native });
    const out = await fw.retain(cloneSet, cloneSet);
    assert.deepEqual(out, { ok: false, error: { operation: "Retain", message: `default Retain interpreter for "apps.kruise.io/v1alpha1, Kind=CloneSet" not found`, layer: "framework" } });
    const deps = await fw.getDependencies(flink);
    assert.equal(deps.ok ? "" : deps.error.message, "default interpreter for operation InterpretDependency not found");
  });

  test("a layer that throws becomes an error value", async () => {
    const webhook = fakeLayer([DEPLOYMENT], { interpretStatus: () => { throw new Error("socket hang up"); } });
    const out = await createInterpreterFramework({ webhook, native }).reflectStatus(deployment);
    assert.deepEqual(out, { ok: false, error: { operation: "InterpretStatus", message: "webhook interpreter failed: socket hang up", layer: "webhook" } });
  });

  test("a layer that throws a non-Error, rejects, or returns no outcome becomes an error value", async () => {
    const webhook = fakeLayer([DEPLOYMENT], {
      interpretStatus: () => {
        throw "ECONNRESET";
      },
      interpretHealth: () => Promise.reject(new Error("TLS handshake timeout")) as never,
      interpretReplica: () => undefined as never,
    });
    const framework = createInterpreterFramework({ webhook, native });
    assert.deepEqual(await framework.reflectStatus(deployment), { ok: false, error: { operation: "InterpretStatus", message: "webhook interpreter failed: ECONNRESET", layer: "webhook" } });
    assert.deepEqual(await framework.interpretHealth(deployment), { ok: false, error: { operation: "InterpretHealth", message: "webhook interpreter failed: TLS handshake timeout", layer: "webhook" } });
    assert.deepEqual(await framework.interpretReplica(deployment), { ok: false, error: { operation: "InterpretReplica", message: "webhook interpreter failed: it returned no outcome", layer: "webhook" } });
  });
});

describe("InterpretComponent or InterpretReplica (MultiplePodTemplatesScheduling)", () => {
  test("gate on and InterpretComponent implemented: components only", async () => {
    const fw = createInterpreterFramework({ declarative, native }, { multiplePodTemplatesScheduling: true });
    const out = await fw.interpretWorkload(flink);
    assert.deepEqual(out, {
      ok: true,
      layer: "declarative",
      value: {
        mode: "components",
        components: [
          { name: "jobmanager", replicas: 1, replicaRequirements: { resourceRequest: { cpu: "1", memory: "2Gi" } } },
          { name: "taskmanager", replicas: 3, replicaRequirements: { resourceRequest: { cpu: "2", memory: "4Gi" } } },
        ],
      },
    });
  });

  test("gate off: InterpretReplica, even when components are implemented", async () => {
    const fw = createInterpreterFramework({ declarative, native });
    const out = await fw.interpretWorkload(flink);
    assert.deepEqual(out, { ok: false, error: { operation: "InterpretReplica", message: `default InterpretReplica interpreter for "flink.apache.org/v1beta1, Kind=FlinkDeployment" not found`, layer: "framework" } });
    const dep = await fw.interpretWorkload(deployment);
    assert.deepEqual(dep, { ok: true, value: { mode: "replicas", replicas: 6 }, layer: "declarative" });
  });

  test("gate on without an InterpretComponent implementation: InterpretReplica", async () => {
    const fw = createInterpreterFramework({ thirdparty, native }, { multiplePodTemplatesScheduling: true });
    const out = await fw.interpretWorkload(deployment);
    assert.deepEqual(out, { ok: true, value: { mode: "replicas", replicas: 3, replicaRequirements: { resourceRequest: { cpu: "500m", memory: "256Mi" } } }, layer: "native" });
  });
});
