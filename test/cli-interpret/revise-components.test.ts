/** `karta interpret --operation ReviseComponents` (Karmada PRs #7830/#7841) run in-process. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { INTERPRET_HELP, runInterpret } from "../../src/cli/interpret.js";
import { memoryIO } from "../../src/cli/io.js";
import { repoRoot } from "../fixtures/objects.js";
import { startWebhookStub, webhookConfiguration } from "../interpreter-webhook/stub.js";
import { makeTestPki } from "../interpreter-webhook/tls.js";

const example = (name: string): string => readFileSync(path.join(repoRoot, "examples", name), "utf8");

const TWO_ROLES = `apiVersion: testing.karta.dev/v1
kind: TwoRoles
metadata: {name: demo}
spec:
  master: {replicas: 1}
  worker: {replicas: 2}
`;

/** A ResourceInterpreterCustomization whose ReviseComponents writes each component's replicas back. */
const RIC = readFileSync(path.join(repoRoot, "test", "fixtures", "interpret", "two-roles-revise-components.yaml"), "utf8");

const files = {
  "tworoles.yaml": TWO_ROLES,
  "ric.yaml": RIC,
  "broken.yaml": RIC.replace("return desiredObj", "return desiredObj +"),
  "flink.yaml": example("flinkdeployment.yaml"),
  "pytorchjob.yaml": example("pytorchjob.yaml"),
  "deploy.yaml": example("deployment.yaml"),
  "components.yaml": "- name: worker\n  replicas: 4\n- name: master\n  replicas: 1\n",
  "components.jsonl": '{"name":"master","replicas":3}\n{"name":"worker","replicas":0}\n',
  "bad-components.yaml": "- name: worker\n  replicas: -1\n",
  "no-count-components.yaml": "- name: worker\n- name: master\n  replicas: 1\n",
};

async function run(args: string[], stdin = "", extra: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO(stdin, { ...files, ...extra });
  const code = await runInterpret(args, io);
  return { code, out: io.out, err: io.err };
}

const revised = (out: string): { spec: Record<string, { replicas?: number }> } => (parse(out) as { revised: { spec: Record<string, { replicas?: number }> } }).revised;

describe("karta interpret --operation ReviseComponents", () => {
  test("--help documents the operation and its flags", () => {
    assert.match(INTERPRET_HELP, /ReviseComponents/);
    assert.match(INTERPRET_HELP, /--desired-component NAME=N/);
    assert.match(INTERPRET_HELP, /--components-file FILE/);
  });

  test("a componentRevision customization (-f) with --desired-component: karmadactl's layout, result 'revised'", async () => {
    const r = await run(["-f", "ric.yaml", "--operation", "revisecomponents", "--desired-file", "tworoles.yaml", "--desired-component", "worker=5", "--desired-component", "master=0", "--show-layer"]);
    assert.equal(r.err, "");
    assert.equal(r.code, 0);
    assert.equal(r.out, "# layer: declarative\n---\n# [1/1] revised:\napiVersion: testing.karta.dev/v1\nkind: TwoRoles\nmetadata:\n  name: demo\nspec:\n  master:\n    replicas: 0\n  worker:\n    replicas: 5\n");
  });

  test("--components-file: a YAML list, JSON Lines, or stdin", async () => {
    const list = await run(["-f", "ric.yaml", "--operation", "ReviseComponents", "--desired-file", "tworoles.yaml", "--components-file", "components.yaml", "-o", "yaml"]);
    assert.equal(list.code, 0, list.err);
    assert.deepEqual(revised(list.out).spec, { master: { replicas: 1 }, worker: { replicas: 4 } });
    const lines = await run(["-f", "ric.yaml", "--operation", "ReviseComponents", "--desired-file", "tworoles.yaml", "--components-file", "-", "-o", "yaml"], files["components.jsonl"]);
    assert.equal(lines.code, 0, lines.err);
    assert.deepEqual(revised(lines.out).spec, { master: { replicas: 3 }, worker: { replicas: 0 } });
  });

  test("the bundled layers answer: thirdparty for a FlinkDeployment, the Karta for a PyTorchJob", async () => {
    const flink = await run(["--operation", "ReviseComponents", "--desired-file", "flink.yaml", "--desired-component", "jobmanager=2", "--desired-component", "taskmanager=6", "--show-layer"]);
    assert.equal(flink.code, 0, flink.err);
    assert.match(flink.out, /^# layer: thirdparty\n/);
    const f = parse(flink.out.split("# [1/1] revised:\n")[1]!) as { spec: { jobManager: { replicas: number }; taskManager: { replicas: number } } };
    assert.deepEqual([f.spec.jobManager.replicas, f.spec.taskManager.replicas], [2, 6]);
    const job = await run(["--operation", "ReviseComponents", "--desired-file", "pytorchjob.yaml", "--desired-component", "master=1", "--desired-component", "worker=8", "-o", "json", "--show-layer"]);
    assert.equal(job.code, 0, job.err);
    assert.equal(job.err, "layer: karta\n");
    assert.equal((JSON.parse(job.out) as { revised: { spec: { pytorchReplicaSpecs: { Worker: { replicas: number } } } } }).revised.spec.pytorchReplicaSpecs.Worker.replicas, 8);
  });

  test("failures exit 1 with the layer: an unknown component, a kind nothing revises", async () => {
    const unknown = await run(["--operation", "ReviseComponents", "--desired-file", "pytorchjob.yaml", "--desired-component", "chief=1"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /^Execute ReviseComponents error: Karta .*PyTorchJob\.yaml: components\[0\]\.name: unknown component "chief"; the workload's components are "master", "worker" \(layer: karta\)\n$/);
    const native = await run(["--operation", "ReviseComponents", "--desired-file", "deploy.yaml", "--desired-component", "web=1"]);
    assert.equal(native.code, 1);
    assert.equal(native.err, 'Execute ReviseComponents error: default ReviseComponents interpreter for "apps/v1, Kind=Deployment" not found (layer: framework)\n');
  });

  test("usage and input errors exit 2 and name the flag, file and field", async () => {
    const none = await run(["--operation", "ReviseComponents", "--desired-file", "pytorchjob.yaml"]);
    assert.equal(none.code, 2);
    assert.match(none.err, /ReviseComponents needs the components' replicas: --desired-component NAME=N \(repeatable\) or --components-file FILE/);
    const flag = await run(["--operation", "ReviseComponents", "--desired-file", "pytorchjob.yaml", "--desired-component", "worker"]);
    assert.equal(flag.code, 2);
    assert.match(flag.err, /invalid --desired-component "worker": expected NAME=REPLICAS/);
    const file = await run(["--operation", "ReviseComponents", "--desired-file", "pytorchjob.yaml", "--components-file", "bad-components.yaml"]);
    assert.equal(file.code, 2);
    // Worded as the webhook and the interpreters word a count they cannot take.
    assert.equal(file.err, "karta interpret: fail to get components: bad-components.yaml:1: [0].replicas: Invalid value: -1: must be greater than or equal to 0\n");
    const noCount = await run(["--operation", "ReviseComponents", "--desired-file", "pytorchjob.yaml", "--components-file", "no-count-components.yaml"]);
    assert.equal(noCount.code, 2);
    assert.equal(noCount.err, "karta interpret: fail to get components: no-count-components.yaml:1: [0].replicas: Required value\n");
    const twoStdin = await run(["--operation", "ReviseComponents", "--desired-file", "-", "--components-file", "-"]);
    assert.equal(twoStdin.code, 2);
  });

  test("--check lists ReviseComponents after ReviseReplica; with a sample it runs the script with the given components", async () => {
    const r = await run(["-f", "ric.yaml", "--check"]);
    assert.equal(r.code, 0);
    assert.match(r.out, /\n {4}ReviseReplica: {9}UNSET\n {4}ReviseComponents: {6}PASS\n {4}InterpretStatus: {7}UNSET\n/);
    const broken = await run(["-f", "broken.yaml", "--check"]);
    assert.equal(broken.code, 1);
    assert.match(broken.out, /\n {4}ReviseComponents: {6}ERROR: .+\n/);
    const sample = await run(["-f", "ric.yaml", "--check", "--desired-file", "tworoles.yaml", "--desired-component", "chief=1"]);
    assert.equal(sample.code, 1, "spec.chief is nil: the script fails on the sample");
    assert.match(sample.out, /\n {4}ReviseComponents: {6}ERROR: .*nil.*\n/);
    const good = await run(["-f", "ric.yaml", "--check", "--desired-file", "tworoles.yaml", "--components-file", "components.yaml"]);
    assert.equal(good.code, 0, good.out);
  });

  test("--show-doc documents the rule and shows the customization's script", async () => {
    const doc = await run(["--show-doc"]);
    assert.match(doc.out, /---@rule: ReviseComponents\n-- .*\n-- function ReviseComponents\(desiredObj, components\)/);
    const withRic = await run(["--show-doc", "-f", "ric.yaml"]);
    assert.match(withRic.out, /---@rule: ReviseComponents\n(-- .*\n)+function ReviseComponents\(desiredObj, components\)\n/);
  });

  test("--webhook-config: the request carries components and no replicas; the JSON Patch answer is applied", async (t) => {
    const pki = makeTestPki(["localhost"]);
    if (!pki) {
      t.skip("openssl absent");
      return;
    }
    const seen: unknown[] = [];
    const stub = await startWebhookStub(pki, (ctx) => {
      seen.push(ctx.request);
      const patch = (ctx.request.components as { name: string; replicas: number }[]).map((c) => ({ op: "replace", path: `/spec/${c.name}/replicas`, value: c.replicas }));
      return { successful: true, patchType: "JSONPatch", patch: Buffer.from(JSON.stringify(patch)).toString("base64") };
    });
    try {
      const config = webhookConfiguration({ name: "tworoles.example.com", operation: "ReviseComponents", apiGroup: "testing.karta.dev", apiVersion: "v1", kind: "TwoRoles", url: `https://127.0.0.1:${stub.port}/revise`, caBundle: pki.caBundle });
      const r = await run(["--webhook-config", "hooks.yaml", "--operation", "ReviseComponents", "--desired-file", "tworoles.yaml", "--desired-component", "master=2", "--desired-component", "worker=7", "-o", "json", "--show-layer"], "", { "hooks.yaml": config });
      assert.equal(r.err, "layer: webhook\n");
      assert.equal(r.code, 0);
      assert.deepEqual(revised(r.out).spec, { master: { replicas: 2 }, worker: { replicas: 7 } });
      const request = seen[0] as Record<string, unknown>;
      assert.equal(request.operation, "ReviseComponents");
      assert.equal("replicas" in request, false);
      assert.deepEqual(request.components, [{ name: "master", replicas: 2 }, { name: "worker", replicas: 7 }]);
    } finally {
      await stub.close();
    }
  });
});
