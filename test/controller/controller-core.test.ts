/** The controller's pure parts: the Karta status it wants, the ClusterRole it needs, its work queue. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { desiredKartaState, sameConditions } from "../../src/controller/karta-status.js";
import { controllerClusterRole, controllerRbac, leaderElectionRole, resourceOf } from "../../src/controller/rbac.js";
import { shardLeaseName } from "../../src/controller/shard.js";
import { WorkQueue } from "../../src/controller/queue.js";
import { ControllerMetrics } from "../../src/controller/metrics.js";
import { parseBindAddress, startEndpoints } from "../../src/controller/endpoints.js";
import { rawGet } from "../support/raw-http.js";
import { loadBundled } from "../bundled/helpers.js";

const pytorch = () => structuredClone(loadBundled("kubeflow.org/v1/PyTorchJob.yaml").definition.karta) as unknown as Record<string, any>;

describe("desiredKartaState: upstream's conditions, reasons and messages", () => {
  const conds = (s: { conditions: { type: string; status: string; reason: string; message: string; observedGeneration?: number }[] }) =>
    s.conditions.map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration]);

  test("a valid Karta whose kind is served is Ready, with the root-kind labels and observedGeneration", () => {
    const k = pytorch();
    k.metadata = { name: "p", generation: 3, labels: { team: "ml" } };
    const s = desiredKartaState(k, { crd: { served: true } }, "2026-12-01T00:00:00Z");
    assert.equal(s.ready, true);
    assert.deepEqual(conds(s), [
      ["Validated", "True", "ValidationSucceeded", "", 3],
      ["CRDExists", "True", "CRDFound", "", 3],
      ["Ready", "True", "Ready", "", 3],
    ]);
    assert.deepEqual(s.labels, { "run.ai/karta-group": "kubeflow.org", "run.ai/karta-version": "v1", "run.ai/karta-kind": "PyTorchJob" });
    assert.deepEqual(s.events, []);
  });

  test("a kind not served: CRDExists False with upstream's message and a CRDNotFound Event; Ready NotReady", () => {
    const s = desiredKartaState(pytorch(), { crd: { served: false } });
    assert.equal(s.ready, false);
    assert.deepEqual(conds(s).slice(1), [
      ["CRDExists", "False", "CRDNotFound", "CRD for kubeflow.org/PyTorchJob not found or does not serve version v1", undefined],
      ["Ready", "False", "NotReady", "Validated and CRDExists must both be True", undefined],
    ]);
    assert.deepEqual(s.events, [{ reason: "CRDNotFound", action: "CheckingCRD", note: "CRD for kubeflow.org/PyTorchJob not found or does not serve version v1" }]);
  });

  test("validation errors, one `path: message` a line as karta validate prints them, and a ValidationFailed Event", () => {
    const k = pytorch();
    k.spec.structureDefinition.rootComponent.statusDefinition.conditionsDefinition.path = ".status.conditions[";
    k.spec.structureDefinition.rootComponent.ownerRef = "x";
    const s = desiredKartaState(k, { crd: { served: true } });
    const v = s.conditions.find((c) => c.type === "Validated")!;
    assert.equal(v.status, "False");
    assert.equal(v.reason, "ValidationFailed");
    const lines = v.message.split("\n");
    assert.equal(lines.length, 2, v.message);
    assert.ok(lines.includes("spec.structureDefinition.rootComponent.ownerRef: root component cannot have owner ref"), v.message);
    assert.ok(lines.some((l) => l.startsWith("spec.structureDefinition.rootComponent.statusDefinition.conditionsDefinition.path: ")), v.message);
    assert.deepEqual(s.conditions.find((c) => c.type === "Ready")!.reason, "NotReady");
    assert.deepEqual(s.events, [{ reason: "ValidationFailed", action: "Validating", note: v.message }]);
  });

  test("a root without a kind: CRDExists has upstream's generic message, no labels, no CRD Event", () => {
    const k = pytorch();
    delete k.spec.structureDefinition.rootComponent.kind;
    const s = desiredKartaState(k, {});
    const crd = s.conditions.find((c) => c.type === "CRDExists")!;
    assert.deepEqual([crd.status, crd.reason, crd.message], ["False", "CRDNotFound", "CustomResourceDefinition for the root component GVK does not exist in the cluster or does not serve the referenced version"]);
    assert.equal(s.labels, undefined);
    assert.deepEqual(s.events.map((e) => e.reason), ["ValidationFailed"]);
  });

  test("a failed CRD check leaves CRDExists and Ready Pending (the defaults), and a failed label stamp leaves Ready", () => {
    const k = pytorch();
    k.metadata = { name: "p", generation: 1 };
    const s = desiredKartaState(k, { crd: { error: "connection refused" } });
    assert.deepEqual(conds(s), [
      ["Validated", "True", "ValidationSucceeded", "", 1],
      ["CRDExists", "False", "Pending", "Condition has not been evaluated yet", 1],
      ["Ready", "False", "Pending", "Condition has not been evaluated yet", 1],
    ]);
    const labels = desiredKartaState(k, { crd: { served: true }, labelsFailed: true });
    assert.deepEqual(labels.conditions.find((c) => c.type === "Ready")!.reason, "Pending");
    assert.equal(labels.ready, false);
  });

  test("conditions of other types are kept, KartaValidated (the old name) is dropped, order is kept", () => {
    const k = pytorch();
    k.status = {
      conditions: [
        { type: "Ready", status: "False", reason: "NotReady", message: "m", lastTransitionTime: "2026-01-01T00:00:00Z" },
        { type: "KartaValidated", status: "True", reason: "Valid", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" },
        { type: "Example", status: "True", reason: "Mine", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" },
      ],
    };
    const s = desiredKartaState(k, { crd: { served: true } }, "2026-12-01T00:00:00Z");
    assert.deepEqual(s.conditions.map((c) => `${c.type}=${c.status}@${c.lastTransitionTime}`), [
      "Ready=True@2026-12-01T00:00:00Z",
      "Example=True@2026-01-01T00:00:00Z",
      "Validated=True@2026-12-01T00:00:00Z",
      "CRDExists=True@2026-12-01T00:00:00Z",
    ]);
  });

  test("lastTransitionTime moves only when a status changes; Events only when a failing condition changes", () => {
    const k = pytorch();
    const first = desiredKartaState(k, { crd: { served: false } }, "2026-12-01T00:00:00Z");
    k.status = { conditions: first.conditions };
    const same = desiredKartaState(k, { crd: { served: false } }, "2026-12-01T01:00:00Z");
    assert.ok(sameConditions(first.conditions, same.conditions));
    assert.deepEqual(same.events, []);
    assert.equal(same.conditions[1]!.lastTransitionTime, "2026-12-01T00:00:00Z");
    const flipped = desiredKartaState(k, { crd: { served: true } }, "2026-12-01T02:00:00Z");
    assert.ok(!sameConditions(first.conditions, flipped.conditions));
    assert.equal(flipped.conditions[1]!.lastTransitionTime, "2026-12-01T02:00:00Z");
    assert.equal(flipped.conditions[0]!.lastTransitionTime, "2026-12-01T00:00:00Z");
    // The API server answers with its own key order: still the same conditions.
    const reordered = first.conditions.map((c) => Object.fromEntries(Object.entries(c).reverse())) as typeof first.conditions;
    assert.ok(sameConditions(reordered, same.conditions));
  });
});

describe("controllerClusterRole", () => {
  test("reads the definition's kinds and pods, writes the scheduling objects, nothing cluster-wide beyond that", () => {
    const role = controllerClusterRole([pytorch() as never]);
    const rule = (group: string, resource: string) => role.rules.find((r) => r.apiGroups.includes(group) && r.resources.includes(resource));
    // Informers list and watch; nothing reads one object by name.
    assert.deepEqual(rule("kubeflow.org", "pytorchjobs")?.verbs, ["list", "watch"]);
    assert.deepEqual(rule("", "pods")?.verbs, ["list", "watch"]);
    assert.deepEqual(rule("apiextensions.k8s.io", "customresourcedefinitions")?.verbs, ["list", "watch"]);
    // Server-side apply (create and patch) and delete; never a PUT.
    assert.deepEqual(rule("scheduling.k8s.io", "podgroups")?.verbs, ["list", "watch", "create", "patch", "delete"]);
    assert.deepEqual(rule("run.ai", "kartas")?.verbs, ["list", "watch", "patch"]);
    assert.deepEqual(rule("run.ai", "kartas/status")?.verbs, ["patch"]);
    // Events: created, and the core ones listed once at start; never patched or updated.
    assert.deepEqual(rule("", "events")?.verbs, ["create", "list"]);
    assert.deepEqual(rule("events.k8s.io", "events")?.verbs, ["create"]);
    assert.ok(!role.rules.some((r) => r.verbs.includes("*") || r.resources.includes("*")));
    assert.ok(!role.rules.some((r) => r.verbs.includes("get") || r.verbs.includes("update")), "no get, no update");
    // Leases are the namespaced Role's: a cluster-wide grant would reach kube-system's and kube-node-lease's.
    assert.ok(!role.rules.some((r) => r.apiGroups.includes("coordination.k8s.io")));
  });
  test("the leader-election Role: create Leases in the controller's namespace; get and update only its own, each shard's", () => {
    assert.deepEqual(leaderElectionRole(), {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "karta-controller", namespace: "karta-system", labels: { "app.kubernetes.io/name": "karta-controller", "app.kubernetes.io/component": "controller" } },
      rules: [
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
        { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: ["karta-controller"], verbs: ["get", "update"] },
      ],
    });
    const sharded = leaderElectionRole({ name: "r", namespace: "ops", leaseName: "ctl", totalShards: 3 });
    assert.deepEqual([sharded.metadata.name, sharded.metadata.namespace], ["r", "ops"]);
    // The names the controller elects on: shardLeaseName's.
    assert.deepEqual(sharded.rules[1]!.resourceNames, [0, 1, 2].map((index) => shardLeaseName("ctl", { total: 3, index })));
    assert.deepEqual(sharded.rules[1]!.resourceNames, ["ctl-shard-0", "ctl-shard-1", "ctl-shard-2"]);
    const [cluster, role] = controllerRbac([pytorch() as never], { name: "x", namespace: "ops" });
    assert.deepEqual([cluster.kind, cluster.metadata.name, role.kind, role.metadata.name, role.metadata.namespace], ["ClusterRole", "x", "Role", "x", "ops"]);
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

  test("/metrics: prom-client's families, then the added texts, written out in chunks as they are made", async () => {
    const m = new ControllerMetrics();
    let made = 0;
    // 200,000 lines (about 6 MB) made one at a time, as the exporter makes a pod's line.
    m.addText(function* () {
      for (let i = 0; i < 200_000; i++) {
        made++;
        yield `big_series{i="${i}"} 1\n`;
      }
    });
    m.addText(() => "small_series 1\n");
    const ep = await startEndpoints({ host: "127.0.0.1", port: 0 }, null, m, { healthy: () => true, ready: () => true });
    try {
      const res = await fetch(`http://127.0.0.1:${ep.metricsPort}/metrics`);
      assert.equal(res.status, 200);
      const text = await res.text();
      const lines = text.split("\n");
      assert.ok(lines.indexOf('big_series{i="0"} 1') > lines.findIndex((l) => l.startsWith("# TYPE controller_runtime_reconcile_total")));
      assert.equal(lines.filter((l) => l.startsWith("big_series")).length, 200_000);
      assert.equal(lines[lines.indexOf('big_series{i="199999"} 1') + 1], "small_series 1");
      assert.ok(text.endsWith("small_series 1\n"));
      assert.equal(made, 200_000);
      const head = await fetch(`http://127.0.0.1:${ep.metricsPort}/metrics`, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(await head.text(), "");
    } finally {
      await ep.close();
    }
  });

  test("request targets WHATWG's URL parser refuses: a path (///) is not found, a bad absolute URL is 400; the endpoints go on", async () => {
    const ep = await startEndpoints({ host: "127.0.0.1", port: 0 }, { host: "127.0.0.1", port: 0 }, new ControllerMetrics(), { healthy: () => true, ready: () => true });
    const raw = async (port: number, target: string): Promise<string> => (await rawGet(net.connect({ host: "127.0.0.1", port }), target)).split("\r\n")[0]!;
    try {
      for (const port of [ep.metricsPort!, ep.healthPort!]) {
        assert.equal(await raw(port, "///"), "HTTP/1.1 404 Not Found");
        assert.equal(await raw(port, "http://a:99999/"), "HTTP/1.1 400 Bad Request");
      }
      assert.equal((await fetch(`http://127.0.0.1:${ep.healthPort}/healthz`)).status, 200);
    } finally {
      await ep.close();
    }
  });

  test("/metrics: a text that fails halfway cuts the scrape's connection; the next scrape is answered", async () => {
    const m = new ControllerMetrics();
    let fail = true;
    m.addText(function* () {
      for (let i = 0; i < 50_000; i++) {
        if (fail && i === 40_000) {
          fail = false;
          throw new Error("boom");
        }
        yield `big_series{i="${i}"} 1\n`;
      }
    });
    const ep = await startEndpoints({ host: "127.0.0.1", port: 0 }, null, m, { healthy: () => true, ready: () => true });
    try {
      await assert.rejects(async () => (await fetch(`http://127.0.0.1:${ep.metricsPort}/metrics`)).text());
      const text = await (await fetch(`http://127.0.0.1:${ep.metricsPort}/metrics`)).text();
      assert.equal(text.split("\n").filter((l) => l.startsWith("big_series")).length, 50_000);
    } finally {
      await ep.close();
    }
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

  test("a watched queue reports how many reconciles it runs at once, and at most", async () => {
    const m = new ControllerMetrics();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const q = new WorkQueue(() => gate, () => {}, { workers: 3 });
    m.watch("workload", q);
    for (const k of ["a", "b", "c", "d", "e"]) q.add(k);
    let text = await m.registry.metrics();
    assert.match(text, /^controller_runtime_max_concurrent_reconciles\{controller="workload"\} 3$/m);
    assert.match(text, /^controller_runtime_active_workers\{controller="workload"\} 3$/m);
    assert.match(text, /^workqueue_depth\{name="workload"\} 2$/m);
    release();
    await q.idle();
    text = await m.registry.metrics();
    assert.match(text, /^controller_runtime_active_workers\{controller="workload"\} 0$/m);
    await q.shutDown();
  });
});
