/**
 * The cases of the Workload API object validation (validateWorkload, validatePodGroup,
 * validateCompositePodGroup) as data: the unit tests check our validator on them, and the cluster tests
 * send the same objects to a real kube-apiserver and compare its field errors with ours.
 */
import assert from "node:assert/strict";
import { newBuilder, type CompositePodGroup, type PodGroup, type Workload } from "../../src/scheduling/index.js";
import { allOptions, pipelineTree } from "./fixtures.js";

export function builtPipeline(): Workload {
  const r = newBuilder(pipelineTree(), allOptions()).buildWorkload();
  assert.ok(r.ok);
  return r.value;
}

export function jobWorkload(): Workload {
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

export type SchedulingObject = Workload | PodGroup | CompositePodGroup;

/** One object (and, for an update, the object it replaces) and the errors our validator gives, rendered. */
export interface ObjectCase {
  name: string;
  object: () => SchedulingObject;
  old?: () => SchedulingObject;
  want: string[];
}

const mutated = (mutate: (w: Workload) => void) => (): Workload => {
  const w = jobWorkload();
  mutate(w);
  return w;
};

function nestedComposites(depth: number): Workload {
  const leaf = { name: "leaf", schedulingPolicy: { basic: {} } };
  const nest = (d: number, i: number): Workload["spec"]["compositePodGroupTemplates"] =>
    d === 1
      ? [{ name: `l${i}`, schedulingPolicy: { basic: {} }, podGroupTemplates: [leaf] }]
      : [{ name: `l${i}`, schedulingPolicy: { basic: {} }, compositePodGroupTemplates: nest(d - 1, i + 1) }];
  const w = jobWorkload();
  delete w.spec.podGroupTemplates;
  w.spec.compositePodGroupTemplates = nest(depth, 1);
  return w;
}

/** validateWorkload on create. */
export const workloadCreateCases: ObjectCase[] = [
  { name: "valid", object: mutated(() => {}), want: [] },
  {
    name: "no template list",
    object: mutated((w) => delete w.spec.podGroupTemplates),
    want: ['spec: Invalid value: "": must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`'],
  },
  {
    name: "both template lists",
    object: mutated((w) => (w.spec.compositePodGroupTemplates = builtPipeline().spec.compositePodGroupTemplates)),
    want: ['spec: Invalid value: "{podGroupTemplates, compositePodGroupTemplates}": must specify exactly one of: `podGroupTemplates`, `compositePodGroupTemplates`'],
  },
  {
    name: "nine templates",
    object: mutated((w) => (w.spec.podGroupTemplates = Array.from({ length: 9 }, (_, i) => ({ name: `shard-${i}`, schedulingPolicy: { basic: {} } })))),
    want: ["spec.podGroupTemplates: Too many: 9: must have at most 8 items"],
  },
  {
    name: "duplicate template names in one list",
    object: mutated((w) => w.spec.podGroupTemplates!.push({ name: "llm-pretrain-pgt-0", schedulingPolicy: { basic: {} } })),
    // The API server prints the repeated template, in its versioned JSON.
    want: ['spec.podGroupTemplates[1]: Duplicate value: {"name":"llm-pretrain-pgt-0","schedulingPolicy":{"basic":{}},"schedulingConstraints":null}'],
  },
  {
    name: "gang minCount 0 is missing",
    object: mutated((w) => (w.spec.podGroupTemplates![0]!.schedulingPolicy = { gang: { minCount: 0 } })),
    want: ["spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Required value"],
  },
  {
    name: "gang minCount negative",
    object: mutated((w) => (w.spec.podGroupTemplates![0]!.schedulingPolicy = { gang: { minCount: -1 } })),
    want: ["spec.podGroupTemplates[0].schedulingPolicy.gang.minCount: Invalid value: -1: must be greater than or equal to 1"],
  },
  {
    name: "priority above the user maximum",
    object: mutated((w) => (w.spec.podGroupTemplates![0]!.priority = 2_000_000_000)),
    want: ["spec.podGroupTemplates[0].priority: Invalid value: 2000000000: must be less than or equal to 1000000000"],
  },
  {
    name: "unknown preemption policy",
    object: mutated((w) => (w.spec.podGroupTemplates![0]!.preemptionPolicy = "Sometimes" as never)),
    want: ['spec.podGroupTemplates[0].preemptionPolicy: Unsupported value: "Sometimes": supported values: "Never", "PreemptLowerPriority"'],
  },
  { name: "controllerRef without kind", object: mutated((w) => (w.spec.controllerRef!.kind = "")), want: ["spec.controllerRef.kind: Required value"] },
  { name: "no name", object: mutated((w) => delete w.metadata.name), want: ["metadata.name: Required value: name or generateName is required"] },
  {
    name: "template names are unique across the whole tree",
    object: () => {
      const w = builtPipeline();
      w.spec.compositePodGroupTemplates![0]!.podGroupTemplates![1]!.name = "rl-pipeline";
      return w;
    },
    want: ['spec.compositePodGroupTemplates[0].podGroupTemplates[1].name: Duplicate value: "rl-pipeline"'],
  },
  {
    name: "null blocks are unset, as Go decodes them (a Workload read back carries schedulingConstraints: null)",
    object: mutated((w) => Object.assign(w.spec.podGroupTemplates![0]!, { schedulingConstraints: null, disruptionMode: null, preemptionPolicy: null, resourceClaims: null })),
    want: [],
  },
  {
    name: "a level's names are registered before the templates under them",
    object: mutated((w) => {
      delete w.spec.podGroupTemplates;
      w.spec.compositePodGroupTemplates = [
        { name: "a", schedulingPolicy: { basic: {} }, podGroupTemplates: [{ name: "x", schedulingPolicy: { basic: {} } }] },
        { name: "x", schedulingPolicy: { basic: {} }, podGroupTemplates: [{ name: "y", schedulingPolicy: { basic: {} } }] },
      ];
    }),
    want: ['spec.compositePodGroupTemplates[0].podGroupTemplates[0].name: Duplicate value: "x"'],
  },
  {
    name: "a template below the depth limit is validated too",
    object: () => {
      const w = nestedComposites(4);
      w.spec.compositePodGroupTemplates![0]!.compositePodGroupTemplates![0]!.compositePodGroupTemplates![0]!.compositePodGroupTemplates![0]!.podGroupTemplates![0]!.schedulingPolicy = { gang: { minCount: 0 } };
      return w;
    },
    want: [
      'spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].compositePodGroupTemplates[0].compositePodGroupTemplates[0].podGroupTemplates[0].schedulingPolicy.gang.minCount: Required value',
      'spec.compositePodGroupTemplates[0]: Invalid value: [{"Name":"l2","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":null,"CompositePodGroupTemplates":[{"Name":"l3","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":null,"CompositePodGroupTemplates":[{"Name":"l4","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":[{"Name":"leaf","SchedulingPolicy":{"Basic":null,"Gang":{"MinCount":0}},"SchedulingConstraints":null,"ResourceClaims":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null}],"CompositePodGroupTemplates":null}]}]}]: maximum template hierarchy depth is 4',
    ],
  },
  {
    name: "a composite at the fourth level is too deep without children of its own",
    object: () => {
      const w = nestedComposites(4);
      delete w.spec.compositePodGroupTemplates![0]!.compositePodGroupTemplates![0]!.compositePodGroupTemplates![0]!.compositePodGroupTemplates![0]!.podGroupTemplates;
      return w;
    },
    want: [
      'spec.compositePodGroupTemplates[0]: Invalid value: [{"Name":"l2","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":null,"CompositePodGroupTemplates":[{"Name":"l3","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":null,"CompositePodGroupTemplates":[{"Name":"l4","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":null,"CompositePodGroupTemplates":null}]}]}]: maximum template hierarchy depth is 4',
      'spec.compositePodGroupTemplates[0].compositePodGroupTemplates[0].compositePodGroupTemplates[0].compositePodGroupTemplates[0]: Invalid value: "l4": must have at least one child PodGroupTemplate or CompositePodGroupTemplate',
    ],
  },
  { name: "a tree 4 levels deep", object: () => nestedComposites(3), want: [] },
  {
    name: "a tree 5 levels deep",
    object: () => nestedComposites(4),
    want: [
      // The API server prints the children in its internal types (Go's field names, every field).
      'spec.compositePodGroupTemplates[0]: Invalid value: [{"Name":"l2","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":null,"CompositePodGroupTemplates":[{"Name":"l3","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":null,"CompositePodGroupTemplates":[{"Name":"l4","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null,"PodGroupTemplates":[{"Name":"leaf","SchedulingPolicy":{"Basic":{},"Gang":null},"SchedulingConstraints":null,"ResourceClaims":null,"DisruptionMode":null,"PriorityClassName":"","Priority":null,"PreemptionPolicy":null}],"CompositePodGroupTemplates":null}]}]}]: maximum template hierarchy depth is 4',
    ],
  },
];

const changed = <T>(old: () => T, change: (o: T) => void) => (): T => {
  const o = structuredClone(old());
  change(o);
  return o;
};

/** validateWorkload on update (`old` is what the server holds). */
export const workloadUpdateCases: ObjectCase[] = [
  { name: "gang minCount may change", old: jobWorkload, object: changed(jobWorkload, (w) => (w.spec.podGroupTemplates![0]!.schedulingPolicy.gang!.minCount = 16)), want: [] },
  {
    name: "the policy choice and constraints may not change",
    old: jobWorkload,
    object: changed(jobWorkload, (w) => {
      w.spec.podGroupTemplates![0]!.schedulingPolicy = { basic: {} };
      w.spec.podGroupTemplates![0]!.schedulingConstraints = { topology: [{ key: "topology.kubernetes.io/zone" }] };
    }),
    want: [
      "spec.podGroupTemplates[0].schedulingPolicy.basic: Invalid value: null: field is immutable",
      "spec.podGroupTemplates[0].schedulingPolicy.gang: Invalid value: null: field cannot be cleared once set",
      "spec.podGroupTemplates[0].schedulingConstraints: Invalid value: null: field is immutable",
    ],
  },
  {
    name: "templates cannot be added",
    old: jobWorkload,
    object: changed(jobWorkload, (w) => w.spec.podGroupTemplates!.push({ name: "evaluator", schedulingPolicy: { basic: {} } })),
    want: ["spec.podGroupTemplates[1]: Forbidden: item may not be added"],
  },
  {
    name: "templates cannot be removed",
    old: builtPipeline,
    object: changed(builtPipeline, (w) => w.spec.compositePodGroupTemplates![0]!.podGroupTemplates!.pop()),
    want: ["spec.compositePodGroupTemplates[0].podGroupTemplates: Forbidden: item may not be removed"],
  },
  {
    name: "controllerRef cannot change",
    old: jobWorkload,
    object: changed(jobWorkload, (w) => (w.spec.controllerRef!.name = "other-job")),
    want: ["spec.controllerRef: Invalid value: null: field is immutable"],
  },
  {
    name: "unchanged invalid values are ratcheted",
    old: changed(jobWorkload, (w) => (w.spec.podGroupTemplates![0]!.schedulingConstraints = { topology: [{ key: "rack id" }] })),
    object: changed(jobWorkload, (w) => {
      w.spec.podGroupTemplates![0]!.schedulingConstraints = { topology: [{ key: "rack id" }] };
      w.spec.podGroupTemplates![0]!.schedulingPolicy.gang!.minCount = 4;
    }),
    want: [],
  },
];

export function workersPodGroup(): PodGroup {
  return {
    apiVersion: "scheduling.k8s.io/v1beta1",
    kind: "PodGroup",
    metadata: { name: "workers-0", namespace: "ml-training" },
    spec: { parentCompositePodGroupName: "rl-pipeline-0", workloadRef: { workloadName: "rl-pipeline-wl", templateName: "workers" }, schedulingPolicy: { gang: { minCount: 16 } } },
  };
}

export function rootCompositePodGroup(): CompositePodGroup {
  return {
    apiVersion: "scheduling.k8s.io/v1alpha3",
    kind: "CompositePodGroup",
    metadata: { name: "root-group-0", namespace: "default" },
    spec: { workloadRef: { workloadName: "hierarchical-workload", templateName: "root" }, schedulingPolicy: { gang: { minGroupCount: 2 } } },
  };
}

/** validatePodGroup and validateCompositePodGroup, on create and update. */
export const groupCases: ObjectCase[] = [
  { name: "a PodGroup with a parent and a workloadRef", object: workersPodGroup, want: [] },
  {
    name: "a PodGroup's parent name set to \"\" is validated as a name",
    object: changed(workersPodGroup, (g) => (g.spec.parentCompositePodGroupName = "")),
    want: [
      'spec.parentCompositePodGroupName: Invalid value: "": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
    ],
  },
  {
    name: "a PodGroup's null preemptionPolicy and constraints are unset",
    object: changed(workersPodGroup, (g) => Object.assign(g.spec, { preemptionPolicy: null, schedulingConstraints: null, disruptionMode: null })),
    want: [],
  },
  {
    name: "a PodGroup with a parent needs a workloadRef",
    object: changed(workersPodGroup, (g) => delete g.spec.workloadRef),
    want: ["spec.workloadRef: Required value: must be set when parentCompositePodGroupName is set"],
  },
  {
    name: "a PodGroup's workloadRef removed by an update is immutable, not required (that rule is create's)",
    old: workersPodGroup,
    object: changed(workersPodGroup, (g) => delete g.spec.workloadRef),
    want: ["spec.workloadRef: Invalid value: null: field is immutable"],
  },
  {
    name: "a PodGroup's priorityClassName set by an update is immutable, its value not checked then",
    old: workersPodGroup,
    object: changed(workersPodGroup, (g) => (g.spec.priorityClassName = "Bad")),
    want: ["spec.priorityClassName: Invalid value: null: field is immutable"],
  },
  {
    name: "a PodGroup's disruption mode and workloadRef are immutable",
    old: workersPodGroup,
    object: changed(workersPodGroup, (g) => {
      g.spec.disruptionMode = { all: {} };
      g.spec.workloadRef!.templateName = "driver";
    }),
    want: ["spec.workloadRef: Invalid value: null: field is immutable", "spec.disruptionMode: Invalid value: null: field is immutable"],
  },
  { name: "a CompositePodGroup with a workloadRef", object: rootCompositePodGroup, want: [] },
  {
    name: "a CompositePodGroup keeps its policy",
    old: rootCompositePodGroup,
    object: changed(rootCompositePodGroup, (g) => (g.spec.schedulingPolicy.gang!.minGroupCount = 3)),
    want: ["spec.schedulingPolicy: Invalid value: null: field is immutable"],
  },
  {
    name: "a CompositePodGroup's policy changed from gang to basic is that one error",
    old: rootCompositePodGroup,
    object: changed(rootCompositePodGroup, (g) => (g.spec.schedulingPolicy = { basic: {} })),
    want: ["spec.schedulingPolicy: Invalid value: null: field is immutable"],
  },
  {
    name: "a CompositePodGroup needs a workloadRef",
    object: changed(rootCompositePodGroup, (g) => delete (g.spec as Partial<CompositePodGroup["spec"]>).workloadRef),
    want: ["spec.workloadRef: Required value"],
  },
];
