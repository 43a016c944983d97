/**
 * The test cluster: one real kube-apiserver with etcd (scripts/test-cluster) per test run, shared by every
 * test file of that run, and one namespace per test.
 *
 * `node --test` runs each file in its own process; the first file that asks for the cluster starts it in a
 * directory named after the runner's process id, the others wait for it, and the script's reaper stops it
 * when the runner exits (also after a crash). KARTA_TEST_KUBECONFIG points the tests at a cluster started
 * by hand instead. Without Go (and without built binaries) the tests are skipped with a printed notice.
 * Tests that run the scheduler or the controller-manager get a cluster of their own ({@link controlPlane}),
 * with fake Nodes ({@link registerNodes}).
 */
import { execFile, execFileSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import type { TestContext } from "node:test";
import { CoreV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy, setHeaderOptions, type KubernetesObject } from "@kubernetes/client-node";
import { kartaBin, repoRoot } from "./conformance.js";
import { KubeClient } from "../../src/controller/client.js";
import type { ClusterAccess } from "../../src/controller/kubeconfig.js";

export const clusterScript = path.join(repoRoot, "scripts", "test-cluster");

/** A running test cluster and clients for it. */
export interface TestCluster {
  kubeconfig: string;
  kc: KubeConfig;
  /** Generic client for any kind, by apiVersion/kind (pods stay plain JSON: src/controller/kube.ts). */
  objects: KubernetesObjectApi;
  core: CoreV1Api;
}

// Pods stay plain JSON (spec.schedulingGroup is newer than client-node's models).
import "./kube.js";

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs `karta` (bin/karta.js, as a user's shell runs it) to its end: its exit code and output. */
export function runKarta(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [kartaBin, ...args], env);
}

/** Runs a command to its end: its exit code and output. */
export function run(file: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 16 << 20, env }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === "number" ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, stdout, stderr: stderr || (err && code !== 0 ? String(err.message) : "") });
    });
  });
}

function hasGo(): boolean {
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Every binary `scripts/test-cluster build` makes. */
const BINARIES = ["etcd", "kube-apiserver", "kube-scheduler", "kube-controller-manager", "kubectl"];

/** The directory holding the cluster's binaries (built or not). */
export function clusterBinDir(): string {
  return execFileSync(clusterScript, ["bin"], { encoding: "utf8" }).trim();
}

function binariesBuilt(): boolean {
  try {
    const dir = clusterBinDir();
    return BINARIES.every((b) => existsSync(path.join(dir, b)));
  } catch {
    return false;
  }
}

const NO_GO = "Go is not installed, so no Kubernetes control plane can be built: skipping the tests against a real API server (see README, Development)";

/** Builds the binaries when missing; a skip reason when Go is missing, an Error when the build fails. */
async function ensureBinaries(): Promise<string | undefined> {
  if (binariesBuilt()) return undefined;
  if (!hasGo()) return NO_GO;
  console.log("notice: building the test cluster's Kubernetes binaries (scripts/test-cluster build; the first build is slow)");
  const built = await run(clusterScript, ["build"]);
  if (built.code !== 0) throw new Error(`scripts/test-cluster build failed:\n${built.stderr}`);
  return undefined;
}

/** Whether a process runs. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The process whose lifetime bounds the cluster: the `node --test` runner when there is one. */
function ownerPid(): number {
  return process.env["NODE_TEST_CONTEXT"] !== undefined ? process.ppid : process.pid;
}

/** Starts the run's cluster, or waits for the file that is starting it; the kubeconfig path or an error. */
async function sharedCluster(): Promise<{ kubeconfig: string } | { error: string }> {
  const owner = ownerPid();
  const dir = path.join(tmpdir(), `karta-test-cluster-${owner}`);
  mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, "starting.lock");
  const ready = path.join(dir, "ready");
  const failed = path.join(dir, "failed");
  let starter = false;
  try {
    const fd = openSync(lock, "wx");
    writeFileSync(fd, String(process.pid));
    closeSync(fd);
    starter = true;
  } catch {
    // another test file of this run starts it
  }
  if (starter) {
    try {
      await ensureBinaries();
    } catch (err) {
      writeFileSync(failed, (err as Error).message);
      return { error: readFileSync(failed, "utf8") };
    }
    const up = await run(clusterScript, ["up", dir, "--owner-pid", String(owner)]);
    if (up.code !== 0) {
      writeFileSync(failed, `scripts/test-cluster up failed:\n${up.stderr}`);
      return { error: readFileSync(failed, "utf8") };
    }
    writeFileSync(ready, "");
    return { kubeconfig: path.join(dir, "kubeconfig") };
  }
  // A cold build can take long; the starter writes `failed` if it gives up.
  for (;;) {
    if (existsSync(ready)) return { kubeconfig: path.join(dir, "kubeconfig") };
    if (existsSync(failed)) return { error: readFileSync(failed, "utf8") };
    if (!existsSync(dir)) return { error: `the test cluster in ${dir} went away while starting` };
    const starterPid = Number(readFileSync(lock, "utf8"));
    if (starterPid > 0 && !alive(starterPid) && !existsSync(ready)) return { error: `the test file starting the cluster (pid ${starterPid}) exited before it was ready` };
    await sleep(200);
  }
}

let cached: Promise<TestCluster | string> | undefined;

/**
 * The run's cluster, or a skip reason (printed once per file). A cluster that fails to start is an error,
 * not a skip: only a missing Go toolchain skips.
 */
export function testCluster(): Promise<TestCluster | string> {
  cached ??= (async () => {
    let kubeconfig = process.env["KARTA_TEST_KUBECONFIG"];
    if (kubeconfig === undefined) {
      if (!binariesBuilt() && !hasGo()) {
        console.log(`notice: ${NO_GO}`);
        return NO_GO;
      }
      const shared = await sharedCluster();
      if ("error" in shared) throw new Error(shared.error);
      kubeconfig = shared.kubeconfig;
    }
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfig);
    return { kubeconfig, kc, objects: KubernetesObjectApi.makeApiClient(kc), core: kc.makeApiClient(CoreV1Api) };
  })();
  return cached;
}

/** Where a client-node KubeConfig points and how it authenticates, as the controller's client takes it. */
export function accessOf(kc: KubeConfig): ClusterAccess {
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster) throw new Error("the kubeconfig has no current cluster");
  const bytes = (data?: string, file?: string): Buffer | undefined => (data ? Buffer.from(data, "base64") : file ? readFileSync(file) : undefined);
  const access: ClusterAccess = { server: cluster.server.replace(/\/+$/, ""), insecureSkipTLSVerify: cluster.skipTLSVerify === true, source: "a test kubeconfig" };
  const ca = bytes(cluster.caData, cluster.caFile);
  if (ca) access.ca = ca;
  const cert = bytes(user?.certData, user?.certFile);
  const key = bytes(user?.keyData, user?.keyFile);
  if (cert && key) Object.assign(access, { cert, key });
  if (user?.token) access.token = user.token;
  return access;
}

/** The controller's API client (src/controller/client.ts) for a client-node KubeConfig. */
export function kubeClient(kc: KubeConfig): KubeClient {
  return new KubeClient(accessOf(kc));
}

/** The binaries built (or built now); a skip reason, printed as a notice, when Go is missing. */
export async function clusterBinaries(): Promise<string | undefined> {
  const skip = await ensureBinaries();
  if (skip !== undefined) console.log(`notice: ${skip}`);
  return skip;
}

/** What a private control plane runs beside etcd and kube-apiserver (`scripts/test-cluster up` options). */
export interface ControlPlaneOptions {
  scheduler?: boolean;
  controllerManager?: boolean;
  /** Feature gates of every component, after the defaults (`Gate=false` turns one off). */
  featureGates?: string;
  /** The scheduler's own, after those. */
  schedulerFeatureGates?: string;
  /** kube-controller-manager's --controllers. */
  controllers?: string[];
}

/** A cluster of one test file's own, with the scheduler and controller-manager it asked for. */
export interface ControlPlane extends TestCluster {
  dir: string;
  /** Stops every process and removes the directory (the reaper does it anyway once the run ends). */
  stop(): Promise<void>;
}

/**
 * A private cluster for one test file: the scheduler and the controller-manager act on everything in a
 * cluster (they bind every pod, collect every orphan), so the tests that run them do not share one.
 * A skip reason when Go is missing.
 */
export async function controlPlane(o: ControlPlaneOptions): Promise<ControlPlane | string> {
  const skip = await clusterBinaries();
  if (skip !== undefined) return skip;
  const dir = path.join(tmpdir(), `karta-control-plane-${process.pid}-${randomBytes(3).toString("hex")}`);
  const args = ["up", dir, "--owner-pid", String(ownerPid())];
  const components = [...(o.scheduler ? ["scheduler"] : []), ...(o.controllerManager ? ["controller-manager"] : [])];
  if (components.length > 0) args.push("--with", components.join(","));
  if (o.featureGates) args.push("--feature-gates", o.featureGates);
  if (o.schedulerFeatureGates) args.push("--scheduler-feature-gates", o.schedulerFeatureGates);
  if (o.controllers) args.push("--controllers", o.controllers.join(","));
  const up = await run(clusterScript, args);
  if (up.code !== 0) throw new Error(`scripts/test-cluster ${args.join(" ")} failed:\n${up.stderr}`);
  const kubeconfig = path.join(dir, "kubeconfig");
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  return {
    dir,
    kubeconfig,
    kc,
    objects: KubernetesObjectApi.makeApiClient(kc),
    core: kc.makeApiClient(CoreV1Api),
    async stop() {
      const down = await run(clusterScript, ["down", dir]);
      if (down.code !== 0) throw new Error(`scripts/test-cluster down ${dir} failed:\n${down.stderr}`);
    },
  };
}

/** A fake Node's size and labels (there is no kubelet: the Node object is all the scheduler sees). */
export interface FakeNode {
  name: string;
  cpu?: string;
  memory?: string;
  pods?: number;
  labels?: Record<string, string>;
}

/**
 * Registers Nodes as a kubelet would report them: capacity and allocatable, Ready, and without the
 * not-ready taint the API server puts on a new Node (TaintNodesByCondition), which nothing would lift.
 */
export async function registerNodes(c: TestCluster, nodes: FakeNode[]): Promise<void> {
  for (const n of nodes) {
    const resources = { cpu: n.cpu ?? "1", memory: n.memory ?? "8Gi", pods: String(n.pods ?? 110) };
    await c.core.createNode({
      body: {
        metadata: { name: n.name, labels: { "kubernetes.io/hostname": n.name, "kubernetes.io/os": "linux", ...(n.labels ?? {}) } },
        status: { capacity: resources, allocatable: resources, conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "a fake node of Karta's tests" }] },
      },
    });
    await c.core.patchNode({ name: n.name, body: [{ op: "remove", path: "/spec/taints" }] }, setHeaderOptions("Content-Type", PatchStrategy.JsonPatch));
  }
}

/** Deletes pods at once (there is no kubelet to end a graceful deletion of a bound pod). */
export async function forceDeletePods(c: TestCluster, namespace: string, names: string[]): Promise<void> {
  for (const name of names) await attempt(() => c.core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 }));
}

/** A fresh namespace for one test, named after it; deleted when the test ends (no controller-manager finalizes it: it stays Terminating). */
export async function testNamespace(t: TestContext, cluster: TestCluster): Promise<string> {
  const slug = t.name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
  const name = `${slug || "test"}-${randomBytes(3).toString("hex")}`;
  await cluster.core.createNamespace({ body: { metadata: { name, labels: { "karta.test/namespace": "true" } } } });
  return name;
}

/** One field error of a refused request: `reason` is the Kubernetes cause type (FieldValueInvalid, ...). */
export interface ServerCause {
  reason: string;
  field: string;
  message: string;
}

/** What the server answered: the object, or its Status (code, message, causes). */
export type ServerResult<T> = { ok: true; object: T } | { ok: false; code: number; reason: string; message: string; causes: ServerCause[] };

/** Runs a request and turns an API error into its Status, so tests can compare field errors. */
export async function attempt<T>(request: () => Promise<T>): Promise<ServerResult<T>> {
  try {
    return { ok: true, object: await request() };
  } catch (err) {
    const e = err as { code?: unknown; body?: unknown };
    if (typeof e.code !== "number" || e.body === undefined) throw err;
    let status: { reason?: string; message?: string; details?: { causes?: ServerCause[] } } = {};
    try {
      status = typeof e.body === "string" ? JSON.parse(e.body) : (e.body as typeof status);
    } catch {
      status = { message: String(e.body) };
    }
    return {
      ok: false,
      code: e.code,
      reason: status.reason ?? "",
      message: status.message ?? "",
      causes: (status.details?.causes ?? []).map((c) => ({ reason: c.reason ?? "", field: c.field ?? "", message: c.message ?? "" })),
    };
  }
}

/** The object in a namespace (for namespaced kinds). */
export function inNamespace<T extends KubernetesObject>(object: T, namespace: string): T {
  const copy = structuredClone(object);
  copy.metadata = { ...(copy.metadata ?? {}), namespace };
  return copy;
}

/** A ClusterRole or a Role as `karta rbac` prints it (a role without a kind is a ClusterRole). */
export interface RbacRole {
  kind?: string;
  metadata: { name: string; namespace?: string };
  rules: unknown[];
}

/**
 * A kubeconfig for a service account bound to exactly `roles` (what `karta rbac` prints: the ClusterRole,
 * made unique for the run, bound cluster-wide; a Role bound in its namespace, or `namespace`), so a test
 * runs a component with the permissions it will have in a cluster rather than as cluster admin.
 */
export async function asServiceAccount(c: TestCluster, namespace: string, roles: RbacRole | readonly RbacRole[]): Promise<{ kc: KubeConfig; user: string }> {
  const sa = "karta-controller";
  const subjects = [{ kind: "ServiceAccount", name: sa, namespace }];
  await c.core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: sa } } });
  for (const role of Array.isArray(roles) ? (roles as readonly RbacRole[]) : [roles as RbacRole]) {
    if (role.kind === "Role") {
      const metadata = { name: role.metadata.name, namespace: role.metadata.namespace ?? namespace };
      await c.objects.create({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata, rules: role.rules } as KubernetesObject);
      await c.objects.create({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "RoleBinding", metadata, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: metadata.name }, subjects } as KubernetesObject);
      continue;
    }
    const roleName = `${role.metadata.name}-${namespace}`;
    await c.objects.create({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: roleName }, rules: role.rules } as KubernetesObject);
    await c.objects.create({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: roleName }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName }, subjects } as KubernetesObject);
  }
  return { kc: await serviceAccountKubeConfig(c, namespace, sa), user: `system:serviceaccount:${namespace}:${sa}` };
}

/** A kubeconfig authenticating as an existing service account (a token from the TokenRequest API, 1 h). */
export async function serviceAccountKubeConfig(c: TestCluster, namespace: string, name: string): Promise<KubeConfig> {
  const token = await c.core.createNamespacedServiceAccountToken({ name, namespace, body: { spec: { audiences: [], expirationSeconds: 3600 } } });
  const cluster = c.kc.getCurrentCluster()!;
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "test", server: cluster.server, caData: cluster.caData, skipTLSVerify: false }],
    users: [{ name, token: token.status?.token ?? "" }],
    contexts: [{ name: "test", cluster: "test", user: name }],
    currentContext: "test",
  });
  return kc;
}

/** A test cluster of one test file's own, and how to stop it. */
export type PrivateCluster = ControlPlane;

/**
 * A cluster of its own for a test file (scripts/test-cluster up), for what must not touch the shared one:
 * cluster-wide webhook configurations, the ownership of the Karta CRD. stop() stops it, and the script's
 * reaper does when the runner exits. A skip reason (printed) when no kube-apiserver can be built.
 */
export function privateCluster(): Promise<PrivateCluster | string> {
  return controlPlane({});
}

/** Polls `probe` until it returns a value (not undefined) or `timeoutMs` passes; the last failure message on timeout. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last}` : ""}`);
    await sleep(100);
  }
}
