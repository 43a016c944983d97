/**
 * charts/karta installed with real helm (scripts/go-tool build helm) into a real kube-apiserver of this
 * file's own (its webhook configurations are cluster-wide and it owns the Karta CRD, so not the shared
 * cluster): an older release adopts the CRD applied earlier with kubectl, `helm upgrade` to this chart
 * upgrades the CRD and keeps the self-signed certificate, `karta controller` run locally as the chart's
 * ServiceAccount does all its work (Karta status, labels, Events, Lease, Workload API objects, admission)
 * with exactly the chart's RBAC (the ClusterRole and the Lease's Role `karta rbac` prints), and `helm uninstall` keeps the CRD and the Kartas. The API server has no
 * nodes: the chart's pods never run, and the webhooks are pointed at the local controller instead of the
 * Service (the chart's rules, policies and paths stay).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

type Obj = KubernetesObject & { metadata: Record<string, any> } & Record<string, any>;

const helmTool = goTool("helm");
const helmSkip = "skip" in helmTool ? helmTool.skip : false;
if (helmSkip) console.log(helmSkip);
const cluster = helmSkip ? helmSkip : await privateCluster();
const skip = typeof cluster === "string" ? cluster : false;

const NS = "karta-system";
const chartDir = path.join(repoRoot, "charts", "karta");

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0, stdout, stderr });
    });
  });
}

const CRD = { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: "kartas.run.ai" } };

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

  test("helm uninstall removes the release and keeps the CRD and the Kartas", async () => {
    const removed = await helm("uninstall", "karta", "--namespace", NS);
    assert.equal(removed.code, 0, removed.stderr);
    assert.ok((await attempt(() => read(CRD))).ok, "the CRD is kept");
    assert.ok((await attempt(() => read({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: "pytorchjob" } }))).ok, "the Karta is kept");
    assert.ok(!(await attempt(() => read({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "karta-controller", namespace: NS } }))).ok, "the Deployment is gone");
  });
});
