/**
 * Throughput of the declarative layer on a realistic 4 KB Deployment, conversion included. Prints the
 * figure; asserts only a floor far below the target (≥ 15,000 InterpretHealth calls/s on an idle
 * 2-core machine) so that a loaded machine does not fail the suite.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createDeclarativeInterpreter } from "../../src/interpreter/declarative/interpreter.js";
import { customizationOf } from "../../src/interpreter/declarative/customization.js";
import type { KubeObject } from "../../src/interpreter/types.js";

const customization = customizationOf("deployment-health", { apiVersion: "apps/v1", kind: "Deployment" }, {
  healthInterpretation: `
function InterpretHealth(observedObj)
  if observedObj.status == nil then return false end
  local s = observedObj.status
  if s.observedGeneration ~= observedObj.metadata.generation then return false end
  if (s.updatedReplicas or 0) < (observedObj.spec.replicas or 0) then return false end
  return (s.availableReplicas or 0) >= (s.updatedReplicas or 0)
end`,
});

function deployment(): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: "web",
      namespace: "shop",
      generation: 7,
      uid: "6f1e6a9c-3b7e-4d65-a1e0-2f3c9c1b1f00",
      resourceVersion: "123456",
      labels: { app: "web", tier: "frontend", "app.kubernetes.io/name": "web", "app.kubernetes.io/part-of": "shop" },
      annotations: { "deployment.kubernetes.io/revision": "12", "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({ spec: { replicas: 3, note: "x".repeat(1810) } }) },
    },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: "web" } },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } },
      template: {
        metadata: { labels: { app: "web", tier: "frontend" } },
        spec: {
          serviceAccountName: "web",
          containers: [
            {
              name: "web",
              image: "registry.example.com/shop/web:1.42.0",
              ports: [{ containerPort: 8080, name: "http", protocol: "TCP" }],
              env: [
                { name: "MODE", value: "production" },
                { name: "DB_HOST", valueFrom: { configMapKeyRef: { name: "web-config", key: "db-host" } } },
                { name: "DB_PASSWORD", valueFrom: { secretKeyRef: { name: "web-db", key: "password" } } },
              ],
              resources: { requests: { cpu: "500m", memory: "512Mi" }, limits: { cpu: "1", memory: "1Gi" } },
              readinessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 5 },
              livenessProbe: { httpGet: { path: "/livez", port: 8080 }, periodSeconds: 10 },
              volumeMounts: [{ name: "config", mountPath: "/etc/web" }],
            },
            { name: "proxy", image: "registry.example.com/shop/proxy:2.1.0", resources: { requests: { cpu: "100m", memory: "64Mi" } } },
          ],
          volumes: [{ name: "config", configMap: { name: "web-config" } }],
          tolerations: [{ key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }],
        },
      },
    },
    status: {
      observedGeneration: 7,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      conditions: [
        { type: "Available", status: "True", lastUpdateTime: "2026-11-30T00:00:00Z", lastTransitionTime: "2026-11-30T00:00:00Z", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability." },
        { type: "Progressing", status: "True", lastUpdateTime: "2026-11-30T00:00:00Z", lastTransitionTime: "2026-11-29T00:00:00Z", reason: "NewReplicaSetAvailable", message: 'ReplicaSet "web-5d8f7c9b6d" has successfully progressed.' },
      ],
    },
  };
}

test("InterpretHealth throughput on a 4 KB Deployment, conversion included", async () => {
  const obj = deployment();
  const size = JSON.stringify(obj).length;
  assert.ok(size >= 4000 && size < 4600, `object is ${size} bytes`);
  const ipt = await createDeclarativeInterpreter([customization]);
  try {
    for (let i = 0; i < 3000; i++) ipt.interpretHealth(obj);
    const n = 6000;
    const started = performance.now();
    for (let i = 0; i < n; i++) {
      const out = ipt.interpretHealth(obj);
      if (!out.ok || out.value !== true) assert.fail(JSON.stringify(out));
    }
    const perSecond = Math.round((n / (performance.now() - started)) * 1000);
    console.log(`lua InterpretHealth on a ${size}-byte object: ${perSecond} calls/s`);
    assert.ok(perSecond >= 1000, `${perSecond} calls/s`);
  } finally {
    ipt.close();
  }
});
