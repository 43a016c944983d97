/**
 * The Karta extension `spec.karmada`: each part on a small user Karta (independent of the conformance
 * data), its validation, and `karta interpret` answering a bundled third-party kind with no customization.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { runInterpret } from "../../src/cli/interpret.js";
import { memoryIO } from "../../src/cli/io.js";
import { validateDefinition } from "../../src/definition/index.js";
import { createKartaInterpreter, loadKartaText, type KartaLayer } from "../../src/interpreter/karta/index.js";
import { createThirdpartyInterpreter } from "../../src/interpreter/thirdparty/index.js";
import type { KubeObject, Outcome } from "../../src/interpreter/types.js";

const KARTA = `
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: example-com-v1-trainer}
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind: {group: example.com, version: v1, kind: Trainer}
      specDefinition:
        podTemplateSpecPath: .spec.template
      scaleDefinition:
        replicasPath: .spec.replicas // 1
      statusDefinition:
        statusMappings:
          running:
            - byExpression:
                expression: (.status.ready // 0) > 0
                expectedResult: "true"
  karmada:
    health:
      expression: if .status == null then false else null end
    statusReflection:
      fields: [ready, labelSelector, shards.primary]
      memberGeneration: true
    statusAggregation:
      sum: [ready, shards.primary]
      sumQuantities: [memory]
      observedGeneration: true
      expression: >-
        .object.status + {clusters: [.items[].clusterName]}
    retention:
      paths:
        - .spec.paused
        - '.metadata.labels["example.com/owner"]'

    dependencies:
      podTemplatePaths: [.spec.setup]
      expression: '[{apiVersion: "v1", kind: "Secret", name: .spec.tokenSecret}] | map(select(.name != null))'
`;

function layer(text = KARTA): KartaLayer {
  const loaded = loadKartaText(text, "trainer.yaml");
  assert.deepEqual(loaded.diagnostics, []);
  const { interpreter, issues } = createKartaInterpreter({ definitions: loaded.definitions, bundled: false });
  assert.deepEqual(issues, []);
  return interpreter;
}

function value<T>(o: Outcome<T>): T {
  if (!o.ok) assert.fail(o.error.message);
  return o.value;
}

function trainer(): KubeObject {
  return {
    apiVersion: "example.com/v1",
    kind: "Trainer",
    metadata: { name: "t", namespace: "ml", generation: 4, annotations: { "resourcetemplate.karmada.io/generation": "4" } },
    spec: {
      replicas: 2,
      tokenSecret: "hub-token",
      template: { spec: { containers: [{ name: "main", image: "trainer:1", envFrom: [{ configMapRef: { name: "trainer-config" } }] }] } },
      setup: { spec: { containers: [{ name: "setup", image: "setup:1", env: [{ name: "K", valueFrom: { secretKeyRef: { name: "setup-key", key: "k" } } }] }] } },
    },
    status: { ready: 2, observedGeneration: 4, labelSelector: "app=t", shards: { primary: 3, spare: 1 }, empty: {} },
  };
}

describe("spec.karmada", () => {
  test("validates, and the reference validator's rules do not see it", () => {
    const d = loadKartaText(KARTA, "trainer.yaml").definitions[0]!;
    assert.deepEqual(validateDefinition(d).filter((x) => x.severity === "error"), []);
    const bad = loadKartaText(KARTA.replace("sumQuantities: [memory]", "sumQuantities: memory"), "bad.yaml");
    assert.match(bad.diagnostics.map((x) => x.path).join(" "), /spec\.karmada\.statusAggregation\.sumQuantities/);
    const unsafe = loadKartaText(KARTA.replace("clusters: [.items[].clusterName]", "clusters: [.. | .clusterName?]"), "unsafe.yaml");
    assert.match(unsafe.diagnostics.map((x) => x.message).join(" "), /\.\./);
  });

  test("InterpretStatus: listed fields (dotted), the member generation report", () => {
    const l = layer();
    assert.deepEqual(value(l.interpretStatus(trainer())), { ready: 2, labelSelector: "app=t", shards: { primary: 3 }, generation: 4, resourceTemplateGeneration: 4 });
    const { status: _status, ...bare } = trainer();
    void _status;
    assert.deepEqual(value(l.interpretStatus(bare)), {}, "no status: nothing to report");
  });

  test("AggregateStatus: sums, quantity sums, the generation rule, then the expression", () => {
    const l = layer();
    const items = [
      { clusterName: "a", status: { ready: 2, shards: { primary: 1 }, memory: "1536Mi", generation: 4, observedGeneration: 4, resourceTemplateGeneration: 4 } },
      { clusterName: "b", status: { ready: 1, shards: { primary: 2 }, memory: "512Mi", generation: 7, observedGeneration: 7, resourceTemplateGeneration: 4 } },
    ];
    const { status: _status, ...template } = trainer();
    void _status;
    const out = value(l.aggregateStatus(template, items));
    assert.deepEqual(out.status, { ready: 3, shards: { primary: 3 }, memory: "2Gi", observedGeneration: 4, clusters: ["a", "b"] });
    const stale = value(l.aggregateStatus(template, [{ ...items[0]!, status: { ...items[0]!.status, resourceTemplateGeneration: 3 } }]));
    assert.equal((stale.status as { observedGeneration: number }).observedGeneration, 0, "a member on an older template keeps the old observedGeneration");
    assert.equal(template.status, undefined, "the input is not modified");
  });

  test("Retain: the member's values at the retained paths, where it has them", () => {
    const l = layer();
    const desired = trainer();
    const observed = trainer();
    (observed.spec as Record<string, unknown>).paused = true;
    (observed.metadata as Record<string, unknown>).labels = { "example.com/owner": "ops" };
    (observed.spec as Record<string, unknown>).replicas = 9;
    const out = value(l.retain(desired, observed));
    assert.equal((out.spec as { paused: boolean }).paused, true);
    assert.equal((out.spec as { replicas: number }).replicas, 2, "fields not retained stay the template's");
    assert.deepEqual((out.metadata as { labels: unknown }).labels, { "example.com/owner": "ops" });
    assert.deepEqual(value(l.retain(desired, trainer())), desired, "nothing to retain: the template");
  });

  test("InterpretHealth: the expression decides, or leaves it to the status mappings", () => {
    const l = layer();
    const { status: _status, ...bare } = trainer();
    void _status;
    assert.equal(value(l.interpretHealth(bare)), false);
    assert.equal(value(l.interpretHealth(trainer())), true, "null: the mappings say Running");
    assert.equal(value(l.interpretHealth({ ...trainer(), status: { ready: 0 } })), "undecided");
  });

  test("InterpretDependency: pod specifications, extra pod templates and the expression", () => {
    const deps = value(layer().interpretDependency(trainer()));
    assert.deepEqual(
      deps.map((d) => `${d.kind} ${d.namespace}/${d.name}`),
      ["ConfigMap ml/trainer-config", "Secret ml/hub-token", "Secret ml/setup-key"],
    );
  });

  test("a failing expression is an error naming the field, not a crash", () => {
    const l = layer(KARTA.replace("clusters: [.items[].clusterName]", "clusters: (.items | error(\"boom\"))"));
    const out = l.aggregateStatus(trainer(), [{ clusterName: "a", status: {} }]);
    assert.equal(out.ok, false);
    if (!out.ok) assert.match(out.error.message, /spec\.karmada\.statusAggregation\.expression: .*boom/);
  });
});

describe("the thirdparty layer's own interpreters", () => {
  test("SidecarSet and a Flux source: answered in TypeScript, and a customization for them is a conflict", async () => {
    const { interpreter, issues } = await createThirdpartyInterpreter();
    try {
      assert.deepEqual(issues, []);
      const sidecars: KubeObject = { apiVersion: "apps.kruise.io/v1alpha1", kind: "SidecarSet", metadata: { name: "log" }, spec: {}, status: { matchedPods: 3, updatedPods: 2, readyPods: 2 } };
      assert.deepEqual(interpreter.interpretHealth(sidecars), { ok: true, value: false });
      assert.deepEqual(interpreter.interpretReplica(sidecars), { ok: true, value: { replicas: 0 } });
      const repo: KubeObject = { apiVersion: "source.toolkit.fluxcd.io/v1", kind: "GitRepository", metadata: { name: "r", namespace: "flux", generation: 2 }, spec: { suspend: false, secretRef: { name: "git-auth" } } };
      const agg = interpreter.aggregateStatus(repo, [
        { clusterName: "a", status: { conditions: [{ type: "Ready", status: "True", reason: "Succeeded", message: "ok" }], generation: 2, observedGeneration: 2, resourceTemplateGeneration: 2 } },
        { clusterName: "b", status: { conditions: [{ type: "Ready", status: "True", reason: "Succeeded", message: "ok too" }], generation: 2, observedGeneration: 2, resourceTemplateGeneration: 2 } },
      ]);
      assert.ok(agg.ok);
      assert.deepEqual((agg.value.status as { conditions: unknown }).conditions, [{ type: "Ready", status: "True", reason: "Succeeded", message: "a=ok, b=ok too" }]);
      assert.equal((agg.value.status as { observedGeneration: number }).observedGeneration, 2);
      assert.deepEqual(interpreter.interpretDependency(repo), { ok: true, value: [{ apiVersion: "v1", kind: "Secret", name: "git-auth", namespace: "flux" }] });
    } finally {
      interpreter.close();
    }
  });
});

describe("karta interpret with no customization file", () => {
  test("answers AggregateStatus for a bundled third-party kind from its Karta's extension", async () => {
    const cloneSet = { apiVersion: "apps.kruise.io/v1alpha1", kind: "CloneSet", metadata: { name: "web", namespace: "shop", generation: 2 }, spec: { replicas: 4, template: { spec: { containers: [{ name: "web", image: "nginx" }] } } } };
    const item = (name: string, ready: number) => `clusterName: ${name}\nstatus: {replicas: 2, readyReplicas: ${ready}, generation: 1, observedGeneration: 1, resourceTemplateGeneration: 2}\n`;
    const io = memoryIO("", { "cs.yaml": JSON.stringify(cloneSet), "a.yaml": item("a", 2), "b.yaml": item("b", 1) });
    const code = await runInterpret(["--operation", "AggregateStatus", "--desired-file", "cs.yaml", "--status-file", "a.yaml", "--status-file", "b.yaml", "--show-layer"], io);
    assert.equal(code, 0, io.err);
    assert.match(io.out, /# layer: karta\n/);
    assert.match(io.out, /readyReplicas: 3\n/);
    assert.match(io.out, /observedGeneration: 2\n/);
  });
});
