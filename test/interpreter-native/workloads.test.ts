import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  nativeDeployment as deployment,
  nativeStatefulSet as statefulset,
  nativeReplicaSet as replicaset,
  nativeDaemonSet as daemonset,
} from "../../src/interpreter/native/index.js";
import type { AggregatedStatusItem, KubeObject, Outcome } from "../../src/interpreter/types.js";

function value<T>(o: Outcome<T>): T {
  if (!o.ok) assert.fail(`unexpected error: ${o.error.message}`);
  return o.value;
}

const nginx = (): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {
    name: "nginx",
    namespace: "web",
    generation: 3,
    labels: { app: "nginx" },
  },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "nginx" } },
    template: {
      metadata: { labels: { app: "nginx" } },
      spec: {
        serviceAccountName: "nginx",
        containers: [
          {
            name: "nginx",
            image: "nginx:1.27",
            envFrom: [{ configMapRef: { name: "nginx-env" } }],
            resources: { requests: { cpu: "500m", memory: "512Mi" }, limits: { cpu: "1", memory: "1Gi" } },
          },
        ],
        volumes: [{ name: "tls", secret: { secretName: "nginx-tls" } }],
        tolerations: [{ key: "node-role.kubernetes.io/edge", operator: "Exists", effect: "NoSchedule" }],
      },
    },
  },
  status: {
    observedGeneration: 2,
    replicas: 3,
    updatedReplicas: 3,
    readyReplicas: 3,
    availableReplicas: 3,
    conditions: [{ type: "Available", status: "True", reason: "MinimumReplicasAvailable" }],
  },
});

describe("Deployment", () => {
  test("InterpretReplica: replicas and the template's requirements", () => {
    assert.deepEqual(value(deployment.getReplicas(nginx())), {
      replicas: 3,
      replicaRequirements: {
        nodeClaim: { tolerations: [{ key: "node-role.kubernetes.io/edge", operator: "Exists", effect: "NoSchedule" }] },
        resourceRequest: { cpu: "500m", memory: "512Mi" },
      },
    });
    const noReplicas = nginx() as any;
    delete noReplicas.spec.replicas;
    delete noReplicas.spec.template.spec.tolerations;
    noReplicas.spec.template.spec.containers[0].resources = {};
    assert.deepEqual(value(deployment.getReplicas(noReplicas)), { replicas: 0 });
  });

  test("ReviseReplica sets spec.replicas without touching the input", () => {
    const input = nginx();
    const revised = value(deployment.reviseReplica(input, 5)) as any;
    assert.equal(revised.spec.replicas, 5);
    assert.equal((input as any).spec.replicas, 3);
    const absent = nginx() as any;
    delete absent.spec.replicas;
    assert.equal((value(deployment.reviseReplica(absent, 5)) as any).spec.replicas, undefined);
    const bad = nginx() as any;
    bad.spec.replicas = "3";
    const r = deployment.reviseReplica(bad, 5);
    assert.equal(r.ok, false);
  });

  test("Retain keeps the member's replicas only with the retain-replicas label", () => {
    const observed = nginx() as any;
    observed.spec.replicas = 7;
    assert.equal((value(deployment.retain(nginx(), observed)) as any).spec.replicas, 3);
    const desired = nginx() as any;
    desired.metadata.labels["resourcetemplate.karmada.io/retain-replicas"] = "true";
    assert.equal((value(deployment.retain(desired, observed)) as any).spec.replicas, 7);
    delete observed.spec.replicas;
    const r = deployment.retain(desired, observed);
    assert.equal(r.ok, false);
    if (!r.ok) assert.equal(r.error.message, "failed to get spec.replicas from Deployment web/nginx");
  });

  const member = (generation: number, rtg: number, observed: number, n: { r: number; ready: number; up: number; av: number; un?: number }) => ({
    generation,
    resourceTemplateGeneration: rtg,
    observedGeneration: observed,
    replicas: n.r,
    readyReplicas: n.ready,
    updatedReplicas: n.up,
    availableReplicas: n.av,
    ...(n.un ? { unavailableReplicas: n.un } : {}),
  });

  test("AggregateStatus sums two clusters and advances observedGeneration when both caught up", () => {
    const items: AggregatedStatusItem[] = [
      { clusterName: "member1", status: member(2, 3, 2, { r: 2, ready: 2, up: 2, av: 2 }), applied: true, health: "Healthy" },
      { clusterName: "member2", status: member(5, 3, 5, { r: 2, ready: 1, up: 2, av: 1, un: 1 }), applied: true, health: "Unhealthy" },
    ];
    const out = value(deployment.aggregateStatus(nginx(), items)) as any;
    assert.deepEqual(out.status, {
      observedGeneration: 3,
      replicas: 4,
      updatedReplicas: 4,
      readyReplicas: 3,
      availableReplicas: 3,
      unavailableReplicas: 1,
      conditions: [{ type: "Available", status: "True", reason: "MinimumReplicasAvailable" }],
    });
  });

  test("AggregateStatus keeps observedGeneration while a member lags or has not reported", () => {
    const lagging: AggregatedStatusItem[] = [
      { clusterName: "member1", status: member(2, 3, 2, { r: 3, ready: 3, up: 3, av: 3 }) },
      { clusterName: "member2", status: member(5, 2, 5, { r: 0, ready: 0, up: 0, av: 0 }) },
    ];
    assert.equal((value(deployment.aggregateStatus(nginx(), lagging)) as any).status.observedGeneration, 2);
    const silent: AggregatedStatusItem[] = [
      { clusterName: "member1", status: member(2, 3, 2, { r: 3, ready: 3, up: 3, av: 3 }) },
      { clusterName: "member2", applied: false, appliedMessage: "cluster unreachable" },
    ];
    assert.equal((value(deployment.aggregateStatus(nginx(), silent)) as any).status.observedGeneration, 2);
    // Nothing changed: the object comes back as it was.
    const same: AggregatedStatusItem[] = [{ clusterName: "member1", status: member(2, 2, 2, { r: 3, ready: 3, up: 3, av: 3 }) }];
    assert.deepEqual(value(deployment.aggregateStatus(nginx(), same)), nginx());
  });

  test("InterpretStatus reports the counters with the generations", () => {
    const observed = nginx() as any;
    observed.metadata.annotations = { "resourcetemplate.karmada.io/generation": "4" };
    observed.metadata.generation = 2;
    assert.deepEqual(value(deployment.reflectStatus(observed)), {
      generation: 2,
      resourceTemplateGeneration: 4,
      observedGeneration: 2,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
    });
    const annotations = { "resourcetemplate.karmada.io/generation": "1" };
    const empty = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x", annotations }, status: {} };
    assert.deepEqual(value(deployment.reflectStatus(empty)), { resourceTemplateGeneration: 1 });
    const zero = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x", annotations: { "resourcetemplate.karmada.io/generation": "0" } }, status: {} };
    assert.equal(value(deployment.reflectStatus(zero)), undefined, "all zero reflects nothing");
    // Karmada cannot parse a missing annotation and reports the error.
    const unannotated = deployment.reflectStatus({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" }, status: { replicas: 1 } });
    assert.equal(unannotated.ok, false);
    if (!unannotated.ok) assert.equal(unannotated.error.message, 'strconv.ParseInt: parsing "": invalid syntax');
    assert.equal(value(deployment.reflectStatus({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" } })), undefined);
  });

  test("InterpretHealth", () => {
    const healthy = nginx() as any;
    healthy.status.observedGeneration = 3;
    assert.equal(value(deployment.interpretHealth(healthy)), true);
    assert.equal(value(deployment.interpretHealth(nginx())), false, "generation not observed");
    const rolling = structuredClone(healthy);
    rolling.status.updatedReplicas = 2;
    assert.equal(value(deployment.interpretHealth(rolling)), false);
    const unavailable = structuredClone(healthy);
    unavailable.status.availableReplicas = 2;
    assert.equal(value(deployment.interpretHealth(unavailable)), false);
  });

  test("InterpretDependency", () => {
    assert.deepEqual(value(deployment.getDependencies(nginx())), [
      { apiVersion: "v1", kind: "ConfigMap", namespace: "web", name: "nginx-env" },
      { apiVersion: "v1", kind: "Secret", namespace: "web", name: "nginx-tls" },
      { apiVersion: "v1", kind: "ServiceAccount", namespace: "web", name: "nginx" },
    ]);
  });
});

const postgres = (): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  metadata: { name: "pg", namespace: "db", generation: 4 },
  spec: {
    replicas: 3,
    serviceName: "pg",
    template: {
      metadata: { labels: { app: "pg" } },
      spec: {
        containers: [
          {
            name: "postgres",
            image: "postgres:16",
            env: [{ name: "POSTGRES_PASSWORD", valueFrom: { secretKeyRef: { name: "pg-auth", key: "password" } } }],
            volumeMounts: [{ name: "data", mountPath: "/var/lib/postgresql/data" }],
            resources: { requests: { cpu: "2", memory: "8Gi" } },
          },
        ],
        volumes: [
          { name: "data", persistentVolumeClaim: { claimName: "data" } },
          { name: "archive", persistentVolumeClaim: { claimName: "pg-archive" } },
        ],
      },
    },
    volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "100Gi" } } } }],
  },
  status: { observedGeneration: 4, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3 },
});

describe("StatefulSet", () => {
  test("InterpretDependency leaves out PVCs created from volumeClaimTemplates", () => {
    assert.deepEqual(value(statefulset.getDependencies(postgres())), [
      { apiVersion: "v1", kind: "Secret", namespace: "db", name: "pg-auth" },
      { apiVersion: "v1", kind: "PersistentVolumeClaim", namespace: "db", name: "pg-archive" },
    ]);
  });
  test("InterpretStatus has no observedGeneration and always writes replicas and availableReplicas", () => {
    const s = postgres() as any;
    s.metadata.annotations = { "resourcetemplate.karmada.io/generation": "2" };
    s.status = { observedGeneration: 4 };
    assert.deepEqual(value(statefulset.reflectStatus(s)), { generation: 4, resourceTemplateGeneration: 2, replicas: 0, availableReplicas: 0 });
  });
  test("AggregateStatus compares a member's template generation with its own generation, as Karmada does", () => {
    const items: AggregatedStatusItem[] = [
      { clusterName: "member1", status: { generation: 2, resourceTemplateGeneration: 2, observedGeneration: 2, replicas: 2, availableReplicas: 2, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2 } },
      { clusterName: "member2", status: { generation: 1, resourceTemplateGeneration: 1, observedGeneration: 1, replicas: 1, availableReplicas: 1, readyReplicas: 1, currentReplicas: 1, updatedReplicas: 1 } },
    ];
    const s = postgres() as any;
    s.metadata.generation = 5;
    const out = value(statefulset.aggregateStatus(s, items)) as any;
    assert.deepEqual(out.status, { observedGeneration: 5, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3 });
  });
  test("InterpretReplica and health", () => {
    assert.deepEqual(value(statefulset.getReplicas(postgres())), { replicas: 3, replicaRequirements: { resourceRequest: { cpu: "2", memory: "8Gi" } } });
    assert.equal(value(statefulset.interpretHealth(postgres())), true);
  });
});

describe("ReplicaSet", () => {
  const rs = (available: number): KubeObject => ({
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: "frontend-7d9c8", namespace: "shop", generation: 1 },
    spec: { replicas: 3, template: { spec: { containers: [{ name: "php", image: "php:8" }] } } },
    status: { observedGeneration: 1, replicas: 3, readyReplicas: available, availableReplicas: available },
  });
  test("health needs every desired replica available", () => {
    assert.equal(value(replicaset.interpretHealth(rs(3))), true);
    assert.equal(value(replicaset.interpretHealth(rs(2))), false);
  });
  test("InterpretStatus always writes replicas", () => {
    const empty = rs(0) as any;
    empty.metadata.annotations = { "resourcetemplate.karmada.io/generation": "1" };
    empty.status = {};
    assert.deepEqual(value(replicaset.reflectStatus(empty)), { generation: 1, resourceTemplateGeneration: 1, replicas: 0 });
  });
});

describe("DaemonSet", () => {
  const fluentd = (): KubeObject => ({
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "fluentd", namespace: "logging", generation: 2 },
    spec: { template: { spec: { containers: [{ name: "fluentd", image: "fluentd:v1.16" }] } } },
    status: { observedGeneration: 2, currentNumberScheduled: 5, desiredNumberScheduled: 5, numberReady: 5, numberMisscheduled: 0, updatedNumberScheduled: 5, numberAvailable: 5 },
  });
  test("AggregateStatus sums scheduling counters", () => {
    const items: AggregatedStatusItem[] = [
      { clusterName: "east", status: { generation: 1, resourceTemplateGeneration: 2, observedGeneration: 1, currentNumberScheduled: 3, desiredNumberScheduled: 3, numberReady: 3, numberMisscheduled: 0, updatedNumberScheduled: 3, numberAvailable: 3 } },
      { clusterName: "west", status: { generation: 1, resourceTemplateGeneration: 2, observedGeneration: 1, currentNumberScheduled: 4, desiredNumberScheduled: 4, numberReady: 2, numberMisscheduled: 1, updatedNumberScheduled: 4, numberAvailable: 2, numberUnavailable: 2 } },
    ];
    assert.deepEqual((value(daemonset.aggregateStatus(fluentd(), items)) as any).status, {
      observedGeneration: 2,
      currentNumberScheduled: 7,
      desiredNumberScheduled: 7,
      numberReady: 5,
      numberMisscheduled: 1,
      updatedNumberScheduled: 7,
      numberAvailable: 5,
      numberUnavailable: 2,
    });
  });
  test("InterpretHealth", () => {
    assert.equal(value(daemonset.interpretHealth(fluentd())), true);
    const partial = fluentd() as any;
    partial.status.numberAvailable = 4;
    assert.equal(value(daemonset.interpretHealth(partial)), false);
  });
});
