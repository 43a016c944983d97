/**
 * The Helm chart (charts/karta) with real helm (built from its Go module by scripts/go-tool): it lints
 * in every mode; it renders the objects of the kustomize bases in deploy/ (same kinds, names and
 * contents, Helm's labels aside); its ClusterRole is `karta rbac`'s; its self-signed certificates fit
 * the webhook configurations; bad values fail with a message; every value is documented.
 * test/cluster/chart.test.ts installs it into a real API server.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, parseAllDocuments, stringify } from "yaml";
import { runRbac } from "../../src/cli/rbac.js";
import { memoryIO } from "../../src/cli/io.js";
import { generatedSchemaFiles } from "../../src/definition/json-schema.js";
import { definitionsDir } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { goTool } from "../support/go-tool.js";
import { documentedValues, valuesTable } from "./values-doc.js";

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } } & Record<string, any>;

export const chartDir = path.join(repoRoot, "charts", "karta");
const helmTool = goTool("helm");
const helmSkip = "skip" in helmTool ? helmTool.skip : false;
if (helmSkip) console.log(helmSkip);
const helm = "dir" in helmTool ? path.join(helmTool.dir, "helm") : "";

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as { code?: unknown }).code === "number" ? (err as { code: number }).code : 1) : 0, stdout, stderr });
    });
  });
}

/** `helm template` of the chart in namespace karta-system. */
async function render(...args: string[]): Promise<Obj[]> {
  const r = await run(helm, ["template", "karta", chartDir, "--namespace", "karta-system", ...args]);
  assert.equal(r.code, 0, r.stderr);
  return parseAllDocuments(r.stdout).map((d) => d.toJSON() as Obj).filter((o) => o !== null);
}

const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;

/** The labels and annotations Helm adds (the chart's standard labels; the CRD's keep policy). */
const HELM_LABELS = ["helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "app.kubernetes.io/version"];
function withoutHelm(o: Obj): Obj {
  const c = structuredClone(o);
  for (const l of HELM_LABELS) delete c.metadata.labels?.[l];
  delete c.metadata.annotations?.["helm.sh/resource-policy"];
  for (const f of ["labels", "annotations"] as const) if (c.metadata[f] && Object.keys(c.metadata[f]).length === 0) delete c.metadata[f];
  return c;
}

function kustomize(dir: string): Obj[] | string {
  try {
    return parseAllDocuments(execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })).map((d) => d.toJSON() as Obj);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "kubectl is not installed: the chart is not compared with the kustomize bases";
    throw err;
  }
}

describe("charts/karta: files kept in step with the code", () => {
  test("Chart.yaml's version and appVersion are package.json's", () => {
    const chart = parse(readFileSync(path.join(chartDir, "Chart.yaml"), "utf8")) as { version: string; appVersion: string };
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
    assert.deepEqual([chart.version, chart.appVersion], [pkg.version, pkg.version]);
  });

  test("its CRD is the generated one and its ClusterRole and Role are what karta rbac -d definitions/ prints", async () => {
    assert.equal(readFileSync(path.join(chartDir, "files", "run.ai_kartas.yaml"), "utf8"), generatedSchemaFiles()["deploy/crd/run.ai_kartas.yaml"]);
    const io = memoryIO();
    assert.equal(await runRbac(["-d", definitionsDir], io), 0, io.err);
    const docs = (text: string) => parseAllDocuments(text).map((d) => d.toJSON() as unknown);
    assert.deepEqual(docs(readFileSync(path.join(chartDir, "files", "clusterrole.yaml"), "utf8")), docs(io.out), "copy deploy/controller/clusterrole.yaml to charts/karta/files/");
  });

  test("every value is documented in values.yaml and listed in README.md (KARTA_UPDATE_CHART_README=1 rewrites the table)", () => {
    const docs = documentedValues(readFileSync(path.join(chartDir, "values.yaml"), "utf8"));
    assert.deepEqual(docs.undocumented, [], "values without a `# -- description` comment above them");
    assert.ok(docs.values.length > 50, `${docs.values.length} values`);
    const file = path.join(chartDir, "README.md");
    const readme = readFileSync(file, "utf8");
    const want = readme.replace(/<!-- values:start -->[\s\S]*<!-- values:end -->/, `<!-- values:start -->\n${valuesTable(docs.values)}\n<!-- values:end -->`);
    if (process.env.KARTA_UPDATE_CHART_README === "1") writeFileSync(file, want);
    assert.equal(readFileSync(file, "utf8"), want, "charts/karta/README.md's table of values is stale");
  });
});

describe("charts/karta with helm", { skip: helmSkip }, () => {
  test("helm lint --strict passes in every certificate mode, with karta serve and the ServiceMonitors", async () => {
    for (const args of [
      [],
      ["--set", "certificates.mode=cert-manager", "--set", "serve.enabled=true"],
      ["--set", "certificates.mode=manual", "--set", "certificates.manual.caBundle=CA", "--set", "serve.enabled=true", "--set", "serve.serviceMonitor.enabled=true", "--set", "controller.metrics.serviceMonitor.enabled=true"],
      ["--set", "controller.replicas=1", "--set", "controller.leaderElection.enabled=false", "--set", "controller.webhook.enabled=false", "--set", "crds.enabled=false"],
    ]) {
      const r = await run(helm, ["lint", "--strict", chartDir, ...args]);
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    }
  });

  test("with cert-manager and karta serve it renders the kustomize bases' objects: same kinds, names and contents", { skip: typeof kustomize(path.join(repoRoot, "deploy", "controller")) === "string" }, async () => {
    const rendered = await render("--set", "certificates.mode=cert-manager", "--set", "serve.enabled=true");
    const bases = [...(kustomize(path.join(repoRoot, "deploy", "controller")) as Obj[]), ...(kustomize(path.join(repoRoot, "deploy", "webhook")) as Obj[])];
    bases.push(parse(readFileSync(path.join(repoRoot, "deploy", "crd", "run.ai_kartas.yaml"), "utf8")) as Obj);
    // Helm installs into its release namespace (--create-namespace) instead of creating it.
    const expected = new Map(bases.filter((o) => o.kind !== "Namespace").map((o) => [key(o), o]));
    const got = new Map(rendered.map((o) => [key(o), o]));
    assert.deepEqual([...got.keys()].sort(), [...expected.keys()].sort());
    for (const [k, o] of got) assert.deepEqual(withoutHelm(o), expected.get(k), k);
    // Helm's labels are on every object, and the CRD is kept on uninstall.
    for (const o of rendered) assert.equal(o.metadata.labels?.["app.kubernetes.io/managed-by"], "Helm", key(o));
    assert.equal(got.get("CustomResourceDefinition//kartas.run.ai")!.metadata.annotations?.["helm.sh/resource-policy"], "keep");
  });

  test("self-signed (the default): the serving certificates chain to the CA in both webhook configurations, for the Services' names", async () => {
    const rendered = await render("--set", "serve.enabled=true");
    assert.ok(!rendered.some((o) => o.apiVersion.startsWith("cert-manager.io/")), "no cert-manager objects");
    const secret = rendered.find((o) => o.kind === "Secret" && o.metadata.name === "karta-controller-webhook-tls")!;
    const pem = (k: string) => Buffer.from(secret.data[k] as string, "base64").toString();
    const ca = new X509Certificate(pem("ca.crt"));
    const cert = new X509Certificate(pem("tls.crt"));
    assert.ok(cert.verify(ca.publicKey), "signed by the CA");
    assert.equal(cert.checkHost("karta-controller-webhook.karta-system.svc"), "karta-controller-webhook.karta-system.svc");
    assert.equal(cert.checkHost("karta-controller-webhook.karta-system.svc.cluster.local"), "karta-controller-webhook.karta-system.svc.cluster.local");
    const configs = rendered.filter((o) => o.kind.endsWith("WebhookConfiguration"));
    assert.deepEqual(configs.map((o) => o.kind).sort(), ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]);
    const bundles = configs.flatMap((o) => o.webhooks.map((w: { clientConfig: { caBundle: string } }) => w.clientConfig.caBundle));
    assert.equal(bundles.length, 3);
    for (const b of bundles) assert.equal(b, secret.data["ca.crt"]);
    assert.deepEqual(configs.map((o) => o.metadata.annotations?.["cert-manager.io/inject-ca-from"]), [undefined, undefined]);
    const serve = rendered.find((o) => o.kind === "Secret" && o.metadata.name === "karta-webhook-serving")!;
    const serveCert = new X509Certificate(Buffer.from(serve.data["tls.crt"] as string, "base64"));
    assert.ok(serveCert.verify(new X509Certificate(Buffer.from(serve.data["ca.crt"] as string, "base64")).publicKey));
    assert.equal(serveCert.checkHost("karta-webhook.karta-system.svc"), "karta-webhook.karta-system.svc");
  });

  test("manual certificates: the given CA in every webhook; the Secrets are the user's", async () => {
    const rendered = await render("--set", "certificates.mode=manual", "--set-string", "certificates.manual.caBundle=-----BEGIN CERTIFICATE-----");
    assert.ok(!rendered.some((o) => o.kind === "Secret"));
    const bundles = rendered.filter((o) => o.kind.endsWith("WebhookConfiguration")).flatMap((o) => o.webhooks.map((w: { clientConfig: { caBundle: string } }) => w.clientConfig.caBundle));
    assert.deepEqual(bundles, Array(3).fill(Buffer.from("-----BEGIN CERTIFICATE-----").toString("base64")));
  });

  test("the ClusterRole grants no Lease; the Lease is a Role's, bound in the release's namespace only", async () => {
    const rendered = await render("--namespace", "ops");
    const kinds = (k: string) => rendered.filter((o) => o.kind === k);
    assert.ok(!JSON.stringify(kinds("ClusterRole")[0]!.rules).includes("coordination.k8s.io"));
    const [role] = kinds("Role");
    const [binding] = kinds("RoleBinding");
    assert.deepEqual([role!.metadata.name, role!.metadata.namespace], ["karta-controller", "ops"]);
    const io = memoryIO();
    assert.equal(await runRbac(["-d", definitionsDir], io), 0, io.err);
    assert.deepEqual(role!.rules, (parseAllDocuments(io.out)[1]!.toJSON() as Obj).rules);
    assert.deepEqual(binding!.roleRef, { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "karta-controller" });
    assert.deepEqual([binding!.metadata.namespace, binding!.subjects], ["ops", [{ kind: "ServiceAccount", name: "karta-controller", namespace: "ops" }]]);
  });

  test("controller.rbac.clusterRole takes the RBAC karta rbac generates for other definitions (its Role too; without one, the bundled Role)", async () => {
    const io = memoryIO();
    assert.equal(await runRbac(["-d", path.join(definitionsDir, "ray.io"), "--leader-elect-resource-name", "ray-lease", "-n", "elsewhere"], io), 0, io.err);
    const [clusterRole, leases] = parseAllDocuments(io.out).map((d) => d.toJSON() as Obj);
    const dir = mkdtempSync(path.join(tmpdir(), "karta-chart-"));
    try {
      writeFileSync(path.join(dir, "rbac.yaml"), io.out);
      const rendered = await render("--set-file", `controller.rbac.clusterRole=${path.join(dir, "rbac.yaml")}`);
      const role = rendered.find((o) => o.kind === "ClusterRole")!;
      assert.deepEqual(role.rules, clusterRole!.rules);
      assert.ok(!JSON.stringify(role.rules).includes("pytorchjobs"));
      // Its Role's rules (its Lease name), in the release's namespace whatever -n it was generated with.
      const namespaced = rendered.find((o) => o.kind === "Role")!;
      assert.deepEqual([namespaced.metadata.namespace, namespaced.rules], ["karta-system", leases!.rules]);
      // The ClusterRole alone: the chart's own Role.
      writeFileSync(path.join(dir, "clusterrole.yaml"), stringify(clusterRole));
      const alone = await render("--set-file", `controller.rbac.clusterRole=${path.join(dir, "clusterrole.yaml")}`);
      assert.deepEqual(alone.find((o) => o.kind === "Role")!.rules, (await render()).find((o) => o.kind === "Role")!.rules);
      assert.deepEqual(alone.find((o) => o.kind === "ClusterRole")!.rules, clusterRole!.rules);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("both Deployments serve on after their deletion (a preStop sleep) within their grace period; preStopSleepSeconds=0 leaves it out", async () => {
    const pods = (rendered: Obj[]) => Object.fromEntries(rendered.filter((o) => o.kind === "Deployment").map((o) => [o.metadata.name, o.spec.template.spec]));
    const sleep = (pod: { containers: { lifecycle?: { preStop?: { sleep?: { seconds: number } } } }[] }) => pod.containers[0]!.lifecycle?.preStop?.sleep?.seconds;
    const defaults = pods(await render("--set", "serve.enabled=true"));
    assert.deepEqual(Object.keys(defaults).sort(), ["karta-controller", "karta-webhook"]);
    for (const [name, pod] of Object.entries(defaults)) {
      assert.equal(sleep(pod), 5, name);
      assert.ok(sleep(pod)! < pod.terminationGracePeriodSeconds, name);
    }
    const serveGrace = (defaults["karta-webhook"]!.containers[0]!.args as string[]).find((a) => a.startsWith("--shutdown-grace-period="))!;
    assert.ok(5 + Number(/=(\d+)s$/.exec(serveGrace)![1]) < defaults["karta-webhook"]!.terminationGracePeriodSeconds, serveGrace);
    const set = pods(await render("--set", "serve.enabled=true", "--set", "controller.preStopSleepSeconds=12", "--set", "serve.preStopSleepSeconds=0"));
    assert.equal(sleep(set["karta-controller"]!), 12);
    assert.equal(set["karta-webhook"]!.containers[0]!.lifecycle, undefined);
  });

  test("the metrics Service and the optional ServiceMonitor select the controller's metrics port", async () => {
    const rendered = await render("--set", "controller.metrics.serviceMonitor.enabled=true", "--set", "controller.metrics.serviceMonitor.labels.release=prometheus");
    const service = rendered.find((o) => o.kind === "Service" && o.metadata.name === "karta-controller-metrics")!;
    const monitor = rendered.find((o) => o.kind === "ServiceMonitor")!;
    for (const [k, v] of Object.entries(monitor.spec.selector.matchLabels as Record<string, string>)) assert.equal(service.metadata.labels?.[k], v, k);
    assert.equal(monitor.metadata.labels?.["release"], "prometheus");
    assert.deepEqual(monitor.spec.endpoints.map((e: { port: string; path: string }) => [e.port, e.path]), [["metrics", "/metrics"]]);
    const deployment = rendered.find((o) => o.kind === "Deployment")!;
    const container = deployment.spec.template.spec.containers[0];
    assert.ok(container.args.includes(`--metrics-bind-address=:${container.ports.find((p: { name: string }) => p.name === "metrics").containerPort}`));
    assert.equal(service.spec.ports[0].targetPort, "metrics");
  });

  test("bad values fail the render with a message", async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-chart-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const leasesEverywhere = path.join(dir, "old-role.yaml");
    writeFileSync(leasesEverywhere, stringify({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "karta-controller" }, rules: [{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] }] }));
    for (const [args, message] of [
      [["--set", "certificates.mode=vault"], 'certificates.mode "vault": expected self-signed, cert-manager or manual'],
      [["--set", "controller.leaderElection.enabled=false"], "controller.replicas > 1 requires controller.leaderElection.enabled=true"],
      [["--set", "certificates.mode=manual"], "certificates.mode=manual needs certificates.manual.caBundle"],
      [["--set", "controller.rbac.clusterRole=nonsense"], "controller.rbac.clusterRole: expected a ClusterRole as `karta rbac` prints it"],
      // A role generated before the Lease moved to the Role (Leases in every namespace).
      [["--set-file", `controller.rbac.clusterRole=${leasesEverywhere}`], "controller.rbac.clusterRole: the ClusterRole grants coordination.k8s.io"],
    ] as const) {
      const r = await run(helm, ["template", "karta", chartDir, ...args]);
      assert.notEqual(r.code, 0, args.join(" "));
      assert.ok(r.stderr.includes(message), `${args.join(" ")}: ${r.stderr}`);
    }
  });

  test("without the controller's webhooks nothing refers to a webhook certificate; without the controller only the CRD is installed", async () => {
    const noWebhook = await render("--set", "controller.webhook.enabled=false");
    assert.ok(!noWebhook.some((o) => o.kind.endsWith("WebhookConfiguration") || o.kind === "Secret" || o.metadata.name === "karta-controller-webhook"));
    const args = noWebhook.find((o) => o.kind === "Deployment")!.spec.template.spec.containers[0].args as string[];
    assert.ok(!args.some((a) => a.startsWith("--webhook-port") || a.startsWith("--tls-")), args.join(" "));
    const crdOnly = await render("--set", "controller.enabled=false");
    assert.deepEqual(crdOnly.map((o) => o.kind), ["CustomResourceDefinition"]);
    assert.equal(stringify(crdOnly[0]).includes("kartas.run.ai"), true);
  });
});
