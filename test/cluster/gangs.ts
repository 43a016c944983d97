/**
 * What the tests against the real kube-scheduler and kube-controller-manager share: every bundled Karta
 * applied as a user applies them (with kubectl), CRDs for the kinds they describe, `karta controller`
 * running as the role `karta rbac` prints with its admission webhook registered, and reading what the
 * scheduler did.
 */
import assert from "node:assert/strict";
import { spawn, execFile, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { controllerRbac, resourceOf } from "../../src/controller/rbac.js";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { compileKarta, compiledObjects, type WorkloadCompilation } from "../../src/scheduling/index.js";
import { keepPlainJson } from "../support/kube.js";
import { admissionWebhookConfiguration } from "../../src/server/webhook-config.js";
import type { Karta } from "../../src/definition/index.js";
import { clone, definitionFiles, definitionsDir, loadBundled, type FixtureCase } from "../bundled/helpers.js";
import { kartaBin, repoRoot } from "../support/conformance.js";
import { asServiceAccount, attempt, clusterBinDir, eventually, registerNodes, type ControlPlane, type TestCluster } from "../support/cluster.js";

export type Obj = KubernetesObject & Record<string, any>;


/** Groups the API server serves itself: no CRD for them. */
const BUILT_IN = new Set(["", "apps", "batch", "autoscaling", "networking.k8s.io", "rbac.authorization.k8s.io", "policy", "scheduling.k8s.io", "coordination.k8s.io"]);

/** Every bundled definition as the Karta object `kubectl apply -f definitions/` creates. */
export function bundledKartas(): Obj[] {
  return definitionFiles().map((f) => parse(readFileSync(path.join(definitionsDir, f), "utf8")) as Obj);
}

/**
 * CRDs for every custom kind the Kartas name (roots, child components, additional child kinds), their
 * schemas left open, at the versions the Kartas name; `versions` overrides a kind's (`group/Kind` → versions),
 * as an operator's CRD serves only its own (the MPI operator serves kubeflow.org/v2beta1 MPIJob, not v1).
 */
export function kindCrds(kartas: readonly Obj[], versions: Record<string, string[]> = {}): Obj[] {
  const kinds = new Map<string, { group: string; kind: string; versions: Set<string> }>();
  const add = (k: { group?: string; version?: string; kind?: string } | undefined): void => {
    if (!k?.kind || !k.version || BUILT_IN.has(k.group ?? "")) return;
    const key = `${k.group}/${k.kind}`;
    if (!kinds.has(key)) kinds.set(key, { group: k.group!, kind: k.kind, versions: new Set() });
    kinds.get(key)!.versions.add(k.version);
  };
  for (const k of kartas) {
    const sd = k.spec?.structureDefinition;
    add(sd?.rootComponent?.kind);
    for (const c of sd?.childComponents ?? []) add(c.kind);
    for (const c of sd?.additionalChildKinds ?? []) add(c);
  }
  const open = { type: "object", "x-kubernetes-preserve-unknown-fields": true };
  return [...kinds.entries()].map(([key, k]) => {
    const served = (versions[key] ?? [...k.versions]).sort();
    const plural = resourceOf(k.kind, new Map(), k.group);
    return {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      // Groups under k8s.io are protected: their CRDs must say they are (not) approved.
      metadata: { name: `${plural}.${k.group}`, ...(/(^|\.)(k8s|kubernetes)\.io$/.test(k.group) ? { annotations: { "api-approved.kubernetes.io": "unapproved, a test CRD of Karta" } } : {}) },
      spec: {
        group: k.group,
        scope: "Namespaced",
        names: { kind: k.kind, plural, singular: k.kind.toLowerCase(), listKind: `${k.kind}List` },
        versions: served.map((v, i) => ({ name: v, served: true, storage: i === served.length - 1, schema: { openAPIV3Schema: { type: "object", properties: { spec: open, status: open } } }, subresources: { status: {} } })),
      },
    } as Obj;
  });
}

/** Creates the CRDs and waits until each is Established. */
export async function installCrds(c: TestCluster, crds: readonly Obj[]): Promise<void> {
  // client-node's CRD model would drop x-kubernetes-preserve-unknown-fields: sent as plain JSON.
  keepPlainJson([{ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition" }]);
  for (const crd of crds) {
    const r = await attempt(() => c.objects.create(crd));
    assert.ok(r.ok || r.reason === "AlreadyExists", r.ok ? "" : `${crd.metadata!.name}: ${r.message}`);
  }
  for (const crd of crds) {
    await eventually(async () => {
      const got = (await c.objects.read(crd as never)) as Obj;
      return got.status?.conditions?.some((x: { type: string; status: string }) => x.type === "Established" && x.status === "True") ? true : undefined;
    }, 30_000, `CRD ${crd.metadata!.name} Established`);
  }
}

/** Runs the test cluster's kubectl (v1.37.2, built with the servers) with the cluster's kubeconfig. */
export function kubectl(c: TestCluster, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(path.join(clusterBinDir(), "kubectl"), ["--kubeconfig", c.kubeconfig, ...args], { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/**
 * The Karta CRD and every bundled Karta, as the README says to apply them on a fresh cluster: the CRD,
 * a wait until it is Established, then the definitions.
 */
export async function applyBundledKartas(c: TestCluster): Promise<void> {
  const crd = await kubectl(c, ["apply", "-f", path.join(repoRoot, "deploy", "crd", "run.ai_kartas.yaml")]);
  assert.equal(crd.code, 0, crd.stderr);
  // kubectl wait fails at once, rather than waiting, on a CRD the API server has not yet given
  // .status.conditions (".status.conditions accessor error: <nil> is of the type <nil>"): run again, as
  // a script would, until it waits.
  let wait = await kubectl(c, ["wait", "--for", "condition=established", "--timeout=60s", "crd/kartas.run.ai"]);
  for (let i = 0; i < 50 && wait.code !== 0 && wait.stderr.includes("accessor error"); i++) {
    await new Promise((r) => setTimeout(r, 200));
    wait = await kubectl(c, ["wait", "--for", "condition=established", "--timeout=60s", "crd/kartas.run.ai"]);
  }
  assert.equal(wait.code, 0, wait.stderr);
  const defs = await kubectl(c, ["apply", "-R", "-f", definitionsDir]);
  assert.equal(defs.code, 0, defs.stderr);
}

/** A running `karta controller` (a child process) and what it logged. */
export interface KartaController {
  process: ChildProcess;
  /** Its log so far (JSON lines on stderr). */
  log(): string;
  /** The first log line with this msg (and these fields), parsed. */
  logged(msg: string, fields?: Record<string, unknown>): Record<string, unknown> | undefined;
  stop(): Promise<void>;
}

/**
 * Starts `karta controller` as the service account bound to exactly the role `karta rbac` prints for
 * `kartas`, with its admission webhook registered for the namespaces labelled karta.test/namespace.
 */
export async function startKartaController(c: TestCluster, kartas: readonly Obj[], args: string[] = []): Promise<KartaController> {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-controller-"));
  const ns = `karta-system-${Math.random().toString(36).slice(2, 8)}`;
  await c.core.createNamespace({ body: { metadata: { name: ns } } });
  const { kc } = await asServiceAccount(c, ns, controllerRbac(kartas as unknown as Karta[], { namespace: ns }));
  const kubeconfig = path.join(dir, "kubeconfig");
  writeFileSync(kubeconfig, kc.exportConfig());
  const child = spawn(
    process.execPath,
    [kartaBin, "controller", "--kubeconfig", kubeconfig, "--leader-elect=false", "--metrics-bind-address", "0", "--health-probe-bind-address", "0", "--webhook-port", "0", "--cert-dir", path.join(dir, "certs"), ...args],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let err = "";
  child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const logged = (msg: string, fields: Record<string, unknown> = {}): Record<string, unknown> | undefined => {
    for (const l of err.split("\n")) {
      if (!l.includes(`"msg":"${msg}"`)) continue;
      const o = JSON.parse(l) as Record<string, unknown>;
      if (Object.entries(fields).every(([k, v]) => o[k] === v)) return o;
    }
    return undefined;
  };
  const webhook = `karta-${ns}`;
  const stop = async (): Promise<void> => {
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    child.kill("SIGKILL");
    await attempt(() => c.objects.delete({ apiVersion: "admissionregistration.k8s.io/v1", kind: "MutatingWebhookConfiguration", metadata: { name: webhook } }));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const port = await eventually(async () => logged("serving the admission webhook")?.webhookPort as number | undefined, 60_000, "the webhook").catch((e: Error) => {
      throw new Error(`${e.message}; the controller logged:\n${err.slice(-4000)}`);
    });
    const config = admissionWebhookConfiguration({
      name: webhook,
      target: { url: `https://127.0.0.1:${port}/mutate-v1-pod` },
      caPem: readFileSync(path.join(dir, "certs", "ca.crt"), "utf8"),
      timeoutSeconds: 5,
      controllerNamespace: ns,
    }) as Obj;
    config.webhooks[0].namespaceSelector.matchLabels = { "karta.test/namespace": "true" };
    await c.objects.create(config);
  } catch (e) {
    await stop();
    throw e;
  }
  return { process: child, log: () => err, logged, stop };
}

/** Waits until the controller watches the root kind of each of these Kartas (Ready, informers started). */
export async function waitWatching(k: KartaController, names: readonly string[]): Promise<void> {
  for (const name of names) await eventually(async () => (k.logged("watching", { karta: name }) ? true : undefined), 120_000, `the controller watching ${name}`);
}

/** The names of these pods bound to a node (spec.nodeName set by the scheduler's binding). */
export async function boundPods(c: TestCluster, namespace: string): Promise<Map<string, string>> {
  const pods = (await c.core.listNamespacedPod({ namespace })).items as unknown as Obj[];
  return new Map(pods.filter((p) => p.spec?.nodeName).map((p) => [p.metadata!.name!, p.spec.nodeName as string]));
}

/** Whether the scheduler has tried a group and found it unschedulable (its PodGroupInitiallyScheduled condition). */
export function triedUnschedulable(group: Obj): boolean {
  return (group.status?.conditions ?? []).some((x: { type: string; status: string; reason?: string }) => x.type === "PodGroupInitiallyScheduled" && x.status === "False");
}

/**
 * The objects an operator puts between its workload and the pods' direct owner, which the fixtures name
 * only by reference: KServe and the NIM and Seldon operators make a Deployment (whose ReplicaSet owns the
 * pods), Knative a Configuration, Revision and Deployment, Dynamo a PodCliqueSet, Kubeflow Trainer a JobSet.
 */
const DEPLOYMENT = { apiVersion: "apps/v1", kind: "Deployment" };
const BETWEEN: Record<string, { apiVersion: string; kind: string }[]> = {
  InferenceService: [DEPLOYMENT],
  NIMService: [DEPLOYMENT],
  SeldonDeployment: [DEPLOYMENT],
  KnativeService: [{ apiVersion: "serving.knative.dev/v1", kind: "Configuration" }, { apiVersion: "serving.knative.dev/v1", kind: "Revision" }, DEPLOYMENT],
  DynamoGraphDeployment: [{ apiVersion: "grove.io/v1alpha1", kind: "PodCliqueSet" }],
  TrainJob: [{ apiVersion: "jobset.x-k8s.io/v1alpha2", kind: "JobSet" }],
};

const CASE_LABEL = "karta.test/case";
export const PRIORITY_CLASSES = ["ci-builds", "ci-runners", "training-high"];

export function ownerRef(o: Obj): { apiVersion: string; kind: string; name: string; uid: string; controller: true; blockOwnerDeletion: true } {
  return { apiVersion: o.apiVersion!, kind: o.kind!, name: o.metadata!.name!, uid: o.metadata!.uid!, controller: true, blockOwnerDeletion: true };
}

/** An object as plain JSON, to edit freely. */
export type Loose = Record<string, any>;

/** An object as a client sends it: no server-set metadata, no status, in `namespace`. */
export function asSent(o: Record<string, unknown>, namespace: string): Loose {
  const c = clone(o) as Loose;
  for (const k of ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields", "selfLink"]) delete c.metadata[k];
  delete c.status;
  c.metadata.namespace = namespace;
  if (c.apiVersion === "batch/v1" && c.kind === "Job") {
    // The Job's selector and its labels are generated from its uid on create.
    delete c.spec.selector;
    for (const k of ["controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name"]) delete c.spec?.template?.metadata?.labels?.[k];
  }
  return c;
}

/** The least object of a kind that its API accepts, owned by `owner`. */
function linkObject(kind: { apiVersion: string; kind: string }, name: string, namespace: string, owner: Obj): Obj {
  const labels = { "karta.test/link": name };
  const template = { metadata: { labels }, spec: { restartPolicy: kind.kind === "Job" ? "Never" : "Always", containers: [{ name: "c", image: "registry.invalid/c" }] } };
  const spec: Record<string, unknown> =
    kind.apiVersion === "apps/v1"
      ? { replicas: 0, selector: { matchLabels: labels }, template, ...(kind.kind === "StatefulSet" ? { serviceName: name } : {}) }
      : kind.apiVersion === "batch/v1"
        ? { suspend: true, template }
        : {};
  return { apiVersion: kind.apiVersion, kind: kind.kind, metadata: { name, namespace, ownerReferences: [ownerRef(owner)] }, spec };
}

/**
 * A fixture pod as its operator would create it here: on the case's nodes (nodeSelector), needing one
 * CPU (one pod per fake node), at the default scheduler, without what this cluster cannot provide
 * (volumes, affinities, node names); labels, annotations and priority class kept.
 */
export function schedulablePod(p: Record<string, unknown>, namespace: string, caseLabel: string): Loose {
  const pod = asSent(p, namespace);
  const spec = pod.spec as Record<string, any>;
  for (const k of ["nodeName", "schedulerName", "priority", "preemptionPolicy", "affinity", "topologySpreadConstraints", "volumes", "resourceClaims", "schedulingGroup", "overhead", "runtimeClassName", "schedulingGates", "initContainers", "resources", "serviceAccountName", "serviceAccount", "hostNetwork"]) delete spec[k];
  spec.nodeSelector = { [CASE_LABEL]: caseLabel };
  spec.containers = (spec.containers as { name: string; image?: string }[]).map((c, i) => ({ name: c.name, image: c.image ?? "registry.invalid/c", ...(i === 0 ? { resources: { requests: { cpu: "1" } } } : {}) }));
  delete pod.metadata.ownerReferences;
  return pod;
}

/** A workload made in the cluster with its owner chain and pods, and what `karta compile` makes for it. */
export interface Made {
  root: Obj;
  links: Obj[];
  pods: Obj[];
  expected: WorkloadCompilation;
}

/** Creates the fixture's workload, the objects between it and its pods, and its pods (owners before what they own). */
export async function make(c: ControlPlane, fx: FixtureCase, namespace: string, caseLabel: string, groupShape: "composite" | "flat" = "composite"): Promise<Made> {
  const created = async (o: Loose): Promise<Obj> => JSON.parse(JSON.stringify(await c.objects.create(o as Obj))) as Obj;
  const root = await created(asSent(fx.workload, namespace));
  const links: Obj[] = [];
  let parent = root;
  for (const kind of BETWEEN[fx.name] ?? []) {
    parent = await created(linkObject(kind, `${root.metadata!.name}-${kind.kind.toLowerCase()}`, namespace, parent));
    links.push(parent);
  }
  const refOf = (p: Record<string, any>): { apiVersion: string; kind: string; name: string } => {
    const refs = (p.metadata.ownerReferences ?? []) as { apiVersion: string; kind: string; name: string; controller?: boolean }[];
    return refs.find((r) => r.controller) ?? refs[0]!;
  };
  const podNames = new Set(fx.pods.map((p: Record<string, any>) => p.metadata.name as string));
  const owners = new Map<string, Obj>([[`${root.kind}/${root.metadata!.name}`, root]]);
  const pods: Obj[] = [];
  let pending = [...fx.pods] as Record<string, any>[];
  while (pending.length > 0) {
    const next: Record<string, any>[] = [];
    for (const p of pending) {
      const ref = refOf(p);
      const key = `${ref.kind}/${ref.name}`;
      if (!owners.has(key)) {
        // A LeaderWorkerSet's workers' StatefulSet is named after, and owned by, the leader pod.
        const leader = ref.kind === "StatefulSet" && podNames.has(ref.name) ? owners.get(`Pod/${ref.name}`) : parent;
        if (!leader) {
          next.push(p);
          continue;
        }
        const link = await created(linkObject({ apiVersion: ref.apiVersion, kind: ref.kind }, ref.name, namespace, leader));
        owners.set(key, link);
        links.push(link);
      }
      const pod = schedulablePod(p, namespace, caseLabel);
      pod.metadata.ownerReferences = [ownerRef(owners.get(key)!)];
      const made = await created(pod);
      owners.set(`Pod/${made.metadata!.name}`, made);
      pods.push(made);
    }
    assert.ok(next.length < pending.length, `pods whose owners cannot be made: ${next.map((p) => p.metadata.name).join(", ")}`);
    pending = next;
  }
  const definition = loadBundled(fx.expected.definition).definition;
  const expected = compileKarta(definition, root, { pods, owners: links, groupShape });
  assert.ok(expected.ok, JSON.stringify(expected.issues.filter((i) => i.severity === "error")));
  return { root, links, pods, expected };
}

/** The top-level gangs of a compilation: their pods and how many of them must be placed together. */
export function gangs(r: WorkloadCompilation): { name: string; pods: string[]; needed: number }[] {
  const podsOf = (group: string) => r.podPatches.filter((p) => p.podGroupName === group).map((p) => p.pod.name);
  const top = r.podGroups.filter((g) => !g.spec.parentCompositePodGroupName).map((g) => ({ name: g.metadata.name!, pods: podsOf(g.metadata.name!), needed: g.spec.schedulingPolicy.gang?.minCount ?? 1 }));
  const composites = r.compositePodGroups.map((cpg) => {
    const children = r.podGroups.filter((g) => g.spec.parentCompositePodGroupName === cpg.metadata.name);
    const sizes = children.map((g) => g.spec.schedulingPolicy.gang?.minCount ?? 1).sort((a, b) => a - b);
    const needed = sizes.slice(0, cpg.spec.schedulingPolicy.gang?.minGroupCount ?? sizes.length).reduce((a, b) => a + b, 0);
    return { name: cpg.metadata.name!, pods: children.flatMap((g) => podsOf(g.metadata.name!)), needed };
  });
  return [...top, ...composites];
}

/** Waits until the controller made the groups compile gives (by name) and the webhook put each pod where compile does. */
export async function admitted(c: ControlPlane, made: Made, namespace: string): Promise<void> {
  const { expected } = made;
  for (const o of compiledObjects(expected)) {
    await eventually(async () => ((await attempt(() => c.objects.read({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata.name!, namespace } }))).ok ? true : undefined), 30_000, `${o.kind} ${o.metadata.name}`);
  }
  const want = Object.fromEntries(made.pods.map((p) => [p.metadata!.name!, expected.podPatches.find((x) => x.pod.name === p.metadata!.name)?.podGroupName ?? null]));
  const got = Object.fromEntries(made.pods.map((p) => [p.metadata!.name!, (p.spec?.schedulingGroup?.podGroupName as string | undefined) ?? null]));
  assert.deepEqual(got, want, "the webhook put each pod in the group karta compile gives it");
}

/** Runs `karta` in this process against the cluster; its exit code and output. */
export async function karta(c: ControlPlane, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO("", {});
  const code = await main([...args, "--kubeconfig", c.kubeconfig], io);
  return { code, out: io.out, err: io.err };
}

/** The case's nodes: `count` of one CPU each, labelled for it. */
let nodeSerial = 0;
export async function addNodes(c: ControlPlane, caseLabel: string, count: number): Promise<void> {
  await registerNodes(c, Array.from({ length: count }, () => ({ name: `${caseLabel}-${nodeSerial++}`, cpu: "1", labels: { [CASE_LABEL]: caseLabel } })));
}

/** Asserts that none of these pods is bound once the scheduler has tried their gang and found it unschedulable. */
export async function noneBound(c: ControlPlane, namespace: string, gang: { name: string; pods: string[] }): Promise<void> {
  await eventually(async () => {
    const groups = (await c.objects.list("scheduling.k8s.io/v1beta1", "PodGroup", namespace)).items as Obj[];
    const mine = groups.filter((g) => g.metadata!.name === gang.name || g.spec?.parentCompositePodGroupName === gang.name);
    return mine.some(triedUnschedulable) ? true : undefined;
  }, 60_000, `the scheduler to find gang ${gang.name} unschedulable`);
  // A binding in flight would land within the scheduler's backoff (1 s).
  await new Promise((r) => setTimeout(r, 1500));
  const bound = await boundPods(c, namespace);
  assert.deepEqual(gang.pods.filter((p) => bound.has(p)), [], `pods of gang ${gang.name} bound while it does not fit`);
}

export async function allBound(c: ControlPlane, namespace: string, names: readonly string[]): Promise<Map<string, string>> {
  return eventually(async () => {
    const bound = await boundPods(c, namespace);
    return names.every((n) => bound.has(n)) ? bound : undefined;
  }, 60_000, `pods ${names.join(", ")} bound`);
}

export const groupOf = (apiVersion: string | undefined): string => (apiVersion?.includes("/") ? apiVersion.split("/")[0]! : "");

/** `Kind.group/name`, as `karta compile` takes an object from the cluster. */
export function resourceRef(o: Obj): string {
  const group = groupOf(o.apiVersion);
  return `${o.kind}${group ? `.${group}` : ""}/${o.metadata!.name}`;
}

/** Creates the fixture's pods for an existing root (owned by it directly), read back after admission. */
export async function makePods(c: ControlPlane, fx: FixtureCase, namespace: string, root: Obj): Promise<Omit<Made, "links">> {
  const pods: Obj[] = [];
  for (const p of fx.pods) {
    const pod = schedulablePod(p, namespace, namespace);
    pod.metadata.ownerReferences = [ownerRef(root)];
    pods.push(JSON.parse(JSON.stringify(await c.objects.create(pod as Obj))) as Obj);
  }
  const expected = compileKarta(loadBundled(fx.expected.definition).definition, root, { pods });
  assert.ok(expected.ok, JSON.stringify(expected.issues));
  assert.deepEqual(
    Object.fromEntries(pods.map((p) => [p.metadata!.name!, p.spec?.schedulingGroup?.podGroupName ?? null])),
    Object.fromEntries(pods.map((p) => [p.metadata!.name!, expected.podPatches.find((x) => x.pod.name === p.metadata!.name)?.podGroupName ?? null])),
  );
  return { root, pods, expected };
}

/** The bert-pretrain PyTorchJob fixture with `workers` workers (pods worker-0..), strict unless `minAvailable`. */
export function pytorchJob(pytorch: FixtureCase, workers: number, minAvailable?: number): FixtureCase {
  const fx = clone(pytorch);
  const w = fx.workload as Loose;
  w.spec.pytorchReplicaSpecs.Worker.replicas = workers;
  if (minAvailable === undefined) delete w.spec.runPolicy.schedulingPolicy.minAvailable;
  else w.spec.runPolicy.schedulingPolicy.minAvailable = minAvailable;
  const worker0 = fx.pods.find((p: Loose) => p.metadata.name === "bert-pretrain-worker-0")!;
  fx.pods = [fx.pods.find((p: Loose) => p.metadata.labels["training.kubeflow.org/replica-type"] === "master")!, ...Array.from({ length: workers }, (_, i) => workerPod(worker0, i))];
  return fx;
}

/** Worker `i` of the bert-pretrain PyTorchJob, as the training operator names and labels it. */
export function workerPod(worker0: Record<string, unknown>, i: number): Loose {
  const p = clone(worker0) as Loose;
  p.metadata.name = `bert-pretrain-worker-${i}`;
  p.metadata.labels["training.kubeflow.org/replica-index"] = String(i);
  return p;
}
