/**
 * `karta controller` replicas as real processes of the built CLI against a real kube-apiserver, as the
 * service account bound to exactly the ClusterRole `karta rbac` prints for the PyTorchJob Karta:
 * - two replicas: one holds the Lease and reconciles, the other stands by; `kill -9` of the leader hands
 *   over within the lease duration and the new leader reconciles new PyTorchJobs;
 * - a controller stopped with SIGTERM and started again over existing jobs duplicates nothing: the same
 *   groups with the same uids and resourceVersions, and no new GroupsCreated Events.
 * (test/cluster/leader.test.ts covers the elector itself in one process; this covers the command.)
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { PatchStrategy, type KubernetesObject } from "@kubernetes/client-node";
import { definitionsDir, fixtureCases } from "../bundled/helpers.js";
import { kartaBin, repoRoot } from "../support/conformance.js";
import { trainingOperatorPod } from "../fixtures/objects.js";
import { asServiceAccount, attempt, eventually, testCluster, testNamespace, type RbacRole, type TestCluster } from "../support/cluster.js";
import { installKartaCrd } from "./helpers.js";

const PYTORCH_KARTA = path.join(definitionsDir, "kubeflow.org", "v1", "PyTorchJob.yaml");
const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;
const suffix = Math.random().toString(36).slice(2, 8);
/** The Leases the tests elect on, one per test. */
const LEASES = ["karta-ha-election", "karta-ha-restart", "karta-ha-heal"];

type Obj = KubernetesObject & Record<string, any>;

/** The value of one sample line of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

/** One `karta controller` child process and what it logged. */
class Replica {
  readonly child: ChildProcess;
  err = "";
  readonly exited: Promise<number | null>;

  constructor(kubeconfig: string, namespace: string, lease: string) {
    this.child = spawn(
      process.execPath,
      [kartaBin, "controller", "--kubeconfig", kubeconfig, "--metrics-bind-address", "127.0.0.1:0", "--health-probe-bind-address", "0",
        "--leader-elect-resource-namespace", namespace, "--leader-elect-resource-name", lease,
        "--leader-elect-lease-duration", "4s", "--leader-elect-renew-deadline", "3s", "--leader-elect-retry-period", "500ms"],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    this.child.stderr!.on("data", (b: Buffer) => (this.err += b.toString()));
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  /** The fields of the first log line with this message, or undefined. */
  logged(msg: string): Record<string, any> | undefined {
    const line = this.err.split("\n").find((l) => l.includes(`"msg":${JSON.stringify(msg)}`));
    return line === undefined ? undefined : (JSON.parse(line) as Record<string, any>);
  }

  async metricsPort(): Promise<number> {
    return eventually(async () => this.logged("serving endpoints")?.["metricsPort"] as number | undefined, 30_000, `the endpoints (stderr: ${this.err})`);
  }

  /** Successful workload reconciles so far (0 while standing by: the reconcilers are not started). */
  async workloadReconciles(): Promise<number> {
    const body = await (await fetch(`http://127.0.0.1:${await this.metricsPort()}/metrics`)).text();
    return sample(body, "controller_runtime_reconcile_total", 'controller="workload",result="success"') ?? 0;
  }

  kill(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }
}

/** Creates a PyTorchJob named `name` and its pods as the training operator does (owner reference, labels); the job. */
async function createJob(c: TestCluster, ns: string, name: string, workers = 2): Promise<Obj> {
  const fixture = fixtureCases().find((x) => x.name === "PyTorchJob")!;
  const w = structuredClone(fixture.workload) as Obj;
  w.metadata = { name, namespace: ns };
  delete w.status;
  w.spec.pytorchReplicaSpecs.Worker.replicas = workers;
  w.spec.runPolicy.schedulingPolicy.minAvailable = workers + 1;
  const job = (await c.objects.create(w)) as Obj;
  const template = (fixture.pods as Obj[])[0]!;
  for (const [type, index] of [["master", 0], ...Array.from({ length: workers }, (_, i) => ["worker", i] as const)] as const) {
    const c0 = template.spec.containers[0];
    const pod = trainingOperatorPod(job, type, index, { name: "pytorch", image: c0.image, resources: c0.resources });
    await c.objects.create(pod);
  }
  return job;
}

/** Removes a deleted PodGroup's finalizers, as the controllers of a full cluster would. */
async function unfinalize(c: TestCluster, name: string, ns: string): Promise<void> {
  const got = await attempt(() => c.objects.read({ apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup", metadata: { name, namespace: ns } }));
  if (!got.ok || !(got.object.metadata?.finalizers ?? []).length) return;
  await c.objects.patch({ apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup", metadata: { name, namespace: ns, finalizers: null } } as never, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);
}

/** Every group object in the namespace, by kind/name, with uid and resourceVersion. */
async function groups(c: TestCluster, ns: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [apiVersion, kind] of [["scheduling.k8s.io/v1beta1", "Workload"], ["scheduling.k8s.io/v1beta1", "PodGroup"], ["scheduling.k8s.io/v1alpha3", "CompositePodGroup"]] as const) {
    for (const o of (await c.objects.list(apiVersion, kind, ns)).items) out[`${kind}/${o.metadata!.name}`] = `${o.metadata!.uid}@${o.metadata!.resourceVersion}`;
  }
  return out;
}

async function groupsCreatedEvents(c: TestCluster, ns: string): Promise<string[]> {
  const events = await c.core.listNamespacedEvent({ namespace: ns });
  return events.items.filter((e) => e.reason === "GroupsCreated").map((e) => `${e.involvedObject.name}: ${e.message}`).sort();
}

/** A Workload and at least one PodGroup per job (the namespace holds only this file's jobs). */
function hasGroupsFor(g: Record<string, string>, jobs: Obj[]): boolean {
  const count = (kind: string) => Object.keys(g).filter((k) => k.startsWith(`${kind}/`)).length;
  return count("Workload") === jobs.length && count("PodGroup") >= jobs.length;
}

describe("karta controller replicas (processes) under the role karta rbac prints", { skip, concurrency: false }, () => {
  const c = cluster as TestCluster;
  const dir = mkdtempSync(path.join(tmpdir(), "karta-controller-ha-"));
  const kartaName = `pytorchjob-ha-${suffix}`;
  let ns: string;
  let kubeconfig: string;
  const replicas: Replica[] = [];
  const start = (lease: string): Replica => {
    const r = new Replica(kubeconfig, ns, lease);
    replicas.push(r);
    return r;
  };

  before(async () => {
    await installKartaCrd(c);
    const crd = parse(readFileSync(path.join(repoRoot, "test", "fixtures", "definition", "crds", "kubeflow.org_pytorchjobs.yaml"), "utf8")) as KubernetesObject;
    const r = await attempt(() => c.objects.create(crd));
    assert.ok(r.ok || r.reason === "AlreadyExists", r.ok ? "" : r.message);
    ns = await testNamespace({ name: "controller-ha" } as never, c);
    // Exactly the RBAC the command prints for this Karta, not one built in-process: its ClusterRole, and
    // the Role of each Lease the tests elect on (one run per Lease name, each Role named after it).
    const rbac = (...args: string[]) => (JSON.parse(execFileSync(process.execPath, [kartaBin, "rbac", "-d", PYTORCH_KARTA, "-n", ns, "-o", "json", ...args], { encoding: "utf8" })) as { items: RbacRole[] }).items;
    const roles = rbac("--name", `karta-ha-${suffix}`).filter((r) => r.kind === "ClusterRole");
    for (const lease of LEASES) roles.push(...rbac("--name", lease, "--leader-elect-resource-name", lease).filter((r) => r.kind === "Role"));
    const { kc } = await asServiceAccount(c, ns, roles);
    kubeconfig = path.join(dir, "kubeconfig");
    writeFileSync(kubeconfig, kc.exportConfig());
    const karta = parse(readFileSync(PYTORCH_KARTA, "utf8")) as Obj;
    karta.metadata = { name: kartaName };
    await c.objects.create(karta);
  });
  after(async () => {
    for (const r of replicas) r.kill("SIGKILL");
    await Promise.all(replicas.map((r) => r.exited));
    rmSync(dir, { recursive: true, force: true });
    await attempt(() => c.objects.delete({ apiVersion: "run.ai/v1alpha1", kind: "Karta", metadata: { name: kartaName } }));
  });

  test("two replicas: one leads and reconciles; kill -9 of the leader hands over within the lease duration", async () => {
    const lease = "karta-ha-election";
    const pair = [start(lease), start(lease)];
    const leader = await eventually(async () => pair.find((r) => r.logged("reconciling")), 30_000, "a leader");
    const follower = pair.find((r) => r !== leader)!;
    const leaderId = leader.logged("became leader")!["identity"] as string;
    const leaseObj = (await c.objects.read({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: lease, namespace: ns } })) as Obj;
    assert.equal(leaseObj.spec.holderIdentity, leaderId, "the Lease names the replica that logged leadership");

    const first = await createJob(c, ns, `ha-first-${suffix}`);
    await eventually(async () => (hasGroupsFor(await groups(c, ns), [first]) ? true : undefined), 30_000, "the first job's groups");
    await eventually(async () => ((await leader.workloadReconciles()) >= 1 ? true : undefined), 10_000, "the leader's reconcile count");
    // The standby has not reconciled: no leadership, no reconciler started, no reconcile counted.
    assert.equal(follower.logged("became leader"), undefined, follower.err);
    assert.equal(follower.logged("reconciling"), undefined, follower.err);
    assert.equal(await follower.workloadReconciles(), 0);

    // The leader dies without releasing the Lease (SIGKILL): the standby waits out the lease duration (4 s).
    const killed = Date.now();
    leader.kill("SIGKILL");
    await leader.exited;
    await eventually(async () => (follower.logged("reconciling") ? true : undefined), 15_000, `the standby to take over (stderr: ${follower.err})`);
    const handover = Date.now() - killed;
    assert.ok(handover <= 4000 + 3 * 500 + 1000, `handover took ${handover} ms (lease duration 4 s, retry period 500 ms)`);
    const after = (await c.objects.read({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: lease, namespace: ns } })) as Obj;
    assert.equal(after.spec.holderIdentity, follower.logged("became leader")!["identity"]);
    assert.notEqual(after.spec.holderIdentity, leaderId);
    assert.equal(after.spec.leaseTransitions, (leaseObj.spec.leaseTransitions ?? 0) + 1);

    // The new leader reconciles objects created after the handover.
    const before = await follower.workloadReconciles();
    const second = await createJob(c, ns, `ha-second-${suffix}`);
    await eventually(async () => (hasGroupsFor(await groups(c, ns), [first, second]) ? true : undefined), 30_000, "the second job's groups");
    await eventually(async () => ((await follower.workloadReconciles()) > before ? true : undefined), 10_000, "the new leader's reconcile count to grow");
    follower.kill("SIGTERM");
    assert.equal(await follower.exited, 0, follower.err);
  });

  test("restarted with existing jobs (SIGTERM, then start again): nothing is duplicated", async () => {
    const lease = "karta-ha-restart";
    // The jobs of the first test (when it ran) and two more.
    const jobs = (await c.objects.list("kubeflow.org/v1", "PyTorchJob", ns)).items as Obj[];
    jobs.push(await createJob(c, ns, `ha-third-${suffix}`, 3), await createJob(c, ns, `ha-fourth-${suffix}`, 1));
    const one = start(lease);
    await eventually(async () => (hasGroupsFor(await groups(c, ns), jobs) ? true : undefined), 30_000, "every job's groups");
    await eventually(async () => ((await one.workloadReconciles()) >= jobs.length ? true : undefined), 30_000, "a reconcile of every job");
    const before = await groups(c, ns);
    const eventsBefore = await eventually(async () => {
      const e = await groupsCreatedEvents(c, ns);
      return e.length >= jobs.length ? e : undefined;
    }, 10_000, "a GroupsCreated Event per job");
    one.kill("SIGTERM");
    assert.equal(await one.exited, 0, one.err);

    const two = start(lease);
    await eventually(async () => (two.logged("reconciling") ? true : undefined), 30_000, `the restarted controller to lead (stderr: ${two.err})`);
    // It reconciles every existing job again (its informers list them) ...
    await eventually(async () => ((await two.workloadReconciles()) >= jobs.length ? true : undefined), 30_000, "a reconcile of every job after the restart");
    // ... and a pause lets any write it would make land before comparing.
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(await groups(c, ns), before, "groups recreated, updated, added or removed by the restart");
    assert.deepEqual(await groupsCreatedEvents(c, ns), eventsBefore, "GroupsCreated Events recorded again after the restart");
    two.kill("SIGTERM");
    assert.equal(await two.exited, 0, two.err);
  });

  test("a group deleted by someone else is made again; a stray group owned by a job is deleted", async () => {
    const one = start("karta-ha-heal");
    await eventually(async () => (one.logged("reconciling") ? true : undefined), 30_000, `the controller to lead (stderr: ${one.err})`);
    const job = await createJob(c, ns, `ha-heal-${suffix}`);
    const podGroup = await eventually(async () => {
      const list = (await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", ns)).items as Obj[];
      return list.find((g) => g.metadata!.ownerReferences?.some((r: { uid: string }) => r.uid === job.metadata!.uid));
    }, 30_000, "a PodGroup of the job");
    await c.objects.delete({ apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup", metadata: { name: podGroup.metadata!.name!, namespace: ns } });
    // The API server adds a protection finalizer that the scheduler's controllers remove; none run here.
    await unfinalize(c, podGroup.metadata!.name!, ns);
    await eventually(async () => {
      const got = await attempt(() => c.objects.read({ apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup", metadata: { name: podGroup.metadata!.name!, namespace: ns } }));
      return got.ok && got.object.metadata!.uid !== podGroup.metadata!.uid ? true : undefined;
    }, 30_000, `PodGroup ${podGroup.metadata!.name} made again`);

    const stray: Obj = {
      apiVersion: "scheduling.k8s.io/v1beta1",
      kind: "PodGroup",
      metadata: { name: `ha-heal-${suffix}-stray`, namespace: ns, ownerReferences: [{ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: job.metadata!.name!, uid: job.metadata!.uid!, controller: true }] },
      spec: { ...podGroup.spec },
    };
    await c.objects.create(stray);
    await eventually(async () => {
      const got = await attempt(() => c.objects.read({ apiVersion: stray.apiVersion!, kind: stray.kind!, metadata: { name: stray.metadata!.name!, namespace: ns } }));
      return (got.ok && got.object.metadata?.deletionTimestamp) || (!got.ok && got.code === 404) ? true : undefined;
    }, 30_000, "the stray PodGroup to be deleted");
    await unfinalize(c, stray.metadata!.name!, ns);
    one.kill("SIGTERM");
    assert.equal(await one.exited, 0, one.err);
  });
});
