/**
 * `karta serve`: runs Karmada's resource interpreter webhook (src/server) until SIGTERM or SIGINT,
 * then drains requests in flight and exits 0 (5 after an internal error, see crash.ts). Flags are named as Kubernetes components name them.
 */
import { fileURLToPath } from "node:url";
import { caBundleText, certDirFiles, defaultServingNames, ensureCertDir } from "../server/certs.js";
import { parseDuration } from "../server/duration.js";
import { SERVE_DEFAULTS } from "../server/index.js";
import { ServeError, splitHostPort, startServer, type ServeOptions } from "../server/server.js";
import { availableCpus, reportFailure, reportServing, servingProcess, startServingProcesses } from "../server/processes.js";
import type { Logger } from "../server/log.js";
import { parseCommand, usageError, type Flags, type ParsedArgs } from "./args.js";
import type { CliIO } from "./io.js";
import { guardInternalErrors } from "./crash.js";
import { onStopSignals } from "./stop-signals.js";
import { EXIT_INTERNAL } from "./exit-codes.js";

export const SERVE_HELP = `Usage: karta serve [options]

Runs Karmada's resource interpreter webhook: an HTTPS server answering ResourceInterpreterContext
requests for every kind Karta interprets (the customizations given, the Kartas, the bundled
customizations, Karmada's built-in interpreters), with /healthz, /readyz and /metrics on a
separate plain HTTP port. Configuration files and certificates are reloaded when they change.

Options:
      --secure-port PORT            HTTPS port (default 8443)
      --bind-address IP             address to listen on (default 0.0.0.0); 0.0.0.0 or :: is every
                                    address of both IP families (IPv4 only on a host without IPv6)
      --tls-cert-file FILE          serving certificate (PEM, with its chain)
      --tls-private-key-file FILE   its private key (PEM)
      --cert-dir DIR                without the two above: a self-signed CA and serving certificate
                                    are generated into DIR (ca.crt, tls.crt, tls.key), or reused; a
                                    tls.crt and tls.key already there are used as they are (half a
                                    pair, or a ca.crt alone, is refused)
      --tls-san NAME                extra DNS name or IP of the generated certificate (repeatable)
      --definitions PATH            Karta definitions, file or directory (repeatable; they replace
                                    the bundled Kartas for their kinds)
      --customizations PATH         ResourceInterpreterCustomizations, file or directory (repeatable)
      --feature-gates GATES         e.g. MultiplePodTemplatesScheduling=true (answers InterpretComponent)
      --path PATH                   where requests are posted (default /interpret)
      --metrics-bind-address ADDR   host:port of /healthz, /readyz, /metrics (default :8080; no host
                                    is every address, as for --bind-address)
      --max-request-bytes SIZE      larger bodies get 413 (default 3MiB)
      --request-timeout DURATION    deadline of each request (default 10s)
      --processes N                 serving processes sharing the port, each an event loop answering
                                    requests (default: the CPUs available, at most 4; the CPU quota
                                    of the container counts); 1 serves from this process alone
      --workers N                   evaluation worker threads per serving process (default: the CPUs
                                    available over the processes, at least 1)
      --shutdown-delay-duration DUR on SIGTERM, keep serving this long with /readyz failing before
                                    closing the port, so load balancers and Service endpoints stop
                                    sending first (default 0s; the manifests use a preStop sleep)
      --shutdown-grace-period DUR   time to finish requests in flight after that (default 20s)
      --log-level LEVEL             debug, info, warn or error (default info)
  -v, --v LEVEL                     log verbosity, as klog's: 0 to 3 change nothing (default 0), 4 and
                                    more log debug lines whatever --log-level says; -v alone is -v 4
  -h, --help                        show this help

A second SIGTERM or SIGINT during --shutdown-delay-duration ends the delay.

Exit codes: 0 stopped by SIGTERM/SIGINT, 1 configuration or certificate error, 2 usage, 5 after an
internal error (an exception nothing caught: logged as a JSON line with its stack trace, then the
server drains as on SIGTERM, within the grace period and 5 s).

Example:
  karta serve --cert-dir /tmp/karta-certs --customizations interpreter-customizations/ \\
      --secure-port 8443 --metrics-bind-address 127.0.0.1:8080
`;

class UsageError extends Error {}

/** A byte size: a number, or with a suffix Ki, Mi, Gi (also KiB, MiB, GiB), k, M, G. */
export function parseBytes(text: string): number | undefined {
  const m = /^(\d+)(Ki|Mi|Gi|KiB|MiB|GiB|k|K|M|G|B)?$/.exec(text);
  if (!m) return undefined;
  const unit: Record<string, number> = { "": 1, B: 1, Ki: 1024, KiB: 1024, Mi: 1024 ** 2, MiB: 1024 ** 2, Gi: 1024 ** 3, GiB: 1024 ** 3, k: 1000, K: 1000, M: 1e6, G: 1e9 };
  return Number(m[1]) * unit[m[2] ?? ""]!;
}

function duration(name: string, v: string): number {
  const ms = parseDuration(v);
  if (ms === undefined) throw new UsageError(`invalid argument ${JSON.stringify(v)} for "${name}": expected a duration such as 10s or 500ms`);
  return ms;
}

/** Parses `--feature-gates A=true,B=false` (repeatable); only Karmada's gates Karta knows are accepted. */
export function parseFeatureGates(values: readonly string[]): { multiplePodTemplatesScheduling: boolean } {
  let multiple = false;
  for (const v of values) {
    for (const part of v.split(",").filter((p) => p !== "")) {
      const m = /^([A-Za-z0-9]+)=(true|false)$/i.exec(part.trim());
      if (!m) throw new UsageError(`invalid argument ${JSON.stringify(part)} for "--feature-gates": expected NAME=true|false`);
      if (m[1] !== "MultiplePodTemplatesScheduling") throw new UsageError(`unrecognized feature gate: ${m[1]} (known: MultiplePodTemplatesScheduling)`);
      multiple = m[2]!.toLowerCase() === "true";
    }
  }
  return { multiplePodTemplatesScheduling: multiple };
}

type Parsed = Omit<ServeOptions, "tlsCertFile" | "tlsPrivateKeyFile"> & { tlsCertFile?: string; tlsPrivateKeyFile?: string; certDir?: string; tlsSans: string[]; logLevel: string; processes: number; shutdownDelayMs: number };

/** What a serving process of --processes is started with (JSON, in its environment). */
type ProcessOptions = Omit<ServeOptions, "logger"> & { logLevel: string };

/** Serving processes by default: one per CPU, up to this many (each is a Node.js process of its own). */
const MAX_DEFAULT_PROCESSES = 4;

/** The klog verbosity from which debug lines are logged (klog's convention: 4 is debug level), as in karta controller. */
const DEBUG_VERBOSITY = 4;

export const FLAGS = {
  "secure-port": { type: "integer", min: 0, max: 65535, default: SERVE_DEFAULTS.securePort },
  "bind-address": { type: "string", default: SERVE_DEFAULTS.bindAddress },
  "tls-cert-file": { type: "string" },
  "tls-private-key-file": { type: "string" },
  "cert-dir": { type: "string" },
  "tls-san": { type: "string", multiple: true },
  definitions: { type: "string", multiple: true },
  customizations: { type: "string", multiple: true },
  "feature-gates": { type: "string", multiple: true },
  path: { type: "string", default: SERVE_DEFAULTS.path },
  "metrics-bind-address": { type: "string", default: SERVE_DEFAULTS.metricsBindAddress },
  // Sizes and durations without a default here default to SERVE_DEFAULTS' numbers in parse().
  "max-request-bytes": { type: "string" },
  "request-timeout": { type: "string" },
  processes: { type: "integer", min: 1, max: 64 },
  workers: { type: "integer", min: 1, max: 256 },
  "shutdown-delay-duration": { type: "string" },
  "shutdown-grace-period": { type: "string" },
  "log-level": { type: "string", choices: ["debug", "info", "warn", "error"], default: "info" },
  // klog's verbosity, as Karmada's components take it (--v=4 in a Deployment's args), as in karta controller.
  v: { type: "integer", short: "v", min: 0, max: 2 ** 31 - 1, noOptDefault: DEBUG_VERBOSITY },
} as const satisfies Flags;

/** What is wrong with a URL path the server answers at (`--path`, here and in webhook-config), or undefined. */
export function pathProblem(path: string): string | undefined {
  return !path.startsWith("/") || /[?#]/.test(path) ? "must be a path that starts with / (no ? or #)" : undefined;
}

/** The server's options from what the command line says; a UsageError for values the parser cannot check. */
function parse(values: ParsedArgs<typeof FLAGS>["values"]): Parsed {
  const maxBytes = values["max-request-bytes"] === undefined ? SERVE_DEFAULTS.maxRequestBytes : parseBytes(values["max-request-bytes"]);
  if (maxBytes === undefined || maxBytes < 1) throw new UsageError(`invalid argument ${JSON.stringify(values["max-request-bytes"])} for "--max-request-bytes": expected a size such as 3MiB or 1048576`);
  const badPath = pathProblem(values.path);
  if (badPath !== undefined) throw new UsageError(`invalid argument ${JSON.stringify(values.path)} for "--path": ${badPath}`);
  if (splitHostPort(values["metrics-bind-address"]) === undefined) throw new UsageError(`invalid argument ${JSON.stringify(values["metrics-bind-address"])} for "--metrics-bind-address": expected host:port (:8080, 127.0.0.1:8080, [::1]:8080)`);
  const cpus = availableCpus();
  const processes = values.processes ?? Math.min(cpus, MAX_DEFAULT_PROCESSES);
  const requestTimeoutMs = values["request-timeout"] === undefined ? SERVE_DEFAULTS.requestTimeoutMs : duration("--request-timeout", values["request-timeout"]);
  if (requestTimeoutMs <= 0) throw new UsageError(`"--request-timeout" must be positive`);
  const p: Parsed = {
    securePort: values["secure-port"],
    bindAddress: values["bind-address"],
    definitions: values.definitions,
    customizations: values.customizations,
    ...parseFeatureGates(values["feature-gates"]),
    path: values.path,
    metricsBindAddress: values["metrics-bind-address"],
    maxRequestBytes: maxBytes,
    requestTimeoutMs,
    processes,
    workers: values.workers ?? Math.max(1, Math.floor(cpus / processes)),
    shutdownGracePeriodMs: values["shutdown-grace-period"] === undefined ? SERVE_DEFAULTS.shutdownGracePeriodMs : duration("--shutdown-grace-period", values["shutdown-grace-period"]),
    shutdownDelayMs: values["shutdown-delay-duration"] === undefined ? 0 : duration("--shutdown-delay-duration", values["shutdown-delay-duration"]),
    tlsSans: values["tls-san"],
    // The more verbose of the two: -v 4 logs debug lines whatever --log-level says.
    logLevel: (values.v ?? 0) >= DEBUG_VERBOSITY ? "debug" : values["log-level"],
  };
  if (values["tls-cert-file"] !== undefined) p.tlsCertFile = values["tls-cert-file"];
  if (values["tls-private-key-file"] !== undefined) p.tlsPrivateKeyFile = values["tls-private-key-file"];
  if (values["cert-dir"] !== undefined) p.certDir = values["cert-dir"];
  if ((p.tlsCertFile === undefined) !== (p.tlsPrivateKeyFile === undefined)) throw new UsageError("--tls-cert-file and --tls-private-key-file go together");
  if (p.tlsCertFile === undefined && p.certDir === undefined) throw new UsageError("give --tls-cert-file and --tls-private-key-file, or --cert-dir to generate a self-signed certificate");
  return p;
}

/** What the drain after an internal error may take beyond --shutdown-grace-period before the process exits anyway. */
const INTERNAL_ERROR_EXTRA_MS = 5000;

/** Runs `karta serve` until SIGTERM or SIGINT. */
export async function runServe(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(io, "serve", args, FLAGS, SERVE_HELP);
  if (typeof parsed === "number") return parsed;
  let p: Parsed;
  try {
    p = parse(parsed.values);
  } catch (e) {
    if (e instanceof UsageError) return usageError(io, "serve", e.message);
    throw e;
  }
  let certFile = p.tlsCertFile;
  let keyFile = p.tlsPrivateKeyFile;
  if (certFile === undefined || keyFile === undefined) {
    // Before a certificate is written into --cert-dir, the whole configuration is checked: a start that
    // fails on a definition leaves nothing behind. Only then: startServer reads it again (as a reload does).
    if (!certDirFiles(p.certDir!).complete) {
      const { readConfig } = await import("../server/config.js");
      const config = await readConfig(p);
      if (config.ok === false) return serveFailed(io, new ServeError("the configuration has errors", config.errors));
    }
    try {
      const made = ensureCertDir(p.certDir!, defaultServingNames(p.tlsSans));
      certFile = made.certFile;
      keyFile = made.keyFile;
      io.stderr(`karta serve: ${made.created ? "generated a self-signed CA and serving certificate" : "using the certificate"} in ${p.certDir}; CA bundle: ${caBundleText(made)}\n`);
    } catch (e) {
      io.stderr(`karta serve: --cert-dir ${p.certDir}: ${(e as Error).message}\n`);
      return 1;
    }
  }
  const { createLogger } = await import("../server/log.js");
  const logger = createLogger(p.logLevel);
  // The delay is this process's: a serving process of --processes is told to stop once it is over.
  const { shutdownDelayMs, ...options } = { ...p, tlsCertFile: certFile, tlsPrivateKeyFile: keyFile };
  let server: Stoppable;
  try {
    if (p.processes === 1) server = await startServer({ ...options, logger });
    else {
      const { processes, ...serverOptions } = options;
      const entry = fileURLToPath(new URL("./serving-process.js", import.meta.url));
      server = await startServingProcesses({ entry, processes, serverOptions: serverOptions satisfies ProcessOptions, metricsBindAddress: p.metricsBindAddress, path: p.path, workersPerProcess: p.workers, shutdownGracePeriodMs: p.shutdownGracePeriodMs, log: logger });
    }
  } catch (e) {
    if (e instanceof ServeError) return serveFailed(io, e);
    throw e;
  }
  return serveUntilStopped(server, logger, p.shutdownGracePeriodMs, shutdownDelayMs);
}

/** Says why the server cannot start, with each detail on its own line; exit code 1. */
function serveFailed(io: CliIO, e: ServeError): number {
  io.stderr(`karta serve: ${e.message}\n${e.details.map((d) => `  ${d}\n`).join("")}`);
  return 1;
}

/** A serving process of --processes (serving-process.ts): the server without probes, reporting to its supervisor. */
export async function runServingProcess(): Promise<never> {
  const child = servingProcess<ProcessOptions>();
  if (child === undefined) {
    process.stderr.write("karta serve: a serving process is started by `karta serve --processes N`, not by hand\n");
    process.exit(2);
  }
  const { batchedOutput, createLogger, flushLogs } = await import("../server/log.js");
  // Its lines go to the supervisor on standard output, which writes them in its own log (standard error).
  const logger = createLogger(child.options.logLevel, batchedOutput(1)).child({ process: child.index });
  let code: number;
  try {
    const server = await startServer({ ...child.options, logger, probes: false });
    reportServing(server);
    code = await serveUntilStopped(server, logger, child.options.shutdownGracePeriodMs, 0);
  } catch (e) {
    if (!(e instanceof ServeError)) throw e;
    await reportFailure(e);
    await flushLogs(logger);
    code = 1;
  }
  // Exits itself: the IPC channel to the supervisor would keep it alive.
  process.exit(code);
}

/** A server serveUntilStopped stops: a single server (server.ts) or the supervisor of --processes. */
interface Stoppable {
  /** /readyz fails from now on; the server goes on answering. */
  unready(): void;
  /** Stops accepting, drains, releases everything. */
  close(): Promise<void>;
}

/**
 * Runs until SIGTERM or SIGINT, then closes the server (it drains), after `delayMs` of failing /readyz
 * while it goes on answering (stop-signals.ts). A bug of ours (an exception nothing caught) is logged as
 * a JSON line, then the server drains at once, as on SIGTERM without a delay: exit code 5.
 */
async function serveUntilStopped(server: Stoppable, logger: Logger, graceMs: number, delayMs: number): Promise<number> {
  const { flushLogsSync } = await import("../server/log.js");
  let stopNow = (): void => undefined;
  const stopped = new Promise<void>((resolve) => (stopNow = resolve));
  const signals = onStopSignals({
    delayMs,
    beginDelay: () => {
      server.unready();
      logger.info({ delayMs }, "shutting down after the delay: not ready, still serving");
    },
    stop: stopNow,
  });
  const guard = guardInternalErrors({
    report: (fields) => logger.error(fields, "internal error: shutting down"),
    stop: stopNow,
    graceMs: graceMs + INTERNAL_ERROR_EXTRA_MS,
    exitNow: () => flushLogsSync(logger),
  });
  await stopped;
  // From here a signal has its default effect: the process ends at once.
  signals.release();
  await server.close();
  guard.release();
  return guard.failed ? EXIT_INTERNAL : 0;
}
