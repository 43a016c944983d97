import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  compositePodGroupAnywhere,
  fromExistingWorkload,
  groupHierarchy,
  podGroupAnywhere,
  generatePodGroupName,
  newBuilder,
  resolveSchedulingConfig,
  validateCompositePodGroup,
  validatePodGroup,
  validateWorkload,
  type Workload,
  type WorkloadItem,
} from "../../src/scheduling/index.js";
import { allOptions, jobSetOwner, leafInput, pipelineTree, render, replicatedJob } from "./fixtures.js";

describe("resolution of an item", () => {
  test("user blocks override the defaults block by block, then callbacks run in order", () => {
    const calls: string[] = [];
    const item: WorkloadItem = {
      name: "workers",
      defaultConfig: { policy: { basic: {} }, disruptionMode: { single: {} }, priorityClassName: "batch-low" },
      input: leafInput({ policy: { gang: {} }, constraints: { topology: [{ key: "cloud.google.com/gke-nodepool" }] } }),
      callbacks: [
        (cfg) => {
          calls.push("first");
          cfg.policy!.gang!.minCount = 4;
        },
        (cfg) => {
          calls.push(`second saw ${cfg.policy?.gang?.minCount}`);
        },
      ],
    };
    assert.deepEqual(resolveSchedulingConfig(item), {
      policy: { gang: { minCount: 4 } },
      constraints: { topology: [{ key: "cloud.google.com/gke-nodepool" }] },
      disruptionMode: { single: {} },
      priorityClassName: "batch-low",
    });
    assert.deepEqual(calls, ["first", "second saw 4"]);
  });

  test("an empty user block falls back to the default, and callbacks never touch the inputs", () => {
    const input = leafInput({ policy: { gang: {} }, constraints: { topology: [] }, mode: {} });
    const defaults = { policy: { basic: {} }, constraints: { topology: [{ key: "topology.kubernetes.io/zone" }] } };
    const item: WorkloadItem = {
      name: "workers",
      defaultConfig: defaults,
      input,
      callbacks: [
        (cfg) => {
          cfg.policy!.gang!.minCount = 3;
          cfg.constraints!.topology!.push({ key: "mutated" });
        },
      ],
    };
    const resolved = resolveSchedulingConfig(item);
    assert.deepEqual(resolved.policy, { gang: { minCount: 3 } });
    assert.deepEqual(input.policy!.podGroupData, { gang: {} });
    assert.deepEqual(defaults.constraints.topology, [{ key: "topology.kubernetes.io/zone" }]);
    assert.equal(resolved.disruptionMode, undefined);
  });
});

describe("WorkloadBuilder.buildWorkload", () => {
  test("compiles a composite tree into one CompositePodGroupTemplate with owner and controllerRef", () => {
    const b = newBuilder(pipelineTree(), allOptions());
    const r = b.buildWorkload();
    assert.ok(r.ok, !r.ok ? r.error : "");
    const expected: Workload = {
      apiVersion: "scheduling.k8s.io/v1beta1",
      kind: "Workload",
      metadata: { name: "rl-pipeline-wl", namespace: "ml-training", ownerReferences: [jobSetOwner] },
      spec: {
        controllerRef: { apiGroup: "jobset.x-k8s.io", kind: "JobSet", name: "rl-pipeline" },
        compositePodGroupTemplates: [
          {
            name: "rl-pipeline",
            schedulingPolicy: { gang: { minGroupCount: 2 } },
            disruptionMode: { all: {} },
            podGroupTemplates: [
              { name: "driver", schedulingPolicy: { gang: { minCount: 1 } }, disruptionMode: { all: {} } },
              {
                name: "workers",
                schedulingPolicy: { gang: { minCount: 16 } },
                schedulingConstraints: { topology: [{ key: "topology.kubernetes.io/rack" }] },
                disruptionMode: { all: {} },
                resourceClaims: [{ name: "shared-gpus", resourceClaimTemplateName: "h100-x8" }],
              },
            ],
          },
        ],
      },
    };
    assert.deepEqual(r.value, expected);
    assert.deepEqual(validateWorkload(r.value), []);
  });

  test("a core-group owner's controllerRef has no apiGroup (omitempty)", () => {
    const pod = { apiVersion: "v1", kind: "Pod", name: "cuda-debug", uid: "0e6c2a4b-9d1f-4e8a-b7c3-5f2d1a0e9c84", controller: true };
    const r = newBuilder(pipelineTree(), allOptions({ owner: pod })).buildWorkload();
    assert.ok(r.ok, !r.ok ? r.error : "");
    assert.deepEqual(r.value.spec.controllerRef, { kind: "Pod", name: "cuda-debug" });
  });

  test("the result is cached: the same object comes back", () => {
    const b = newBuilder(pipelineTree(), allOptions());
    const a = b.buildWorkload();
    const c = b.buildWorkload();
    assert.ok(a.ok && c.ok);
    assert.equal(a.value, c.value);
  });

  test("a leaf root compiles to podGroupTemplates, with no policy meaning basic", () => {
    const r = newBuilder({ name: "web-pgt-0" }, allOptions()).buildWorkload();
    assert.ok(r.ok);
    assert.deepEqual(r.value.spec.podGroupTemplates, [{ name: "web-pgt-0", schedulingPolicy: { basic: {} } }]);
    assert.equal(r.value.spec.compositePodGroupTemplates, undefined);
  });

  const failures: Array<[string, WorkloadItem, ReturnType<typeof allOptions>, string]> = [
    ["no owner", pipelineTree(), allOptions({ owner: undefined }), "a Workload must be owned by its controller for garbage collection"],
    [
      "gang without minCount after resolution",
      { name: "workers", input: leafInput({ policy: { gang: {} } }) },
      allOptions(),
      "gang scheduling requires minCount to be set after resolution",
    ],
    [
      "composite gang without minGroupCount",
      { name: "set", input: { policy: { compositePodGroupData: { gang: {} } } }, children: [replicatedJob(0, "a", leafInput({}))] },
      allOptions(),
      "composite gang scheduling requires minGroupCount to be set after resolution",
    ],
    ["empty item name", { name: "" }, allOptions(), "workload item name cannot be empty"],
    [
      "duplicate names",
      { name: "set", children: [replicatedJob(0, "a", leafInput({})), replicatedJob(1, "a", leafInput({}))] },
      allOptions(),
      'duplicate workload item name "a": template names must be unique across the Workload',
    ],
    [
      "composite item setting a leaf block",
      { name: "set", input: leafInput({ policy: { basic: {} } }), children: [replicatedJob(0, "a", leafInput({}))] },
      allOptions(),
      'composite workload item "set" sets leaf building block: policy',
    ],
    [
      "malformed owner apiVersion",
      pipelineTree(),
      allOptions({ owner: { ...jobSetOwner, apiVersion: "jobset.x-k8s.io/v1alpha2/extra" } }),
      'invalid owner apiVersion "jobset.x-k8s.io/v1alpha2/extra": unexpected GroupVersion string: jobset.x-k8s.io/v1alpha2/extra',
    ],
  ];
  for (const [name, root, options, error] of failures) {
    test(`fails: ${name}`, () => {
      const r = newBuilder(root, options).buildWorkload();
      assert.deepEqual(r, { ok: false, error });
    });
  }

  test("errors are not cached", () => {
    const job: { parallelism?: number } = {};
    const item: WorkloadItem = {
      name: "workers",
      input: leafInput({ policy: { gang: {} } }),
      callbacks: [
        (cfg) => {
          if (job.parallelism !== undefined) cfg.policy!.gang!.minCount = job.parallelism;
        },
      ],
    };
    const b = newBuilder(item, allOptions());
    assert.equal(b.buildWorkload().ok, false);
    job.parallelism = 6;
    const r = b.buildWorkload();
    assert.ok(r.ok);
    assert.deepEqual(r.value.spec.podGroupTemplates![0]!.schedulingPolicy, { gang: { minCount: 6 } });
  });
});

describe("runtime groups", () => {
  test("newPodGroup needs a Workload first", () => {
    const r = newBuilder(pipelineTree(), allOptions()).newPodGroup("workers-0", "workers");
    assert.deepEqual(r, { ok: false, error: "no Workload available: call BuildWorkload or use NewBuilderFromExistingWorkload first" });
  });

  test("a group of a nested template (Karta's hierarchy layer) copies the template, links its parent and names the owner", () => {
    const b = newBuilder(pipelineTree(), allOptions());
    const wl = b.buildWorkload();
    assert.ok(wl.ok);
    const name = generatePodGroupName("rl-pipeline-wl", "workers");
    const r = podGroupAnywhere(b, name, "workers", { parentCompositePodGroupName: "rl-pipeline-0" });
    assert.ok(r.ok);
    assert.deepEqual(r.value, {
      apiVersion: "scheduling.k8s.io/v1beta1",
      kind: "PodGroup",
      metadata: { name, namespace: "ml-training", ownerReferences: [jobSetOwner] },
      spec: {
        parentCompositePodGroupName: "rl-pipeline-0",
        workloadRef: { workloadName: "rl-pipeline-wl", templateName: "workers" },
        schedulingPolicy: { gang: { minCount: 16 } },
        schedulingConstraints: { topology: [{ key: "topology.kubernetes.io/rack" }] },
        disruptionMode: { all: {} },
        resourceClaims: [{ name: "shared-gpus", resourceClaimTemplateName: "h100-x8" }],
      },
    });
    assert.deepEqual(render(validatePodGroup(r.value)), []);
    // The group owns copies: changing it leaves the cached Workload alone.
    r.value.spec.schedulingPolicy.gang!.minCount = 1;
    assert.deepEqual(wl.value.spec.compositePodGroupTemplates![0]!.podGroupTemplates![1]!.schedulingPolicy, { gang: { minCount: 16 } });
  });

  test("newPodGroup finds only the Workload's top-level templates, as Go's: a nested one is not found", () => {
    const b = newBuilder(pipelineTree(), allOptions());
    b.buildWorkload();
    assert.deepEqual(b.newPodGroup("x", "workers"), {
      ok: false,
      error: 'podGroupTemplate "workers" not found in workload "rl-pipeline-wl" (have [])',
    });
    assert.deepEqual(podGroupAnywhere(b, "x", "evaluator"), {
      ok: false,
      error: 'podGroupTemplate "evaluator" not found anywhere in workload "rl-pipeline-wl" (have [driver workers])',
    });
  });

  test("newCompositePodGroup finds composite templates recursively", () => {
    const tree: WorkloadItem = {
      name: "league",
      input: { policy: { compositePodGroupData: { basic: {} } } },
      children: [{ ...pipelineTree(), path: "spec.pipelines[0]" }],
    };
    const b = newBuilder(tree, allOptions());
    assert.ok(b.buildWorkload().ok);
    const r = compositePodGroupAnywhere(b, "rl-pipeline-0", "rl-pipeline", { parentCompositePodGroupName: "league-0" });
    assert.ok(r.ok);
    assert.deepEqual(r.value, {
      apiVersion: "scheduling.k8s.io/v1alpha3",
      kind: "CompositePodGroup",
      metadata: { name: "rl-pipeline-0", namespace: "ml-training", ownerReferences: [jobSetOwner] },
      spec: {
        parentCompositePodGroupName: "league-0",
        workloadRef: { workloadName: "rl-pipeline-wl", templateName: "rl-pipeline" },
        schedulingPolicy: { gang: { minGroupCount: 2 } },
        disruptionMode: { all: {} },
      },
    });
    assert.deepEqual(validateCompositePodGroup(r.value), []);
    assert.deepEqual(b.newCompositePodGroup("x", "workers"), {
      ok: false,
      error: 'compositePodGroupTemplate "workers" not found in workload "rl-pipeline-wl" (have [league rl-pipeline])',
    });
  });

  test("a builder over an existing Workload materializes groups with its own owner and never compiles", () => {
    const parent = newBuilder(pipelineTree(), allOptions()).buildWorkload();
    assert.ok(parent.ok);
    const jobOwner = { apiVersion: "batch/v1", kind: "Job", name: "rl-pipeline-workers-0", uid: "uid-workers-0", controller: true, blockOwnerDeletion: true };
    const child = fromExistingWorkload(parent.value, { owner: jobOwner });
    assert.deepEqual(child.buildWorkload(), {
      ok: false,
      error: "BuildWorkload is not available on a Builder created from an existing Workload: it materializes from the supplied Workload",
    });
    // Go's NewPodGroup finds top-level templates only; the nested one is the hierarchy layer's.
    assert.equal(child.newPodGroup("rl-pipeline-workers-0", "workers").ok, false);
    const pg = podGroupAnywhere(child, "rl-pipeline-workers-0", "workers");
    assert.ok(pg.ok);
    assert.deepEqual(pg.value.metadata.ownerReferences, [jobOwner]);
    assert.equal(pg.value.spec.workloadRef!.workloadName, "rl-pipeline-wl");
  });

  test("groupHierarchy creates one instance top-down with parent links", () => {
    const b = newBuilder(pipelineTree(), allOptions());
    assert.ok(b.buildWorkload().ok);
    const h = groupHierarchy(b, (t) => `${t}-0`);
    assert.ok(h.ok);
    assert.deepEqual(
      h.value.compositePodGroups.map((g) => [g.metadata.name, g.spec.parentCompositePodGroupName, g.spec.workloadRef.templateName]),
      [["rl-pipeline-0", undefined, "rl-pipeline"]],
    );
    assert.deepEqual(
      h.value.podGroups.map((g) => [g.metadata.name, g.spec.parentCompositePodGroupName, g.spec.schedulingPolicy]),
      [
        ["driver-0", "rl-pipeline-0", { gang: { minCount: 1 } }],
        ["workers-0", "rl-pipeline-0", { gang: { minCount: 16 } }],
      ],
    );
    for (const g of h.value.compositePodGroups) assert.deepEqual(validateCompositePodGroup(g), []);
    for (const g of h.value.podGroups) assert.deepEqual(validatePodGroup(g), []);
    const named = groupHierarchy(b);
    assert.ok(named.ok);
    assert.equal(named.value.podGroups[0]!.metadata.name, generatePodGroupName("rl-pipeline-wl", "driver"));
  });
});

// Upstream's aliasing tests (podgroup_test.go "does not alias the workload template", mapconfig_test.go
// "gang policy copies minGroupCount instead of aliasing the input"), which only the objects themselves show.
describe("nothing the builder returns aliases its inputs (upstream's aliasing tests)", () => {
  const existing = (): Workload =>
    ({
      metadata: { name: "job-abc", namespace: "training" },
      spec: {
        podGroupTemplates: [
          {
            name: "workers",
            schedulingPolicy: { gang: { minCount: 4 } },
            schedulingConstraints: { topology: [{ key: "topology.kubernetes.io/zone" }] },
            resourceClaims: [{ name: "gpu", resourceClaimName: "shared-gpu" }],
            priority: 1000,
          },
        ],
        compositePodGroupTemplates: [{ name: "top", schedulingPolicy: { gang: { minGroupCount: 2 } }, priority: 1000, podGroupTemplates: [{ name: "leaf", schedulingPolicy: { basic: {} } }] }],
      },
    }) as unknown as Workload;

  test("changing a PodGroup or CompositePodGroup leaves the Workload's templates alone", () => {
    const wl = existing();
    const b = fromExistingWorkload(wl, {});
    const pg = b.newPodGroup("pg", "workers");
    const cpg = b.newCompositePodGroup("cpg", "top");
    assert.ok(pg.ok && cpg.ok);
    pg.value.spec.schedulingPolicy.gang!.minCount = 99;
    pg.value.spec.schedulingConstraints!.topology![0]!.key = "changed";
    pg.value.spec.resourceClaims![0]!.name = "changed";
    pg.value.spec.priority = 1;
    cpg.value.spec.schedulingPolicy.gang!.minGroupCount = 99;
    cpg.value.spec.priority = 1;
    assert.deepEqual(wl, existing());
  });

  test("a callback changing the resolved config leaves the caller's blocks alone", () => {
    const policy = { gang: { minGroupCount: 2 } };
    const item: WorkloadItem = {
      name: "cpg",
      input: { policy: { compositePodGroupData: policy } },
      callbacks: [(cfg) => void (cfg.policy!.gang!.minCount = 99)],
      children: [{ name: "child" }],
    };
    assert.deepEqual(resolveSchedulingConfig(item).policy, { gang: { minCount: 99 } });
    assert.deepEqual(policy, { gang: { minGroupCount: 2 } });
  });
});
