/**
 * The kube Lua library as scripts see it (require("kube")), with Karmada's semantics and messages.
 */
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { LuaVM, type LuaCallOutcome } from "../../src/interpreter/lua/vm.js";
import { kubeLibrary } from "../../src/interpreter/lua/kube.js";
import { checkCustomizationScripts } from "../../src/interpreter/declarative/interpreter.js";
import { customizationOf } from "../../src/interpreter/declarative/customization.js";
import type { JsonValue } from "../../src/interpreter/types.js";

let vm: LuaVM;
before(async () => {
  vm = await LuaVM.create({ kube: kubeLibrary() });
});
after(() => vm.close());

function call(body: string, args: JsonValue[] = []): LuaCallOutcome {
  const compiled = vm.compile(`local kube = require("kube")\n${body}`);
  assert.ok(compiled.ok, compiled.ok ? "" : compiled.error);
  return vm.call(compiled.script, "F", args, 1);
}

function value(out: LuaCallOutcome): unknown {
  assert.ok(out.ok, out.ok ? "" : out.error);
  return out.results[0]!.value;
}

const trainingTemplate: JsonValue = {
  metadata: { labels: { "training.kubeflow.org/replica-type": "worker" } },
  spec: {
    serviceAccountName: "trainer",
    imagePullSecrets: [{ name: "registry-creds" }],
    nodeSelector: { "nvidia.com/gpu.product": "A100" },
    tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
    initContainers: [{ name: "fetch", image: "busybox", resources: { requests: { cpu: "2", memory: "1Gi" } } }],
    containers: [
      {
        name: "pytorch",
        image: "pytorch/pytorch:2.4",
        env: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "hf-token", key: "token" } } }],
        resources: { requests: { cpu: "500m", memory: "4Gi" }, limits: { "nvidia.com/gpu": "1" } },
      },
      { name: "logger", image: "fluent-bit", resources: { requests: { cpu: "250m", memory: "128Mi" } } },
    ],
    volumes: [{ name: "data", persistentVolumeClaim: { claimName: "dataset" } }, { name: "cfg", configMap: { name: "train-config" } }],
  },
};

describe("kube library", () => {
  test("resourceAdd sums quantities (nil counts as zero) into a canonical string", () => {
    assert.equal(value(call("function F() return kube.resourceAdd('1500m', '500m', nil) end")), "2");
    assert.equal(value(call("function F() return kube.resourceAdd('1Gi', '512Mi') end")), "1536Mi");
    assert.equal(value(call("function F() return kube.resourceAdd() end")), "0");
  });

  test("resourceAdd rejects what is not a quantity with upstream's message", () => {
    const out = call("function F() return kube.resourceAdd('1 cpu') end");
    assert.equal(out.ok, false);
    // Upstream parses with resource.MustParse: a panic, which gopher-lua reports without a position.
    if (!out.ok) assert.match(out.error, /^cannot parse '1 cpu': quantities must match the regular expression/);
    const typed = call("function F() return kube.resourceAdd(1) end");
    assert.equal(typed.ok, false);
    if (!typed.ok) assert.match(typed.error, /bad argument #1 to resourceAdd \(string expected, got number\)/);
  });

  test("getResourceQuantity returns the quantity as a number", () => {
    assert.equal(value(call("function F() return kube.getResourceQuantity('100m') end")), 0.1);
    assert.equal(value(call("function F() return kube.getResourceQuantity('2Ki') end")), 2048);
    const out = call("function F() return kube.getResourceQuantity('1', '2') end");
    assert.equal(out.ok, false);
    if (!out.ok) assert.match(out.error, /getResourceQuantity only accepts one argument/);
  });

  test("accuratePodRequirements: node claim and per-replica requests (init containers as a maximum)", () => {
    assert.deepEqual(value(call("function F(t) return kube.accuratePodRequirements(t) end", [trainingTemplate])), {
      nodeClaim: {
        nodeSelector: { "nvidia.com/gpu.product": "A100" },
        tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
      },
      resourceRequest: { cpu: "2", memory: "4224Mi", "nvidia.com/gpu": "1" },
    });
    assert.equal(value(call("function F() return kube.accuratePodRequirements({spec = {containers = {{name = 'x'}}}}) == nil end")), true);
  });

  test("getPodDependencies: ConfigMaps, Secrets, ServiceAccount and PVCs in the namespace", () => {
    assert.deepEqual(value(call("function F(t) return kube.getPodDependencies(t, 'ml') end", [trainingTemplate])), [
      { apiVersion: "v1", kind: "ConfigMap", namespace: "ml", name: "train-config" },
      { apiVersion: "v1", kind: "Secret", namespace: "ml", name: "hf-token" },
      { apiVersion: "v1", kind: "Secret", namespace: "ml", name: "registry-creds" },
      { apiVersion: "v1", kind: "ServiceAccount", namespace: "ml", name: "trainer" },
      { apiVersion: "v1", kind: "PersistentVolumeClaim", namespace: "ml", name: "dataset" },
    ]);
    const defaulted = value(call("function F(t) return kube.getPodDependencies(t, nil)[1].namespace end", [trainingTemplate]));
    assert.equal(defaulted, "default");
    const out = call("function F(t) return kube.getPodDependencies(t) end", [trainingTemplate]);
    assert.equal(out.ok, false);
    if (!out.ok) assert.match(out.error, /getPodDependencies only accepts two argument/);
  });
});

describe("script checks", () => {
  test("every script of every customization compiles, or its error is reported", () => {
    const ric = customizationOf("workload", { apiVersion: "example.io/v1", kind: "Workload" }, {
      healthInterpretation: "function InterpretHealth(o) return true end",
      replicaResource: "function GetReplicas(o) return o.spec.replicas",
    });
    const checks = checkCustomizationScripts(vm, [ric]);
    assert.equal(checks.length, 2);
    assert.deepEqual(checks[0], { name: "workload", operation: "InterpretReplica", error: checks[0]!.error });
    assert.equal(checks[0]!.error, "<string> at EOF:   syntax error\n");
    assert.deepEqual(checks[1], { name: "workload", operation: "InterpretHealth" });
  });
});
