/** The controller's pure parts: the Karta status it wants, the ClusterRole it needs, its work queue. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { desiredKartaState, sameConditions } from "../../src/controller/karta-status.js";
import { controllerClusterRole, resourceOf } from "../../src/controller/rbac.js";
import { WorkQueue } from "../../src/controller/queue.js";
import { ControllerMetrics } from "../../src/controller/metrics.js";
import { parseBindAddress } from "../../src/controller/endpoints.js";
import { loadBundled } from "../bundled/helpers.js";

const pytorch = () => structuredClone(loadBundled("kubeflow.org/v1/PyTorchJob.yaml").definition.karta) as unknown as Record<string, any>;

describe("desiredKartaState", () => {
  test("a valid Karta whose kind is served is Ready, with the root-kind labels and observedGeneration", () => {
    const k = pytorch();
    k.metadata = { name: "p", generation: 3, labels: { team: "ml" } };
    const s = desiredKartaState(k, { served: true }, "2026-12-01T00:00:00Z");
    assert.equal(s.ready, true);
    assert.deepEqual(
      s.conditions.map((c) => [c.type, c.status, c.reason, c.observedGeneration]),
      [
        ["KartaValidated", "True", "Valid", 3],
        ["CRDExists", "True", "Served", 3],
        ["Ready", "True", "Ready", 3],
      ],
    );
    assert.deepEqual(s.labels, { team: "ml", "run.ai/karta-group": "kubeflow.org", "run.ai/karta-version": "v1", "run.ai/karta-kind": "PyTorchJob" });
  });

  test("a missing CRD makes CRDExists and Ready False with its reason", () => {
    const s = desiredKartaState(pytorch(), { served: false, reason: "CRDNotFound", message: "no CustomResourceDefinition defines PyTorchJob in group kubeflow.org" });
    assert.equal(s.ready, false);
    const ready = s.conditions.find((c) => c.type === "Ready")!;
    assert.equal(ready.reason, "CRDNotFound");
    assert.match(ready.message, /PyTorchJob/);
  });

  test("validation errors are listed with their field paths", () => {
    const k = pytorch();
    k.spec.structureDefinition.rootComponent.statusDefinition.conditionsDefinition.path = ".status.conditions[";
    const s = desiredKartaState(k, { served: true });
    const v = s.conditions.find((c) => c.type === "KartaValidated")!;
    assert.equal(v.status, "False");
    assert.match(v.message, /^1 error: spec\.structureDefinition\.rootComponent\.statusDefinition\.conditionsDefinition\.path: /);
    assert.equal(s.conditions.find((c) => c.type === "Ready")!.reason, "ValidationFailed");
  });

  test("lastTransitionTime moves only when a status changes", () => {
    const k = pytorch();
    const first = desiredKartaState(k, { served: false, reason: "CRDNotFound", message: "m" }, "2026-12-01T00:00:00Z");
    k.status = { conditions: first.conditions };
    const same = desiredKartaState(k, { served: false, reason: "CRDNotFound", message: "m" }, "2026-12-01T01:00:00Z");
    assert.ok(sameConditions(first.conditions, same.conditions));
    assert.equal(same.conditions[1]!.lastTransitionTime, "2026-12-01T00:00:00Z");
    const flipped = desiredKartaState(k, { served: true }, "2026-12-01T02:00:00Z");
    assert.ok(!sameConditions(first.conditions, flipped.conditions));
    assert.equal(flipped.conditions[1]!.lastTransitionTime, "2026-12-01T02:00:00Z");
    assert.equal(flipped.conditions[0]!.lastTransitionTime, "2026-12-01T00:00:00Z");
  });
});

describe("controllerClusterRole", () => {
  test("reads the definition's kinds and pods, writes the scheduling objects, nothing cluster-wide beyond that", () => {
    const role = controllerClusterRole([pytorch() as never]);
    const rule = (group: string, resource: string) => role.rules.find((r) => r.apiGroups.includes(group) && r.resources.includes(resource));
    assert.deepEqual(rule("kubeflow.org", "pytorchjobs")?.verbs, ["get", "list", "watch"]);
    assert.deepEqual(rule("", "pods")?.verbs, ["get", "list", "watch"]);
    assert.ok(rule("scheduling.k8s.io", "podgroups")?.verbs.includes("patch"));
    assert.ok(rule("run.ai", "kartas/status")?.verbs.includes("patch"));
    assert.ok(!role.rules.some((r) => r.verbs.includes("*") || r.resources.includes("*")));
  });
  test("resource names as the CRD generators name them, or from a CRD", () => {
    assert.equal(resourceOf("PyTorchJob"), "pytorchjobs");
    assert.equal(resourceOf("Ingress"), "ingresses");
    assert.equal(resourceOf("NetworkPolicy"), "networkpolicies");
    // As the operators' CRDs name them (controller-gen's English plurals).
    assert.equal(resourceOf("Sandbox"), "sandboxes");
    assert.equal(resourceOf("Milvus"), "milvuses");
    assert.equal(resourceOf("Gateway"), "gateways");
    assert.equal(resourceOf("Patch"), "patches");
    assert.equal(resourceOf("Service", new Map([["serving.knative.dev/Service", "services"]]), "serving.knative.dev"), "services");
  });
});

describe("WorkQueue", () => {
  test("deduplicates, never runs a key twice at once, and retries failures with backoff", async () => {
    const runs: string[] = [];
    let running = 0;
    let maxConcurrentSameKey = 0;
    let failOnce = true;
    const q = new WorkQueue(
      async (key) => {
        running++;
        maxConcurrentSameKey = Math.max(maxConcurrentSameKey, running);
        runs.push(key);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        if (key === "b" && failOnce) {
          failOnce = false;
          throw new Error("transient");
        }
      },
      () => {},
      { baseDelayMs: 5, workers: 1 },
    );
    q.add("a"); // starts at once
    q.add("b");
    q.add("b"); // already queued: once
    await q.idle();
    await new Promise((r) => setTimeout(r, 30));
    await q.idle();
    assert.deepEqual(runs, ["a", "b", "b"]);
    assert.equal(maxConcurrentSameKey, 1);
    assert.equal(q.metrics().retries, 1);
    // A key added while it is processed runs again afterwards (its change is not lost).
    q.add("c");
    q.add("c");
    await q.idle();
    assert.deepEqual(runs.slice(3), ["c", "c"]);
    await q.shutDown();
  });
});

describe("controller metrics and bind addresses", () => {
  test("bind addresses as controller-runtime takes them; 0 is off", () => {
    assert.deepEqual(parseBindAddress(":8080"), { host: "", port: 8080 });
    assert.deepEqual(parseBindAddress("127.0.0.1:0"), { host: "127.0.0.1", port: 0 });
    assert.deepEqual(parseBindAddress("[::1]:8081"), { host: "::1", port: 8081 });
    assert.equal(parseBindAddress("0"), null);
    for (const bad of ["8080", "localhost", ":65536", "a:b:1", ""]) assert.equal(parseBindAddress(bad), undefined, bad);
  });

  test("a watched queue reports its reconciles, errors and latency", async () => {
    const m = new ControllerMetrics();
    const q = new WorkQueue(async (k) => {
      if (k === "bad") throw new Error("no");
    }, () => {}, { baseDelayMs: 60_000 });
    m.watch("karta", q);
    q.add("a");
    q.add("b");
    q.add("bad");
    await q.idle();
    const text = await m.registry.metrics();
    assert.match(text, /^controller_runtime_reconcile_total\{controller="karta",result="success"\} 2$/m);
    assert.match(text, /^controller_runtime_reconcile_total\{controller="karta",result="error"\} 1$/m);
    assert.match(text, /^controller_runtime_reconcile_errors_total\{controller="karta"\} 1$/m);
    assert.match(text, /^controller_runtime_reconcile_time_seconds_count\{controller="karta"\} 3$/m);
    assert.match(text, /^workqueue_retries_total\{name="karta"\} 1$/m);
    assert.match(text, /^workqueue_depth\{name="karta"\} 0$/m);
    await q.shutDown();
  });
});
