// Realistic objects shared by the scheduling tests: a gang-scheduled training Job and a
// JobSet-like controller that nests the building blocks per replicated job.
import type { BuildOptions, Job, OwnerReference, WorkloadItem, WorkloadInput } from "../../src/scheduling/index.js";
import { AllMode, BasicPolicy, GangPolicy, SingleMode, fieldErrorToString, type FieldError } from "../../src/scheduling/index.js";

/** A PyTorch pretraining Job: 8 workers that must start together, on one rack. */
export function trainingJob(): Job {
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: "llm-pretrain",
      namespace: "ml-training",
      uid: "0f5c7f64-8b1d-4a8e-9d0a-2b3c4d5e6f70",
      labels: { "app.kubernetes.io/name": "llm-pretrain" },
    },
    spec: {
      parallelism: 8,
      completions: 8,
      completionMode: "Indexed",
      backoffLimit: 0,
      scheduling: {
        schedulingPolicy: { gang: {} },
        schedulingConstraints: { topology: [{ key: "topology.kubernetes.io/rack" }] },
        disruptionMode: { all: {} },
      },
      template: {
        metadata: { labels: { "app.kubernetes.io/name": "llm-pretrain" } },
        spec: {
          priorityClassName: "training-high",
          restartPolicy: "Never",
          containers: [
            {
              name: "trainer",
              image: "ghcr.io/acme/trainer:1.4.2",
              command: ["torchrun", "--nnodes=8", "train.py"],
              resources: { limits: { "nvidia.com/gpu": "8" } },
            },
          ],
        },
      },
    },
  };
}

/** Controller owner of a JobSet-like custom resource. */
export const jobSetOwner: OwnerReference = {
  apiVersion: "jobset.x-k8s.io/v1alpha2",
  kind: "JobSet",
  name: "rl-pipeline",
  uid: "7d1e2f3a-4b5c-4d6e-8f90-a1b2c3d4e5f6",
  controller: true,
  blockOwnerDeletion: true,
};

/** Options of an out-of-tree controller supporting everything. */
export function allOptions(extra: Partial<BuildOptions> = {}): BuildOptions {
  return {
    name: "rl-pipeline-wl",
    namespace: "ml-training",
    owner: jobSetOwner,
    allowedPolicies: [BasicPolicy, GangPolicy],
    allowedDisruptionModes: [SingleMode, AllMode],
    ...extra,
  };
}

/** Leaf input at the paths a JobSet-like API would embed the blocks under. */
export function leafInput(blocks: {
  policy?: NonNullable<WorkloadInput["policy"]>["podGroupData"];
  constraints?: NonNullable<WorkloadInput["constraints"]>["podGroupData"];
  mode?: NonNullable<WorkloadInput["disruptionMode"]>["podGroupData"];
  claims?: NonNullable<WorkloadInput["resourceClaims"]>["podGroupData"];
}): WorkloadInput {
  return {
    policy: { podGroupData: blocks.policy, pathElements: ["schedulingPolicy"] },
    constraints: { podGroupData: blocks.constraints, pathElements: ["schedulingConstraints"] },
    disruptionMode: { podGroupData: blocks.mode, pathElements: ["disruptionMode"] },
    resourceClaims: { podGroupData: blocks.claims, pathElements: ["resourceClaims"] },
  };
}

/** Composite input for a group of groups. */
export function compositeInput(blocks: {
  policy?: NonNullable<WorkloadInput["policy"]>["compositePodGroupData"];
  constraints?: NonNullable<WorkloadInput["constraints"]>["compositePodGroupData"];
  mode?: NonNullable<WorkloadInput["disruptionMode"]>["compositePodGroupData"];
}): WorkloadInput {
  return {
    policy: { compositePodGroupData: blocks.policy, pathElements: ["schedulingPolicy"] },
    constraints: { compositePodGroupData: blocks.constraints, pathElements: ["schedulingConstraints"] },
    disruptionMode: { compositePodGroupData: blocks.mode, pathElements: ["disruptionMode"] },
  };
}

/** A leaf item at `spec.replicatedJobs[i].scheduling`. */
export function replicatedJob(i: number, name: string, input: WorkloadInput, parallelism = 4): WorkloadItem {
  return {
    name,
    path: `spec.replicatedJobs[${i}].scheduling`,
    defaultConfig: { policy: { basic: {} } },
    input,
    callbacks: [
      (cfg) => {
        if (cfg.policy?.gang !== undefined && cfg.policy.gang.minCount === undefined) cfg.policy.gang.minCount = parallelism;
      },
    ],
  };
}

/** JobSet-like tree: a gang of a driver and a worker group, all disrupted together. */
export function pipelineTree(): WorkloadItem {
  return {
    name: "rl-pipeline",
    path: "spec.scheduling",
    defaultConfig: { policy: { basic: {} } },
    input: compositeInput({ policy: { gang: { minGroupCount: 2 } }, mode: { all: {} } }),
    children: [
      replicatedJob(0, "driver", leafInput({ policy: { gang: { minCount: 1 } }, mode: { all: {} } }), 1),
      replicatedJob(
        1,
        "workers",
        leafInput({
          policy: { gang: {} },
          constraints: { topology: [{ key: "topology.kubernetes.io/rack" }] },
          mode: { all: {} },
          claims: [{ name: "shared-gpus", resourceClaimTemplateName: "h100-x8" }],
        }),
        16,
      ),
    ],
  };
}

/** Errors rendered as the API server prints them. */
export function render(errors: readonly FieldError[]): string[] {
  return errors.map(fieldErrorToString);
}
