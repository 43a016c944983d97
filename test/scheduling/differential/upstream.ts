/**
 * Upstream's own unit-test inputs and assertions, ported as data (the inputs, and what each test checks
 * on the result): k8s.io/component-helpers v0.37.2 scheduling/schedulingv1/workloadbuilder
 * (builder_test.go, validate_test.go, podgroup_test.go, mapconfig_test.go, examples/example.go) and
 * k8s.io/kubernetes v1.37.2 (pkg/controller/job/job_scheduling_manager_test.go,
 * pkg/apis/batch/validation/validation_test.go, pkg/registry/batch/job/strategy_test.go).
 *
 * Tests of unexported functions are ported through the public API that reaches them (the internal
 * newPodGroup through NewBuilderFromExistingWorkload, mapWorkloadInput through the config resolution);
 * tests that mutate private fields or compare pointers are ported as the behaviour they protect.
 */
import type { Assertion, Case, ConfigJSON, ItemJSON, OptionsJSON, Step } from "./cases.js";
import type { Workload } from "../../../src/scheduling/index.js";

const WB = "component-helpers workloadbuilder";
const jobOwner = { apiVersion: "batch/v1", kind: "Job", name: "job", uid: "job-uid" };
const dummyOwner = { apiVersion: "batch/v1", kind: "Job", name: "test-job", uid: "12345" };
const basic: ConfigJSON = { policy: { basic: {} } };
const gangDefault = (n: number): ConfigJSON => ({ policy: { gang: { minCount: n } } });
const gangData = (n: number) => ({ gang: { minCount: n } });
const compositeGangData = (n: number) => ({ gang: { minGroupCount: n } });
const allPolicies: OptionsJSON["allowedPolicies"] = ["Basic", "Gang"];
const allModes: OptionsJSON["allowedDisruptionModes"] = ["Single", "All"];
const S = "steps[0].object";

function builderCase(id: string, source: string, fn: Case["fn"], root: ItemJSON | null | undefined, options: OptionsJSON, steps: Step[], expect: Assertion[]): Case {
  return { id, fn, source, op: "builder", root, options, steps, expect };
}

// ---------------------------------------------------------------- builder_test.go TestBuildWorkload

function buildCases(): Case[] {
  const src = (name: string) => `upstream ${WB} builder_test.go TestBuildWorkload/${name}`;
  const t = (name: string, root: ItemJSON | null, expect: Assertion[], owner: OptionsJSON["owner"] = dummyOwner): Case =>
    builderCase(`upstream/build/${name}`, src(name), "BuildWorkload", root, { name: "wl", namespace: "ns", owner }, [{ do: "build" }], expect);
  const tmpl = `${S}.spec.podGroupTemplates[0]`;
  const cpg = `${S}.spec.compositePodGroupTemplates[0]`;
  const failed: Assertion[] = [{ at: "steps[0].error", present: true }, { at: S, absent: true }];
  return [
    t("basic policy", { name: "test-job", defaultConfig: basic }, [
      { at: `${S}.spec.podGroupTemplates`, length: 1 },
      { at: `${tmpl}.schedulingPolicy.basic`, present: true },
      { at: `${tmpl}.schedulingPolicy.gang`, absent: true },
    ]),
    t("gang policy from default", { name: "gang-job", defaultConfig: gangDefault(4) }, [{ at: `${tmpl}.schedulingPolicy.gang.minCount`, equals: 4 }]),
    t("gang minCount defaulted by callback", { name: "gang-job", defaultConfig: basic, input: { policy: { podGroupData: { gang: {} } } }, callbacks: [{ defaultGangMinCount: 8 }] }, [
      { at: `${tmpl}.schedulingPolicy.gang.minCount`, equals: 8 },
    ]),
    t("user gang overrides default basic", { name: "override-job", defaultConfig: basic, input: { policy: { podGroupData: gangData(2) } } }, [{ at: `${tmpl}.schedulingPolicy.gang.minCount`, equals: 2 }]),
    t(
      "field-by-field merge of default and user config",
      {
        name: "merge-job",
        defaultConfig: { policy: { basic: {} }, disruptionMode: { single: {} } },
        input: { constraints: { podGroupData: { topology: [{ key: "topology.kubernetes.io/zone" }] } } },
      },
      [
        { at: `${tmpl}.schedulingPolicy.basic`, present: true },
        { at: `${tmpl}.disruptionMode.single`, present: true },
        { at: `${tmpl}.schedulingConstraints.topology`, length: 1 },
      ],
    ),
    t("topology constraints", { name: "topo-job", defaultConfig: basic, input: { constraints: { podGroupData: { topology: [{ key: "topology.kubernetes.io/zone" }] } } } }, [
      { at: `${tmpl}.schedulingConstraints.topology`, length: 1 },
      { at: `${tmpl}.schedulingConstraints.topology[0].key`, equals: "topology.kubernetes.io/zone" },
    ]),
    t("disruption mode all", { name: "disruption-job", defaultConfig: basic, input: { disruptionMode: { podGroupData: { all: {} } } } }, [{ at: `${tmpl}.disruptionMode.all`, present: true }]),
    t("resource claims", { name: "dra-job", defaultConfig: basic, input: { resourceClaims: { podGroupData: [{ name: "gpu", resourceClaimName: "my-claim" }] } } }, [
      { at: `${tmpl}.resourceClaims`, length: 1 },
      { at: `${tmpl}.resourceClaims[0].name`, equals: "gpu" },
    ]),
    t("priorityClassName propagates to template", { name: "prio-job", defaultConfig: { policy: { basic: {} }, priorityClassName: "system-node-critical" } }, [
      { at: `${tmpl}.priorityClassName`, equals: "system-node-critical" },
    ]),
    t(
      "owner reference and controllerRef parse APIGroup",
      { name: "owned-job", defaultConfig: basic },
      [
        { at: `${S}.metadata.ownerReferences`, length: 1 },
        { at: `${S}.metadata.ownerReferences[0].name`, equals: "my-job" },
        { at: `${S}.spec.controllerRef.name`, equals: "my-job" },
        { at: `${S}.spec.controllerRef.apiGroup`, equals: "batch" },
        { at: `${S}.spec.controllerRef.kind`, equals: "Job" },
      ],
      { apiVersion: "batch/v1", kind: "Job", name: "my-job", uid: "abc-123" },
    ),
    // The callback records that it ran: the name check must stop the build before resolution and callbacks.
    t("empty leaf name fails before resolution and callbacks", { name: "", input: { policy: { podGroupData: { basic: {} } } }, callbacks: [{ mark: "callback ran" }] }, [
      ...failed,
      { at: "marks", length: 0 },
    ]),
    t("nil configs default to basic", { name: "bare" }, [{ at: `${tmpl}.schedulingPolicy.basic`, present: true }]),
    t("callback performs arbitrary adjustment", { name: "adjusted", defaultConfig: gangDefault(4), callbacks: [{ multiplyMinCount: 3 }] }, [{ at: `${tmpl}.schedulingPolicy.gang.minCount`, equals: 12 }]),
    t("resolution does not mutate caller inputs", { name: "gang-job", input: { policy: { podGroupData: { gang: {} } } }, callbacks: [{ defaultGangMinCount: 16 }] }, [
      { at: "inputsAfter.input.policy.podGroupData.gang.minCount", absent: true },
      { at: `${tmpl}.schedulingPolicy.gang.minCount`, equals: 16 },
    ]),
    t("gang missing minCount fails", { name: "gang-job", input: { policy: { podGroupData: { gang: {} } } } }, failed),
    t(
      "composite root compiles into a composite template with leaf children",
      {
        name: "cpg-root",
        defaultConfig: gangDefault(2),
        children: [
          { name: "workers", defaultConfig: gangDefault(4) },
          { name: "ps", defaultConfig: basic },
        ],
      },
      [
        { at: `${S}.spec.podGroupTemplates`, absent: true },
        { at: `${S}.spec.compositePodGroupTemplates`, length: 1 },
        { at: `${cpg}.name`, equals: "cpg-root" },
        { at: `${cpg}.schedulingPolicy.gang.minGroupCount`, equals: 2 },
        { at: `${cpg}.podGroupTemplates`, length: 2 },
        { at: `${cpg}.podGroupTemplates[0].schedulingPolicy.gang.minCount`, equals: 4 },
        { at: `${cpg}.podGroupTemplates[1].schedulingPolicy.basic`, present: true },
      ],
    ),
    t(
      "composite gang minGroupCount from user input",
      { name: "cpg-root", input: { policy: { compositePodGroupData: compositeGangData(3) } }, children: [{ name: "workers", defaultConfig: basic }] },
      [{ at: `${cpg}.schedulingPolicy.gang.minGroupCount`, equals: 3 }],
    ),
    t(
      "composite constraints and disruption mode compile onto the composite template",
      {
        name: "cpg-root",
        defaultConfig: basic,
        input: {
          constraints: { compositePodGroupData: { topology: [{ key: "topology.kubernetes.io/zone" }] } },
          disruptionMode: { compositePodGroupData: { all: {} } },
        },
        children: [{ name: "workers", defaultConfig: basic }],
      },
      [
        { at: `${cpg}.schedulingConstraints.topology`, length: 1 },
        { at: `${cpg}.schedulingConstraints.topology[0].key`, equals: "topology.kubernetes.io/zone" },
        { at: `${cpg}.disruptionMode.all`, present: true },
      ],
    ),
    t("composite defaults to basic policy", { name: "cpg-root", children: [{ name: "workers", defaultConfig: basic }] }, [{ at: `${cpg}.schedulingPolicy.basic`, present: true }]),
    t(
      "nested composite compiles recursively",
      { name: "cpg-root", defaultConfig: basic, children: [{ name: "inner", defaultConfig: gangDefault(2), children: [{ name: "workers", defaultConfig: basic }] }] },
      [
        { at: `${cpg}.compositePodGroupTemplates`, length: 1 },
        { at: `${cpg}.compositePodGroupTemplates[0].name`, equals: "inner" },
        { at: `${cpg}.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount`, equals: 2 },
        { at: `${cpg}.compositePodGroupTemplates[0].podGroupTemplates`, length: 1 },
        { at: `${cpg}.compositePodGroupTemplates[0].podGroupTemplates[0].name`, equals: "workers" },
      ],
    ),
    t("composite gang missing minGroupCount fails", { name: "cpg-root", input: { policy: { compositePodGroupData: { gang: {} } } }, children: [{ name: "workers", defaultConfig: basic }] }, failed),
    t(
      "composite policy set together with a leaf building block fails the input union",
      {
        name: "cpg-root",
        input: { policy: { compositePodGroupData: compositeGangData(2) }, disruptionMode: { podGroupData: { single: {} } } },
        children: [{ name: "workers", defaultConfig: basic }],
      },
      failed,
    ),
    t("composite with a nil child fails", { name: "cpg-root", defaultConfig: basic, children: [null] }, failed),
    t("composite child with empty name fails", { name: "cpg-root", defaultConfig: basic, children: [{ name: "", defaultConfig: basic }] }, failed),
    t(
      "duplicate template names across the tree fail",
      { name: "cpg-root", defaultConfig: basic, children: [{ name: "workers", defaultConfig: basic }, { name: "workers", defaultConfig: basic }] },
      failed,
    ),
    t("nil root fails", null, failed),
    t("missing owner returns error", { name: "job", defaultConfig: basic }, failed, null),
    t("owner apiVersion that fails to parse returns error", { name: "job", defaultConfig: basic }, failed, { apiVersion: "batch/v1/extra", kind: "Job", name: "my-job", uid: "abc-123" }),
  ];
}

// ---------------------------------------------------------------- builder_test.go, the Builder's methods

const gangItem = (): ItemJSON => ({ name: "pgt-0", input: { policy: { podGroupData: gangData(3) } } });
const compositeItem = (): ItemJSON => ({
  name: "cpgt-0",
  defaultConfig: gangDefault(2),
  children: [
    { name: "pgt-0", defaultConfig: basic },
    { name: "cpgt-1", defaultConfig: gangDefault(2), children: [{ name: "pgt-1", defaultConfig: basic }] },
  ],
});
/** What BuildWorkload makes of gangItem() and compositeItem(), for the builders over an existing Workload. */
const compiledGang = (): Workload => ({
  metadata: { name: "wl", namespace: "ns" },
  spec: { podGroupTemplates: [{ name: "pgt-0", schedulingPolicy: gangData(3) }] },
}) as unknown as Workload;
const compiledComposite = (): Workload => ({
  metadata: { name: "wl", namespace: "ns" },
  spec: {
    compositePodGroupTemplates: [
      {
        name: "cpgt-0",
        schedulingPolicy: compositeGangData(2),
        podGroupTemplates: [{ name: "pgt-0", schedulingPolicy: { basic: {} } }],
        compositePodGroupTemplates: [{ name: "cpgt-1", schedulingPolicy: compositeGangData(2), podGroupTemplates: [{ name: "pgt-1", schedulingPolicy: { basic: {} } }] }],
      },
    ],
  },
}) as unknown as Workload;
const existingWorkload = (): Workload => ({
  metadata: { name: "parent-wl", namespace: "ns", uid: "wl-uid" },
  spec: { podGroupTemplates: [{ name: "pgt-0", schedulingPolicy: gangData(4), priorityClassName: "high-priority", priority: 1000 }] },
}) as unknown as Workload;

function methodCases(): Case[] {
  const opts: OptionsJSON = { name: "wl", namespace: "ns", owner: jobOwner };
  const src = (test: string, sub: string) => `upstream ${WB} builder_test.go ${test}/${sub}`;
  const out: Case[] = [];
  const add = (test: string, sub: string, fn: Case["fn"], root: ItemJSON | null | undefined, o: OptionsJSON, steps: Step[], expect: Assertion[], existing?: Workload) => {
    const c = builderCase(`upstream/${test}/${sub}`, src(test, sub), fn, root, o, steps, expect);
    if (existing !== undefined && c.op === "builder") c.existing = existing;
    out.push(c);
  };
  const notBuilt = "call BuildWorkload or use NewBuilderFromExistingWorkload";

  add("TestBuilderBuildWorkload", "compiles identity and controllerRef", "BuildWorkload", gangItem(), opts, [{ do: "build" }], [
    { at: `${S}.metadata.name`, equals: "wl" },
    { at: `${S}.metadata.namespace`, equals: "ns" },
    { at: `${S}.metadata.ownerReferences`, length: 1 },
    { at: `${S}.metadata.ownerReferences[0].name`, equals: "job" },
    { at: `${S}.spec.controllerRef`, equals: { apiGroup: "batch", kind: "Job", name: "job" } },
    { at: `${S}.spec.podGroupTemplates`, length: 1 },
    { at: `${S}.spec.podGroupTemplates[0].name`, equals: "pgt-0" },
  ]);
  add("TestBuilderBuildWorkload", "caches the compiled workload", "BuildWorkload", gangItem(), opts, [{ do: "build" }, { do: "build" }], [{ at: "steps[1].same", equals: true }]);
  add("TestBuilderBuildWorkload", "errors are returned and nothing is cached/nil root", "BuildWorkload", null, opts, [{ do: "build" }, { do: "build" }], [
    { at: "steps[0].error", present: true },
    { at: "steps[1].error", present: true },
  ]);
  add("TestBuilderBuildWorkload", "errors are returned and nothing is cached/missing owner", "BuildWorkload", gangItem(), { name: "wl", namespace: "ns" }, [{ do: "build" }, { do: "build" }], [
    { at: "steps[0].error", present: true },
    { at: "steps[0].object", absent: true },
    { at: "steps[1].error", present: true },
  ]);

  add("TestBuilderNewPodGroup", "requires a workload first", "NewPodGroup", gangItem(), opts, [{ do: "newPodGroup", name: "pg", template: "pgt-0" }], [{ at: "steps[0].error", contains: notBuilt }]);
  add("TestBuilderNewPodGroup", "materializes from the compiled template owned by the configured owner", "NewPodGroup", gangItem(), opts, [{ do: "build" }, { do: "newPodGroup", name: "pg", template: "pgt-0" }], [
    { at: "steps[1].object.metadata.name", equals: "pg" },
    { at: "steps[1].object.metadata.namespace", equals: "ns" },
    { at: "steps[1].object.metadata.ownerReferences", length: 1 },
    { at: "steps[1].object.metadata.ownerReferences[0].name", equals: "job" },
    { at: "steps[1].object.spec.workloadRef", equals: { workloadName: "wl", templateName: "pgt-0" } },
  ]);
  // Upstream clears the builder's private owner after the build; without an owner a builder over the same Workload shows it.
  add("TestBuilderNewPodGroup", "omits ownerReferences when no owner is configured", "FromExistingWorkload", undefined, {}, [{ do: "newPodGroup", name: "pg", template: "pgt-0" }], [
    { at: "steps[0].object", present: true },
    { at: "steps[0].object.metadata.ownerReferences", absent: true },
  ], compiledGang());
  add("TestBuilderNewPodGroup", "errors on unknown template", "NewPodGroup", gangItem(), opts, [{ do: "build" }, { do: "newPodGroup", name: "pg", template: "missing" }], [{ at: "steps[1].error", present: true }]);
  add("TestBuilderNewPodGroup", "builds the template index once and reuses it across calls", "NewPodGroup", gangItem(), opts, [
    { do: "build" },
    { do: "newPodGroup", name: "pg-1", template: "pgt-0" },
    { do: "newPodGroup", name: "pg-2", template: "pgt-0" },
  ], [
    { at: "steps[1].object.metadata.name", equals: "pg-1" },
    { at: "steps[2].object.metadata.name", equals: "pg-2" },
  ]);

  add("TestBuilderNewCompositePodGroup", "requires a workload first", "NewCompositePodGroup", compositeItem(), opts, [{ do: "newCompositePodGroup", name: "cpg", template: "cpgt-0" }], [
    { at: "steps[0].error", contains: notBuilt },
  ]);
  add("TestBuilderNewCompositePodGroup", "materializes from the compiled composite template owned by the configured owner", "NewCompositePodGroup", compositeItem(), opts, [
    { do: "build" },
    { do: "newCompositePodGroup", name: "cpg", template: "cpgt-0" },
  ], [
    { at: "steps[1].object.spec.schedulingPolicy.gang.minGroupCount", equals: 2 },
    { at: "steps[1].object.metadata.ownerReferences", length: 1 },
    { at: "steps[1].object.metadata.ownerReferences[0].name", equals: "job" },
  ]);
  add("TestBuilderNewCompositePodGroup", "omits ownerReferences when no owner is configured", "FromExistingWorkload", undefined, {}, [{ do: "newCompositePodGroup", name: "cpg", template: "cpgt-0" }], [
    { at: "steps[0].object", present: true },
    { at: "steps[0].object.metadata.ownerReferences", absent: true },
  ], compiledComposite());
  add("TestBuilderNewCompositePodGroup", "resolves a nested composite template through the recursive index", "NewCompositePodGroup", compositeItem(), opts, [
    { do: "build" },
    { do: "newCompositePodGroup", name: "cpg", template: "cpgt-1" },
  ], [{ at: "steps[1].object", present: true }, { at: "steps[1].error", absent: true }]);
  add("TestBuilderNewCompositePodGroup", "errors on unknown template", "NewCompositePodGroup", compositeItem(), opts, [{ do: "build" }, { do: "newCompositePodGroup", name: "cpg", template: "missing" }], [
    { at: "steps[1].error", present: true },
  ]);
  add("TestBuilderNewCompositePodGroup", "builds the composite template index once and reuses it across calls", "NewCompositePodGroup", compositeItem(), opts, [
    { do: "build" },
    { do: "newCompositePodGroup", name: "cpg-1", template: "cpgt-0" },
    { do: "newCompositePodGroup", name: "cpg-2", template: "cpgt-1" },
  ], [
    { at: "steps[1].object.metadata.name", equals: "cpg-1" },
    { at: "steps[2].object.metadata.name", equals: "cpg-2" },
  ]);

  add("TestNewBuilderFromExistingWorkload", "materializes from the supplied workload without BuildWorkload", "FromExistingWorkload", undefined, { owner: jobOwner }, [{ do: "newPodGroup", name: "pg", template: "pgt-0" }], [
    { at: "steps[0].object.metadata.name", equals: "pg" },
    { at: "steps[0].object.metadata.namespace", equals: "ns" },
    { at: "steps[0].object.metadata.ownerReferences", length: 1 },
    { at: "steps[0].object.metadata.ownerReferences[0].name", equals: "job" },
    { at: "steps[0].object.spec.priorityClassName", equals: "high-priority" },
    { at: "steps[0].object.spec.priority", equals: 1000 },
    { at: "steps[0].object.spec.workloadRef.workloadName", equals: "parent-wl" },
  ], existingWorkload());
  add("TestNewBuilderFromExistingWorkload", "BuildWorkload is refused in existing mode", "FromExistingWorkload", undefined, { name: "wl", namespace: "ns", owner: jobOwner }, [{ do: "build" }], [
    { at: "steps[0].error", contains: "not available on a Builder created from an existing Workload" },
  ], existingWorkload());
  add("TestNewBuilderFromExistingWorkload", "Validate is refused in existing mode", "FromExistingWorkload", undefined, { owner: jobOwner }, [{ do: "validate" }], [
    { at: "steps[0].errors", length: 1 },
    { at: "steps[0].errors[0].type", equals: "InternalError" },
  ], existingWorkload());
  add("TestNewBuilderFromExistingWorkload", "errors on unknown template", "FromExistingWorkload", undefined, { owner: jobOwner }, [{ do: "newPodGroup", name: "pg", template: "missing" }], [
    { at: "steps[0].error", present: true },
  ], existingWorkload());
  return out;
}

// ---------------------------------------------------------------- podgroup_test.go (newPodGroup, newCompositePodGroup)

function podGroupCases(): Case[] {
  const gangWorkload = {
    metadata: { name: "job-abc", namespace: "training" },
    spec: {
      podGroupTemplates: [
        {
          name: "workers",
          schedulingPolicy: gangData(4),
          schedulingConstraints: { topology: [{ key: "topology.kubernetes.io/zone" }] },
          disruptionMode: { all: {} },
          resourceClaims: [{ name: "gpu", resourceClaimName: "shared-gpu" }],
          priorityClassName: "high",
          priority: 1000,
        },
      ],
    },
  } as unknown as Workload;
  const compositeWorkload = {
    metadata: { name: "job-abc", namespace: "training" },
    spec: {
      compositePodGroupTemplates: [
        {
          name: "top",
          schedulingPolicy: compositeGangData(2),
          priorityClassName: "high",
          priority: 1000,
          compositePodGroupTemplates: [{ name: "nested", schedulingPolicy: { basic: {} } }],
        },
      ],
    },
  } as unknown as Workload;
  const src = (test: string, sub: string) => `upstream ${WB} podgroup_test.go ${test}/${sub} (through NewBuilderFromExistingWorkload: one owner)`;
  const pg = "steps[0].object";
  const c = (id: string, source: string, owner: OptionsJSON["owner"], existing: Workload, step: Step, expect: Assertion[]): Case => ({
    id,
    fn: "FromExistingWorkload",
    source,
    op: "builder",
    existing,
    options: owner ? { owner } : {},
    steps: [step],
    expect,
  });
  return [
    c("upstream/TestNewPodGroup/materializes every field", src("TestNewPodGroup", "materializes every field from the template"), { apiVersion: "batch/v1", kind: "Job", name: "job", uid: "", controller: true }, gangWorkload, { do: "newPodGroup", name: "job-abc-workers-xyz", template: "workers" }, [
      { at: `${pg}.metadata.name`, equals: "job-abc-workers-xyz" },
      { at: `${pg}.metadata.namespace`, equals: "training" },
      { at: `${pg}.metadata.ownerReferences`, length: 1 },
      { at: `${pg}.spec.workloadRef`, equals: { workloadName: "job-abc", templateName: "workers" } },
      { at: `${pg}.spec.schedulingPolicy.gang.minCount`, equals: 4 },
      { at: `${pg}.spec.schedulingConstraints.topology`, length: 1 },
      { at: `${pg}.spec.disruptionMode.all`, present: true },
      { at: `${pg}.spec.resourceClaims`, length: 1 },
      { at: `${pg}.spec.resourceClaims[0].name`, equals: "gpu" },
      { at: `${pg}.spec.priorityClassName`, equals: "high" },
      { at: `${pg}.spec.priority`, equals: 1000 },
    ]),
    c("upstream/TestNewCompositePodGroup/top-level", src("TestNewCompositePodGroup", "materializes a top-level composite template"), jobOwner, compositeWorkload, { do: "newCompositePodGroup", name: "job-abc-top-xyz", template: "top" }, [
      { at: `${pg}.metadata.name`, equals: "job-abc-top-xyz" },
      { at: `${pg}.metadata.namespace`, equals: "training" },
      { at: `${pg}.metadata.ownerReferences`, length: 1 },
      { at: `${pg}.metadata.ownerReferences[0].name`, equals: "job" },
      { at: `${pg}.spec.workloadRef`, equals: { workloadName: "job-abc", templateName: "top" } },
      { at: `${pg}.spec.schedulingPolicy.gang.minGroupCount`, equals: 2 },
      { at: `${pg}.spec.priorityClassName`, equals: "high" },
      { at: `${pg}.spec.priority`, equals: 1000 },
    ]),
    c("upstream/TestNewCompositePodGroup/nested", src("TestNewCompositePodGroup", "materializes a nested composite template"), null, compositeWorkload, { do: "newCompositePodGroup", name: "job-abc-nested-xyz", template: "nested" }, [
      { at: `${pg}.spec.schedulingPolicy.basic`, present: true },
    ]),
    c("upstream/TestNewCompositePodGroup/no owners", src("TestNewCompositePodGroup", "omits ownerReferences when none are configured"), null, compositeWorkload, { do: "newCompositePodGroup", name: "cpg", template: "top" }, [
      { at: `${pg}.metadata.ownerReferences`, absent: true },
    ]),
  ];
}

// ---------------------------------------------------------------- validate_test.go TestBuilderValidate

function validateCases(): Case[] {
  const schedulingPath = "spec.scheduling";
  const gang = () => ({ podGroupData: gangData(2) });
  const basicPolicy = () => ({ podGroupData: { basic: {} } });
  const compositeGang = () => ({ compositePodGroupData: compositeGangData(2) });
  const compositeBasic = () => ({ compositePodGroupData: { basic: {} } });
  const withGang = (n: number) => ({ policy: { pathElements: ["schedulingPolicy"], podGroupData: gangData(n) } });
  const compositeRoot = (input: ItemJSON["input"]): ItemJSON => ({ name: "root", path: schedulingPath, input, children: [{ name: "child", path: schedulingPath, input: withGang(2) }] });
  const single = { podGroupData: { single: {} } };
  const all = { podGroupData: { all: {} } };
  interface V {
    name: string;
    root: ItemJSON | null;
    oldRoot?: ItemJSON;
    allowPolicies?: OptionsJSON["allowedPolicies"];
    allowModes?: OptionsJSON["allowedDisruptionModes"];
    disableDV?: boolean;
    wantErrs?: number;
    wantType?: string;
    wantField?: string;
  }
  const cases: V[] = [
    { name: "nil tree fails to compile", root: null, wantErrs: 1, wantType: "FieldValueInvalid" },
    { name: "basic allowed", root: { name: "job", input: { policy: basicPolicy() } } },
    { name: "empty item name is rejected", root: { name: "", path: schedulingPath, input: { policy: basicPolicy() } }, wantErrs: 1, wantType: "InternalError", wantField: schedulingPath },
    { name: "basic forbidden when not allow-listed", root: { name: "job", input: { policy: basicPolicy() } }, allowPolicies: ["Gang"], wantErrs: 1, wantType: "FieldValueForbidden" },
    { name: "gang allowed", root: { name: "job", input: { policy: gang() } }, allowPolicies: ["Gang"] },
    { name: "gang forbidden when not allow-listed", root: { name: "job", input: { policy: gang() } }, allowPolicies: ["Basic"], wantErrs: 1, wantType: "FieldValueForbidden" },
    { name: "single disruption allowed", root: { name: "job", input: { policy: gang(), disruptionMode: single } }, allowModes: ["Single"] },
    { name: "all disruption forbidden when not allow-listed", root: { name: "job", input: { policy: gang(), disruptionMode: all } }, allowModes: ["Single"], wantErrs: 1, wantType: "FieldValueForbidden" },
    { name: "basic with all disruption is rejected by cross-field rule", root: { name: "job", input: { policy: basicPolicy(), disruptionMode: all } }, wantErrs: 1, wantType: "FieldValueInvalid" },
    { name: "gang with all disruption is valid", root: { name: "job", input: { policy: gang(), disruptionMode: all } } },
    {
      name: "gang minCount below minimum fails declarative validation at injected path",
      root: { name: "job", path: schedulingPath, input: withGang(0) },
      wantErrs: 1,
      wantType: "FieldValueInvalid",
      wantField: "spec.scheduling.schedulingPolicy.gang.minCount",
    },
    { name: "nil item Path reports building-block errors without a root prefix", root: { name: "job", input: withGang(0) }, wantErrs: 1, wantType: "FieldValueInvalid", wantField: "schedulingPolicy.gang.minCount" },
    { name: "declarative validation is skipped when disabled", root: { name: "job", path: schedulingPath, input: withGang(0) }, disableDV: true },
    {
      name: "disruptionMode with single and all fails union declarative validation",
      root: { name: "job", path: schedulingPath, input: { policy: gang(), disruptionMode: { pathElements: ["disruptionMode"], podGroupData: { single: {}, all: {} } } } },
      wantErrs: 1,
      wantType: "FieldValueInvalid",
      wantField: "spec.scheduling.disruptionMode",
    },
    {
      name: "too many topology constraints fails declarative validation",
      root: { name: "job", path: schedulingPath, input: { policy: gang(), constraints: { pathElements: ["schedulingConstraints"], podGroupData: { topology: [{ key: "zone" }, { key: "rack" }] } } } },
      wantErrs: 1,
      wantType: "FieldValueTooMany",
      wantField: "spec.scheduling.schedulingConstraints.topology",
    },
    {
      name: "resourceClaim with no source fails union declarative validation at indexed path",
      root: { name: "job", path: schedulingPath, input: { policy: gang(), resourceClaims: { pathElements: ["resourceClaims"], podGroupData: [{ name: "claim0" }] } } },
      wantErrs: 1,
      wantType: "FieldValueInvalid",
      wantField: "spec.scheduling.resourceClaims[0]",
    },
    { name: "composite gang allowed", root: compositeRoot({ policy: compositeGang() }), allowPolicies: ["Gang"] },
    { name: "composite basic forbidden when not allow-listed", root: compositeRoot({ policy: compositeBasic() }), allowPolicies: ["Gang"], wantErrs: 1, wantType: "FieldValueForbidden" },
    {
      name: "composite gang minGroupCount below minimum fails declarative validation at injected path",
      root: compositeRoot({ policy: { pathElements: ["schedulingPolicy"], compositePodGroupData: compositeGangData(0) } }),
      wantErrs: 1,
      wantType: "FieldValueInvalid",
      wantField: "spec.scheduling.schedulingPolicy.gang.minGroupCount",
    },
    {
      name: "composite policy with basic and gang fails union declarative validation",
      root: compositeRoot({ policy: { pathElements: ["schedulingPolicy"], compositePodGroupData: { basic: {}, gang: { minGroupCount: 2 } } } }),
      wantErrs: 1,
      wantType: "FieldValueInvalid",
      wantField: "spec.scheduling.schedulingPolicy",
    },
    {
      name: "composite policy set with a leaf policy fails the input union",
      root: compositeRoot({ policy: { pathElements: ["schedulingPolicy"], compositePodGroupData: compositeGangData(2), podGroupData: gangData(2) } }),
      wantErrs: 1,
      wantType: "InternalError",
      wantField: schedulingPath,
    },
    {
      name: "composite policy set with a leaf disruptionMode fails the input union",
      root: compositeRoot({ policy: { pathElements: ["schedulingPolicy"], compositePodGroupData: compositeGangData(2) }, disruptionMode: single }),
      wantErrs: 1,
      wantType: "InternalError",
      wantField: schedulingPath,
    },
    {
      name: "input union is enforced even when declarative validation is disabled",
      root: compositeRoot({ policy: { pathElements: ["schedulingPolicy"], compositePodGroupData: compositeGangData(2), podGroupData: gangData(2) } }),
      disableDV: true,
      wantErrs: 1,
      wantType: "InternalError",
      wantField: schedulingPath,
    },
    {
      name: "invalid leaf child in a composite tree is validated recursively",
      root: { name: "root", path: schedulingPath, input: { policy: compositeBasic() }, children: [{ name: "child", path: schedulingPath, input: withGang(0) }] },
      wantErrs: 1,
      wantType: "FieldValueInvalid",
      wantField: "spec.scheduling.schedulingPolicy.gang.minCount",
    },
    { name: "update with matching root name is accepted", root: { name: "job", input: { policy: gang() } }, oldRoot: { name: "job", input: { policy: gang() } } },
    {
      name: "update with mismatched root name is an internal error",
      root: { name: "job", path: schedulingPath, input: { policy: gang() } },
      oldRoot: { name: "stale-job", input: { policy: gang() } },
      wantErrs: 1,
      wantType: "InternalError",
      wantField: schedulingPath,
    },
    { name: "update clearing policy skips declarative validation for the new nil policy", root: { name: "job", input: {} }, oldRoot: { name: "job", input: { policy: gang() } } },
    {
      name: "update clearing constraints skips declarative validation for the new nil constraints",
      root: { name: "job", input: { policy: gang() } },
      oldRoot: { name: "job", input: { policy: gang(), constraints: { podGroupData: { topology: [{ key: "zone" }] } } } },
    },
    {
      name: "update clearing disruptionMode skips declarative validation for the new nil disruptionMode",
      root: { name: "job", input: { policy: gang() } },
      oldRoot: { name: "job", input: { policy: gang(), disruptionMode: single } },
    },
    {
      name: "update of an unchanged child at the same position is ratcheted",
      root: { name: "root", children: [{ name: "leaf", input: withGang(0) }] },
      oldRoot: { name: "root", children: [{ name: "leaf", input: withGang(0) }] },
    },
    {
      name: "update of a child that changed position is validated as an addition",
      root: { name: "root", path: schedulingPath, children: [{ name: "leaf", path: schedulingPath, input: withGang(0) }] },
      oldRoot: { name: "root", children: [{ name: "mid", children: [{ name: "leaf", input: withGang(0) }] }] },
      wantErrs: 1,
      wantType: "FieldValueInvalid",
      wantField: "spec.scheduling.schedulingPolicy.gang.minCount",
    },
  ];
  return cases.map((v) => {
    const expect: Assertion[] = [{ at: "steps[0].errors", length: v.wantErrs ?? 0 }];
    if (v.wantType) expect.push({ at: "steps[0].errors[0].type", equals: v.wantType });
    if (v.wantField) expect.push({ at: "steps[0].errors[0].field", equals: v.wantField });
    return builderCase(
      `upstream/TestBuilderValidate/${v.name}`,
      `upstream ${WB} validate_test.go TestBuilderValidate/${v.name}`,
      "Validate",
      v.root,
      { owner: jobOwner, allowedPolicies: v.allowPolicies ?? allPolicies, allowedDisruptionModes: v.allowModes ?? allModes, disableDeclarativeValidation: v.disableDV ?? false },
      [v.oldRoot === undefined ? { do: "validate" } : { do: "validate", oldRoot: v.oldRoot }],
      expect,
    );
  });
}

// ---------------------------------------------------------------- mapconfig_test.go, through the config resolution

function resolveCases(): Case[] {
  const out: Case[] = [];
  const resolve = (test: string, name: string, item: ItemJSON, expect: Assertion[]) =>
    out.push({ id: `upstream/${test}/${name}`, fn: "resolveSchedulingConfig", source: `upstream ${WB} mapconfig_test.go ${test}/${name} (through the config resolution)`, op: "resolve", item, expect });
  const leaf = (input: ItemJSON["input"]): ItemJSON => ({ name: "job", input });
  resolve("TestMapWorkloadInput", "all nil leaves fields unset", leaf({}), [{ at: "config", equals: {} }]);
  resolve("TestMapWorkloadInput", "empty policy maps to nil so the default survives", leaf({ policy: { podGroupData: {} } }), [{ at: "config.policy", absent: true }]);
  resolve("TestMapWorkloadInput", "empty constraints maps to nil so the default survives", leaf({ constraints: { podGroupData: {} } }), [{ at: "config.constraints", absent: true }]);
  resolve("TestMapWorkloadInput", "empty disruption maps to nil so the default survives", leaf({ disruptionMode: { podGroupData: {} } }), [{ at: "config.disruptionMode", absent: true }]);
  resolve("TestMapWorkloadInput", "basic policy", leaf({ policy: { podGroupData: { basic: {} } } }), [{ at: "config.policy.basic", present: true }]);
  resolve("TestMapWorkloadInput", "gang policy with minCount", leaf({ policy: { podGroupData: gangData(4) } }), [{ at: "config.policy.gang.minCount", equals: 4 }]);
  resolve("TestMapWorkloadInput", "gang policy preserves nil minCount", leaf({ policy: { podGroupData: { gang: {} } } }), [
    { at: "config.policy.gang", present: true },
    { at: "config.policy.gang.minCount", absent: true },
  ]);
  resolve("TestMapWorkloadInput", "topology constraints", leaf({ constraints: { podGroupData: { topology: [{ key: "topology.kubernetes.io/rack" }] } } }), [
    { at: "config.constraints.topology", length: 1 },
    { at: "config.constraints.topology[0].key", equals: "topology.kubernetes.io/rack" },
  ]);
  resolve("TestMapWorkloadInput", "disruption mode all", leaf({ disruptionMode: { podGroupData: { all: {} } } }), [{ at: "config.disruptionMode.all", present: true }]);
  resolve("TestMapWorkloadInput", "resource claims", leaf({ resourceClaims: { podGroupData: [{ name: "gpu", resourceClaimName: "shared-gpu" }] } }), [
    { at: "config.resourceClaims", length: 1 },
    { at: "config.resourceClaims[0].name", equals: "gpu" },
    { at: "config.resourceClaims[0].resourceClaimName", equals: "shared-gpu" },
  ]);
  resolve(
    "TestMapWorkloadInput",
    "all fields populated",
    leaf({
      policy: { podGroupData: gangData(2) },
      constraints: { podGroupData: { topology: [{ key: "zone" }] } },
      disruptionMode: { podGroupData: { single: {} } },
      resourceClaims: { podGroupData: [{ name: "net", resourceClaimTemplateName: "tpl" }] },
    }),
    [
      { at: "config.policy.gang", present: true },
      { at: "config.constraints.topology", length: 1 },
      { at: "config.disruptionMode.single", present: true },
      { at: "config.resourceClaims", length: 1 },
      { at: "config.resourceClaims[0].resourceClaimTemplateName", present: true },
    ],
  );
  const composite = (input: ItemJSON["input"]): ItemJSON => ({ name: "cpg", input, children: [{ name: "child" }] });
  const noClaims: Assertion = { at: "config.resourceClaims", absent: true };
  resolve("TestMapCompositeGroupInput", "nil policy leaves Policy unset", composite({}), [{ at: "config.policy", absent: true }, noClaims]);
  resolve("TestMapCompositeGroupInput", "composite topology constraints", composite({ constraints: { compositePodGroupData: { topology: [{ key: "zone" }] } } }), [
    { at: "config.constraints.topology", length: 1 },
    { at: "config.constraints.topology[0].key", equals: "zone" },
    noClaims,
  ]);
  resolve("TestMapCompositeGroupInput", "composite disruption mode all", composite({ disruptionMode: { compositePodGroupData: { all: {} } } }), [{ at: "config.disruptionMode.all", present: true }, noClaims]);
  resolve("TestMapCompositeGroupInput", "empty policy maps to nil so the default survives", composite({ policy: { compositePodGroupData: {} } }), [{ at: "config.policy", absent: true }, noClaims]);
  resolve("TestMapCompositeGroupInput", "basic policy", composite({ policy: { compositePodGroupData: { basic: {} } } }), [{ at: "config.policy.basic", present: true }, noClaims]);
  resolve("TestMapCompositeGroupInput", "gang policy carries minGroupCount in the IR MinCount", composite({ policy: { compositePodGroupData: compositeGangData(3) } }), [
    { at: "config.policy.gang.minCount", equals: 3 },
    noClaims,
  ]);
  resolve("TestMapCompositeGroupInput", "gang policy preserves nil minGroupCount", composite({ policy: { compositePodGroupData: { gang: {} } } }), [
    { at: "config.policy.gang", present: true },
    { at: "config.policy.gang.minCount", absent: true },
    noClaims,
  ]);
  resolve(
    "TestResolveSchedulingConfigMergesEveryField",
    "every field of the input overrides the default, priorityClassName stays the default's",
    {
      name: "job",
      defaultConfig: {
        policy: { basic: {} },
        constraints: { topology: [{ key: "topology.kubernetes.io/zone" }] },
        disruptionMode: { single: {} },
        resourceClaims: [{ name: "default-claim", resourceClaimName: "default" }],
        priorityClassName: "default-priority",
      },
      input: {
        policy: { podGroupData: gangData(4) },
        constraints: { podGroupData: { topology: [{ key: "topology.kubernetes.io/region" }] } },
        disruptionMode: { podGroupData: { all: {} } },
        resourceClaims: { podGroupData: [{ name: "user-claim", resourceClaimName: "user" }] },
      },
    },
    [
      {
        at: "config",
        equals: {
          policy: { gang: { minCount: 4 } },
          constraints: { topology: [{ key: "topology.kubernetes.io/region" }] },
          disruptionMode: { all: {} },
          resourceClaims: [{ name: "user-claim", resourceClaimName: "user" }],
          priorityClassName: "default-priority",
        },
      },
    ],
  );
  return out;
}

function endToEndCases(): Case[] {
  const owner = { apiVersion: "batch/v1", kind: "Job", name: "test-job", uid: "12345" };
  const src = (name: string) => `upstream ${WB} mapconfig_test.go TestMapConfigEndToEnd/${name}`;
  return [
    builderCase(
      "upstream/TestMapConfigEndToEnd/leaf",
      src("leaf group maps and compiles every building block"),
      "BuildWorkload",
      {
        name: "job-root",
        defaultConfig: basic,
        input: {
          policy: { podGroupData: { gang: {} } },
          constraints: { podGroupData: { topology: [{ key: "topology.kubernetes.io/zone" }] } },
          disruptionMode: { podGroupData: { all: {} } },
        },
        callbacks: [{ defaultGangMinCount: 4 }],
      },
      { name: "job", namespace: "ns", owner },
      [{ do: "build" }],
      [
        { at: `${S}.spec.podGroupTemplates[0].schedulingPolicy.gang.minCount`, equals: 4 },
        { at: `${S}.spec.podGroupTemplates[0].schedulingConstraints.topology`, length: 1 },
        { at: `${S}.spec.podGroupTemplates[0].disruptionMode.all`, present: true },
      ],
    ),
    builderCase(
      "upstream/TestMapConfigEndToEnd/composite",
      src("composite group maps and compiles the group-of-groups policy"),
      "BuildWorkload",
      { name: "cpg-root", defaultConfig: basic, input: { policy: { compositePodGroupData: { gang: {} } } }, callbacks: [{ defaultGangMinCount: 4 }], children: [{ name: "workers", defaultConfig: basic }] },
      { name: "job", namespace: "ns", owner },
      [{ do: "build" }],
      [
        { at: `${S}.spec.compositePodGroupTemplates[0].schedulingPolicy.gang.minGroupCount`, equals: 4 },
        { at: `${S}.spec.compositePodGroupTemplates[0].podGroupTemplates`, length: 1 },
        { at: `${S}.spec.compositePodGroupTemplates[0].podGroupTemplates[0].name`, equals: "workers" },
      ],
    ),
  ];
}

// ---------------------------------------------------------------- examples/example.go (their Output comments)

function exampleCases(): Case[] {
  const src = (name: string) => `upstream ${WB} examples/example.go ${name}`;
  return [
    builderCase(
      "upstream/ExampleOutOfTreeControllerValidation",
      src("ExampleOutOfTreeControllerValidation"),
      "Validate",
      {
        name: "worker",
        path: "spec.scheduling",
        defaultConfig: basic,
        input: { policy: { podGroupData: { basic: {} }, pathElements: ["schedulingPolicy"] }, disruptionMode: { podGroupData: { all: {} }, pathElements: ["disruptionMode"] } },
      },
      { owner: { apiVersion: "batch/v1", kind: "Job", name: "worker", uid: "job-uid" }, allowedPolicies: allPolicies, allowedDisruptionModes: allModes },
      [{ do: "validate" }],
      [
        { at: "steps[0].errors", length: 1 },
        { at: "steps[0].errors[0].error", equals: 'spec.scheduling.disruptionMode: Invalid value: "": the disruptionMode `all` is not supported with the Basic scheduling policy' },
      ],
    ),
    builderCase(
      "upstream/ExampleJobControllerE2E",
      src("ExampleJobControllerE2E"),
      "BuildWorkload",
      {
        name: "trainer-pgt-0",
        path: "spec.scheduling",
        defaultConfig: basic,
        input: {
          policy: { podGroupData: { gang: {} }, pathElements: ["schedulingPolicy"] },
          constraints: { podGroupData: { topology: [{ key: "kubernetes.io/hostname" }] }, pathElements: ["schedulingConstraints"] },
        },
        callbacks: [{ defaultGangMinCount: 4 }],
      },
      {
        name: "trainer-wl",
        namespace: "ml",
        owner: { apiVersion: "batch/v1", kind: "Job", name: "trainer", uid: "job-uid" },
        allowedPolicies: allPolicies,
        allowedDisruptionModes: allModes,
        disableDeclarativeValidation: true,
      },
      [{ do: "validate" }, { do: "build" }, { do: "newPodGroup", name: "trainer-pg", template: "trainer-pgt-0" }],
      [
        { at: "steps[0].errors", length: 0 },
        { at: "steps[1].object.metadata.namespace", equals: "ml" },
        { at: "steps[1].object.metadata.name", equals: "trainer-wl" },
        { at: "steps[1].object.spec.controllerRef", equals: { apiGroup: "batch", kind: "Job", name: "trainer" } },
        { at: "steps[1].object.spec.podGroupTemplates[0].name", equals: "trainer-pgt-0" },
        { at: "steps[1].object.spec.podGroupTemplates[0].schedulingPolicy.gang.minCount", equals: 4 },
        { at: "steps[1].object.spec.podGroupTemplates[0].schedulingConstraints.topology[0].key", equals: "kubernetes.io/hostname" },
        { at: "steps[2].object.metadata.namespace", equals: "ml" },
        { at: "steps[2].object.metadata.name", equals: "trainer-pg" },
        { at: "steps[2].object.spec.workloadRef", equals: { workloadName: "trainer-wl", templateName: "trainer-pgt-0" } },
        { at: "steps[2].object.spec.schedulingPolicy.gang.minCount", equals: 4 },
      ],
    ),
    // Its comments call Validate a no-op here; the library refuses it with an internal error (as
    // TestNewBuilderFromExistingWorkload asserts), so only the example's printed Output is ported.
    {
      ...(builderCase(
        "upstream/ExampleDelegatedPodGroupFromExistingWorkload",
        src("ExampleDelegatedPodGroupFromExistingWorkload"),
        "FromExistingWorkload",
        undefined,
        { owner: { apiVersion: "batch/v1", kind: "Job", name: "trainer-worker", uid: "job-uid" } },
        [{ do: "validate" }, { do: "build" }, { do: "newPodGroup", name: "trainer-pg", template: "trainer-pgt-0" }],
        [
          { at: "steps[1].error", present: true },
          { at: "steps[2].object.metadata.namespace", equals: "ml" },
          { at: "steps[2].object.metadata.name", equals: "trainer-pg" },
          { at: "steps[2].object.spec.workloadRef", equals: { workloadName: "trainer-wl", templateName: "trainer-pgt-0" } },
          { at: "steps[2].object.spec.priorityClassName", equals: "high-priority" },
          { at: "steps[2].object.spec.schedulingPolicy.gang.minCount", equals: 4 },
          { at: "steps[2].object.metadata.ownerReferences[0].name", equals: "trainer-worker" },
        ],
      ) as Extract<Case, { op: "builder" }>),
      existing: {
        metadata: { name: "trainer-wl", namespace: "ml", uid: "wl-uid" },
        spec: { podGroupTemplates: [{ name: "trainer-pgt-0", priorityClassName: "high-priority", schedulingPolicy: gangData(4) }] },
      } as unknown as Workload,
    },
  ];
}

// ---------------------------------------------------------------- k8s.io/kubernetes: the Job controller and Job validation

const K8S = "kubernetes";

function jobNameCases(): Case[] {
  const out: Case[] = [];
  for (const [name, jobName, jobUID] of [
    ["short name", "my-job", "uid-123"],
    ["very long name exceeding DNS limit", "a".repeat(300), "uid-long"],
  ] as const) {
    out.push({
      id: `upstream/TestComputeWorkloadName/${name}`,
      fn: "naming",
      source: `upstream ${K8S} pkg/controller/job/job_scheduling_manager_test.go TestComputeWorkloadName/${name}`,
      op: "names",
      names: [
        { kind: "workload", jobName, jobUID },
        { kind: "workload", jobName, jobUID },
        { kind: "workload", jobName, jobUID: "different-uid" },
      ],
      expect: [
        { at: "[0].name", maxBytes: 253 },
        { at: "[0].name", contains: "-" },
        { at: "[0].name", sameAs: "[1].name" },
        { at: "[0].name", differsFrom: "[2].name" },
        { at: "[1].name", differsFrom: "[2].name" },
      ],
    });
  }
  const pg: [string, string, string][] = [
    ["short names", "my-workload", "my-template"],
    ["long workload name", "w".repeat(250), "tpl"],
    ["long template name", "wl", "t".repeat(250)],
    ["both long names", "w".repeat(200), "t".repeat(200)],
  ];
  for (const [name, workloadName, templateName] of pg) {
    out.push({
      id: `upstream/TestComputePodGroupName/${name}`,
      fn: "naming",
      source: `upstream ${K8S} pkg/controller/job/job_scheduling_manager_test.go TestComputePodGroupName/${name}`,
      op: "names",
      names: [
        { kind: "podGroup", workloadName, templateName },
        { kind: "podGroup", workloadName, templateName: "other-template" },
      ],
      expect: [
        { at: "[0].name", maxBytes: 253 },
        { at: "[0].name", differsFrom: "[1].name" },
      ],
    });
  }
  out.push({
    id: "upstream/TestComputePodGroupName/truncation preserves both parts",
    fn: "naming",
    source: `upstream ${K8S} pkg/controller/job/job_scheduling_manager_test.go TestComputePodGroupName/truncation preserves both parts`,
    op: "names",
    names: [{ kind: "podGroup", workloadName: "w".repeat(200), templateName: "t".repeat(200) }],
    expect: [
      { at: "[0].name", contains: "www" },
      { at: "[0].name", contains: "ttt" },
    ],
  });
  out.push({
    id: "upstream/TestComputePodGroupName/short workload name is not truncated",
    fn: "naming",
    source: `upstream ${K8S} pkg/controller/job/job_scheduling_manager_test.go TestComputePodGroupName/short workload name is not truncated`,
    op: "names",
    names: [{ kind: "podGroup", workloadName: "wl", templateName: "t".repeat(250) }],
    expect: [{ at: "[0].name", startsWith: "wl-" }],
  });
  return out;
}

type JobScheduling = Record<string, unknown> | undefined;

/** A Job as the tests write it, with a pod template the API server accepts. */
export function jobObject(name: string, parallelism: number | undefined, scheduling: JobScheduling, extra: { priorityClassName?: string; uid?: string; namespace?: string } = {}): Record<string, unknown> {
  const spec: Record<string, unknown> = {
    template: {
      spec: { restartPolicy: "Never", containers: [{ name: "main", image: "registry.k8s.io/pause:3.10" }], ...(extra.priorityClassName ? { priorityClassName: extra.priorityClassName } : {}) },
    },
  };
  if (parallelism !== undefined) spec.parallelism = parallelism;
  if (scheduling !== undefined) spec.scheduling = scheduling;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, namespace: extra.namespace ?? "default", uid: extra.uid ?? `${name}-uid`, resourceVersion: "1" },
    spec,
  };
}

function jobCompileCases(): Case[] {
  const src = (name: string) => `upstream ${K8S} pkg/controller/job/job_scheduling_manager_test.go TestGenerateWorkload/${name}`;
  const tmpl = "workloads[0].spec.podGroupTemplates[0]";
  const c = (name: string, job: Record<string, unknown>, expect: Assertion[]): Case => ({
    id: `upstream/TestGenerateWorkload/${name}`,
    fn: "Job compilation",
    source: src(name),
    op: "jobCompile",
    job,
    workloadUID: "wl-uid",
    expect: [{ at: "workloads[0].spec.podGroupTemplates", length: 1 }, { at: `${tmpl}.name`, equals: `${(job.metadata as { name: string }).name}-pgt-0` }, { at: "workloads[0].spec.controllerRef.name", equals: (job.metadata as { name: string }).name }, ...expect],
  });
  const noPcn: Assertion = { at: `${tmpl}.priorityClassName`, absent: true };
  return [
    c("nil scheduling defaults to Basic", jobObject("basic-default", 4, undefined), [{ at: `${tmpl}.schedulingPolicy.basic`, present: true }, noPcn]),
    c("scheduling set but policy nil defaults to Basic", jobObject("basic-nil-policy", 4, {}), [{ at: `${tmpl}.schedulingPolicy.basic`, present: true }, noPcn]),
    c("explicit basic policy", jobObject("basic-explicit", 4, { schedulingPolicy: { basic: {} } }), [{ at: `${tmpl}.schedulingPolicy.basic`, present: true }, noPcn]),
    c("gang with explicit minCount", jobObject("gang", 4, { schedulingPolicy: gangData(3) }), [{ at: `${tmpl}.schedulingPolicy.gang.minCount`, equals: 3 }, noPcn]),
    c("gang without minCount defaults to parallelism", jobObject("gang-zero", 4, { schedulingPolicy: { gang: {} } }), [{ at: `${tmpl}.schedulingPolicy.gang.minCount`, equals: 4 }, noPcn]),
    c("gang without minCount and zero parallelism clamps to 1", jobObject("gang-zero-parallelism", 0, { schedulingPolicy: { gang: {} } }), [{ at: `${tmpl}.schedulingPolicy.gang.minCount`, equals: 1 }, noPcn]),
    c(
      "gang, topology, disruption, and claims passthrough",
      jobObject("full", 4, {
        schedulingPolicy: gangData(4),
        schedulingConstraints: { topology: [{ key: "topology.kubernetes.io/zone" }] },
        disruptionMode: { all: {} },
        resourceClaims: [{ name: "gpu", resourceClaimName: "my-claim" }],
      }),
      [
        { at: `${tmpl}.schedulingPolicy.gang.minCount`, equals: 4 },
        { at: `${tmpl}.schedulingConstraints.topology[0].key`, equals: "topology.kubernetes.io/zone" },
        { at: `${tmpl}.disruptionMode.all`, present: true },
        { at: `${tmpl}.resourceClaims`, length: 1 },
        { at: `${tmpl}.resourceClaims[0].name`, equals: "gpu" },
        noPcn,
      ],
    ),
    c("priorityClassName copied from pod template", jobObject("prio", 4, undefined, { priorityClassName: "high-priority" }), [
      { at: `${tmpl}.schedulingPolicy.basic`, present: true },
      { at: `${tmpl}.priorityClassName`, equals: "high-priority" },
    ]),
  ];
}

function jobValidateCases(): Case[] {
  const out: Case[] = [];
  const basicS = { schedulingPolicy: { basic: {} } };
  const gangS = (n: number) => ({ schedulingPolicy: gangData(n) });
  const policyPath = "spec.scheduling.schedulingPolicy";
  const minCountPath = "spec.scheduling.schedulingPolicy.gang.minCount";
  const disruptionModePath = "spec.scheduling.disruptionMode";
  // Upstream checks the handwritten validation (ValidateJobUpdate/ValidateJobCreate): the handwritten layer of the answer.
  const wantErrs = (want: [string, string] | undefined): Assertion[] =>
    want === undefined ? [{ at: "handwritten", length: 0 }] : [{ at: "handwritten", length: 1 }, { at: "handwritten[0].field", equals: want[0] }, { at: "handwritten[0].type", equals: want[1] }];
  const updates: [string, JobScheduling, JobScheduling, [string, string] | undefined][] = [
    ["unchanged basic is valid", basicS, basicS, undefined],
    ["unchanged gang is valid", gangS(4), gangS(4), undefined],
    ["gang minCount change is allowed", gangS(4), gangS(6), undefined],
    ["adding scheduling after creation is allowed", undefined, basicS, undefined],
    ["removing scheduling is allowed", basicS, undefined, undefined],
    ["switching basic to gang is rejected", basicS, gangS(4), [policyPath, "FieldValueInvalid"]],
    ["switching gang to basic is rejected", gangS(4), basicS, [policyPath, "FieldValueInvalid"]],
  ];
  for (const [name, old, update, want] of updates) {
    out.push({
      id: `upstream/TestValidateJobSchedulingUpdate/${name}`,
      fn: "Job validation",
      source: `upstream ${K8S} pkg/apis/batch/validation/validation_test.go TestValidateJobSchedulingUpdate/${name}`,
      op: "jobValidate",
      job: jobObject("myjob", 8, update),
      oldJob: jobObject("myjob", 8, old),
      expect: wantErrs(want),
    });
  }
  const creates: [string, number | undefined, JobScheduling, [string, string] | undefined][] = [
    ["no scheduling", 4, undefined, undefined],
    ["basic policy is not subject to the minCount rule", 1, basicS, undefined],
    ["gang minCount below parallelism", 4, gangS(2), undefined],
    ["gang minCount equal to parallelism", 4, gangS(4), undefined],
    ["gang minCount above parallelism is rejected", 2, gangS(4), [minCountPath, "FieldValueInvalid"]],
    ["gang minCount unset (zero) is allowed", 2, gangS(0), undefined],
    ["gang minCount unset (nil) defaults to parallelism and is accepted", 4, { schedulingPolicy: { gang: {} } }, undefined],
    ["nil parallelism defaults to 1, minCount 1 is allowed", undefined, gangS(1), undefined],
    ["nil parallelism defaults to 1, minCount 2 is rejected", undefined, gangS(2), [minCountPath, "FieldValueInvalid"]],
    ["basic policy with single disruption is allowed", 1, { ...basicS, disruptionMode: { single: {} } }, undefined],
    ["gang policy with all disruption is allowed", 4, { ...gangS(2), disruptionMode: { all: {} } }, undefined],
    ["basic policy with all disruption is rejected", 1, { ...basicS, disruptionMode: { all: {} } }, [disruptionModePath, "FieldValueInvalid"]],
  ];
  for (const [name, parallelism, sched, want] of creates) {
    out.push({
      id: `upstream/TestValidateJobSchedulingGangMinCount/${name}`,
      fn: "Job validation",
      source: `upstream ${K8S} pkg/apis/batch/validation/validation_test.go TestValidateJobSchedulingGangMinCount/${name}`,
      op: "jobValidate",
      job: jobObject("myjob", parallelism, sched),
      expect: wantErrs(want),
    });
  }
  for (const [name, to, want] of [
    ["gang minCount update within parallelism is valid", 4, undefined],
    ["gang minCount update exceeding parallelism is rejected", 8, [minCountPath, "FieldValueInvalid"]],
  ] as const) {
    out.push({
      id: `upstream/TestJobStrategy_ValidateUpdate/${name}`,
      fn: "Job validation",
      source: `upstream ${K8S} pkg/registry/batch/job/strategy_test.go TestJobStrategy_ValidateUpdate/${name}`,
      op: "jobValidate",
      job: jobObject("myjob", 4, gangS(to)),
      oldJob: jobObject("myjob", 4, gangS(2)),
      expect: wantErrs(want as [string, string] | undefined),
    });
  }
  return out;
}

/** Every ported upstream case. */
export function upstreamCases(): Case[] {
  return [
    ...buildCases(),
    ...methodCases(),
    ...podGroupCases(),
    ...validateCases(),
    ...resolveCases(),
    ...endToEndCases(),
    ...exampleCases(),
    ...jobNameCases(),
    ...jobCompileCases(),
    ...jobValidateCases(),
  ];
}
