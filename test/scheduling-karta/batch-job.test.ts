/** A plain batch/v1 Job compiled as the Job integration does, with the bridge's checks and pod patches. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFileSync } from "node:fs";
import { parseObjects } from "../../src/cli/objects.js";
import { compileBatchJob, isBatchJob } from "../../src/scheduling/karta/batch-job.js";
import type { Job } from "../../src/scheduling/index.js";
import type { CompileIssue } from "../../src/scheduling/karta/issues.js";
import { bundledObject, compileFixture, compileFixtures, emittedErrors, variant } from "./helpers.js";

const job = (): Job => compileFixture("job-gang.yaml") as unknown as Job;
const pods = () => parseObjects(readFileSync(path.join(compileFixtures, "job-gang-pods.yaml"), "utf8"), "job-gang-pods.yaml");
const errors = (r: { issues: CompileIssue[] }): CompileIssue[] => r.issues.filter((i) => i.severity === "error");

describe("compileBatchJob", () => {
  test("a gang without minCount gets the parallelism; topology and priority class carried", () => {
    assert.ok(isBatchJob(job()));
    const r = compileBatchJob(job(), { pods: pods() });
    assert.ok(r.ok, JSON.stringify(r.issues));
    const [t] = r.workload!.spec.podGroupTemplates!;
    assert.deepEqual(t, {
      name: "allreduce-bench-pgt-0",
      schedulingPolicy: { gang: { minCount: 4 } },
      schedulingConstraints: { topology: [{ key: "cloud.provider.com/topology-rack" }] },
      priorityClassName: "perf-high",
    });
    assert.equal(r.podGroups.length, 1);
    // Two pods of the Job patched; the other Job's pod reported, not patched.
    assert.deepEqual(r.podPatches.map((p) => p.pod.name), ["allreduce-bench-0-x7k2p", "allreduce-bench-1-m4q9d"]);
    const stray = r.issues.find((i) => i.pod === "perf/other-job-0-abcde")!;
    assert.equal(stray.severity, "warning");
    assert.deepEqual(emittedErrors(r), []);
  });

  test("pods of an earlier Job of the same name, or of another namespace, are not the Job's", () => {
    const [first] = pods() as Record<string, { name: string; namespace?: string; labels: Record<string, string>; ownerReferences?: { uid: string }[] }>[];
    // Left over from a Job deleted and created again under the same name: same name and labels, the old UID.
    const earlier = structuredClone(first!);
    earlier.metadata!.name = "allreduce-bench-0-old01";
    earlier.metadata!.labels["batch.kubernetes.io/controller-uid"] = "9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a";
    earlier.metadata!.ownerReferences![0]!.uid = "9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a";
    // Labelled only (no owner references), in another namespace.
    const elsewhere = structuredClone(first!);
    elsewhere.metadata!.name = "allreduce-bench-0-ns001";
    elsewhere.metadata!.namespace = "staging";
    delete elsewhere.metadata!.ownerReferences;
    // Labelled only, in the Job's namespace: the Job's.
    const labelled = structuredClone(first!);
    labelled.metadata!.name = "allreduce-bench-0-lbl01";
    delete labelled.metadata!.ownerReferences;
    const r = compileBatchJob(job(), { pods: [first, earlier, elsewhere, labelled] });
    assert.ok(r.ok, JSON.stringify(r.issues));
    assert.deepEqual(r.podPatches.map((p) => p.pod.name), ["allreduce-bench-0-x7k2p", "allreduce-bench-0-lbl01"]);
    assert.deepEqual(
      r.issues.filter((i) => i.code === "pod-unmatched").map((i) => i.pod),
      ["perf/allreduce-bench-0-old01", "staging/allreduce-bench-0-ns001"],
    );
  });

  test("no spec.scheduling: basic, and still a Workload and a PodGroup", () => {
    const r = compileBatchJob(bundledObject("Job") as unknown as Job);
    assert.ok(r.ok, JSON.stringify(r.issues));
    assert.deepEqual(r.podGroups[0]!.spec.schedulingPolicy, { basic: {} });
    assert.deepEqual(emittedErrors(r), []);
  });

  test("--policy gang on a Job without scheduling: max(1, parallelism); unset parallelism counts as 1", () => {
    const r = compileBatchJob(bundledObject("Job") as unknown as Job, { policy: "gang" });
    assert.deepEqual(r.podGroups[0]!.spec.schedulingPolicy, { gang: { minCount: 3 } });
    const noParallelism = variant(bundledObject("Job") as unknown as Job, (j) => delete j.spec.parallelism);
    assert.deepEqual(compileBatchJob(noParallelism, { policy: "gang" }).podGroups[0]!.spec.schedulingPolicy, { gang: { minCount: 1 } });
    // Replacing the Job's own block is said.
    const basic = compileBatchJob(job(), { policy: "basic" });
    assert.deepEqual(basic.podGroups[0]!.spec.schedulingPolicy, { basic: {} });
    assert.ok(basic.issues.some((i) => i.code === "option-override" && i.path === "spec.scheduling.schedulingPolicy"));
  });

  test("bad spec.scheduling is reported at its field", () => {
    const bad = variant(job(), (j) => void (j.spec.scheduling!.schedulingPolicy = { gang: { minCount: -2 } }));
    const r = compileBatchJob(bad);
    assert.equal(r.ok, false);
    assert.equal(r.workload, undefined);
    assert.deepEqual(
      errors(r).map((e) => e.path),
      ["spec.scheduling.schedulingPolicy.gang.minCount"],
    );
    const allBasic = variant(job(), (j) => void (j.spec.scheduling = { schedulingPolicy: { basic: {} }, disruptionMode: { all: {} } }));
    const e = errors(compileBatchJob(allBasic));
    assert.equal(e.length, 1);
    assert.match(e[0]!.message, /the disruptionMode `all` is not supported with the Basic scheduling policy/);
  });

  test("a Job name too long for its template name <job>-pgt-0 is an error at metadata.name", () => {
    const long = variant(job(), (j) => void (j.metadata.name = "nccl-allreduce-benchmark-across-all-racks-of-the-cluster-x"));
    const r = compileBatchJob(long);
    const e = errors(r);
    assert.equal(e.length, 1);
    assert.equal(e[0]!.path, "metadata.name");
    assert.match(e[0]!.message, /PodGroupTemplate is named "nccl-allreduce-benchmark-across-all-racks-of-the-cluster-x-pgt-0", which must be no more than 63 bytes/);
  });

  test("a Job that was never stored (no uid) cannot own a Workload", () => {
    const r = compileBatchJob(variant(job(), (j) => delete j.metadata.uid));
    assert.deepEqual(errors(r).map((e) => e.path), ["metadata.uid"]);
  });
});
