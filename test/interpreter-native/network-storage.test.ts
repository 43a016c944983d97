import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  nativeService as service,
  nativeIngress as ingress,
  nativeServiceAccount as serviceaccount,
  nativeSecret as secret,
  nativePersistentVolumeClaim as pvc,
  nativePersistentVolume as pv,
  nativePodDisruptionBudget as pdb,
  nativeHorizontalPodAutoscaler as hpa,
  nativeServiceImport as serviceimport,
  createNativeInterpreter,
  nativeSupports,
} from "../../src/interpreter/native/index.js";
import type { AggregatedStatusItem, KubeObject, Outcome } from "../../src/interpreter/types.js";

function value<T>(o: Outcome<T>): T {
  if (!o.ok) assert.fail(`unexpected error: ${o.error.message}`);
  return o.value;
}

const lb = (): KubeObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "gateway", namespace: "edge" },
  spec: { type: "LoadBalancer", selector: { app: "gateway" }, ports: [{ port: 443, targetPort: 8443, protocol: "TCP" }] },
});

describe("Service", () => {
  test("Retain: clusterIP and a positive healthCheckNodePort from the member", () => {
    const observed = lb() as any;
    observed.spec.clusterIP = "10.96.12.7";
    observed.spec.healthCheckNodePort = 31245;
    const out = value(service.retain(lb(), observed)) as any;
    assert.equal(out.spec.clusterIP, "10.96.12.7");
    assert.equal(out.spec.healthCheckNodePort, 31245);
  });
  test("AggregateStatus merges, dedupes and sorts load-balancer ingress points", () => {
    const items: AggregatedStatusItem[] = [
      { clusterName: "aws", status: { loadBalancer: { ingress: [{ hostname: "a1.elb.amazonaws.com", ports: [{ port: 443, protocol: "TCP" }] }] } } },
      { clusterName: "gcp", status: { loadBalancer: { ingress: [{ ip: "34.120.1.9", ipMode: "VIP" }] } } },
      { clusterName: "azure", status: { loadBalancer: { ingress: [{ ip: "20.50.3.1" }, { hostname: "a1.elb.amazonaws.com", ports: [{ port: 80, protocol: "TCP" }] }] } } },
    ];
    assert.deepEqual((value(service.aggregateStatus(lb(), items)) as any).status, {
      loadBalancer: {
        ingress: [
          { hostname: "a1.elb.amazonaws.com", ports: [{ port: 80, protocol: "TCP" }, { port: 443, protocol: "TCP" }] },
          { ip: "20.50.3.1" },
          { ip: "34.120.1.9", ipMode: "VIP" },
        ],
      },
    });
    const clusterIP = lb() as any;
    clusterIP.spec.type = "ClusterIP";
    assert.deepEqual(value(service.aggregateStatus(clusterIP, items)), clusterIP);
  });
  test("InterpretStatus and health", () => {
    const s = lb() as any;
    assert.equal(value(service.interpretHealth(s)), false);
    s.status = { loadBalancer: { ingress: [{ ip: "34.120.1.9" }] } };
    assert.equal(value(service.interpretHealth(s)), true);
    assert.deepEqual(value(service.reflectStatus(s)), { loadBalancer: { ingress: [{ ip: "34.120.1.9" }] } });
    s.spec.type = "NodePort";
    assert.equal(value(service.reflectStatus(s)), undefined);
    assert.equal(value(service.interpretHealth(s)), true);
  });
});

describe("Ingress", () => {
  const ing = (): KubeObject => ({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name: "shop", namespace: "web" },
    spec: { ingressClassName: "nginx", tls: [{ hosts: ["shop.example.com"], secretName: "shop-tls" }], rules: [{ host: "shop.example.com" }] },
  });
  test("InterpretDependency: TLS secrets; a TLS entry without a secret is an error; none is Go's nil", () => {
    const native = createNativeInterpreter();
    assert.deepEqual(value(native.interpretDependency(ing()) as Outcome<unknown>), [{ apiVersion: "v1", kind: "Secret", namespace: "web", name: "shop-tls" }]);
    const noSecret = ing() as any;
    noSecret.spec.tls.push({ hosts: ["x"] });
    // The kind's handler lists the reference; the layer verifies it, as DefaultInterpreter.GetDependencies does.
    assert.equal(value(ingress.getDependencies(noSecret)).length, 2);
    const r = native.interpretDependency(noSecret) as Outcome<unknown>;
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.error.message, 'dependencies[1]: Invalid value: {"apiVersion":"v1","kind":"Secret","namespace":"web"}: dependency can not leave name and labelSelector all empty');
    const noTls = ing() as any;
    delete noTls.spec.tls;
    assert.equal(value(native.interpretDependency(noTls) as Outcome<unknown>), null);
  });
  test("AggregateStatus and health", () => {
    const items: AggregatedStatusItem[] = [
      { clusterName: "a", status: { loadBalancer: { ingress: [{ ip: "192.0.2.10" }] } } },
      { clusterName: "b", status: { loadBalancer: { ingress: [{ ip: "192.0.2.10" }, { hostname: "lb.example.net" }] } } },
    ];
    const out = value(ingress.aggregateStatus(ing(), items)) as any;
    assert.deepEqual(out.status, { loadBalancer: { ingress: [{ hostname: "lb.example.net" }, { ip: "192.0.2.10" }] } });
    assert.equal(value(ingress.interpretHealth(out)), true);
    assert.equal(value(ingress.interpretHealth(ing())), false);
  });
});

describe("ServiceAccount and Secret", () => {
  test("Retain unions secrets by name, desired first", () => {
    const desired = { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "ci", namespace: "build" }, imagePullSecrets: [{ name: "ghcr" }] };
    const observed = { ...desired, secrets: [{ name: "ci-token-abcde" }], imagePullSecrets: [{ name: "ghcr" }, { name: "ci-dockercfg-x" }] };
    const out = value(serviceaccount.retain(desired, observed)) as any;
    assert.deepEqual(out.secrets, [{ name: "ci-token-abcde" }]);
    assert.deepEqual(out.imagePullSecrets, [{ name: "ghcr" }, { name: "ci-dockercfg-x" }]);
    const bare = value(serviceaccount.retain({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "x" } }, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "x" } })) as any;
    assert.equal(bare.secrets, null);
  });
  test("Retain keeps a service-account token's data from the member", () => {
    const desired = { apiVersion: "v1", kind: "Secret", metadata: { name: "ci-token" }, type: "kubernetes.io/service-account-token" };
    const observed = { ...desired, data: { token: "ZXlK", "ca.crt": "LS0t" } };
    assert.deepEqual((value(secret.retain(desired, observed)) as any).data, { token: "ZXlK", "ca.crt": "LS0t" });
    const opaque = { apiVersion: "v1", kind: "Secret", metadata: { name: "o" }, type: "Opaque", data: { a: "Yg==" } };
    assert.deepEqual(value(secret.retain(opaque, { ...opaque, data: { a: "Yw==" } })), opaque);
  });
});

describe("storage, PDB, HPA, ServiceImport", () => {
  test("PVC: retain volumeName, aggregate phase, health", () => {
    const claim = { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"] } };
    assert.equal((value(pvc.retain(claim, { ...claim, spec: { volumeName: "pvc-1f2e" } })) as any).spec.volumeName, "pvc-1f2e");
    const items = (phases: string[]): AggregatedStatusItem[] => phases.map((p, i) => ({ clusterName: `c${i}`, status: { phase: p } }));
    assert.deepEqual((value(pvc.aggregateStatus(claim, items(["Bound", "Pending"]))) as any).status, { phase: "Pending" });
    assert.deepEqual((value(pvc.aggregateStatus(claim, items(["Lost", "Pending"]))) as any).status, { phase: "Lost" });
    assert.deepEqual((value(pvc.aggregateStatus(claim, items(["Bound", "Bound"]))) as any).status, { phase: "Bound" });
    assert.equal(value(pvc.interpretHealth({ ...claim, status: { phase: "Bound" } })), true);
  });
  test("PV: retain claimRef, aggregate phase precedence", () => {
    const vol = { apiVersion: "v1", kind: "PersistentVolume", metadata: { name: "pv-nfs" }, spec: { capacity: { storage: "1Ti" } } };
    const claimRef = { kind: "PersistentVolumeClaim", namespace: "ml", name: "imagenet", uid: "9c1" };
    assert.deepEqual((value(pv.retain(vol, { ...vol, spec: { claimRef } })) as any).spec.claimRef, claimRef);
    const items: AggregatedStatusItem[] = [{ clusterName: "a", status: { phase: "Bound" } }, { clusterName: "b", status: { phase: "Available" } }];
    assert.deepEqual((value(pv.aggregateStatus(vol, items)) as any).status, { phase: "Available" });
    assert.deepEqual((value(pv.aggregateStatus(vol, [...items, { clusterName: "c" }])) as any).status, { phase: "Pending" });
  });
  test("PDB: aggregate, reflect, health", () => {
    const budget = { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "zk", namespace: "kafka" }, spec: { minAvailable: 2 } };
    const items: AggregatedStatusItem[] = [
      { clusterName: "a", status: { currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1, disruptedPods: { "zk-0": "2026-11-29T10:00:00Z" } } },
      { clusterName: "b", status: { currentHealthy: 1, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 0 } },
    ];
    const out = value(pdb.aggregateStatus(budget, items)) as any;
    assert.deepEqual(out.status, { disruptedPods: { "a/zk-0": "2026-11-29T10:00:00Z" }, disruptionsAllowed: 1, currentHealthy: 4, desiredHealthy: 4, expectedPods: 6 });
    assert.equal(value(pdb.interpretHealth(out)), true);
    assert.deepEqual(value(pdb.reflectStatus({ ...budget, status: { currentHealthy: 1, observedGeneration: 3 } })), {
      disruptionsAllowed: 0,
      currentHealthy: 1,
      desiredHealthy: 0,
      expectedPods: 0,
    });
  });
  test("HPA: sums replicas", () => {
    const scaler = { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "web" }, spec: { maxReplicas: 10 } };
    const items: AggregatedStatusItem[] = [
      { clusterName: "a", status: { currentReplicas: 2, desiredReplicas: 3 } },
      { clusterName: "b", status: { currentReplicas: 4, desiredReplicas: 4 } },
    ];
    assert.deepEqual((value(hpa.aggregateStatus(scaler, items)) as any).status, { currentReplicas: 6, desiredReplicas: 7, currentMetrics: null });
  });
  test("ServiceImport: the derived Service and its EndpointSlices", () => {
    const si = { apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ServiceImport", metadata: { name: "orders", namespace: "shop" } };
    assert.deepEqual(value(serviceimport.getDependencies(si)), [
      { apiVersion: "v1", kind: "Service", namespace: "shop", name: "derived-orders" },
      { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", namespace: "shop", labelSelector: { matchLabels: { "kubernetes.io/service-name": "derived-orders" } } },
    ]);
  });
  test("ServiceImport: a derived name that is no label value is an error of the native layer, in Karmada's words", () => {
    const native = createNativeInterpreter();
    const long = "a".repeat(56);
    const si = (name: string): KubeObject => ({ apiVersion: "multicluster.x-k8s.io/v1alpha1", kind: "ServiceImport", metadata: { name, namespace: "d" } });
    const r = native.interpretDependency(si(long)) as Outcome<unknown>;
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.error.message, `dependencies[1].labelSelector.matchLabels: Invalid value: "derived-${long}": must be no more than 63 bytes`);
      assert.equal(r.error.layer, "native");
    }
    // 55 characters make a 63-byte value: valid.
    assert.equal((value(native.interpretDependency(si("a".repeat(55))) as Outcome<unknown[]>)).length, 2);
    const empty = native.interpretDependency(si("")) as Outcome<unknown>;
    assert.equal(empty.ok, false);
    if (!empty.ok) assert.match(empty.error.message, /^dependencies\[1\]\.labelSelector\.matchLabels: Invalid value: "derived-": a valid label must be an empty string or consist of alphanumeric characters/);
  });
});

describe("the native layer", () => {
  const native = createNativeInterpreter({ now: () => new Date("2026-11-30T00:00:00Z") });
  const cm: KubeObject = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "b" } };
  test("supports what Karmada registers", () => {
    assert.equal(nativeSupports({ apiVersion: "apps/v1", kind: "Deployment" }, "Retain"), true);
    assert.equal(nativeSupports({ apiVersion: "apps/v1", kind: "StatefulSet" }, "Retain"), false);
    assert.equal(nativeSupports({ apiVersion: "apps/v1", kind: "DaemonSet" }, "InterpretReplica"), false);
    assert.equal(nativeSupports({ apiVersion: "batch/v1", kind: "Job" }, "InterpretHealth"), false);
    assert.equal(nativeSupports({ apiVersion: "v1", kind: "ConfigMap" }, "InterpretStatus"), true);
    assert.equal(nativeSupports({ apiVersion: "apps/v1", kind: "Deployment" }, "InterpretComponent"), false);
    assert.equal(nativeSupports({ apiVersion: "apps/v1beta1", kind: "Deployment" }, "InterpretReplica"), false);
  });
  test("dispatches, reflects whole statuses by default, and reports Karmada's not-found errors", async () => {
    const replicas = await native.interpretReplica({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [] } });
    assert.deepEqual(replicas, { ok: true, value: { replicas: 1 } });
    assert.deepEqual(await native.interpretStatus({ ...cm, status: { phase: "x" } }), { ok: true, value: { phase: "x" } });
    assert.deepEqual(await native.interpretStatus(cm), { ok: true, value: undefined });
    const health = await native.interpretHealth(cm);
    assert.equal(health.ok, false);
    if (!health.ok) assert.equal(health.error.message, 'default InterpretHealth interpreter for "/v1, Kind=ConfigMap" not found');
    const deps = await native.interpretDependency(cm);
    if (!deps.ok) assert.equal(deps.error.message, "default interpreter for operation InterpretDependency not found");
    else assert.fail("expected an error");
    const comp = await native.interpretComponent(cm);
    assert.equal(comp.ok, false);
    const job = await native.aggregateStatus(
      { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, spec: {} },
      [{ clusterName: "a", status: { succeeded: 1, conditions: [{ type: "Complete", status: "True" }] } }],
    );
    assert.ok(job.ok);
    if (job.ok) assert.equal((job.value as any).status.conditions[0].lastProbeTime, "2026-11-30T00:00:00Z");
  });
});
