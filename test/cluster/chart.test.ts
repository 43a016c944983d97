/**
 * charts/karta installed with real helm (scripts/go-tool build helm) into a real kube-apiserver of this
 * file's own (its webhook configurations are cluster-wide and it owns the Karta CRD, so not the shared
 * cluster): an older release adopts the CRD applied earlier with kubectl, `helm upgrade` to this chart
 * upgrades the CRD and keeps the self-signed certificate, `karta controller` run locally as the chart's
 * ServiceAccount does all its work (Karta status, labels, Events, Lease, Workload API objects, admission)
 * with exactly the chart's RBAC (the ClusterRole and the Lease's Role `karta rbac` prints); bad values stop `helm install` and `helm upgrade` before anything is
 * applied; an upgrade renews a self-signed certificate that is due; the commands NOTES.txt prints give
 * Karmada the configuration of the installed karta serve; `helm uninstall` keeps the CRD, the Kartas (and
 * the Lease), and a release of another name or namespace takes the CRD over as the README says. The API
 * server has no nodes: the chart's pods never run, and the webhooks are pointed at the local controller
 * instead of the Service (the chart's rules, policies and paths stay).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, parseAllDocuments, stringify } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { keepPlainJson } from "../support/kube.js";
import { compileKarta } from "../../src/scheduling/index.js";
import { definitionsDir, fixtureCases, loadBundled } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { goTool } from "../support/go-tool.js";
import { attempt, eventually, privateCluster, serviceAccountKubeConfig, type PrivateCluster } from "../support/cluster.js";
import { spawnController, type ControllerProcess } from "./helpers.js";
import { runWebhookConfig } from "../../src/cli/webhook-config.js";
import { memoryIO } from "../../src/cli/io.js";

type Obj = KubernetesObject & { metadata: Record<string, any> } & Record<string, any>;

const helmTool = goTool("helm");
const helmSkip = "skip" in helmTool ? helmTool.skip : false;
if (helmSkip) console.log(helmSkip);
const cluster = helmSkip ? helmSkip : await privateCluster();
const skip = typeof cluster === "string" ? cluster : false;

const NS = "karta-system";
const chartDir = path.join(repoRoot, "charts", "karta");

function run(file: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 16 << 20, env: options.env ? { ...process.env, ...options.env } : undefined, cwd: options.cwd }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0, stdout, stderr });
    });
  });
}

const CRD = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "kartas.run.ai" } };
const kubectl = (() => {
  try {
    execFileSync("kubectl", ["version", "--client"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** The NOTES helm printed after an install or upgrade. */
function notesOf(stdout: string): string {
  const at = stdout.indexOf("\nNOTES:\n");
  assert.ok(at >= 0, stdout);
  return stdout.slice(at + "\nNOTES:\n".length);
}

const pemOf = (secret: Obj, key: string) => Buffer.from(secret.data[key] as string, "base64").toString();
const lifetimeDays = (pem: string) => {
  const c = new X509Certificate(pem);
  return Math.round((Date.parse(c.validTo) - Date.parse(c.validFrom)) / 86_400_000);
};

describe("charts/karta: helm install into a real API server, the controller as the chart's ServiceAccount", { skip }, () => {
  const c = cluster as PrivateCluster;
  const dir = mkdtempSync(path.join(tmpdir(), "karta-chart-"));
  const helm = (...args: string[]) => run(path.join((helmTool as { dir: string }).dir, "helm"), [...args, "--kubeconfig", c.kubeconfig]);
  let controller: ControllerProcess | undefined;
  const read = (o: { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }) => c.objects.read(o) as Promise<Obj>;

  before(() => {
    // As kubectl sends CRDs: client-node's model would drop the schema's x-kubernetes-* fields.
    keepPlainJson([{ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition" }]);
  });
  after(async () => {
    controller?.child.kill("SIGKILL");
    await c?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The CRD without suspendDefinition, as an older Karta's was. */
  function olderCrd(): Obj {
    const crd = parse(readFileSync(path.join(repoRoot, "deploy", "crd", "run.ai_kartas.yaml"), "utf8")) as Obj;
    delete rootComponentSchema(crd).suspendDefinition;
    return crd;
  }
  const rootComponentSchema = (crd: Obj): Record<string, unknown> => crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.structureDefinition.properties.rootComponent.properties;

  test("an older release adopts the CRD applied with kubectl (helm install --take-ownership --server-side=false)", async () => {
    await c.objects.create(olderCrd());
    // The chart of an older Karta: its CRD without suspendDefinition.
    const older = path.join(dir, "older-chart");
    cpSync(chartDir, older, { recursive: true });
    writeFileSync(path.join(older, "files", "run.ai_kartas.yaml"), stringify(olderCrd()));
    writeFileSync(path.join(older, "Chart.yaml"), readFileSync(path.join(chartDir, "Chart.yaml"), "utf8").replace(/^version: .*$/m, "version: 0.0.1"));
    // Applied server-side, the fields kubectl set would stay another field manager's and conflict with every
    // upgrade; a client-side release (its upgrades follow) takes the object as it is.
    const installed = await helm("install", "karta", older, "--namespace", NS, "--create-namespace", "--take-ownership", "--server-side=false");
    assert.equal(installed.code, 0, installed.stderr);
    const crd = await read(CRD);
    assert.equal(rootComponentSchema(crd).suspendDefinition, undefined);
    assert.equal(crd.metadata.labels?.["app.kubernetes.io/managed-by"], "Helm");
    assert.equal(crd.metadata.annotations?.["meta.helm.sh/release-name"], "karta");
    assert.equal(crd.metadata.annotations?.["helm.sh/resource-policy"], "keep");
  });

  test("helm upgrade to this chart upgrades the CRD and keeps the self-signed certificate (the webhooks' CA stays valid)", async () => {
    const before = await read({ apiVersion: "v1", kind: "Secret", metadata: { name: "karta-controller-webhook-tls", namespace: NS } });
    const upgraded = await helm("upgrade", "karta", chartDir, "--namespace", NS);
    assert.equal(upgraded.code, 0, upgraded.stderr);
    assert.ok(rootComponentSchema(await read(CRD)).suspendDefinition, "the CRD is this chart's");
    const after = await read({ apiVersion: "v1", kind: "Secret", metadata: { name: "karta-controller-webhook-tls", namespace: NS } });
    assert.deepEqual(after.data, before.data);
    // The release's objects are there, the webhooks' CA is the generated Secret's.
    const deployment = await read({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "karta-controller", namespace: NS } });
    assert.equal(deployment.spec.template.spec.serviceAccountName, "karta-controller");
    // The preStop sleep, as the API server keeps it (not dropped as a disabled feature's field would be).
    assert.deepEqual(JSON.parse(JSON.stringify(deployment.spec.template.spec.containers[0].lifecycle)), { preStop: { sleep: { seconds: 5 } } });
    for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
      const config = await read({ apiVersion: "admissionregistration.k8s.io/v1", kind, metadata: { name: "karta-controller" } });
      for (const w of config.webhooks) assert.equal(w.clientConfig.caBundle, before.data["ca.crt"], `${kind} ${w.name}`);
    }
    // The RBAC karta rbac generates (the chart's copy of it): the ClusterRole, and the Role of the Lease in the release's namespace.
    const generated = parseAllDocuments(readFileSync(path.join(chartDir, "files", "clusterrole.yaml"), "utf8")).map((d) => d.toJSON() as Obj);
    const role = await read({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "karta-controller" } });
    assert.deepEqual(JSON.parse(JSON.stringify(role.rules)), generated.find((d) => d.kind === "ClusterRole")!.rules);
    const leases = await read({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "karta-controller", namespace: NS } });
    assert.deepEqual(JSON.parse(JSON.stringify(leases.rules)), generated.find((d) => d.kind === "Role")!.rules);
    const binding = await read({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata: { name: "karta-controller", namespace: NS } });
    assert.deepEqual(JSON.parse(JSON.stringify(binding.subjects)), [{ kind: "ServiceAccount", name: "karta-controller", namespace: NS }]);
  });

  test("karta controller, run as the chart's ServiceAccount, does all its work with the chart's RBAC", async () => {
    const kc = await serviceAccountKubeConfig(c, NS, "karta-controller");
    writeFileSync(path.join(dir, "kubeconfig"), kc.exportConfig());
    const crd = parse(readFileSync(path.join(repoRoot, "test", "fixtures", "definition", "crds", "kubeflow.org_pytorchjobs.yaml"), "utf8")) as Obj;
    await c.objects.create(crd);
    controller = spawnController([
      "--kubeconfig", path.join(dir, "kubeconfig"), "--leader-elect=true", "--leader-elect-resource-namespace", NS, "--leader-elect-resource-name", "karta-controller",
      "--metrics-bind-address", "0", "--health-probe-bind-address", "0", "--webhook-port", "0", "--cert-dir", path.join(dir, "certs"),
    ]);
    const port = await eventually(async () => controller!.line("serving the admission webhook")?.["webhookPort"] as number | undefined, 60_000, `the webhook (${controller.log()})`);
    // The chart's webhooks, reaching the local controller instead of the Service (no node runs its pods).
    const ca = Buffer.from(readFileSync(path.join(dir, "certs", "ca.crt"))).toString("base64");
    for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
      const config = await read({ apiVersion: "admissionregistration.k8s.io/v1", kind, metadata: { name: "karta-controller" } });
      config.webhooks = config.webhooks.map((w: { clientConfig: { service: { path: string } } }) => ({ ...w, clientConfig: { url: `https://127.0.0.1:${port}${w.clientConfig.service.path}`, caBundle: ca } }));
      await c.objects.replace(config);
    }
    const karta = parse(readFileSync(path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml"), "utf8")) as Obj;
    karta.metadata = { name: "pytorchjob" };
    // The API server calls the webhooks once it has read the configurations: the mutating one labels.
    const created = await eventually(async () => {
      const r = await attempt(() => c.objects.create(karta));
      if (r.ok && !(r.object as Obj).metadata.labels?.["run.ai/karta-kind"]) {
        await c.objects.delete(r.object);
        return undefined;
      }
      return r.ok ? (r.object as Obj) : undefined;
    }, 30_000, "the Karta created through the chart's webhooks");
    assert.deepEqual(created.metadata.labels, { "run.ai/karta-group": "kubeflow.org", "run.ai/karta-version": "v1", "run.ai/karta-kind": "PyTorchJob" });
    // Status and labels (kartas, kartas/status), the CRD watch, and Events for a kind not served.
    await eventually(async () => ((await read({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: "pytorchjob" } })).status?.conditions?.some((x: { type: string; status: string }) => x.type === "Ready" && x.status === "True") ? true : undefined), 30_000, "the Karta Ready");
    // Once the controller has it (it is Ready), a second Karta for its kind is refused.
    const second = structuredClone(karta);
    second.metadata = { name: "second" };
    const refused = await attempt(() => c.objects.create(second));
    assert.ok(!refused.ok && refused.message.includes('admission webhook "vkarta.run.ai" denied the request: spec.structureDefinition.rootComponent.kind: a Karta for group "kubeflow.org"'), refused.ok ? "created" : refused.message);
    const missing = structuredClone(karta);
    missing.metadata = { name: "missing" };
    missing.spec.structureDefinition.rootComponent.kind = { group: "example.karta.test", version: "v1", kind: "Missing" };
    await c.objects.create(missing);
    await eventually(async () => ((await c.objects.list("events.k8s.io/v1", "Event", "default")).items as Obj[]).find((e) => e.regarding?.name === "missing" && e.reason === "CRDNotFound"), 30_000, "the CRDNotFound Event");
    // The Lease, in the release's namespace.
    const lease = await eventually(async () => (await attempt(() => read({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "karta-controller", namespace: NS } }))), 30_000, "the Lease");
    assert.ok(lease.ok && (lease.object as Obj).spec.holderIdentity, "held");
    // A workload: its pods admitted into their groups, the Workload API objects written.
    await c.core.createNamespace({ body: { metadata: { name: "work" } } });
    const fixture = fixtureCases().find((x) => x.name === "PyTorchJob")!;
    const strip = (o: Record<string, unknown>): Obj => {
      const x = structuredClone(o) as Obj;
      x.metadata = { name: x.metadata.name, labels: x.metadata.labels, annotations: x.metadata.annotations, namespace: "work" };
      delete x.status;
      return x;
    };
    const job = await eventually(async () => {
      const r = await attempt(() => c.objects.create(strip(fixture.workload)));
      return r.ok ? (r.object as Obj) : undefined;
    }, 30_000, "the PyTorchJob created");
    await eventually(async () => (controller!.log().includes('"msg":"watching"') ? true : undefined), 30_000, "the controller watching PyTorchJobs");
    const pods: Obj[] = [];
    for (const p of fixture.pods) {
      const pod = strip(p);
      pod.metadata.ownerReferences = [{ apiVersion: job.apiVersion!, kind: job.kind!, name: job.metadata.name as string, uid: job.metadata.uid as string, controller: true }];
      pods.push((await c.objects.create(pod)) as Obj);
    }
    const expected = compileKarta(loadBundled(fixture.expected.definition).definition, job, { pods });
    assert.ok(expected.ok && expected.podPatches.length === pods.length, JSON.stringify(expected.issues));
    for (const p of expected.podPatches) assert.equal(pods.find((x) => x.metadata.name === p.pod.name)!.spec.schedulingGroup?.podGroupName, p.podGroupName, p.pod.name);
    await eventually(async () => {
      const groups = (await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", "work")).items;
      return groups.length === expected.podGroups.length ? true : undefined;
    }, 30_000, `${expected.podGroups.length} PodGroups`);
    assert.ok((await c.objects.list("scheduling.k8s.io/v1beta1", "Workload", "work")).items.length >= 1, "the Workload");
    // The Lease renewed (get, update) for a few retry periods (2 s) before the stop releases it (get, update).
    await eventually(async () => {
      const l = await read({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "karta-controller", namespace: NS } });
      return Date.parse(l.spec.renewTime) > Date.parse(l.spec.acquireTime) ? true : undefined;
    }, 30_000, "the Lease renewed");
    controller.child.kill("SIGTERM");
    assert.equal(await controller.exited, 0, controller.log().split("\n").slice(-10).join("\n"));
    assert.equal((await read({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "karta-controller", namespace: NS } })).spec.holderIdentity ?? "", "", "the Lease released");
    // Every request of the run, the PodsWithoutGroup Events listed at start and the stop's included.
    assert.doesNotMatch(controller.log(), /forbidden/i, "no request was forbidden");
  });

  test("bad values stop helm install and helm upgrade before anything is applied", async () => {
    for (const args of [
      ["--set", "controller.ports.health=8080"], // templates/validate.yaml
      ["--set", "controller.webhook.pods.timeoutSeconds=60"], // values.schema.json
      ["--set", "certificates.selfSigned.days=0"],
    ]) {
      const installed = await helm("install", "karta-bad", chartDir, "--namespace", "karta-bad", "--create-namespace", ...args);
      assert.notEqual(installed.code, 0, args.join(" "));
      assert.ok(!(await attempt(() => read({ apiVersion: "v1", kind: "Namespace", metadata: { name: "karta-bad" } }))).ok, `${args.join(" ")}: not even the namespace is created`);
      const upgraded = await helm("upgrade", "karta", chartDir, "--namespace", NS, ...args);
      assert.notEqual(upgraded.code, 0, args.join(" "));
    }
    const history = JSON.parse((await helm("history", "karta", "--namespace", NS, "-o", "json")).stdout) as { status: string }[];
    assert.ok(!history.some((h) => h.status === "failed"), JSON.stringify(history));
  });

  test("an upgrade renews a self-signed certificate that is due (fewer than 30 days left, or no record); the caBundle trusts the old CA as well until the pods have the new one", async () => {
    const controllerSecret = { apiVersion: "v1", kind: "Secret", metadata: { name: "karta-controller-webhook-tls", namespace: NS } };
    const serveSecret = { apiVersion: "v1", kind: "Secret", metadata: { name: "karta-webhook-serving", namespace: NS } };
    const caBundle = async (): Promise<string> => {
      const bundles = new Set<string>();
      for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
        for (const w of (await read({ apiVersion: "admissionregistration.k8s.io/v1", kind, metadata: { name: "karta-controller" } })).webhooks) bundles.add(w.clientConfig.caBundle);
      }
      assert.equal(bundles.size, 1);
      return Buffer.from([...bundles][0]!, "base64").toString();
    };
    const withoutRecord = async (ref: typeof controllerSecret) => {
      const secret = await read(ref);
      const annotations = (secret.metadata.annotations ?? {}) as Record<string, string>;
      for (const k of Object.keys(annotations)) if (k.startsWith("karta.run.ai/")) delete annotations[k];
      await c.objects.replace(secret);
    };
    const upgrade = async (...args: string[]) => {
      const r = await helm("upgrade", "karta", chartDir, "--namespace", NS, "--set", "serve.enabled=true", ...args);
      assert.equal(r.code, 0, r.stderr);
      return notesOf(r.stdout);
    };
    // The controller's test pointed the webhooks at the local controller by URL: the chart's upgrade writes them again.
    for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) await c.objects.delete({ apiVersion: "admissionregistration.k8s.io/v1", kind, metadata: { name: "karta-controller" } });
    // A Secret as the chart's first version made it: no record of what it holds. The chart renews it, here for 20 days.
    const first = await read(controllerSecret);
    await withoutRecord(controllerSecret);
    await upgrade("--set", "certificates.selfSigned.days=20", "--set", "certificates.selfSigned.caDays=20");
    const second = await read(controllerSecret);
    assert.notEqual(pemOf(second, "tls.crt"), pemOf(first, "tls.crt"));
    assert.equal(lifetimeDays(pemOf(second, "tls.crt")), 20);
    assert.ok(second.metadata.annotations?.["karta.run.ai/certificate-sha256"]);
    assert.equal(await caBundle(), pemOf(second, "ca.crt") + pemOf(first, "ca.crt"));
    const serve20 = await read(serveSecret);
    assert.equal(lifetimeDays(pemOf(serve20, "tls.crt")), 20);
    // Fewer than 30 days left: the next upgrade renews both, and tells that Karmada needs karta serve's new CA.
    const notes = await upgrade();
    const third = await read(controllerSecret);
    assert.notEqual(pemOf(third, "tls.crt"), pemOf(second, "tls.crt"));
    assert.equal(lifetimeDays(pemOf(third, "tls.crt")), 3650);
    assert.equal(await caBundle(), pemOf(third, "ca.crt") + pemOf(second, "ca.crt"));
    assert.notEqual(pemOf(await read(serveSecret), "ca.crt"), pemOf(serve20, "ca.crt"));
    assert.match(notes, /this release\n {2}# made a new CA, so give the Karmada API server the configuration again/);
    // Then kept, the caBundle now the CA alone.
    assert.doesNotMatch(await upgrade(), /made a new CA/);
    assert.deepEqual((await read(controllerSecret)).data, third.data);
    assert.equal(await caBundle(), pemOf(third, "ca.crt"));
    // karta serve's Secret without a record is kept: its CA is in the Karmada API server's configuration.
    const serve = await read(serveSecret);
    await withoutRecord(serveSecret);
    assert.doesNotMatch(await upgrade(), /made a new CA/);
    assert.deepEqual((await read(serveSecret)).data, serve.data);
  });

  test("the commands NOTES.txt prints give the Karmada API server the configuration of the installed karta serve", { skip: kubectl ? false : "kubectl is not installed" }, async () => {
    // A Karta and a customization for kinds Karta does not bundle, so that both flags change the configuration.
    const karta = parse(readFileSync(path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml"), "utf8")) as Obj;
    karta.metadata = { name: "example-karta-test-v1-widget" };
    karta.spec.structureDefinition.rootComponent.kind = { group: "example.karta.test", version: "v1", kind: "Widget" };
    const customization = {
      apiVersion: "config.karmada.io/v1alpha1",
      kind: "ResourceInterpreterCustomization",
      metadata: { name: "gadget" },
      spec: { target: { apiVersion: "example.karta.test/v1", kind: "Gadget" }, customizations: { replicaResource: { luaScript: "function GetReplicas(obj)\n  return obj.spec.replicas, {}\nend\n" } } },
    };
    const work = path.join(dir, "notes");
    writeFileSync(path.join(dir, "widget.yaml"), stringify(karta));
    writeFileSync(path.join(dir, "gadget.yaml"), stringify(customization));
    const r = await helm("upgrade", "karta", chartDir, "--namespace", NS, "--set", "serve.enabled=true", "--set-file", `serve.definitions.widget\\.yaml=${path.join(dir, "widget.yaml")}`, "--set-file", `serve.customizations.gadget\\.yaml=${path.join(dir, "gadget.yaml")}`);
    assert.equal(r.code, 0, r.stderr);
    // The block after "Give the Karmada API server its configuration", run as printed, with kubectl
    // reaching this API server and the configuration written to a file instead of a Karmada API server.
    const notes = notesOf(r.stdout);
    const block = notes.slice(notes.indexOf("\n", notes.indexOf("Give the Karmada")));
    const lines = block.split("\n").slice(2).filter((l) => l.startsWith("  "));
    const script = lines.join("\n").replace("| kubectl --kubeconfig karmada-apiserver.config apply -f -", "> karmada.yaml");
    assert.match(script, /karta webhook-config .*--definitions karta-definitions/);
    mkdirSync(work, { recursive: true });
    const ran = await run("bash", ["-c", `set -euo pipefail\nkarta() { node ${JSON.stringify(path.join(repoRoot, "bin", "karta.js"))} "$@"; }\n${script}`], { cwd: work, env: { KUBECONFIG: c.kubeconfig } });
    assert.equal(ran.code, 0, `${script}\n${ran.stderr}`);
    const ca = path.join(dir, "serve-ca.crt");
    writeFileSync(ca, pemOf(await read({ apiVersion: "v1", kind: "Secret", metadata: { name: "karta-webhook-serving", namespace: NS } }), "ca.crt"));
    const io = memoryIO();
    assert.equal(await runWebhookConfig(["--service-name", "karta-webhook", "--service-namespace", NS, "--ca-file", ca, "--definitions", path.join(dir, "widget.yaml"), "--customizations", path.join(dir, "gadget.yaml")], io), 0, io.err);
    const got = readFileSync(path.join(work, "karmada.yaml"), "utf8");
    assert.deepEqual(parse(got), parse(io.out));
    assert.match(got, /- Widget/);
    assert.match(got, /- Gadget/);
  });

  test("helm uninstall removes the release and keeps the CRD and the Kartas", async () => {
    const removed = await helm("uninstall", "karta", "--namespace", NS);
    assert.equal(removed.code, 0, removed.stderr);
    assert.ok((await attempt(() => read(CRD))).ok, "the CRD is kept");
    assert.ok((await attempt(() => read({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: "pytorchjob" } }))).ok, "the Karta is kept");
    assert.ok(!(await attempt(() => read({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "karta-controller", namespace: NS } }))).ok, "the Deployment is gone");
    // The controller's Lease is not the chart's: it stays (the README says how to delete it).
    assert.ok((await attempt(() => read({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "karta-controller", namespace: NS } }))).ok, "the Lease is left behind");
  });

  test("a release of another name or namespace takes the kept CRD over with --take-ownership, or once the CRD is annotated for it", async () => {
    const refused = await helm("install", "karta-ops", chartDir, "--namespace", "karta-ops", "--create-namespace");
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /CustomResourceDefinition "kartas\.run\.ai".*exists and cannot be imported into the current release/);
    const adopted = await helm("install", "karta-ops", chartDir, "--namespace", "karta-ops", "--create-namespace", "--take-ownership");
    assert.equal(adopted.code, 0, adopted.stderr);
    const crd = await read(CRD);
    assert.deepEqual([crd.metadata.annotations?.["meta.helm.sh/release-name"], crd.metadata.annotations?.["meta.helm.sh/release-namespace"]], ["karta-ops", "karta-ops"]);
    assert.ok((await attempt(() => read({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: "pytorchjob" } }))).ok, "the Karta is kept");
    assert.equal((await helm("uninstall", "karta-ops", "--namespace", "karta-ops")).code, 0);
    // Or: annotate the CRD for the new release (kubectl annotate crd kartas.run.ai meta.helm.sh/release-name=... --overwrite).
    const kept = await read(CRD);
    kept.metadata.annotations = { ...kept.metadata.annotations, "meta.helm.sh/release-name": "karta", "meta.helm.sh/release-namespace": NS };
    await c.objects.replace(kept);
    const reinstalled = await helm("install", "karta", chartDir, "--namespace", NS);
    assert.equal(reinstalled.code, 0, reinstalled.stderr);
    assert.equal((await helm("uninstall", "karta", "--namespace", NS)).code, 0);
  });
});
