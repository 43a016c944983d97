/**
 * The Helm chart (charts/karta) with real helm (built from its Go module by scripts/go-tool): it lints
 * in every mode; it renders the objects of the kustomize bases in deploy/ (same kinds, names and
 * contents, Helm's labels aside); its ClusterRole is `karta rbac`'s; its self-signed certificates fit
 * the webhook configurations and record what they hold; bad values are refused with a message, by
 * values.schema.json or the templates; every value is documented and in the schema; the recommended labels
 * are on every object and pod; NOTES.txt says what each combination of values installed.
 * test/cluster/chart.test.ts installs it into a real API server.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse, parseAllDocuments, stringify } from "yaml";
import { runRbac } from "../../src/cli/rbac.js";
import { memoryIO } from "../../src/cli/io.js";
import { generatedSchemaFiles } from "../../src/definition/json-schema.js";
import { definitionsDir } from "../bundled/helpers.js";
import { writeCerts } from "../server/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { goTool } from "../support/go-tool.js";
import { documentedValues, valuesTable } from "./values-doc.js";

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } } & Record<string, any>;

export const chartDir = path.join(repoRoot, "charts", "karta");
const helmTool = goTool("helm");
const helmSkip = "skip" in helmTool ? helmTool.skip : false;
if (helmSkip) console.log(helmSkip);
const helm = "dir" in helmTool ? path.join(helmTool.dir, "helm") : "";

function run(file: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { maxBuffer: 64 << 20, env: env ? { ...process.env, ...env } : undefined }, (err, stdout, stderr) => {
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

/**
 * NOTES.txt as `helm install --dry-run=client` prints it (rendered with the templates, nothing sent: the
 * kubeconfig points nowhere).
 */
async function notes(...args: string[]): Promise<string> {
  const r = await run(helm, ["install", "karta", chartDir, "--namespace", "karta-system", "--dry-run=client", ...args], { KUBECONFIG: path.join(tmpdir(), "karta-no-kubeconfig") });
  assert.equal(r.code, 0, r.stderr);
  const at = r.stdout.indexOf("\nNOTES:\n");
  assert.ok(at >= 0, r.stdout.slice(0, 200));
  return r.stdout.slice(at + "\nNOTES:\n".length);
}

/** A file holding a real CA certificate (PEM), for certificates.manual.caBundle. */
function caFile(dir: string): string {
  return writeCerts(dir).caFile;
}

/** The labels and annotations Helm adds (the chart's standard labels; the CRD's keep policy). */
const HELM_LABELS = ["helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "app.kubernetes.io/version"];
function withoutHelm(o: Obj): Obj {
  const c = structuredClone(o);
  for (const l of HELM_LABELS) delete c.metadata.labels?.[l];
  for (const l of HELM_LABELS) delete c.spec?.template?.metadata?.labels?.[l];
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

  test("values.schema.json constrains every documented value, and refuses values of other names", () => {
    const documented = documentedValues(readFileSync(path.join(chartDir, "values.yaml"), "utf8")).values.map((v) => v.key);
    type Schema = { $ref?: string; properties?: Record<string, Schema>; additionalProperties?: unknown } & Record<string, unknown>;
    const schema = JSON.parse(readFileSync(path.join(chartDir, "values.schema.json"), "utf8")) as Schema & { definitions: Record<string, Schema> };
    assert.equal(schema.$schema, "http://json-schema.org/draft-07/schema#");
    const resolve = (s: Schema): Schema => (s.$ref ? resolve(schema.definitions[s.$ref.replace("#/definitions/", "")]!) : s);
    const leaves: string[] = [];
    const walk = (s: Schema, at: string): void => {
      const r = resolve(s);
      if (documented.includes(at) || !r.properties) {
        leaves.push(at);
        assert.ok(["type", "enum", "oneOf", "allOf", "const"].some((k) => k in r), `${at}: a type or a set of values`);
        return;
      }
      assert.equal(r.additionalProperties, false, `${at || "(the root)"}: a value of another name (a typo) is refused`);
      for (const [k, v] of Object.entries(r.properties)) walk(v, at ? `${at}.${k}` : k);
    };
    walk(schema, "");
    // global: what a parent chart passes to its subcharts.
    assert.deepEqual(leaves.filter((k) => k !== "global").sort(), [...documented].sort());
  });
});

describe("charts/karta with helm", { skip: helmSkip }, () => {
  test("helm lint --strict passes in every certificate mode, with karta serve and the ServiceMonitors, and refuses bad values", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-chart-"));
    try {
      for (const args of [
        [],
        ["--set", "certificates.mode=cert-manager", "--set", "serve.enabled=true"],
        ["--set", "certificates.mode=manual", "--set-file", `certificates.manual.caBundle=${caFile(dir)}`, "--set", "serve.enabled=true", "--set", "serve.serviceMonitor.enabled=true", "--set", "controller.metrics.serviceMonitor.enabled=true"],
        ["--set", "controller.replicas=1", "--set", "controller.leaderElection.enabled=false", "--set", "controller.webhook.enabled=false", "--set", "crds.enabled=false"],
        ["--set", "image.digest=sha256:" + "ab".repeat(32), "--set", "nameOverride=acme", "--set", "serve.enabled=true", "--set", "serve.replicas=1"],
      ]) {
        // Without --namespace: lint renders in the kubeconfig's namespace (default), where nothing is installed.
        const r = await run(helm, ["lint", "--strict", chartDir, ...args]);
        assert.equal(r.code, 0, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // What values.schema.json refuses. (helm lint renders in "lint mode", where a template's fail is only
    // logged: the checks of templates/validate.yaml stop helm install, upgrade and template, not lint.)
    for (const [args, message] of [
      [["--set", "controller.webhook.pods.timeoutSeconds=60"], "at '/controller/webhook/pods/timeoutSeconds': maximum: got 60, want 30"],
      [["--set", "certificates.selfSigned.days=10y"], "at '/certificates/selfSigned/days': got string, want integer"],
    ] as const) {
      const r = await run(helm, ["lint", chartDir, ...args]);
      assert.notEqual(r.code, 0, args.join(" "));
      assert.ok(r.stdout.includes(message), `${args.join(" ")}: ${r.stdout}`);
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
    // Each Secret records what it holds, for the next upgrade to check (Sprig cannot read a certificate).
    for (const [s, x509, service] of [[secret, cert, "karta-controller-webhook"], [serve, serveCert, "karta-webhook"]] as const) {
      const annotations = s.metadata.annotations!;
      assert.equal(annotations["karta.run.ai/certificate-sha256"], createHash("sha256").update(Buffer.from(s.data["tls.crt"] as string, "base64")).digest("hex"));
      assert.equal(annotations["karta.run.ai/certificate-dns-names"], `${service}.karta-system.svc,${service}.karta-system.svc.cluster.local`);
      assert.ok(Math.abs(Date.parse(annotations["karta.run.ai/certificate-not-after"]!) - Date.parse(x509.validTo)) < 120_000, `${annotations["karta.run.ai/certificate-not-after"]} against ${x509.validTo}`);
    }
  });

  test("certificates.selfSigned days and caDays are the certificates' lifetimes", async () => {
    const rendered = await render("--set", "certificates.selfSigned.days=10", "--set", "certificates.selfSigned.caDays=20");
    const secret = rendered.find((o) => o.kind === "Secret")!;
    const pem = (k: string) => new X509Certificate(Buffer.from(secret.data[k] as string, "base64"));
    const days = (c: X509Certificate) => Math.round((Date.parse(c.validTo) - Date.parse(c.validFrom)) / 86_400_000);
    assert.deepEqual([days(pem("tls.crt")), days(pem("ca.crt"))], [10, 20]);
    assert.ok(Date.parse(pem("tls.crt").validTo) > Date.now() + 9 * 86_400_000);
  });

  test("manual certificates: the given CA in every webhook; the Secrets are the user's", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-chart-"));
    try {
      const file = caFile(dir);
      const rendered = await render("--set", "certificates.mode=manual", "--set-file", `certificates.manual.caBundle=${file}`);
      assert.ok(!rendered.some((o) => o.kind === "Secret"));
      const bundles = rendered.filter((o) => o.kind.endsWith("WebhookConfiguration")).flatMap((o) => o.webhooks.map((w: { clientConfig: { caBundle: string } }) => w.clientConfig.caBundle));
      assert.deepEqual(bundles, Array(3).fill(readFileSync(file).toString("base64")));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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

  test("bad values are refused before anything is rendered: by the schema, or by the templates where values depend on each other", async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-chart-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const leasesEverywhere = path.join(dir, "old-role.yaml");
    writeFileSync(leasesEverywhere, stringify({ apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: "karta-controller" }, rules: [{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] }] }));
    const base64Pem = Buffer.from("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n").toString("base64");
    const digest = "sha256:" + "0123456789abcdef".repeat(4);
    const cases: [string[], string][] = [
      // values.schema.json: types, sets of values, ranges, patterns, names.
      [["--set", "certificates.mode=vault"], "at '/certificates/mode': value must be one of 'self-signed', 'cert-manager', 'manual'"],
      [["--set", "controller.webhook.pods.timeoutSeconds=60"], "at '/controller/webhook/pods/timeoutSeconds': maximum: got 60, want 30"],
      [["--set", "controller.webhook.kartas.timeoutSeconds=0"], "at '/controller/webhook/kartas/timeoutSeconds': minimum: got 0, want 1"],
      [["--set", "controller.webhook.pods.failurePolicy=ignore"], "at '/controller/webhook/pods/failurePolicy': value must be one of 'Fail', 'Ignore'"],
      [["--set", "controller.replicas=two"], "at '/controller/replicas': got string, want integer"],
      [["--set", "controller.replicas=0"], "at '/controller/replicas': minimum: got 0, want 1"],
      [["--set", "serve.replicas=-1"], "at '/serve/replicas': minimum: got -1, want 1"],
      [["--set", "controller.ports.metrics=70000"], "at '/controller/ports/metrics': maximum: got 70,000, want 65,535"],
      [["--set", "certificates.selfSigned.days=10y"], "at '/certificates/selfSigned/days': got string, want integer"],
      [["--set", "certificates.selfSigned.days=0"], "at '/certificates/selfSigned/days': minimum: got 0, want 1"],
      [["--set", "certificates.selfSigned.caDays=abc"], "at '/certificates/selfSigned/caDays': got string, want integer"],
      [["--set", "controller.leaderElection.leaseDuration=15"], "at '/controller/leaderElection/leaseDuration': got number, want string"],
      [["--set-string", "controller.leaderElection.renewDeadline=10"], "at '/controller/leaderElection/renewDeadline': '10' does not match pattern"],
      [["--set", "serve.requestTimeout=9 s"], "at '/serve/requestTimeout': '9 s' does not match pattern"],
      [["--set", "controller.metrics.serviceMonitor.interval=30"], "at '/controller/metrics/serviceMonitor/interval': got number, want string"],
      [["--set", "certificates.mode=manual", "--set", `certificates.manual.caBundle=${base64Pem}`], "at '/certificates/manual/caBundle': value must be 'the PEM text itself (-----BEGIN CERTIFICATE-----...), not base64 as upstream Karta"],
      [["--set", "certificates.mode=manual", "--set", "certificates.manual.caBundle=notapem"], "at '/certificates/manual/caBundle': 'notapem' does not match pattern"],
      [["--set", "controller.podLabels.app\\.kubernetes\\.io/name=x"], "at '/controller/podLabels/app.kubernetes.io~1name': value must be '(none: the chart sets this label itself)'"],
      [["--set", "serve.podLabels.app\\.kubernetes\\.io/component=x"], "at '/serve/podLabels/app.kubernetes.io~1component': value must be '(none: the chart sets this label itself)'"],
      [["--set", "commonLabels.helm\\.sh/chart=x"], "at '/commonLabels/helm.sh~1chart': value must be '(none: the chart sets this label itself)'"],
      [["--set", "commonLabels.team=a b"], "at '/commonLabels/team': 'a b' does not match pattern"],
      [["--set", `image.tag=0.1.0@${digest}`], `at '/image/tag': '0.1.0@${digest}' does not match pattern`],
      [["--set", "image.digest=0123"], "at '/image/digest': '0123' does not match pattern"],
      [["--set", "controller.serviceAccount.create=false"], "at '/controller/serviceAccount/name': minLength: got 0, want 1"],
      [["--set", "controller.replica=3"], "at '/controller': additional properties 'replica' not allowed"],
      [["--set", "nameOverride=Karta"], "at '/nameOverride': 'Karta' does not match pattern"],
      // templates/validate.yaml and the templates: what depends on several values.
      [["--set", "controller.leaderElection.enabled=false"], "controller.replicas > 1 requires controller.leaderElection.enabled=true"],
      [["--set", "certificates.mode=manual"], "certificates.mode=manual needs certificates.manual.caBundle"],
      [["--set", "controller.rbac.clusterRole=nonsense"], "controller.rbac.clusterRole: expected a ClusterRole as `karta rbac` prints it"],
      // A role generated before the Lease moved to the Role (Leases in every namespace).
      [["--set-file", `controller.rbac.clusterRole=${leasesEverywhere}`], "controller.rbac.clusterRole: the ClusterRole grants coordination.k8s.io"],
      [["--set", "controller.leaderElection.renewDeadline=20s"], "controller.leaderElection: expected retryPeriod (2s) < renewDeadline (20s) < leaseDuration (15s), as karta controller requires"],
      [["--set", "controller.leaderElection.retryPeriod=0s"], "controller.leaderElection.retryPeriod 0s: expected a positive duration with its unit"],
      [["--set", "controller.ports.health=8080"], "controller.ports.health and controller.ports.metrics are both 8080: each needs a port of its own"],
      [["--set", "controller.ports.webhook=8081"], "controller.ports.health and controller.ports.webhook are both 8081"],
      [["--set", "serve.enabled=true", "--set", "serve.ports.metrics=8443"], "serve.ports.https and serve.ports.metrics are both 8443"],
      [["--set", "serve.enabled=true", "--set", "serve.ports.metrics=443"], "serve.ports.metrics is 443, the Service's HTTPS port"],
      [["--set", "serve.enabled=true", "--set", "serve.shutdownGracePeriod=30s"], "serve.preStopSleepSeconds (5) and serve.shutdownGracePeriod (30s) together must be shorter than serve.terminationGracePeriodSeconds (30)"],
      [["--set", "serve.enabled=true", "--set", "serve.shutdownGracePeriod=25s"], "serve.preStopSleepSeconds (5) and serve.shutdownGracePeriod (25s) together must be shorter than serve.terminationGracePeriodSeconds (30)"],
      [["--set", "controller.preStopSleepSeconds=30"], "controller.preStopSleepSeconds (30) must be shorter than controller.terminationGracePeriodSeconds (30)"],
      [["--set", "controller.preStopSleepSeconds=-1"], "at '/controller/preStopSleepSeconds': minimum: got -1, want 0"],
      [["--set", "certificates.selfSigned.caDays=10", "--set", "certificates.selfSigned.days=20"], "certificates.selfSigned.caDays (10) is less than certificates.selfSigned.days (20)"],
      [["--set", "certificates.mode=cert-manager", "--set", "certificates.certManager.renewBefore=2160h"], "certificates.certManager.renewBefore (2160h) must be less than certificates.certManager.duration (2160h)"],
      [["--set", "controller.podDisruptionBudget.minAvailable=2"], "controller.podDisruptionBudget.minAvailable (2) leaves none of controller.replicas (2) to evict"],
      [["--set", "serve.enabled=true", "--set", "serve.podDisruptionBudget.minAvailable=100%"], "serve.podDisruptionBudget.minAvailable (100%) leaves none of serve.replicas (2) to evict"],
      // The same checks in the templates, for helm's --skip-schema-validation.
      [["--skip-schema-validation", "--set", "certificates.mode=vault"], 'certificates.mode "vault": expected self-signed, cert-manager or manual'],
      [["--skip-schema-validation", "--set", "certificates.selfSigned.days=10y"], "certificates.selfSigned.days 10y: expected a whole number from 1 to 36500"],
      [["--skip-schema-validation", "--set", "certificates.selfSigned.caDays=0"], "certificates.selfSigned.caDays 0: expected a whole number from 1 to 36500"],
      [["--skip-schema-validation", "--set", "controller.leaderElection.leaseDuration=15"], "controller.leaderElection.leaseDuration 15: expected a positive duration with its unit"],
      [["--skip-schema-validation", "--set", "controller.podLabels.app\\.kubernetes\\.io/name=x"], 'controller.podLabels: "app.kubernetes.io/name" is a label the chart sets itself'],
      [["--skip-schema-validation", "--set", "certificates.mode=manual", "--set", `certificates.manual.caBundle=${base64Pem}`], "certificates.manual.caBundle is base64: give the PEM text itself"],
      [["--skip-schema-validation", "--set", "certificates.mode=manual", "--set", "certificates.manual.caBundle=notapem"], "certificates.manual.caBundle: expected PEM certificates"],
      [["--skip-schema-validation", "--set", "controller.serviceAccount.create=false"], "controller.serviceAccount.create=false needs controller.serviceAccount.name"],
    ];
    for (const [args, message] of cases) {
      const r = await run(helm, ["template", "karta", chartDir, "--namespace", "karta-system", ...args]);
      assert.notEqual(r.code, 0, args.join(" "));
      assert.ok(r.stderr.includes(message), `${args.join(" ")}: ${r.stderr}`);
    }
  });

  test("the release namespace default: a warning in NOTES.txt while the pod webhook would leave it out (helm template and upgrades of a release there still work)", async () => {
    const notes = async (...args: string[]) => {
      const r = await run(helm, ["install", "karta", chartDir, "--dry-run=client", ...args]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.slice(r.stdout.indexOf("NOTES:"));
    };
    assert.match(await notes("--namespace", "default"), /WARNING: Karta is installed in "default", where workloads usually run/);
    assert.doesNotMatch(await notes("--namespace", "default", "--set", "controller.webhook.pods.enabled=false"), /WARNING/);
    assert.doesNotMatch(await notes("--namespace", "karta-system"), /WARNING/);
    assert.equal((await run(helm, ["template", "karta", chartDir, "--namespace", "default"])).code, 0);
    // Elsewhere the namespace is left out of the pod webhook, as NOTES.txt says.
    const rendered = await render();
    const webhook = rendered.find((o) => o.kind === "MutatingWebhookConfiguration")!.webhooks.find((w: { name: string }) => w.name === "podgroupname.karta.run.ai");
    assert.deepEqual(webhook.namespaceSelector.matchExpressions[0].values, ["kube-system", "karta-system"]);
  });

  test("the recommended labels are on every object and pod template, the same across a component's objects; selectors are unchanged", async () => {
    const rendered = await render("--set", "serve.enabled=true", "--set", "controller.metrics.serviceMonitor.enabled=true", "--set", "serve.serviceMonitor.enabled=true", "--set", "commonLabels.team=ml", "--set", "controller.podLabels.tier=control");
    const helmLabels = { "app.kubernetes.io/instance": "karta", "app.kubernetes.io/version": "0.1.0", "app.kubernetes.io/part-of": "karta", "app.kubernetes.io/managed-by": "Helm" };
    const component = (o: Obj): [string, string] => {
      if (o.kind === "CustomResourceDefinition") return ["karta", "crd"];
      if (o.metadata.name === "karta-controller-metrics" || (o.kind === "ServiceMonitor" && o.metadata.name === "karta-controller")) return ["karta-controller", "metrics"];
      if (o.metadata.name.startsWith("karta-controller")) return ["karta-controller", "controller"];
      assert.ok(o.metadata.name.startsWith("karta-webhook"), key(o));
      return ["karta-webhook", "resource-interpreter"];
    };
    const kinds = new Set<string>();
    for (const o of rendered) {
      const labels = o.metadata.labels ?? {};
      kinds.add(o.kind);
      for (const [k, v] of Object.entries({ ...helmLabels, team: "ml", "helm.sh/chart": "karta-0.1.0" })) assert.equal(labels[k], v, `${key(o)}: ${k}`);
      const [name, comp] = component(o);
      assert.deepEqual([labels["app.kubernetes.io/name"], labels["app.kubernetes.io/component"]], [name, comp], key(o));
    }
    assert.deepEqual([...kinds].sort(), ["ClusterRole", "ClusterRoleBinding", "ConfigMap", "CustomResourceDefinition", "Deployment", "MutatingWebhookConfiguration", "PodDisruptionBudget", "Role", "RoleBinding", "Secret", "Service", "ServiceAccount", "ServiceMonitor", "ValidatingWebhookConfiguration"]);
    for (const d of rendered.filter((o) => o.kind === "Deployment")) {
      const [name, comp] = component(d);
      // Selectors as the chart's first version had them: a Deployment's selector cannot change on upgrade.
      assert.deepEqual(d.spec.selector.matchLabels, { "app.kubernetes.io/name": name });
      const pod = d.spec.template.metadata.labels as Record<string, string>;
      assert.deepEqual(pod, { ...helmLabels, "app.kubernetes.io/name": name, "app.kubernetes.io/component": comp, ...(name === "karta-controller" ? { tier: "control" } : {}) }, d.metadata.name);
    }
  });

  test("nameOverride renames the application, fullnameOverride the objects", async () => {
    const named = await render("--set", "nameOverride=acme", "--set", "serve.enabled=true");
    assert.deepEqual(named.filter((o) => o.kind === "Deployment").map((o) => [o.metadata.name, o.spec.selector.matchLabels["app.kubernetes.io/name"]]).sort(), [["acme-controller", "acme-controller"], ["acme-webhook", "acme-webhook"]]);
    for (const o of named) assert.equal(o.metadata.labels?.["app.kubernetes.io/part-of"], "acme", key(o));
    assert.equal(named.find((o) => o.kind === "CustomResourceDefinition")!.metadata.labels?.["app.kubernetes.io/name"], "acme");
    const full = await render("--set", "nameOverride=acme", "--set", "fullnameOverride=ops-karta");
    const deployment = full.find((o) => o.kind === "Deployment")!;
    assert.deepEqual([deployment.metadata.name, deployment.metadata.labels?.["app.kubernetes.io/name"], deployment.metadata.labels?.["app.kubernetes.io/part-of"]], ["ops-karta-controller", "ops-karta-controller", "acme"]);
    // The Lease stays karta controller's default name, whatever the objects are called, as the comment says.
    const text = await run(helm, ["template", "karta", chartDir, "--namespace", "karta-system", "--set", "fullnameOverride=ops-karta", "--show-only", "templates/controller/deployment.yaml"]);
    assert.match(text.stdout, /the Lease karta-system\/karta-controller, karta controller's default/);
    assert.ok(!(deployment.spec.template.spec.containers[0].args as string[]).some((a) => a.startsWith("--leader-elect-resource-name")));
  });

  test("image.digest pins the image; app.kubernetes.io/version is a valid label value whatever the tag", async () => {
    const digest = "sha256:" + "0123456789abcdef".repeat(4);
    const images = async (...args: string[]) => {
      const rendered = await render("--set", "serve.enabled=true", ...args);
      const deployments = rendered.filter((o) => o.kind === "Deployment");
      assert.equal(deployments.length, 2);
      return { images: [...new Set(deployments.map((d) => d.spec.template.spec.containers[0].image as string))], versions: [...new Set(rendered.map((o) => o.metadata.labels?.["app.kubernetes.io/version"]))] };
    };
    assert.deepEqual(await images(), { images: ["ghcr.io/karta-dev/karta:0.1.0"], versions: ["0.1.0"] });
    assert.deepEqual(await images("--set", `image.digest=${digest}`), { images: [`ghcr.io/karta-dev/karta@${digest}`], versions: ["0.1.0"] });
    assert.deepEqual(await images("--set", `image.digest=${digest}`, "--set", "image.tag=v1.2.3"), { images: [`ghcr.io/karta-dev/karta:v1.2.3@${digest}`], versions: ["v1.2.3"] });
    const long = "v1.2.3-" + "a".repeat(100) + "_";
    const got = await images("--set", `image.tag=${long}`);
    assert.deepEqual(got.images, [`ghcr.io/karta-dev/karta:${long}`]);
    assert.equal(got.versions.length, 1);
    assert.ok(got.versions[0]!.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(got.versions[0]!), got.versions[0]);
  });

  test("a PodDisruptionBudget only where replicas can be evicted one at a time", async () => {
    const pdbs = async (...args: string[]) => (await render("--set", "serve.enabled=true", ...args)).filter((o) => o.kind === "PodDisruptionBudget").map((o) => [o.metadata.name, o.spec.minAvailable]);
    assert.deepEqual(await pdbs(), [["karta-controller", 1], ["karta-webhook", 1]]);
    assert.deepEqual(await pdbs("--set", "controller.replicas=1", "--set", "controller.leaderElection.enabled=false", "--set", "serve.replicas=1"), []);
    assert.deepEqual(await pdbs("--set", "controller.replicas=3", "--set", "controller.podDisruptionBudget.minAvailable=2", "--set", "serve.podDisruptionBudget.minAvailable=50%"), [["karta-controller", 2], ["karta-webhook", "50%"]]);
  });

  test("an existing ServiceAccount (serviceAccount.create=false) is the one run as and bound; never the namespace's default", async () => {
    const rendered = await render("--set", "controller.serviceAccount.create=false", "--set", "controller.serviceAccount.name=ops-karta");
    assert.ok(!rendered.some((o) => o.kind === "ServiceAccount"));
    assert.equal(rendered.find((o) => o.kind === "Deployment")!.spec.template.spec.serviceAccountName, "ops-karta");
    assert.deepEqual(rendered.find((o) => o.kind === "ClusterRoleBinding")!.subjects, [{ kind: "ServiceAccount", name: "ops-karta", namespace: "karta-system" }]);
    const created = await render("--set", "controller.serviceAccount.name=ops-karta");
    assert.deepEqual(created.filter((o) => o.kind === "ServiceAccount").map((o) => o.metadata.name), ["ops-karta"]);
  });

  test("NOTES.txt says what the values installed, and how to give Karmada the configuration of that karta serve", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-chart-"));
    try {
      const defaults = await notes();
      assert.match(defaults, /karta definitions show PyTorchJob \| kubectl apply -f -/);
      assert.doesNotMatch(defaults, /definitions\//, "no path of Karta's repository");
      assert.match(defaults, /An invalid Karta is refused by the API server/);
      assert.match(defaults, /every namespace but kube-system and\nkarta-system/);
      assert.match(defaults, /the Lease karta-system\/karta-controller, which 'helm uninstall' leaves behind/);
      assert.doesNotMatch(defaults, /karta serve/);
      const noWebhooks = await notes("--set", "controller.webhook.enabled=false");
      assert.doesNotMatch(noWebhooks, /refused|PodGroups/);
      const noKartaWebhooks = await notes("--set", "controller.webhook.kartas.enabled=false");
      assert.doesNotMatch(noKartaWebhooks, /refused/);
      assert.match(noKartaWebhooks, /PodGroups/);
      assert.match(await notes("--set", "controller.webhook.kartas.failurePolicy=Ignore"), /failurePolicy Ignore lets Kartas through/);
      assert.doesNotMatch(await notes("--set", "controller.replicas=1", "--set", "controller.leaderElection.enabled=false"), /Lease/);
      assert.doesNotMatch(await notes("--set-file", `controller.rbac.clusterRole=${path.join(chartDir, "files", "clusterrole.yaml")}`), /karta rbac/);

      // karta serve with definitions, customizations and a feature gate: the configuration is generated from the same.
      const serveArgs = ["--set", "serve.enabled=true", "--set-string", "serve.definitions.my-kind\\.yaml=a", "--set-string", "serve.customizations.custom\\.yaml=b", "--set", "serve.extraArgs={--feature-gates,MultiplePodTemplatesScheduling=true}"];
      const serve = await notes("--set", "controller.enabled=false", ...serveArgs);
      assert.doesNotMatch(serve, /The controller/);
      const rendered = await render(...serveArgs);
      const configMap = (file: string) => rendered.find((o) => o.kind === "ConfigMap" && file in (o.data ?? {}))!.metadata.name;
      assert.ok(serve.includes(`kubectl get secret -n karta-system karta-webhook-serving -o jsonpath='{.data.ca\\.crt}' | base64 -d > ca.crt`), serve);
      assert.ok(serve.includes(`kubectl get configmap -n karta-system ${configMap("my-kind.yaml")} -o jsonpath='{.data.my-kind\\.yaml}' > karta-definitions/my-kind.yaml`), serve);
      assert.ok(serve.includes(`kubectl get configmap -n karta-system ${configMap("custom.yaml")} -o jsonpath='{.data.custom\\.yaml}' > karta-customizations/custom.yaml`), serve);
      assert.ok(serve.includes("karta webhook-config --service-name karta-webhook --service-namespace karta-system --ca-file ca.crt --customizations karta-customizations --definitions karta-definitions --feature-gates=MultiplePodTemplatesScheduling=true \\\n"), serve);
      const plain = await notes("--set", "serve.enabled=true");
      assert.match(plain, /karta webhook-config --service-name karta-webhook --service-namespace karta-system --ca-file ca.crt \\\n/);
      assert.doesNotMatch(plain, /--definitions|--customizations|mkdir/);
      // manual: the CA is the one given, not a ca.crt the user's Secrets need not have.
      const manual = await notes("--set", "serve.enabled=true", "--set", "certificates.mode=manual", "--set-file", `certificates.manual.caBundle=${caFile(dir)}`);
      assert.doesNotMatch(manual, /kubectl get secret/);
      assert.match(manual, /ca\.crt: the CA you gave as certificates\.manual\.caBundle/);
      assert.match(await notes("--set", "serve.enabled=true", "--set", "certificates.mode=cert-manager"), /once cert-manager has issued the certificate:\n {2}kubectl get secret -n karta-system karta-webhook-serving/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
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
