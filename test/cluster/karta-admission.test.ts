/**
 * Admission of Karta objects against a real kube-apiserver: `karta controller` runs as a process (as the
 * service account bound to the role `karta rbac` generates, with a self-signed certificate), the API
 * server calls its mkarta.run.ai and vkarta.run.ai webhooks over TLS through the configurations `karta
 * webhook-config --admission` prints, and a user applies Kartas with kubectl: an invalid one is refused
 * with exactly the errors `karta validate` prints for the same file, a second Karta for a root kind too,
 * the root kind cannot change, the managed labels cannot be edited or removed, and a good Karta is
 * labelled on creation. Other test files share the API server: only Kartas labelled for this run are
 * routed to the webhooks (an objectSelector), and their root kinds are in a group of this run's own.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, stringify } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { controllerRbac } from "../../src/controller/rbac.js";
import { controllerAdmissionConfigurations } from "../../src/controller/admission-config.js";
import type { Karta } from "../../src/definition/index.js";
import { definitionsDir } from "../bundled/helpers.js";
import { kartaBin } from "../support/conformance.js";
import { asServiceAccount, attempt, eventually, testCluster, testNamespace, type TestCluster } from "../support/cluster.js";
import { installKartaCrd, spawnController, type ControllerProcess } from "./helpers.js";

type Obj = KubernetesObject & { metadata: Record<string, any> } & Record<string, any>;

const cluster = await testCluster();
const kubectlMissing = await new Promise<string | false>((resolve) =>
  execFile("kubectl", ["version", "--client"], (err) => resolve(err && (err as NodeJS.ErrnoException).code === "ENOENT" ? "kubectl is not installed: the Karta admission is not tested as a user applies Kartas" : false)),
);
const skip = typeof cluster === "string" ? cluster : kubectlMissing;
if (skip) console.log(`# skipped: ${skip}`);

const suffix = Math.random().toString(36).slice(2, 8);
const group = `admission-${suffix}.karta.test`;
const selector = { "karta.test/admission": suffix };

function run(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...process.env, ...env }, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0, stdout, stderr });
    });
  });
}

/** The bundled PyTorchJob Karta for a kind of this run's group, labelled for this run's webhooks. */
function karta(name: string): Obj {
  const k = parse(readFileSync(path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml"), "utf8")) as Obj;
  k.metadata = { name, labels: { ...selector } };
  k.spec.structureDefinition.rootComponent.kind.group = group;
  return k;
}

/** A Karta with two errors of the reference validator and a jq syntax error. */
function invalid(name: string): Obj {
  const k = karta(name);
  k.spec.structureDefinition.rootComponent.ownerRef = "nobody";
  k.spec.structureDefinition.childComponents[0].ownerRef = "missing";
  k.spec.structureDefinition.rootComponent.statusDefinition.conditionsDefinition.path = ".status.conditions[";
  return k;
}

const DENIED = 'admission webhook "vkarta.run.ai" denied the request: ';

/** The lines of a refusal as kubectl prints it (after the webhook's prefix). */
function deniedLines(stderr: string): string[] {
  const at = stderr.indexOf(DENIED);
  assert.ok(at >= 0, stderr);
  return stderr.slice(at + DENIED.length).trimEnd().split("\n");
}

describe("Karta admission: the API server calls karta controller's webhooks over TLS", { skip }, () => {
  const c = cluster as TestCluster;
  const dir = mkdtempSync(path.join(tmpdir(), "karta-karta-admission-"));
  const configName = `karta-admission-${suffix}`;
  const names = { bad: `bad-${suffix}`, good: `good-${suffix}`, second: `second-${suffix}`, stored: `stored-${suffix}` };
  let controller: ControllerProcess;
  const kubectl = (...args: string[]) => run("kubectl", args, { KUBECONFIG: c.kubeconfig });
  const validate = (...files: string[]) => run(process.execPath, [kartaBin, "validate", ...files]);
  const file = (name: string, k: Obj | Obj[]): string => {
    const f = path.join(dir, `${name}.yaml`);
    writeFileSync(f, (Array.isArray(k) ? k : [k]).map((x) => stringify(x)).join("---\n"));
    return f;
  };
  const read = (name: string) => c.objects.read({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name } }) as Promise<Obj>;

  before(async () => {
    await installKartaCrd(c);
    const ns = await testNamespace({ name: "karta-admission" } as never, c);
    const { kc } = await asServiceAccount(c, ns, controllerRbac([karta("x")] as unknown as Karta[], { namespace: ns }));
    writeFileSync(path.join(dir, "kubeconfig"), kc.exportConfig());
    controller = spawnController(["--kubeconfig", path.join(dir, "kubeconfig"), "--leader-elect=false", "--metrics-bind-address", "0", "--health-probe-bind-address", "0", "--webhook-port", "0", "--cert-dir", path.join(dir, "certs")]);
    const port = await eventually(async () => controller.line("serving the admission webhook")?.["webhookPort"] as number | undefined, 60_000, `the webhook (${controller.log()})`);
    const [mutating, validating] = controllerAdmissionConfigurations({
      name: configName,
      target: { url: `https://127.0.0.1:${port}` },
      caPem: readFileSync(path.join(dir, "certs", "ca.crt"), "utf8"),
      timeoutSeconds: 5,
      controllerNamespace: "karta-system",
    }) as unknown as Obj[];
    // Only the Karta webhooks, only for this run's Kartas.
    mutating!.webhooks = mutating!.webhooks.filter((w: { name: string }) => w.name === "mkarta.run.ai");
    for (const config of [mutating!, validating!]) {
      for (const w of config.webhooks) w.objectSelector = { matchLabels: selector };
      await c.objects.create(config);
    }
    // The API server reads webhook configurations from its own cache: wait until it calls ours.
    await eventually(async () => {
      const r = await attempt(() => c.objects.create(invalid(`probe-${suffix}`)));
      if (r.ok) await attempt(() => c.objects.delete(r.object));
      return !r.ok && r.message.includes(DENIED) ? true : undefined;
    }, 30_000, "the API server calling the webhook");
  });

  after(async () => {
    for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) await attempt(() => c.objects.delete({ apiVersion: "admissionregistration.k8s.io/v1", kind, metadata: { name: configName } }));
    controller?.child.kill("SIGTERM");
    await controller?.exited;
    for (const name of Object.values(names)) await attempt(() => c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name } }));
    rmSync(dir, { recursive: true, force: true });
  });

  test("kubectl apply of an invalid Karta fails with the errors karta validate prints for the file, word for word", async () => {
    const f = file("bad", invalid(names.bad));
    const checked = await validate(f);
    assert.equal(checked.code, 1, checked.stdout);
    const expected = checked.stdout.split("\n").filter((l) => l.includes(": error: ")).map((l) => l.slice(l.indexOf(": error: ") + ": error: ".length));
    assert.equal(expected.length, 3, checked.stdout);
    const applied = await kubectl("apply", "-f", f);
    assert.equal(applied.code, 1, applied.stdout);
    assert.match(applied.stderr, /^Error from server \(Forbidden\): error when creating ".*bad\.yaml": /);
    assert.deepEqual(deniedLines(applied.stderr).sort(), expected.sort());
    assert.equal((await attempt(() => read(names.bad))).ok, false, "nothing stored");
    // Through the API: the Status keeps every error's field path.
    const r = await attempt(() => c.objects.create(invalid(names.bad)));
    assert.ok(!r.ok);
    assert.deepEqual([r.code, r.reason], [403, "Forbidden"]);
    assert.deepEqual(r.causes.map((x) => `${x.field}: ${x.message}`).sort(), expected.sort());
  });

  test("a valid Karta is created, labelled with its root kind by the mutating webhook, and lint warnings reach kubectl", async () => {
    const k = karta(names.good);
    k.spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running.push({ byConditions: [{ type: "Created" }] });
    const applied = await kubectl("apply", "-f", file("good", k));
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stderr, /^Warning: spec\.structureDefinition\.rootComponent\.statusDefinition\.statusMappings\.running\[\d+\]\.byConditions\[0\]: at least one of status or reason must be used$/m);
    const stored = await read(names.good);
    assert.deepEqual(stored.metadata.labels, { ...selector, "run.ai/karta-group": group, "run.ai/karta-version": "v1", "run.ai/karta-kind": "PyTorchJob" });
    // The stamp came with the create (the controller would add it later): the create's answer has it.
    const v2 = karta(names.second);
    v2.spec.structureDefinition.rootComponent.kind.version = "v2";
    const created = (await c.objects.create(v2)) as Obj;
    assert.equal(created.metadata.labels?.["run.ai/karta-version"], "v2");
    await c.objects.delete(created);
  });

  test("a second Karta for the root kind is refused with upstream's message, which karta validate gives for the two files", async () => {
    const first = file("first", karta(names.good));
    const second = file("second", karta(names.second));
    // The check reads the controller's cache: once the first Karta has a status, the controller has it.
    await eventually(async () => ((await read(names.good)).status?.conditions?.length ? true : undefined), 30_000, "the first Karta reconciled");
    const message = `spec.structureDefinition.rootComponent.kind: a Karta for group "${group}" version "v1" kind "PyTorchJob" already exists ("${names.good}"); only one Karta per group/version/kind is allowed`;
    const applied = await kubectl("apply", "-f", second);
    assert.equal(applied.code, 1, applied.stdout);
    assert.deepEqual(deniedLines(applied.stderr), [message]);
    const checked = await validate(first, second);
    assert.equal(checked.code, 1);
    assert.match(checked.stdout, new RegExp(`second\\.yaml:\\d+:\\d+: error: ${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  });

  test("an update may not change the root kind, nor edit or remove a managed label", async () => {
    const moved = karta(names.good);
    moved.spec.structureDefinition.rootComponent.kind.version = "v2";
    const applied = await kubectl("apply", "-f", file("moved", moved));
    assert.equal(applied.code, 1, applied.stdout);
    // Only that: the labels, left as they were, are not told to equal the kind refused.
    assert.deepEqual(deniedLines(applied.stderr), ["spec.structureDefinition.rootComponent.kind: the root component GVK is immutable and cannot be changed after creation"], applied.stderr);
    const removed = await kubectl("label", "karta", names.good, "run.ai/karta-kind-");
    assert.equal(removed.code, 1, removed.stdout);
    assert.deepEqual(deniedLines(removed.stderr), ['metadata.labels["run.ai/karta-kind"]: label "run.ai/karta-kind" is managed by the operator and must equal "PyTorchJob"; it cannot be edited or removed']);
    const edited = await kubectl("label", "--overwrite", "karta", names.good, "run.ai/karta-group=elsewhere");
    assert.equal(edited.code, 1, edited.stdout);
    assert.match(edited.stderr, /label "run\.ai\/karta-group" is managed by the operator and must equal "admission-/);
    assert.equal((await read(names.good)).metadata.labels?.["run.ai/karta-group"], group);
  });

  test("a Karta stored before the webhook (invalid) can still be labelled and annotated, not edited while invalid; Validated says why", async () => {
    const k = invalid(names.stored);
    k.metadata.labels = {}; // not routed to the webhook: as if stored before it was installed
    await c.objects.create(k);
    const stamped = await eventually(async () => {
      const got = await read(names.stored);
      return got.metadata.labels?.["run.ai/karta-kind"] === "PyTorchJob" && got.status?.conditions?.some((x: { type: string; reason: string }) => x.type === "Validated" && x.reason === "ValidationFailed") ? got : undefined;
    }, 30_000, "the controller's labels and status on the stored Karta");
    assert.match(stamped.status.conditions.find((x: { type: string }) => x.type === "Validated").message, /^spec\.structureDefinition\.childComponents\[0\]\.ownerRef: /m);
    const labelled = await kubectl("label", "karta", names.stored, `karta.test/admission=${suffix}`);
    assert.equal(labelled.code, 0, labelled.stderr);
    const annotated = await kubectl("annotate", "karta", names.stored, "team=ml");
    assert.equal(annotated.code, 0, annotated.stderr);
    const patched = await kubectl("patch", "karta", names.stored, "--type", "merge", "-p", JSON.stringify({ spec: { structureDefinition: { rootComponent: { name: "renamed" } } } }));
    assert.equal(patched.code, 1, patched.stdout);
    assert.ok(deniedLines(patched.stderr).includes("spec.structureDefinition.rootComponent.ownerRef: root component cannot have owner ref"), patched.stderr);
  });
});
