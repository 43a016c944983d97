import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  collectTemplates,
  generatePodGroupName,
  newBuilder,
  podGroupAnywhere,
  validateCompositePodGroup,
  validatePodGroup,
  validateWorkload,
  validateWorkloadTree,
  type CompositePodGroup,
  type PodGroup,
  type Workload,
  type WorkloadItem,
} from "../../src/scheduling/index.js";
import { allOptions, compositeInput, leafInput, render } from "./fixtures.js";
import { groupCases, workloadCreateCases, workloadUpdateCases, type SchedulingObject } from "./validation-cases.js";

function validateObject(o: SchedulingObject, old?: SchedulingObject): string[] {
  switch (o.kind) {
    case "Workload":
      return render(validateWorkload(o, old as Workload | undefined));
    case "PodGroup":
      return render(validatePodGroup(o, old as PodGroup | undefined));
    default:
      return render(validateCompositePodGroup(o, old as CompositePodGroup | undefined));
  }
}

for (const [title, cases] of [
  ["validateWorkload on create", workloadCreateCases],
  ["validateWorkload on update", workloadUpdateCases],
  ["runtime group validation", groupCases],
] as const) {
  describe(title, () => {
    for (const c of cases) {
      test(c.name, () => {
        assert.deepEqual(validateObject(c.object(), c.old?.()), c.want);
      });
    }
  });
}

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
  test("property: a tree that both layers accept compiles into a valid Workload and valid groups", () => {
    let accepted = 0;
    fc.assert(
      fc.property(tree, mostly(fc.constant(true), fc.constant(false)), (raw, dedupe) => {
        const root = dedupe ? place(raw, "spec", new Set()) : raw;
        const b = newBuilder(root, allOptions());
        if (b.validate().length > 0 || validateWorkloadTree(root, allOptions()).length > 0) return;
        accepted++;
        const built = b.buildWorkload();
        assert.ok(built.ok, !built.ok ? built.error : "");
        const wl = built.value;
        assert.deepEqual(render(validateWorkload(wl)), []);
        const { leaves, composites } = collectTemplates(wl);
        for (const t of leaves.keys()) {
          const pg = podGroupAnywhere(b, generatePodGroupName(wl.metadata.name!, t), t);
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
