import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  collectTemplates,
  generatePodGroupName,
  newBuilder,
  validateCompositePodGroup,
  validatePodGroup,
  validateWorkload,
  type CompositePodGroup,
  type PodGroup,
  type Workload,
  type WorkloadItem,
} from "../../src/scheduling/index.js";
import { allOptions, compositeInput, leafInput, pipelineTree, render } from "./fixtures.js";

function builtPipeline(): Workload {
  const r = newBuilder(pipelineTree(), allOptions()).buildWorkload();
  assert.ok(r.ok);
  return r.value;
}

function jobWorkload(): Workload {
  return {
    apiVersion: "scheduling.k8s.io/v1beta1",
    kind: "Workload",
    metadata: { name: "llm-pretrain-6b68cf7cdb", namespace: "ml-training" },
    spec: {
      controllerRef: { apiGroup: "batch", kind: "Job", name: "llm-pretrain" },
      podGroupTemplates: [{ name: "llm-pretrain-pgt-0", schedulingPolicy: { gang: { minCount: 8 } } }],
    },
  };
}

describe("validateWorkload on create", () => {
  const cases: Array<[string, (w: Workload) => void, string[]]> = [
    ["valid", () => {}, []],
    [
      "no template list",
      (w) => delete w.spec.podGroupTemplates,
      ['spec: Invalid value: "": must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`'],
    ],
    [
      "both template lists",
      (w) => (w.spec.compositePodGroupTemplates = builtPipeline().spec.compositePodGroupTemplates),
      ['spec: Invalid value: "{podGroupTemplates, compositePodGroupTemplates}": must specify exactly one of: `podGroupTemplates`, `compositePodGroupTemplates`'],
    ],
    [
      "nine templates",
      (w) => (w.spec.podGroupTemplates = Array.from({ length: 9 }, (_, i) => ({ name: `shard-${i}`, schedulingPolicy: { basic: {} } }))),
      ["spec.podGroupTemplates: Too many: 9: must have at most 8 items"],
    ],
    [
      "duplicate template names in one list",
      (w) => w.spec.podGroupTemplates!.push({ name: "llm-pretrain-pgt-0", schedulingPolicy: { basic: {} } }),
      ['spec.podGroupTemplates[1]: Duplicate value: "llm-pretrain-pgt-0"'],
    ],
    ["gang minCount 0 is missing", (w) => (w.spec.podGroupTemplates![0]!.schedulingPolicy = { gang: { minCount: 0 } }), ["spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Required value"]],
    [
      "gang minCount negative",
      (w) => (w.spec.podGroupTemplates![0]!.schedulingPolicy = { gang: { minCount: -1 } }),
      ["spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1"],
    ],
    ["priority above the user maximum", (w) => (w.spec.podGroupTemplates![0]!.priority = 2_000_000_000), ["spec.podGroupTemplates[0].priority: Invalid value: 2000000000: must be less than or equal to 1000000000"]],
    [
      "unknown preemption policy",
      (w) => (w.spec.podGroupTemplates![0]!.preemptionPolicy = "Sometimes" as never),
      ['spec.podGroupTemplates[0].preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"'],
    ],
    ["controllerRef without kind", (w) => (w.spec.controllerRef!.kind = ""), ["spec.controllerRef.kind: Required value"]],
    ["no name", (w) => delete w.metadata.name, ["metadata.name: Required value: name or generateName is required"]],
  ];
  for (const [name, mutate, want] of cases) {
    test(name, () => {
      const w = jobWorkload();
      mutate(w);
      assert.deepEqual(render(validateWorkload(w)), want);
    });
  }

  test("template names are unique across the whole tree", () => {
    const w = builtPipeline();
    w.spec.compositePodGroupTemplates![0]!.podGroupTemplates![1]!.name = "rl-pipeline";
    assert.deepEqual(render(validateWorkload(w)), ['spec.compositePodGroupTemplates[0].podGroupTemplates[1].name: Duplicate value: "rl-pipeline"']);
  });

  test("the tree is at most 4 levels deep", () => {
    const leaf = { name: "leaf", schedulingPolicy: { basic: {} } };
    const nest = (depth: number, i: number): Workload["spec"]["compositePodGroupTemplates"] =>
      depth === 1
        ? [{ name: `l${i}`, schedulingPolicy: { basic: {} }, podGroupTemplates: [leaf] }]
        : [{ name: `l${i}`, schedulingPolicy: { basic: {} }, compositePodGroupTemplates: nest(depth - 1, i + 1) }];
    const w = jobWorkload();
    delete w.spec.podGroupTemplates;
    w.spec.compositePodGroupTemplates = nest(3, 1);
    assert.deepEqual(validateWorkload(w), []);
    w.spec.compositePodGroupTemplates = nest(4, 1);
    assert.deepEqual(render(validateWorkload(w)), [
      "spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[0]: Forbidden: the workload tree must not be deeper than 4 levels",
    ]);
  });
});

describe("validateWorkload on update", () => {
  test("gang minCount may change, the policy choice and constraints may not", () => {
    const old = jobWorkload();
    const scaled = structuredClone(old);
    scaled.spec.podGroupTemplates![0]!.schedulingPolicy.gang!.minCount = 16;
    assert.deepEqual(validateWorkload(scaled, old), []);
    const switched = structuredClone(old);
    switched.spec.podGroupTemplates![0]!.schedulingPolicy = { basic: {} };
    switched.spec.podGroupTemplates![0]!.schedulingConstraints = { topology: [{ key: "topology.kubernetes.io/zone" }] };
    assert.deepEqual(render(validateWorkload(switched, old)), [
      "spec.podGroupTemplates[0].schedulingPolicy.basic: Forbidden: field is immutable",
      "spec.podGroupTemplates[0].schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set",
      "spec.podGroupTemplates[0].schedulingConstraints: Forbidden: field is immutable",
    ]);
  });

  test("templates cannot be added or removed, controllerRef cannot change", () => {
    const old = jobWorkload();
    const added = structuredClone(old);
    added.spec.podGroupTemplates!.push({ name: "evaluator", schedulingPolicy: { basic: {} } });
    assert.deepEqual(render(validateWorkload(added, old)), ["spec.podGroupTemplates[1]: Forbidden: item may not be added"]);
    const removed = builtPipeline();
    const oldPipeline = builtPipeline();
    removed.spec.compositePodGroupTemplates![0]!.podGroupTemplates!.pop();
    assert.deepEqual(render(validateWorkload(removed, oldPipeline)), ["spec.compositePodGroupTemplates[0].podGroupTemplates: Forbidden: item may not be removed"]);
    const retargeted = structuredClone(old);
    retargeted.spec.controllerRef!.name = "other-job";
    assert.deepEqual(render(validateWorkload(retargeted, old)), ["spec.controllerRef: Forbidden: field is immutable"]);
  });

  test("unchanged invalid values are ratcheted", () => {
    const old = jobWorkload();
    old.spec.podGroupTemplates![0]!.schedulingConstraints = { topology: [{ key: "rack id" }] };
    const same = structuredClone(old);
    same.spec.podGroupTemplates![0]!.schedulingPolicy.gang!.minCount = 4;
    assert.deepEqual(validateWorkload(same, old), []);
  });
});

describe("runtime group validation", () => {
  const pg = (): PodGroup => ({
    apiVersion: "scheduling.k8s.io/v1beta1",
    kind: "PodGroup",
    metadata: { name: "workers-0", namespace: "ml-training" },
    spec: { parentCompositePodGroupName: "rl-pipeline-0", workloadRef: { workloadName: "rl-pipeline-wl", templateName: "workers" }, schedulingPolicy: { gang: { minCount: 16 } } },
  });
  test("a parent needs a workloadRef", () => {
    const g = pg();
    delete g.spec.workloadRef;
    assert.deepEqual(render(validatePodGroup(g)), ["spec.workloadRef: Required value: must be specified when `parentCompositePodGroupName` is specified"]);
  });
  test("the disruption mode and the workloadRef are immutable", () => {
    const old = pg();
    const changed = structuredClone(old);
    changed.spec.disruptionMode = { all: {} };
    changed.spec.workloadRef!.templateName = "driver";
    assert.deepEqual(render(validatePodGroup(changed, old)), ["spec.workloadRef: Forbidden: field is immutable", "spec.disruptionMode: Forbidden: field is immutable"]);
  });
  test("a CompositePodGroup needs a workloadRef and keeps its policy", () => {
    const cpg: CompositePodGroup = {
      apiVersion: "scheduling.k8s.io/v1alpha3",
      kind: "CompositePodGroup",
      metadata: { name: "root-group-0", namespace: "default" },
      spec: { workloadRef: { workloadName: "hierarchical-workload", templateName: "root" }, schedulingPolicy: { gang: { minGroupCount: 2 } } },
    };
    assert.deepEqual(validateCompositePodGroup(cpg), []);
    const changed = structuredClone(cpg);
    changed.spec.schedulingPolicy.gang!.minGroupCount = 3;
    assert.deepEqual(render(validateCompositePodGroup(changed, cpg)), ["spec.schedulingPolicy: Forbidden: field is immutable"]);
    const orphan = structuredClone(cpg) as unknown as { spec: Partial<CompositePodGroup["spec"]> };
    delete orphan.spec.workloadRef;
    assert.deepEqual(render(validateCompositePodGroup(orphan as CompositePodGroup)), ["spec.workloadRef: Required value"]);
  });
});

// ---------------------------------------------------------------- property: valid in, valid out

/** Mostly valid choices, with a few invalid ones mixed in so the rejecting path is exercised too. */
const mostly = <T>(valid: fc.Arbitrary<T>, invalidOnes: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 9 }, { arbitrary: invalidOnes, weight: 1 });
const names = mostly(fc.constantFrom("driver", "workers", "ps", "evaluator", "learner", "actor", "critic", "ref-model", "gen"), fc.constantFrom("Bad_Name", "a.b"));
const count = fc.option(mostly(fc.integer({ min: 1, max: 64 }), fc.integer({ min: -1, max: 0 })), { nil: undefined });
const leafPolicy = fc.option(
  mostly(fc.oneof(fc.constant({ basic: {} }), count.map((minCount) => ({ gang: minCount === undefined ? {} : { minCount } }))), fc.constant({})),
  { nil: undefined },
);
const mode = fc.option(mostly(fc.constantFrom({ single: {} }, { all: {} }), fc.constant({})), { nil: undefined });
const topology = fc.option(
  mostly<{ key: string }[]>(
    fc.constantFrom<{ key: string }[]>([], [{ key: "topology.kubernetes.io/rack" }], [{ key: "cloud.google.com/gke-nodepool" }]),
    fc.constantFrom<{ key: string }[]>([{ key: "bad key" }], [{ key: "topology.kubernetes.io/rack" }, { key: "kubernetes.io/hostname" }]),
  ).map((t) => ({ topology: t.map((c) => ({ key: c.key })) })),
  { nil: undefined },
);
const claims = fc.option(
  fc.array(
    fc
      .record({
        name: mostly(fc.constantFrom("gpus", "nvlink", "scratch"), fc.constant("Bad")),
        ref: mostly(fc.constantFrom("claim", "template"), fc.constantFrom("both", "none")),
      })
      .map(({ name, ref }) => ({
        name,
        ...(ref === "claim" || ref === "both" ? { resourceClaimName: "rack-7-gpus" } : {}),
        ...(ref === "template" || ref === "both" ? { resourceClaimTemplateName: "h100-x8" } : {}),
      })),
    { maxLength: 5 },
  ),
  { nil: undefined },
);

const tree: fc.Arbitrary<WorkloadItem> = fc.letrec<{ item: WorkloadItem }>((tie) => ({
  item: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ name: names, policy: leafPolicy, mode, topology, claims, parallelism: fc.integer({ min: 0, max: 32 }) }).map(
      (r): WorkloadItem => ({
        name: r.name,
        input: leafInput({ policy: r.policy, mode: r.mode, constraints: r.topology, claims: r.claims }),
        defaultConfig: { policy: { basic: {} } },
        callbacks: [
          (cfg) => {
            if (cfg.policy?.gang && cfg.policy.gang.minCount === undefined) cfg.policy.gang.minCount = Math.max(1, r.parallelism);
          },
        ],
      }),
    ),
    fc
      .record({ name: names, gang: fc.boolean(), minGroupCount: count, mode, children: fc.array(tie("item"), { minLength: 1, maxLength: 3 }) })
      .map(
        (r): WorkloadItem => ({
          name: r.name,
          input: compositeInput({ policy: r.gang ? { gang: { minGroupCount: r.minGroupCount ?? r.children.length } } : { basic: {} }, mode: r.mode }),
          children: r.children,
        }),
      ),
  ),
})).item;

/** Gives every node a path by position and a unique name where the generator repeated one. */
function place(item: WorkloadItem, path: string, used: Set<string>): WorkloadItem {
  let name = item.name;
  for (let i = 2; used.has(name); i++) name = `${item.name}-${i}`;
  used.add(name);
  return { ...item, name, path, children: item.children?.map((c, i) => place(c, `${path}.children[${i}]`, used)) };
}

describe("everything the builder emits passes validation", () => {
  test("property: a tree that validates compiles into a valid Workload and valid groups", () => {
    let accepted = 0;
    fc.assert(
      fc.property(tree, mostly(fc.constant(true), fc.constant(false)), (raw, dedupe) => {
        const root = dedupe ? place(raw, "spec", new Set()) : raw;
        const b = newBuilder(root, allOptions());
        if (b.validate().length > 0) return;
        accepted++;
        const built = b.buildWorkload();
        assert.ok(built.ok, !built.ok ? built.error : "");
        const wl = built.value;
        assert.deepEqual(render(validateWorkload(wl)), []);
        const { leaves, composites } = collectTemplates(wl);
        for (const t of leaves.keys()) {
          const pg = b.newPodGroup(generatePodGroupName(wl.metadata.name!, t), t);
          assert.ok(pg.ok);
          assert.deepEqual(render(validatePodGroup(pg.value)), []);
        }
        for (const t of composites.keys()) {
          const cpg = b.newCompositePodGroup(generatePodGroupName(wl.metadata.name!, t), t);
          assert.ok(cpg.ok);
          assert.deepEqual(render(validateCompositePodGroup(cpg.value)), []);
        }
      }),
      { numRuns: 300, seed: 5547 },
    );
    // The generator must actually exercise the accepting path.
    assert.ok(accepted > 30, `only ${accepted} trees were accepted`);
  });
});
