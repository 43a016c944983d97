import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compileJob, validateJobScheduling, validatePodGroup, validateWorkload, type Job } from "../../src/scheduling/index.js";
import { render, trainingJob } from "./fixtures.js";

const jobOwner = {
  apiVersion: "batch/v1",
  kind: "Job",
  name: "llm-pretrain",
  uid: "0f5c7f64-8b1d-4a8e-9d0a-2b3c4d5e6f70",
  controller: true,
  blockOwnerDeletion: true,
};

describe("compileJob", () => {
  test("a gang training Job with parallelism 8 gets a Workload, a PodGroup and the pods' schedulingGroup", () => {
    const r = compileJob(trainingJob());
    assert.ok(r.ok, !r.ok ? r.error : "");
    const { workload, podGroup, schedulingGroup, templateName } = r.value;
    assert.equal(templateName, "llm-pretrain-pgt-0");
    assert.deepEqual(workload, {
      apiVersion: "scheduling.k8s.io/v1beta1",
      kind: "Workload",
      metadata: { name: "llm-pretrain-6b68cf7cdb", namespace: "ml-training", ownerReferences: [jobOwner] },
      spec: {
        controllerRef: { apiGroup: "batch", kind: "Job", name: "llm-pretrain" },
        podGroupTemplates: [
          {
            name: "llm-pretrain-pgt-0",
            schedulingPolicy: { gang: { minCount: 8 } },
            schedulingConstraints: { topology: [{ key: "topology.kubernetes.io/rack" }] },
            disruptionMode: { all: {} },
            priorityClassName: "training-high",
          },
        ],
      },
    });
    assert.deepEqual(podGroup, {
      apiVersion: "scheduling.k8s.io/v1beta1",
      kind: "PodGroup",
      metadata: { name: "llm-pretrain-6b68cf7cdb-llm-pretrain-pgt-0-78785cc4b6", namespace: "ml-training", ownerReferences: [jobOwner] },
      spec: {
        workloadRef: { workloadName: "llm-pretrain-6b68cf7cdb", templateName: "llm-pretrain-pgt-0" },
        schedulingPolicy: { gang: { minCount: 8 } },
        schedulingConstraints: { topology: [{ key: "topology.kubernetes.io/rack" }] },
        disruptionMode: { all: {} },
        priorityClassName: "training-high",
      },
    });
    assert.deepEqual(schedulingGroup, { podGroupName: podGroup.metadata.name });
    assert.deepEqual(render(validateWorkload(workload)), []);
    assert.deepEqual(render(validatePodGroup(podGroup)), []);
    // The Job itself is not touched: minCount stays unset in its spec.
    const job = trainingJob();
    compileJob(job);
    assert.deepEqual(job.spec.scheduling!.schedulingPolicy, { gang: {} });
  });

  test("no spec.scheduling still yields a basic Workload and PodGroup", () => {
    const job = trainingJob();
    delete job.spec.scheduling;
    delete job.spec.template.spec.priorityClassName;
    const r = compileJob(job);
    assert.ok(r.ok);
    assert.deepEqual(r.value.workload?.spec.podGroupTemplates, [{ name: "llm-pretrain-pgt-0", schedulingPolicy: { basic: {} } }]);
    assert.deepEqual(r.value.podGroup.spec.schedulingPolicy, { basic: {} });
  });

  const minCounts: Array<[string, number | undefined, number | undefined, number]> = [
    ["explicit minCount wins over parallelism", 8, 6, 6],
    ["unset minCount takes parallelism", 8, undefined, 8],
    ["suspended Job with parallelism 0 gets 1", 0, undefined, 1],
    ["unset parallelism counts as 1", undefined, undefined, 1],
  ];
  for (const [name, parallelism, minCount, want] of minCounts) {
    test(`gang minCount: ${name}`, () => {
      const job = trainingJob();
      if (parallelism === undefined) delete job.spec.parallelism;
      else job.spec.parallelism = parallelism;
      job.spec.scheduling!.schedulingPolicy = { gang: minCount === undefined ? {} : { minCount } };
      const r = compileJob(job);
      assert.ok(r.ok);
      assert.deepEqual(r.value.podGroup.spec.schedulingPolicy, { gang: { minCount: want } });
    });
  }

  test("shared GPU claims are copied to the template and the PodGroup", () => {
    const job = trainingJob();
    job.spec.scheduling!.resourceClaims = [{ name: "nvlink-domain", resourceClaimTemplateName: "gb200-nvl72" }];
    const r = compileJob(job);
    assert.ok(r.ok);
    assert.deepEqual(r.value.podGroup.spec.resourceClaims, [{ name: "nvlink-domain", resourceClaimTemplateName: "gb200-nvl72" }]);
  });

  test("with the stored Workload's UID the PodGroup also points at the Workload", () => {
    const r = compileJob(trainingJob(), { workloadUID: "5b9e0c1d-2e3f-4a5b-8c7d-9e0f1a2b3c4d" });
    assert.ok(r.ok);
    assert.deepEqual(r.value.podGroup.metadata.ownerReferences, [
      jobOwner,
      { apiVersion: "scheduling.k8s.io/v1beta1", kind: "Workload", name: "llm-pretrain-6b68cf7cdb", uid: "5b9e0c1d-2e3f-4a5b-8c7d-9e0f1a2b3c4d" },
    ]);
  });

  test("a Job without a UID cannot be named", () => {
    const job = trainingJob();
    delete job.metadata.uid;
    assert.deepEqual(compileJob(job), { ok: false, error: "the Job has no metadata.uid: the Workload name is derived from it" });
  });
});

describe("validateJobScheduling", () => {
  test("the training Job is valid", () => {
    assert.deepEqual(validateJobScheduling(trainingJob()), []);
  });

  test("all with basic is rejected at spec.scheduling.disruptionMode", () => {
    const job = trainingJob();
    job.spec.scheduling!.schedulingPolicy = { basic: {} };
    assert.deepEqual(render(validateJobScheduling(job)), [
      'spec.scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not supported with the Basic scheduling policy',
    ]);
  });

  test("on update only schedulingPolicy.gang.minCount may change", () => {
    const old: Job = trainingJob();
    old.spec.scheduling!.schedulingPolicy = { gang: { minCount: 8 } };
    const scaled = structuredClone(old);
    scaled.spec.scheduling!.schedulingPolicy = { gang: { minCount: 4 } };
    scaled.spec.parallelism = 4;
    assert.deepEqual(validateJobScheduling(scaled, old), []);

    const moved = structuredClone(old);
    moved.spec.scheduling!.schedulingConstraints = { topology: [{ key: "topology.kubernetes.io/zone" }] };
    moved.spec.scheduling!.resourceClaims = [{ name: "gpus", resourceClaimName: "rack-7" }];
    assert.deepEqual(render(validateJobScheduling(moved, old)), [
      "spec.scheduling.schedulingConstraints: Invalid value: null: field is immutable",
      "spec.scheduling.resourceClaims: Invalid value: null: field is immutable",
    ]);
  });
});
