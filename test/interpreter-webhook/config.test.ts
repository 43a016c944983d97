/** ResourceInterpreterWebhookConfiguration reading, validation and hook selection. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { firstRelevantHook, parseWebhookConfigurations, resolveEndpoint, ruleMatches, serviceUrl, webhookAccessors, WebhookInterpreter } from "../../src/interpreter/webhook/index.js";

const CONFIG = `
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterWebhookConfiguration
metadata:
  name: workload-interpreter
webhooks:
  - name: workloads.example.io
    rules:
      - operations: ["InterpretReplica", "ReviseReplica", "Retain", "AggregateStatus"]
        apiGroups: ["workload.example.io"]
        apiVersions: ["v1alpha1"]
        kinds: ["Workload"]
    clientConfig:
      url: https://karmada-interpreter-webhook-example.karmada-system.svc:443/interpreter-workload
    interpreterContextVersions: ["v1alpha1"]
    timeoutSeconds: 15
---
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterWebhookConfiguration
metadata:
  name: all-health
webhooks:
  - name: health.example.io
    rules:
      - operations: ["InterpretHealth"]
        apiGroups: ["*"]
        apiVersions: ["*"]
        kinds: ["*"]
    clientConfig:
      service: {namespace: karmada-system, name: health-webhook, path: /health}
    interpreterContextVersions: ["v1alpha1"]
  - name: a-workload-health.example.io
    rules:
      - operations: ["InterpretHealth"]
        apiGroups: ["workload.example.io"]
        apiVersions: ["*"]
        kinds: ["Workload"]
    clientConfig:
      service: {namespace: karmada-system, name: workload-health, port: 8443}
    interpreterContextVersions: ["v1alpha1"]
`;

describe("webhook configurations", () => {
  test("read from multi-document YAML; hooks ordered by <configuration>/<webhook>", () => {
    const { configurations, issues } = parseWebhookConfigurations(CONFIG, "hooks.yaml");
    assert.deepEqual(issues, []);
    assert.deepEqual(
      webhookAccessors(configurations).map((h) => h.uid),
      ["all-health/a-workload-health.example.io", "all-health/health.example.io", "workload-interpreter/workloads.example.io"],
    );
  });

  test("the first matching hook answers; rules match operation, group, version, kind with '*'", () => {
    const hooks = webhookAccessors(parseWebhookConfigurations(CONFIG, "hooks.yaml").configurations);
    const workload = { apiVersion: "workload.example.io/v1alpha1", kind: "Workload" };
    const deployment = { apiVersion: "apps/v1", kind: "Deployment" };
    assert.equal(firstRelevantHook(hooks, workload, "InterpretHealth")?.uid, "all-health/a-workload-health.example.io");
    assert.equal(firstRelevantHook(hooks, deployment, "InterpretHealth")?.uid, "all-health/health.example.io");
    assert.equal(firstRelevantHook(hooks, workload, "ReviseReplica")?.uid, "workload-interpreter/workloads.example.io");
    assert.equal(firstRelevantHook(hooks, workload, "InterpretDependency"), undefined);
    assert.equal(firstRelevantHook(hooks, { apiVersion: "workload.example.io/v1beta1", kind: "Workload" }, "Retain"), undefined);
    assert.equal(ruleMatches({ operations: ["*"], apiGroups: [""], apiVersions: ["v1"], kinds: ["Pod"] }, { apiVersion: "v1", kind: "Pod" }, "Retain"), true);
    const layer = new WebhookInterpreter(parseWebhookConfigurations(CONFIG, "hooks.yaml").configurations);
    assert.equal(layer.supports(workload, "InterpretReplica"), true);
    assert.equal(layer.supports(deployment, "InterpretReplica"), false);
  });

  test("invalid configurations are reported with field paths", () => {
    const bad = `
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterWebhookConfiguration
metadata: {name: bad}
webhooks:
  - name: dup.example.io
    rules: [{operations: ["*", "Retain"], apiGroups: [""], apiVersions: ["v1"], kinds: ["Pod"]}]
    clientConfig: {url: "http://hook.example.io/x", service: {namespace: ns, name: svc}}
    interpreterContextVersions: ["v1beta1"]
    timeoutSeconds: 31
  - name: dup.example.io
    rules: [{operations: ["Retain"], apiGroups: [""], apiVersions: ["v1"], kinds: []}]
    clientConfig: {url: "http://hook.example.io/x?a=b"}
    interpreterContextVersions: ["v1alpha1"]
`;
    const { configurations, issues } = parseWebhookConfigurations(bad, "bad.yaml");
    assert.equal(configurations.length, 0);
    assert.deepEqual(
      issues.map((i) => `${i.path}: ${i.message}`),
      [
        `webhooks[0].clientConfig: Required value: exactly one of url or service is required`,
        `webhooks[0].rules[0].operations: Invalid value: ["*","Retain"]: if '*' is present, must not specify other operations`,
        `webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds`,
        `webhooks[0].interpreterContextVersions: Unsupported value: ["v1beta1"]: must include at least one of v1alpha1`,
        `webhooks[1].name: Duplicate value: "dup.example.io"`,
        `webhooks[1].clientConfig.url: Unsupported value: "http": supported values: "https"`,
        `webhooks[1].clientConfig.url: Invalid value: "http://hook.example.io/x?a=b": query parameters are not permitted in the URL`,
        `webhooks[1].rules[0].kinds: Required value`,
      ],
    );
    assert.ok(issues.every((i) => i.file === "bad.yaml" && i.line === 2));
  });

  test("endpoints: a Service resolves to its cluster DNS name; the TLS name stays the Service's", () => {
    assert.equal(serviceUrl({ namespace: "karmada-system", name: "hook", path: "/interpret" }), "https://hook.karmada-system.svc:443/interpret");
    const viaResolver = resolveEndpoint({ service: { namespace: "karmada-system", name: "hook", port: 8443 } }, () => "https://10.0.0.7:8443/");
    assert.ok(viaResolver.ok);
    assert.equal(viaResolver.endpoint.url.href, "https://10.0.0.7:8443/");
    assert.equal(viaResolver.endpoint.serverName, "hook.karmada-system.svc");
    const bad = resolveEndpoint({ url: "https://hook.example.io/", caBundle: Buffer.from("not a certificate").toString("base64") });
    assert.deepEqual(bad, { ok: false, error: "caBundle does not hold a PEM certificate" });
  });
});
