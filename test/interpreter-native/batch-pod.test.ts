import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { nativeJob as job, nativeCronJob as cronjob, nativePod as pod } from "../../src/interpreter/native/index.js";
import type { AggregatedStatusItem, JsonObject, KubeObject, Outcome } from "../../src/interpreter/types.js";

function value<T>(o: Outcome<T>): T {
  if (!o.ok) assert.fail(`unexpected error: ${o.error.message}`);
  return o.value;
}

const pi = (): KubeObject => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "pi", namespace: "batch", generation: 1 },
  spec: {
    parallelism: 4,
    completions: 3,
    backoffLimit: 4,
    template: {
      spec: {
        restartPolicy: "Never",
        containers: [{ name: "pi", image: "perl:5.34", command: ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"], resources: { limits: { cpu: "1" } } }],
      },
    },
  },
  status: { active: 2, startTime: "2026-11-29T10:00:00Z" },
});

const complete = (start: string, end: string, criteria = true): JsonObject => ({
  succeeded: 3,
  startTime: start,
  completionTime: end,
  conditions: [
    ...(criteria ? [{ type: "SuccessCriteriaMet", status: "True", lastProbeTime: end, lastTransitionTime: end, reason: "CompletionsReached" }] : []),
    { type: "Complete", status: "True", lastProbeTime: end, lastTransitionTime: end },
  ],
});

describe("Job", () => {
  test("InterpretReplica: parallelism capped by completions", () => {
    assert.deepEqual(value(job.getReplicas(pi())), { replicas: 3, replicaRequirements: { resourceRequest: { cpu: "1" } } });
    const noCompletions = pi() as any;
    delete noCompletions.spec.completions;
    assert.equal(value(job.getReplicas(noCompletions)).replicas, 4);
    const none = pi() as any;
    delete none.spec.parallelism;
    delete none.spec.completions;
    assert.equal(value(job.getReplicas(none)).replicas, 0);
  });

  test("ReviseReplica sets parallelism", () => {
    assert.equal((value(job.reviseReplica(pi(), 2)) as any).spec.parallelism, 2);
  });

  test("Retain takes the member's generated selector and template labels", () => {
    const observed = pi() as any;
    observed.spec.selector = { matchLabels: { "batch.kubernetes.io/controller-uid": "8b3c" } };
    observed.spec.template.metadata = { labels: { "batch.kubernetes.io/controller-uid": "8b3c", "batch.kubernetes.io/job-name": "pi" } };
    const out = value(job.retain(pi(), observed)) as any;
    assert.deepEqual(out.spec.selector.matchLabels, { "batch.kubernetes.io/controller-uid": "8b3c" });
    assert.deepEqual(out.spec.template.metadata.labels, { "batch.kubernetes.io/controller-uid": "8b3c", "batch.kubernetes.io/job-name": "pi" });
    assert.equal((pi() as any).spec.selector, undefined);
  });

  const now = new Date("2026-11-30T01:00:00.123Z");

  test("AggregateStatus: complete in every cluster", () => {
    const items: AggregatedStatusItem[] = [
      { clusterName: "member1", status: complete("2026-11-29T10:00:05Z", "2026-11-29T10:03:00Z") },
      { clusterName: "member2", status: complete("2026-11-29T10:00:01Z", "2026-11-29T10:04:30Z") },
    ];
    const desired = pi() as any;
    delete desired.status.startTime;
    const out = value(job.aggregateStatus(desired, items, { now })) as any;
    assert.deepEqual(out.status, {
      conditions: [
        { type: "Complete", status: "True", lastProbeTime: "2026-11-30T01:00:00Z", lastTransitionTime: "2026-11-30T01:00:00Z", reason: "Completed", message: "Job completed" },
        {
          type: "SuccessCriteriaMet",
          status: "True",
          lastProbeTime: "2026-11-30T01:00:00Z",
          lastTransitionTime: "2026-11-30T01:00:00Z",
          reason: "CompletionsReached",
          message: "All member clusters have met success criteria",
        },
      ],
      startTime: "2026-11-29T10:00:01Z",
      completionTime: "2026-11-29T10:04:30Z",
      succeeded: 6,
    });
  });

  test("AggregateStatus: failed in one cluster, still running in another; the template's startTime is kept", () => {
    const items: AggregatedStatusItem[] = [
      {
        clusterName: "member1",
        status: { failed: 5, startTime: "2026-11-29T10:00:05Z", conditions: [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }] },
      },
      { clusterName: "member2", status: { active: 3, startTime: "2026-11-29T10:00:02Z" } },
    ];
    const out = value(job.aggregateStatus(pi(), items, { now })) as any;
    assert.deepEqual(out.status, {
      conditions: [
        {
          type: "Failed",
          status: "True",
          lastProbeTime: "2026-11-30T01:00:00Z",
          lastTransitionTime: "2026-11-30T01:00:00Z",
          reason: "JobFailed",
          message: "Job executed failed in member clusters member1",
        },
      ],
      startTime: "2026-11-29T10:00:00Z",
      active: 3,
      failed: 5,
    });
  });

  test("AggregateStatus leaves a finished Job alone", () => {
    const done = pi() as any;
    done.status = complete("2026-11-29T10:00:00Z", "2026-11-29T10:05:00Z");
    assert.deepEqual(value(job.aggregateStatus(done, [{ clusterName: "m", status: { active: 1 } }], { now })), done);
  });

  test("InterpretStatus", () => {
    const running = pi() as any;
    running.status = { active: 2, ready: 2, startTime: "2026-11-29T10:00:00+02:00", uncountedTerminatedPods: {} };
    assert.deepEqual(value(job.reflectStatus(running)), { startTime: "2026-11-29T08:00:00Z", active: 2 });
  });
});

describe("CronJob", () => {
  test("AggregateStatus concatenates active jobs and keeps the latest times", () => {
    const cj: KubeObject = {
      apiVersion: "batch/v1",
      kind: "CronJob",
      metadata: { name: "backup", namespace: "ops" },
      spec: { schedule: "0 * * * *", jobTemplate: { spec: { template: { spec: { containers: [{ name: "b", image: "restic", envFrom: [{ secretRef: { name: "s3-creds" } }] }] } } } } },
    };
    const items: AggregatedStatusItem[] = [
      { clusterName: "a", status: { active: [{ kind: "Job", namespace: "ops", name: "backup-29000", apiVersion: "batch/v1" }], lastScheduleTime: "2026-11-30T00:00:00Z", lastSuccessfulTime: "2026-11-29T23:01:00Z" } },
      { clusterName: "b", status: { lastScheduleTime: "2026-11-29T23:00:00Z", lastSuccessfulTime: "2026-11-30T00:02:00Z" } },
    ];
    assert.deepEqual((value(cronjob.aggregateStatus(cj, items)) as any).status, {
      active: [{ kind: "Job", namespace: "ops", name: "backup-29000", apiVersion: "batch/v1" }],
      lastScheduleTime: "2026-11-30T00:00:00Z",
      lastSuccessfulTime: "2026-11-30T00:02:00Z",
    });
    assert.deepEqual(value(cronjob.getDependencies(cj)), [{ apiVersion: "v1", kind: "Secret", namespace: "ops", name: "s3-creds" }]);
  });
});

describe("Pod", () => {
  const p = (): KubeObject => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "trainer-0", namespace: "ml" },
    spec: {
      containers: [{ name: "trainer", image: "pytorch:2.4", resources: { limits: { "nvidia.com/gpu": "2" } }, volumeMounts: [{ name: "data", mountPath: "/data" }] }],
      volumes: [{ name: "data", persistentVolumeClaim: { claimName: "imagenet" } }],
    },
  });
  test("InterpretReplica: one replica with the pod's requirements", () => {
    assert.deepEqual(value(pod.getReplicas(p())), { replicas: 1, replicaRequirements: { resourceRequest: { "nvidia.com/gpu": "2" } } });
  });
  test("Retain: node, service account, volumes and mounts come from the member", () => {
    const observed = p() as any;
    observed.spec.nodeName = "gpu-node-7";
    observed.spec.serviceAccountName = "default";
    observed.spec.volumes.push({ name: "kube-api-access-x2k", projected: { sources: [{ serviceAccountToken: { path: "token" } }] } });
    observed.spec.containers[0].volumeMounts.push({ name: "kube-api-access-x2k", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", readOnly: true });
    const out = value(pod.retain(p(), observed)) as any;
    assert.equal(out.spec.nodeName, "gpu-node-7");
    assert.equal(out.spec.serviceAccountName, "default");
    assert.equal(out.spec.volumes.length, 2);
    assert.equal(out.spec.containers[0].volumeMounts.length, 2);
  });
  test("AggregateStatus: phase precedence and container states", () => {
    const items: AggregatedStatusItem[] = [
      { clusterName: "a", status: { phase: "Running", containerStatuses: [{ name: "trainer", ready: true, restartCount: 1, image: "pytorch:2.4", imageID: "x", state: { running: { startedAt: "2026-11-29T10:00:00Z" } } }] } },
      { clusterName: "b", status: { phase: "Succeeded" } },
    ];
    assert.deepEqual((value(pod.aggregateStatus(p(), items)) as any).status, {
      phase: "Running",
      containerStatuses: [{ name: "", state: { running: { startedAt: "2026-11-29T10:00:00Z" } }, lastState: {}, ready: true, restartCount: 0, image: "", imageID: "" }],
    });
    assert.equal((value(pod.aggregateStatus(p(), [...items, { clusterName: "c" }])) as any).status.phase, "Pending");
    assert.equal((value(pod.aggregateStatus(p(), [...items, { clusterName: "d", status: { phase: "Failed" } }])) as any).status.phase, "Failed");
    assert.deepEqual(value(pod.aggregateStatus(p(), [])), p());
  });
  test("AggregateStatus writes container states in their typed form", () => {
    const items: AggregatedStatusItem[] = [
      {
        clusterName: "a",
        status: {
          phase: "Failed",
          initContainerStatuses: [{ name: "init", ready: false }],
          containerStatuses: [
            {
              name: "trainer",
              ready: false,
              lastState: { terminated: { exitCode: 1 } },
              state: { terminated: { exitCode: 137, reason: "OOMKilled", message: "", finishedAt: "2026-11-29T10:05:00.250+01:00", extra: 1 }, waiting: { reason: "" } },
            },
          ],
        },
      },
    ];
    assert.deepEqual((value(pod.aggregateStatus(p(), items)) as any).status, {
      phase: "Failed",
      initContainerStatuses: [{ name: "", state: {}, lastState: {}, ready: false, restartCount: 0, image: "", imageID: "" }],
      containerStatuses: [
        {
          name: "",
          state: { waiting: {}, terminated: { exitCode: 137, reason: "OOMKilled", startedAt: null, finishedAt: "2026-11-29T09:05:00Z" } },
          lastState: {},
          ready: false,
          restartCount: 0,
          image: "",
          imageID: "",
        },
      ],
    });
  });
  test("InterpretHealth", () => {
    const running = p() as any;
    running.status = { phase: "Running", conditions: [{ type: "Ready", status: "True" }] };
    assert.equal(value(pod.interpretHealth(running)), true);
    running.status.conditions[0].status = "False";
    assert.equal(value(pod.interpretHealth(running)), false);
    running.status = { phase: "Succeeded" };
    assert.equal(value(pod.interpretHealth(running)), true);
  });
  test("InterpretDependency", () => {
    assert.deepEqual(value(pod.getDependencies(p())), [{ apiVersion: "v1", kind: "PersistentVolumeClaim", namespace: "ml", name: "imagenet" }]);
  });
});
