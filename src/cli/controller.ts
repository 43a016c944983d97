/**
 * `karta controller`: runs the Karta reconciler against a cluster until SIGINT/SIGTERM.
 * Exit code: 0 after a graceful shutdown, 1 when it cannot start, 2 usage, 5 after an internal error.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { LeaderElector } from "../controller/leader.js";
import { parseBool, parseCommand, usageError, type Flags } from "./args.js";
import type { CliIO } from "./io.js";
import { KartaReconciler } from "../controller/kartas.js";
import { DEFAULT_WORKLOAD_SYNCS, WorkloadReconciler } from "../controller/workloads.js";
import { KubeClient } from "../controller/client.js";
import { loadClusterAccess, type ClusterAccess } from "../controller/kubeconfig.js";
import { DEFAULT_LEASE_NAME } from "../controller/rbac.js";
import { shardLeaseName, type Shard } from "../controller/shard.js";
import { jsonLogger } from "../controller/log.js";
import { ControllerMetrics } from "../controller/metrics.js";
import { WorkloadExporter } from "../controller/exporter.js";
import { parseBindAddress, startEndpoints, type Endpoints } from "../controller/endpoints.js";
import { parseDuration } from "../server/duration.js";
import { caBundleText, defaultServingNames, ensureCertDir } from "../server/certs.js";
import { readKeyPair } from "../server/tls.js";
import { PROTOBUF } from "../controller/protobuf.js";
import { POD_WEBHOOK_PATH, startWebhook, type WebhookServer } from "../controller/webhook.js";
import { KARTA_MUTATE_PATH, KARTA_VALIDATE_PATH } from "../controller/karta-admission.js";
import { onStopSignals } from "./stop-signals.js";
import { guardInternalErrors } from "./crash.js";
import { EXIT_INTERNAL } from "./exit-codes.js";
import { handwritten } from "../names/index.js";

export const CONTROLLER_HELP = `Usage: karta controller [--kubeconfig FILE] [--context NAME] [--leader-elect=true|false]
                        [--metrics-bind-address ADDR] [--health-probe-bind-address ADDR]
                        [--webhook-port N (--tls-cert-file F --tls-private-key-file F | --cert-dir DIR)]
                        [--group-shape auto|composite|flat] [--total-shards N --shard I] [--full-pod-cache]
                        [--concurrent-workload-syncs N] [--kube-api-content-type TYPE]
                        [--shutdown-delay-duration D] [-v]

Runs the Karta controller. It watches the Karta objects (kartas.run.ai) and keeps their status as
upstream's operator does: the conditions Validated (ValidationSucceeded, or ValidationFailed with the
errors 'karta validate' prints, field paths included), CRDExists (CRDFound, or CRDNotFound: the root kind
is neither built in nor served by a CRD at that version) and Ready (Ready when both are True, else
NotReady), Pending while not evaluated, each with observedGeneration; a Warning Event when a check starts
failing; and the labels run.ai/karta-group, run.ai/karta-version and run.ai/karta-kind. A Karta whose CRD
is applied later becomes Ready without a restart. For every Ready Karta it watches the root kind and pods,
and server-side applies (field manager karta) the Workload, CompositePodGroups and PodGroups that
'karta compile' makes for each object, owned by it, each after what it names (the Workload, then each
level of CompositePodGroups, then the PodGroups, a level's objects at once); groups that no longer exist
are deleted, objects whose immutable fields changed are recreated, the groups it creates are named in
a GroupsCreated Event on the object (also when a later group fails), and interpretation errors become
Events on it.
A pod belongs to the outermost object on its chain of controller ownerReferences whose kind has a Ready
Karta (a JobSet's pods to the JobSet even with a Job Karta; whatever an AppWrapper wraps, to the
AppWrapper), through the kinds the Kartas watch (ReplicaSets, Jobs, StatefulSets, a LeaderWorkerSet's
leader pod...); an object such an owner governs gets no groups of its own. Of two Ready Kartas of one
kind, the oldest governs. A Karta whose root kind is Pod makes no groups (a pod has no UID to name its
group by while it is created, the only time it can join one). A root batch/v1 Job the Job controller
gangs itself (its WorkloadWithJob integration: its Workload, or pods in its PodGroup) is left to it;
Karta makes a root Job's groups once its first pod shows the Job controller does not.
A gang with subgroups is a CompositePodGroup over a PodGroup per subgroup, which the scheduler gangs only
with its CompositePodGroup feature gate; --group-shape flat makes one PodGroup of all its pods instead
(auto, the default: flat when the API server does not serve CompositePodGroup).

With a certificate it also serves admission webhooks on --webhook-port (HTTPS), from its informer caches,
never calling the API server:
  /mutate-v1-pod (Pod CREATE): a pod whose owner chain reaches an object of a Ready Karta's kind gets
    spec.schedulingGroup.podGroupName, the group 'karta compile' puts it in; other pods, and pods that
    name a group already, pass unchanged; an owner not in the cache within 2 s leaves the pod unchanged
    (the reconcile still creates its groups).
  /mutate-run-ai-v1alpha1-karta (mkarta.run.ai, Karta CREATE): the run.ai/karta-* labels.
  /validate-run-ai-v1alpha1-karta (vkarta.run.ai, Karta CREATE and UPDATE): refuses a Karta with the
    errors 'karta validate' prints, a second Karta for a root group/version/kind, a changed root kind,
    and an edited or removed run.ai/karta-* label, in upstream's words.
Every replica serves them; only the Lease holder writes. 'karta webhook-config --admission' prints their
MutatingWebhookConfiguration and ValidatingWebhookConfiguration.

Sharding, as kube-state-metrics shards: --total-shards N --shard I runs shard I of N. Every shard watches
everything, and reconciles (and caches the pods and groups of, and exports on /metrics) the workloads
whose uid hashes to it (FNV-1a modulo N); each shard elects its leader on its own Lease (NAME-shard-I);
shard 0 writes the Kartas' status. Run N Deployments (or one StatefulSet with the ordinal as --shard),
with the Role 'karta rbac --total-shards N' prints. docs/scaling.md has the figures per shard.

Pods that do not name their group (created while the webhook was unreachable under failurePolicy Ignore,
or without it) cannot join their gang once created: each such workload gets a Warning Event
PodsWithoutGroup naming them (more found later are reported at most every 10 minutes), and
karta_pods_without_group counts them at once.

Logs are JSON lines on standard error. Prometheus metrics (work queue depth, reconcile count, errors and
latency per controller, leadership, webhook latency) are served at /metrics, and the probes /healthz and
/readyz (ready once its caches are synced and its webhook listens, leading or not; not while shutting
down) on their own address.
/metrics also exports the workloads, as upstream's proposed exporter names them: karta_workload_info,
karta_workload_status, karta_workload_component_replicas, karta_workload_component_pods,
karta_pod_workload_info (the join key of the recording rules in deploy/prometheus) and the exporter's own
karta_exporter_* health, from the informer caches on every replica. The pod cache keeps a pod's metadata,
spec.nodeName, spec.schedulingGroup, status.phase and the fields the Ready Kartas' pod expressions read.
It watches pods in protobuf, as kube-scheduler and the kubelet do (the API server encodes each pod once
for all of them; a JSON watch costs it an encoding per event), unless a Ready Karta reads pod fields the
protobuf decoder does not keep (then JSON); the Karta kinds, groups and lists are JSON. While pods keep
changing, the pod watch is read at most every 100 ms, a batch of events at once (less CPU per event), and
a workload's pods requeue it at most once a second after it was compiled. Updates that cannot change a
compile requeue nothing: a pod's that changed only fields the cache does not keep (a kubelet's
conditions no Karta reads), a workload's that changed only its status when no expression its Karta
compiles with reads the status (an operator reporting progress), a group's that changed only its
status (the scheduler's), and an object's between a workload and its pods that changed only its status
(a JobSet's Job, written by the Job controller as its pods change).
SIGTERM or SIGINT: stop taking work, finish the requests and reconciles in flight, release the Lease, exit 0.
With --shutdown-delay-duration, first keep working and serving that long with /readyz failing (and the
webhook's answers closing their connections), so the API server stops calling this replica through the
Service before its port closes; a second signal ends the delay.

The kubeconfig is found as kubectl finds it: --kubeconfig, else KUBECONFIG or ~/.kube/config, else
the in-cluster service account. 'karta rbac' prints the ClusterRole and the Role (its Lease) it needs.

      --kubeconfig FILE   the kubeconfig to use
      --context NAME      the kubeconfig context to use
      --leader-elect=BOOL run only while holding the coordination.k8s.io/v1 Lease (default true)
      --leader-elect-lease-duration D   how long a Lease is held without renewal (default 15s)
      --leader-elect-renew-deadline D   how long the leader retries renewing before it gives up (default 10s)
      --leader-elect-retry-period D     how often to try to acquire or renew (default 2s)
      --leader-elect-resource-name N    the Lease's name (default karta-controller)
      --leader-elect-resource-namespace NS  the Lease's namespace (default: the pod's, else default)
      --metrics-bind-address ADDR       host:port of /metrics, "0" to turn it off (default :8080)
      --health-probe-bind-address ADDR  host:port of /healthz and /readyz, "0" to turn it off (default :8081)
      --webhook-port N                  HTTPS port of the admission webhooks (default 9443; 0 picks a free one)
                                        A host left out, 0.0.0.0 or [::] is every address of both IP
                                        families (IPv4 only on a host without IPv6), as Go servers listen.
      --tls-cert-file FILE              the webhook's serving certificate (PEM, with its chain); reloaded on change
      --tls-private-key-file FILE       its private key
      --cert-dir DIR                    instead: a self-signed CA and certificate generated into DIR (ca.crt,
                                        tls.crt, tls.key), or reused (a tls.crt and tls.key already there are
                                        used as they are; half a pair, or a ca.crt alone, is refused); without
                                        any of the three, no webhook
      --tls-san NAME                    extra DNS name or IP of the generated certificate (repeatable)
      --group-shape SHAPE               auto (default), composite or flat: how gangs with subgroups are made
      --total-shards N                  how many shards the workloads are split into (default 1)
      --shard I                         this process's shard, 0 to N-1 (default 0)
      --full-pod-cache                  cache whole pods rather than the fields read (memory for custom Kartas
                                        whose pod expressions the static analysis cannot follow anyway)
      --cache-sync-timeout D            how long the caches may take to list at start (default 2m)
      --concurrent-workload-syncs N     workloads reconciled at once (default 2): more keeps up with bigger
                                        bursts of new workloads, at more requests in flight to the API server
      --kube-api-content-type TYPE      how pods are watched: application/vnd.kubernetes.protobuf (default)
                                        or application/json
      --shutdown-delay-duration D       on SIGTERM, keep serving this long, not ready, before stopping
                                        (default 0s; the manifests use a preStop sleep instead)
  -v, --v LEVEL           log verbosity, as klog's: 0 to 3 log info and errors (default 0), 4 and
                          more also debug lines; -v alone is -v 4
      --verbose           debug logs (as -v 4)
  -h, --help              show this help

Exit code: 0 after a graceful shutdown (SIGINT/SIGTERM), 1 when it cannot start or loses
leadership, 2 usage, 5 after an internal error (an exception nothing caught: logged as a JSON line with
its stack trace, then the controller stops as on SIGTERM, within 10 s).
In a cluster: helm install karta charts/karta -n karta-system --create-namespace.

Example:
  kubectl apply -f deploy/crd/run.ai_kartas.yaml
  kubectl wait --for condition=established crd/kartas.run.ai
  kubectl apply -f definitions/kubeflow.org/v1/PyTorchJob.yaml
  karta controller --kubeconfig ~/.kube/config --cert-dir /tmp/karta-webhook --tls-san host.docker.internal
  karta webhook-config --admission --url https://host.docker.internal:9443 \\
      --ca-file /tmp/karta-webhook/ca.crt | kubectl apply -f -
  curl -s localhost:8080/metrics | grep -E 'controller_runtime_webhook_latency_seconds|karta_workload_status'
`;

/** The klog verbosity from which the controller logs debug lines (klog's convention: 4 is debug level). */
const DEBUG_VERBOSITY = 4;

const SA_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
/** How long the stop after an internal error may take before the process exits anyway. */
const INTERNAL_ERROR_GRACE_MS = 10_000;

export const FLAGS = {
  kubeconfig: { type: "string" },
  context: { type: "string" },
  "leader-elect": { type: "string", choices: ["true", "false"], default: "true" },
  "leader-elect-lease-duration": { type: "string" },
  "leader-elect-renew-deadline": { type: "string" },
  "leader-elect-retry-period": { type: "string" },
  // Checked as the API server checks a Lease's name and namespace: each becomes a segment of a request's path.
  "leader-elect-resource-name": { type: "string", validate: (n: string) => handwritten.isDNS1123Subdomain(n) },
  "leader-elect-resource-namespace": { type: "string", validate: (ns: string) => handwritten.isDNS1123Label(ns) },
  "metrics-bind-address": { type: "string", default: ":8080" },
  "health-probe-bind-address": { type: "string", default: ":8081" },
  "webhook-port": { type: "integer", min: 0, max: 65535, default: 9443 },
  "tls-cert-file": { type: "string" },
  "tls-private-key-file": { type: "string" },
  "cert-dir": { type: "string" },
  "tls-san": { type: "string", multiple: true },
  "group-shape": { type: "string", choices: ["auto", "composite", "flat"], default: "auto" },
  "total-shards": { type: "integer", min: 1, max: 1024, default: 1 },
  shard: { type: "integer", min: 0, max: 1023, default: 0 },
  "full-pod-cache": { type: "boolean" },
  "cache-sync-timeout": { type: "string" },
  "concurrent-workload-syncs": { type: "integer", min: 1, max: 1000, default: DEFAULT_WORKLOAD_SYNCS },
  "kube-api-content-type": { type: "string", choices: [PROTOBUF, "application/json"], default: PROTOBUF },
  "shutdown-delay-duration": { type: "string" },
  // klog's verbosity, as every Kubernetes component takes it (--v=2 in a Deployment's args); -v alone is
  // debug, as it was when -v was a switch (the chart's controller.verbose passes it so).
  v: { type: "integer", short: "v", min: 0, max: 2 ** 31 - 1, noOptDefault: DEBUG_VERBOSITY },
  verbose: { type: "boolean" },
} as const satisfies Flags;

export async function runController(rawArgs: string[], io: CliIO, signal?: AbortSignal): Promise<number> {
  // Kubernetes components take --leader-elect alone or with a value strconv.ParseBool reads (=false, =0, =F).
  const args = rawArgs.map((a) => {
    const value = a === "--leader-elect" ? "true" : a.startsWith("--leader-elect=") ? a.slice("--leader-elect=".length) : undefined;
    const elect = value === undefined ? undefined : parseBool(value);
    return elect === undefined ? a : `--leader-elect=${elect}`;
  });
  const parsed = parseCommand(io, "controller", args, FLAGS, CONTROLLER_HELP);
  if (typeof parsed === "number") return parsed;
  const values = parsed.values;
  const usage = (msg: string): number => usageError(io, "controller", msg);
  const elect = values["leader-elect"];
  const durations: Record<string, number> = {};
  for (const [flag, dflt] of [
    ["leader-elect-lease-duration", "15s"],
    ["leader-elect-renew-deadline", "10s"],
    ["leader-elect-retry-period", "2s"],
  ] as const) {
    const ms = parseDuration(values[flag] ?? dflt);
    if (ms === undefined || ms <= 0) return usage(`--${flag} must be a duration such as 15s, not '${values[flag]}'`);
    durations[flag] = ms;
  }
  if (!(durations["leader-elect-retry-period"]! < durations["leader-elect-renew-deadline"]! && durations["leader-elect-renew-deadline"]! < durations["leader-elect-lease-duration"]!)) {
    return usage("leader election needs --leader-elect-retry-period < --leader-elect-renew-deadline < --leader-elect-lease-duration");
  }
  const binds = { metrics: parseBindAddress(values["metrics-bind-address"]), health: parseBindAddress(values["health-probe-bind-address"]) };
  for (const [which, flag] of [["metrics", "metrics-bind-address"], ["health", "health-probe-bind-address"]] as const) {
    if (binds[which] === undefined) return usage(`invalid value '${values[flag]}' for --${flag}: expected host:port (e.g. :8080, 127.0.0.1:8080) or 0 to turn it off`);
  }
  if ((values["tls-cert-file"] === undefined) !== (values["tls-private-key-file"] === undefined)) return usage("--tls-cert-file and --tls-private-key-file go together");
  if (values["tls-cert-file"] !== undefined && values["cert-dir"] !== undefined) return usage("give --tls-cert-file and --tls-private-key-file, or --cert-dir, not both");
  const shard: Shard = { total: values["total-shards"], index: values.shard };
  if (shard.index >= shard.total) return usage(`--shard must be less than --total-shards (${shard.total}), not ${shard.index}`);
  const syncTimeoutMs = parseDuration(values["cache-sync-timeout"] ?? "2m");
  if (syncTimeoutMs === undefined || syncTimeoutMs <= 0) return usage(`--cache-sync-timeout must be a duration such as 2m, not '${values["cache-sync-timeout"]}'`);
  const shutdownDelayMs = parseDuration(values["shutdown-delay-duration"] ?? "0s");
  if (shutdownDelayMs === undefined || shutdownDelayMs < 0) return usage(`--shutdown-delay-duration must be a duration such as 5s, not '${values["shutdown-delay-duration"]}'`);
  const log = jsonLogger((l) => io.stderr(l), values.verbose === true || (values.v ?? 0) >= DEBUG_VERBOSITY);
  let tlsFiles: { certFile: string; keyFile: string } | undefined;
  if (values["tls-cert-file"] !== undefined) tlsFiles = { certFile: values["tls-cert-file"], keyFile: values["tls-private-key-file"]! };
  else if (values["cert-dir"] !== undefined) {
    try {
      const made = ensureCertDir(values["cert-dir"], defaultServingNames(values["tls-san"]));
      tlsFiles = made;
      log("info", made.created ? "generated a self-signed CA and webhook serving certificate" : "using the webhook certificate", { certDir: values["cert-dir"], caBundle: caBundleText(made) });
    } catch (err) {
      log("error", "cannot start", { err: `--cert-dir ${values["cert-dir"]}: ${(err as Error).message}` });
      return 1;
    }
  }
  // Checked before connecting: the webhook starts only once the caches have synced, which may be minutes.
  const pair = tlsFiles && readKeyPair(tlsFiles.certFile, tlsFiles.keyFile);
  if (pair && !pair.ok) {
    log("error", "cannot start", { err: pair.error });
    return 1;
  }
  let access: ClusterAccess;
  try {
    access = loadClusterAccess({ ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}), ...(values.context !== undefined ? { context: values.context } : {}) });
  } catch (err) {
    log("error", "cannot start", { err: (err as Error).message });
    return 1;
  }
  let reconciler: KartaReconciler | undefined;
  let workloads: WorkloadReconciler | undefined;
  let webhook: WebhookServer | undefined;
  let failure = 0;
  const stop = new AbortController();
  const metrics = new ControllerMetrics();
  const client = new KubeClient(access, { log, onResponse: (method, code) => metrics.requests.inc({ method, code }) });
  /** Caches synced and the webhook (when served) listening: every replica serves it from its caches. */
  let serving = false;
  // SIGTERM: with a delay, not ready but working and serving until it is over (or a second signal), so
  // that the Service's endpoints drop this replica before its webhook stops listening; without one, or
  // before it was ever ready (in no endpoints), stop at once, gracefully.
  const stopNow = (): void => stop.abort();
  const signals = onStopSignals({
    delayMs: shutdownDelayMs,
    canDelay: () => serving && !stop.signal.aborted,
    beginDelay: () => {
      webhook?.unready();
      log("info", "shutting down after the delay: not ready, still serving", { shutdownDelay: values["shutdown-delay-duration"] });
    },
    stop: stopNow,
    ...(signal !== undefined ? { abort: signal } : {}),
  });
  let endpoints: Endpoints;
  try {
    endpoints = await startEndpoints(binds.metrics ?? null, binds.health ?? null, metrics, {
      healthy: () => true,
      ready: () => !stop.signal.aborted && !signals.delaying && serving,
    });
  } catch (err) {
    signals.release();
    log("error", "cannot start", { err: `cannot listen: ${(err as Error).message}` });
    return 1;
  }
  // Said only of what is served: with both addresses 0 nothing is.
  if (endpoints.metricsPort !== undefined || endpoints.healthPort !== undefined) log("info", "serving endpoints", { ...(endpoints.metricsPort !== undefined ? { metricsPort: endpoints.metricsPort } : {}), ...(endpoints.healthPort !== undefined ? { healthProbePort: endpoints.healthPort } : {}) });
  else log("info", "not serving metrics or probes: --metrics-bind-address and --health-probe-bind-address are 0");
  // The caches run on every replica (as controller-runtime's do), so a follower's webhook answers and a new
  // leader starts warm; only the leader writes.
  const leadingFromStart = elect !== "true";
  // A bug of ours (an exception nothing caught) is logged as a JSON line, then the controller stops at once.
  const guard = guardInternalErrors({ report: (fields) => log("error", "internal error: shutting down", { ...fields }), stop: stopNow, graceMs: INTERNAL_ERROR_GRACE_MS });
  const unhook = (): void => {
    signals.release();
    guard.release();
  };
  try {
    // One shard writes the Kartas' status; every shard computes which Kartas are Ready.
    reconciler = new KartaReconciler(client, log, { leading: leadingFromStart && shard.index === 0 });
    workloads = new WorkloadReconciler(client, reconciler, log, { leading: leadingFromStart, shard, fullPodCache: values["full-pod-cache"] === true, groupShape: values["group-shape"], workers: values["concurrent-workload-syncs"], protobuf: values["kube-api-content-type"] === PROTOBUF });
    metrics.watch("karta", reconciler.queue);
    metrics.watch("workload", workloads.queue);
    metrics.watchWorkloads(workloads);
    const k = reconciler;
    const w = workloads;
    const exporter = new WorkloadExporter(
      {
        watchedRoots: () => w.watchedRoots(),
        cachedPods: () => w.cachedPods(),
        resolve: (o) => w.resolve(o),
        get lastEventAt() {
          return w.lastEventAt;
        },
        kartaValidity: () => k.kartaValidity(),
      },
      metrics.registry,
    );
    metrics.addText(() => exporter.expositionParts());
    const started = await within(syncTimeoutMs, stop.signal, async () => {
      await k.start();
      await w.start();
    });
    if (started !== "done") {
      await workloads.stop();
      await reconciler.stop();
      await endpoints.close();
      client.close();
      unhook();
      if (started === "stopped") {
        log("info", "stopped before the caches synced");
        return guard.failed ? EXIT_INTERNAL : 0;
      }
      log("error", "cannot start", { err: `the caches did not sync within ${values["cache-sync-timeout"] ?? "2m"}${k.lastSyncError() ?? w.lastSyncError() ? `: ${k.lastSyncError() ?? w.lastSyncError()}` : ""}` });
      return 1;
    }
    if (tlsFiles) {
      const kartas = reconciler;
      webhook = await startWebhook({ host: "", port: values["webhook-port"], ...tlsFiles, source: workloads, kartas: () => kartas.cachedKartas(), metrics, log });
      log("info", "serving the admission webhook", { webhookPort: webhook.port, paths: [POD_WEBHOOK_PATH, KARTA_MUTATE_PATH, KARTA_VALIDATE_PATH] });
    } else {
      log("info", "not serving the admission webhook: give --tls-cert-file and --tls-private-key-file, or --cert-dir");
    }
    // Ready only now: a replica in the Service's endpoints whose webhook port is not bound yet refuses the API server's calls.
    serving = true;
  } catch (err) {
    log("error", "cannot start", { err: (err as Error).message });
    await webhook?.close(0);
    await workloads?.stop();
    await reconciler?.stop();
    await endpoints.close();
    client.close();
    unhook();
    return 1;
  }
  const startLeading = (): void => {
    reconciler!.setLeading(shard.index === 0);
    workloads!.setLeading(true);
    log("info", "reconciling");
  };
  let elector: LeaderElector | undefined;
  if (elect === "true") {
    const namespace = values["leader-elect-resource-namespace"] ?? (existsSync(SA_NAMESPACE) ? readFileSync(SA_NAMESPACE, "utf8").trim() : "default");
    // The name `karta rbac`'s Role grants by default.
    const leaseName = shardLeaseName(values["leader-elect-resource-name"] ?? DEFAULT_LEASE_NAME, shard);
    elector = new LeaderElector(
      client,
      {
        namespace,
        name: leaseName,
        identity: `${hostname()}_${randomBytes(4).toString("hex")}`,
        leaseDurationMs: durations["leader-elect-lease-duration"]!,
        renewDeadlineMs: durations["leader-elect-renew-deadline"]!,
        retryPeriodMs: durations["leader-elect-retry-period"]!,
      },
      {
        onStartedLeading: () => {
          metrics.leader.set({ name: leaseName }, 1);
          startLeading();
        },
        onStoppedLeading: () => {
          metrics.leader.set({ name: leaseName }, 0);
          // As Kubernetes controllers do: a replica that lost the Lease exits and is restarted.
          if (!stop.signal.aborted) {
            failure = 1;
            stop.abort();
          }
        },
      },
      log,
    );
    log("info", "karta controller started; waiting for the lease", { lease: `${namespace}/${leaseName}`, ...(shard.total > 1 ? { shard: shard.index, totalShards: shard.total } : {}) });
    void elector.run();
  } else {
    log("info", "karta controller started", shard.total > 1 ? { shard: shard.index, totalShards: shard.total } : {});
    startLeading();
  }
  await new Promise<void>((resolve) => {
    if (stop.signal.aborted) resolve();
    else stop.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  unhook();
  log("info", "shutting down");
  await webhook?.close();
  await workloads?.stop();
  await reconciler?.stop();
  await elector?.release();
  await endpoints.close();
  client.close();
  log("info", "stopped");
  return guard.failed ? EXIT_INTERNAL : failure;
}

/** Runs `fn` until it settles, `ms` pass, or `signal` aborts: which came first (an error of `fn` throws). */
async function within(ms: number, signal: AbortSignal, fn: () => Promise<void>): Promise<"done" | "timeout" | "stopped"> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      fn().then(() => "done" as const),
      new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms))),
      new Promise<"stopped">((resolve) => {
        onAbort = () => resolve("stopped");
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
