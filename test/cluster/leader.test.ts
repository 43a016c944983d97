/**
 * Leader election on a real kube-apiserver's Lease, as the service account bound to the role `karta rbac`
 * generates: of two replicas one leads; when the leader dies the other takes over within the lease
 * duration; a leader that stops gracefully hands over at once.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LeaderElector } from "../../src/controller/leader.js";
import { controllerClusterRole } from "../../src/controller/rbac.js";
import { silentLogger } from "../../src/controller/log.js";
import { asServiceAccount, eventually, testCluster, testNamespace, type TestCluster, kubeClient } from "../support/cluster.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;

describe("leader election on a Lease", { skip }, () => {
  const c = cluster as TestCluster;

  test("one of two replicas leads; the other takes over within the lease duration, or at once after a release", async (t) => {
    const ns = await testNamespace(t, c);
    const { kc } = await asServiceAccount(c, ns, controllerClusterRole([]));
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
});
