/**
 * Leader election on a real kube-apiserver's Lease, as the service account bound to the RBAC `karta rbac`
 * generates: of two replicas one leads; when the leader dies the other takes over within the lease
 * duration; a leader that stops gracefully hands over at once. The Role reaches the controller's own
 * Leases only (each shard's, by name), nothing in another namespace.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LeaderElector } from "../../src/controller/leader.js";
import { controllerRbac, leaderElectionRole } from "../../src/controller/rbac.js";
import { apiError, resourcePath } from "../../src/controller/client.js";
import { silentLogger } from "../../src/controller/log.js";
import { asServiceAccount, eventually, testCluster, testNamespace, type TestCluster, kubeClient } from "../support/cluster.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;

describe("leader election on a Lease", { skip }, () => {
  const c = cluster as TestCluster;

  test("one of two replicas leads; the other takes over within the lease duration, or at once after a release", async (t) => {
    const ns = await testNamespace(t, c);
    const { kc } = await asServiceAccount(c, ns, controllerRbac([], { namespace: ns }));
    const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 400 };
    const events: string[] = [];
    const client = kubeClient(kc);
    const replica = (id: string) =>
      new LeaderElector(
        client,
        { namespace: ns, name: "karta-controller", identity: id, ...timing },
        { onStartedLeading: () => void events.push(`${id} leads`), onStoppedLeading: () => void events.push(`${id} stops`) },
        silentLogger,
      );
    const a = replica("a");
    const b = replica("b");
    const c2 = replica("c");
    // A failed assertion must not leave a campaign running (it would keep the test process alive).
    t.after(() => Promise.all([a.abandon(), b.abandon(), c2.abandon()]));
    void a.run();
    await eventually(async () => (a.isLeader() ? true : undefined), 10_000, "a to lead");
    void b.run();
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(b.isLeader(), false, "two leaders");

    // The leader dies without releasing: b waits out the lease.
    const died = Date.now();
    await a.abandon();
    await eventually(async () => (b.isLeader() ? true : undefined), 10_000, "b to take over");
    const handover = Date.now() - died;
    assert.ok(handover <= timing.leaseDurationMs + 3 * timing.retryPeriodMs, `handover took ${handover} ms`);
    assert.ok(handover >= timing.leaseDurationMs - timing.retryPeriodMs, `b took over after ${handover} ms, before the lease expired`);

    // A graceful stop releases the Lease: a new replica leads at once.
    void c2.run();
    const released = Date.now();
    await b.release();
    await eventually(async () => (c2.isLeader() ? true : undefined), 10_000, "c to take over");
    assert.ok(Date.now() - released < timing.leaseDurationMs, `took ${Date.now() - released} ms after a release`);
    await c2.release();
    assert.deepEqual(events, ["a leads", "b leads", "b stops", "c leads", "c stops"]);
    const lease = await c.objects.read({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "karta-controller", namespace: ns } });
    assert.equal((lease as { spec?: { leaseTransitions?: number } }).spec?.leaseTransitions, 2);
  });

  test("the Role reaches this namespace's Leases of the controller only: each shard's by name; no other Lease, none elsewhere", async (t) => {
    const ns = await testNamespace(t, c);
    const elsewhere = await testNamespace(t, c);
    const role = leaderElectionRole({ namespace: ns, leaseName: "karta-sharded", totalShards: 2 });
    assert.deepEqual(role.rules.find((r) => r.resourceNames)?.resourceNames, ["karta-sharded-shard-0", "karta-sharded-shard-1"]);
    const { kc } = await asServiceAccount(c, ns, role);
    const client = kubeClient(kc);
    const timing = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 400 };
    const shard = new LeaderElector(client, { namespace: ns, name: "karta-sharded-shard-1", identity: "shard-1", ...timing }, { onStartedLeading: () => undefined, onStoppedLeading: () => undefined }, silentLogger);
    t.after(() => shard.abandon());
    void shard.run();
    await eventually(async () => (shard.isLeader() ? true : undefined), 10_000, "shard 1 to lead on its Lease");
    // It renews (get, update) past a retry period, then releases (get, update).
    await new Promise((r) => setTimeout(r, 3 * timing.retryPeriodMs));
    assert.ok(shard.isLeader(), "still leading after renewals");
    await shard.release();
    const held = (await c.objects.read({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "karta-sharded-shard-1", namespace: ns } })) as { spec?: { holderIdentity?: string } };
    assert.equal(held.spec?.holderIdentity ?? "", "", "released");

    const lease = (namespace: string, name: string) => ({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name, namespace }, spec: { holderIdentity: "intruder" } });
    const code = async (request: () => Promise<unknown>): Promise<number | undefined> => {
      try {
        await request();
        return 200;
      } catch (err) {
        return apiError(err)?.code;
      }
    };
    // A Lease of another name here can be created (RBAC cannot restrict a create by name), not read or written.
    assert.equal(await code(() => client.create(resourcePath("coordination.k8s.io/v1", "leases", ns), lease(ns, "other"))), 200);
    assert.equal(await code(() => client.get(resourcePath("coordination.k8s.io/v1", "leases", ns, "other"), { retryBudgetMs: 0 })), 403);
    assert.equal(await code(() => client.replace(resourcePath("coordination.k8s.io/v1", "leases", ns, "other"), lease(ns, "other"), { retryBudgetMs: 0 })), 403);
    // Nothing in another namespace: not the scheduler's Lease, not a node's heartbeat.
    for (const [namespace, name] of [[elsewhere, "karta-sharded-shard-0"], ["kube-system", "kube-scheduler"], ["kube-node-lease", "node-1"]] as const) {
      assert.equal(await code(() => client.create(resourcePath("coordination.k8s.io/v1", "leases", namespace), lease(namespace, name), { retryBudgetMs: 0 })), 403, `create ${namespace}/${name}`);
      assert.equal(await code(() => client.replace(resourcePath("coordination.k8s.io/v1", "leases", namespace, name), lease(namespace, name), { retryBudgetMs: 0 })), 403, `update ${namespace}/${name}`);
    }
  });
});
