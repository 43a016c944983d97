/** Which root Jobs the Job controller gangs itself (its WorkloadWithJob integration), from what it wrote. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { KubernetesObject } from "../../src/controller/kubernetes-object.js";
import { jobGangOwner } from "../../src/controller/job-controller.js";

type Obj = KubernetesObject & Record<string, any>;
const job = (extra: Record<string, any> = {}): Obj => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name: "train", namespace: "ns", uid: "u-job", ...(extra.metadata ?? {}) }, spec: { template: { spec: { containers: [], ...(extra.podSpec ?? {}) } } } });
const by = (manager: string, kind = "Workload"): Obj => ({ apiVersion: "scheduling.k8s.io/v1beta1", kind, metadata: { name: "train-x", managedFields: [{ manager, operation: manager === "karta" ? "Apply" : "Update" }] } });
const pod = (owners: { apiVersion: string; kind: string; name: string; uid: string }[] = []): Obj => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "train-0", ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "train", uid: "u-job", controller: true }, ...owners] } });
const ours = (o: KubernetesObject) => (o.metadata?.managedFields ?? []).some((m) => m.manager === "karta");

test("a root Job: wait for its first pod; then Karta's, unless the Job controller wrote a group or owns the pods through its PodGroup", () => {
  assert.equal(jobGangOwner(job(), [], [], ours), "wait");
  assert.equal(jobGangOwner(job(), [], [pod()], ours), "karta");
  assert.equal(jobGangOwner(job(), [by("karta")], [], ours), "karta", "groups Karta made stay Karta's when the pods are gone");
  assert.equal(jobGangOwner(job(), [by("kube-controller-manager")], [], ours), "job-controller");
  assert.equal(jobGangOwner(job(), [by("karta"), by("kube-controller-manager", "PodGroup")], [pod()], ours), "job-controller");
  assert.equal(jobGangOwner(job(), [], [pod([{ apiVersion: "scheduling.k8s.io/v1beta1", kind: "PodGroup", name: "train-x-pg", uid: "u-pg" }])], ours), "job-controller");
});

test("Jobs the Job controller does not gang are Karta's: owned by another controller, or with a group in the template; other kinds too", () => {
  const owned = job({ metadata: { ownerReferences: [{ apiVersion: "example.com/v1", kind: "Runner", name: "r", uid: "u-r", controller: true }] } });
  assert.equal(jobGangOwner(owned, [], [], ours), "karta");
  const delegated = job({ metadata: { ownerReferences: owned.metadata!.ownerReferences, annotations: { "scheduling.k8s.io/group-template-name": "workers" } } });
  assert.equal(jobGangOwner(delegated, [], [], ours), "job-controller");
  assert.equal(jobGangOwner(job({ podSpec: { schedulingGroup: { podGroupName: "mine" } } }), [], [], ours), "karta");
  assert.equal(jobGangOwner({ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", metadata: { name: "p" } }, [], [], ours), "karta");
});
