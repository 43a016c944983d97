/**
 * Lifecycle states the recorded flows do not show, for Pod, Deployment, StatefulSet, Job, CronJob, Knative
 * Service, InferenceService and LLMInferenceService: each object below is written as its controller writes it
 * at that point of the lifecycle (status fields only; the spec trimmed to what the mappings read), run through
 * `karta inspect -o json` with the bundled definition, and the one status printed compared with the state the
 * controller's own fields mean.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { inspectStatuses } from "../recorded/recorded.js";

type Obj = Record<string, unknown>;
type Condition = { type: string; status: "True" | "False" | "Unknown"; reason?: string };

function cond(type: string, status: Condition["status"], reason?: string): Condition {
  return reason === undefined ? { type, status } : { type, status, reason };
}

function object(apiVersion: string, kind: string, spec: Obj, status: Obj, annotations?: Record<string, string>): Obj {
  return { apiVersion, kind, metadata: { name: "d2-lifecycle", namespace: "default", uid: "4b0c7a52-9d3e-4f0a-8a61-2f3c1f0e5d21", generation: 1, ...(annotations ? { annotations } : {}) }, spec, status };
}

const container = { name: "main", image: "busybox:1.36", command: ["sh", "-c", "sleep 3600"] };
const template = { metadata: { labels: { app: "d2" } }, spec: { containers: [container], restartPolicy: "Always" } };

const pod = (phase: string, containerStatuses: Obj[] = [], restartPolicy = "Always"): Obj =>
  object("v1", "Pod", { containers: [container], restartPolicy }, { phase, ...(containerStatuses.length ? { containerStatuses } : {}) });

const deployment = (replicas: number, status: Obj, conditions: Condition[]): Obj =>
  object("apps/v1", "Deployment", { replicas, selector: { matchLabels: { app: "d2" } }, template, progressDeadlineSeconds: 600 }, { observedGeneration: 1, ...status, conditions });

const statefulSet = (replicas: number, status: Obj): Obj =>
  object("apps/v1", "StatefulSet", { replicas, serviceName: "d2", selector: { matchLabels: { app: "d2" } }, template }, { observedGeneration: 1, currentRevision: "d2-5d8f7c9b6", updateRevision: "d2-5d8f7c9b6", ...status });

const onDelete = (sts: Obj): Obj => ({ ...sts, spec: { ...(sts.spec as Obj), updateStrategy: { type: "OnDelete" } } });
const partitioned = (sts: Obj, partition: number): Obj => ({ ...sts, spec: { ...(sts.spec as Obj), updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition } } } });

const job = (spec: Obj, status: Obj, conditions: Condition[] = []): Obj =>
  object("batch/v1", "Job", { parallelism: 1, completions: 1, backoffLimit: 6, ...spec, template: { ...template, spec: { ...template.spec, restartPolicy: "Never" } } }, { ...status, ...(conditions.length ? { conditions } : {}) });

const cronJob = (suspend: boolean, status: Obj): Obj =>
  object("batch/v1", "CronJob", { schedule: "*/1 * * * *", suspend, jobTemplate: { spec: { template: { ...template, spec: { ...template.spec, restartPolicy: "OnFailure" } } } } }, status);

const knative = (conditions: Condition[], extra: Obj = {}): Obj =>
  object("serving.knative.dev/v1", "Service", { template: { spec: { containers: [{ image: "ghcr.io/knative/helloworld-go:latest" }] } } }, { observedGeneration: 1, ...extra, conditions });

const isvcSpec = { predictor: { model: { modelFormat: { name: "sklearn" }, storageUri: "gs://kfserving-examples/models/sklearn/1.0/model" } } };
const isvc = (conditions: Condition[], modelStatus: Obj = { transitionStatus: "InProgress", states: { activeModelState: "", targetModelState: "Pending" } }): Obj =>
  object("serving.kserve.io/v1beta1", "InferenceService", isvcSpec, { observedGeneration: 1, deploymentMode: "Knative", modelStatus, conditions });
const isvcCond = (ready: Condition["status"], routes: Condition["status"], config: Condition["status"], reason?: string): Condition[] => [
  cond("IngressReady", routes), cond("LatestDeploymentReady", config), cond("PredictorConfigurationReady", config, reason),
  cond("PredictorReady", ready, reason), cond("PredictorRouteReady", routes, reason), cond("Ready", ready, reason), cond("RoutesReady", routes), cond("Stopped", "False"),
];

const llmSpec = { model: { uri: "pvc://d2-model/opt-125m" }, replicas: 1, template: { containers: [container] }, router: { route: {} } };
const llmisvc = (conditions: Condition[], annotations?: Record<string, string>): Obj =>
  object("serving.kserve.io/v1alpha2", "LLMInferenceService", llmSpec, { observedGeneration: 1, conditions }, annotations);
const llmWorkload = (ready: Condition["status"], reason?: string): Condition[] => [
  cond("MainWorkloadReady", ready, reason), cond("PresetsCombined", "True"), cond("Ready", ready, reason), cond("RouterReady", "True"), cond("WorkloadsReady", ready, reason),
];

/** [kind, lifecycle state, object, the status the bundled definition must print]. */
export const lifecycle: [string, string, Obj, string][] = [
  // Pod: the kubelet's phase; a container restarted again and again keeps the phase Running.
  ["Pod", "scheduled, image pulling", pod("Pending", [{ name: "main", ready: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } }]), "Initializing"],
  ["Pod", "container running", pod("Running", [{ name: "main", ready: true, restartCount: 0, state: { running: { startedAt: "2026-01-01T00:00:00Z" } } }]), "Running"],
  ["Pod", "container in CrashLoopBackOff", pod("Running", [{ name: "main", ready: false, restartCount: 4, state: { waiting: { reason: "CrashLoopBackOff" } } }]), "Degraded"],
  ["Pod", "exited 0 (restartPolicy Never)", pod("Succeeded", [{ name: "main", ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } }], "Never"), "Completed"],
  ["Pod", "exited 1 (restartPolicy Never)", pod("Failed", [{ name: "main", ready: false, restartCount: 0, state: { terminated: { exitCode: 1, reason: "Error" } } }], "Never"), "Failed"],

  // Deployment: Progressing and Available, as the deployment controller's syncRolloutStatus and calculateStatus write them.
  ["Deployment", "ReplicaSet just created", deployment(1, { replicas: 1, updatedReplicas: 1, unavailableReplicas: 1 }, [cond("Progressing", "True", "NewReplicaSetCreated")]), "Initializing"],
  ["Deployment", "pods not available yet", deployment(2, { replicas: 2, updatedReplicas: 2, unavailableReplicas: 2 }, [cond("Available", "False", "MinimumReplicasUnavailable"), cond("Progressing", "True", "ReplicaSetUpdated")]), "Initializing"],
  ["Deployment", "rollout complete", deployment(1, { replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 }, [cond("Available", "True", "MinimumReplicasAvailable"), cond("Progressing", "True", "NewReplicaSetAvailable")]), "Running"],
  ["Deployment", "scaled 1 -> 3, new pods starting", deployment(3, { replicas: 3, updatedReplicas: 3, readyReplicas: 1, availableReplicas: 1, unavailableReplicas: 2 }, [cond("Available", "False", "MinimumReplicasUnavailable"), cond("Progressing", "True", "NewReplicaSetAvailable")]), "Running"],
  ["Deployment", "first rollout past its deadline", deployment(1, { replicas: 1, updatedReplicas: 1, unavailableReplicas: 1 }, [cond("Available", "False", "MinimumReplicasUnavailable"), cond("Progressing", "False", "ProgressDeadlineExceeded")]), "Failed"],
  ["Deployment", "update past its deadline, old pods serving", deployment(2, { replicas: 3, updatedReplicas: 1, readyReplicas: 2, availableReplicas: 2, unavailableReplicas: 1 }, [cond("Available", "True", "MinimumReplicasAvailable"), cond("Progressing", "False", "ProgressDeadlineExceeded")]), "Degraded"],
  ["Deployment", "new ReplicaSet cannot be created", deployment(1, {}, [cond("Available", "False", "MinimumReplicasUnavailable"), cond("Progressing", "False", "ReplicaSetCreateError")]), "Failed"],
  ["Deployment", "scaled to zero", deployment(0, {}, [cond("Available", "True", "MinimumReplicasAvailable"), cond("Progressing", "True", "NewReplicaSetAvailable")]), "Suspended"],

  // StatefulSet: the controller's replica counters (it writes no conditions).
  ["StatefulSet", "just created", statefulSet(3, { replicas: 0, availableReplicas: 0 }), "Initializing"],
  ["StatefulSet", "pods created, none ready", statefulSet(3, { replicas: 3, updatedReplicas: 3, currentReplicas: 3, availableReplicas: 0 }), "Initializing"],
  ["StatefulSet", "all ready", statefulSet(3, { replicas: 3, updatedReplicas: 3, currentReplicas: 3, readyReplicas: 3, availableReplicas: 3 }), "Running"],
  ["StatefulSet", "scaling 3 -> 5, ordinal 3 starting", statefulSet(5, { replicas: 4, updatedReplicas: 4, currentReplicas: 4, readyReplicas: 3, availableReplicas: 3 }), "Initializing"],
  // A terminating pod counts in replicas (and in readyReplicas while it runs) but never in updatedReplicas.
  ["StatefulSet", "scaling 3 -> 1, extra pods terminating", statefulSet(1, { replicas: 3, updatedReplicas: 1, currentReplicas: 1, readyReplicas: 3, availableReplicas: 3 }), "Initializing"],
  ["StatefulSet", "scaling 3 -> 1, the last extra pod stopped, not yet deleted", statefulSet(1, { replicas: 2, updatedReplicas: 1, currentReplicas: 1, readyReplicas: 1, availableReplicas: 1 }), "Running"],
  ["StatefulSet", "one pod never ready", statefulSet(3, { replicas: 3, updatedReplicas: 3, currentReplicas: 3, readyReplicas: 2, availableReplicas: 2 }), "Degraded"],
  // A rolling update: currentRevision moves to updateRevision once every pod is updated and ready (completeRollingUpdate).
  ["StatefulSet", "rolling update, the last pod recreated, not ready", statefulSet(3, { replicas: 3, updatedReplicas: 3, currentReplicas: 0, readyReplicas: 2, availableReplicas: 2, updateRevision: "d2-7f6c5d4b8" }), "Initializing"],
  ["StatefulSet", "rolling update done", statefulSet(3, { replicas: 3, updatedReplicas: 3, currentReplicas: 3, readyReplicas: 3, availableReplicas: 3, currentRevision: "d2-7f6c5d4b8", updateRevision: "d2-7f6c5d4b8" }), "Running"],
  // OnDelete never moves currentRevision: every pod recreated by hand at the new revision and ready is running.
  ["StatefulSet", "OnDelete, every pod recreated at the new revision", onDelete(statefulSet(3, { replicas: 3, updatedReplicas: 3, currentReplicas: 0, readyReplicas: 3, availableReplicas: 3, updateRevision: "d2-7f6c5d4b8" })), "Running"],
  // A partitioned roll-out (a canary: partition 2 of 3): done once the pod above the partition is updated and all are ready.
  ["StatefulSet", "partition 2: the canary pod updated, all ready", partitioned(statefulSet(3, { replicas: 3, updatedReplicas: 1, currentReplicas: 2, readyReplicas: 3, availableReplicas: 3, updateRevision: "d2-7f6c5d4b8" }), 2), "Running"],
  ["StatefulSet", "partition 2: the canary pod being recreated", partitioned(statefulSet(3, { replicas: 3, updatedReplicas: 0, currentReplicas: 2, readyReplicas: 2, availableReplicas: 2, updateRevision: "d2-7f6c5d4b8" }), 2), "Initializing"],
  ["StatefulSet", "scaled to zero, last pod terminating", statefulSet(0, { replicas: 1, updatedReplicas: 1, currentReplicas: 1, readyReplicas: 1, availableReplicas: 1 }), "Suspending"],
  ["StatefulSet", "scaled to zero", statefulSet(0, { replicas: 0, availableReplicas: 0 }), "Suspended"],

  // Job: active/ready/succeeded/failed counters and the terminal and Suspended conditions (Kubernetes 1.31+).
  ["Job", "pod starting", job({}, { active: 1, ready: 0, terminating: 0, startTime: "2026-01-01T00:00:00Z" }), "Initializing"],
  ["Job", "pod ready", job({}, { active: 1, ready: 1, terminating: 0 }), "Running"],
  ["Job", "succeeded, pod terminating (SuccessCriteriaMet)", job({}, { succeeded: 1, ready: 0, terminating: 1 }, [cond("SuccessCriteriaMet", "True", "CompletionsReached")]), "Completed"],
  ["Job", "complete", job({}, { succeeded: 1, ready: 0, terminating: 0, completionTime: "2026-01-01T00:01:00Z" }, [cond("SuccessCriteriaMet", "True", "CompletionsReached"), cond("Complete", "True", "CompletionsReached")]), "Completed"],
  ["Job", "backoff limit reached, pods terminating (FailureTarget)", job({ backoffLimit: 0 }, { failed: 1, ready: 0, terminating: 0 }, [cond("FailureTarget", "True", "BackoffLimitExceeded")]), "Failed"],
  ["Job", "failed", job({ backoffLimit: 0 }, { failed: 1, ready: 0, terminating: 0 }, [cond("FailureTarget", "True", "BackoffLimitExceeded"), cond("Failed", "True", "BackoffLimitExceeded")]), "Failed"],
  ["Job", "created suspended", job({ suspend: true }, { active: 0, ready: 0 }, [cond("Suspended", "True", "JobSuspended")]), "Suspended"],
  ["Job", "resume asked, controller not yet acted", job({ suspend: false }, { active: 0, ready: 0 }, [cond("Suspended", "True", "JobSuspended")]), "Suspended"],
  ["Job", "resumed, pod starting", job({ suspend: false }, { active: 1, ready: 0 }, [cond("Suspended", "False", "JobResumed")]), "Initializing"],
  ["Job", "suspend asked, pods still active", job({ suspend: true }, { active: 1, ready: 1 }), "Suspending"],
  ["Job", "parallel, one pod failed and replaced", job({ parallelism: 3, completions: 3 }, { active: 3, ready: 2, failed: 1 }), "Degraded"],
  ["Job", "parallelism raised 1 -> 3, all ready", job({ parallelism: 3, completions: 6 }, { active: 3, ready: 3 }), "Running"],
  // A pod that fails at once (before a readiness probe passes) is retried: degraded with no pod ready yet too.
  ["Job", "parallel, one pod failed, none ready yet", job({ parallelism: 3, completions: 3 }, { active: 2, ready: 0, failed: 1 }), "Degraded"],
  ["Job", "parallel, a failed pod held back by the backoff, none ready", job({ parallelism: 2, completions: 2 }, { active: 1, ready: 0, failed: 1 }), "Degraded"],
  // Pods that succeeded are progress: the replacement for the next completion is starting, the others ready.
  ["Job", "parallel, one pod succeeded, its successor starting", job({ parallelism: 3, completions: 6 }, { active: 3, ready: 2, succeeded: 1 }), "Running"],
  ["Job", "parallel, one pod succeeded, no more to start", job({ parallelism: 3, completions: 3 }, { active: 2, ready: 2, succeeded: 1 }), "Running"],
  ["Job", "parallel, one pod succeeded before the others are ready", job({ parallelism: 3, completions: 3 }, { active: 2, ready: 0, succeeded: 1 }), "Initializing"],
  // failed only grows: at the tail (fewer left than parallelism) or once recovered, an old failure is no fault.
  ["Job", "parallel, an old failure, the last pod of eight running", job({ parallelism: 8, completions: 8 }, { active: 1, ready: 1, succeeded: 7, failed: 1 }), "Running"],
  ["Job", "parallel, an old failure, every pod ready again", job({ parallelism: 3, completions: 6 }, { active: 3, ready: 3, succeeded: 1, failed: 1 }), "Running"],
  ["Job", "work queue, an old failure, a pod done, the others finishing", job({ parallelism: 3, completions: null }, { active: 1, ready: 1, succeeded: 1, failed: 1 }), "Running"],

  // CronJob: spec.suspend and the schedule times (the controller writes no conditions).
  ["CronJob", "suspended", cronJob(true, {}), "Suspended"],
  ["CronJob", "never scheduled yet", cronJob(false, {}), "Initializing"],
  ["CronJob", "a run active", cronJob(false, { active: [{ kind: "Job", name: "d2-lifecycle-29000000", namespace: "default" }], lastScheduleTime: "2026-01-01T00:01:00Z" }), "Running"],
  ["CronJob", "last run succeeded", cronJob(false, { lastScheduleTime: "2026-01-01T00:01:00Z", lastSuccessfulTime: "2026-01-01T00:01:12Z" }), "Running"],
  ["CronJob", "last run failed", cronJob(false, { lastScheduleTime: "2026-01-01T00:02:00Z", lastSuccessfulTime: "2026-01-01T00:01:12Z" }), "Degraded"],

  // Knative Service: Ready rolls up ConfigurationsReady and RoutesReady.
  ["Knative Service", "reconciling", knative([cond("ConfigurationsReady", "Unknown"), cond("Ready", "Unknown", "RevisionMissing"), cond("RoutesReady", "Unknown", "RevisionMissing")]), "Initializing"],
  ["Knative Service", "serving", knative([cond("ConfigurationsReady", "True"), cond("Ready", "True"), cond("RoutesReady", "True")]), "Running"],
  ["Knative Service", "first revision failed", knative([cond("ConfigurationsReady", "False", "RevisionFailed"), cond("Ready", "False", "RevisionFailed"), cond("RoutesReady", "False", "RevisionMissing")]), "Failed"],
  ["Knative Service", "first revision failed, route not yet told", knative([cond("ConfigurationsReady", "False", "RevisionFailed"), cond("Ready", "False", "RevisionFailed"), cond("RoutesReady", "Unknown", "RevisionMissing")]), "Failed"],
  ["Knative Service", "new revision failed, old one serving", knative([cond("ConfigurationsReady", "False", "RevisionFailed"), cond("Ready", "False", "RevisionFailed"), cond("RoutesReady", "True")], { latestReadyRevisionName: "d2-lifecycle-00001", latestCreatedRevisionName: "d2-lifecycle-00002" }), "Degraded"],

  // InferenceService (Knative mode): the rolled-up conditions and the model status.
  ["InferenceService", "revision coming up", isvc(isvcCond("Unknown", "Unknown", "Unknown", "RevisionMissing")), "Initializing"],
  ["InferenceService", "serving", isvc(isvcCond("True", "True", "True")), "Running"],
  ["InferenceService", "predictor image cannot be pulled", isvc(isvcCond("False", "False", "False", "RevisionFailed"), { transitionStatus: "BlockedByFailedLoad", states: { activeModelState: "", targetModelState: "FailedToLoad" } }), "Failed"],
  ["InferenceService", "newer model failed, older one serving", isvc(isvcCond("True", "True", "True"), { transitionStatus: "BlockedByFailedLoad", states: { activeModelState: "Loaded", targetModelState: "FailedToLoad" } }), "Degraded"],
  ["InferenceService", "stopped (serving.kserve.io/stop)", isvc([cond("PredictorReady", "False", "Stopped"), cond("Ready", "False", "Stopped"), cond("Stopped", "True")]), "Suspended"],

  // LLMInferenceService: Ready rolls up WorkloadsReady and RouterReady (reasons carried up); PresetsCombined.
  ["LLMInferenceService", "Deployment progressing", llmisvc(llmWorkload("False", "Progressing")), "Initializing"],
  ["LLMInferenceService", "pods not available yet", llmisvc(llmWorkload("False", "MinimumReplicasUnavailable")), "Initializing"],
  ["LLMInferenceService", "serving", llmisvc(llmWorkload("True")), "Running"],
  ["LLMInferenceService", "stopped", llmisvc(llmWorkload("False", "Stopped"), { "serving.kserve.io/stop": "true" }), "Suspended"],
  ["LLMInferenceService", "preset not found", llmisvc([cond("PresetsCombined", "False", "ConfigNotFound"), cond("Ready", "Unknown")]), "Failed"],
  ["LLMInferenceService", "Deployment past its deadline", llmisvc(llmWorkload("False", "ProgressDeadlineExceeded")), "Failed"],
];

describe("lifecycle states the recordings do not show: Pod, Deployment, StatefulSet, Job, CronJob, Knative Service, KServe", () => {
  for (const [kind, state, obj, want] of lifecycle) {
    test(`${kind}: ${state} -> ${want}`, async () => {
      const run = await inspectStatuses(obj);
      assert.equal(run.code, 0, run.err);
      assert.deepEqual(run.statuses, [want]);
    });
  }
});
