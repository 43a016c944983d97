/**
 * The bundled definitions (definitions/<group>/<version>/<Kind>.yaml): each validates cleanly, and each, run by
 * the interpretation library on a realistic workload and the pods its operator creates, gives the hand-derived
 * result of test/fixtures/bundled/<case>/expected.yaml. Further tables vary the fixtures to check that the gang
 * minimum follows KAI Scheduler's native rule for the kind, and that the status mappings follow the operator's
 * conditions and phases.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { validateDefinition, type Karta } from "../../src/definition/index.js";
import { compileInterpreter, type Interpretation } from "../../src/interpret/index.js";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { clone, crdIndex, definitionFiles, fixtureCases, loadBundled, repoRoot, type FixtureCase } from "./helpers.js";

const files = definitionFiles();
const cases = fixtureCases();

function run(c: FixtureCase, workload = c.workload, pods = c.pods): Interpretation {
  return compileInterpreter(loadBundled(c.expected.definition).definition).interpret(workload, { pods });
}

function caseNamed(name: string): FixtureCase {
  const c = cases.find((x) => x.name === name);
  assert.ok(c, `fixture ${name} exists`);
  return c;
}

/** Walks into a plain object by keys (the fixture objects are parsed YAML). */
function at(o: unknown, ...keys: (string | number)[]): Record<string, unknown> {
  let cur = o as Record<string | number, unknown>;
  for (const k of keys) cur = cur[k] as Record<string | number, unknown>;
  return cur as Record<string, unknown>;
}

function minMembers(r: Interpretation): number[] {
  return r.groups.map((g) => g.minMember);
}

function errors(r: Interpretation): string[] {
  return r.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.path}: ${d.message}`);
}

describe("bundled definitions validate", () => {
  const crds = crdIndex();
  test("the bundled kinds, one file each", () => {
    // The first ten; KAI Scheduler's other native kinds and the kinds it groups through a Karta; the
    // workload kinds Karmada interprets (issue 15); the kinds upstream recorded from real operators (issue 27).
    assert.deepEqual(files, [
      "agents.x-k8s.io/v1beta1/Sandbox.yaml",
      "apps/v1/DaemonSet.yaml",
      "apps/v1/Deployment.yaml",
      "apps/v1/ReplicaSet.yaml",
      "apps/v1/StatefulSet.yaml",
      "apps.kruise.io/v1alpha1/AdvancedCronJob.yaml",
      "apps.kruise.io/v1alpha1/BroadcastJob.yaml",
      "apps.kruise.io/v1alpha1/CloneSet.yaml",
      "apps.kruise.io/v1alpha1/DaemonSet.yaml",
      "apps.kruise.io/v1alpha1/UnitedDeployment.yaml",
      "apps.kruise.io/v1beta1/StatefulSet.yaml",
      "apps.nvidia.com/v1alpha1/NIMService.yaml",
      "batch/v1/CronJob.yaml",
      "batch/v1/Job.yaml",
      "batch.volcano.sh/v1alpha1/Job.yaml",
      "core/v1/Pod.yaml",
      "flink.apache.org/v1beta1/FlinkDeployment.yaml",
      "grove.io/v1alpha1/PodCliqueSet.yaml",
      "jobset.x-k8s.io/v1alpha2/JobSet.yaml",
      "kubeflow.org/v1/JAXJob.yaml",
      "kubeflow.org/v1/MPIJob.yaml",
      "kubeflow.org/v1/Notebook.yaml",
      "kubeflow.org/v1/PaddleJob.yaml",
      "kubeflow.org/v1/PyTorchJob.yaml",
      "kubeflow.org/v1/TFJob.yaml",
      "kubeflow.org/v1/XGBoostJob.yaml",
      "kubeflow.org/v2beta1/MPIJob.yaml",
      "kubevirt.io/v1/VirtualMachineInstance.yaml",
      "leaderworkerset.x-k8s.io/v1/LeaderWorkerSet.yaml",
      "machinelearning.seldon.io/v1/SeldonDeployment.yaml",
      "milvus.io/v1beta1/Milvus.yaml",
      "nvidia.com/v1alpha1/DynamoGraphDeployment.yaml",
      "nvidia.com/v1beta1/DynamoGraphDeployment.yaml",
      "ray.io/v1/RayCluster.yaml",
      "ray.io/v1/RayJob.yaml",
      "ray.io/v1/RayService.yaml",
      "serving.knative.dev/v1/Service.yaml",
      "serving.kserve.io/v1alpha2/LLMInferenceService.yaml",
      "serving.kserve.io/v1beta1/InferenceService.yaml",
      "sparkoperator.k8s.io/v1beta2/SparkApplication.yaml",
      "tekton.dev/v1/PipelineRun.yaml",
      "tekton.dev/v1/TaskRun.yaml",
      "trainer.kubeflow.org/v1alpha1/TrainJob.yaml",
      "workload.codeflare.dev/v1beta2/AppWrapper.yaml",
    ]);
  });
  for (const file of files) {
    test(`${file}: no errors, no warnings (workload paths checked against the CRD where the tests keep one)`, () => {
      const { definition } = loadBundled(file);
      const findings = validateDefinition(definition, { crds }).filter((d) => d.severity !== "notice");
      assert.deepEqual(findings.map((d) => `${d.severity}: ${d.path}: ${d.message}`), []);
    });
    test(`${file}: path, root kind and KAI index labels agree`, () => {
      const karta: Karta = loadBundled(file).definition.karta;
      const kind = karta.spec?.structureDefinition?.rootComponent?.kind;
      assert.ok(kind);
      // The core group's kinds live under core/, as Kubernetes names the group (core/v1).
      assert.equal(file, `${kind.group || "core"}/${kind.version}/${kind.kind}.yaml`);
      assert.deepEqual(karta.metadata?.labels, {
        "run.ai/karta-group": kind.group,
        "run.ai/karta-version": kind.version,
        "run.ai/karta-kind": kind.kind,
      });
      assert.ok(karta.spec?.optimizationInstructions?.gangScheduling, "gang instructions, so KAI's Karta fallback uses it");
    });
  }
  test("every bundled definition has a fixture", () => {
    const covered = new Set(cases.map((c) => c.expected.definition));
    assert.deepEqual(files.filter((f) => !covered.has(f)), []);
  });
});

describe("bundled definitions on their fixtures", () => {
  for (const c of cases) {
    describe(c.name, () => {
      const r = run(c);
      const e = c.expected;
      test("interprets without errors", () => {
        assert.deepEqual(errors(r), []);
      });
      test("statuses", () => {
        assert.deepEqual([...r.status.statuses].sort(), [...e.statuses].sort());
      });
      test("components and their scale", () => {
        assert.deepEqual(r.components.map((x) => x.name), Object.keys(e.components));
        for (const comp of r.components) {
          const want = e.components[comp.name]!;
          const got = comp.instances.filter((i) => i.scale !== undefined).map((i) => ({ ...(i.id ? { id: i.id } : {}), ...i.scale }));
          assert.deepEqual(got, want.instances ?? [], `scale of ${comp.name}`);
        }
      });
      test("pod → component (and instance)", () => {
        const got = Object.fromEntries(r.pods.map((p) => [p.pod.name, { component: p.component, ...(p.instance ? { instance: p.instance } : {}) }]));
        assert.deepEqual(got, e.podComponents);
      });
      test("gang groups: names, minMember, members (and subgroups)", () => {
        const sorted = (xs: string[]): string[] => [...xs].sort();
        const got = r.groups
          .map((g) => ({
            name: g.name,
            minMember: g.minMember,
            members: sorted(g.members.map((m) => m.pod)),
            ...(g.subGroups ? { minSubGroup: g.minSubGroup, subGroups: g.subGroups.map((s) => ({ name: s.name, minMember: s.minMember, members: sorted(s.pods) })) } : {}),
          }))
          .sort((a, b) => a.name.localeCompare(b.name));
        const want = e.groups
          .map((g) => ({ ...g, members: sorted(g.members), ...(g.subGroups ? { subGroups: g.subGroups.map((s) => ({ ...s, members: sorted(s.members) })) } : {}) }))
          .sort((a, b) => a.name.localeCompare(b.name));
        assert.deepEqual(got, want);
        // KAI recomputes the minimum for every pod: all members of a group (of a subgroup) must agree on it.
        for (const g of r.groups) {
          if (g.subGroups) {
            for (const s of g.subGroups) assert.deepEqual([...new Set(g.members.filter((m) => s.pods.includes(m.pod)).map((m) => m.minMember))], s.pods.length ? [s.minMember] : [], `${g.name}/${s.name}`);
          } else assert.deepEqual([...new Set(g.members.map((m) => m.minMember))], [g.minMember], g.name);
        }
      });
    });
  }
});

/** A fixture varied, and the gang minimum KAI Scheduler's native grouping gives for it (per group). */
interface GangCase {
  fixture: string;
  what: string;
  vary: (workload: Record<string, unknown>) => void;
  minMember: number[];
  /** Newer format: per group, the subgroups it needs and each subgroup's minimum. */
  subGroups?: { minSubGroup: number; minimums: Record<string, number> }[];
}

/** Per group (by name), the subgroups it needs and their minimums. */
function subGroupsOf(r: Interpretation): { minSubGroup: number; minimums: Record<string, number> }[] {
  return [...r.groups]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((g) => ({ minSubGroup: g.minSubGroup ?? 0, minimums: Object.fromEntries((g.subGroups ?? []).map((s) => [s.name, s.minMember])) }));
}

const gangCases: GangCase[] = [
  { fixture: "Job", what: "without kai.scheduler/batch-min-member: KAI's Job minimum 1", vary: (w) => delete at(w, "metadata", "annotations")["kai.scheduler/batch-min-member"], minMember: [1] },
  { fixture: "Deployment", what: "5 replicas: still one pod per group", vary: (w) => (at(w, "spec").replicas = 5), minMember: [1, 1] },
  { fixture: "StatefulSet", what: "min-member with OrderedReady (the default) is not honoured: 1", vary: (w) => delete at(w, "spec").podManagementPolicy, minMember: [1] },
  { fixture: "StatefulSet", what: "no min-member annotation: 1", vary: (w) => delete at(w, "metadata").annotations, minMember: [1] },
  { fixture: "PyTorchJob", what: "no schedulingPolicy: the sum of replicas 1 + 4", vary: (w) => delete at(w, "spec", "runPolicy").schedulingPolicy, minMember: [5] },
  {
    fixture: "PyTorchJob",
    what: "elasticPolicy.minReplicas 3 replaces the total",
    vary: (w) => {
      delete at(w, "spec", "runPolicy").schedulingPolicy;
      at(w, "spec").elasticPolicy = { minReplicas: 3, maxReplicas: 5, rdzvBackend: "c10d" };
    },
    minMember: [3],
  },
  {
    fixture: "PyTorchJob",
    what: "schedulingPolicy.minAvailable 4 wins over elasticPolicy.minReplicas 2",
    vary: (w) => {
      at(w, "spec", "runPolicy", "schedulingPolicy").minAvailable = 4;
      at(w, "spec").elasticPolicy = { minReplicas: 2, maxReplicas: 5 };
    },
    minMember: [4],
  },
  { fixture: "MPIJob", what: "launcherCreationPolicy AtStartup: launcher + 4 workers", vary: (w) => (at(w, "spec").launcherCreationPolicy = "AtStartup"), minMember: [5] },
  {
    fixture: "MPIJob",
    what: "AtStartup, schedulingPolicy.minAvailable 3: launcher 1 + worker 2, both",
    vary: (w) => {
      at(w, "spec").launcherCreationPolicy = "AtStartup";
      at(w, "spec", "runPolicy").schedulingPolicy = { minAvailable: 3 };
    },
    minMember: [3],
    subGroups: [{ minSubGroup: 2, minimums: { launcher: 1, worker: 2 } }],
  },
  {
    fixture: "MPIJob",
    what: "WaitForWorkersReady, minAvailable 3: the workers' subgroup (2) starts alone, as KAI's 3 - launcher before the launcher exists",
    vary: (w) => (at(w, "spec", "runPolicy").schedulingPolicy = { minAvailable: 3 }),
    minMember: [1],
    subGroups: [{ minSubGroup: 1, minimums: { launcher: 1, worker: 2 } }],
  },
  {
    fixture: "MPIJob",
    what: "WaitForWorkersReady with one worker: a worker subgroup of 1, as KAI's 1 (the launcher is created later)",
    vary: (w) => (at(w, "spec", "mpiReplicaSpecs", "Worker").replicas = 1),
    minMember: [1],
    subGroups: [{ minSubGroup: 1, minimums: { launcher: 1, worker: 1 } }],
  },
  {
    fixture: "JobSet",
    what: "InOrder startup: one replicated job at a time (KAI's minSubGroup 1)",
    vary: (w) => (at(w, "spec").startupPolicy = { startupPolicyOrder: "InOrder" }),
    minMember: [1],
    subGroups: [{ minSubGroup: 1, minimums: { driver: 1, workers: 8 } }],
  },
  {
    fixture: "JobSet",
    what: "the JobSet's kai.scheduler/batch-min-member 5 is capped at its 2 replicated jobs",
    vary: (w) => (at(w, "metadata").annotations = { "kai.scheduler/batch-min-member": "5" }),
    minMember: [9],
    subGroups: [{ minSubGroup: 2, minimums: { driver: 1, workers: 8 } }],
  },
  {
    fixture: "LeaderWorkerSet",
    what: "LeaderReady startup: the leader's subgroup starts a group (KAI: 1 while the leader is unscheduled)",
    vary: (w) => (at(w, "spec").startupPolicy = "LeaderReady"),
    minMember: [1, 1],
    subGroups: [
      { minSubGroup: 1, minimums: { leader: 1, worker: 2 } },
      { minSubGroup: 1, minimums: { leader: 1, worker: 2 } },
    ],
  },
  {
    fixture: "LeaderWorkerSet",
    what: "groups of size 1: no worker subgroup (left out, as KAI leaves it out)",
    vary: (w) => (at(w, "spec", "leaderWorkerTemplate").size = 1),
    minMember: [1, 1],
    subGroups: [
      { minSubGroup: 1, minimums: { leader: 1 } },
      { minSubGroup: 1, minimums: { leader: 1 } },
    ],
  },
  { fixture: "RayCluster", what: "the spare group resumed: its 2 replicas count (min 0)", vary: (w) => delete at(w, "spec", "workerGroupSpecs", 2).suspend, minMember: [8] },
  { fixture: "RayCluster", what: "gpu-workers on 4 hosts per replica: 1 + 2x4 + 1", vary: (w) => (at(w, "spec", "workerGroupSpecs", 0).numOfHosts = 4), minMember: [10] },
  { fixture: "RayCluster", what: "cpu-workers without minReplicas: its 3 replicas", vary: (w) => delete at(w, "spec", "workerGroupSpecs", 1).minReplicas, minMember: [8] },
  { fixture: "JobSet", what: "workers with parallelism 2: 1 + 2x2", vary: (w) => (at(w, "spec", "replicatedJobs", 1, "template", "spec").parallelism = 2), minMember: [5] },
  {
    fixture: "JobSet",
    what: "the workers' job template asks kai.scheduler/batch-min-member 2 per job: 1 + 2x2",
    vary: (w) => (at(w, "spec", "replicatedJobs", 1, "template").metadata = { annotations: { "kai.scheduler/batch-min-member": "2" } }),
    minMember: [5],
  },
  { fixture: "LeaderWorkerSet", what: "groups of size 5", vary: (w) => (at(w, "spec", "leaderWorkerTemplate").size = 5), minMember: [5, 5] },
  { fixture: "XGBoostJob", what: "no schedulingPolicy: the sum of replicas 1 + 3", vary: (w) => delete at(w, "spec", "runPolicy").schedulingPolicy, minMember: [4] },
  { fixture: "JAXJob", what: "minAvailable 2 replaces the 4 workers", vary: (w) => (at(w, "spec", "runPolicy").schedulingPolicy = { minAvailable: 2 }), minMember: [2] },
  { fixture: "PaddleJob", what: "collective mode (workers only), minAvailable 2", vary: (w) => {
    delete at(w, "spec", "paddleReplicaSpecs").Master;
    at(w, "spec", "runPolicy").schedulingPolicy = { minAvailable: 2 };
  }, minMember: [2] },
  {
    fixture: "PodCliqueSet",
    what: "prefill without minAvailable: its 2 replicas count",
    vary: (w) => delete at(w, "spec", "template", "cliques", 1, "spec").minAvailable,
    minMember: [5, 5],
    subGroups: [
      { minSubGroup: 3, minimums: { frontend: 1, prefill: 2, decode: 2 } },
      { minSubGroup: 3, minimums: { frontend: 1, prefill: 2, decode: 2 } },
    ],
  },
  {
    fixture: "DynamoGraphDeployment",
    what: "a decode worker on 2 nodes per replica: 2 x 2 pods",
    vary: (w) => (at(w, "spec", "components", 1).multinode = { nodeCount: 2 }),
    minMember: [6],
    subGroups: [{ minSubGroup: 3, minimums: { frontend: 1, vllmdecodeworker: 4, vllmprefillworker: 1 } }],
  },
  {
    fixture: "TrainJob",
    what: "no initializer: the node subgroup alone, all of it",
    vary: (w) => delete at(w, "spec").initializer,
    minMember: [2],
    subGroups: [{ minSubGroup: 1, minimums: { node: 2 } }],
  },
  { fixture: "NIMService", what: "autoscaling 1..4: still one pod per group", vary: (w) => (at(w, "spec").scale = { enabled: true, hpa: { minReplicas: 1, maxReplicas: 4 } }), minMember: [1, 1] },
  { fixture: "AppWrapper", what: "a second wrapped Job of 4 pods joins the gang: 3 + 4", vary: (w) => {
    (at(w, "spec").components as unknown[]).push({ podSets: [{ replicas: 4, path: "template.spec.template" }], template: { apiVersion: "batch/v1", kind: "Job", metadata: { name: "mnist-eval" }, spec: { parallelism: 4, template: { spec: { containers: [{ name: "eval", image: "busybox" }] } } } } });
  }, minMember: [7] },
  { fixture: "KnativeService", what: "no min-scale annotation: 1", vary: (w) => delete at(w, "spec", "template", "metadata", "annotations")["autoscaling.knative.dev/min-scale"], minMember: [1] },
  { fixture: "InferenceService", what: "predictor without minReplicas: KServe's default 1", vary: (w) => delete at(w, "spec", "predictor").minReplicas, minMember: [1, 1] },
];

describe("gang minimum follows KAI's native rule when the workload changes", () => {
  for (const g of gangCases) {
    test(`${g.fixture}: ${g.what} -> minMember ${g.minMember.join(", ")}`, () => {
      const c = caseNamed(g.fixture);
      const workload = clone(c.workload);
      g.vary(workload);
      const r = run(c, workload);
      assert.deepEqual(errors(r), []);
      const sorted = [...r.groups].sort((a, b) => a.name.localeCompare(b.name));
      assert.deepEqual(minMembers({ ...r, groups: sorted }), g.minMember);
      if (g.subGroups) assert.deepEqual(subGroupsOf(r), g.subGroups);
    });
  }

  test("PyTorchJob without a Master (elastic workers only): no master subgroup, the workers' elastic minimum", () => {
    const c = caseNamed("PyTorchJob");
    const w = clone(c.workload);
    delete at(w, "spec", "pytorchReplicaSpecs").Master;
    delete at(w, "spec", "runPolicy").schedulingPolicy;
    at(w, "spec").elasticPolicy = { minReplicas: 2, maxReplicas: 4 };
    const pods = c.pods.filter((p) => at(p, "metadata", "labels")["training.kubeflow.org/replica-type"] === "worker");
    const r = run(c, w, pods);
    // KAI leaves the master subgroup out; so does the definition (a notice, no error).
    assert.deepEqual(errors(r), []);
    assert.ok(r.diagnostics.some((d) => d.code === "gang-subgroup-empty" && d.path.endsWith("subGroups[0]")));
    assert.deepEqual(subGroupsOf(r), [{ minSubGroup: 1, minimums: { worker: 2 } }]);
    assert.deepEqual(minMembers(r), [2]);
    assert.equal(r.groups[0]!.members.length, 4);
  });
});

/** Where the Karta language cannot follow KAI (docs/definitions.md): the definitions' actual answer, and KAI's. */
const documentedDifferences: (GangCase & { kai: number[] })[] = [
  {
    fixture: "RayCluster",
    what: "in-tree autoscaling, cpu-workers minReplicas 0: its replicas count",
    vary: (w) => {
      at(w, "spec").enableInTreeAutoscaling = true;
      at(w, "spec", "workerGroupSpecs", 1).minReplicas = 0;
    },
    minMember: [8],
    kai: [5],
  },
];

describe("documented differences from KAI's native grouping", () => {
  for (const g of documentedDifferences) {
    test(`${g.fixture}: ${g.what} -> minMember ${g.minMember.join(", ")} (KAI: ${g.kai.join(", ")})`, () => {
      const c = caseNamed(g.fixture);
      const workload = clone(c.workload);
      g.vary(workload);
      const r = run(c, workload);
      assert.deepEqual(errors(r), []);
      assert.deepEqual(minMembers({ ...r, groups: [...r.groups].sort((a, b) => a.name.localeCompare(b.name)) }), g.minMember);
    });
  }
});

/** A fixture's status block replaced, and the generic statuses the definition must give. */
interface StatusCase {
  fixture: string;
  what: string;
  vary: (workload: Record<string, unknown>) => void;
  statuses: string[];
}

const cond = (type: string, status: string, reason?: string): Record<string, unknown> => ({ type, status, ...(reason ? { reason } : {}), lastTransitionTime: "2026-11-29T23:30:00Z" });

const statusCases: StatusCase[] = [
  { fixture: "Job", what: "complete", vary: (w) => (w.status = { succeeded: 6, ready: 0, conditions: [cond("SuccessCriteriaMet", "True", "CompletionsReached"), cond("Complete", "True", "CompletionsReached")] }), statuses: ["Completed"] },
  { fixture: "Job", what: "failure target reached, pods still terminating", vary: (w) => (w.status = { active: 2, ready: 2, failed: 7, conditions: [cond("FailureTarget", "True", "BackoffLimitExceeded")] }), statuses: ["Failed"] },
  {
    fixture: "Job",
    what: "suspended",
    vary: (w) => {
      at(w, "spec").suspend = true;
      w.status = { active: 0, ready: 0, conditions: [cond("Suspended", "True", "JobSuspended")] };
    },
    statuses: ["Suspended"],
  },
  { fixture: "Job", what: "just created, no pod ready", vary: (w) => (w.status = { active: 3, ready: 0, startTime: "2026-11-29T23:02:40Z" }), statuses: ["Initializing"] },
  { fixture: "Deployment", what: "rollout deadline exceeded and not available", vary: (w) => (w.status = { replicas: 2, conditions: [cond("Available", "False", "MinimumReplicasUnavailable"), cond("Progressing", "False", "ProgressDeadlineExceeded")] }), statuses: ["Failed"] },
  { fixture: "Deployment", what: "first rollout in progress", vary: (w) => (w.status = { replicas: 2, conditions: [cond("Available", "False", "MinimumReplicasUnavailable"), cond("Progressing", "True", "ReplicaSetUpdated")] }), statuses: ["Initializing"] },
  { fixture: "Deployment", what: "available but quota blocks a pod", vary: (w) => (at(w, "status").conditions = [cond("Available", "True", "MinimumReplicasAvailable"), cond("Progressing", "True", "ReplicaSetUpdated"), cond("ReplicaFailure", "True", "FailedCreate")]), statuses: ["Degraded"] },
  {
    fixture: "Deployment",
    what: "scaled up after its rollout completed: below minimum availability while the new pods start",
    vary: (w) => {
      at(w, "spec").replicas = 4;
      w.status = { replicas: 4, updatedReplicas: 4, readyReplicas: 2, availableReplicas: 2, conditions: [cond("Available", "False", "MinimumReplicasUnavailable"), cond("Progressing", "True", "NewReplicaSetAvailable")] };
    },
    statuses: ["Running"],
  },
  { fixture: "Deployment", what: "rolling update in progress, old pods still serving", vary: (w) => (at(w, "status").conditions = [cond("Available", "True", "MinimumReplicasAvailable"), cond("Progressing", "True", "ReplicaSetUpdated")]), statuses: ["Running"] },
  { fixture: "Deployment", what: "a stuck rolling update while the old pods still serve", vary: (w) => (at(w, "status").conditions = [cond("Available", "True", "MinimumReplicasAvailable"), cond("Progressing", "False", "ProgressDeadlineExceeded")]), statuses: ["Degraded"] },
  { fixture: "StatefulSet", what: "scaling up 1 -> 3, the second pod created, not ready yet", vary: (w) => (w.status = { replicas: 2, readyReplicas: 1, currentReplicas: 2, updatedReplicas: 2 }), statuses: ["Initializing"] },
  { fixture: "StatefulSet", what: "scaling down 3 -> 1, the extra pods still running", vary: (w) => {
    at(w, "spec").replicas = 1;
    w.status = { replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3 };
  }, statuses: ["Initializing"] },
  { fixture: "StatefulSet", what: "a rolling update replacing pods", vary: (w) => (w.status = { replicas: 3, readyReplicas: 3, currentReplicas: 2, updatedReplicas: 1 }), statuses: ["Initializing"] },
  { fixture: "StatefulSet", what: "scaled to zero, pods gone", vary: (w) => {
    at(w, "spec").replicas = 0;
    w.status = { replicas: 0 };
  }, statuses: ["Suspended"] },
  { fixture: "StatefulSet", what: "all three ready", vary: (w) => (at(w, "status").readyReplicas = 3), statuses: ["Running"] },
  { fixture: "PyTorchJob", what: "only Created", vary: (w) => (at(w, "status").conditions = [cond("Created", "True", "PyTorchJobCreated")]), statuses: ["Initializing"] },
  { fixture: "PyTorchJob", what: "succeeded", vary: (w) => (at(w, "status").conditions = [cond("Created", "True"), cond("Running", "False"), cond("Succeeded", "True", "PyTorchJobSucceeded")]), statuses: ["Completed"] },
  {
    fixture: "PyTorchJob",
    what: "suspend requested, operator not done yet (replicas still active)",
    vary: (w) => (at(w, "spec", "runPolicy").suspend = true),
    statuses: ["Suspending"],
  },
  {
    fixture: "PyTorchJob",
    what: "resume requested, operator not done yet: still suspended",
    vary: (w) => (at(w, "status").conditions = [cond("Created", "True"), cond("Running", "False", "PyTorchJobSuspended"), cond("Suspended", "True", "PyTorchJobSuspended")]),
    statuses: ["Suspended"],
  },
  { fixture: "PyTorchJob", what: "Running False before Succeeded: its pods finishing", vary: (w) => (at(w, "status").conditions = [cond("Created", "True"), cond("Running", "False")]), statuses: ["Initializing"] },
  {
    fixture: "PyTorchJob",
    what: "suspended",
    vary: (w) => {
      at(w, "spec", "runPolicy").suspend = true;
      at(w, "status").conditions = [cond("Created", "True"), cond("Running", "False", "PyTorchJobSuspended"), cond("Suspended", "True", "PyTorchJobSuspended")];
    },
    statuses: ["Suspended"],
  },
  { fixture: "MPIJob", what: "restarting workers", vary: (w) => (at(w, "status").conditions = [cond("Created", "True"), cond("Running", "False"), cond("Restarting", "True", "MPIJobRestarting")]), statuses: ["Degraded"] },
  {
    fixture: "RayCluster",
    what: "suspended",
    vary: (w) => {
      at(w, "spec").suspend = true;
      w.status = { state: "suspended", conditions: [cond("HeadPodReady", "False", "HeadPodNotFound"), cond("RayClusterProvisioned", "True", "AllPodRunningAndReadyFirstTime"), cond("RayClusterSuspended", "True", "RayClusterSuspended")] };
    },
    statuses: ["Suspended"],
  },
  { fixture: "RayCluster", what: "pods being created", vary: (w) => (w.status = { conditions: [cond("HeadPodReady", "False", "HeadPodNotFound"), cond("RayClusterProvisioned", "False", "RayClusterPodsProvisioning")] }), statuses: ["Initializing"] },
  { fixture: "RayCluster", what: "head lost after provisioning", vary: (w) => (w.status = { conditions: [cond("HeadPodReady", "False", "HeadPodNotReady"), cond("RayClusterProvisioned", "True", "AllPodRunningAndReadyFirstTime")] }), statuses: ["Degraded"] },
  { fixture: "JobSet", what: "completed", vary: (w) => (w.status = { replicatedJobsStatus: [{ name: "driver", succeeded: 1 }, { name: "workers", succeeded: 2 }], conditions: [cond("Completed", "True", "AllJobsCompleted")] }), statuses: ["Completed"] },
  { fixture: "JobSet", what: "one workers job active, its pods not all ready yet", vary: (w) => (at(w, "status", "replicatedJobsStatus", 1).ready = 1), statuses: ["Running"] },
  { fixture: "JobSet", what: "created, no Job started yet", vary: (w) => (w.status = { replicatedJobsStatus: [{ name: "driver", active: 0, ready: 0, succeeded: 0, failed: 0, suspended: 0 }] }), statuses: ["Initializing"] },
  { fixture: "JobSet", what: "InOrder start-up in progress", vary: (w) => (at(w, "status").conditions = [cond("StartupPolicyInProgress", "True", "StartupPolicyInProgress")]), statuses: ["Initializing"] },
  { fixture: "JobSet", what: "restarted once by the failure policy, running again", vary: (w) => (at(w, "status").restarts = 1), statuses: ["Running"] },
  { fixture: "JobSet", what: "being restarted by the failure policy", vary: (w) => (at(w, "status").conditions = [cond("RestartingJobSet", "True", "JobFailed")]), statuses: ["Degraded"] },
  {
    fixture: "JobSet",
    what: "resume requested, the controller not done yet: still suspended",
    vary: (w) => (w.status = { replicatedJobsStatus: [{ name: "driver", suspended: 1 }], conditions: [cond("Suspended", "True", "SuspendedJobs")] }),
    statuses: ["Suspended"],
  },
  {
    fixture: "JobSet",
    what: "resumed, its Jobs still suspended",
    vary: (w) => (w.status = { replicatedJobsStatus: [{ name: "driver", suspended: 1 }], conditions: [cond("Suspended", "False", "ResumeJobs")] }),
    statuses: ["Resuming"],
  },
  { fixture: "LeaderWorkerSet", what: "groups progressing", vary: (w) => (w.status = { replicas: 2, readyReplicas: 0, conditions: [cond("Available", "False", "AllGroupsReady"), cond("Progressing", "True", "GroupsProgressing")] }), statuses: ["Initializing"] },
  { fixture: "InferenceService", what: "model failed to load", vary: (w) => (w.status = { modelStatus: { transitionStatus: "BlockedByFailedLoad", states: { activeModelState: "FailedToLoad", targetModelState: "FailedToLoad" } }, conditions: [cond("PredictorReady", "False"), cond("Ready", "False")] }), statuses: ["Failed"] },
  { fixture: "CronJob", what: "between runs, last one succeeded", vary: (w) => (w.status = { lastScheduleTime: "2026-11-30T02:00:00Z", lastSuccessfulTime: "2026-11-30T02:14:31Z" }), statuses: ["Running"] },
  { fixture: "CronJob", what: "between runs, last one failed", vary: (w) => (w.status = { lastScheduleTime: "2026-11-30T02:00:00Z", lastSuccessfulTime: "2026-11-29T02:14:31Z" }), statuses: ["Degraded"] },
  { fixture: "CronJob", what: "suspended while a run is active (the run is a Job of its own)", vary: (w) => (at(w, "spec").suspend = true), statuses: ["Suspended"] },
  { fixture: "CronJob", what: "new, never scheduled", vary: (w) => (w.status = {}), statuses: ["Initializing"] },
  { fixture: "ReplicaSet", what: "all ready", vary: (w) => (at(w, "status").readyReplicas = 3), statuses: ["Running"] },
  { fixture: "ReplicaSet", what: "scaled to zero", vary: (w) => {
    at(w, "spec").replicas = 0;
    w.status = { replicas: 0 };
  }, statuses: ["Suspended"] },
  { fixture: "DaemonSet", what: "one daemon unavailable", vary: (w) => Object.assign(at(w, "status"), { numberReady: 2, numberAvailable: 2, numberUnavailable: 1 }), statuses: ["Degraded"] },
  { fixture: "DaemonSet", what: "a rolling update placing new daemons", vary: (w) => Object.assign(at(w, "status"), { updatedNumberScheduled: 1 }), statuses: ["Initializing"] },
  { fixture: "XGBoostJob", what: "failed", vary: (w) => (at(w, "status").conditions = [cond("Created", "True"), cond("Running", "False"), cond("Failed", "True", "XGBoostJobFailed")]), statuses: ["Failed"] },
  { fixture: "PaddleJob", what: "suspended", vary: (w) => {
    at(w, "spec", "runPolicy").suspend = true;
    at(w, "status").conditions = [cond("Created", "True"), cond("Suspended", "True", "PaddleJobSuspended")];
  }, statuses: ["Suspended"] },
  { fixture: "TaskRun", what: "pending", vary: (w) => (at(w, "status").conditions = [cond("Succeeded", "Unknown", "Pending")]), statuses: ["Initializing"] },
  { fixture: "TaskRun", what: "failed", vary: (w) => (at(w, "status").conditions = [cond("Succeeded", "False", "Failed")]), statuses: ["Failed"] },
  { fixture: "TaskRun", what: "timed out", vary: (w) => (at(w, "status").conditions = [cond("Succeeded", "False", "TaskRunTimeout")]), statuses: ["Failed"] },
  { fixture: "PipelineRun", what: "held pending", vary: (w) => (w.status = { conditions: [cond("Succeeded", "Unknown", "PipelineRunPending")] }), statuses: ["Suspended"] },
  { fixture: "PipelineRun", what: "succeeded", vary: (w) => (at(w, "status").conditions = [cond("Succeeded", "True", "Succeeded")]), statuses: ["Completed"] },
  { fixture: "PodCliqueSet", what: "a replica lost availability (a clique below its minAvailable)", vary: (w) => (at(w, "status").availableReplicas = 1), statuses: ["Initializing"] },
  { fixture: "PodCliqueSet", what: "scaled down 2 -> 1, both replicas still available", vary: (w) => (at(w, "spec").replicas = 1), statuses: ["Running"] },
  { fixture: "PodCliqueSet", what: "starting", vary: (w) => (w.status = { replicas: 2, availableReplicas: 0 }), statuses: ["Initializing"] },
  { fixture: "DynamoGraphDeployment", what: "pending", vary: (w) => (at(w, "status").state = "pending"), statuses: ["Initializing"] },
  { fixture: "NIMService", what: "not ready yet", vary: (w) => (w.status = { state: "NotReady", conditions: [cond("Ready", "False", "NotReady"), cond("Failed", "False", "Ready")] }), statuses: ["Initializing"] },
  { fixture: "NIMService", what: "its cache volume being created", vary: (w) => (w.status = { state: "PVC-Created", conditions: [cond("NIM_CACHE_PVC_CREATED", "True", "PVCCreated")] }), statuses: ["Initializing"] },
  { fixture: "NIMService", what: "failed", vary: (w) => (w.status = { state: "Failed", conditions: [cond("Ready", "False", "Failed"), cond("Failed", "True", "Failed")] }), statuses: ["Failed"] },
  { fixture: "TrainJob", what: "complete", vary: (w) => (at(w, "status").conditions = [cond("Created", "True"), cond("Complete", "True", "JobSetCompleted")]), statuses: ["Completed"] },
  { fixture: "TrainJob", what: "suspended", vary: (w) => {
    at(w, "spec").suspend = true;
    w.status = { conditions: [cond("Created", "True"), cond("Suspended", "True", "Suspended")] };
  }, statuses: ["Suspended"] },
  { fixture: "AppWrapper", what: "deploying, pods not ready", vary: (w) => (at(w, "status").conditions = [cond("QuotaReserved", "True"), cond("ResourcesDeployed", "True")]), statuses: ["Initializing"] },
  { fixture: "AppWrapper", what: "resetting after a pod failure", vary: (w) => {
    at(w, "status").phase = "Resetting";
    at(w, "status").conditions = [cond("QuotaReserved", "True"), cond("Unhealthy", "True", "FoundFailedPods")];
  }, statuses: ["Degraded"] },
  { fixture: "VirtualMachineInstance", what: "paused", vary: (w) => (at(w, "status").conditions = [cond("Ready", "False", "PodTerminating"), cond("Paused", "True", "PausedByUser")]), statuses: ["Suspended"] },
  { fixture: "VirtualMachineInstance", what: "scheduling", vary: (w) => (w.status = { phase: "Scheduling" }), statuses: ["Initializing"] },
  { fixture: "KnativeService", what: "reconciling", vary: (w) => (at(w, "status").conditions = [cond("ConfigurationsReady", "Unknown"), cond("Ready", "Unknown"), cond("RoutesReady", "Unknown")]), statuses: ["Initializing"] },
  { fixture: "KnativeService", what: "new revision failed, old one still routed", vary: (w) => (at(w, "status").conditions = [cond("ConfigurationsReady", "False", "RevisionFailed"), cond("Ready", "False", "RevisionFailed"), cond("RoutesReady", "True")]), statuses: ["Degraded"] },
  { fixture: "KnativeService", what: "never became ready", vary: (w) => (at(w, "status").conditions = [cond("ConfigurationsReady", "False", "RevisionFailed"), cond("Ready", "False", "RevisionFailed"), cond("RoutesReady", "False", "RevisionFailed")]), statuses: ["Failed"] },
  // Jobs: a parallel Job running short, the Kubernetes 1.31 conditions that come before Complete and Failed.
  { fixture: "Job", what: "a pod failed within the backoff limit, the rest still running", vary: (w) => Object.assign(at(w, "status"), { active: 3, ready: 2, succeeded: 0, failed: 1 }), statuses: ["Degraded"] },
  // An index done is the Job's progress (the Job controller reports nothing wrong), not a fault.
  { fixture: "Job", what: "an index done, the others still running", vary: (w) => Object.assign(at(w, "status"), { active: 2, ready: 2, succeeded: 1 }), statuses: ["Running"] },
  { fixture: "Job", what: "success criteria met, pods not yet gone", vary: (w) => (w.status = { ready: 0, conditions: [cond("SuccessCriteriaMet", "True", "CompletionsReached")] }), statuses: ["Completed"] },
  { fixture: "Job", what: "suspend requested, pods still active", vary: (w) => (at(w, "spec").suspend = true), statuses: ["Suspending"] },
  {
    fixture: "Job",
    what: "resume requested, the controller not done yet: still suspended",
    vary: (w) => (w.status = { active: 0, ready: 0, conditions: [cond("Suspended", "True", "JobSuspended")] }),
    statuses: ["Suspended"],
  },
  // KubeRay: a RayJob's end is its job's status, which Ray reports before KubeRay moves on.
  { fixture: "RayJob", what: "the job succeeded, the deployment status not moved on yet", vary: (w) => (w.status = { jobDeploymentStatus: "Running", jobStatus: "SUCCEEDED" }), statuses: ["Completed"] },
  { fixture: "RayJob", what: "the job failed, the deployment status not moved on yet", vary: (w) => (w.status = { jobDeploymentStatus: "Running", jobStatus: "FAILED" }), statuses: ["Failed"] },
  { fixture: "RayJob", what: "submitted, Ray not reporting the job yet", vary: (w) => (w.status = { jobDeploymentStatus: "Running" }), statuses: ["Initializing"] },
  { fixture: "RayJob", what: "retrying after a failure", vary: (w) => (w.status = { jobDeploymentStatus: "Retrying", jobStatus: "FAILED" }), statuses: ["Failed"] },
  { fixture: "RayJob", what: "a new attempt pending", vary: (w) => (w.status = { jobDeploymentStatus: "Retrying" }), statuses: ["Degraded"] },
  { fixture: "RayJob", what: "suspended", vary: (w) => (w.status = { jobDeploymentStatus: "Suspended" }), statuses: ["Suspended"] },
  {
    fixture: "RayCluster",
    what: "created suspended: no pod, the state already suspended while RayClusterSuspending is True",
    vary: (w) => {
      at(w, "spec").suspend = true;
      w.status = { state: "suspended", conditions: [cond("HeadPodReady", "False", "HeadPodNotFound"), cond("RayClusterSuspended", "False", "RayClusterSuspended"), cond("RayClusterSuspending", "True", "RayClusterSuspending")] };
    },
    statuses: ["Suspended"],
  },
  { fixture: "RayCluster", what: "suspend requested, pods being deleted", vary: (w) => {
    at(w, "spec").suspend = true;
    at(w, "status").conditions = [cond("RayClusterSuspending", "True", "RayClusterSuspending")];
  }, statuses: ["Suspending"] },
  {
    fixture: "RayCluster",
    what: "resumed, the pods coming back while the state still says suspended",
    vary: (w) => (w.status = { state: "suspended", conditions: [cond("HeadPodReady", "False", "ContainersNotReady"), cond("RayClusterProvisioned", "False", "RayClusterPodsProvisioning"), cond("RayClusterSuspended", "False", "RayClusterSuspended")] }),
    statuses: ["Resuming"],
  },
  { fixture: "RayCluster", what: "a worker pod could not be created", vary: (w) => (at(w, "status").conditions = [cond("ReplicaFailure", "True", "FailedCreateWorkerPod")]), statuses: ["Degraded"] },
  { fixture: "LeaderWorkerSet", what: "scaled up, the new group progressing", vary: (w) => (w.status = { replicas: 3, readyReplicas: 2, conditions: [cond("Available", "False", "AllGroupsReady"), cond("Progressing", "True", "GroupsProgressing")] }), statuses: ["Initializing"] },
  { fixture: "InferenceService", what: "stopped (serving.kserve.io/stop)", vary: (w) => (at(w, "status").conditions = [cond("Ready", "False", "Stopped"), cond("Stopped", "True", "Stopped")]), statuses: ["Suspended"] },
  { fixture: "InferenceService", what: "serverless, reconciling", vary: (w) => (w.status = { conditions: [cond("PredictorReady", "Unknown", "RevisionMissing"), cond("Ready", "Unknown", "RevisionMissing"), cond("RoutesReady", "Unknown")] }), statuses: ["Initializing"] },
  {
    fixture: "InferenceService",
    what: "serverless, the predictor's revision failed",
    vary: (w) => (w.status = { conditions: [cond("PredictorConfigurationReady", "False", "RevisionFailed"), cond("PredictorReady", "False", "RevisionFailed"), cond("Ready", "False", "RevisionFailed"), cond("RoutesReady", "False", "RevisionFailed")] }),
    statuses: ["Failed"],
  },
  { fixture: "InferenceService", what: "raw deployment, not available yet", vary: (w) => (w.status = { conditions: [cond("PredictorReady", "False"), cond("Ready", "False")] }), statuses: ["Initializing"] },
  { fixture: "RayService", what: "serving endpoints dropped to zero", vary: (w) => (w.status = { conditions: [cond("Ready", "False", "ZeroServeEndpoints")] }), statuses: ["Degraded"] },
  // The kinds upstream recorded from real operators (issue 27).
  { fixture: "Pod", what: "pending", vary: (w) => (w.status = { phase: "Pending" }), statuses: ["Initializing"] },
  { fixture: "Pod", what: "succeeded", vary: (w) => (at(w, "status").phase = "Succeeded"), statuses: ["Completed"] },
  { fixture: "Pod", what: "failed", vary: (w) => (at(w, "status").phase = "Failed"), statuses: ["Failed"] },
  { fixture: "Pod", what: "a container restarted again and again", vary: (w) => (at(w, "status", "containerStatuses", 0).state = { waiting: { reason: "CrashLoopBackOff" } }), statuses: ["Degraded"] },
  { fixture: "Sandbox", what: "being provisioned", vary: (w) => (w.status = { conditions: [cond("Suspended", "False", "NotSuspended"), cond("Ready", "False", "DependenciesNotReady")] }), statuses: ["Initializing"] },
  { fixture: "Sandbox", what: "suspend asked, the pod still up", vary: (w) => (at(w, "spec").operatingMode = "Suspended"), statuses: ["Suspending"] },
  { fixture: "Sandbox", what: "suspended, the pod terminated", vary: (w) => {
    at(w, "spec").operatingMode = "Suspended";
    w.status = { conditions: [cond("Suspended", "True", "PodTerminated"), cond("Ready", "False", "SandboxSuspended")] };
  }, statuses: ["Suspended"] },
  { fixture: "Sandbox", what: "resumed, the Suspended condition still True", vary: (w) => (w.status = { conditions: [cond("Suspended", "True", "PodTerminated"), cond("Ready", "False", "SandboxSuspended")] }), statuses: ["Resuming"] },
  { fixture: "Sandbox", what: "running again while a stale Suspended condition lingers (Ready decides)", vary: (w) => (w.status = { conditions: [cond("Suspended", "True", "PodTerminated"), cond("Ready", "True", "DependenciesReady")] }), statuses: ["Running"] },
  { fixture: "Sandbox", what: "its pod failed", vary: (w) => (at(w, "status").conditions = [cond("Finished", "True", "PodFailed"), cond("Ready", "False", "PodFailed")]), statuses: ["Failed"] },
  { fixture: "Sandbox", what: "expired", vary: (w) => (at(w, "status").conditions = [cond("Ready", "False", "SandboxExpired")]), statuses: ["Completed"] },
  { fixture: "Milvus", what: "dependencies starting", vary: (w) => (w.status = { status: "Pending", conditions: [cond("EtcdReady", "False", "EtcdNotReady"), cond("MilvusReady", "False", "DependencyNotReady")] }), statuses: ["Initializing"] },
  { fixture: "Milvus", what: "a role unhealthy after being healthy", vary: (w) => (w.status = { status: "Unhealthy", conditions: [cond("MilvusReady", "False", "MilvusComponentNotHealthy")] }), statuses: ["Degraded"] },
  { fixture: "Milvus", what: "stopped", vary: (w) => (w.status = { status: "Stopped", conditions: [cond("MilvusReady", "False", "MilvusStopped")] }), statuses: ["Suspended"] },
  { fixture: "Milvus", what: "stopping", vary: (w) => (w.status = { status: "Healthy", conditions: [cond("MilvusReady", "False", "MilvusStopping")] }), statuses: ["Suspending"] },
  { fixture: "LLMInferenceService", what: "its Deployment below minimum availability", vary: (w) => (w.status = { conditions: [cond("MainWorkloadReady", "False", "MinimumReplicasUnavailable"), cond("PresetsCombined", "True"), cond("Ready", "False", "MinimumReplicasUnavailable")] }), statuses: ["Initializing"] },
  { fixture: "LLMInferenceService", what: "reconciling, Ready Unknown", vary: (w) => (w.status = { conditions: [cond("PresetsCombined", "True"), cond("Ready", "Unknown")] }), statuses: ["Initializing"] },
  { fixture: "LLMInferenceService", what: "a reconcile error", vary: (w) => (w.status = { conditions: [cond("PresetsCombined", "True"), cond("Ready", "False", "ReconcileMultiNodeWorkloadError")] }), statuses: ["Failed"] },
  { fixture: "LLMInferenceService", what: "a referenced configuration not found", vary: (w) => (w.status = { conditions: [cond("PresetsCombined", "False", "ConfigNotFound"), cond("Ready", "Unknown")] }), statuses: ["Failed"] },
  { fixture: "LLMInferenceService", what: "stopped (serving.kserve.io/stop)", vary: (w) => (w.status = { conditions: [cond("PresetsCombined", "True"), cond("Ready", "False", "Stopped"), cond("WorkerWorkloadReady", "False", "Stopped")] }), statuses: ["Suspended"] },
  { fixture: "LLMInferenceService", what: "stop annotated, not acted on yet: still running", vary: (w) => (at(w, "metadata").annotations = { "serving.kserve.io/stop": "true" }), statuses: ["Running"] },
  { fixture: "DynamoGraphDeployment-v1alpha1", what: "components not ready", vary: (w) => (w.status = { state: "pending", conditions: [cond("Ready", "False", "some_resources_are_not_ready")] }), statuses: ["Initializing"] },
  { fixture: "DynamoGraphDeployment-v1alpha1", what: "failed", vary: (w) => (at(w, "status").state = "failed"), statuses: ["Failed"] },
  { fixture: "RayService", what: "upgrading while serving", vary: (w) => (w.status = { conditions: [cond("Ready", "True", "NonZeroServeEndpoints"), cond("UpgradeInProgress", "True", "BothActivePendingClustersExist")] }), statuses: ["Running"] },
];

describe("status mappings follow the operators' conditions and phases", () => {
  test("a workload is in one state at a time: every fixture, every case", () => {
    const several = cases.map((c) => [c.name, run(c).status.statuses] as const).filter(([, st]) => st.length !== 1);
    assert.deepEqual(several, []);
    assert.deepEqual(statusCases.filter((x) => x.statuses.length !== 1).map((x) => `${x.fixture}: ${x.what}`), []);
  });
  for (const s of statusCases) {
    test(`${s.fixture}: ${s.what} -> ${s.statuses.join(", ")}`, () => {
      const c = caseNamed(s.fixture);
      const workload = clone(c.workload);
      s.vary(workload);
      const r = run(c, workload);
      assert.deepEqual([...r.status.statuses].sort(), [...s.statuses].sort());
    });
  }
});

describe("suspend and resume patches", () => {
  const suspendable: [string, string][] = [
    ["Job", "/spec/suspend"],
    ["PyTorchJob", "/spec/runPolicy/suspend"],
    ["MPIJob", "/spec/runPolicy/suspend"],
    ["RayCluster", "/spec/suspend"],
    ["JobSet", "/spec/suspend"],
  ];
  for (const [fixture, pointer] of suspendable) {
    test(`${fixture}: suspend sets ${pointer} to true, resume to false`, () => {
      const c = caseNamed(fixture);
      const interpreter = compileInterpreter(loadBundled(c.expected.definition).definition);
      const s = interpreter.suspendPatch(c.workload, "suspend");
      const r = interpreter.suspendPatch(c.workload, "resume");
      assert.deepEqual(s.diagnostics, []);
      assert.deepEqual(s.patch.filter((op) => op.op !== "test").map((op) => [op.path, op.value]), [[pointer, true]]);
      assert.deepEqual(r.patch.filter((op) => op.op !== "test").map((op) => [op.path, op.value]), [[pointer, false]]);
    });
  }
  test("Sandbox: suspend sets /spec/operatingMode to Suspended, resume to Running", () => {
    const c = caseNamed("Sandbox");
    const interpreter = compileInterpreter(loadBundled(c.expected.definition).definition);
    const ops = (op: "suspend" | "resume") => interpreter.suspendPatch(c.workload, op).patch.filter((x) => x.op !== "test").map((x) => [x.path, x.value]);
    assert.deepEqual(ops("suspend"), [["/spec/operatingMode", "Suspended"]]);
    assert.deepEqual(ops("resume"), [["/spec/operatingMode", "Running"]]);
  });
});

describe("examples/: each workload interprets cleanly with the bundled definition of its kind", () => {
  const dir = path.join(repoRoot, "examples");
  const byKind = new Map(files.map((f) => [f.replace(/\.yaml$/, ""), f]));
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".yaml") && !n.endsWith("-pods.yaml")).sort()) {
    test(name, () => {
      const workload = parse(readFileSync(path.join(dir, name), "utf8")) as { apiVersion: string; kind: string };
      const file = byKind.get(`${workload.apiVersion.includes("/") ? workload.apiVersion : `core/${workload.apiVersion}`}/${workload.kind}`);
      assert.ok(file, `a bundled definition for ${workload.apiVersion} ${workload.kind}`);
      const podsFile = path.join(dir, name.replace(/\.yaml$/, "-pods.yaml"));
      const pods = existsSync(podsFile) ? (parse(readFileSync(podsFile, "utf8")) as { items: unknown[] }).items : [];
      const r = compileInterpreter(loadBundled(file).definition).interpret(workload, { pods });
      assert.deepEqual(errors(r), []);
      assert.equal(r.pods.filter((p) => p.component === undefined).length, 0, "every pod matched");
    });
  }
});
