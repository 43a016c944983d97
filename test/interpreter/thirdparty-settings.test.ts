/**
 * Karta's own interpreters for operator settings (src/interpreter/thirdparty/settings.ts), on inputs
 * Karmada's test cases do not cover, and `spec.karmada.deferOperations`, which leaves an operation of a
 * Karta to them.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createBundledFramework, runInterpret } from "../../src/cli/interpret.js";
import { memoryIO } from "../../src/cli/io.js";
import { loadKartaText } from "../../src/interpreter/karta/index.js";
import { FlinkDeploymentInterpreter, RayServiceInterpreter, SparkApplicationInterpreter } from "../../src/interpreter/thirdparty/index.js";
import type { JsonValue, KubeObject, Outcome } from "../../src/interpreter/types.js";

function value<T>(o: Outcome<T>): T {
  assert.ok(o.ok, o.ok ? "" : o.error.message);
  return o.value;
}

function ray(groups: (number | undefined)[]): KubeObject {
  const template = (cpu: string) => ({ spec: { containers: [{ name: "ray", resources: { requests: { cpu, memory: "1Gi" } } }] } });
  return {
    apiVersion: "ray.io/v1",
    kind: "RayService",
    metadata: { name: "r", namespace: "ns" },
    spec: {
      rayClusterConfig: {
        headGroupSpec: { template: template("1") },
        workerGroupSpecs: groups.map((n, i) => ({ groupName: `g${i}`, ...(n === undefined ? {} : { replicas: n }), template: template(`${i + 2}`) })),
      },
    },
  };
}

function workerReplicas(o: KubeObject): unknown[] {
  const spec = o.spec as { rayClusterConfig: { workerGroupSpecs: { replicas?: number }[] } };
  return spec.rayClusterConfig.workerGroupSpecs.map((g) => g.replicas);
}

describe("RayService", () => {
  const r = new RayServiceInterpreter();
  test("ReviseReplica: groups at 0 share the workers equally, the first ones taking the remainder", () => {
    assert.deepEqual(workerReplicas(value(r.reviseReplica(ray([0, 0, 0]), 8))), [3, 2, 2]);
  });
  test("ReviseReplica: in proportion to the current sizes, the last group making the total exact", () => {
    assert.deepEqual(workerReplicas(value(r.reviseReplica(ray([2, 6]), 5))), [1, 3]);
    assert.deepEqual(workerReplicas(value(r.reviseReplica(ray([2, 6]), 0))), [0, 0], "the head alone: no workers");
  });
  test("InterpretReplica: the head plus every group (unset is 0), with the largest CPU", () => {
    const got = value(r.interpretReplica(ray([2, undefined, 3])));
    assert.equal(got.replicas, 6);
    assert.equal(got.replicaRequirements?.resourceRequest?.cpu, "4");
  });
});

describe("FlinkDeployment", () => {
  const f = new FlinkDeploymentInterpreter();
  const flink = (spec: Record<string, JsonValue>): KubeObject => ({ apiVersion: "flink.apache.org/v1beta1", kind: "FlinkDeployment", metadata: { name: "f" }, spec });
  test("replicas written as text count; fractional CPU is a quantity", () => {
    const got = value(f.interpretReplica(flink({ jobManager: { replicas: "2", resource: { cpu: 0.5 } }, taskManager: { replicas: "3", resource: { cpu: 0.25, memory: "1Gi" } } })));
    assert.equal(got.replicas, 5);
    assert.deepEqual(got.replicaRequirements, { resourceRequest: { cpu: "0.5", memory: "1Gi" } });
  });
  test("TaskManagers from parallelism and slots, rounded up", () => {
    const got = value(f.interpretComponent(flink({ job: { parallelism: 5 }, flinkConfiguration: { "taskmanager.numberOfTaskSlots": "2" } })));
    assert.deepEqual(got.map((c) => [c.name, c.replicas]), [["jobmanager", 1], ["taskmanager", 3]]);
  });
});

describe("SparkApplication", () => {
  const s = new SparkApplicationInterpreter();
  const spark = (spec: Record<string, JsonValue>): KubeObject => ({ apiVersion: "sparkoperator.k8s.io/v1beta2", kind: "SparkApplication", metadata: { name: "s" }, spec });
  test("a set memoryOverhead replaces the factor; memory without a unit is MiB", () => {
    const got = value(s.interpretComponent(spark({ type: "Scala", driver: { memory: "2g", memoryOverhead: "512m" }, executor: { memory: "1024", instances: 3 } })));
    assert.equal(got[0]!.replicaRequirements?.resourceRequest?.memory, "2560Mi");
    assert.equal(got[1]!.replicaRequirements?.resourceRequest?.memory, "1408Mi");
    assert.equal(got[1]!.replicas, 3);
  });
  test("Python's 40% overhead; required node affinity is a hard node claim", () => {
    const required = { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }] };
    const got = value(s.interpretComponent(spark({ type: "Python", driver: { memory: "2g", affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required } } } })));
    assert.equal(got[0]!.replicaRequirements?.resourceRequest?.memory, "2867.2Mi");
    assert.deepEqual(got[0]!.replicaRequirements?.nodeClaim, { hardNodeAffinity: required });
  });
});

describe("spec.karmada.deferOperations", () => {
  test("the bundled Kartas leave these operations to the thirdparty layer and keep the rest", async () => {
    const { framework, close } = await createBundledFramework();
    try {
      const flink = { apiVersion: "flink.apache.org/v1beta1", kind: "FlinkDeployment" };
      assert.equal(framework.answering(flink, "InterpretReplica"), "thirdparty");
      assert.equal(framework.answering(flink, "InterpretComponent"), "thirdparty");
      assert.equal(framework.answering(flink, "InterpretHealth"), "karta");
      const rayService = { apiVersion: "ray.io/v1", kind: "RayService" };
      assert.equal(framework.answering(rayService, "ReviseReplica"), "thirdparty");
      assert.equal(framework.answering(rayService, "InterpretComponent"), "karta");
      assert.equal(framework.answering({ apiVersion: "sparkoperator.k8s.io/v1beta2", kind: "SparkApplication" }, "InterpretComponent"), "thirdparty");
    } finally {
      close();
    }
  });

  test("karta interpret with no customization answers a deferred operation from the thirdparty layer", async () => {
    const flink = { apiVersion: "flink.apache.org/v1beta1", kind: "FlinkDeployment", metadata: { name: "f", namespace: "ns" }, spec: { jobManager: { resource: { cpu: 1 } }, taskManager: { replicas: 2, resource: { cpu: 2 } } } };
    const io = memoryIO("", { "f.yaml": JSON.stringify(flink) });
    const code = await runInterpret(["--operation", "InterpretReplica", "--desired-file", "f.yaml", "--show-layer"], io);
    assert.equal(code, 0, io.err);
    assert.match(io.out, /# layer: thirdparty\n/);
    assert.match(io.out, /# \[1\/2\] replica:\n3\n/);
    assert.match(io.out, /cpu: "2"\n/);
  });

  test("a replica count past int32 is Go's int32 of Karmada's Lua number (its smallest value), not a count Karmada cannot decode", async () => {
    const io = memoryIO("", { "r.yaml": JSON.stringify(ray([2, 2147483647])) });
    const code = await runInterpret(["--operation", "InterpretReplica", "--desired-file", "r.yaml", "--show-layer"], io);
    assert.equal(code, 0, io.err);
    assert.match(io.out, /# \[1\/2\] replica:\n-2147483648\n/);
  });

  test("an operation that is not one of Karmada's is a validation error naming the field", () => {
    const karta = `apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: w}
spec:
  structureDefinition:
    rootComponent:
      name: w
      kind: {group: example.com, version: v1, kind: W}
      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: .spec.replicas}
  karmada:
    deferOperations: [InterpretReplicas]
`;
    const loaded = loadKartaText(karta, "w.yaml");
    assert.match(loaded.diagnostics.map((x) => `${x.path} ${x.message}`).join("\n"), /spec\.karmada\.deferOperations/);
  });
});
