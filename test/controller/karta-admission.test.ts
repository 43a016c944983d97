/**
 * Admission of Karta objects: the decisions (pure) against what `karta validate` prints for the same
 * Karta as a file, and the two webhooks served over real HTTPS next to the pod webhook.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import https from "node:https";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { stringify } from "yaml";
import { mutateKarta, validateKarta, KARTA_MUTATE_PATH, KARTA_VALIDATE_PATH, type KartaAdmissionRequest } from "../../src/controller/karta-admission.js";
import { startWebhook, type WebhookServer } from "../../src/controller/webhook.js";
import { ControllerMetrics } from "../../src/controller/metrics.js";
import { silentLogger } from "../../src/controller/log.js";
import { ensureCertDir } from "../../src/server/certs.js";
import { runValidate } from "../../src/cli/validate.js";
import { memoryIO } from "../../src/cli/io.js";
import { applyJsonPatch } from "../../src/jsonpatch/index.js";
import { loadBundled } from "../bundled/helpers.js";

type Obj = Record<string, any>;

const pytorch = (name = "pytorchjob"): Obj => {
  const k = structuredClone(loadBundled("kubeflow.org/v1/PyTorchJob.yaml").definition.karta) as unknown as Obj;
  k.metadata = { name };
  return k;
};
const patched = (doc: Obj, patch: Parameters<typeof applyJsonPatch>[1]): Obj => {
  const r = applyJsonPatch(doc, patch);
  assert.ok(r.ok, r.ok ? "" : r.error);
  return r.value as Obj;
};
const labelled = (k: Obj): Obj => ({ ...k, metadata: { ...k.metadata, labels: { ...k.metadata?.labels, "run.ai/karta-group": "kubeflow.org", "run.ai/karta-version": "v1", "run.ai/karta-kind": "PyTorchJob" } } });
const request = (operation: string, object: unknown, oldObject?: unknown): KartaAdmissionRequest => ({
  uid: "u1",
  kind: { group: "run.ai", version: "v1alpha1", kind: "Karta" },
  operation,
  object,
  ...(oldObject !== undefined ? { oldObject } : {}),
});
/** A Karta the server and `karta validate` both refuse: two errors of the reference validator and a jq error. */
function invalid(name = "bad"): Obj {
  const k = pytorch(name);
  k.spec.structureDefinition.rootComponent.ownerRef = "nobody";
  k.spec.structureDefinition.childComponents[0].ownerRef = "missing";
  k.spec.structureDefinition.rootComponent.statusDefinition.conditionsDefinition.path = ".status.conditions[";
  return k;
}

/** What `karta validate` prints for the Karta as a file: its error lines without the position. */
async function validateLines(karta: Obj | Obj[]): Promise<{ code: number; errors: string[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-validate-"));
  try {
    const file = path.join(dir, "karta.yaml");
    writeFileSync(file, (Array.isArray(karta) ? karta : [karta]).map((k) => stringify(k)).join("---\n"));
    const io = memoryIO();
    const code = await runValidate([file], io);
    const errors = io.out.split("\n").filter((l) => l.includes(": error: ")).map((l) => l.slice(l.indexOf(": error: ") + ": error: ".length));
    return { code, errors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("Karta admission decisions", () => {
  test("mutating: a new Karta gets the labels of its root kind, overwriting wrong ones; other kinds pass", () => {
    const fresh = mutateKarta(request("CREATE", pytorch()));
    assert.equal(fresh.outcome, "labelled");
    assert.deepEqual(patched(pytorch(), fresh.answer.patch!).metadata.labels, { "run.ai/karta-group": "kubeflow.org", "run.ai/karta-version": "v1", "run.ai/karta-kind": "PyTorchJob" });
    const wrong = pytorch();
    wrong.metadata.labels = { team: "ml", "run.ai/karta-kind": "Job" };
    const fixed = patched(wrong, mutateKarta(request("CREATE", wrong)).answer.patch!);
    assert.deepEqual(fixed.metadata.labels, { team: "ml", "run.ai/karta-group": "kubeflow.org", "run.ai/karta-version": "v1", "run.ai/karta-kind": "PyTorchJob" });
    assert.equal(mutateKarta(request("CREATE", labelled(pytorch()))).outcome, "unchanged");
    assert.equal(mutateKarta(request("UPDATE", pytorch(), pytorch())).outcome, "not-a-karta");
    assert.equal(mutateKarta({ ...request("CREATE", {}), kind: { group: "", version: "v1", kind: "Pod" } }).outcome, "not-a-karta");
  });

  test("an invalid Karta is refused with every error karta validate prints for it, in its words and field paths", async () => {
    const k = invalid();
    const r = validateKarta(request("CREATE", labelled(k)), () => []);
    assert.equal(r.outcome, "denied");
    const status = r.answer.status!;
    assert.deepEqual([status.code, status.reason], [403, "Forbidden"]);
    const validate = await validateLines(k);
    assert.equal(validate.code, 1);
    assert.equal(validate.errors.length, 3, validate.errors.join("\n"));
    assert.deepEqual(status.message.split("\n").sort(), validate.errors.sort());
    assert.ok(status.message.includes("spec.structureDefinition.rootComponent.ownerRef: root component cannot have owner ref"));
    assert.match(status.message, /^spec\.structureDefinition\.childComponents\[0\]\.ownerRef: child component '[a-z-]+' has owner ref to non-existing component 'missing'$/m);
    assert.deepEqual(status.details!.causes!.map((c) => c.field).sort(), validate.errors.map((e) => e.slice(0, e.indexOf(": "))).sort());
    assert.equal(status.details!.name, "bad");
  });

  test("one Karta per root group/version/kind: upstream's message, the same in karta validate; another version is another kind", async () => {
    const existing = [labelled(pytorch("first"))];
    const r = validateKarta(request("CREATE", labelled(pytorch("second"))), () => existing);
    const message = 'a Karta for group "kubeflow.org" version "v1" kind "PyTorchJob" already exists ("first"); only one Karta per group/version/kind is allowed';
    assert.equal(r.answer.status?.message, `spec.structureDefinition.rootComponent.kind: ${message}`);
    const validate = await validateLines([pytorch("first"), pytorch("second")]);
    assert.deepEqual(validate, { code: 1, errors: [`spec.structureDefinition.rootComponent.kind: ${message}`] });
    // The same name is the same Karta (an update, or applying it again).
    assert.equal(validateKarta(request("CREATE", labelled(pytorch("first"))), () => existing).outcome, "allowed");
    const v2 = pytorch("second");
    v2.spec.structureDefinition.rootComponent.kind.version = "v2";
    assert.equal(validateKarta(request("CREATE", v2), () => existing).outcome, "allowed");
    assert.deepEqual(await validateLines([pytorch("first"), v2]), { code: 0, errors: [] });
  });

  test("managed labels: a wrong one is refused (create, update, karta validate); a missing one only on update", async () => {
    const wrong = pytorch();
    wrong.metadata.labels = { "run.ai/karta-kind": "Job" };
    const message = 'metadata.labels["run.ai/karta-kind"]: label "run.ai/karta-kind" is managed by the operator and must equal "PyTorchJob"; it cannot be edited or removed';
    assert.equal(validateKarta(request("CREATE", wrong), () => []).answer.status?.message, message);
    assert.deepEqual(await validateLines(wrong), { code: 1, errors: [message] });
    assert.equal(validateKarta(request("CREATE", pytorch()), () => []).outcome, "allowed");
    assert.deepEqual(await validateLines(pytorch()), { code: 0, errors: [] });
    const removed = validateKarta(request("UPDATE", pytorch(), labelled(pytorch())), () => []);
    assert.equal(removed.answer.status?.message.split("\n").length, 3);
    assert.match(removed.answer.status!.message, /label "run\.ai\/karta-group" is managed by the operator and must equal "kubeflow\.org"/);
  });

  test("update: the root kind is immutable; an unchanged spec is not judged again (a Karta stored before the rules can be labelled)", () => {
    const old = labelled(pytorch());
    const moved = labelled(pytorch());
    moved.spec.structureDefinition.rootComponent.kind.version = "v2";
    moved.metadata.labels["run.ai/karta-version"] = "v2";
    const r = validateKarta(request("UPDATE", moved, old), () => [old]);
    assert.equal(r.answer.status?.message, "spec.structureDefinition.rootComponent.kind: the root component GVK is immutable and cannot be changed after creation");
    // The labels left as they were (kubectl patch of the kind alone): the refused kind is not the one they must equal.
    const patched = labelled(pytorch());
    patched.spec.structureDefinition.rootComponent.kind.kind = "TFJob";
    const tf = labelled(pytorch());
    tf.metadata.name = "tfjob";
    tf.spec.structureDefinition.rootComponent.kind.kind = "TFJob";
    assert.equal(validateKarta(request("UPDATE", patched, old), () => [old, tf]).answer.status?.message, "spec.structureDefinition.rootComponent.kind: the root component GVK is immutable and cannot be changed after creation");
    // A label that follows the refused kind is part of the change refused; one that matches neither kind is
    // judged against the stored kind.
    patched.metadata.labels["run.ai/karta-kind"] = "TFJob";
    assert.equal(validateKarta(request("UPDATE", patched, old), () => [old]).answer.status?.message, "spec.structureDefinition.rootComponent.kind: the root component GVK is immutable and cannot be changed after creation");
    patched.metadata.labels["run.ai/karta-kind"] = "Job";
    assert.deepEqual(validateKarta(request("UPDATE", patched, old), () => [old]).answer.status?.message.split("\n"), [
      "spec.structureDefinition.rootComponent.kind: the root component GVK is immutable and cannot be changed after creation",
      'metadata.labels["run.ai/karta-kind"]: label "run.ai/karta-kind" is managed by the operator and must equal "PyTorchJob"; it cannot be edited or removed',
    ]);
    const stored = labelled(invalid());
    const relabelled = structuredClone(stored);
    relabelled.metadata.annotations = { note: "x" };
    assert.equal(validateKarta(request("UPDATE", relabelled, stored), () => []).outcome, "allowed");
    const edited = structuredClone(relabelled);
    edited.spec.structureDefinition.rootComponent.name = "job";
    assert.equal(validateKarta(request("UPDATE", edited, stored), () => []).outcome, "denied");
    // Deleting is never refused; other kinds are not ours.
    assert.equal(validateKarta(request("DELETE", undefined, stored), () => []).outcome, "not-a-karta");
  });

  test("lint warnings come back as admission warnings", () => {
    const k = labelled(pytorch());
    k.spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running = [{ byConditions: [{ type: "Running" }] }];
    const r = validateKarta(request("CREATE", k), () => []);
    assert.equal(r.outcome, "allowed");
    assert.ok(r.answer.warnings?.some((w) => w.startsWith("spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[0].byConditions[0]: ")), JSON.stringify(r.answer.warnings));
  });
});

describe("the Karta webhooks over HTTPS", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-webhook-kartas-"));
  let server: WebhookServer;
  let ca: string;
  const cached = [labelled(pytorch("first"))];

  before(async () => {
    const files = ensureCertDir(dir, ["localhost", "127.0.0.1"]);
    ca = readFileSync(files.caFile, "utf8");
    server = await startWebhook({
      host: "127.0.0.1",
      port: 0,
      certFile: files.certFile,
      keyFile: files.keyFile,
      source: { podRoot: () => ({ found: false, pending: false, why: "none" }) },
      kartas: () => cached,
      metrics: new ControllerMetrics(),
      log: silentLogger,
    });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function post(pathname: string, body: unknown): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = https.request({ host: "127.0.0.1", port: server.port, path: pathname, method: "POST", ca, headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) } }, (res) => {
        let data = "";
        res.on("data", (c) => (data += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: res.headers["content-type"]?.startsWith("application/json") ? JSON.parse(data) : data }));
      });
      req.on("error", reject);
      req.end(text);
    });
  }
  const review = (r: KartaAdmissionRequest) => ({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: r });

  test("the mutating path answers with a JSONPatch of the labels", async () => {
    const r = await post(KARTA_MUTATE_PATH, review(request("CREATE", pytorch("new"))));
    assert.equal(r.status, 200);
    assert.equal(r.body.response.uid, "u1");
    assert.equal(r.body.response.allowed, true);
    assert.equal(r.body.response.patchType, "JSONPatch");
    const patch = JSON.parse(Buffer.from(r.body.response.patch, "base64").toString());
    assert.deepEqual(patch, [{ op: "add", path: "/metadata/labels", value: { "run.ai/karta-group": "kubeflow.org", "run.ai/karta-version": "v1", "run.ai/karta-kind": "PyTorchJob" } }]);
  });

  test("the validating path refuses with a Status the API server passes on: code, reason, message, causes", async () => {
    const r = await post(KARTA_VALIDATE_PATH, review(request("CREATE", labelled(pytorch("second")))));
    assert.equal(r.status, 200);
    assert.equal(r.body.response.allowed, false);
    assert.deepEqual(
      { code: r.body.response.status.code, reason: r.body.response.status.reason, status: r.body.response.status.status, causes: r.body.response.status.details.causes },
      {
        code: 403,
        reason: "Forbidden",
        status: "Failure",
        causes: [{ type: "FieldValueDuplicate", field: "spec.structureDefinition.rootComponent.kind", message: 'a Karta for group "kubeflow.org" version "v1" kind "PyTorchJob" already exists ("first"); only one Karta per group/version/kind is allowed' }],
      },
    );
    const ok = await post(KARTA_VALIDATE_PATH, review(request("CREATE", labelled(pytorch("first")))));
    assert.deepEqual(ok.body.response, { uid: "u1", allowed: true });
  });

  test("an unknown path names the webhooks served", async () => {
    const r = await post("/validate-something", review(request("CREATE", pytorch())));
    assert.equal(r.status, 404);
    assert.match(r.body, /\/mutate-v1-pod, \/mutate-run-ai-v1alpha1-karta, \/validate-run-ai-v1alpha1-karta/);
  });
});
