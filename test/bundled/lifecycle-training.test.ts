/**
 * Lifecycle states the recorded flows do not show, for PyTorchJob, MPIJob (v2beta1), JobSet, RayCluster, RayJob
 * and LeaderWorkerSet: each object is written as its operator leaves it (Training Operator v1.9, MPI Operator
 * v0.8, JobSet v0.10, KubeRay v1.7, LeaderWorkerSet v0.7+) and run through `karta inspect -o json` with the
 * bundled definition; the single status printed is asserted.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { inspectStatuses } from "../recorded/recorded.js";

type Obj = Record<string, unknown>;
interface Case {
  state: string;
  object: Obj;
  status: string;
}

const container = { name: "main", image: "busybox:1.36" };
const template = { spec: { containers: [container], restartPolicy: "Never" } };

/** A condition as the operator writes it (`type`, `status`, `reason`). */
function cond(type: string, status: "True" | "False", reason: string): Obj {
  return { type, status, reason, message: "", lastTransitionTime: "2026-09-16T11:04:01Z" };
}

function pytorch(status: Obj, suspend = false): Obj {
  return {
    apiVersion: "kubeflow.org/v1",
    kind: "PyTorchJob",
    metadata: { name: "train", namespace: "ml", uid: "u-pt" },
    spec: { runPolicy: { suspend }, pytorchReplicaSpecs: { Master: { replicas: 1, restartPolicy: "ExitCode", template } } },
    status,
  };
}

function mpi(status: Obj, suspend = false): Obj {
  return {
    apiVersion: "kubeflow.org/v2beta1",
    kind: "MPIJob",
    metadata: { name: "mpi", namespace: "ml", uid: "u-mpi" },
    spec: {
      runPolicy: { suspend },
      launcherCreationPolicy: "AtStartup",
      mpiReplicaSpecs: { Launcher: { replicas: 1, template }, Worker: { replicas: 1, template } },
    },
    status,
  };
}

function jobset(status: Obj, spec: Obj = {}): Obj {
  return {
    apiVersion: "jobset.x-k8s.io/v1alpha2",
    kind: "JobSet",
    metadata: { name: "js", namespace: "ml", uid: "u-js" },
    spec: {
      suspend: false,
      replicatedJobs: [{ name: "workers", replicas: 1, template: { spec: { parallelism: 1, completions: 1, template } } }],
      ...spec,
    },
    status,
  };
}

/** One replicated job's counters (they count Jobs). */
function workers(active: number, ready: number, failed = 0, suspended = 0, succeeded = 0): Obj[] {
  return [{ name: "workers", active, ready, failed, suspended, succeeded }];
}

/** A Ray cluster of a head and one worker group ("cpu", one replica, with `worker`'s fields), as RayCluster and RayJob hold it. */
function rayClusterSpec(worker: Obj = {}): Obj {
  return {
    headGroupSpec: { rayStartParams: {}, template: { spec: { containers: [{ ...container, name: "ray-head" }] } } },
    workerGroupSpecs: [{ groupName: "cpu", replicas: 1, ...worker, rayStartParams: {}, template: { spec: { containers: [{ ...container, name: "ray-worker" }] } } }],
  };
}

function raycluster(status: Obj, suspend = false): Obj {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayCluster",
    metadata: { name: "rc", namespace: "ml", uid: "u-rc", generation: 1 },
    spec: { suspend, ...rayClusterSpec({ minReplicas: 1, maxReplicas: 1 }) },
    status: { observedGeneration: 1, ...status },
  };
}

/** KubeRay's four conditions, in the order it writes them. */
function rayConds(headReady: "True" | "False", provisioned: "True" | "False", suspended: "True" | "False", suspending: "True" | "False"): Obj[] {
  return [
    cond("HeadPodReady", headReady, headReady === "True" ? "HeadPodRunningAndReady" : "ContainersNotReady"),
    cond("RayClusterProvisioned", provisioned, provisioned === "True" ? "AllPodRunningAndReadyFirstTime" : "RayClusterPodsProvisioning"),
    cond("RayClusterSuspended", suspended, "RayClusterSuspended"),
    cond("RayClusterSuspending", suspending, "RayClusterSuspending"),
  ];
}

function rayjob(status: Obj, suspend = false): Obj {
  return {
    apiVersion: "ray.io/v1",
    kind: "RayJob",
    metadata: { name: "rj", namespace: "ml", uid: "u-rj", generation: 1 },
    spec: {
      suspend,
      entrypoint: "python -c 'print(1)'",
      submissionMode: "K8sJobMode",
      backoffLimit: 1,
      rayClusterSpec: rayClusterSpec(),
    },
    status: { observedGeneration: 1, ...status },
  };
}

function lws(replicas: number, status: Obj): Obj {
  return {
    apiVersion: "leaderworkerset.x-k8s.io/v1",
    kind: "LeaderWorkerSet",
    metadata: { name: "lws", namespace: "ml", uid: "u-lws", generation: 2 },
    spec: { replicas, leaderWorkerTemplate: { size: 2, leaderTemplate: template, workerTemplate: template }, startupPolicy: "LeaderCreated" },
    status,
  };
}

const created = cond("Created", "True", "PyTorchJobCreated");
const mpiCreated = cond("Created", "True", "MPIJobCreated");
const progressing = cond("Progressing", "True", "GroupsProgressing");
const notAvailable = cond("Available", "False", "AllGroupsReady");
const available = [cond("Progressing", "False", "GroupsProgressing"), cond("Available", "True", "AllGroupsReady")];

const cases: Case[] = [
  // Training Operator: Restarting replaces Running (filterOutCondition), suspending deletes the pods, zeroes the
  // active counters and sets Running False and Suspended True in one status update; resuming sets Suspended False.
  { state: "PyTorchJob created, no pod running yet", object: pytorch({ conditions: [created] }), status: "Initializing" },
  { state: "PyTorchJob running", object: pytorch({ conditions: [created, cond("Running", "True", "PyTorchJobRunning")], replicaStatuses: { Master: { active: 1 } } }), status: "Running" },
  { state: "PyTorchJob restarting a failed replica (ExitCode)", object: pytorch({ conditions: [created, cond("Restarting", "True", "PyTorchJobRestarting")], replicaStatuses: { Master: { failed: 1 } } }), status: "Degraded" },
  { state: "PyTorchJob suspend asked, the master still active", object: pytorch({ conditions: [created, cond("Running", "True", "PyTorchJobRunning")], replicaStatuses: { Master: { active: 1 } } }, true), status: "Suspending" },
  { state: "PyTorchJob suspended by the operator", object: pytorch({ conditions: [created, cond("Running", "False", "PyTorchJobSuspended"), cond("Suspended", "True", "PyTorchJobSuspended")], replicaStatuses: { Master: { active: 0 } } }, true), status: "Suspended" },
  { state: "PyTorchJob resume asked, not acted on", object: pytorch({ conditions: [created, cond("Running", "False", "PyTorchJobSuspended"), cond("Suspended", "True", "PyTorchJobSuspended")] }), status: "Suspended" },
  { state: "PyTorchJob resumed, pods being recreated", object: pytorch({ conditions: [created, cond("Running", "False", "PyTorchJobSuspended"), cond("Suspended", "False", "PyTorchJobResumed")] }), status: "Initializing" },
  { state: "PyTorchJob succeeded", object: pytorch({ conditions: [created, cond("Running", "False", "PyTorchJobRunning"), cond("Succeeded", "True", "PyTorchJobSucceeded")], replicaStatuses: { Master: { succeeded: 1 } } }), status: "Completed" },
  { state: "PyTorchJob failed (restartPolicy Never)", object: pytorch({ conditions: [created, cond("Running", "False", "PyTorchJobRunning"), cond("Failed", "True", "PyTorchJobFailed")], replicaStatuses: { Master: { failed: 1 } } }), status: "Failed" },

  // MPI Operator: Running only once the launcher and every worker run; suspended jobs carry Running False.
  { state: "MPIJob created, workers starting", object: mpi({ conditions: [mpiCreated], replicaStatuses: { Launcher: {}, Worker: { active: 1 } } }), status: "Initializing" },
  { state: "MPIJob running", object: mpi({ conditions: [mpiCreated, cond("Running", "True", "MPIJobRunning")], replicaStatuses: { Launcher: { active: 1 }, Worker: { active: 1 } } }), status: "Running" },
  { state: "MPIJob suspended, the launcher pod still terminating", object: mpi({ conditions: [mpiCreated, cond("Suspended", "True", "MPIJobSuspended"), cond("Running", "False", "MPIJobSuspended")], replicaStatuses: { Launcher: { active: 1 }, Worker: { active: 0 } } }, true), status: "Suspended" },
  { state: "MPIJob resumed, Running still False", object: mpi({ conditions: [mpiCreated, cond("Suspended", "False", "MPIJobResumed"), cond("Running", "False", "MPIJobSuspended")], replicaStatuses: { Launcher: {}, Worker: {} } }), status: "Initializing" },
  { state: "MPIJob failed by an evicted worker, Running still True", object: mpi({ conditions: [mpiCreated, cond("Running", "True", "MPIJobRunning"), cond("Failed", "True", "MPIJobEvicted")], replicaStatuses: { Launcher: { active: 1 }, Worker: { failed: 1 } } }), status: "Failed" },

  // JobSet: counters count the current attempt's Jobs; RestartingJobSet stays True until every Job is ready again.
  { state: "JobSet created, no Job active yet", object: jobset({ restarts: 0, replicatedJobsStatus: workers(0, 0) }), status: "Initializing" },
  { state: "JobSet Jobs active, pods not ready", object: jobset({ restarts: 0, replicatedJobsStatus: workers(1, 0) }), status: "Running" },
  { state: "JobSet restarting after a failed Job (failure policy)", object: jobset({ restarts: 1, conditions: [cond("RestartingJobSet", "True", "FailurePolicy")], replicatedJobsStatus: workers(0, 0, 1) }), status: "Degraded" },
  { state: "JobSet restarted, new Jobs not ready yet", object: jobset({ restarts: 1, conditions: [cond("RestartingJobSet", "True", "FailurePolicy")], replicatedJobsStatus: workers(1, 0) }), status: "Degraded" },
  { state: "JobSet restarted, Jobs ready again", object: jobset({ restarts: 1, conditions: [cond("RestartingJobSet", "False", "JobsReady")], replicatedJobsStatus: workers(1, 1) }), status: "Running" },
  { state: "JobSet InOrder start-up in progress", object: jobset({ restarts: 0, conditions: [cond("StartupPolicyInProgress", "True", "InOrderStartupPolicyInProgress")], replicatedJobsStatus: workers(1, 1) }, { startupPolicy: { startupPolicyOrder: "InOrder" } }), status: "Initializing" },
  { state: "JobSet suspend asked, Jobs still active", object: jobset({ restarts: 0, replicatedJobsStatus: workers(1, 1) }, { suspend: true }), status: "Suspending" },
  { state: "JobSet suspended, counters not updated yet", object: jobset({ restarts: 0, conditions: [cond("Suspended", "True", "SuspendedJobs")], replicatedJobsStatus: workers(1, 1) }, { suspend: true }), status: "Suspended" },
  { state: "JobSet resumed, Jobs still suspended", object: jobset({ restarts: 0, conditions: [cond("Suspended", "False", "ResumeJobs")], replicatedJobsStatus: workers(0, 0, 0, 1) }), status: "Resuming" },
  { state: "JobSet completed", object: jobset({ restarts: 0, conditions: [cond("Completed", "True", "AllJobsCompleted")], replicatedJobsStatus: workers(0, 0, 0, 0, 1) }), status: "Completed" },
  { state: "JobSet failed", object: jobset({ restarts: 0, conditions: [cond("Failed", "True", "FailedJobs")], replicatedJobsStatus: workers(0, 0, 1) }), status: "Failed" },

  // KubeRay RayCluster: state "ready" is kept once reached; the conditions tell the head's health and a suspension.
  { state: "RayCluster pods being provisioned", object: raycluster({ conditions: rayConds("False", "False", "False", "False") }), status: "Initializing" },
  { state: "RayCluster ready", object: raycluster({ state: "ready", conditions: rayConds("True", "True", "False", "False") }), status: "Running" },
  { state: "RayCluster head pod not ready after provisioning", object: raycluster({ state: "ready", conditions: rayConds("False", "True", "False", "False") }), status: "Degraded" },
  { state: "RayCluster pods cannot be created", object: raycluster({ state: "ready", conditions: [...rayConds("True", "True", "False", "False"), cond("ReplicaFailure", "True", "FailedCreateWorkerPod")] }), status: "Degraded" },
  { state: "RayCluster suspending, pods still there", object: raycluster({ state: "ready", conditions: rayConds("True", "True", "False", "True") }, true), status: "Suspending" },
  { state: "RayCluster suspended", object: raycluster({ state: "suspended", conditions: rayConds("False", "False", "True", "False") }, true), status: "Suspended" },
  { state: "RayCluster resume acted on, pods coming back", object: raycluster({ state: "suspended", conditions: rayConds("False", "False", "False", "False") }), status: "Resuming" },

  // KubeRay RayJob: jobDeploymentStatus is KubeRay's lifecycle, jobStatus the Ray job's.
  { state: "RayJob cluster initializing", object: rayjob({ jobDeploymentStatus: "Initializing" }), status: "Initializing" },
  { state: "RayJob submitted, Ray not reporting yet", object: rayjob({ jobDeploymentStatus: "Running" }), status: "Initializing" },
  { state: "RayJob job running", object: rayjob({ jobDeploymentStatus: "Running", jobStatus: "RUNNING" }), status: "Running" },
  { state: "RayJob suspending, job still running", object: rayjob({ jobDeploymentStatus: "Suspending", jobStatus: "RUNNING" }, true), status: "Suspending" },
  { state: "RayJob suspended", object: rayjob({ jobDeploymentStatus: "Suspended", jobStatus: "" }, true), status: "Suspended" },
  { state: "RayJob resumed (New again)", object: rayjob({ jobDeploymentStatus: "", jobStatus: "" }), status: "Initializing" },
  { state: "RayJob retrying, written with the failed job status", object: rayjob({ jobDeploymentStatus: "Retrying", jobStatus: "FAILED", failed: 1 }), status: "Failed" },
  { state: "RayJob past its deadline, job still running", object: rayjob({ jobDeploymentStatus: "Failed", jobStatus: "RUNNING", reason: "DeadlineExceeded" }), status: "Failed" },
  { state: "RayJob complete", object: rayjob({ jobDeploymentStatus: "Complete", jobStatus: "SUCCEEDED", succeeded: 1 }), status: "Completed" },

  // LeaderWorkerSet: Available and Progressing are exclusive; status.replicas is the leader StatefulSet's.
  { state: "LeaderWorkerSet groups progressing", object: lws(1, { conditions: [progressing], replicas: 1, updatedReplicas: 1 }), status: "Initializing" },
  { state: "LeaderWorkerSet all groups ready", object: lws(1, { conditions: available, replicas: 1, readyReplicas: 1, updatedReplicas: 1 }), status: "Running" },
  { state: "LeaderWorkerSet scaled up, new group not counted yet", object: lws(2, { conditions: [cond("Progressing", "True", "GroupsProgressing"), notAvailable], replicas: 1, readyReplicas: 1, updatedReplicas: 1 }), status: "Initializing" },
  { state: "LeaderWorkerSet rolling update", object: lws(1, { conditions: [progressing, notAvailable, cond("UpdateInProgress", "True", "GroupsUpdating")], replicas: 1, readyReplicas: 1, updatedReplicas: 0 }), status: "Initializing" },
  { state: "LeaderWorkerSet scaled to zero, a group still there", object: lws(0, { conditions: available, replicas: 1, readyReplicas: 1, updatedReplicas: 1 }), status: "Running" },
  { state: "LeaderWorkerSet scaled to zero, no group left", object: lws(0, { conditions: available, replicas: 0, readyReplicas: 0, updatedReplicas: 0 }), status: "Suspended" },
];

describe("lifecycle states the recordings do not show: PyTorchJob, MPIJob, JobSet, RayCluster, RayJob, LeaderWorkerSet", () => {
  for (const c of cases) {
    test(`${c.state}: ${c.status}`, async () => {
      const run = await inspectStatuses(c.object);
      assert.equal(run.code, 0, run.err);
      assert.deepEqual(run.statuses, [c.status]);
    });
  }
});
