/** `karta interpret` run in-process with an in-memory IO. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { INTERPRET_HELP, runInterpret } from "../../src/cli/interpret.js";
import { memoryIO } from "../../src/cli/io.js";
import { repoRoot } from "../fixtures/objects.js";
import { startWebhookStub, webhookConfiguration } from "../interpreter-webhook/stub.js";
import { makeTestPki } from "../interpreter-webhook/tls.js";

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: checkout
  namespace: shop
  generation: 2
  labels:
    app: checkout
spec:
  replicas: 3
  paused: false
  selector:
    matchLabels:
      app: checkout
  template:
    metadata:
      labels:
        app: checkout
    spec:
      containers:
        - name: checkout
          image: ghcr.io/shop/checkout:2.4.1
          resources:
            requests:
              cpu: 500m
              memory: 256Mi
`;

const OBSERVED = DEPLOYMENT.replace("paused: false", "paused: true").replace("replicas: 3", "replicas: 5") + `status:
  observedGeneration: 2
  replicas: 5
  updatedReplicas: 5
  readyReplicas: 5
  availableReplicas: 5
`;

const STATUS = `clusterName: member1
applied: true
health: Healthy
status:
  replicas: 2
  readyReplicas: 2
  updatedReplicas: 2
  availableReplicas: 2
  generation: 2
  resourceTemplateGeneration: 2
  observedGeneration: 2
---
clusterName: member2
applied: true
health: Healthy
status:
  replicas: 1
  readyReplicas: 0
  updatedReplicas: 1
  availableReplicas: 0
  unavailableReplicas: 1
  generation: 2
  resourceTemplateGeneration: 2
  observedGeneration: 2
`;

const CUSTOMIZATION = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: checkout-interpreter
spec:
  target:
    apiVersion: apps/v1
    kind: Deployment
  customizations:
    replicaResource:
      luaScript: |
        local kube = require("kube")
        function GetReplicas(obj)
          return obj.spec.replicas, kube.accuratePodRequirements(obj.spec.template)
        end
    retention:
      luaScript: |
        function Retain(desiredObj, observedObj)
          desiredObj.spec.paused = observedObj.spec.paused
          return desiredObj
        end
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          return observedObj.status.readyReplicas == observedObj.spec.replicas
        end
`;

const BROKEN = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: broken
spec:
  target:
    apiVersion: apps/v1
    kind: Deployment
  customizations:
    replicaRevision:
      luaScript: |
        function ReviseReplica(obj, replicas)
          obj.spec.replicas = replicas
          return obj
        end
    statusReflection:
      luaScript: |
        function ReflectStatus(obj)
          return obj.status.conditions[1].type
        end
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj
          return true
        end
`;

const SYNTAX_ERROR = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: syntax
spec:
  target:
    apiVersion: apps/v1
    kind: Deployment
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          return observedObj.status.x ==
        end
`;

const files = { "deploy.yaml": DEPLOYMENT, "observed.yaml": OBSERVED, "status.yaml": STATUS, "ric.yaml": CUSTOMIZATION, "broken.yaml": BROKEN };

async function run(args: string[], stdin = ""): Promise<{ code: number; out: string; err: string }> {
  return runWith({}, args, stdin);
}

async function runWith(extra: Record<string, string>, args: string[], stdin = ""): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO(stdin, { ...files, ...extra });
  const code = await runInterpret(args, io);
  return { code, out: io.out, err: io.err };
}

describe("karta interpret", () => {
  test("--help shows the flags and an example", async () => {
    const r = await run(["--help"]);
    assert.equal(r.code, 0);
    assert.equal(r.out, INTERPRET_HELP);
    assert.match(r.out, /--desired-replica N/);
    assert.match(r.out, /Example:\n {2}karta interpret -f /);
  });

  test("InterpretReplica from a customization, printed as karmadactl does", async () => {
    const r = await run(["-f", "ric.yaml", "--operation", "InterpretReplica", "--desired-file", "deploy.yaml"]);
    assert.equal(r.err, "");
    assert.equal(r.code, 0);
    assert.equal(r.out, ["---", "# [1/2] replica:", "3", "---", "# [2/2] requires:", "resourceRequest:", "  cpu: 500m", "  memory: 256Mi", ""].join("\n"));
  });

  test("--operation is case-insensitive; --show-layer names the layer", async () => {
    const r = await run(["-f", "ric.yaml", "--operation=interprethealth", "--observed-file", "observed.yaml", "--show-layer"]);
    assert.equal(r.code, 0);
    assert.equal(r.out, "# layer: declarative\n---\n# [1/1] healthy:\ntrue\n");
  });

  test("without customizations the built-in interpreter answers: ReviseReplica with --desired-replica", async () => {
    const r = await run(["--operation", "ReviseReplica", "--desired-file", "deploy.yaml", "--desired-replica", "7", "--show-layer"]);
    assert.equal(r.code, 0);
    assert.match(r.out, /^# layer: native\n---\n# \[1\/1\] revised:\napiVersion: apps\/v1\nkind: Deployment\nmetadata:\n/);
    assert.match(r.out, /\nspec:\n {2}paused: false\n {2}replicas: 7\n {2}selector:/, "keys sorted, replicas revised");
  });

  test("nil is not []: native dependencies found none print null, a script's empty table []; a nil GetComponents prints null", async () => {
    // Karmada's native helpers return a nil slice when they find nothing: karmadactl prints null.
    const yaml = await run(["--operation", "InterpretDependency", "--desired-file", "deploy.yaml"]);
    assert.deepEqual([yaml.code, yaml.out, yaml.err], [0, "---\n# [1/1] dependencies:\nnull\n", ""]);
    const json = await run(["--operation", "InterpretDependency", "--desired-file", "deploy.yaml", "-o", "json"]);
    assert.deepEqual(JSON.parse(json.out), { dependencies: null });
    // A ConfigMap reference is listed as before.
    const withCm = await runWith({ "cm.yaml": DEPLOYMENT.replace("resources:", "envFrom:\n            - configMapRef:\n                name: cfg\n          resources:") }, ["--operation", "InterpretDependency", "--desired-file", "cm.yaml", "-o", "json"]);
    assert.deepEqual(JSON.parse(withCm.out), { dependencies: [{ apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name: "cfg" }] });
    // Karmada's declarative layer collects the scripts' references into a set: an empty, non-nil list.
    const ric = (rule: string, script: string): string =>
      `apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata:\n  name: r\nspec:\n  target:\n    apiVersion: apps/v1\n    kind: Deployment\n  customizations:\n    ${rule}:\n      luaScript: |\n        ${script}\n`;
    const none = await runWith({ "deps.yaml": ric("dependencyInterpretation", "function GetDependencies(obj) return {} end") }, ["-f", "deps.yaml", "--operation", "InterpretDependency", "--desired-file", "deploy.yaml", "-o", "json"]);
    assert.deepEqual(JSON.parse(none.out), { dependencies: [] });
    const nilComponents = await runWith({ "c.yaml": ric("componentResource", "function GetComponents(obj) return nil end") }, ["-f", "c.yaml", "--operation", "InterpretComponent", "--desired-file", "deploy.yaml"]);
    assert.deepEqual([nilComponents.code, nilComponents.out], [0, "---\n# [1/1] components:\nnull\n"]);
    const emptyComponents = await runWith({ "c.yaml": ric("componentResource", "function GetComponents(obj) return {} end") }, ["-f", "c.yaml", "--operation", "InterpretComponent", "--desired-file", "deploy.yaml", "-o", "json"]);
    assert.deepEqual(JSON.parse(emptyComponents.out), { components: [] });
  });

  test("Retain takes both objects; AggregateStatus reads the status items from standard input", async () => {
    const retained = await run(["-f", "ric.yaml", "--operation", "Retain", "--desired-file", "deploy.yaml", "--observed-file", "observed.yaml"]);
    assert.equal(retained.code, 0);
    assert.match(retained.out, /^---\n# \[1\/1\] retained:\n/);
    assert.match(retained.out, /\n {2}paused: true\n {2}replicas: 3\n/);
    const aggregated = await run(["--operation", "AggregateStatus", "--desired-file", "deploy.yaml", "--status-file", "-"], STATUS);
    assert.equal(aggregated.code, 0);
    assert.match(aggregated.out, /^---\n# \[1\/1\] aggregatedStatus:\n/);
    assert.match(aggregated.out, /\nstatus:\n {2}availableReplicas: 2\n {2}observedGeneration: 2\n {2}readyReplicas: 2\n {2}replicas: 3\n {2}unavailableReplicas: 1\n {2}updatedReplicas: 3\n$/);
  });

  test("AggregateStatus without items (nil: no member reported) leaves the template of a Karta with keepWithoutItems as it is; an empty list is aggregated", async () => {
    const ray = "apiVersion: ray.io/v1\nkind: RayCluster\nmetadata: {name: r, namespace: ns}\nspec:\n  headGroupSpec: {template: {spec: {containers: [{name: head, image: ray}]}}}\n";
    const nil = await runWith({ "ray.yaml": ray }, ["--operation", "AggregateStatus", "--desired-file", "ray.yaml", "-o", "json"]);
    assert.equal(nil.code, 0, nil.err);
    assert.equal(JSON.parse(nil.out).aggregatedStatus.status, undefined);
    const empty = await runWith({ "ray.yaml": ray, "none.yaml": "" }, ["--operation", "AggregateStatus", "--desired-file", "ray.yaml", "--status-file", "none.yaml", "-o", "json"]);
    assert.equal(empty.code, 0, empty.err);
    assert.equal(JSON.parse(empty.out).aggregatedStatus.status.readyWorkerReplicas, 0);
  });

  test("a failed operation exits 1 with karmadactl's message and the layer", async () => {
    const missing = await run(["-f", "ric.yaml", "--operation", "Retain", "--desired-file", "deploy.yaml"]);
    assert.equal(missing.code, 1);
    assert.equal(missing.err, "Execute Retain error: observed, observed-file options are not set\n");
    const both = await run(["--operation", "InterpretHealth", "--desired-file", "deploy.yaml", "--observed-file", "observed.yaml"]);
    assert.equal(both.code, 1);
    assert.equal(both.err, "Execute InterpretHealth error: you can not specify multiple object by desired, desired-file, observed, observed-file options\n");
    const script = await run(["-f", "broken.yaml", "--operation", "InterpretStatus", "--observed-file", "observed.yaml"]);
    assert.equal(script.code, 1);
    // Multi-line: the Lua error carries its stack traceback, as Karmada's does.
    assert.match(script.err, /^Execute InterpretStatus error: <string>:\d+: .*\nstack traceback:\n.*\(layer: declarative\)\n$/s);
    assert.equal(script.out, "");
    // gopher-lua's syntax errors end with a line break: the layer stays on the message's line.
    const syntax = await runWith({ "syntax.yaml": SYNTAX_ERROR }, ["-f", "syntax.yaml", "--operation", "InterpretHealth", "--observed-file", "observed.yaml"]);
    assert.equal(syntax.code, 1);
    assert.equal(syntax.err, "Execute InterpretHealth error: <string> line:3(column:3) near 'end':   syntax error (layer: declarative)\n");
  });

  test("a script nested thousands of levels deep is refused in words (exit 1), not an internal error", async () => {
    const deep = `function GetReplicas(obj)\n  return ${"(".repeat(20000)}1${")".repeat(20000)}, nil\nend`;
    const ric = ["apiVersion: config.karmada.io/v1alpha1", "kind: ResourceInterpreterCustomization", "metadata: {name: deep}", "spec:", "  target: {apiVersion: apps/v1, kind: Deployment}", "  customizations:", "    replicaResource:", `      luaScript: ${JSON.stringify(deep)}`].join("\n");
    const r = await runWith({ "deep.yaml": ric }, ["-f", "deep.yaml", "--check"]);
    assert.equal(r.code, 1, r.err);
    assert.match(r.out, /InterpretReplica: +ERROR: the script is nested too deeply for Karta to read/);
    assert.doesNotMatch(r.out + r.err, /internal error|Maximum call stack/);
  });

  test("--check with -f files that hold no customization says so (exit 2); without -f, that -f is needed", async () => {
    const empty = await runWith({ "empty.yaml": "" }, ["-f", "empty.yaml", "--check"]);
    assert.deepEqual([empty.code, empty.out, empty.err], [2, "", "karta interpret: --check: no ResourceInterpreterCustomization in empty.yaml\n"]);
    const none = await runWith({}, ["--check"]);
    assert.deepEqual([none.code, none.err], [2, "karta interpret: --check needs customizations (-f)\n"]);
  });

  test("--check: PASS, UNSET and ERROR per rule; a compile error exits 1", async () => {
    const r = await run(["-f", "ric.yaml", "-f", "broken.yaml", "--check"]);
    assert.equal(r.code, 1);
    const lines = r.out.split("\n");
    assert.deepEqual(lines.slice(0, 14), [
      "-----------------------------------",
      "SOURCE: checkout-interpreter",
      "TARGET: apps/v1 Deployment   ",
      "RULERS:",
      "    Retain:                PASS",
      "    InterpretReplica:      PASS",
      "    InterpretComponent:    UNSET",
      "    ReviseReplica:         UNSET",
      "    ReviseComponents:      UNSET",
      "    InterpretStatus:       UNSET",
      "    AggregateStatus:       UNSET",
      "    InterpretHealth:       PASS",
      "    InterpretDependency:   UNSET",
      "-----------------------------------",
    ]);
    assert.equal(lines[17], "    Retain:                UNSET");
    assert.equal(lines[20], "    ReviseReplica:         PASS");
    assert.equal(lines[21], "    ReviseComponents:      UNSET");
    assert.equal(lines[22], "    InterpretStatus:       PASS", "only compiled without a sample");
    assert.match(lines[24]!, /^ {4}InterpretHealth: {7}ERROR: .+/);
  });

  test("--check with --desired-file also runs each script once on the sample", async () => {
    const good = await run(["-f", "ric.yaml", "--check", "--desired-file", "deploy.yaml", "--observed-file", "observed.yaml"]);
    assert.equal(good.code, 0, good.out);
    assert.doesNotMatch(good.out, /ERROR/);
    const broken = await run(["-f", "broken.yaml", "--check", "--desired-file", "deploy.yaml"]);
    assert.equal(broken.code, 1);
    assert.match(broken.out, /\n {4}ReviseReplica: {9}PASS\n {4}ReviseComponents: {6}UNSET\n {4}InterpretStatus: {7}ERROR: .*(nil|index).*\n/);
  });

  test("--check on the bundled customizations directory", async () => {
    const r = await run(["-f", path.join(repoRoot, "interpreter-customizations"), "-R", "--check"]);
    assert.equal(r.code, 0);
    assert.match(r.out, /SOURCE: karta-thirdparty-argoproj\.io-v1alpha1-workflow\n/);
  });

  test("usage errors exit 2", async () => {
    const unknown = await run(["--operation", "Prune", "--desired-file", "deploy.yaml"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /^karta interpret: operation Prune is not supported\. Use one of: InterpretReplica, InterpretComponent, ReviseReplica, ReviseComponents, InterpretStatus, Retain, AggregateStatus, InterpretHealth, InterpretDependency\n/);
    const none = await run(["--desired-file", "deploy.yaml"]);
    assert.equal(none.code, 2);
    assert.match(none.err, /operation is not set for executing/);
    const replica = await run(["--operation", "ReviseReplica", "--desired-replica", "two"]);
    assert.equal(replica.code, 2);
    // An int32, as karmadactl reads it: 2^31 is one too many.
    const huge = await run(["--operation", "ReviseReplica", "--desired-file", "deploy.yaml", "--desired-replica=2147483648"]);
    assert.equal(huge.code, 2);
    assert.match(huge.err, /^karta interpret: invalid value '2147483648' for --desired-replica: expected an integer from 0 to 2147483647\n/);
    assert.equal((await run(["--operation", "ReviseReplica", "--desired-file", "deploy.yaml", "--desired-replica=2147483647"])).code, 0);
    const unreadable = await run(["--operation", "InterpretHealth", "--desired-file", "missing.yaml"]);
    assert.equal(unreadable.code, 2);
    assert.match(unreadable.err, /^karta interpret: cannot read missing\.yaml: no such file$/m);
  });

  test("an object read from standard input is named <stdin>; an apiVersion or kind that is not a string is named", async () => {
    const none = await run(["--operation", "InterpretHealth", "--desired-file", "-"], "");
    assert.equal(none.code, 2);
    assert.equal(none.err, "karta interpret: fail to get desired object: <stdin>: expected exactly one object, found 0\n");
    const numeric = await run(["--operation", "InterpretHealth", "--desired-file", "-"], "apiVersion: 7\nkind: Deployment\nmetadata: {name: x}\n");
    assert.equal(numeric.code, 2);
    assert.equal(numeric.err, "karta interpret: fail to get desired object: <stdin>: apiVersion: expected a string, found a number\n");
    const listKind = await run(["--operation", "InterpretHealth", "--desired-file", "-"], "apiVersion: apps/v1\nkind: [Deployment]\n");
    assert.equal(listKind.err, "karta interpret: fail to get desired object: <stdin>: kind: expected a string, found a list\n");
    const noKind = await run(["--operation", "InterpretHealth", "--desired-file", "-"], "apiVersion: apps/v1\nmetadata: {name: x}\n");
    assert.equal(noKind.err, "karta interpret: fail to get desired object: <stdin>: Object 'Kind' is missing\n");
    const items = await run(["--operation", "AggregateStatus", "--desired-file", "deploy.yaml", "--status-file", "-"], "{");
    assert.equal(items.code, 2);
    assert.match(items.err, /^karta interpret: fail to get status items: <stdin>:1:/);
  });

  test("an invalid customization file is reported with its file and field", async () => {
    const io = memoryIO("", { ...files, "bad.yaml": CUSTOMIZATION.replace("    kind: Deployment\n", "") });
    const code = await runInterpret(["-f", "bad.yaml", "--operation", "InterpretReplica", "--desired-file", "deploy.yaml"], io);
    assert.equal(code, 1);
    // file:line:col at the field (its nearest parent present), as webhook-config and validate place it.
    assert.equal(io.err, "bad.yaml:7:5: error: spec.target.kind: Required value\n");
  });

  test("-d/--definition: an unreadable definition file is an input error (answers: test/interpreter-karta)", async () => {
    const r = await run(["-d", "pytorchjob.karta.yaml", "--operation", "InterpretReplica", "--desired-file", "deploy.yaml"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /^karta interpret: cannot read pytorchjob\.karta\.yaml: no such file$/m);
  });

  test("--webhook-config: a webhook answers for its kind over HTTPS", async (t) => {
    const pki = makeTestPki(["localhost"]);
    if (!pki) {
      t.skip("openssl absent");
      return;
    }
    const stub = await startWebhookStub(pki, (ctx) => ({ successful: true, healthy: ((ctx.request.object.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0) >= 1 }));
    try {
      const config = webhookConfiguration({ name: "workloads.example.com", operation: "InterpretHealth", apiGroup: "workload.example.io", apiVersion: "v1alpha1", kind: "Workload", url: `https://127.0.0.1:${stub.port}/interpreter-workload`, caBundle: pki.caBundle });
      const workload = `apiVersion: workload.example.io/v1alpha1
kind: Workload
metadata: {name: nginx, namespace: default}
spec: {replicas: 2}
status: {readyReplicas: 1}
`;
      const io = memoryIO("", { "hooks.yaml": config, "workload.yaml": workload });
      const code = await runInterpret(["--webhook-config", "hooks.yaml", "--operation", "InterpretHealth", "--observed-file", "workload.yaml", "--show-layer"], io);
      assert.equal(io.err, "");
      assert.equal(code, 0);
      assert.equal(io.out, "# layer: webhook\n---\n# [1/1] healthy:\ntrue\n");
    } finally {
      await stub.close();
    }
  });
});
