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
import { controllerClusterRole, resourceOf } from "../../src/controller/rbac.js";
import { keepPlainJson } from "../../src/controller/kube.js";
import { admissionWebhookConfiguration } from "../../src/server/webhook-config.js";
import type { Karta } from "../../src/definition/index.js";
import { definitionFiles, definitionsDir } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { asServiceAccount, attempt, clusterBinDir, eventually, type TestCluster } from "../support/cluster.js";

export type Obj = KubernetesObject & Record<string, any>;

export const KARTA = path.join(repoRoot, "bin", "karta.js");

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
  const wait = await kubectl(c, ["wait", "--for", "condition=established", "--timeout=60s", "crd/kartas.run.ai"]);
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
  const { kc } = await asServiceAccount(c, ns, controllerClusterRole(kartas as unknown as Karta[]));
  const kubeconfig = path.join(dir, "kubeconfig");
  writeFileSync(kubeconfig, kc.exportConfig());
  const child = spawn(
    process.execPath,
    [KARTA, "controller", "--kubeconfig", kubeconfig, "--leader-elect=false", "--metrics-bind-address", "0", "--health-probe-bind-address", "0", "--webhook-port", "0", "--cert-dir", path.join(dir, "certs"), ...args],
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
    const port = await eventually(async () => logged("serving the admission webhook")?.webhookPort as number | undefined, 60_000, `the webhook (stderr: ${err})`);
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
