/**
 * Ownership deeper than one level: a pod owned by a Job (ReplicaSet...) that the root owns is traced
 * through the objects given with the workload to the root, and a pod of another root's Job is told apart.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compileInterpreter } from "../../src/interpret/index.js";
import { compileKarta } from "../../src/scheduling/karta.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { clone, fixtureCases, fixturesDir, loadBundled } from "../bundled/helpers.js";

const jobset = fixtureCases().find((c) => c.name === "JobSet")!;
const deployment = fixtureCases().find((c) => c.name === "Deployment")!;

function meta(o: unknown): Record<string, unknown> {
  return (o as { metadata: Record<string, unknown> }).metadata;
}

/** The Job a JobSet pod names as its owner, owned by `owner` (a JobSet reference). */
function jobOf(pod: unknown, owner: Record<string, unknown>): Record<string, unknown> {
  const ref = (meta(pod).ownerReferences as Record<string, unknown>[])[0]!;
  return { apiVersion: "batch/v1", kind: "Job", metadata: { name: ref.name, namespace: meta(pod).namespace, uid: ref.uid, ownerReferences: [owner] } };
}

describe("pods traced through the objects between them and the root", () => {
  const interpreter = compileInterpreter(loadBundled("jobset.x-k8s.io/v1alpha2/JobSet.yaml").definition);
  const ours = { apiVersion: "jobset.x-k8s.io/v1alpha2", kind: "JobSet", name: meta(jobset.workload).name, uid: meta(jobset.workload).uid, controller: true };
  const theirs = { apiVersion: "jobset.x-k8s.io/v1alpha2", kind: "JobSet", name: "other-run", uid: "0b1c2d3e-4f50-4617-8a9b-0c1d2e3f4a5b", controller: true };

  test("a pod of a Job the JobSet owns is this JobSet's; one of another JobSet's Job is not (named with the chain)", () => {
    const stranger = clone(jobset.pods[0]!);
    meta(stranger).name = "other-run-driver-0-0-abcde";
    (meta(stranger).ownerReferences as Record<string, unknown>[])[0]!.uid = "9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a";
    (meta(stranger).ownerReferences as Record<string, unknown>[])[0]!.name = "other-run-driver-0";
    const jobs = [...new Map(jobset.pods.map((p) => [String((meta(p).ownerReferences as Record<string, unknown>[])[0]!.uid), jobOf(p, ours)])).values(), jobOf(stranger, theirs)];
    const r = interpreter.interpret(jobset.workload, { pods: [...jobset.pods, stranger], children: jobs });
    const got = r.pods.find((p) => p.pod.name === "other-run-driver-0-0-abcde")!;
    assert.equal(got.component, undefined);
    assert.equal(got.reason, "pod other-run-driver-0-0-abcde belongs to JobSet other-run (uid 0b1c2d3e-4f50-4617-8a9b-0c1d2e3f4a5b) through Job other-run-driver-0, not to this JobSet llm-pretrain");
    assert.equal(r.pods.filter((p) => p.component === "replicatedjob").length, jobset.pods.length);
    // Without the Jobs the chain cannot be followed: the stranger is not judged (and fails on its instance).
    const blind = interpreter.interpret(jobset.workload, { pods: [...jobset.pods, stranger] });
    assert.equal(blind.pods.find((p) => p.pod.name === "other-run-driver-0-0-abcde")!.component, "replicatedjob");
  });

  test("a pod in another namespace is not the JobSet's (owner references do not cross namespaces); without namespaces nothing is judged", () => {
    const elsewhere = clone(jobset.pods[0]!);
    meta(elsewhere).namespace = "elsewhere";
    meta(elsewhere).name = "moved-pod";
    const r = interpreter.interpret(jobset.workload, { pods: [...jobset.pods, elsewhere] });
    const got = r.pods.find((p) => p.pod.name === "moved-pod")!;
    assert.equal(got.component, undefined);
    assert.equal(got.reason, `pod moved-pod is in namespace elsewhere, not in the JobSet's namespace ${String(meta(jobset.workload).namespace)}: owner references do not cross namespaces`);
    const c = compileKarta(loadBundled("jobset.x-k8s.io/v1alpha2/JobSet.yaml").definition, jobset.workload, { pods: [...jobset.pods, elsewhere] });
    assert.equal(c.podPatches.length, jobset.pods.length);
    const bare = clone(elsewhere);
    delete meta(bare).namespace;
    assert.equal(interpreter.interpret(jobset.workload, { pods: [bare] }).pods[0]!.component, "replicatedjob");
  });

  test("compile leaves the other JobSet's pod out and patches the rest", () => {
    const stranger = clone(jobset.pods[1]!);
    meta(stranger).name = "other-run-workers-0-0-abcde";
    (meta(stranger).ownerReferences as Record<string, unknown>[])[0]!.uid = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d";
    const owners = [jobOf(stranger, theirs), ...jobset.pods.map((p) => jobOf(p, ours))];
    const c = compileKarta(loadBundled("jobset.x-k8s.io/v1alpha2/JobSet.yaml").definition, jobset.workload, { pods: [...jobset.pods, stranger], owners });
    assert.ok(c.ok, JSON.stringify(c.issues));
    assert.equal(c.podPatches.length, jobset.pods.length);
    const note = c.issues.find((i) => i.pod?.endsWith("other-run-workers-0-0-abcde"))!;
    assert.match(note.message, /belongs to JobSet other-run .* through Job /);
  });

  test("a Deployment's pods through their ReplicaSet (an additional child kind); another Deployment's ReplicaSet is told apart", () => {
    const def = compileInterpreter(loadBundled("apps/v1/Deployment.yaml").definition);
    const rsRef = (meta(deployment.pods[0]!).ownerReferences as Record<string, unknown>[])[0]!;
    const rs = { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name: rsRef.name, uid: rsRef.uid, ownerReferences: [{ apiVersion: "apps/v1", kind: "Deployment", name: "other", uid: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", controller: true }] } };
    const r = def.interpret(deployment.workload, { pods: deployment.pods, children: [rs] });
    assert.deepEqual(
      r.pods.map((p) => p.component),
      deployment.pods.map(() => undefined),
    );
    assert.match(r.pods[0]!.reason!, /belongs to Deployment other .* through ReplicaSet /);
  });

  test("a CronJob's pods through its Jobs (a child component kind); a Job of another CronJob is told apart", () => {
    const cron = fixtureCases().find((c) => c.name === "CronJob")!;
    const jobs = (parse(readFileSync(path.join(fixturesDir, "CronJob", "jobs.yaml"), "utf8")) as { items: Record<string, unknown>[] }).items;
    const def = compileInterpreter(loadBundled("batch/v1/CronJob.yaml").definition);
    const ok = def.interpret(cron.workload, { pods: cron.pods, children: jobs });
    assert.deepEqual(ok.pods.map((p) => p.component), cron.pods.map(() => "job"));
    const moved = clone(jobs);
    (meta(moved[1]).ownerReferences as Record<string, unknown>[])[0] = { apiVersion: "batch/v1", kind: "CronJob", name: "backup", uid: "c0ffee00-1111-4222-8333-444455556666", controller: true };
    const r = def.interpret(cron.workload, { pods: cron.pods, children: moved });
    assert.deepEqual(
      r.pods.map((p) => p.component ?? "-"),
      ["job", "job", "-", "-"],
    );
    assert.equal(r.groups.length, 1);
  });

  test("deeper chains: PipelineRun → TaskRun → pod, NIMService → Deployment → ReplicaSet → pod", () => {
    const list = (dir: string, file: string) => (parse(readFileSync(path.join(fixturesDir, dir, file), "utf8")) as { items: Record<string, unknown>[] }).items;
    for (const [kind, file, def] of [
      ["PipelineRun", "taskruns.yaml", "tekton.dev/v1/PipelineRun.yaml"],
      ["NIMService", "owners.yaml", "apps.nvidia.com/v1alpha1/NIMService.yaml"],
    ] as const) {
      const c = fixtureCases().find((x) => x.name === kind)!;
      const interpreter = compileInterpreter(loadBundled(def).definition);
      const owners = list(kind, file);
      const ok = interpreter.interpret(c.workload, { pods: c.pods, children: owners });
      assert.equal(ok.pods.filter((p) => p.component === undefined).length, 0, kind);
      // The top links name another root: every pod is now another workload's, named with the chain.
      const other = clone(owners);
      for (const top of other.filter((o) => ((meta(o).ownerReferences as Record<string, unknown>[]) ?? [])[0]?.kind === kind)) {
        (meta(top).ownerReferences as Record<string, unknown>[])[0]!.uid = "00000000-1111-4222-8333-444444444444";
        (meta(top).ownerReferences as Record<string, unknown>[])[0]!.name = "someone-else";
      }
      const r = interpreter.interpret(c.workload, { pods: c.pods, children: other });
      assert.equal(r.pods.filter((p) => p.component === undefined).length, c.pods.length, kind);
      assert.match(r.pods[0]!.reason!, new RegExp(`belongs to ${kind} someone-else .* through `));
    }
  });
});

describe("KAI's opt-out annotation kai.scheduler/skip-podgrouper", () => {
  const interpreter = compileInterpreter(loadBundled("jobset.x-k8s.io/v1alpha2/JobSet.yaml").definition);
  const podCount = (r: ReturnType<typeof interpreter.interpret>): number => r.groups.reduce((n, g) => n + g.members.length, 0);

  test("a pod with it is left out of KAI's groups, with a notice; the Workload API's groups still hold it", () => {
    const skipped = clone(jobset.pods[0]!);
    meta(skipped).annotations = { ...(meta(skipped).annotations as object), "kai.scheduler/skip-podgrouper": "true" };
    const pods = [skipped, ...jobset.pods.slice(1)];
    const r = interpreter.interpret(jobset.workload, { pods });
    assert.equal(podCount(r), jobset.pods.length - 1);
    assert.ok(r.diagnostics.some((d) => d.code === "gang-skip" && d.message.startsWith(`pod ${String(meta(skipped).namespace)}/${String(meta(skipped).name)} is not grouped`)));
    // Only "true" opts out, as KAI compares it.
    meta(skipped).annotations = { "kai.scheduler/skip-podgrouper": "yes" };
    assert.equal(podCount(interpreter.interpret(jobset.workload, { pods })), jobset.pods.length);
    meta(skipped).annotations = { "kai.scheduler/skip-podgrouper": "true" };
    const c = compileKarta(loadBundled("jobset.x-k8s.io/v1alpha2/JobSet.yaml").definition, jobset.workload, { pods });
    assert.equal(c.podPatches.length, jobset.pods.length);
  });

  test("a workload with it has no KAI groups at all", () => {
    const workload = clone(jobset.workload);
    meta(workload).annotations = { "kai.scheduler/skip-podgrouper": "true" };
    const r = interpreter.interpret(workload, { pods: jobset.pods });
    assert.deepEqual(r.groups, []);
    assert.ok(r.diagnostics.some((d) => d.code === "gang-skip" && d.path === 'metadata.annotations["kai.scheduler/skip-podgrouper"]'));
  });
});
