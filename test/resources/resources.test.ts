import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  podRequirements,
  nodeClaim,
  accuratePodRequirements,
  replicaRequirements,
  podDependencies,
  resourceAdd,
  getResourceQuantity,
  classifyResource,
} from "../../src/resources/index.js";

/** A PyTorchJob worker template: GPUs given as limits only, a data-fetching init container, Kata overhead. */
const pytorchWorker = {
  metadata: { labels: { "training.kubeflow.org/replica-type": "worker" } },
  spec: {
    runtimeClassName: "kata",
    priorityClassName: "training-high",
    overhead: { cpu: "250m", memory: "120Mi" },
    initContainers: [
      {
        name: "fetch-dataset",
        image: "busybox:1.36",
        resources: { requests: { cpu: "500m", memory: "128Mi" } },
      },
    ],
    containers: [
      {
        name: "pytorch",
        image: "docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727",
        resources: { limits: { "nvidia.com/gpu": 8, cpu: "16", memory: "64Gi" } },
      },
    ],
    nodeSelector: { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB" },
    tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
  },
};

describe("podRequirements", () => {
  test("limits stand in for requests; init containers are maxed; overhead is added", () => {
    const r = podRequirements(pytorchWorker);
    assert.deepEqual(r.issues, []);
    assert.deepEqual(r.value, { cpu: "16250m", memory: "65656Mi", "nvidia.com/gpu": "8" });
  });

  test("a PodSpec is accepted directly", () => {
    assert.deepEqual(podRequirements(pytorchWorker.spec).value, { cpu: "16250m", memory: "65656Mi", "nvidia.com/gpu": "8" });
  });

  test("an init container larger than the sum of the containers wins", () => {
    const spec = {
      initContainers: [{ name: "migrate", resources: { requests: { cpu: "1", memory: "1Gi" } } }],
      containers: [
        { name: "app", resources: { requests: { cpu: "100m", memory: "256Mi" } } },
        { name: "envoy", resources: { requests: { cpu: "200m", memory: "128Mi" }, limits: { memory: "1Gi" } } },
      ],
    };
    assert.deepEqual(podRequirements({ spec }).value, { cpu: "1", memory: "1Gi" });
  });

  test("sidecars (restartPolicy Always init containers) are maxed like any init container, as Karmada does", () => {
    const spec = {
      initContainers: [{ name: "istio-proxy", restartPolicy: "Always", resources: { requests: { cpu: "100m", memory: "128Mi" } } }],
      containers: [{ name: "web", resources: { requests: { cpu: "200m", memory: "64Mi" } } }],
    };
    assert.deepEqual(podRequirements({ spec }).value, { cpu: "200m", memory: "128Mi" });
  });

  test("requests win over limits per resource; values round up to Karmada's units", () => {
    const spec = {
      containers: [
        {
          name: "a",
          resources: { requests: { cpu: "0.1m", memory: "1.5" }, limits: { cpu: "2", memory: "4Gi", "ephemeral-storage": "10Gi" } },
        },
      ],
    };
    assert.deepEqual(podRequirements({ spec }).value, { cpu: "1m", "ephemeral-storage": "10Gi", memory: "2" });
  });

  test("only resources Karmada accounts for are kept; zeros are dropped; formats follow the resource", () => {
    const spec = {
      containers: [
        {
          name: "a",
          resources: {
            requests: {
              cpu: "0",
              foo: "3",
              "example.com/fpga": "2",
              "requests.example.com/x": "1",
              "hugepages-2Mi": "1Gi",
              "attachable-volumes-aws-ebs": "1",
              "kubernetes.io/batch-cpu": "1500",
            },
          },
        },
      ],
    };
    assert.deepEqual(podRequirements({ spec }).value, {
      "attachable-volumes-aws-ebs": "1",
      "example.com/fpga": "2",
      "hugepages-2Mi": "1Gi",
      "kubernetes.io/batch-cpu": "1500",
    });
    assert.equal(classifyResource("nvidia.com/gpu"), "scalar");
    assert.equal(classifyResource("storage"), "ignored");
  });

  test("nothing requested is undefined", () => {
    assert.equal(podRequirements({ spec: { containers: [{ name: "a", image: "nginx" }] } }).value, undefined);
  });

  test("unparsable quantities are reported with their path", () => {
    const r = podRequirements({ spec: { containers: [{ name: "a", resources: { requests: { cpu: "two", memory: "1Gi" } } }] } });
    assert.deepEqual(r.value, { memory: "1Gi" });
    assert.equal(r.issues.length, 1);
    assert.equal(r.issues[0]?.path, "spec.containers[0].resources.requests.cpu");
    assert.match(r.issues[0]?.message ?? "", /^quantities must match the regular expression/);
  });
});

describe("nodeClaim", () => {
  test("selector, tolerations and required affinity", () => {
    const spec = {
      nodeSelector: { "kubernetes.io/os": "linux" },
      tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }, { operator: "Exists", value: "" }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a"] }] }],
          },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: {} }],
        },
      },
      containers: [],
    };
    assert.deepEqual(nodeClaim(spec), {
      hardNodeAffinity: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a"] }] }],
      },
      nodeSelector: { "kubernetes.io/os": "linux" },
      tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }, { operator: "Exists" }],
    });
  });
  test("absent when nothing constrains nodes; preferred affinity alone does not count", () => {
    assert.equal(nodeClaim({ spec: { containers: [], tolerations: [] } }), undefined);
    assert.equal(
      nodeClaim({ spec: { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } } } }),
      undefined,
    );
  });
  test("a present but empty nodeSelector still yields an (empty) claim, as Go's non-nil map does", () => {
    assert.deepEqual(nodeClaim({ spec: { nodeSelector: {} } }), {});
  });
});

describe("accuratePodRequirements and replicaRequirements", () => {
  test("the Lua kube library's result", () => {
    assert.deepEqual(accuratePodRequirements(pytorchWorker).value, {
      nodeClaim: {
        nodeSelector: { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB" },
        tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
      },
      resourceRequest: { cpu: "16250m", memory: "65656Mi", "nvidia.com/gpu": "8" },
    });
    assert.equal(accuratePodRequirements({ spec: { containers: [{ name: "a" }] } }).value, undefined);
  });
  test("ReplicaRequirements with namespace and priorityClassName", () => {
    assert.deepEqual(replicaRequirements(pytorchWorker, "ml-team").value, {
      nodeClaim: {
        nodeSelector: { "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB" },
        tolerations: [{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }],
      },
      resourceRequest: { cpu: "16250m", memory: "65656Mi", "nvidia.com/gpu": "8" },
      priorityClassName: "training-high",
      namespace: "ml-team",
    });
    const gateOff = replicaRequirements(pytorchWorker, "ml-team", { resourceQuotaEstimate: false }).value;
    assert.equal(gateOff?.namespace, undefined);
    assert.equal(gateOff?.priorityClassName, undefined);
  });
});

describe("podDependencies", () => {
  const template = {
    metadata: { labels: { app: "shop" } },
    spec: {
      serviceAccountName: "shop-sa",
      imagePullSecrets: [{ name: "registry-cred" }, { name: "" }],
      initContainers: [{ name: "init", envFrom: [{ configMapRef: { name: "init-env" } }] }],
      containers: [
        {
          name: "web",
          env: [
            { name: "DB_PASSWORD", valueFrom: { secretKeyRef: { name: "db", key: "password" } } },
            { name: "LOG_LEVEL", valueFrom: { configMapKeyRef: { name: "app-config", key: "level" } } },
            { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
          ],
          envFrom: [{ secretRef: { name: "api-keys" } }, { configMapRef: { name: "app-config" } }],
        },
      ],
      ephemeralContainers: [{ name: "debug", envFrom: [{ secretRef: { name: "debug-token" } }] }],
      volumes: [
        { name: "cfg", configMap: { name: "nginx-conf" } },
        { name: "tls", secret: { secretName: "web-tls" } },
        {
          name: "bundle",
          projected: {
            sources: [
              { configMap: { name: "ca-bundle" } },
              { secret: { name: "client-cert" } },
              { serviceAccountToken: { path: "token" } },
            ],
          },
        },
        { name: "data", persistentVolumeClaim: { claimName: "shop-data" } },
        { name: "azure", azureFile: { secretName: "azure-storage", shareName: "share" } },
        { name: "ceph", cephfs: { monitors: ["10.0.0.1:6789"], secretRef: { name: "ceph-secret" } } },
        { name: "cinder", cinder: { volumeID: "vol", secretRef: { name: "cinder-secret" } } },
        { name: "flex", flexVolume: { driver: "example/lvm", secretRef: { name: "flex-secret" } } },
        { name: "rbd", rbd: { monitors: ["m"], image: "i", secretRef: { name: "rbd-secret" } } },
        { name: "scaleio", scaleIO: { gateway: "g", system: "s", secretRef: { name: "scaleio-secret" } } },
        { name: "iscsi", iscsi: { targetPortal: "t", iqn: "q", lun: 0, secretRef: { name: "iscsi-secret" } } },
        { name: "storageos", storageos: { volumeName: "v", secretRef: { name: "storageos-secret" } } },
        { name: "csi", csi: { driver: "secrets-store.csi.k8s.io", nodePublishSecretRef: { name: "csi-secret" } } },
        { name: "cache", emptyDir: {} },
      ],
    },
  };
  test("every kind of reference, deduplicated, grouped by kind, names sorted", () => {
    const deps = podDependencies(template, "shop");
    const names = (kind: string) => deps?.filter((d) => d.kind === kind).map((d) => d.name);
    assert.deepEqual(names("ConfigMap"), ["app-config", "ca-bundle", "init-env", "nginx-conf"]);
    assert.deepEqual(names("Secret"), [
      "api-keys",
      "azure-storage",
      "ceph-secret",
      "cinder-secret",
      "client-cert",
      "csi-secret",
      "db",
      "debug-token",
      "flex-secret",
      "iscsi-secret",
      "rbd-secret",
      "registry-cred",
      "scaleio-secret",
      "storageos-secret",
      "web-tls",
    ]);
    assert.deepEqual(names("ServiceAccount"), ["shop-sa"]);
    assert.deepEqual(names("PersistentVolumeClaim"), ["shop-data"]);
    assert.deepEqual(deps?.[0], { apiVersion: "v1", kind: "ConfigMap", namespace: "shop", name: "app-config" });
    assert.deepEqual(
      [...new Set(deps?.map((d) => d.kind))],
      ["ConfigMap", "Secret", "ServiceAccount", "PersistentVolumeClaim"],
    );
  });
  test("the default service account and an empty pod are not dependencies", () => {
    assert.equal(podDependencies({ spec: { serviceAccountName: "default", containers: [{ name: "a" }] } }, "ns"), undefined);
  });
  test("a projected volume hides a configMap on the same (invalid) volume, as Kubernetes' visitor does", () => {
    const deps = podDependencies(
      { spec: { volumes: [{ name: "x", projected: { sources: [] }, configMap: { name: "hidden" } }] } },
      "ns",
    );
    assert.equal(deps, undefined);
  });
  test("an empty namespace is left out", () => {
    assert.deepEqual(podDependencies({ spec: { serviceAccountName: "builder" } }, ""), [
      { apiVersion: "v1", kind: "ServiceAccount", name: "builder" },
    ]);
  });
});

describe("kube library quantity functions", () => {
  test("resourceAdd", () => {
    assert.deepEqual(resourceAdd("1500m", "500m"), { ok: true, value: "2" });
    assert.deepEqual(resourceAdd("1Gi", "512Mi"), { ok: true, value: "1536Mi" });
    assert.deepEqual(resourceAdd("100m", undefined, "0.2"), { ok: true, value: "300m" });
    assert.deepEqual(resourceAdd(), { ok: true, value: "0" });
    assert.deepEqual(resourceAdd("+1"), { ok: true, value: "1" });
    const bad = resourceAdd("1", "lots");
    assert.equal(bad.ok, false);
    if (!bad.ok) {
      assert.equal(
        bad.error,
        "cannot parse 'lots': quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      );
    }
  });
  test("getResourceQuantity", () => {
    assert.deepEqual(getResourceQuantity("100m"), { ok: true, value: 0.1 });
    assert.deepEqual(getResourceQuantity("2Gi"), { ok: true, value: 2147483648 });
    assert.deepEqual(getResourceQuantity(undefined), { ok: true, value: 0 });
    assert.equal(getResourceQuantity("-1").ok, false);
  });
});
