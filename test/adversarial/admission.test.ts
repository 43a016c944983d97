/**
 * Hostile admission requests against `karta controller`'s pod admission webhook (src/controller/webhook.ts)
 * over real HTTPS, answering from a cache as the controller's does (findPodRoot over an owner-chain
 * lookup): bodies too large or nested too deep, malformed reviews, wrong kinds, pods with thousands of
 * owner references, owner chains longer than the bound or in a cycle, fields missing or of the wrong
 * type. Each gets a bounded answer in our words (an error status, or the pod allowed unchanged, as
 * failurePolicy Ignore would admit it anyway), never a stack trace or an engine's message; requests sent
 * meanwhile, and afterwards, are answered as usual.
 */
import assert from "node:assert/strict";
import https from "node:https";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import type { KubernetesObject } from "../../src/controller/kubernetes-object.js";
import { findPodRoot, type PodRootSource } from "../../src/controller/admission.js";
import { ControllerMetrics } from "../../src/controller/metrics.js";
import type { ChainLookup } from "../../src/controller/owners.js";
import type { Logger } from "../../src/controller/log.js";
import { MAX_ADMISSION_BYTES, POD_WEBHOOK_PATH, startWebhook, type WebhookServer } from "../../src/controller/webhook.js";
import { ensureCertDir } from "../../src/server/certs.js";
import { compileInterpreter } from "../../src/interpret/index.js";
import { fixtureCases, loadBundled } from "../bundled/helpers.js";

type Obj = KubernetesObject & Record<string, any>;

/** Every answer within this: the webhook's own deadline is 10 s; a hang runs far past it. */
const ANSWER_MS = 15_000;
const ENGINE_WORDS = /Maximum call stack size exceeded|internal error|RangeError|TypeError|Cannot read propert|is not a function|\n\s+at .*\(.*:\d+:\d+\)|out of memory/;

describe("the pod admission webhook under hostile requests", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-adv-admission-"));
  const fixture = fixtureCases().find((x) => x.name === "PyTorchJob")!;
  const interpreter = compileInterpreter(loadBundled(fixture.expected.definition).definition.karta);
  const job = fixture.workload as Obj;
  const podSpec = fixture.pods[1]!.spec as Record<string, unknown>;
  const ns = job.metadata!.namespace!;
  const ref = (o: Obj, controller = true) => ({ apiVersion: o.apiVersion!, kind: o.kind!, name: o.metadata!.name!, uid: o.metadata!.uid!, controller });
  const rs = (name: string, owner?: Obj): Obj => ({ apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name, namespace: ns, uid: `uid-${name}`, ...(owner ? { ownerReferences: [ref(owner)] } : {}) } });
  // A chain of 100 ReplicaSets up to the job (longer than any owner chain is followed), and two in a cycle.
  const cache = new Map<string, Obj>();
  const chain: Obj[] = [];
  for (let i = 99, owner: Obj = job; i >= 0; i--) chain.unshift((owner = rs(`deep-${i}`, owner)));
  for (const o of chain) cache.set(o.metadata!.name!, o);
  const a = rs("cycle-a");
  const b = rs("cycle-b", a);
  a.metadata!.ownerReferences = [ref(b)];
  cache.set("cycle-a", a).set("cycle-b", b);
  const lookup: ChainLookup = {
    rootKarta: (gk) => (gk.group === "kubeflow.org" && gk.kind === "PyTorchJob" ? "pytorchjob" : undefined),
    object: (gk, _ns, name) => (gk.kind === "ReplicaSet" ? cache.get(name) : null),
  };
  const source: PodRootSource = {
    podRoot: (pod, namespace) => findPodRoot(pod, namespace, lookup, (_karta, name) => (name === job.metadata!.name ? { interpreter, root: job } : undefined)),
  };
  let server: WebhookServer;
  let ca: string;
  /** What the webhook logged at error level: a hostile request is not an error of ours. */
  const errors: string[] = [];
  const log: Logger = (level, msg, fields) => void (level === "error" && errors.push(`${msg} ${JSON.stringify(fields ?? {})}`));

  before(async () => {
    const files = ensureCertDir(dir, ["localhost", "127.0.0.1"]);
    ca = readFileSync(files.caFile, "utf8");
    server = await startWebhook({ host: "127.0.0.1", port: 0, certFile: files.certFile, keyFile: files.keyFile, source, metrics: new ControllerMetrics(), log, cacheWaitMs: 300 });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function post(body: string | Buffer): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = https.request({ host: "127.0.0.1", port: server.port, path: `${POD_WEBHOOK_PATH}?timeout=10s`, method: "POST", ca, headers: { "Content-Type": "application/json" } }, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on("error", reject);
      req.end(body);
    });
  }

  /** Sends a body; asserts the answer came in time and speaks our words. */
  async function send(label: string, body: string | Buffer): Promise<{ status: number; body: string; response?: { uid: string; allowed: boolean; patch?: string } }> {
    const t = Date.now();
    const r = await post(body).catch((e: Error) => ({ status: 0, body: e.message }));
    assert.ok(Date.now() - t < ANSWER_MS, `${label}: answered after ${Date.now() - t} ms`);
    assert.doesNotMatch(r.body, ENGINE_WORDS, `${label}: engine words reached the client`);
    let response;
    if (r.status === 200) response = (JSON.parse(r.body) as { response: { uid: string; allowed: boolean; patch?: string } }).response;
    return { ...r, response };
  }

  const review = (object: unknown, request: Record<string, unknown> = {}) =>
    JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "hostile", kind: { group: "", version: "v1", kind: "Pod" }, operation: "CREATE", namespace: ns, object, ...request } });
  const pod = (metadata: Record<string, unknown> = {}, spec: unknown = podSpec): Obj => ({ ...structuredClone(fixture.pods[1]!), metadata: { ...(structuredClone(fixture.pods[1]!.metadata) as Record<string, unknown>), ...metadata }, spec });
  /** Allowed, unchanged. */
  const unchanged = (label: string, r: Awaited<ReturnType<typeof send>>): void => {
    assert.equal(r.status, 200, `${label}: ${r.body}`);
    assert.equal(r.response!.uid, "hostile", label);
    assert.equal(r.response!.allowed, true, label);
    assert.equal(r.response!.patch, undefined, `${label}: no patch`);
  };
  const patched = async (label: string): Promise<void> => {
    const r = await send(label, review(pod()));
    assert.equal(r.status, 200, r.body);
    assert.ok(r.response!.patch, `${label}: the pod of the job is patched`);
  };

  test("a well-formed pod of the job is patched (the baseline of the cases below)", async () => {
    await patched("a pod of the job");
  });

  test("too large, nested too deep, not JSON, not UTF-8: refused with what is wrong", async () => {
    const big = await send("a body over 3 MiB", review(pod({ annotations: { a: "x".repeat(MAX_ADMISSION_BYTES) } })));
    assert.ok(big.status === 413 || big.status === 0, `${big.status} ${big.body.slice(0, 200)}`);
    const deep = await send("a body nested 100,000 deep", '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000));
    assert.equal(deep.status, 400);
    assert.match(deep.body, /expected an AdmissionReview/);
    for (const [label, body, words] of [
      ["truncated JSON", review(pod()).slice(0, 500), /not JSON/],
      ["not UTF-8", Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), /not JSON/],
      ["a JSON array", "[]", /expected an AdmissionReview/],
      ["null", "null", /expected an AdmissionReview/],
      ["no request", JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" }), /request\.uid: required/],
      ["a request without uid", JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { kind: { kind: "Pod" } } }), /request\.uid: required/],
      ["a uid that is not a string", JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: 7 } }), /request\.uid: required/],
    ] as const) {
      const r = await send(label, body);
      assert.equal(r.status, 400, `${label}: ${r.body}`);
      assert.match(r.body, words, label);
    }
  });

  test("an object nested 5,000 deep inside a pod: bounded, unchanged or refused in our words", async () => {
    // Written out: JSON.stringify itself overflows on it.
    const body = review(pod({}, { ...podSpec, extra: "NESTED" })).replace('"NESTED"', `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`);
    const r = await send("a pod field nested 5,000 deep", body);
    assert.equal(r.status, 200, r.body);
    assert.equal(r.response!.allowed, true);
  });

  test("wrong kinds and operations pass unchanged", async () => {
    unchanged("a Secret", await send("a Secret", review({ apiVersion: "v1", kind: "Secret", metadata: { name: "s" }, data: {} }, { kind: { group: "", version: "v1", kind: "Secret" } })));
    unchanged("a Deployment under kind Pod", await send("a Deployment under kind Pod", review({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", ownerReferences: [ref(job)] } })));
    unchanged("a pod of another group", await send("a pod of another group", review(pod(), { kind: { group: "evil.io", version: "v1", kind: "Pod" } })));
    unchanged("DELETE", await send("DELETE", review(pod(), { operation: "DELETE" })));
    unchanged("no kind", await send("no kind", review(pod(), { kind: undefined })));
    for (const object of ["a pod", 42, [pod()], null, true]) unchanged(`object ${JSON.stringify(object).slice(0, 40)}`, await send(`object ${JSON.stringify(object).slice(0, 40)}`, review(object)));
  });

  test("thousands of owner references: the controller one is followed, or none", async () => {
    const others = Array.from({ length: 5000 }, (_, i) => ({ apiVersion: "v1", kind: "ConfigMap", name: `cm-${i}`, uid: `uid-cm-${i}` }));
    const many = await send("5,000 references and the job's", review(pod({ ownerReferences: [...others, ref(job)] })));
    assert.equal(many.status, 200, many.body);
    assert.ok(many.response!.patch, "the job's controller reference is found among 5,000 others");
    unchanged("5,000 references, none a controller", await send("5,000 references, none a controller", review(pod({ ownerReferences: others }))));
    const controllers = Array.from({ length: 5000 }, (_, i) => ({ ...ref(job), uid: `other-${i}` }));
    unchanged("5,000 controller references to jobs not in the cache", await send("5,000 controller references", review(pod({ ownerReferences: controllers }))));
  });

  test("owner chains longer than the bound, or in a cycle: unchanged", async () => {
    unchanged("a chain of 100 ReplicaSets", await send("a chain of 100 ReplicaSets", review(pod({ ownerReferences: [ref(chain[0]!)] }))));
    unchanged("an ownership cycle", await send("an ownership cycle", review(pod({ ownerReferences: [ref(a)] }))));
  });

  test("fields missing or of the wrong type: unchanged", async () => {
    const cases: [string, Obj][] = [
      ["no metadata", { apiVersion: "v1", kind: "Pod", spec: podSpec }],
      ["no spec", { ...pod(), spec: undefined }],
      ["metadata a string", { ...pod(), metadata: "pod" } as never],
      ["ownerReferences a string", pod({ ownerReferences: "job" })],
      ["ownerReferences of nulls", pod({ ownerReferences: [null, 1, "x"] })],
      ["a reference without uid, kind or apiVersion", pod({ ownerReferences: [{ controller: true, name: job.metadata!.name }] })],
      ["a reference whose fields are numbers", pod({ ownerReferences: [{ controller: true, apiVersion: 1, kind: 2, name: 3, uid: 4 }] })],
      ["labels a list", pod({ labels: ["a", "b"], ownerReferences: [ref(job)] })],
      ["spec a number", pod({ ownerReferences: [ref(job)] }, 7)],
      ["schedulingGroup a string", pod({ ownerReferences: [ref(job)] }, { ...podSpec, schedulingGroup: "x" })],
    ];
    for (const [label, object] of cases) {
      const r = await send(label, review(object));
      assert.equal(r.status, 200, `${label}: ${r.body}`);
      assert.equal(r.response!.allowed, true, label);
    }
  });

  test("while a client dribbles its body, others are answered; afterwards too", async () => {
    const slow = new Promise<number>((resolve) => {
      const req = https.request({ host: "127.0.0.1", port: server.port, path: `${POD_WEBHOOK_PATH}?timeout=2s`, method: "POST", ca, headers: { "Content-Type": "application/json" } }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", () => resolve(0));
      req.write('{"apiVersion":');
    });
    await Promise.all(Array.from({ length: 5 }, (_, i) => patched(`a pod meanwhile (${i})`)));
    assert.ok([0, 408].includes(await slow), "the slow body is cut off at its deadline");
    await patched("a pod afterwards");
  });

  test("nothing was logged as an error of the webhook's", () => {
    assert.deepEqual(errors, []);
  });
});
