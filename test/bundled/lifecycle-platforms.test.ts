/**
 * Lifecycle states the recorded operator runs do not show, for Sandbox, NIMService, PodCliqueSet, Milvus and
 * DynamoGraphDeployment: each object is written here as its operator writes it (conditions, phases, counters
 * from the operator's source) and run through `karta inspect -o json` with the bundled definitions; the one
 * status printed must be the state the operator means.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { inspectStatuses } from "../recorded/recorded.js";

type Obj = Record<string, unknown>;

function cond(type: string, status: string, reason: string): Obj {
  return { type, status, reason, message: "", lastTransitionTime: "2026-10-06T10:14:49Z" };
}

/** agent-sandbox: computeSuspendedCondition, computeReadyCondition, computeFinishedCondition, handleSandboxExpiry. */
function sandbox(operatingMode: string, conditions: Obj[]): Obj {
  return {
    apiVersion: "agents.x-k8s.io/v1beta1",
    kind: "Sandbox",
    metadata: { name: "sb", namespace: "ns", uid: "u-sb", generation: 2 },
    spec: { operatingMode, podTemplate: { spec: { containers: [{ name: "agent", image: "busybox:1.36" }] } } },
    status: { conditions, selector: "agents.x-k8s.io/sandbox-name-hash=1" },
  };
}
const notSuspended = cond("Suspended", "False", "NotSuspended");

/** NIM Operator: SetConditions{Ready,NotReady,Failed}NIMService write state, Ready and Failed together. */
function nimService(state: string, ready: string, failed: string, reason: string, replicas = 1): Obj {
  return {
    apiVersion: "apps.nvidia.com/v1alpha1",
    kind: "NIMService",
    metadata: { name: "nim", namespace: "ns", uid: "u-nim", generation: 2 },
    spec: { image: { repository: "nvcr.io/nim/meta/llama-3.2-1b-instruct", tag: "1.8" }, replicas },
    status: { state, conditions: [cond("Ready", ready, reason), cond("Failed", failed, failed === "True" ? reason : "Ready")] },
  };
}

/** Grove: mutateReplicas (status.replicas = spec.replicas, availableReplicas counted per replica). */
function podCliqueSet(replicas: number | undefined, status: Obj, conditions: Obj[] = []): Obj {
  return {
    apiVersion: "grove.io/v1alpha1",
    kind: "PodCliqueSet",
    metadata: { name: "pcs", namespace: "ns", uid: "u-pcs", generation: 2 },
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      template: { cliques: [{ name: "worker", spec: { replicas: 2, minAvailable: 2, roleName: "worker", podSpec: { containers: [{ name: "w", image: "busybox:1.36" }] } } }] },
    },
    status: { currentGenerationHash: "abc", observedGeneration: 2, updatedReplicas: status.availableReplicas, ...status, conditions },
  };
}

/** Milvus Operator: UpdateStatusForNewGeneration writes status.status and MilvusReady in one update. */
function milvus(health: string, replicas: number, ready: [string, string]): Obj {
  return {
    apiVersion: "milvus.io/v1beta1",
    kind: "Milvus",
    metadata: { name: "mv", namespace: "ns", uid: "u-mv", generation: 4, finalizers: ["milvus.milvus.io/finalizer"] },
    spec: { mode: "standalone", components: { image: "milvusdb/milvus:v2.5.0", standalone: { replicas } } },
    status: { status: health, observedGeneration: 4, conditions: [cond("MilvusReady", ...ready)] },
  };
}

/** Dynamo: the DynamoGraphDeployment reconciler sets status.state and the Ready condition together. */
function dynamo(version: string, state: string, ready: string, reason: string): Obj {
  const spec =
    version === "v1alpha1"
      ? { services: { Frontend: { componentType: "frontend", replicas: 1, extraPodSpec: { mainContainer: { image: "dynamo:1" } } } } }
      : { components: [{ name: "Frontend", componentType: "frontend", replicas: 1, podTemplate: { spec: { containers: [{ name: "main", image: "dynamo:1" }] } } }] };
  return {
    apiVersion: `nvidia.com/${version}`,
    kind: "DynamoGraphDeployment",
    metadata: { name: "dgd", namespace: "ns", uid: "u-dgd", generation: 1 },
    spec,
    status: { state, observedGeneration: 1, conditions: [cond("Ready", ready, reason)] },
  };
}

const cases: [string, Obj, string][] = [
  // Sandbox
  ["Sandbox: pod pending", sandbox("Running", [notSuspended, cond("Ready", "False", "DependenciesNotReady")]), "Initializing"],
  ["Sandbox: pod ready", sandbox("Running", [notSuspended, cond("Ready", "True", "DependenciesReady")]), "Running"],
  ["Sandbox: suspend asked, not yet observed", sandbox("Suspended", [notSuspended, cond("Ready", "True", "DependenciesReady")]), "Suspending"],
  ["Sandbox: pod terminating", sandbox("Suspended", [cond("Suspended", "False", "PodTerminating"), cond("Ready", "False", "SandboxSuspended")]), "Suspending"],
  ["Sandbox: pod terminated", sandbox("Suspended", [cond("Suspended", "True", "PodTerminated"), cond("Ready", "False", "SandboxSuspended")]), "Suspended"],
  ["Sandbox: resume asked, not yet observed", sandbox("Running", [cond("Suspended", "True", "PodTerminated"), cond("Ready", "False", "SandboxSuspended")]), "Resuming"],
  ["Sandbox: resumed, pod pending", sandbox("Running", [notSuspended, cond("Ready", "False", "DependenciesNotReady")]), "Initializing"],
  ["Sandbox: pod succeeded", sandbox("Running", [notSuspended, cond("Finished", "True", "PodSucceeded"), cond("Ready", "False", "PodSucceeded")]), "Completed"],
  ["Sandbox: pod failed", sandbox("Running", [notSuspended, cond("Finished", "True", "PodFailed"), cond("Ready", "False", "PodFailed")]), "Failed"],
  ["Sandbox: expired (shutdownPolicy Retain)", sandbox("Running", [notSuspended, cond("Ready", "False", "SandboxExpired")]), "Completed"],
  ["Sandbox: two pods claim it", sandbox("Running", [notSuspended, cond("Ready", "False", "MultiplePods")]), "Degraded"],
  // NIMService
  ["NIMService: deployment rolling out", nimService("NotReady", "False", "False", "NotReady"), "Initializing"],
  ["NIMService: NIMCache not ready", nimService("NotReady", "False", "False", "NIMCacheNotReady"), "Initializing"],
  ["NIMService: rolled out", nimService("Ready", "True", "False", "Ready"), "Running"],
  ["NIMService: scaled up, new replica not available", nimService("NotReady", "False", "False", "NotReady", 2), "Initializing"],
  ["NIMService: NIMCache not found", nimService("Failed", "False", "True", "NIMCacheNotFound"), "Failed"],
  // PodCliqueSet
  ["PodCliqueSet: replica coming up", podCliqueSet(1, { replicas: 1, availableReplicas: 0 }), "Initializing"],
  ["PodCliqueSet: replica available", podCliqueSet(1, { replicas: 1, availableReplicas: 1 }), "Running"],
  ["PodCliqueSet: scaled up, second replica coming up", podCliqueSet(2, { replicas: 2, availableReplicas: 1 }), "Initializing"],
  ["PodCliqueSet: scaled down, not yet observed", podCliqueSet(1, { replicas: 2, availableReplicas: 2 }), "Running"],
  ["PodCliqueSet: replica breached minAvailable", podCliqueSet(1, { replicas: 1, availableReplicas: 0 }, [cond("GangTerminationInProgress", "True", "GangTerminationActive")]), "Initializing"],
  ["PodCliqueSet: scaled to zero", podCliqueSet(0, { availableReplicas: 0 }), "Suspended"],
  ["PodCliqueSet: replicas left out (the CRD defaults them to 0)", podCliqueSet(undefined, { availableReplicas: 0 }), "Suspended"],
  ["PodCliqueSet: topology levels gone, pods keep running", podCliqueSet(1, { replicas: 1, availableReplicas: 1 }, [cond("TopologyLevelsUnavailable", "True", "ClusterTopologyLevelsUnavailable")]), "Running"],
  // Milvus
  ["Milvus: dependencies and roles starting", milvus("Pending", 1, ["False", "MilvusComponentNotHealthy"]), "Initializing"],
  ["Milvus: healthy", milvus("Healthy", 1, ["True", "MilvusClusterHealthy"]), "Running"],
  ["Milvus: unhealthy after being healthy", milvus("Unhealthy", 1, ["False", "MilvusComponentNotHealthy"]), "Degraded"],
  ["Milvus: stopped, pods still terminating", milvus("Stopped", 0, ["False", "MilvusStopping"]), "Suspending"],
  ["Milvus: stopped, no pod left", milvus("Stopped", 0, ["False", "MilvusStopped"]), "Suspended"],
  ["Milvus: restarted from stopped", milvus("Pending", 1, ["False", "MilvusComponentNotHealthy"]), "Initializing"],
  // DynamoGraphDeployment, both versions
  ...(["v1alpha1", "v1beta1"] as const).flatMap((v): [string, Obj, string][] => [
    [`DynamoGraphDeployment ${v}: components not ready`, dynamo(v, "pending", "False", "some_resources_are_not_ready"), "Initializing"],
    [`DynamoGraphDeployment ${v}: all resources ready`, dynamo(v, "successful", "True", "all_resources_are_ready"), "Running"],
    [`DynamoGraphDeployment ${v}: reconcile failed`, dynamo(v, "failed", "False", "reconcile_error"), "Failed"],
  ]),
];

describe("lifecycle states the recordings do not show: Sandbox, NIMService, PodCliqueSet, Milvus, DynamoGraphDeployment", () => {
  for (const [name, object, want] of cases) {
    test(`${name}: ${want}`, async () => {
      const run = await inspectStatuses(object);
      assert.equal(run.code, 0, run.err);
      assert.deepEqual(run.statuses, [want]);
    });
  }

  // The operator writes Deleting and leaves MilvusReady as it was (its status syncer skips objects being deleted).
  for (const ready of [["True", "MilvusClusterHealthy"], ["False", "MilvusStopping"]] as [string, string][]) {
    test(`Milvus being deleted, MilvusReady ${ready[1]}: no claim`, async () => {
      const object = milvus("Deleting", 1, ready);
      (object.metadata as Obj).deletionTimestamp = "2026-10-06T11:00:00Z";
      const run = await inspectStatuses(object);
      assert.equal(run.code, 0, run.err);
      assert.deepEqual(run.statuses, ["Undefined"]);
    });
  }
});
