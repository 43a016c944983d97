/**
 * The cases of WorkloadBuilder.validate as data: the unit tests check the builder on them, and the
 * cluster tests send the Workloads the builder makes from the same trees to a real kube-apiserver and
 * compare its field errors with the builder's declarative ones.
 */
import { AllMode, BasicPolicy, GangPolicy, SingleMode, type BuildOptions, type WorkloadItem } from "../../src/scheduling/index.js";
import { allOptions, compositeInput, leafInput, pipelineTree, replicatedJob } from "./fixtures.js";

type Blocks = Parameters<typeof leafInput>[0];

/** The Job-shaped leaf: template `trainer-pgt-0` at `spec.scheduling`, gang defaulted from parallelism 8. */
export function jobItem(blocks: Blocks): WorkloadItem {
  return {
    name: "trainer-pgt-0",
    path: "spec.scheduling",
    defaultConfig: { policy: { basic: {} } },
    input: leafInput(blocks),
    callbacks: [
      (cfg) => {
        if (cfg.policy?.gang && cfg.policy.gang.minCount === undefined) cfg.policy.gang.minCount = 8;
      },
    ],
  };
}

function leaves(n: number): WorkloadItem[] {
  return Array.from({ length: n }, (_, i) => replicatedJob(i, `worker-${i}`, leafInput({ policy: { gang: { minCount: 2 } } })));
}

/** A chain of composites `levels` deep ending in one leaf. */
function chain(levels: number): WorkloadItem {
  let node: WorkloadItem = replicatedJob(0, "leaf", leafInput({ policy: { basic: {} } }));
  for (let i = levels - 1; i >= 1; i--) {
    node = { name: `level-${i}`, path: `spec.groups[${i}]`, input: compositeInput({ policy: { basic: {} } }), children: [node] };
  }
  return node;
}

export interface CreateCase {
  name: string;
  root: WorkloadItem;
  options?: BuildOptions;
  /** What the builder's validate says (Go's workloadbuilder). */
  want: string[];
  /** What the Workload API says of the compiled tree (validateWorkloadTree); none when absent. */
  tree?: string[];
}

export const createCases: CreateCase[] = [
  { name: "valid gang Job with rack topology and all-disruption", root: jobItem({ policy: { gang: {} }, constraints: { topology: [{ key: "topology.kubernetes.io/rack" }] }, mode: { all: {} } }), want: [] },
  { name: "valid JobSet-like composite tree", root: pipelineTree(), want: [] },
  {
    name: "policy union with no member",
    root: jobItem({ policy: {} }),
    want: ['spec.scheduling.schedulingPolicy: Invalid value: "": must specify one of: `basic`, `gang`'],
  },
  {
    name: "policy union with both members",
    root: jobItem({ policy: { basic: {}, gang: { minCount: 4 } } }),
    want: ['spec.scheduling.schedulingPolicy: Invalid value: "{basic, gang}": must specify exactly one of: `basic`, `gang`'],
  },
  {
    name: "gang minCount 0",
    root: jobItem({ policy: { gang: { minCount: 0 } } }),
    want: ["spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1"],
    tree: ['spec.scheduling.schedulingPolicy.gang.minCount: Required value'],
  },
  {
    name: "gang minCount negative",
    root: jobItem({ policy: { gang: { minCount: -3 } } }),
    want: ["spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: -3: must be greater than or equal to 1"],
    tree: ['spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: -3: must be greater than or equal to 1'],
  },
  {
    name: "composite gang minGroupCount 0",
    root: { ...pipelineTree(), input: compositeInput({ policy: { gang: { minGroupCount: 0 } }, mode: { all: {} } }) },
    want: ["spec.scheduling.schedulingPolicy.gang.minGroupCount: Invalid value: 0: must be greater than or equal to 1"],
    tree: ['spec.scheduling.schedulingPolicy.gang.minGroupCount: Required value'],
  },
  {
    name: "disruption mode union with no member",
    root: jobItem({ policy: { gang: {} }, mode: {} }),
    want: ['spec.scheduling.disruptionMode: Invalid value: "": must specify one of: `single`, `all`'],
  },
  {
    name: "disruption mode union with both members",
    root: jobItem({ policy: { gang: {} }, mode: { single: {}, all: {} } }),
    want: ['spec.scheduling.disruptionMode: Invalid value: "{single, all}": must specify exactly one of: `single`, `all`'],
  },
  {
    name: "two topology constraints",
    root: jobItem({ policy: { gang: {} }, constraints: { topology: [{ key: "topology.kubernetes.io/rack" }, { key: "topology.kubernetes.io/zone" }] } }),
    want: ["spec.scheduling.schedulingConstraints.topology: Too many: 2: must have at most 1 item"],
    tree: ['spec.scheduling.schedulingConstraints.topology: Too many: 2: must have at most 1 item'],
  },
  {
    name: "topology key missing",
    root: jobItem({ policy: { gang: {} }, constraints: { topology: [{ key: "" }] } }),
    want: ["spec.scheduling.schedulingConstraints.topology[0].key: Required value"],
    tree: ['spec.scheduling.schedulingConstraints.topology[0].key: Required value'],
  },
  {
    name: "topology key not a label key",
    root: jobItem({ policy: { gang: {} }, constraints: { topology: [{ key: "rack id" }] } }),
    want: [
      "spec.scheduling.schedulingConstraints.topology[0].key: Invalid value: \"rack id\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
    tree: [
      "spec.scheduling.schedulingConstraints.topology[0].key: Invalid value: \"rack id\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ],
  },
  {
    name: "five resource claims",
    root: jobItem({
      policy: { gang: {} },
      claims: ["a", "b", "c", "d", "e"].map((n) => ({ name: `gpu-${n}`, resourceClaimTemplateName: "h100" })),
    }),
    want: [],
    tree: ["spec.scheduling.resourceClaims: Too many: 5: must have at most 4 items"],
  },
  {
    name: "claim with both references",
    root: jobItem({ policy: { gang: {} }, claims: [{ name: "gpus", resourceClaimName: "rack-7-gpus", resourceClaimTemplateName: "h100-x8" }] }),
    want: [
      'spec.scheduling.resourceClaims[0]: Invalid value: "{resourceClaimName, resourceClaimTemplateName}": must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`',
    ],
    tree: [
      'spec.scheduling.resourceClaims[0]: Invalid value: "{resourceClaimName, resourceClaimTemplateName}": must specify exactly one of: `resourceClaimName`, `resourceClaimTemplateName`',
    ],
  },
  {
    name: "claim with no reference",
    root: jobItem({ policy: { gang: {} }, claims: [{ name: "gpus" }] }),
    want: ['spec.scheduling.resourceClaims[0]: Invalid value: "": must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'],
    tree: [
      'spec.scheduling.resourceClaims[0]: Invalid value: "": must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
    ],
  },
  {
    name: "claim name not a DNS label",
    root: jobItem({ policy: { gang: {} }, claims: [{ name: "shared.gpus", resourceClaimName: "rack-7-gpus" }] }),
    want: ['spec.scheduling.resourceClaims[0].name: Invalid value: "shared.gpus": must not contain dots'],
    tree: ['spec.scheduling.resourceClaims[0].name: Invalid value: "shared.gpus": must not contain dots'],
  },
  {
    name: "claim name missing",
    root: jobItem({ policy: { gang: {} }, claims: [{ name: "", resourceClaimName: "rack-7-gpus" }] }),
    want: ["spec.scheduling.resourceClaims[0].name: Required value"],
    tree: ['spec.scheduling.resourceClaims[0].name: Required value'],
  },
  {
    name: "gang not in the allow-list",
    root: jobItem({ policy: { gang: { minCount: 8 } } }),
    options: allOptions({ allowedPolicies: [BasicPolicy] }),
    want: ["spec.scheduling.schedulingPolicy: Forbidden: gang scheduling policy is not supported by this controller"],
  },
  {
    name: "defaulted basic not in the allow-list",
    root: jobItem({}),
    options: allOptions({ allowedPolicies: [GangPolicy] }),
    want: ["spec.scheduling.schedulingPolicy: Forbidden: basic scheduling policy is not supported by this controller"],
  },
  {
    name: "disruption all not in the allow-list",
    root: jobItem({ policy: { gang: {} }, mode: { all: {} } }),
    options: allOptions({ allowedDisruptionModes: [SingleMode] }),
    want: ["spec.scheduling.disruptionMode: Forbidden: the disruptionMode `all` is not supported by this controller"],
  },
  {
    name: "disruption single not in the allow-list",
    root: jobItem({ policy: { gang: {} }, mode: { single: {} } }),
    options: allOptions({ allowedDisruptionModes: [AllMode] }),
    want: ["spec.scheduling.disruptionMode: Forbidden: the disruptionMode `single` is not supported by this controller"],
  },
  {
    name: "disruption all with the basic policy (leaf)",
    root: jobItem({ policy: { basic: {} }, mode: { all: {} } }),
    want: ['spec.scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not supported with the Basic scheduling policy'],
  },
  {
    name: "disruption all with the defaulted basic policy (leaf)",
    root: jobItem({ mode: { all: {} } }),
    want: ['spec.scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not supported with the Basic scheduling policy'],
  },
  {
    name: "disruption all with the basic policy (composite)",
    root: { ...pipelineTree(), input: compositeInput({ policy: { basic: {} }, mode: { all: {} } }) },
    want: ['spec.scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not supported with the Basic scheduling policy'],
  },
  {
    // No such rule in the Go builder, the Job API or the Workload API.
    name: "a single child under an all composite is accepted",
    root: (() => {
      const t = pipelineTree();
      t.children![1] = replicatedJob(1, "workers", leafInput({ policy: { gang: {} }, mode: { single: {} } }), 16);
      return t;
    })(),
    want: [],
  },
  {
    name: "template name not a DNS label",
    root: { ...jobItem({ policy: { gang: {} } }), name: "Trainer_0" },
    want: [],
    tree: [
      "spec.scheduling: Invalid value: \"Trainer_0\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ],
  },
  {
    name: "nine leaf templates in one list",
    root: { name: "sweep", path: "spec", input: compositeInput({ policy: { basic: {} } }), children: leaves(9) },
    want: [],
    tree: ["spec.podGroupTemplates: Too many: 9: must have at most 8 items"],
  },
  { name: "eight leaf templates in one list", root: { name: "sweep", path: "spec", input: compositeInput({ policy: { basic: {} } }), children: leaves(8) }, want: [] },
  { name: "depth four", root: chain(4), want: [] },
  {
    name: "depth five",
    root: chain(5),
    want: [],
    // The API server prints the children in its internal types (Go's field names, every field).
    tree: [
      'spec.groups[1]: Invalid value: [{"Name":"level-2","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":null,"CompositePodGroupTemplates":[{"Name":"level-3","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":null,"CompositePodGroupTemplates":[{"Name":"level-4","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":[{"Name":"leaf","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"ResourceClaims":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null}],"CompositePodGroupTemplates":null}]}]}]: maximum template hierarchy depth is 4',
    ],
  },
  {
    name: "template names repeated across the tree",
    root: { ...pipelineTree(), children: [replicatedJob(0, "rl-pipeline", leafInput({ policy: { basic: {} } }))] },
    want: ['spec.scheduling: Internal error: duplicate workload item name "rl-pipeline": template names must be unique across the Workload'],
  },
  {
    name: "leaf item setting a composite block",
    root: { ...jobItem({}), input: compositeInput({ policy: { gang: { minGroupCount: 2 } } }) },
    want: ['spec.scheduling: Internal error: leaf workload item "trainer-pgt-0" sets composite building block: policy'],
  },
  {
    name: "declarative validation disabled keeps the controller-policy checks",
    root: jobItem({ policy: { basic: {} }, mode: { all: {} }, claims: [{ name: "gpus" }] }),
    options: allOptions({ disableDeclarativeValidation: true }),
    want: ['spec.scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not supported with the Basic scheduling policy'],
    tree: [
      'spec.scheduling.resourceClaims[0]: Invalid value: "": must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
    ],
  },
];

export interface UpdateCase {
  name: string;
  oldRoot: WorkloadItem;
  root: WorkloadItem;
  options?: BuildOptions;
  /** What the builder's validate says (Go's workloadbuilder). */
  want: string[];
  /** What the Workload API says of the compiled trees (validateWorkloadTree); none when absent. */
  tree?: string[];
}

const gang8 = { policy: { gang: { minCount: 8 } }, constraints: { topology: [{ key: "topology.kubernetes.io/rack" }] }, mode: { all: {} } } satisfies Blocks;

export const updateCases: UpdateCase[] = [
  { name: "unchanged", oldRoot: jobItem(gang8), root: jobItem(gang8), want: [] },
  { name: "gang minCount may change", oldRoot: jobItem(gang8), root: jobItem({ ...gang8, policy: { gang: { minCount: 16 } } }), want: [] },
  {
    name: "gang minCount change is still validated",
    oldRoot: jobItem(gang8),
    root: jobItem({ ...gang8, policy: { gang: { minCount: 0 } } }),
    want: ["spec.scheduling.schedulingPolicy.gang.minCount: Invalid value: 0: must be greater than or equal to 1"],
    tree: ['spec.scheduling.schedulingPolicy.gang.minCount: Required value'],
  },
  {
    name: "unchanged invalid minCount is ratcheted",
    oldRoot: jobItem({ ...gang8, policy: { gang: { minCount: 0 } } }),
    root: jobItem({ ...gang8, policy: { gang: { minCount: 0 } } }),
    want: [],
  },
  {
    name: "unchanged invalid topology key is ratcheted",
    oldRoot: jobItem({ ...gang8, constraints: { topology: [{ key: "rack id" }] } }),
    root: jobItem({ ...gang8, constraints: { topology: [{ key: "rack id" }] } }),
    want: [],
  },
  {
    name: "gang to basic",
    oldRoot: jobItem({ policy: { gang: { minCount: 8 } } }),
    root: jobItem({ policy: { basic: {} } }),
    want: [],
    tree: [
      "spec.scheduling.schedulingPolicy.basic: Invalid value: null: field is immutable",
      "spec.scheduling.schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set",
    ],
  },
  {
    name: "basic to gang",
    oldRoot: jobItem({ policy: { basic: {} } }),
    root: jobItem({ policy: { gang: { minCount: 8 } } }),
    want: [],
    tree: [
      "spec.scheduling.schedulingPolicy.basic: Invalid value: null: field is immutable",
      "spec.scheduling.schedulingPolicy.gang: Invalid value: null: field cannot be set once created",
    ],
  },
  {
    name: "policy set after creation",
    oldRoot: jobItem({}),
    root: jobItem({ policy: { gang: { minCount: 8 } } }),
    want: [],
    tree: [
      "spec.scheduling.schedulingPolicy.basic: Invalid value: null: field is immutable",
      "spec.scheduling.schedulingPolicy.gang: Invalid value: null: field cannot be set once created",
    ],
  },
  {
    name: "policy cleared after creation",
    oldRoot: jobItem({ policy: { gang: { minCount: 8 } } }),
    root: jobItem({}),
    want: [],
    tree: [
      "spec.scheduling.schedulingPolicy.basic: Invalid value: null: field is immutable",
      "spec.scheduling.schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set",
    ],
  },
  {
    name: "topology changed",
    oldRoot: jobItem(gang8),
    root: jobItem({ ...gang8, constraints: { topology: [{ key: "topology.kubernetes.io/zone" }] } }),
    want: [],
    tree: ["spec.scheduling.schedulingConstraints: Invalid value: null: field is immutable"],
  },
  {
    name: "disruption mode changed",
    oldRoot: jobItem(gang8),
    root: jobItem({ ...gang8, mode: { single: {} } }),
    want: [],
    tree: ["spec.scheduling.disruptionMode: Invalid value: null: field is immutable"],
  },
  {
    name: "resource claims changed",
    oldRoot: jobItem({ ...gang8, claims: [{ name: "gpus", resourceClaimTemplateName: "h100-x8" }] }),
    root: jobItem({ ...gang8, claims: [{ name: "gpus", resourceClaimTemplateName: "h100-x4" }] }),
    want: [],
    tree: ["spec.scheduling.resourceClaims: Invalid value: null: field is immutable"],
  },
  {
    name: "template added",
    oldRoot: pipelineTree(),
    root: (() => {
      const t = pipelineTree();
      t.children!.push(replicatedJob(2, "evaluator", leafInput({ policy: { gang: { minCount: 1 } }, mode: { all: {} } })));
      return t;
    })(),
    want: [],
    tree: ["spec.replicatedJobs[2].scheduling: Forbidden: item may not be added"],
  },
  {
    name: "template removed",
    oldRoot: pipelineTree(),
    root: (() => {
      const t = pipelineTree();
      t.children!.pop();
      return t;
    })(),
    want: [],
    tree: ["spec.scheduling.podGroupTemplates: Forbidden: item may not be removed"],
  },
  {
    name: "composite minGroupCount may change",
    oldRoot: pipelineTree(),
    root: { ...pipelineTree(), input: compositeInput({ policy: { gang: { minGroupCount: 1 } }, mode: { all: {} } }) },
    want: [],
  },
  {
    name: "composite disruption mode changed",
    oldRoot: pipelineTree(),
    root: (() => {
      const t = pipelineTree();
      t.input = compositeInput({ policy: { gang: { minGroupCount: 2 } }, mode: { single: {} } });
      return t;
    })(),
    want: [],
    tree: ["spec.scheduling.disruptionMode: Invalid value: null: field is immutable"],
  },
  {
    name: "old root with another name",
    oldRoot: { ...jobItem(gang8), name: "other-pgt-0" },
    root: jobItem(gang8),
    want: ['spec.scheduling: Internal error: old root name "other-pgt-0" does not match new root name "trainer-pgt-0"'],
    tree: [
      'spec.scheduling: Forbidden: item may not be added',
      'spec.podGroupTemplates: Forbidden: item may not be removed',
    ],
  },
  {
    name: "update checks belong to the declarative layer",
    oldRoot: jobItem(gang8),
    root: jobItem({ ...gang8, mode: { single: {} } }),
    options: allOptions({ disableDeclarativeValidation: true }),
    want: [],
    tree: ['spec.scheduling.disruptionMode: Invalid value: null: field is immutable'],
  },
];

