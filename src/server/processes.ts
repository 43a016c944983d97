/**
 * `karta serve --processes N`: N serving processes share the HTTPS port (node:cluster; the supervisor
 * accepts each connection and hands it to the next process in turn), so answers use every CPU the
 * server is given, as a Go webhook's goroutines do: one Node.js event loop is one core. The supervisor
 * serves /healthz, /readyz and /metrics for all of them (readiness and metrics asked of each process
 * over its IPC channel and combined), writes their log lines out whole (a process's lines never cut
 * into another's), replaces a process that exits with the evaluation workers' backoff, and on SIGTERM
 * has every process drain before it exits itself. A serving process whose supervisor is gone exits
 * (node:cluster closes it when its IPC channel does).
 */
import cluster, { type Worker } from "node:cluster";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Readable } from "node:stream";
import { AggregatorRegistry, Counter, Registry } from "prom-client";
import { DEFAULT_RESTART_BACKOFF, nextRestart } from "./backoff.js";
import { ServeError } from "./errors.js";
import { flushLogs, flushPending, rawLogWriter, type Logger } from "./log.js";
import { combineReadiness, probesServer, type Readiness } from "./probes.js";
import { collectProcessMetrics } from "./metrics.js";
import { listen } from "./listen.js";
import { splitHostPort, type RunningServer } from "./server.js";

/** The environment variables a serving process is started with: its number, and its options (JSON). */
const PROCESS_ENV = "KARTA_SERVE_PROCESS";
const OPTIONS_ENV = "KARTA_SERVE_OPTIONS";
/** How long the supervisor waits for a process's readiness or metrics (a busy process answers late). */
const ASK_TIMEOUT_MS = 5_000;
/** A serving process silent this long (heartbeats every sixth of it) is killed and replaced. */
const HANG_AFTER_MS = 30_000;
/** Beyond the grace period, how long the processes have to exit on SIGTERM before they are killed. */
const KILL_AFTER_MS = 5_000;

/** Process metrics whose combined value is not a sum (the supervisor's own comes first). */
const OWN_VALUE: Record<string, string> = { process_start_time_seconds: "first", process_max_fds: "first" };

/** Messages between the supervisor and a serving process. */
type FromProcess =
  | { type: "serving"; port: number }
  | { type: "failed"; message: string; details: string[] }
  | { type: "answer"; id: number; readiness?: Readiness; metrics?: object[] };
type ToProcess = { type: "readiness" | "metrics"; id: number } | { type: "unready" };

/**
 * The CPUs this process may use: the CPUs it may run on, and at most its cgroup's CPU quota (rounded
 * up), as Go sets GOMAXPROCS in a container with a CPU limit.
 */
export function availableCpus(): number {
  const cpus = availableParallelism();
  const quota = cgroupCpuQuota();
  return quota === undefined ? cpus : Math.max(1, Math.min(cpus, Math.ceil(quota)));
}

/** The cgroup's CPU limit in CPUs (v2 `cpu.max`, or v1 `cpu/cpu.cfs_quota_us` over `cpu.cfs_period_us`), if any. */
export function cgroupCpuQuota(root = "/sys/fs/cgroup"): number | undefined {
  const read = (file: string): string | undefined => {
    try {
      return readFileSync(file, "utf8").trim();
    } catch {
      return undefined;
    }
  };
  const v2 = read(`${root}/cpu.max`)?.split(/\s+/);
  if (v2 !== undefined && v2[0] !== "max") {
    const q = Number(v2[0]);
    const p = Number(v2[1] ?? 100_000);
    return q > 0 && p > 0 ? q / p : undefined;
  }
  const q = Number(read(`${root}/cpu/cpu.cfs_quota_us`));
  const p = Number(read(`${root}/cpu/cpu.cfs_period_us`));
  return q > 0 && p > 0 ? q / p : undefined;
}

/** In a serving process started by a supervisor: its number and the options it was given. */
export function servingProcess<O>(): { index: number; options: O } | undefined {
  const raw = process.env[OPTIONS_ENV];
  if (!cluster.isWorker || raw === undefined) return undefined;
  return { index: Number(process.env[PROCESS_ENV]), options: JSON.parse(raw) as O };
}

/** In a serving process: tells the supervisor the server is up, and answers its questions from then on. */
export function reportServing(server: RunningServer): void {
  process.on("message", (m: ToProcess) => {
    if (m?.type === "readiness") void send({ type: "answer", id: m.id, readiness: server.readiness() });
    else if (m?.type === "unready") server.unready();
    else if (m?.type === "metrics") void server.metrics.registry.getMetricsAsJSON().then((metrics) => send({ type: "answer", id: m.id, metrics }));
  });
  void send({ type: "serving", port: server.port });
}

/** In a serving process: tells the supervisor why the server could not start (it prints it once). */
export function reportFailure(e: ServeError): Promise<void> {
  return send({ type: "failed", message: e.message, details: e.details });
}

/** Sends to the supervisor; settles once the message is handed over (before the process may exit). */
function send(m: FromProcess): Promise<void> {
  // The channel is gone when the supervisor is: the process is then exiting.
  if (!process.connected) return Promise.resolve();
  return new Promise((resolve) => process.send!(m, undefined, undefined, () => resolve()));
}

export interface SupervisorOptions {
  /** The module a serving process runs (it calls startServer, then reportServing). */
  entry: string;
  processes: number;
  /** Each serving process's options (sent as JSON: no functions, no logger). */
  serverOptions: object;
  metricsBindAddress: string;
  path: string;
  workersPerProcess: number;
  shutdownGracePeriodMs: number;
  log: Logger;
  /** A serving process that has not answered the heartbeat for this long is killed and replaced (default 30 s). */
  hangAfterMs?: number;
}

export interface Supervisor {
  port: number;
  metricsPort: number;
  /** /readyz fails from now on (shutting down soon); the processes go on answering. */
  unready(): void;
  /** Has every process drain (SIGTERM), then closes the probes. */
  close(): Promise<void>;
}

interface Slot {
  index: number;
  worker?: Worker;
  serving: boolean;
  since: number;
  /** When it last sent anything (an answer to the heartbeat). */
  lastHeard: number;
  crashes: number;
  failure?: ServeError;
  restartTimer?: NodeJS.Timeout;
  /** Settles when the process exited and its output was written out. */
  ended: Promise<void>;
}

/**
 * Starts the serving processes and the probes server; resolves once every process serves. Rejects
 * with ServeError (the first process's reason: configuration, certificate, port) when one cannot start.
 */
export async function startServingProcesses(o: SupervisorOptions): Promise<Supervisor> {
  const { log } = o;
  const metricsAddress = splitHostPort(o.metricsBindAddress);
  if (!metricsAddress) throw new ServeError(`--metrics-bind-address ${JSON.stringify(o.metricsBindAddress)}: expected host:port`);
  const registry = new Registry();
  const restarts = new Counter({ name: "karta_serving_process_restarts_total", help: "Serving processes (--processes) that exited and were replaced.", registers: [registry] });
  // The process metrics then cover the whole server, the supervisor included (CPU and memory summed).
  collectProcessMetrics(registry);
  const writeLog = rawLogWriter(log);
  const env = { [OPTIONS_ENV]: JSON.stringify(o.serverOptions) };
  const slots: Slot[] = Array.from({ length: o.processes }, (_, index) => ({ index, serving: false, since: 0, lastHeard: 0, crashes: 0, ended: Promise.resolve() }));
  const asks = new Map<number, { slot: Slot; resolve: (m: FromProcess & { type: "answer" }) => void }>();
  let nextAsk = 0;
  let port = 0;
  let started = false;
  let stopping = false;
  /** Not ready, shutting down soon (--shutdown-delay-duration): the processes serve on, and are replaced as before. */
  let unready = false;
  let startup: { resolve: () => void; reject: (e: ServeError) => void } | undefined;

  // Node's flags as given to this process (memory limits, --import), but not a test runner's.
  cluster.setupPrimary({ exec: o.entry, args: [], execArgv: process.execArgv.filter((a) => !a.startsWith("--test")), silent: true });
  const fork = (slot: Slot): void => {
    const worker = cluster.fork({ ...env, [PROCESS_ENV]: String(slot.index) });
    Object.assign(slot, { worker, serving: false, since: Date.now(), lastHeard: Date.now(), failure: undefined, restartTimer: undefined });
    worker.on("message", (m: FromProcess) => onMessage(slot, m));
    // A send to a process that is exiting fails; its exit follows.
    worker.on("error", () => undefined);
    const exited = new Promise<[number | null, string | null]>((resolve) => worker.on("exit", (code, signal) => resolve([code, signal])));
    const written = [relayLines(worker.process.stdout!, writeLog), relayLines(worker.process.stderr!, (t) => void process.stderr.write(t))];
    slot.ended = Promise.all([exited, ...written]).then(([[code, signal]]) => onExit(slot, worker, code, signal));
  };

  const onMessage = (slot: Slot, m: FromProcess): void => {
    slot.lastHeard = Date.now();
    if (m.type === "serving") {
      slot.serving = true;
      port = m.port;
      // A process that replaced one during the shutdown delay is told so too.
      if (unready) tell(slot, { type: "unready" });
      if (!started && slots.every((s) => s.serving)) startup?.resolve();
    } else if (m.type === "failed") {
      slot.failure = new ServeError(m.message, m.details);
    } else if (m.type === "answer") {
      asks.get(m.id)?.resolve(m);
    }
  };

  const onExit = (slot: Slot, worker: Worker, code: number | null, signal: string | null): void => {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    slot.serving = false;
    // Its questions in flight are answered with nothing (each answer removes its own entry).
    for (const [id, a] of [...asks]) if (a.slot === slot) a.resolve({ type: "answer", id });
    if (stopping) return;
    const how = signal !== null ? `was killed by ${signal}` : `exited with code ${code}`;
    if (!started) {
      startup?.reject(slot.failure ?? new ServeError(`serving process ${slot.index} ${how} before serving`));
      return;
    }
    const { crashes, delayMs } = nextRestart(DEFAULT_RESTART_BACKOFF, slot.crashes, Date.now() - slot.since >= DEFAULT_RESTART_BACKOFF.resetAfterMs);
    slot.crashes = crashes;
    restarts.inc();
    const fields = { process: slot.index, code, signal, crashes, restartInMs: delayMs };
    if (slot.failure) log.error({ ...fields, details: slot.failure.details }, `serving process ${slot.index} could not start: ${slot.failure.message}; retrying in ${delayMs} ms`);
    else log.warn(fields, `serving process ${slot.index} ${how}: replacing it${delayMs > 0 ? ` in ${delayMs} ms` : ""}`);
    slot.restartTimer = setTimeout(() => {
      if (!stopping) fork(slot);
    }, delayMs);
  };

  /** Asks a serving process; resolves with an empty answer when it does not answer in time. */
  const ask = (slot: Slot, type: "readiness" | "metrics"): Promise<FromProcess & { type: "answer" }> =>
    new Promise((resolve) => {
      const id = ++nextAsk;
      const timer = setTimeout(() => done({ type: "answer", id }), ASK_TIMEOUT_MS);
      const done = (m: FromProcess & { type: "answer" }): void => {
        clearTimeout(timer);
        asks.delete(id);
        resolve(m);
      };
      asks.set(id, { slot, resolve: done });
      slot.worker!.send({ type, id } satisfies ToProcess, (e) => e && done({ type: "answer", id }));
    });
  const serving = (): Slot[] => slots.filter((s) => s.serving && s.worker !== undefined);
  /** Tells a serving process something that needs no answer (a process that is exiting misses it). */
  const tell = (slot: Slot, m: ToProcess): void => void slot.worker?.send(m, () => undefined);
  /** Asks each serving process; those that do not answer in time are left out. */
  const askAll = (type: "readiness" | "metrics"): Promise<(FromProcess & { type: "answer" })[]> => Promise.all(serving().map((slot) => ask(slot, type)));

  // A serving process whose event loop stopped answering (its answers take at most a 2 ms slice there;
  // scripts run on its workers) would keep its share of the connections: it is killed and replaced.
  const hangAfterMs = o.hangAfterMs ?? HANG_AFTER_MS;
  const heartbeat = setInterval(() => {
    for (const slot of serving()) {
      if (Date.now() - slot.lastHeard <= hangAfterMs) {
        void ask(slot, "readiness");
        continue;
      }
      log.error({ process: slot.index, silentForMs: Date.now() - slot.lastHeard }, `serving process ${slot.index} has not answered for ${Math.round(hangAfterMs / 1000)} s: killing it`);
      slot.worker!.process.kill("SIGKILL");
      slot.serving = false;
    }
  }, Math.max(100, Math.floor(hangAfterMs / 6)));
  heartbeat.unref();

  const probes = probesServer({
    readiness: async () => {
      const answers = (await askAll("readiness")).flatMap((a) => (a.readiness ? [a.readiness] : []));
      const readiness = combineReadiness(answers);
      readiness.draining ||= stopping || unready;
      return { readiness, processes: { serving: answers.length, total: o.processes, withoutWorkers: answers.filter((r) => r.readyWorkers === 0).length } };
    },
    metrics: async () => {
      const own = await registry.getMetricsAsJSON();
      // Per-process values that a sum would misstate: the server's start is the supervisor's (prom-client
      // would leave it out), and its file descriptor limit is a process's.
      for (const m of own) if (m.name in OWN_VALUE) (m as { aggregator: string }).aggregator = OWN_VALUE[m.name]!;
      const answers = (await askAll("metrics")).flatMap((a) => (a.metrics ? [a.metrics] : []));
      const combined = AggregatorRegistry.aggregate([own, ...answers]);
      return { body: await combined.metrics(), contentType: combined.contentType };
    },
  });

  const stop = async (): Promise<void> => {
    stopping = true;
    clearInterval(heartbeat);
    for (const s of slots) {
      clearTimeout(s.restartTimer);
      s.worker?.process.kill("SIGTERM");
    }
    const killer = setTimeout(() => {
      for (const s of slots) s.worker?.process.kill("SIGKILL");
    }, o.shutdownGracePeriodMs + KILL_AFTER_MS);
    await Promise.all(slots.map((s) => s.ended));
    clearTimeout(killer);
  };

  try {
    await new Promise<void>((resolve, reject) => {
      startup = { resolve, reject };
      slots.forEach(fork);
    });
  } catch (e) {
    await stop();
    throw e;
  }
  started = true;
  let metricsPort: number;
  try {
    metricsPort = await listen(probes, metricsAddress.port, metricsAddress.host);
  } catch (e) {
    await stop();
    throw new ServeError(`cannot listen: ${(e as Error).message}`);
  }
  log.info({ port, metricsPort, path: o.path, workers: o.workersPerProcess, processes: o.processes }, "serving");
  flushPending(log);
  const flusher = setInterval(() => flushPending(log), 1000);
  flusher.unref();
  let closing: Promise<void> | undefined;
  return {
    port,
    metricsPort,
    unready: () => {
      unready = true;
      for (const slot of serving()) tell(slot, { type: "unready" });
    },
    close: () =>
      (closing ??= (async () => {
        log.info("shutting down: every serving process finishes its requests in flight");
        await stop();
        await new Promise<void>((resolve) => probes.close(() => resolve()));
        probes.closeAllConnections();
        clearInterval(flusher);
        log.info("stopped");
        await flushLogs(log);
      })()),
  };
}

/** Copies a stream's text to `write` in whole lines (a line cut by a read waits for its end). */
function relayLines(from: Readable, write: (text: string) => void): Promise<void> {
  let rest = "";
  from.setEncoding("utf8");
  from.on("data", (chunk: string) => {
    const end = chunk.lastIndexOf("\n");
    if (end < 0) {
      rest += chunk;
      return;
    }
    write(rest + chunk.slice(0, end + 1));
    rest = chunk.slice(end + 1);
  });
  return new Promise((resolve) =>
    from.on("close", () => {
      if (rest !== "") write(rest + "\n");
      resolve();
    }),
  );
}
