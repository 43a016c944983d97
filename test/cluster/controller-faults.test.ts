/**
 * `karta controller` (processes of the built CLI) under faults, against a private cluster's real
 * kube-apiserver and etcd (test/support/faults.ts): the API server restarted in the middle of a burst of
 * jobs and pods, etcd restarted, the leader killed mid-reconcile, the pod watch expiring (410 Gone) while
 * objects change, the admission webhook unreachable under failurePolicy Ignore, and the API server
 * throttling (429). After each, the groups in the namespace are exactly what `karta compile` makes of
 * the jobs and pods there: nothing lost, nothing duplicated, nothing left behind (a group the jobs no
 * longer have is deleted); and what the controller logged at error level is only what is an error.
 */
import { after, afterEach, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { definitionsDir } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { trainingOperatorPod } from "../fixtures/objects.js";
import { accessOf, eventually, privateCluster, type PrivateCluster } from "../support/cluster.js";
import { FaultProxy, restartServer } from "../support/faults.js";
import { installKartaCrd, spawnController, type ControllerProcess } from "./helpers.js";
import { ApiError, KubeClient, resourcePath } from "../../src/controller/client.js";
import { holds } from "../../src/controller/applied-fields.js";
import { compileInterpreter } from "../../src/interpret/index.js";
import { compileKarta, compiledObjects } from "../../src/scheduling/karta.js";
import { admissionWebhookConfiguration } from "../../src/server/webhook-config.js";
import { shardOf } from "../../src/controller/shard.js";
import type { Karta } from "../../src/definition/index.js";

const cluster = await privateCluster();
const skip = typeof cluster === "string" ? cluster : false;
const KARTA_FILE = path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml");

type Obj = KubernetesObject & Record<string, any>;

const GROUP_KINDS = [
  { apiVersion: "scheduling.k8s.io/v1beta1", kind: "Workload", plural: "workloads" },
  { apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup", plural: "podgroups" },
  { apiVersion: "scheduling.k8s.io/v1alpha3", kind: "CompositePodGroup", plural: "compositepodgroups" },
];
const CONTAINER = { name: "pytorch", image: "nvcr.io/nvidia/pytorch:24.10-py3", resources: { requests: { cpu: "1" } } };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates, with the client's retries and then a few more (an API server restarting), tolerating AlreadyExists. */
async function ensure(client: KubeClient, collection: string, body: Obj): Promise<Obj> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.create<Obj>(collection, body, { retryBudgetMs: 60_000 });
    } catch (err) {
      if (err instanceof ApiError && err.code === 409) return client.get<Obj>(`${collection}/${body.metadata!.name}`, { retryBudgetMs: 60_000 });
      // A request cut by the restart itself: its answer is unknown, so ask again (AlreadyExists is fine).
      if (attempt < 10 && !(err instanceof ApiError && err.code < 500 && err.code !== 429)) {
        await sleep(1000);
        continue;
      }
      throw err;
    }
  }
}

/** A PyTorchJob of one master and `workers` workers, and its pods as the training operator makes them. */
async function createJob(client: KubeClient, ns: string, name: string, workers: number): Promise<Obj> {
  const template = { spec: { containers: [CONTAINER] } };
  const job = await ensure(client, resourcePath("kubeflow.org/v1", "pytorchjobs", ns), {
    apiVersion: "kubeflow.org/v1",
    kind: "PyTorchJob",
    metadata: { name, namespace: ns },
    spec: { runPolicy: { schedulingPolicy: { minAvailable: workers + 1 } }, pytorchReplicaSpecs: { Master: { replicas: 1, restartPolicy: "OnFailure", template }, Worker: { replicas: workers, restartPolicy: "OnFailure", template } } },
  });
  for (const [type, index] of [["master", 0], ...Array.from({ length: workers }, (_, i) => ["worker", i] as const)] as const) {
    await ensure(client, resourcePath("v1", "pods", ns), trainingOperatorPod(job, type, index, CONTAINER));
  }
  return job;
}

/** Creates `count` jobs, `parallel` at a time; `midway` runs once half of them exist. */
async function burst(client: KubeClient, ns: string, prefix: string, count: number, midway?: () => Promise<void>): Promise<void> {
  let next = 0;
  let midwayDone: Promise<void> | undefined;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < count) {
        const i = next++;
        if (i === Math.floor(count / 2) && midway) midwayDone = midway();
        await createJob(client, ns, `${prefix}-${i}`, 2 + (i % 3));
      }
    }),
  );
  await midwayDone;
}

/** What `karta compile` makes of every job in the namespace with its pods: kind/name → the object. */
async function expectedGroups(client: KubeClient, ns: string, interpreter: ReturnType<typeof compileInterpreter>): Promise<Map<string, Obj>> {
  const jobs = (await client.get<{ items: Obj[] }>(resourcePath("kubeflow.org/v1", "pytorchjobs", ns))).items;
  const pods = (await client.get<{ items: Obj[] }>(resourcePath("v1", "pods", ns))).items;
  const out = new Map<string, Obj>();
  for (const job of jobs) {
    const own = pods.filter((p) => p.metadata?.ownerReferences?.some((r: { uid: string }) => r.uid === job.metadata!.uid));
    const r = compileKarta(interpreter, { ...job, apiVersion: "kubeflow.org/v1", kind: "PyTorchJob" }, { pods: own });
    assert.ok(r.ok, JSON.stringify(r.issues));
    for (const o of compiledObjects(r) as unknown as Obj[]) out.set(`${o.kind}/${o.metadata!.name}`, o);
  }
  return out;
}

/** The pods, cluster-wide, that `karta compile` puts in a group but that do not name it (none has finished: no kubelet). */
async function podsWithoutGroup(client: KubeClient, interpreter: ReturnType<typeof compileInterpreter>): Promise<number> {
  const jobs = (await client.get<{ items: Obj[] }>(resourcePath("kubeflow.org/v1", "pytorchjobs"))).items;
  const pods = (await client.get<{ items: Obj[] }>(resourcePath("v1", "pods"))).items;
  let n = 0;
  for (const job of jobs) {
    const own = pods.filter((p) => p.metadata?.ownerReferences?.some((r: { uid: string }) => r.uid === job.metadata!.uid));
    n += compileKarta(interpreter, { ...job, apiVersion: "kubeflow.org/v1", kind: "PyTorchJob" }, { pods: own }).podPatches.filter((x) => x.patch.length > 0).length;
  }
  return n;
}

/** Why the groups in the namespace differ from the expected ones, or undefined when they are the same. */
async function groupsDiffer(client: KubeClient, ns: string, interpreter: ReturnType<typeof compileInterpreter>): Promise<string | undefined> {
  const expected = await expectedGroups(client, ns, interpreter);
  const actual = new Map<string, Obj>();
  for (const g of GROUP_KINDS) {
    for (const o of (await client.get<{ items: Obj[] }>(resourcePath(g.apiVersion, g.plural, ns))).items) {
      // Deleted (a PodGroup waits for its protection finalizer, which no controller here removes).
      if (o.metadata?.deletionTimestamp) continue;
      // List items come without their kind.
      actual.set(`${g.kind}/${o.metadata!.name}`, { ...o, apiVersion: g.apiVersion, kind: g.kind });
    }
  }
  const missing = [...expected.keys()].filter((k) => !actual.has(k));
  const extra = [...actual.keys()].filter((k) => !expected.has(k));
  const wrong = [...expected].filter(([k, o]) => actual.has(k) && !holds(o, actual.get(k))).map(([k]) => k);
  if (missing.length + extra.length + wrong.length === 0) return undefined;
  return `missing ${missing.join(", ") || "none"}; left behind ${extra.join(", ") || "none"}; different ${wrong.join(", ") || "none"}`;
}

/** Waits until the namespace holds exactly the expected groups (else fails with the difference and what `p` logged last). */
async function converges(client: KubeClient, ns: string, interpreter: ReturnType<typeof compileInterpreter>, what: string, p?: ControllerProcess, ms = 120_000): Promise<void> {
  let last = "";
  await eventually(
    async () => {
      last = (await groupsDiffer(client, ns, interpreter)) ?? "";
      return last === "" ? true : undefined;
    },
    ms,
    `${what}: the groups to equal what karta compile makes of the jobs`,
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${last}${p ? logTail(p, (l) => !l.includes('"level":20')) : ""}`);
  });
}

/** The last 40 lines of a controller's log that `keep` keeps, to say why a wait failed. */
function logTail(p: ControllerProcess, keep: (line: string) => boolean = () => true): string {
  return `\ncontroller log (last lines):\n${p.log().split("\n").filter(keep).slice(-40).join("\n")}`;
}

/** Removes the Worker replicas of a job: its worker PodGroup must go. */
async function dropWorkers(client: KubeClient, ns: string, name: string): Promise<void> {
  await client.mergePatch(resourcePath("kubeflow.org/v1", "pytorchjobs", ns, name), { spec: { pytorchReplicaSpecs: { Worker: null }, runPolicy: { schedulingPolicy: { minAvailable: 1 } } } }, { retryBudgetMs: 60_000 });
}

/** Error-level log lines of a controller, but those a test expects. */
function errors(p: ControllerProcess, allowed: RegExp[] = []): string[] {
  return p
    .log()
    .split("\n")
    .filter((l) => l.includes('"level":50') && !allowed.some((a) => a.test(l)));
}

async function metric(p: ControllerProcess, name: string): Promise<number> {
  const port = p.line("serving endpoints")?.["metricsPort"];
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? NaN : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("karta controller under faults (a private kube-apiserver and etcd)", { skip, concurrency: false, timeout: 900_000 }, () => {
  const c = cluster as PrivateCluster;
  const dir = mkdtempSync(path.join(tmpdir(), "karta-faults-"));
  const running: ControllerProcess[] = [];
  let client: KubeClient;
  let interpreter: ReturnType<typeof compileInterpreter>;
  let n = 0;
  const namespace = async (): Promise<string> => {
    const ns = `faults-${++n}`;
    await ensure(client, "/api/v1/namespaces", { metadata: { name: ns } });
    return ns;
  };
  const start = (args: string[], kubeconfig = c.kubeconfig): ControllerProcess => {
    const p = spawnController(["--kubeconfig", kubeconfig, "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "0", "-v", ...args]);
    running.push(p);
    return p;
  };
  const stop = async (p: ControllerProcess): Promise<void> => {
    p.child.kill("SIGTERM");
    assert.equal(await p.exited, 0, p.log().slice(-3000));
  };
  const reconciling = (p: ControllerProcess) =>
    eventually(async () => (p.line("reconciling") ? true : undefined), 60_000, "the controller to reconcile").catch((err: Error) => {
      throw new Error(`${err.message}${logTail(p)}`);
    });
  /** A namespace and a controller reaching the API server through a fault proxy, reconciling; the proxy closed after `body`. */
  const throughProxy = async (kubeconfig: string, body: (ns: string, proxy: FaultProxy, p: ControllerProcess) => Promise<void>): Promise<void> => {
    const ns = await namespace();
    const proxy = await FaultProxy.start(c.dir);
    try {
      const p = start(["--leader-elect=false"], proxy.writeKubeconfig(path.join(dir, kubeconfig)));
      await reconciling(p);
      await body(ns, proxy, p);
    } finally {
      await proxy.close();
    }
  };

  before(async () => {
    client = new KubeClient(accessOf(c.kc));
    await installKartaCrd(c);
    await ensure(client, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", parse(readFileSync(path.join(repoRoot, "test", "fixtures", "definition", "crds", "kubeflow.org_pytorchjobs.yaml"), "utf8")) as Obj);
    await eventually(async () => ((await client.get<Obj>("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/pytorchjobs.kubeflow.org")).status?.conditions?.some((x: Obj) => x.type === "Established" && x.status === "True") ? true : undefined), 30_000, "the PyTorchJob CRD");
    const karta = parse(readFileSync(KARTA_FILE, "utf8")) as Obj;
    interpreter = compileInterpreter(karta as unknown as Karta);
    await ensure(client, "/apis/run.ai/v1alpha1/kartas", karta);
  });
  // A test that failed leaves no controller behind to act on the next one's objects.
  afterEach(() => {
    for (const p of running) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  });
  after(async () => {
    for (const p of running) if (p.child.exitCode === null) p.child.kill("SIGKILL");
    client?.close();
    rmSync(dir, { recursive: true, force: true });
    await c.stop();
  });

  test("kube-apiserver restarted in the middle of a burst: every group, once; a starting server's 429s are not errors", async () => {
    const ns = await namespace();
    const p = start(["--leader-elect=false"]);
    await reconciling(p);
    await burst(client, ns, "restart", 12, async () => {
      await restartServer(c.dir, "kube-apiserver", { downMs: 2000 });
    });
    await dropWorkers(client, ns, "restart-0");
    await converges(client, ns, interpreter, "after the API server's restart", p);
    assert.ok(/API server unavailable; retrying/.test(p.log()), "the outage is logged (at info)");
    assert.deepEqual(errors(p), [], "nothing logged at error level");
    assert.ok(!/"level":50[^\n]*initializing/.test(p.log()));
    await stop(p);
  });

  test("etcd restarted in the middle of a burst: every group, once", async () => {
    const ns = await namespace();
    const p = start(["--leader-elect=false"]);
    await reconciling(p);
    await burst(client, ns, "etcd", 12, async () => {
      await restartServer(c.dir, "etcd", { downMs: 2000 });
    });
    await dropWorkers(client, ns, "etcd-1");
    // A request the API server could not complete without etcd fails a reconcile (logged), which is retried.
    await converges(client, ns, interpreter, "after etcd's restart", p);
    assert.deepEqual(errors(p, [/workload reconcile failed/, /reconcile failed/, /cannot record an event/]), [], "nothing else logged at error level");
    await stop(p);
  });

  test("the leader killed in the middle of reconciling: the other replica finishes, nothing duplicated", async () => {
    const ns = await namespace();
    const lease = ["--leader-elect-resource-namespace", ns, "--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s", "--leader-elect-retry-period", "500ms"];
    const a = start(lease);
    const b = start(lease);
    const leader = await eventually(async () => [a, b].find((r) => r.line("reconciling")), 60_000, "a leader");
    const standby = leader === a ? b : a;
    await burst(client, ns, "leader", 16, async () => {
      leader.child.kill("SIGKILL");
    });
    await dropWorkers(client, ns, "leader-2");
    await eventually(async () => (standby.line("reconciling") ? true : undefined), 30_000, "the standby to take over");
    await converges(client, ns, interpreter, "after the leader died", standby);
    const events = (await client.get<{ items: Obj[] }>(resourcePath("v1", "events", ns))).items.filter((e) => e.reason === "GroupsCreated");
    const perJob = new Map<string, number>();
    for (const e of events) perJob.set(e.involvedObject.name, (perJob.get(e.involvedObject.name) ?? 0) + 1);
    assert.deepEqual([...perJob].filter(([, k]) => k > 1), [], "a job's groups reported created twice");
    assert.deepEqual(errors(standby), []);
    await stop(standby);
  });

  test("the pod watch expires (410 Gone) while objects change: the controller lists again and catches up", async () => {
    await throughProxy("proxy.kubeconfig", async (ns, proxy, p) => {
      await burst(client, ns, "expire", 4);
      await converges(client, ns, interpreter, "before the watch expires", p);
      // The pod watch drops and stays away a while; its next attempt asks for a resourceVersion long gone.
      proxy.holdWatches(/^\/api\/v1\/pods$/, 3000);
      proxy.expireNextWatch(/^\/api\/v1\/pods$/);
      assert.ok(proxy.dropWatches(/^\/api\/v1\/pods$/) >= 1, "the pod watch was open");
      // Meanwhile: pods of a new job, a job losing its workers (and their pods).
      await createJob(client, ns, "expire-new", 3);
      await dropWorkers(client, ns, "expire-0");
      for (const pod of (await client.get<{ items: Obj[] }>(resourcePath("v1", "pods", ns))).items.filter((x) => x.metadata!.name!.startsWith("expire-0-worker"))) {
        await client.delete(resourcePath("v1", "pods", ns, pod.metadata!.name!), { query: { gracePeriodSeconds: 0 } });
      }
      await eventually(async () => (/watch expired; listing again[^\n]*"watch":"pods"|"watch":"pods"[^\n]*watch expired; listing again/.test(p.log()) ? true : undefined), 30_000, "the controller to list the pods again").catch((err: Error) => {
        // What the pod watch did instead (this wait once timed out in a repeated run, with nothing to say why).
        throw new Error(`${err.message}; proxied pod watches: ${JSON.stringify(proxy.requests.filter((r) => /\/api\/v1\/pods/.test(r.path)).slice(-6))}${logTail(p, (l) => l.includes('"pods"') || l.includes('"level":50'))}`);
      });
      assert.ok(proxy.requests.some((r) => r.injected === 410), "the server answered 410");
      await converges(client, ns, interpreter, "after the relist", p);
      assert.deepEqual(errors(p), []);
      await stop(p);
    });
  });

  test("two shards: each job's groups made once, by its shard; a Lease per shard; a shard killed and restarted catches up", async () => {
    const ns = await namespace();
    const lease = ["--leader-elect-resource-namespace", ns, "--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s", "--leader-elect-retry-period", "500ms", "--total-shards", "2"];
    const shards = [start([...lease, "--shard", "0"]), start([...lease, "--shard", "1"])];
    for (const p of shards) await reconciling(p);
    await burst(client, ns, "sharded", 10);
    await converges(client, ns, interpreter, "with two shards", shards[0]);
    for (const [i, p] of shards.entries()) {
      const l = await client.get<Obj>(resourcePath("coordination.k8s.io/v1", "leases", ns, `karta-controller-shard-${i}`));
      assert.ok(l.spec.holderIdentity, `shard ${i} holds its Lease`);
      assert.ok(p.line("became leader")?.["lease"] === `${ns}/karta-controller-shard-${i}`, `shard ${i} led on its own Lease`);
    }
    // Each shard caches the pods of its own jobs only (every job in the cluster, earlier tests' too).
    const jobs = (await client.get<{ items: Obj[] }>(resourcePath("kubeflow.org/v1", "pytorchjobs"))).items;
    const pods = (await client.get<{ items: Obj[] }>(resourcePath("v1", "pods"))).items;
    const shardOfPod = (pod: Obj): number => shardOf(jobs.find((j) => pod.metadata!.ownerReferences?.[0]?.uid === j.metadata!.uid)!.metadata!.uid!, 2);
    for (const [i, p] of shards.entries()) {
      const mine = pods.filter((x) => shardOfPod(x) === i).length;
      assert.ok(mine > 0 && mine < pods.length, "the jobs are split between the shards");
      let cached = -1;
      await eventually(async () => ((cached = await metric(p, "karta_cached_pods")) === mine ? true : undefined), 30_000, `shard ${i} to cache its ${mine} pods`).catch((err: Error) => {
        // Once, under a load average of 5 from a benchmark beside it, this wait timed out with nothing to say why.
        throw new Error(`${err.message}: it caches ${cached} of ${pods.length}${logTail(p, (l) => !l.includes('"level":20'))}`);
      });
    }
    // A job's groups were reported created once: by one shard.
    const created = (await client.get<{ items: Obj[] }>(resourcePath("v1", "events", ns))).items.filter((e) => e.reason === "GroupsCreated");
    assert.equal(new Set(created.map((e) => e.involvedObject.name)).size, created.length, "a job's groups reported created twice");
    // Shard 1 dies; jobs created meanwhile wait for it, and get their groups once it is back.
    shards[1]!.child.kill("SIGKILL");
    await burst(client, ns, "while-down", 6);
    await dropWorkers(client, ns, "sharded-1");
    const back = start([...lease, "--shard", "1"]);
    await reconciling(back);
    await converges(client, ns, interpreter, "after shard 1 came back", back);
    assert.deepEqual(errors(shards[0]!), []);
    assert.deepEqual(errors(back), []);
    await stop(shards[0]!);
    await stop(back);
  });

  test("throttling (429 with Retry-After) is retried and logged at debug, not as an error", async () => {
    await throughProxy("throttled.kubeconfig", async (ns, proxy, p) => {
      // Every write of the next ones: the applies of the groups and the Events.
      proxy.throttle(20, { match: (method) => method === "PATCH" || method === "POST", retryAfter: 1, message: "storage is (re)initializing" });
      await burst(client, ns, "throttled", 6);
      await converges(client, ns, interpreter, "while throttled", p);
      assert.ok(proxy.requests.filter((r) => r.injected === 429).length >= 10, "the proxy throttled the controller's writes");
      const retried = p.log().split("\n").filter((l) => l.includes("API request retried"));
      assert.ok(retried.length >= 10, "each retry is logged at debug");
      assert.ok(retried.every((l) => l.includes('"level":20') && l.includes("storage is (re)initializing")));
      assert.deepEqual(errors(p), [], "a throttled request is not an error");
      await stop(p);
    });
  });

  test("two groups of one level refused: each failure is logged, the retry makes them, and every group created is named in a GroupsCreated Event once", async () => {
    await throughProxy("refusing.kubeconfig", async (ns, proxy, p) => {
      // The job's two PodGroups (master and worker) are its last level: both refused once, after its
      // Workload and CompositePodGroup were made.
      const denied = "podgroups is forbidden: refused by the test";
      proxy.fail(2, { match: (method, where) => method === "PATCH" && where.startsWith(`/apis/scheduling.k8s.io/v1beta1/namespaces/${ns}/podgroups/`), code: 403, reason: "Forbidden", message: denied });
      await createJob(client, ns, "refused", 2);
      await converges(client, ns, interpreter, "after two refused applies", p);
      assert.equal(proxy.requests.filter((r) => r.injected === 403).length, 2, "the proxy refused both PodGroups");
      const lines = p.log().split("\n").filter((l) => l.includes(denied));
      assert.equal(lines.filter((l) => l.includes("workload reconcile failed")).length, 1, lines.join("\n"));
      assert.equal(lines.filter((l) => l.includes('"msg":"cannot apply a group"') && l.includes('"kind":"PodGroup"')).length, 1, lines.join("\n"));
      const expected = [...(await expectedGroups(client, ns, interpreter)).keys()].map((k) => k.replace("/", " ")).sort();
      assert.equal(expected.length, 4, expected.join(", "));
      let named: string[] = [];
      await eventually(
        async () => {
          const events = (await client.get<{ items: Obj[] }>(resourcePath("v1", "events", ns))).items.filter((e) => e.reason === "GroupsCreated" && e.involvedObject?.name === "refused");
          named = events.flatMap((e) => String(e.message).replace(/^created /, "").split(", ")).sort();
          return named.length >= expected.length ? true : undefined;
        },
        30_000,
        "GroupsCreated Events naming every group",
      ).catch((err: Error) => {
        throw new Error(`${err.message}: ${named.join(", ")}`);
      });
      assert.deepEqual(named, expected);
      await stop(p);
    });
  });

  test("the admission webhook unreachable under failurePolicy Ignore: pods created meanwhile are reported", async () => {
    const ns = await namespace();
    const certDir = path.join(dir, "webhook");
    // Below the kernel's ephemeral range (32768 on), so no outgoing connection can hold it when the second
    // controller binds it again.
    const port = 20000 + Math.floor(Math.random() * 12000);
    const args = ["--leader-elect=false", "--webhook-port", String(port), "--cert-dir", certDir, "--tls-san", "127.0.0.1"];
    const first = start(args);
    await eventually(async () => (first.line("serving the admission webhook") ? true : undefined), 60_000, `the webhook (stderr: ${first.log()})`);
    // The controller's pod admission webhook as `karta webhook-config --admission` prints it (failurePolicy
    // Ignore), scoped to this namespace.
    const mutating = admissionWebhookConfiguration({
      name: `karta-faults-${ns}`,
      target: { url: `https://127.0.0.1:${port}/mutate-v1-pod` },
      caPem: readFileSync(path.join(certDir, "ca.crt"), "utf8"),
      timeoutSeconds: 5,
      controllerNamespace: "karta-system",
    }) as Obj;
    assert.equal(mutating.webhooks[0].failurePolicy, "Ignore");
    mutating.webhooks[0].namespaceSelector = { matchLabels: { "kubernetes.io/metadata.name": ns } };
    await ensure(client, "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", mutating);
    try {
      await sleep(2000); // the API server's admission configuration
      await createJob(client, ns, "admitted", 2);
      const patched = (await client.get<{ items: Obj[] }>(resourcePath("v1", "pods", ns))).items;
      assert.ok(patched.length === 3 && patched.every((x) => x.spec.schedulingGroup?.podGroupName), "pods created while the webhook answers name their group");
      await stop(first);
      // Unreachable: the API server admits pods unchanged (Ignore).
      const unpatched = await createJob(client, ns, "unadmitted", 3);
      const bare = (await client.get<{ items: Obj[] }>(resourcePath("v1", "pods", ns))).items.filter((x) => x.metadata!.name!.startsWith("unadmitted"));
      assert.equal(bare.length, 4);
      assert.ok(bare.every((x) => x.spec.schedulingGroup === undefined), "pods admitted without the webhook name no group");
      const second = start(args);
      await reconciling(second);
      await converges(client, ns, interpreter, "the groups of both jobs", second);
      const event = await eventually(async () => (await client.get<{ items: Obj[] }>(resourcePath("v1", "events", ns))).items.find((e) => e.reason === "PodsWithoutGroup" && e.involvedObject.uid === unpatched.metadata!.uid), 30_000, "a PodsWithoutGroup Event on the job");
      assert.equal(event.type, "Warning");
      assert.match(event.message, /^4 pod\(s\) do not name their PodGroup/);
      for (const x of bare) assert.ok(event.message.includes(x.metadata!.name!), event.message);
      // The gauge counts every workload's: the earlier tests' pods were created without the webhook too.
      const expected = await podsWithoutGroup(client, interpreter);
      assert.ok(expected >= 4);
      await eventually(async () => ((await metric(second, "karta_pods_without_group")) === expected ? true : undefined), 30_000, `karta_pods_without_group to be ${expected}`);
      assert.ok(second.line("pods without their group"), "and a log line");
      const others = (await client.get<{ items: Obj[] }>(resourcePath("v1", "events", ns))).items.filter((e) => e.reason === "PodsWithoutGroup" && e.involvedObject.name === "admitted");
      assert.deepEqual(others, [], "the job whose pods were admitted is not reported");
      await stop(second);
      // A restart reports nothing again: the Event is there already.
      const third = start(args);
      await reconciling(third);
      await eventually(async () => ((await metric(third, "karta_pods_without_group")) === expected ? true : undefined), 30_000, "the count after a restart");
      await sleep(1000);
      const all = (await client.get<{ items: Obj[] }>(resourcePath("v1", "events", ns))).items.filter((e) => e.reason === "PodsWithoutGroup");
      assert.equal(all.length, 1, "reported once, also across a restart");
      await stop(third);
    } finally {
      await client.delete(`/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/karta-faults-${ns}`).catch(() => undefined);
    }
  });
});
