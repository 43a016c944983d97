/**
 * The declarative layer: reading customizations (errors naming the file), Karmada's merge of several
 * customizations per kind, and each operation's result handling.
 */
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { customizationOf, findConflicts, mergeCustomizations, parseCustomizationObject, parseCustomizations, type CustomizationScripts } from "../../src/interpreter/declarative/customization.js";
import { loadCustomizationFiles } from "../../src/interpreter/declarative/load.js";
import { createDeclarativeInterpreter, type DeclarativeInterpreter } from "../../src/interpreter/declarative/interpreter.js";
import type { JsonValue, KubeObject, ResourceInterpreterCustomization } from "../../src/interpreter/types.js";

function ric(name: string, kind: string, scripts: CustomizationScripts): ResourceInterpreterCustomization {
  return customizationOf(name, { apiVersion: "apps.kruise.io/v1alpha1", kind }, scripts);
}

const cloneSet: KubeObject = {
  apiVersion: "apps.kruise.io/v1alpha1",
  kind: "CloneSet",
  metadata: { name: "web", namespace: "shop", generation: 3, labels: { app: "web" }, annotations: {} },
  spec: {
    replicas: 4,
    selector: { matchLabels: { app: "web" } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        serviceAccountName: "web",
        nodeSelector: { "topology.kubernetes.io/zone": "eu-west-1a" },
        containers: [
          {
            name: "web",
            image: "nginx:1.27",
            envFrom: [{ configMapRef: { name: "web-env" } }],
            resources: { requests: { cpu: "250m", memory: "256Mi" }, limits: { cpu: "500m", memory: "512Mi" } },
          },
        ],
        volumes: [{ name: "tls", secret: { secretName: "web-tls" } }],
      },
    },
  },
  status: { observedGeneration: 3, replicas: 4, readyReplicas: 4, updatedReplicas: 4, updatedReadyReplicas: 4, availableReplicas: 4 },
};

describe("reading customizations", () => {
  test("multi-document YAML with a List; problems name the file and line", () => {
    const text = [
      "apiVersion: config.karmada.io/v1alpha1",
      "kind: ResourceInterpreterCustomization",
      "metadata: {name: cloneset-health}",
      "spec:",
      "  target: {apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet}",
      "  customizations:",
      "    healthInterpretation:",
      "      luaScript: 'function InterpretHealth(o) return true end'",
      "---",
      "apiVersion: v1",
      "kind: List",
      "items:",
      "- apiVersion: config.karmada.io/v1alpha1",
      "  kind: ResourceInterpreterCustomization",
      "  metadata: {name: cloneset-replicas}",
      "  spec:",
      "    target: {apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet}",
      "    customizations:",
      "      replicaResource: {luaScript: 'function GetReplicas(o) return 1, nil end'}",
      "---",
      "apiVersion: config.karmada.io/v1alpha1",
      "kind: ResourceInterpreterCustomization",
      "metadata: {name: broken}",
      "spec:",
      "  target: {kind: CloneSet}",
      "  customizations:",
      "    healthInterpretaton: {luaScript: x}",
    ].join("\n");
    const { customizations, issues } = parseCustomizations(text, "rics.yaml");
    assert.deepEqual(customizations.map((c) => c.metadata.name), ["cloneset-health", "cloneset-replicas"]);
    assert.deepEqual(
      issues.map((i) => `${i.file}:${i.line}: ${i.path}: ${i.message.split(";")[0]}`),
      ["rics.yaml:21: spec.target.apiVersion: Required value", 'rics.yaml:21: spec.customizations.healthInterpretaton: unknown field "healthInterpretaton"'],
    );
  });

  test("YAML syntax errors name the file", () => {
    const { issues } = parseCustomizations("apiVersion: [\n", "bad.yaml");
    assert.ok(issues.length > 0);
    assert.equal(issues[0]!.file, "bad.yaml");
  });

  test("customizationOf builds a customization that reads back without issues", () => {
    const built = customizationOf("cloneset-health", { apiVersion: "apps.kruise.io/v1alpha1", kind: "CloneSet" }, {
      healthInterpretation: "function InterpretHealth(o) return o.status ~= nil end",
      retention: undefined,
    });
    assert.deepEqual(parseCustomizationObject(built as unknown as JsonValue, "built"), { customization: built, issues: [] });
    assert.deepEqual(Object.keys(built.spec.customizations), ["healthInterpretation"]);
  });

  test("files and directories (recursively), YAML and JSON", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-ric-"));
    try {
      mkdirSync(path.join(dir, "nested"));
      writeFileSync(path.join(dir, "a.yaml"), JSON.stringify(ric("a", "CloneSet", { healthInterpretation: "function InterpretHealth(o) return true end" })));
      writeFileSync(path.join(dir, "nested", "b.json"), JSON.stringify(ric("b", "CloneSet", { replicaResource: "function GetReplicas(o) return 2 end" })));
      writeFileSync(path.join(dir, "notes.txt"), "not a customization");
      writeFileSync(path.join(dir, "c.yml"), "kind: Deployment\n");
      const flat = loadCustomizationFiles([dir]);
      assert.deepEqual(flat.customizations.map((c) => c.metadata.name), ["a"]);
      assert.deepEqual(flat.issues.map((i) => [path.basename(i.file), i.path]), [["c.yml", "apiVersion"], ["c.yml", "kind"], ["c.yml", "metadata.name"], ["c.yml", "spec"]]);
      const deep = loadCustomizationFiles([dir], { recursive: true });
      assert.deepEqual(deep.customizations.map((c) => c.metadata.name).sort(), ["a", "b"]);
      const missing = loadCustomizationFiles([path.join(dir, "absent.yaml")]);
      assert.equal(missing.issues.length, 1);
      assert.match(missing.issues[0]!.file, /absent\.yaml$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("merging several customizations of one kind", () => {
  const rics = [
    ric("zz-late", "CloneSet", { healthInterpretation: "function InterpretHealth(o) return false end", dependencyInterpretation: "z" }),
    ric("aa-first", "CloneSet", { healthInterpretation: "", retention: "r1", dependencyInterpretation: "a" }),
    ric("mm-middle", "CloneSet", { healthInterpretation: "function InterpretHealth(o) return true end", retention: "r2" }),
  ];

  test("sorted by name, first non-empty script per operation, dependency scripts all kept", () => {
    const merged = [...mergeCustomizations(rics).values()];
    assert.equal(merged.length, 1);
    assert.deepEqual(merged[0]!.sources, ["aa-first", "mm-middle", "zz-late"]);
    assert.equal(merged[0]!.scripts.healthInterpretation, "function InterpretHealth(o) return true end");
    assert.equal(merged[0]!.scripts.retention, "r1");
    assert.deepEqual(merged[0]!.dependencyScripts, ["a", "z"]);
  });

  test("conflicts Karmada's admission would reject are reported", () => {
    assert.deepEqual(
      findConflicts(rics).map((i) => i.message),
      [
        "conflicting with InterpreterOperation(Retain) of existing ResourceInterpreterCustomization(aa-first)",
        "conflicting with InterpreterOperation(InterpretHealth) of existing ResourceInterpreterCustomization(mm-middle)",
      ],
    );
  });
});

describe("operations", () => {
  let ipt: DeclarativeInterpreter;
  before(async () => {
    ipt = await createDeclarativeInterpreter([
      ric("cloneset", "CloneSet", {
        replicaResource: `
          local kube = require("kube")
          function GetReplicas(obj)
            return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)
          end`,
        componentResource: `
          local kube = require("kube")
          function GetComponents(obj)
            return {{name = "web", replicas = obj.spec.replicas, replicaRequirements = kube.accuratePodRequirements(obj.spec.template)}}
          end`,
        replicaRevision: `function ReviseReplica(obj, desiredReplica) obj.spec.replicas = desiredReplica return obj end`,
        retention: `
          function Retain(desiredObj, observedObj)
            desiredObj.spec.paused = observedObj.spec.paused
            desiredObj.metadata.finalizers = {}
            return desiredObj
          end`,
        statusAggregation: `
          function AggregateStatus(desiredObj, statusItems)
            if statusItems == nil then return desiredObj end
            local status = {replicas = 0, readyReplicas = 0, conditions = {}}
            for i = 1, #statusItems do
              local s = statusItems[i].status
              if s ~= nil then
                status.replicas = status.replicas + (s.replicas or 0)
                status.readyReplicas = status.readyReplicas + (s.readyReplicas or 0)
              end
            end
            desiredObj.status = status
            return desiredObj
          end`,
        statusReflection: `function ReflectStatus(observedObj) return {replicas = observedObj.status.replicas, conditions = {}} end`,
        healthInterpretation: `
          function InterpretHealth(observedObj)
            if observedObj.status.observedGeneration ~= observedObj.metadata.generation then return nil end
            return observedObj.status.readyReplicas == observedObj.spec.replicas
          end`,
        dependencyInterpretation: `
          local kube = require("kube")
          function GetDependencies(desiredObj)
            return kube.getPodDependencies(desiredObj.spec.template, desiredObj.metadata.namespace)
          end`,
      }),
      ric("cloneset-extra-deps", "CloneSet", {
        dependencyInterpretation: `
          function GetDependencies(desiredObj)
            return {{apiVersion = "v1", kind = "ConfigMap", namespace = desiredObj.metadata.namespace, name = "web-env"},
                    {apiVersion = "v1", kind = "Service", namespace = desiredObj.metadata.namespace, name = "web"}}
          end`,
      }),
      ric("broken", "SidecarSet", {
        replicaResource: `function GetReplicas(obj) return "three" end`,
        healthInterpretation: `function InterpretHealth(obj) return nil end`,
        dependencyInterpretation: `function GetDependencies(obj) return {{apiVersion = "v1", kind = "Secret"}} end`,
      }),
    ]);
  });
  after(() => ipt.close());

  const cloneSetKind = { apiVersion: "apps.kruise.io/v1alpha1", kind: "CloneSet" };

  test("supports() per operation and kind", () => {
    assert.equal(ipt.supports(cloneSetKind, "InterpretHealth"), true);
    assert.equal(ipt.supports(cloneSetKind, "Prune"), false);
    assert.equal(ipt.supports({ apiVersion: "apps/v1", kind: "Deployment" }, "InterpretHealth"), false);
    assert.equal(ipt.supports({ apiVersion: "apps.kruise.io/v1alpha1", kind: "SidecarSet" }, "Retain"), false);
  });

  test("InterpretReplica: replicas and the template's requirements", () => {
    assert.deepEqual(ipt.interpretReplica(cloneSet), {
      ok: true,
      value: {
        replicas: 4,
        replicaRequirements: {
          nodeClaim: { nodeSelector: { "topology.kubernetes.io/zone": "eu-west-1a" } },
          resourceRequest: { cpu: "250m", memory: "256Mi" },
        },
      },
    });
  });

  test("InterpretComponent: components with their requirements", () => {
    const out = ipt.interpretComponent(cloneSet);
    assert.ok(out.ok);
    assert.deepEqual(out.value, [
      { name: "web", replicas: 4, replicaRequirements: { nodeClaim: { nodeSelector: { "topology.kubernetes.io/zone": "eu-west-1a" } }, resourceRequest: { cpu: "250m", memory: "256Mi" } } },
    ]);
  });

  test("ReviseReplica and Retain keep empty objects of the input and drop new empty tables", () => {
    const revised = ipt.reviseReplica(cloneSet, 2);
    assert.ok(revised.ok);
    assert.equal((revised.value.spec as { replicas: number }).replicas, 2);
    assert.deepEqual((revised.value.metadata as { annotations: unknown }).annotations, {});
    const observed = { ...cloneSet, spec: { ...(cloneSet.spec as object), paused: true } };
    const retained = ipt.retain(cloneSet, observed);
    assert.ok(retained.ok);
    assert.equal((retained.value.spec as { paused: boolean }).paused, true);
    assert.equal("finalizers" in (retained.value.metadata as object), false);
    assert.deepEqual((cloneSet.spec as { replicas: number }).replicas, 4, "the input is not modified");
  });

  test("AggregateStatus sums the member clusters' status; empty tables without a reference go", () => {
    const out = ipt.aggregateStatus(cloneSet, [
      { clusterName: "member1", status: { replicas: 2, readyReplicas: 2 }, applied: true, health: "Healthy" },
      { clusterName: "member2", status: { replicas: 2, readyReplicas: 1 }, applied: true, health: "Unhealthy" },
      { clusterName: "member3", applied: false, appliedMessage: "cluster unreachable" },
    ]);
    assert.ok(out.ok);
    assert.deepEqual(out.value.status, { replicas: 4, readyReplicas: 3 });
  });

  test("InterpretStatus returns the reflected status", () => {
    assert.deepEqual(ipt.interpretStatus(cloneSet), { ok: true, value: { replicas: 4 } });
  });

  test("InterpretHealth: a boolean; nil is an error", () => {
    assert.deepEqual(ipt.interpretHealth(cloneSet), { ok: true, value: true });
    const stale = { ...cloneSet, metadata: { ...(cloneSet.metadata as object), generation: 4 } };
    const out = ipt.interpretHealth(stale);
    assert.equal(out.ok, false);
    if (!out.ok) {
      assert.equal(out.error.message, "result type 0 is not bool");
      assert.equal(out.error.operation, "InterpretHealth");
      assert.equal(out.error.layer, "declarative");
      assert.equal(out.error.path, "spec.customizations.healthInterpretation");
    }
  });

  test("InterpretDependency: every script's references, deduplicated and sorted", () => {
    assert.deepEqual(ipt.interpretDependency(cloneSet), {
      ok: true,
      value: [
        { apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name: "web-env" },
        { apiVersion: "v1", kind: "Secret", namespace: "shop", name: "web-tls" },
        { apiVersion: "v1", kind: "Service", namespace: "shop", name: "web" },
        { apiVersion: "v1", kind: "ServiceAccount", namespace: "shop", name: "web" },
      ],
    });
  });

  test("wrong result types fail with Karmada's messages", () => {
    const sidecarSet: KubeObject = { apiVersion: "apps.kruise.io/v1alpha1", kind: "SidecarSet", metadata: { name: "s" } };
    const replicas = ipt.interpretReplica(sidecarSet);
    assert.equal(replicas.ok, false);
    if (!replicas.ok) assert.equal(replicas.error.message, "result type 3 is not number");
    const deps = ipt.interpretDependency(sidecarSet);
    assert.equal(deps.ok, false);
    if (!deps.ok) assert.match(deps.error.message, /dependency can not leave name and labelSelector all empty/);
    const health = ipt.interpretHealth(sidecarSet);
    assert.equal(health.ok, false);
    const unsupported = ipt.retain(sidecarSet, sidecarSet);
    assert.deepEqual(unsupported.ok ? undefined : unsupported.error.message, "rule is not enabled");
  });
});

describe("typed results", () => {
  test("decoding follows Go's json.Unmarshal: unknown fields dropped, case-insensitive names, quantities canonical", async () => {
    const { toComponents, toReplicaRequirements } = await import("../../src/interpreter/typed.js");
    assert.deepEqual(toComponents([{ Name: "jobmanager", replicas: 1, extra: true, replicaRequirements: { resourceRequest: { cpu: "1000m", memory: 2147483648 } } }]), [
      { name: "jobmanager", replicas: 1, replicaRequirements: { resourceRequest: { cpu: "1", memory: "2147483648" } } },
    ]);
    assert.deepEqual(toReplicaRequirements({ namespace: "", nodeClaim: { nodeSelector: {} } }), { nodeClaim: {} });
    assert.throws(() => toComponents([{ name: "tm", replicas: 1.5 }]), /json: cannot unmarshal number 1.5 into Go struct field Component.replicas of type int32/);
    assert.throws(() => toReplicaRequirements({ resourceRequest: { cpu: "two" } }), /quantities must match the regular expression/);
    assert.throws(() => toReplicaRequirements({ namespace: 3 }), /cannot unmarshal number 3 into Go struct field ReplicaRequirements.namespace of type string|cannot unmarshal number into Go struct field ReplicaRequirements.namespace of type string/);
  });
});
