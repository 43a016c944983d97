/**
 * `karta compile` throughput: the Workload, its 1,000 CompositePodGroups (each over a leader and a
 * worker PodGroup) and the 4,000 pod patches of a LeaderWorkerSet with 1,000 replica groups of 4 pods, compiled with the bundled LeaderWorkerSet Karta,
 * reported per group. Baseline, measured in the same run: interpreting the same object and pods
 * (classification and KAI's gang groups), which compiling includes — the ratio shows what building and
 * validating the Workload API objects adds on top.
 */
import { compileInterpreter } from "../src/interpret/index.js";
import { compileKarta } from "../src/scheduling/karta.js";
import { bundledDefinition, opsPerSecond, type BenchResult } from "./harness.js";

const GROUPS = 1000;
const SIZE = 4;

function leaderWorkerSet(): Record<string, unknown> {
  const template = (name: string) => ({
    spec: { containers: [{ name, image: "vllm/vllm-openai:v0.6.4", resources: { limits: { "nvidia.com/gpu": "8" } } }] },
  });
  return {
    apiVersion: "leaderworkerset.x-k8s.io/v1",
    kind: "LeaderWorkerSet",
    metadata: { name: "llama-405b", namespace: "serving", uid: "3a9c7e15-0b2d-4f68-9e1a-6c5d4b3a2f10" },
    spec: {
      replicas: GROUPS,
      startupPolicy: "LeaderCreated",
      leaderWorkerTemplate: { size: SIZE, leaderTemplate: template("leader"), workerTemplate: template("worker") },
    },
    status: { replicas: GROUPS, readyReplicas: GROUPS, conditions: [{ type: "Available", status: "True" }] },
  };
}

/** The pods of group g as the LeaderWorkerSet controller labels them: the leader, then its size-1 workers. */
function pods(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let g = 0; g < GROUPS; g++) {
    for (let w = 0; w < SIZE; w++) {
      const leader = `llama-405b-${g}`;
      const name = w === 0 ? leader : `${leader}-${w}`;
      out.push({
        apiVersion: "v1",
        kind: "Pod",
        metadata: {
          name,
          namespace: "serving",
          labels: {
            "leaderworkerset.sigs.k8s.io/name": "llama-405b",
            "leaderworkerset.sigs.k8s.io/group-index": String(g),
            "leaderworkerset.sigs.k8s.io/worker-index": String(w),
            "leaderworkerset.sigs.k8s.io/group-key": `k${g}`,
          },
          annotations: w === 0 ? { "leaderworkerset.sigs.k8s.io/size": String(SIZE) } : { "leaderworkerset.sigs.k8s.io/leader-name": leader },
          ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: w === 0 ? "llama-405b" : leader, uid: `u-${g}`, controller: true }],
        },
        spec: { containers: [{ name: w === 0 ? "leader" : "worker", image: "vllm/vllm-openai:v0.6.4" }] },
      });
    }
  }
  return out;
}

/** Groups compiled per second: the Workload, 1,000 groups (composite + 2 PodGroups) and their pod patches, against interpreting alone. */
export function benchCompile(): BenchResult[] {
  const interpreter = compileInterpreter(bundledDefinition("leaderworkerset.x-k8s.io/v1/LeaderWorkerSet.yaml"));
  const object = leaderWorkerSet();
  const podList = pods();

  const check = compileKarta(interpreter, object, { pods: podList });
  if (!check.ok || check.compositePodGroups.length !== GROUPS || check.podGroups.length !== 2 * GROUPS || check.podPatches.length !== GROUPS * SIZE) {
    throw new Error(`benchmark setup: expected ${GROUPS} groups, got ${check.compositePodGroups.length} (${check.issues.map((i) => i.message).join("; ")})`);
  }

  const interpretRate = opsPerSecond(() => interpreter.interpret(object, { pods: podList }), 600) * GROUPS;
  const compileRate = opsPerSecond(() => compileKarta(interpreter, object, { pods: podList }), 600) * GROUPS;
  return [
    {
      name: `interpret LeaderWorkerSet (${GROUPS} groups x ${SIZE} pods), per group`,
      opsPerSec: interpretRate,
      note: "baseline: classification and KAI gang groups",
    },
    {
      name: `compile Workload + ${GROUPS} groups (composite + 2 PodGroups) + pod patches, per group`,
      opsPerSec: compileRate,
      baseline: `interpret LeaderWorkerSet (${GROUPS} groups x ${SIZE} pods), per group`,
      ratio: compileRate / interpretRate,
      note: "includes interpretation and validation of every object",
    },
  ];
}
