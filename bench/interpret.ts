/**
 * Interpretation throughput: pods classified and grouped per second for a LeaderWorkerSet with 1,000
 * groups of 8 pods and a PyTorchJob with 8,000 workers, against `JSON.parse` of the same pods measured in
 * the same run, with the bundled Kartas of both kinds. Target: interpreting costs at most half of parsing
 * (ratio ≥ 2).
 */
import { compileInterpreter, type CompiledInterpreter } from "../src/interpret/index.js";
import { bundledDefinition, type BenchResult } from "./harness.js";

/** Seconds per call of `fn`, the best of `runs` timed runs after a warm-up. */
function bestSeconds(fn: () => unknown, runs = 3): number {
  fn();
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    fn();
    best = Math.min(best, (performance.now() - start) / 1000);
  }
  return best;
}

const template = (name: string, gpus: number) => ({
  spec: {
    containers: [
      {
        name,
        image: "nvcr.io/nvidia/pytorch:24.05-py3",
        resources: { requests: { cpu: "16", memory: "200Gi" }, limits: { "nvidia.com/gpu": String(gpus) } },
      },
    ],
  },
});

/** A pod as `kubectl get pods -o json` prints it (without managedFields), about 2.5 KB. */
function pod(name: string, namespace: string, labels: Record<string, string>, annotations: Record<string, string>, owner: { apiVersion: string; kind: string; name: string; uid: string }, i: number): object {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace,
      uid: `7c0a${String(i).padStart(4, "0")}-1b2c-4d3e-8f4a-5b6c7d8e9f${String(i % 100).padStart(2, "0")}`,
      resourceVersion: String(1000000 + i),
      creationTimestamp: "2026-11-29T10:00:00Z",
      labels,
      annotations,
      ownerReferences: [{ ...owner, controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [
        {
          name: "main",
          image: "nvcr.io/nvidia/pytorch:24.05-py3",
          command: ["torchrun", "--nnodes=8", "--nproc-per-node=8", "train.py"],
          env: [
            { name: "MASTER_ADDR", value: "job-master-0" },
            { name: "MASTER_PORT", value: "23456" },
            { name: "NCCL_DEBUG", value: "INFO" },
            { name: "POD_NAME", valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.name" } } },
          ],
          ports: [{ containerPort: 23456, name: "pytorchjob-port", protocol: "TCP" }],
          resources: { requests: { cpu: "16", memory: "200Gi", "nvidia.com/gpu": "8" }, limits: { "nvidia.com/gpu": "8" } },
          volumeMounts: [
            { mountPath: "/dev/shm", name: "dshm" },
            { mountPath: "/var/run/secrets/kubernetes.io/serviceaccount", name: "kube-api-access-x7k2p", readOnly: true },
          ],
          terminationMessagePath: "/dev/termination-log",
          terminationMessagePolicy: "File",
          imagePullPolicy: "IfNotPresent",
        },
      ],
      dnsPolicy: "ClusterFirst",
      enableServiceLinks: true,
      nodeName: `gpu-node-${i % 512}`,
      preemptionPolicy: "PreemptLowerPriority",
      priority: 0,
      restartPolicy: "OnFailure",
      schedulerName: "kai-scheduler",
      securityContext: {},
      serviceAccount: "default",
      serviceAccountName: "default",
      terminationGracePeriodSeconds: 30,
      tolerations: [
        { effect: "NoExecute", key: "node.kubernetes.io/not-ready", operator: "Exists", tolerationSeconds: 300 },
        { effect: "NoExecute", key: "node.kubernetes.io/unreachable", operator: "Exists", tolerationSeconds: 300 },
        { effect: "NoSchedule", key: "nvidia.com/gpu", operator: "Exists" },
      ],
      volumes: [
        { emptyDir: { medium: "Memory", sizeLimit: "64Gi" }, name: "dshm" },
        {
          name: "kube-api-access-x7k2p",
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: "token" } },
              { configMap: { items: [{ key: "ca.crt", path: "ca.crt" }], name: "kube-root-ca.crt" } },
            ],
          },
        },
      ],
    },
    status: {
      phase: "Running",
      hostIP: "10.0.12.34",
      podIP: `10.244.${i % 250}.${i % 200}`,
      qosClass: "Burstable",
      startTime: "2026-11-29T10:00:05Z",
      conditions: [
        { type: "Initialized", status: "True", lastProbeTime: null, lastTransitionTime: "2026-11-29T10:00:05Z" },
        { type: "Ready", status: "True", lastProbeTime: null, lastTransitionTime: "2026-11-29T10:01:10Z" },
        { type: "ContainersReady", status: "True", lastProbeTime: null, lastTransitionTime: "2026-11-29T10:01:10Z" },
        { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: "2026-11-29T10:00:05Z" },
      ],
    },
  };
}

function lwsWorkload(groups: number, size: number): { object: object; pods: object[] } {
  const object = {
    apiVersion: "leaderworkerset.x-k8s.io/v1",
    kind: "LeaderWorkerSet",
    metadata: { name: "vllm", namespace: "serving", uid: "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e" },
    spec: { replicas: groups, leaderWorkerTemplate: { size, leaderTemplate: template("leader", 8), workerTemplate: template("worker", 8) } },
    status: { conditions: [{ type: "Available", status: "True", reason: "AllGroupsReady" }] },
  };
  const pods: object[] = [];
  for (let g = 0; g < groups; g++) {
    for (let w = 0; w < size; w++) {
      const leader = `vllm-${g}`;
      const labels = {
        "leaderworkerset.sigs.k8s.io/name": "vllm",
        "leaderworkerset.sigs.k8s.io/group-index": String(g),
        "leaderworkerset.sigs.k8s.io/worker-index": String(w),
        "leaderworkerset.sigs.k8s.io/group-key": `f3a9c1${g}`,
        "leaderworkerset.sigs.k8s.io/template-revision-hash": "5d8f6c9b7",
      };
      const annotations: Record<string, string> = { "leaderworkerset.sigs.k8s.io/size": String(size) };
      if (w > 0) annotations["leaderworkerset.sigs.k8s.io/leader-name"] = leader;
      pods.push(pod(w === 0 ? leader : `${leader}-${w}`, "serving", labels, annotations, { apiVersion: "apps/v1", kind: "StatefulSet", name: leader, uid: `9e8d7c6b-0000-4000-8000-${String(g).padStart(12, "0")}` }, pods.length));
    }
  }
  return { object, pods };
}

function pytorchWorkload(workers: number): { object: object; pods: object[] } {
  const object = {
    apiVersion: "kubeflow.org/v1",
    kind: "PyTorchJob",
    metadata: { name: "llm-pretrain", namespace: "research", uid: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" },
    spec: { pytorchReplicaSpecs: { Master: { replicas: 1, template: template("pytorch", 8) }, Worker: { replicas: workers, template: template("pytorch", 8) } } },
    status: { conditions: [{ type: "Running", status: "True" }] },
  };
  const pods: object[] = [];
  const owner = { apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: "llm-pretrain", uid: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" };
  const labels = (role: string, i: number) => ({
    "training.kubeflow.org/job-name": "llm-pretrain",
    "training.kubeflow.org/operator-name": "pytorchjob-controller",
    "training.kubeflow.org/replica-type": role,
    "training.kubeflow.org/replica-index": String(i),
  });
  pods.push(pod("llm-pretrain-master-0", "research", labels("master", 0), {}, owner, 0));
  for (let i = 0; i < workers; i++) pods.push(pod(`llm-pretrain-worker-${i}`, "research", labels("worker", i), {}, owner, i + 1));
  return { object, pods };
}

function measure(name: string, interpreter: CompiledInterpreter, workload: { object: object; pods: object[] }, check: (groups: number, minMember: number) => boolean): BenchResult[] {
  const text = JSON.stringify(workload.pods);
  const n = workload.pods.length;
  const pods = JSON.parse(text) as unknown[];
  let groups = 0;
  let minMember = 0;
  const interpretSeconds = bestSeconds(() => {
    const r = interpreter.interpret(workload.object, { pods });
    groups = r.groups.length;
    minMember = r.groups[0]?.minMember ?? 0;
    return r;
  });
  const parseSeconds = bestSeconds(() => JSON.parse(text));
  const interpretRate = n / interpretSeconds;
  const parseRate = n / parseSeconds;
  const ratio = interpretRate / parseRate;
  const ok = check(groups, minMember);
  const kb = (text.length / n / 1024).toFixed(1);
  return [
    { name: `JSON.parse: ${name} (${n} pods, ${kb} KB each)`, opsPerSec: parseRate, note: "pods per second" },
    {
      name: `interpret: ${name}: pods classified and grouped`,
      opsPerSec: interpretRate,
      baseline: `JSON.parse: ${name}`,
      ratio,
      note: `${groups} groups; target ratio ≥ 2 (interpreting at most half the cost of parsing): ${ratio >= 2 ? "met" : "NOT met"}${ok ? "" : "; WRONG RESULT"}`,
    },
  ];
}

/** Runs both workloads; each result names its baseline (JSON.parse of the same pods, same run). */
export async function benchInterpret(): Promise<BenchResult[]> {
  const lws = measure("LeaderWorkerSet 1,000 groups × 8 pods", compileInterpreter(bundledDefinition("leaderworkerset.x-k8s.io/v1/LeaderWorkerSet.yaml")), lwsWorkload(1000, 8), (groups, min) => groups === 1000 && min === 8);
  const pytorch = measure("PyTorchJob 1 master + 8,000 workers", compileInterpreter(bundledDefinition("kubeflow.org/v1/PyTorchJob.yaml")), pytorchWorkload(8000), (groups, min) => groups === 1 && min === 8001);
  return [...lws, ...pytorch];
}
