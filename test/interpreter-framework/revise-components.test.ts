/**
 * ReviseComponents (Karmada PRs #7830/#7841) through every layer: the user's Lua customization
 * (componentRevision), the webhook client's request and response, the Karta layer (writes through
 * each component's scaleDefinition), the thirdparty interpreters (FlinkDeployment, SparkApplication),
 * the built-in interpreters (none: Karmada's "not found"), the framework's priority, and the server's
 * decoding and answer.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { parseCustomizations } from "../../src/interpreter/declarative/customization.js";
import { createDeclarativeInterpreter, type DeclarativeInterpreter } from "../../src/interpreter/declarative/interpreter.js";
import { createInterpreterFramework } from "../../src/interpreter/framework.js";
import { createKartaInterpreter, loadKartaText } from "../../src/interpreter/karta/index.js";
import { createNativeInterpreter } from "../../src/interpreter/native/index.js";
import { FlinkDeploymentInterpreter, SparkApplicationInterpreter } from "../../src/interpreter/thirdparty/index.js";
import { buildInterpreterContext, verifyResponse } from "../../src/interpreter/webhook/interpreter.js";
import { PROPOSED_OPERATIONS, type KubeObject, type Outcome } from "../../src/interpreter/types.js";
import { decodeContext } from "../../src/server/context.js";
import { answer } from "../../src/server/evaluate.js";
import { webhookRules } from "../../src/server/webhook-config.js";
import { repoRoot } from "../fixtures/objects.js";

const example = (name: string): KubeObject => parse(readFileSync(path.join(repoRoot, "examples", name), "utf8")) as KubeObject;

function value<T>(o: Outcome<T>): T {
  if (!o.ok) assert.fail(`${o.error.operation}: ${o.error.message}`);
  return o.value;
}

function error<T>(o: Outcome<T>): string {
  assert.equal(o.ok, false, "expected an error");
  return (o as { ok: false; error: { message: string } }).error.message;
}

const MOCK = { apiVersion: "testing.karta.dev/v1", kind: "TwoRoles", metadata: { name: "demo" }, spec: { master: { replicas: 1 }, worker: { replicas: 2 }, labels: {} } };

const CUSTOMIZATION = readFileSync(path.join(repoRoot, "test", "fixtures", "interpret", "two-roles-revise-components.yaml"), "utf8");

describe("ReviseComponents: declarative layer (componentRevision.luaScript)", () => {
  let declarative: DeclarativeInterpreter;
  before(async () => {
    const loaded = parseCustomizations(CUSTOMIZATION, "ric.yaml");
    assert.deepEqual(loaded.issues, []);
    declarative = await createDeclarativeInterpreter(loaded.customizations);
  });
  after(() => declarative.close());

  test("the customization field is accepted and the function revises each component by name", () => {
    assert.equal(declarative.supports({ apiVersion: "testing.karta.dev/v1", kind: "TwoRoles" }, "ReviseComponents"), true);
    const revised = value(declarative.reviseComponents(MOCK, [{ name: "worker", replicas: 5 }, { name: "master", replicas: 0 }]));
    assert.deepEqual(revised.spec, { master: { replicas: 0 }, worker: { replicas: 5 }, labels: {} }, "an empty object stays {} (repaired against the input)");
    assert.deepEqual(MOCK.spec.worker, { replicas: 2 }, "the input is not modified");
  });

  test("a script error, a non-table result and a missing function are errors naming the field", async () => {
    const script = (body: string) => CUSTOMIZATION.replace(/ {6}luaScript: \|\n[\s\S]*$/, `      luaScript: |\n${body.replace(/^/gm, "        ")}\n`);
    const cases: [string, RegExp][] = [
      ["function ReviseComponents(o, c) return c[1].missing.field end", /attempt to index/],
      ["function ReviseComponents(o, c) return 1 end", /expect the returned requires type is table but got number/],
      ["function Other(o, c) return o end", /not found function ReviseComponents/],
    ];
    for (const [body, message] of cases) {
      const ipt = await createDeclarativeInterpreter(parseCustomizations(script(body), "ric.yaml").customizations);
      try {
        const out = ipt.reviseComponents(MOCK, [{ name: "worker", replicas: 1 }]);
        assert.match(error(out), message);
        assert.equal((out as { ok: false; error: { path?: string } }).error.path, "spec.customizations.componentRevision");
      } finally {
        ipt.close();
      }
    }
  });

  test("the Lua sandbox limits apply (a script that never ends is stopped)", async () => {
    const forever = CUSTOMIZATION.replace("for i = 1, #components do", "while true do end\n          for i = 1, #components do");
    const ipt = await createDeclarativeInterpreter(parseCustomizations(forever, "ric.yaml").customizations, { limits: { timeoutMs: 200 } });
    try {
      assert.match(error(ipt.reviseComponents(MOCK, [])), /deadline|budget/);
    } finally {
      ipt.close();
    }
  });

  test("an unknown customization field is still reported", () => {
    const loaded = parseCustomizations(CUSTOMIZATION.replace("componentRevision:", "componentRevisions:"), "ric.yaml");
    assert.match(loaded.issues[0]!.message, /unknown field "componentRevisions"; expected one of .*componentRevision/);
  });
});

describe("ReviseComponents: webhook client", () => {
  test("the request carries components and no replicas, as Karmada #7830 sends it", () => {
    const ctx = buildInterpreterContext("u-1", "ReviseComponents", { object: MOCK, components: [{ name: "master", replicas: 1 }, { name: "worker", replicas: 3 }] });
    assert.equal("replicas" in ctx.request, false);
    assert.deepEqual(ctx.request.components, [
      { name: "master", replicas: 1 },
      { name: "worker", replicas: 3 },
    ]);
    assert.equal(ctx.request.operation, "ReviseComponents");
    const revise = buildInterpreterContext("u-2", "ReviseReplica", { object: MOCK, replicas: 4 });
    assert.equal(revise.request.replicas, 4);
    assert.equal("components" in revise.request, false);
  });

  test("the response is a JSON Patch, verified as ReviseReplica's", () => {
    const body = (response: object) => JSON.stringify({ apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: { uid: "u", successful: true, ...response } });
    assert.equal(verifyResponse("u", "ReviseComponents", 200, body({})).ok, true, "no patch: unchanged");
    assert.equal(verifyResponse("u", "ReviseComponents", 200, body({ patch: "W10=", patchType: "JSONPatch" })).ok, true);
    const noType = verifyResponse("u", "ReviseComponents", 200, body({ patch: "W10=" }));
    assert.equal(noType.ok, false);
    assert.match((noType as { error: string }).error, /nil response\.patchType/);
  });
});

describe("ReviseComponents: Karta layer (through scaleDefinition)", () => {
  const { interpreter: karta, issues } = createKartaInterpreter();

  test("bundled Kartas load", () => assert.deepEqual(issues, []));

  test("PyTorchJob: each role's replicas written where its replicasPath reads them, and read back", () => {
    const job = example("pytorchjob.yaml");
    const revised = value(karta.reviseComponents(job, [{ name: "master", replicas: 1 }, { name: "worker", replicas: 6 }]));
    const spec = revised.spec as { pytorchReplicaSpecs: { Worker: { replicas: number } } };
    assert.equal(spec.pytorchReplicaSpecs.Worker.replicas, 6);
    assert.deepEqual(
      value(karta.interpretComponent(revised)).map((c) => [c.name, c.replicas]),
      [["master", 1], ["worker", 6]],
    );
  });

  test("RayCluster: an instance's replicas go to its own element of the list", () => {
    const ray = example("raycluster.yaml");
    const before = value(karta.interpretComponent(ray)).map((c) => ({ name: c.name, replicas: c.replicas }));
    const assignment = before.map((c) => (c.name === "cpu-workers" ? { ...c, replicas: c.replicas + 2 } : c));
    const revised = value(karta.reviseComponents(ray, assignment));
    assert.deepEqual(value(karta.interpretComponent(revised)).map((c) => ({ name: c.name, replicas: c.replicas })), assignment);
    const groups = (revised.spec as { workerGroupSpecs: { groupName: string; replicas: number }[] }).workerGroupSpecs;
    const original = (ray.spec as { workerGroupSpecs: { groupName: string; replicas: number }[] }).workerGroupSpecs;
    for (const [i, g] of groups.entries()) assert.equal(g.replicas, g.groupName === "cpu-workers" ? original[i]!.replicas + 2 : original[i]!.replicas);
  });

  test("an unchanged assignment returns the object as it was", () => {
    const ray = example("raycluster.yaml");
    const same = value(karta.interpretComponent(ray)).map((c) => ({ name: c.name, replicas: c.replicas }));
    assert.deepEqual(value(karta.reviseComponents(ray, same)), ray);
  });

  test("unknown, duplicate and missing components, and counts a path cannot take, are errors", () => {
    const job = example("pytorchjob.yaml");
    assert.match(error(karta.reviseComponents(job, [{ name: "master", replicas: 1 }, { name: "chief", replicas: 1 }])), /unknown component "chief"; the workload's components are "master", "worker"/);
    assert.match(error(karta.reviseComponents(job, [{ name: "master", replicas: 1 }, { name: "master", replicas: 1 }])), /duplicate component "master"/);
    assert.match(error(karta.reviseComponents(job, [{ name: "master", replicas: 1 }])), /missing component "worker"/);
    // A count is checked as the webhook checks request.components (the same words).
    assert.match(error(karta.reviseComponents(job, [{ name: "master", replicas: 1 }, { name: "worker", replicas: -1 }])), /components\[1\]\.replicas: Invalid value: -1: must be greater than or equal to 0/);
    assert.match(error(karta.reviseComponents(job, [{ name: "master", replicas: 1.5 }, { name: "worker", replicas: 1 }])), /components\[0\]\.replicas: Invalid value: 1\.5: must be an integer/);
    assert.match(error(karta.reviseComponents(job, [{ name: "master", replicas: 2 ** 31 }, { name: "worker", replicas: 1 }])), /components\[0\]\.replicas: Invalid value: 2147483648: must be less than or equal to 2147483647/);
    const ray = example("raycluster.yaml");
    const head = value(karta.interpretComponent(ray)).map((c) => ({ name: c.name, replicas: c.name === "ray-head" ? 2 : c.replicas }));
    assert.match(error(karta.reviseComponents(ray, head)), /component "ray-head" .*cannot set 2 replicas \(it has 1\)/);
    const lws = example("leaderworkerset.yaml");
    const leader = value(karta.interpretComponent(lws)).map((c) => ({ name: c.name, replicas: c.replicas + 1 }));
    assert.match(error(karta.reviseComponents(lws, leader)), /its replicas are scaled by/);
    const jobset = example("jobset.yaml");
    const workers = value(karta.interpretComponent(jobset)).map((c) => ({ name: c.name, replicas: c.name === "workers" ? c.replicas + 1 : c.replicas }));
    assert.match(error(karta.reviseComponents(jobset, workers)), /writing \d+ through .* gives \d+ replicas/);
  });

  test("answered where InterpretComponent is, and deferred with it", () => {
    assert.equal(karta.supports({ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob" }, "ReviseComponents"), true);
    assert.equal(karta.supports({ apiVersion: "flink.apache.org/v1beta1", kind: "FlinkDeployment" }, "ReviseComponents"), false, "its InterpretComponent is deferred to the thirdparty layer");
    const single = loadKartaText(readFileSync(path.join(repoRoot, "definitions", "apps.kruise.io", "v1alpha1", "CloneSet.yaml"), "utf8"), "CloneSet.yaml");
    const layer = createKartaInterpreter({ definitions: single.definitions, bundled: false }).interpreter;
    assert.equal(layer.supports({ apiVersion: "apps.kruise.io/v1alpha1", kind: "CloneSet" }, "ReviseComponents"), false, "one pod template: ReviseReplica");
  });
});

describe("ReviseComponents: thirdparty and native layers", () => {
  test("FlinkDeployment: jobmanager and taskmanager replicas, both required", () => {
    const flink = new FlinkDeploymentInterpreter();
    const obj = example("flinkdeployment.yaml");
    const revised = value(flink.reviseComponents(obj, [{ name: "taskmanager", replicas: 4 }, { name: "jobmanager", replicas: 2 }]));
    const spec = revised.spec as { jobManager: { replicas: number }; taskManager: { replicas: number }; image: string };
    assert.deepEqual([spec.jobManager.replicas, spec.taskManager.replicas], [2, 4]);
    assert.equal(spec.image, (obj.spec as { image: string }).image);
    assert.deepEqual(value(flink.interpretComponent(revised)).map((c) => c.replicas), [2, 4]);
    assert.match(error(flink.reviseComponents(obj, [{ name: "jobmanager", replicas: 1 }])), /missing component "taskmanager"/);
    assert.match(error(flink.reviseComponents(obj, [{ name: "jobmanager", replicas: 1 }, { name: "worker", replicas: 1 }])), /unknown component "worker"/);
  });

  test("SparkApplication: executors revised (initialExecutors with dynamic allocation), one driver", () => {
    const spark = new SparkApplicationInterpreter();
    const obj = example("sparkapplication.yaml");
    const revised = value(spark.reviseComponents(obj, [{ name: "driver", replicas: 1 }, { name: "executor", replicas: 7 }]));
    assert.equal((revised.spec as { executor: { instances: number } }).executor.instances, 7);
    assert.deepEqual(value(spark.interpretComponent(revised)).map((c) => [c.name, c.replicas]), [["driver", 1], ["executor", 7]]);
    assert.match(error(spark.reviseComponents(obj, [{ name: "driver", replicas: 2 }, { name: "executor", replicas: 7 }])), /exactly one driver/);
    const dynamic = { ...obj, spec: { ...(obj.spec as object), dynamicAllocation: { enabled: true, minExecutors: 3, initialExecutors: 5 } } } as KubeObject;
    const d = value(spark.reviseComponents(dynamic, [{ name: "driver", replicas: 1 }, { name: "executor", replicas: 4 }]));
    assert.equal((d.spec as { dynamicAllocation: { initialExecutors: number } }).dynamicAllocation.initialExecutors, 4);
    assert.deepEqual(value(spark.interpretComponent(d)).map((c) => c.replicas), [1, 4]);
    assert.match(error(spark.reviseComponents(dynamic, [{ name: "driver", replicas: 1 }, { name: "executor", replicas: 2 }])), /minExecutors \(3\) is above the 2 assigned executors/);
  });

  test("native: Karmada's built-in interpreter has none", async () => {
    const native = createNativeInterpreter();
    assert.equal(native.supports({ apiVersion: "apps/v1", kind: "Deployment" }, "ReviseComponents"), false);
    assert.equal(error(await native.reviseComponents(example("deployment.yaml"), [])), 'default ReviseComponents interpreter for "apps/v1, Kind=Deployment" not found');
  });
});

describe("ReviseComponents: framework and server", () => {
  test("the highest layer answers; the server decodes request.components and answers a JSON Patch", async () => {
    const loaded = parseCustomizations(CUSTOMIZATION, "ric.yaml");
    const declarative = await createDeclarativeInterpreter(loaded.customizations);
    try {
      const { interpreter: karta } = createKartaInterpreter();
      const fw = createInterpreterFramework({ declarative, karta, native: createNativeInterpreter() });
      const out = await fw.reviseComponents(MOCK, [{ name: "master", replicas: 2 }, { name: "worker", replicas: 2 }]);
      assert.equal(out.ok && out.layer, "declarative");
      const job = example("pytorchjob.yaml");
      const kartaOut = await fw.reviseComponents(job, [{ name: "master", replicas: 1 }, { name: "worker", replicas: 5 }]);
      assert.equal(kartaOut.ok && kartaOut.layer, "karta");
      const none = await fw.reviseComponents(example("deployment.yaml"), []);
      assert.equal(!none.ok && none.error.layer, "framework");

      const body = JSON.stringify({
        apiVersion: "config.karmada.io/v1alpha1",
        kind: "ResourceInterpreterContext",
        request: { uid: "r-1", operation: "ReviseComponents", object: MOCK, components: [{ name: "master", replicas: 1 }, { name: "worker", replicas: 9 }] },
      });
      const decoded = decodeContext(body);
      assert.ok(decoded.ok);
      assert.deepEqual(decoded.request.components, [{ name: "master", replicas: 1 }, { name: "worker", replicas: 9 }]);
      const { response } = await answer(fw, decoded.request);
      assert.equal(response.successful, true);
      assert.equal(response.patchType, "JSONPatch");
      assert.deepEqual(JSON.parse(Buffer.from(response.patch as string, "base64").toString("utf8")), [{ op: "replace", path: "/spec/worker/replicas", value: 9 }]);
      const bad = decodeContext(body.replace('"name":"worker"', '"name":""'));
      assert.equal(bad.ok, false);
      assert.match((bad as { message: string }).message, /request\.components\[1\]\.name: Required value/);

      // A released Karmada rejects the proposed operation in a webhook configuration: left out.
      assert.deepEqual(PROPOSED_OPERATIONS, ["ReviseComponents"]);
      const rules = webhookRules(fw, [{ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob" }], false);
      assert.ok(rules.length > 0);
      for (const r of rules) assert.equal(r.operations.includes("ReviseComponents"), false);
    } finally {
      declarative.close();
    }
  });
});
