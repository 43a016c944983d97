/**
 * `karta controller`'s admission webhook against a real kube-apiserver: the controller runs as a process,
 * as the service account bound to the ClusterRole `karta rbac` generates, with a self-signed certificate
 * (--cert-dir); the API server calls it through the MutatingWebhookConfiguration `karta webhook-config
 * --admission` prints (a URL clientConfig with the generated CA). Pods created as the operators create
 * them (a PyTorchJob's directly, a LeaderWorkerSet's through StatefulSets, one of them owned by the leader
 * pod, a JobSet's through Jobs; the bare API server has no controller-manager, so the test creates the
 * objects in between) are admitted with the podGroupName `karta compile` gives them, and the groups exist
 * with compile's gang sizes. With the controller stopped, failurePolicy Ignore still admits pods.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import https from "node:https";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { controllerRbac } from "../../src/controller/rbac.js";
import { keepPlainJson } from "../support/kube.js";
import { admissionWebhookConfiguration } from "../../src/server/webhook-config.js";
import type { Karta } from "../../src/definition/index.js";
import { compileKarta } from "../../src/scheduling/index.js";
import { definitionsDir, fixtureCases, loadBundled } from "../bundled/helpers.js";
import { kartaBin, repoRoot } from "../support/conformance.js";
import { asServiceAccount, attempt, eventually, testCluster, type TestCluster } from "../support/cluster.js";
import { installKartaCrd } from "./helpers.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;
const suffix = Math.random().toString(36).slice(2, 8);

type Obj = KubernetesObject & Record<string, any>;

function strip(o: Record<string, unknown>, namespace: string): Obj {
  const c = structuredClone(o) as Obj;
  for (const k of ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"]) delete (c.metadata as Record<string, unknown>)[k];
  delete c.status;
  c.metadata!.namespace = namespace;
  return c;
}

function ownerRef(o: Obj): { apiVersion: string; kind: string; name: string; uid: string; controller: true; blockOwnerDeletion: true } {
  return { apiVersion: o.apiVersion!, kind: o.kind!, name: o.metadata!.name!, uid: o.metadata!.uid!, controller: true, blockOwnerDeletion: true };
}

function gangSizes(groups: { metadata?: { name?: string }; spec?: { schedulingPolicy?: { gang?: { minCount?: number } } } }[]): Record<string, number | undefined> {
  return Object.fromEntries(groups.map((g) => [g.metadata!.name!, g.spec?.schedulingPolicy?.gang?.minCount]).sort());
}


/** The LeaderWorkerSet CRD (no bundled manifest): the kind served, its schema left open. */
const LWS_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "leaderworkersets.leaderworkerset.x-k8s.io" },
  spec: {
    group: "leaderworkerset.x-k8s.io",
    scope: "Namespaced",
    names: { kind: "LeaderWorkerSet", plural: "leaderworkersets", singular: "leaderworkerset", listKind: "LeaderWorkerSetList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: { spec: { type: "object", "x-kubernetes-preserve-unknown-fields": true }, status: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
          },
        },
      },
    ],
  },
};

const podTemplate = (labels: Record<string, string>) => ({ metadata: { labels }, spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } });

describe("karta controller: the pod admission webhook, as the role karta rbac generates", { skip }, () => {
  const c = cluster as TestCluster;
  const dir = mkdtempSync(path.join(tmpdir(), "karta-admission-"));
  const ns = `admission-${suffix}`;
  const webhookName = `karta-admission-${suffix}`;
  const kinds = ["kubeflow.org/v1/PyTorchJob.yaml", "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet.yaml", "jobset.x-k8s.io/v1alpha2/JobSet.yaml"];
  const kartaNames = kinds.map((k) => `admission-${path.basename(k, ".yaml").toLowerCase()}-${suffix}`);
  let child: ChildProcess | undefined;
  let exited: Promise<number | null>;
  let err = "";
  let metricsPort = 0;

  before(async () => {
    await installKartaCrd(c);
    for (const file of ["kubeflow.org_pytorchjobs.yaml", "jobset.x-k8s.io_jobsets.yaml"]) {
      const crd = parse(readFileSync(path.join(repoRoot, "test", "fixtures", "definition", "crds", file), "utf8")) as KubernetesObject;
      const r = await attempt(() => c.objects.create(crd));
      assert.ok(r.ok || r.reason === "AlreadyExists", r.ok ? "" : r.message);
    }
    // client-node's CRD model would drop x-kubernetes-preserve-unknown-fields (its field is named otherwise):
    // this CRD goes as plain JSON. Only after the Karta CRD is installed as every test file installs it.
    keepPlainJson([{ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition" }]);
    const r = await attempt(() => c.objects.create(LWS_CRD as KubernetesObject));
    assert.ok(r.ok || r.reason === "AlreadyExists", r.ok ? "" : r.message);
    // Only this test's namespace is routed to the webhook: other test files share the API server.
    await c.core.createNamespace({ body: { metadata: { name: ns, labels: { "karta.test/admission": suffix } } } });
    const kartas = kinds.map((k, i) => {
      const karta = parse(readFileSync(path.join(definitionsDir, k), "utf8")) as Obj;
      karta.metadata = { name: kartaNames[i] };
      return karta;
    });
    const { kc } = await asServiceAccount(c, ns, controllerRbac(kartas as unknown as Karta[], { namespace: ns }));
    const kubeconfig = path.join(dir, "kubeconfig");
    writeFileSync(kubeconfig, kc.exportConfig());
    child = spawn(
      process.execPath,
      [kartaBin, "controller", "--kubeconfig", kubeconfig, "--leader-elect=false", "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "0",
        "--webhook-port", "0", "--cert-dir", path.join(dir, "certs")],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
    exited = new Promise((resolve) => child!.on("exit", (code) => resolve(code)));
    const line = (msg: string) => err.split("\n").find((l) => l.includes(`"msg":"${msg}"`));
    const port = await eventually(async () => {
      const l = line("serving the admission webhook");
      return l ? (JSON.parse(l) as { webhookPort: number }).webhookPort : undefined;
    }, 60_000, `the webhook (stderr: ${err})`);
    metricsPort = (JSON.parse(line("serving endpoints")!) as { metricsPort: number }).metricsPort;
    const config = admissionWebhookConfiguration({
      name: webhookName,
      target: { url: `https://127.0.0.1:${port}/mutate-v1-pod` },
      caPem: readFileSync(path.join(dir, "certs", "ca.crt"), "utf8"),
      timeoutSeconds: 5,
      controllerNamespace: "karta-system",
    }) as Obj;
    config.webhooks[0].namespaceSelector.matchLabels = { "karta.test/admission": suffix };
    await c.objects.create(config);
    for (const k of kartas) await c.objects.create(k);
    // Ready, and the controller watching each kind (its log says so once the kinds in between are watched too).
    for (const name of kartaNames) {
      await eventually(async () => (err.split("\n").some((l) => l.includes('"msg":"watching"') && l.includes(`"karta":"${name}"`)) ? true : undefined), 60_000, `the controller watching ${name}`);
    }
  });

  after(async () => {
    child?.kill("SIGKILL");
    await attempt(() => c.objects.delete({ apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration", metadata: { name: webhookName } }));
    for (const name of kartaNames) await attempt(() => c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name } }));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every pod was admitted with the group compile gives it, and the groups exist with compile's gang sizes. */
  async function checkAdmitted(kind: string, definition: Karta | ReturnType<typeof loadBundled>["definition"], root: Obj, pods: Obj[], owners: Obj[]): Promise<void> {
    const expected = compileKarta(definition, root, { pods, owners });
    assert.ok(expected.ok, JSON.stringify(expected.issues));
    assert.equal(expected.podPatches.length, pods.length, `compile puts every ${kind} pod in a group: ${JSON.stringify(expected.issues)}`);
    for (const p of expected.podPatches) {
      const pod = pods.find((x) => x.metadata!.name === p.pod.name)!;
      assert.equal(pod.spec?.schedulingGroup?.podGroupName, p.podGroupName, `${kind} pod ${p.pod.name} admitted with its podGroupName`);
    }
    const want = gangSizes([...expected.podGroups]);
    await eventually(async () => {
      const list = (await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", ns)).items as Obj[];
      const mine = list.filter((g) => g.metadata?.ownerReferences?.some((r: { uid: string }) => r.uid === root.metadata!.uid));
      return JSON.stringify(gangSizes(mine)) === JSON.stringify(want) ? true : undefined;
    }, 30_000, `the ${kind}'s PodGroups with gang sizes ${JSON.stringify(want)}`);
  }

  let pytorchJob: Obj | undefined;

  test("a PyTorchJob's pods, created as the training operator creates them, get their podGroupName", async () => {
    const fixture = fixtureCases().find((x) => x.name === "PyTorchJob")!;
    const job = (await c.objects.create(strip(fixture.workload, ns))) as Obj;
    pytorchJob = job;
    const pods: Obj[] = [];
    for (const p of fixture.pods) {
      const pod = strip(p, ns);
      pod.metadata!.ownerReferences = [ownerRef(job)];
      pods.push((await c.objects.create(pod)) as Obj);
    }
    await checkAdmitted("PyTorchJob", loadBundled(fixture.expected.definition).definition, job, pods, []);
  });

  test("a LeaderWorkerSet's pods, through its StatefulSet and the leader pods' worker StatefulSets, get theirs", async () => {
    const fixture = fixtureCases().find((x) => x.name === "LeaderWorkerSet")!;
    const lws = (await eventually(async () => {
      const r = await attempt(() => c.objects.create(strip(fixture.workload, ns)));
      return r.ok ? r.object : undefined;
    }, 30_000, "the LeaderWorkerSet CRD to serve")) as Obj;
    const sets = new Map<string, Obj>();
    const pods: Obj[] = [];
    for (const p of fixture.pods) {
      const stsName = (p.metadata as Obj["metadata"])!.ownerReferences![0]!.name;
      if (!sets.has(stsName)) {
        // LeaderWorkerSet's own layout: the leaders' StatefulSet is owned by the set, each group's workers' by its leader pod.
        const owner = stsName === lws.metadata!.name ? lws : pods.find((x) => x.metadata!.name === stsName)!;
        assert.ok(owner, `the owner of StatefulSet ${stsName}`);
        const labels = { "karta.test/sts": stsName };
        const sts = { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: stsName, namespace: ns, ownerReferences: [ownerRef(owner)] }, spec: { replicas: 1, selector: { matchLabels: labels }, template: { ...podTemplate(labels), spec: { containers: [{ name: "c", image: "busybox" }] } } } };
        sets.set(stsName, (await c.objects.create(sts as Obj)) as Obj);
      }
      const pod = strip(p, ns);
      pod.metadata!.ownerReferences = [ownerRef(sets.get(stsName)!)];
      pods.push((await c.objects.create(pod)) as Obj);
    }
    await checkAdmitted("LeaderWorkerSet", loadBundled(fixture.expected.definition).definition, lws, pods, [...sets.values()]);
  });

  test("a JobSet's pods, through its Jobs, get theirs", async () => {
    const fixture = fixtureCases().find((x) => x.name === "JobSet")!;
    const jobset = (await c.objects.create(strip(fixture.workload, ns))) as Obj;
    const jobs = new Map<string, Obj>();
    const pods: Obj[] = [];
    for (const p of fixture.pods) {
      const jobName = (p.metadata as Obj["metadata"])!.ownerReferences![0]!.name;
      if (!jobs.has(jobName)) {
        const job = { apiVersion: "batch/v1", kind: "Job", metadata: { name: jobName, namespace: ns, ownerReferences: [ownerRef(jobset)] }, spec: { template: podTemplate({ "karta.test/job": jobName }) } };
        jobs.set(jobName, (await c.objects.create(job as Obj)) as Obj);
      }
      const pod = strip(p, ns);
      pod.metadata!.ownerReferences = [ownerRef(jobs.get(jobName)!)];
      pods.push((await c.objects.create(pod)) as Obj);
    }
    await checkAdmitted("JobSet", loadBundled(fixture.expected.definition).definition, jobset, pods, [...jobs.values()]);
  });

  test("other pods pass unchanged, and the webhook's latency is in /metrics", async () => {
    const pod = (await c.objects.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "standalone", namespace: ns }, spec: { containers: [{ name: "c", image: "busybox" }] } } as Obj)) as Obj;
    assert.equal(pod.spec.schedulingGroup, undefined);
    const named = (await c.objects.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "named", namespace: ns }, spec: { schedulingGroup: { podGroupName: "mine" }, containers: [{ name: "c", image: "busybox" }] } } as Obj)) as Obj;
    assert.equal(named.spec.schedulingGroup.podGroupName, "mine");
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const count = /^controller_runtime_webhook_latency_seconds_count\{webhook="\/mutate-v1-pod"\} (\d+)/m.exec(metrics);
    assert.ok(count && Number(count[1]) >= 1 + 1 + 4, metrics);
    assert.match(metrics, /^karta_pod_admissions_total\{outcome="patched"\} \d+/m);
  });

  test("a replica that does not hold the Lease serves the webhook from its own caches, and writes nothing", async (t) => {
    assert.ok(pytorchJob, "the PyTorchJob test ran");
    // Someone else holds the Lease for an hour: this replica stays a follower.
    const now = new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
    await c.objects.create({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "karta-controller", namespace: ns }, spec: { holderIdentity: "another-replica", leaseDurationSeconds: 3600, acquireTime: now, renewTime: now } } as Obj);
    const follower = spawn(
      process.execPath,
      [kartaBin, "controller", "--kubeconfig", path.join(dir, "kubeconfig"), "--leader-elect=true", "--leader-elect-resource-namespace", ns, "--metrics-bind-address", "127.0.0.1:0",
        "--health-probe-bind-address", "127.0.0.1:0", "--webhook-port", "0", "--cert-dir", path.join(dir, "certs-follower")],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    follower.stderr!.on("data", (b: Buffer) => (out += b.toString()));
    const gone = new Promise<number | null>((resolve) => follower.on("exit", (code) => resolve(code)));
    t.after(() => void follower.kill("SIGKILL"));
    const line = (msg: string) => out.split("\n").find((l) => l.includes(`"msg":"${msg}"`));
    const { webhookPort } = await eventually(async () => (line("serving the admission webhook") ? (JSON.parse(line("serving the admission webhook")!) as { webhookPort: number }) : undefined), 60_000, `the follower's webhook (${out})`);
    const { metricsPort: mPort, healthProbePort } = JSON.parse(line("serving endpoints")!) as { metricsPort: number; healthProbePort: number };
    await eventually(async () => ((await fetch(`http://127.0.0.1:${healthProbePort}/readyz`)).status === 200 ? true : undefined), 30_000, "the follower ready");
    await eventually(async () => (out.includes(`"karta":"${kartaNames[0]}"`) && line("watching") ? true : undefined), 30_000, "the follower watching PyTorchJobs");
    const fixture = fixtureCases().find((x) => x.name === "PyTorchJob")!;
    const pod = strip(fixture.pods[1]!, ns);
    delete pod.metadata!.name;
    pod.metadata!.generateName = "follower-";
    pod.metadata!.ownerReferences = [ownerRef(pytorchJob!)];
    const body = JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "follower-1", kind: { group: "", version: "v1", kind: "Pod" }, operation: "CREATE", namespace: ns, object: pod } });
    const ca = readFileSync(path.join(dir, "certs-follower", "ca.crt"), "utf8");
    const answer = await new Promise<string>((resolve, reject) => {
      const req = https.request({ host: "127.0.0.1", port: webhookPort, path: "/mutate-v1-pod?timeout=5s", method: "POST", ca, headers: { "Content-Type": "application/json" } }, (res) => {
        let text = "";
        res.on("data", (b: Buffer) => (text += b.toString()));
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
      req.end(body);
    });
    const response = (JSON.parse(answer) as { response: { uid: string; patch?: string } }).response;
    const expected = compileKarta(loadBundled(fixture.expected.definition).definition, pytorchJob!, { pods: [pod] });
    assert.ok(response.patch, answer);
    assert.deepEqual(JSON.parse(Buffer.from(response.patch, "base64").toString()), expected.podPatches[0]!.patch);
    const metrics = await (await fetch(`http://127.0.0.1:${mPort}/metrics`)).text();
    assert.doesNotMatch(metrics, /^leader_election_master_status\{name="karta-controller"\} 1/m);
    assert.ok(!out.includes('"msg":"reconciling"') && !out.includes('"msg":"karta status updated"'), "the follower wrote nothing");
    follower.kill("SIGTERM");
    assert.equal(await gone, 0, out);
  });

  test("with the webhook down, failurePolicy Ignore still admits pods (unchanged)", async () => {
    child!.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("still running after 20 s"), 20_000).unref())]);
    assert.equal(code, 0, err.split("\n").slice(-15).join("\n"));
    const started = Date.now();
    const fixture = fixtureCases().find((x) => x.name === "PyTorchJob")!;
    const job = (await c.objects.create({ ...strip(fixture.workload, ns), metadata: { ...strip(fixture.workload, ns).metadata, name: "after-stop" } } as Obj)) as Obj;
    const pod = strip(fixture.pods[0]!, ns);
    pod.metadata!.name = "after-stop-worker-0";
    pod.metadata!.ownerReferences = [ownerRef(job)];
    const created = (await c.objects.create(pod)) as Obj;
    assert.equal(created.spec.schedulingGroup, undefined);
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
  });
});
