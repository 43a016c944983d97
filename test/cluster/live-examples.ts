/**
 * A bundled example (examples/<name>.yaml and its pods) created in the test cluster as its operator and
 * the kubelet would leave it: the workload with its status, the objects between it and its pods (a
 * JobSet's Jobs), and the pods owned by them, with the example's pod status (phase, conditions) written
 * through the status subresource. No controller runs, so everything stays as written.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { keepPlainJson } from "../support/kube.js";
import { repoRoot } from "../support/conformance.js";
import { attempt, eventually, type TestCluster } from "../support/cluster.js";

type Obj = KubernetesObject & Record<string, any>;

/** The CRDs of the example kinds the tests create (trimmed copies of the operators' CRDs). */
const CRDS: Record<string, string> = {
  "jobset.x-k8s.io/JobSet": "jobset.x-k8s.io_jobsets.yaml",
  "kubeflow.org/PyTorchJob": "kubeflow.org_pytorchjobs.yaml",
};

/** An object as a client creates it: no server-set metadata, no status, in `namespace`, owned by `owner`. */
export function asCreated(o: Record<string, any>, namespace: string, owner?: KubernetesObject): Obj {
  const copy = structuredClone(o);
  // Finalizers too: the job controller's and kubelet's would keep a deleted object here, where none runs.
  for (const k of ["uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink", "finalizers"]) delete copy.metadata[k];
  delete copy.status;
  copy.metadata.namespace = namespace;
  if (owner) copy.metadata.ownerReferences = [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata!.name, uid: owner.metadata!.uid, controller: true, blockOwnerDeletion: true }];
  else delete copy.metadata.ownerReferences;
  return copy;
}

/** Creates the CRD of a kind (or finds it) and waits until the kind is served. */
export async function ensureCrd(c: TestCluster, group: string, kind: string, options: { group?: string } = {}): Promise<void> {
  keepPlainJson([{ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition" }]);
  const crd = parse(readFileSync(path.join(repoRoot, "test", "fixtures", "definition", "crds", CRDS[`${group}/${kind}`]!), "utf8")) as Obj;
  if (options.group) {
    crd.spec.group = options.group;
    crd.metadata!.name = `${crd.spec.names.plural}.${options.group}`;
  }
  const r = await attempt(() => c.objects.create(crd));
  assert.ok(r.ok || r.reason === "AlreadyExists", r.ok ? "" : r.message);
  await eventually(async () => {
    const got = (await c.objects.read({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: crd.metadata!.name! } })) as Obj;
    return got.status?.conditions?.some((x: { type: string; status: string }) => x.type === "Established" && x.status === "True") ? true : undefined;
  }, 30_000, `CRD ${crd.metadata!.name} Established`);
}

/** Creates an object, retrying while its kind is not served yet (a CRD created a moment ago). */
async function create(c: TestCluster, o: Obj): Promise<Obj> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await attempt(() => c.objects.create(o));
    if (r.ok) return JSON.parse(JSON.stringify(r.object)) as Obj;
    if (r.code !== 404 || Date.now() > deadline) assert.fail(`creating ${o.kind} ${o.metadata?.name}: ${r.message}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** Writes the status subresource of an object (the status the example shows). */
async function writeStatus(c: TestCluster, created: Obj, status: unknown): Promise<Obj> {
  if (status === undefined) return created;
  const plural = `${String(created.kind).toLowerCase()}s`;
  const [group, version] = String(created.apiVersion).includes("/") ? String(created.apiVersion).split("/") : ["", created.apiVersion];
  const body = { ...created, status };
  if (group === "") return JSON.parse(JSON.stringify(await c.core.replaceNamespacedPodStatus({ name: created.metadata!.name!, namespace: created.metadata!.namespace!, body: body as never }))) as Obj;
  const { CustomObjectsApi } = await import("@kubernetes/client-node");
  const custom = c.kc.makeApiClient(CustomObjectsApi);
  return (await custom.replaceNamespacedCustomObjectStatus({ group: group!, version: version!, namespace: created.metadata!.namespace!, plural, name: created.metadata!.name!, body })) as Obj;
}

/** A minimal Job owned by `owner` (the example's pods name their Job; no controller runs it). */
function job(name: string, namespace: string, owner: Obj): Obj {
  return asCreated({ apiVersion: "batch/v1", kind: "Job", metadata: { name }, spec: { template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "example.invalid/c" }] } } } }, namespace, owner);
}

/**
 * Creates examples/<name>.yaml and examples/<name>-pods.yaml in `namespace` (the workload's apiVersion's
 * group replaced by `group` when given): the workload and its status, the Jobs its pods name, the pods and
 * their status. Returns the workload and pods as the server has them.
 */
export async function createExample(c: TestCluster, name: string, namespace: string, options: { group?: string } = {}): Promise<{ root: Obj; pods: Obj[] }> {
  const example = parse(readFileSync(path.join(repoRoot, "examples", `${name}.yaml`), "utf8")) as Obj;
  const [group, version] = String(example.apiVersion).split("/") as [string, string];
  await ensureCrd(c, group, example.kind!, options);
  const workload = asCreated(example, namespace);
  if (options.group) workload.apiVersion = `${options.group}/${version}`;
  const root = await writeStatus(c, await create(c, workload), example.status);
  const list = parse(readFileSync(path.join(repoRoot, "examples", `${name}-pods.yaml`), "utf8")) as { items: Obj[] };
  const owners = new Map<string, Obj>();
  const pods: Obj[] = [];
  for (const p of list.items) {
    const ref = (p.metadata?.ownerReferences ?? []).find((r: { controller?: boolean }) => r.controller) as { kind: string; name: string } | undefined;
    let owner: Obj = root;
    if (ref && ref.kind === "Job") {
      if (!owners.has(ref.name)) owners.set(ref.name, await create(c, job(ref.name, namespace, root)));
      owner = owners.get(ref.name)!;
    }
    // No PriorityClass: creating one (cluster-wide) would change what other test files' pods resolve to.
    const pod = asCreated(p, namespace, owner);
    delete pod.spec.priorityClassName;
    delete pod.spec.priority;
    const created = await create(c, pod);
    pods.push(await writeStatus(c, created, p.status));
  }
  return { root, pods };
}

/**
 * Deletes what {@link createExample} made in `namespace` (the workload, its Jobs and pods, by the
 * example's names) and waits until the workload is gone: a run starts clean after one that was killed.
 */
export async function deleteExample(c: TestCluster, name: string, namespace: string, options: { group?: string } = {}): Promise<void> {
  const example = parse(readFileSync(path.join(repoRoot, "examples", `${name}.yaml`), "utf8")) as Obj;
  const version = String(example.apiVersion).split("/")[1];
  const apiVersion = options.group ? `${options.group}/${version}` : example.apiVersion;
  const list = parse(readFileSync(path.join(repoRoot, "examples", `${name}-pods.yaml`), "utf8")) as { items: Obj[] };
  const jobs = new Set(list.items.flatMap((p) => (p.metadata?.ownerReferences ?? []).filter((r: { kind: string }) => r.kind === "Job").map((r: { name: string }) => r.name)));
  const del = (o: KubernetesObject) => attempt(() => c.objects.delete({ ...o, metadata: { ...o.metadata, namespace } }, undefined, undefined, 0, undefined, "Background"));
  for (const p of list.items) {
    // A pod an earlier version of this helper left with finalizers.
    await attempt(() => c.core.patchNamespacedPod({ name: p.metadata!.name!, namespace, body: [{ op: "remove", path: "/metadata/finalizers" }] }));
    await del({ apiVersion: "v1", kind: "Pod", metadata: { name: p.metadata!.name! } });
  }
  for (const j of jobs) await del({ apiVersion: "batch/v1", kind: "Job", metadata: { name: j } });
  await del({ apiVersion, kind: example.kind, metadata: { name: example.metadata!.name! } });
  await eventually(async () => ((await attempt(() => c.objects.read({ apiVersion, kind: example.kind!, metadata: { name: example.metadata!.name!, namespace } }))).ok ? undefined : true), 30_000, `${example.kind} ${example.metadata!.name} deleted`);
}
