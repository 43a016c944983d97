/**
 * Owner chains (pure) and the admission webhook served over real HTTPS on loopback, answering from a
 * cache the test fills: the patch is the one `karta compile` gives, other pods pass unchanged, bad
 * requests are refused in bounds, and the latency lands in the metrics.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import https from "node:https";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { KubernetesObject } from "../../src/controller/kubernetes-object.js";
import { chainKinds, resolveOwnerChain, type ChainLookup } from "../../src/controller/owners.js";
import { controllerClusterRole } from "../../src/controller/rbac.js";
import { ControllerMetrics } from "../../src/controller/metrics.js";
import { silentLogger } from "../../src/controller/log.js";
import { startWebhook, POD_WEBHOOK_PATH, MAX_ADMISSION_BYTES, type WebhookServer } from "../../src/controller/webhook.js";
import type { PodRoot } from "../../src/controller/admission.js";
import { ensureCertDir } from "../../src/server/certs.js";
import { compileInterpreter } from "../../src/interpret/index.js";
import { compileKarta } from "../../src/scheduling/index.js";
import { fixtureCases, loadBundled } from "../bundled/helpers.js";

type Obj = KubernetesObject & Record<string, any>;

const obj = (apiVersion: string, kind: string, name: string, uid: string, owner?: Obj): Obj => ({
  apiVersion,
  kind,
  metadata: { name, namespace: "ns", uid, ...(owner ? { ownerReferences: [{ apiVersion: owner.apiVersion!, kind: owner.kind!, name: owner.metadata!.name!, uid: owner.metadata!.uid!, controller: true }] } : {}) },
});

describe("owner chains", () => {
  const lws = obj("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "lws", "u-lws");
  const leaders = obj("apps/v1", "StatefulSet", "lws", "u-sts", lws);
  const leader = obj("v1", "Pod", "lws-0", "u-leader", leaders);
  const workers = obj("apps/v1", "StatefulSet", "lws-0", "u-workers", leader);
  const worker = obj("v1", "Pod", "lws-0-1", "u-worker", workers);
  const cache = new Map([leaders, leader, workers].map((o) => [`${o.kind}/${o.metadata!.name}`, o]));
  const lookup = (watched: string[]): ChainLookup => ({
    rootKarta: (gk) => (gk.group === "leaderworkerset.x-k8s.io" && gk.kind === "LeaderWorkerSet" ? "lws-karta" : undefined),
    object: (gk, _ns, name) => (watched.includes(gk.kind) ? cache.get(`${gk.kind}/${name}`) : null),
  });

  test("a worker pod reaches its LeaderWorkerSet through its StatefulSet, the leader pod and the leaders' StatefulSet", () => {
    const r = resolveOwnerChain(worker, "ns", lookup(["StatefulSet", "Pod"]));
    assert.ok(r.found);
    assert.equal(r.karta, "lws-karta");
    assert.equal(r.root.uid, "u-lws");
    assert.deepEqual(r.owners.map((o) => o.metadata!.uid), ["u-workers", "u-leader", "u-sts"]);
  });

  test("an owner missing from the cache is reported as such (asking later may answer); an unwatched kind ends the chain", () => {
    const missing = resolveOwnerChain(worker, "ns", { ...lookup(["StatefulSet", "Pod"]), object: (gk, ns, name) => (name === "lws-0" && gk.kind === "StatefulSet" ? undefined : lookup(["StatefulSet", "Pod"]).object(gk, ns, name)) });
    assert.ok(!missing.found);
    assert.equal(missing.missing?.uid, "u-workers");
    const unwatched = resolveOwnerChain(worker, "ns", lookup(["Pod"]));
    assert.ok(!unwatched.found);
    assert.equal(unwatched.missing, undefined);
    assert.match(unwatched.why, /apps\/StatefulSet is not a kind/);
  });

  test("a cached owner with another uid (deleted and recreated) does not link", () => {
    const stale = { ...worker, metadata: { ...worker.metadata, ownerReferences: [{ ...worker.metadata!.ownerReferences![0]!, uid: "u-old" }] } };
    const r = resolveOwnerChain(stale, "ns", lookup(["StatefulSet", "Pod"]));
    assert.ok(!r.found);
    assert.match(r.why, /has uid u-workers, not u-old/);
  });

  test("pods without a controller owner have no root", () => {
    const r = resolveOwnerChain(obj("v1", "Pod", "bare", "u-bare"), "ns", lookup(["StatefulSet", "Pod"]));
    assert.ok(!r.found);
    assert.equal(r.why, "no controller owner");
  });

  describe("the outermost owner whose kind has a Ready Karta governs a pod", () => {
    const trainJob = obj("trainer.kubeflow.org/v1alpha1", "TrainJob", "train", "u-tj");
    const jobSet = obj("jobset.x-k8s.io/v1alpha2", "JobSet", "train", "u-js", trainJob);
    const job = obj("batch/v1", "Job", "train-node-0", "u-job", jobSet);
    const pod = obj("v1", "Pod", "train-node-0-0", "u-pod", job);
    const wrapper = obj("workload.codeflare.dev/v1beta2", "AppWrapper", "wrapped", "u-aw");
    const pytorch = obj("kubeflow.org/v1", "PyTorchJob", "wrapped", "u-pt", wrapper);
    const worker = obj("v1", "Pod", "wrapped-worker-0", "u-w0", pytorch);
    const objects = new Map([trainJob, jobSet, job, pytorch, wrapper].map((o) => [`${o.kind}/${o.metadata!.name}`, o]));
    /** Kartas for `described` kinds; every kind of the objects above is cached (a root's objects are). */
    const chains = (described: string[], cached = [...objects.keys()]): ChainLookup => ({
      rootKarta: (gk) => (described.includes(gk.kind) ? `${gk.kind.toLowerCase()}-karta` : undefined),
      object: (gk, _ns, name) => {
        if (![...objects.values()].some((o) => o.kind === gk.kind)) return null;
        return cached.includes(`${gk.kind}/${name}`) ? objects.get(`${gk.kind}/${name}`) : undefined;
      },
    });

    test("TrainJob → JobSet → Job → Pod: the TrainJob, with the JobSet and the Job as the links", () => {
      const r = resolveOwnerChain(pod, "ns", chains(["Job", "JobSet", "TrainJob"]));
      assert.ok(r.found);
      assert.equal(r.karta, "trainjob-karta");
      assert.equal(r.root.uid, "u-tj");
      assert.deepEqual(r.owners.map((o) => o.metadata!.uid), ["u-job", "u-js"]);
    });

    test("an inner kind's Karta has the pods when its object stands alone, or no outer kind is described", () => {
      assert.equal((resolveOwnerChain(pod, "ns", chains(["Job"])) as { root: { uid: string } }).root.uid, "u-job");
      assert.equal((resolveOwnerChain(pod, "ns", chains(["Job", "JobSet"])) as { root: { uid: string } }).root.uid, "u-js");
    });

    test("an AppWrapper governs what it wraps, though its definition does not list the wrapped kind", () => {
      const r = resolveOwnerChain(worker, "ns", chains(["PyTorchJob", "AppWrapper"]));
      assert.ok(r.found);
      assert.equal(r.root.uid, "u-aw");
      assert.deepEqual(r.owners.map((o) => o.metadata!.uid), ["u-pt"]);
    });

    test("a root object is itself governed by its described owner (it gets no groups of its own)", () => {
      const r = resolveOwnerChain(job, "ns", chains(["Job", "JobSet", "TrainJob"]));
      assert.ok(r.found);
      assert.equal(r.root.uid, "u-tj");
      const alone = resolveOwnerChain(trainJob, "ns", chains(["Job", "JobSet", "TrainJob"]));
      assert.ok(!alone.found);
      assert.equal(alone.missing, undefined);
    });

    test("an owner beyond a described one that is not cached yet leaves the answer open", () => {
      const r = resolveOwnerChain(pod, "ns", chains(["Job", "TrainJob"], ["Job/train-node-0", "TrainJob/train"]));
      assert.ok(!r.found);
      assert.equal(r.missing?.uid, "u-js");
    });
  });

  test("the kinds watched between roots and pods: child kinds that can own pods, not Services or ControllerRevisions", () => {
    const kinds = (file: string) => chainKinds(loadBundled(file).definition.karta).map((k) => `${k.group}/${k.version}/${k.kind}`);
    assert.deepEqual(kinds("leaderworkerset.x-k8s.io/v1/LeaderWorkerSet.yaml"), ["apps/v1/StatefulSet"]);
    assert.deepEqual(kinds("jobset.x-k8s.io/v1alpha2/JobSet.yaml"), ["batch/v1/Job"]);
    assert.deepEqual(kinds("kubeflow.org/v1/PyTorchJob.yaml"), []);
  });

  test("the ClusterRole reads exactly the kinds watched: no Services, Secrets or ControllerRevisions", () => {
    const role = controllerClusterRole(["leaderworkerset.x-k8s.io/v1/LeaderWorkerSet.yaml", "jobset.x-k8s.io/v1alpha2/JobSet.yaml"].map((f) => loadBundled(f).definition.karta));
    const reads = role.rules.filter((r) => r.verbs.join() === "list,watch").flatMap((r) => r.resources.map((x) => `${r.apiGroups[0]}/${x}`)).sort();
    assert.deepEqual(reads, ["/pods", "apiextensions.k8s.io/customresourcedefinitions", "apps/statefulsets", "batch/jobs", "jobset.x-k8s.io/jobsets", "leaderworkerset.x-k8s.io/leaderworkersets"]);
  });
});

describe("the admission webhook over HTTPS", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-webhook-"));
  const fixture = fixtureCases().find((x) => x.name === "PyTorchJob")!;
  const { definition } = loadBundled(fixture.expected.definition);
  const interpreter = compileInterpreter(definition.karta);
  const job = fixture.workload as Obj;
  let answer: (pod: KubernetesObject) => PodRoot = () => ({ found: true, karta: "k", interpreter, root: job, owners: [] });
  const metrics = new ControllerMetrics();
  let server: WebhookServer;
  let ca: string;

  before(async () => {
    const files = ensureCertDir(dir, ["localhost", "127.0.0.1"]);
    ca = (await import("node:fs")).readFileSync(files.caFile, "utf8");
    server = await startWebhook({ host: "127.0.0.1", port: 0, certFile: files.certFile, keyFile: files.keyFile, source: { podRoot: (p) => answer(p) }, metrics, log: silentLogger, cacheWaitMs: 300 });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function post(body: string | Buffer, options: { path?: string; method?: string; type?: string } = {}): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        { host: "127.0.0.1", port: server.port, path: options.path ?? `${POD_WEBHOOK_PATH}?timeout=5s`, method: options.method ?? "POST", ca, headers: { "Content-Type": options.type ?? "application/json" } },
        (res) => {
          let text = "";
          res.on("data", (c: Buffer) => (text += c.toString()));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }
  const review = (pod: unknown, operation = "CREATE", kind = "Pod") =>
    JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "req-1", kind: { group: "", version: "v1", kind }, operation, namespace: job.metadata!.namespace, object: pod } });
  const responseOf = (body: string) => (JSON.parse(body) as { response: { uid: string; allowed: boolean; patchType?: string; patch?: string } }).response;

  test("a pod of a PyTorchJob gets compile's patch", async () => {
    const pod = structuredClone(fixture.pods[1]!) as Obj;
    const r = await post(review(pod));
    assert.equal(r.status, 200);
    const res = responseOf(r.body);
    assert.equal(res.uid, "req-1");
    assert.equal(res.allowed, true);
    assert.equal(res.patchType, "JSONPatch");
    const expected = compileKarta(definition, job, { pods: [{ ...pod, metadata: { ...pod.metadata, namespace: job.metadata!.namespace } }] });
    assert.deepEqual(JSON.parse(Buffer.from(res.patch!, "base64").toString()), expected.podPatches[0]!.patch);
    assert.equal(expected.podPatches[0]!.patch[0]!.op, "add");
  });

  test("pods that name a group, updates, other kinds and pods of no Karta pass unchanged", async () => {
    const pod = structuredClone(fixture.pods[0]!) as Obj;
    for (const body of [review({ ...pod, spec: { ...pod.spec, schedulingGroup: { podGroupName: "theirs" } } }), review(pod, "UPDATE"), review(pod, "CREATE", "Service")]) {
      const res = responseOf((await post(body)).body);
      assert.deepEqual([res.allowed, res.patch], [true, undefined]);
    }
    answer = () => ({ found: false, pending: false, why: "no controller owner" });
    assert.equal(responseOf((await post(review(pod))).body).patch, undefined);
  });

  test("an owner that never reaches the cache: unchanged after the bounded wait", async () => {
    answer = () => ({ found: false, pending: true, why: "not in the cache" });
    const started = Date.now();
    const res = responseOf((await post(review(fixture.pods[0]))).body);
    assert.equal(res.patch, undefined);
    const took = Date.now() - started;
    assert.ok(took >= 250 && took < 2000, `took ${took} ms`);
  });

  test("bad requests are refused with what is wrong", async () => {
    assert.equal((await post("{}", { path: "/other" })).status, 404);
    assert.equal((await post("", { method: "GET" })).status, 405);
    assert.equal((await post("{}", { type: "text/plain" })).status, 415);
    const notReview = await post("[1,2");
    assert.equal(notReview.status, 400);
    assert.match(notReview.body, /not JSON/);
    const v1beta1 = await post(JSON.stringify({ apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", request: { uid: "x" } }));
    assert.equal(v1beta1.status, 400);
    assert.match(v1beta1.body, /admission\.k8s\.io\/v1/);
    const big = await post(Buffer.alloc(MAX_ADMISSION_BYTES + 1, 32)).catch((e: Error) => ({ status: 413, body: e.message }));
    assert.equal(big.status, 413);
  });

  test("the latency and outcomes are in the metrics", async () => {
    const text = await metrics.registry.metrics();
    assert.match(text, /^controller_runtime_webhook_latency_seconds_count\{webhook="\/mutate-v1-pod"\} \d+/m);
    assert.match(text, /^karta_pod_admissions_total\{outcome="patched"\} 1$/m);
    assert.match(text, /^controller_runtime_webhook_requests_total\{webhook="\/mutate-v1-pod",code="413"\} 1$/m);
  });

  test("request targets WHATWG's URL parser refuses: a path (///) is not found, a bad absolute URL is 400; the webhook goes on", async () => {
    assert.equal((await post(review(fixture.pods[0]), { path: "///" })).status, 404);
    assert.equal((await post(review(fixture.pods[0]), { path: "//a:99999" })).status, 404);
    assert.equal((await post(review(fixture.pods[0]), { path: "http://a:99999/" })).status, 400);
    assert.equal((await post(review(structuredClone(fixture.pods[1]!)))).status, 200);
  });
});
