/**
 * `karta serve`: Karmada's resource interpreter webhook. An HTTPS server answers
 * ResourceInterpreterContext requests at --path with a pool of evaluation workers; a plain HTTP
 * server on --metrics-bind-address serves /healthz, /readyz and /metrics. Configuration files and
 * certificates are watched and reloaded; SIGTERM (or `close()`) drains requests in flight.
 */
import http from "node:http";
import https from "node:https";
import { eventLoopSlice } from "../jq/index.js";
import { KindTable } from "../interpreter/kind-table.js";
import { kindOf, OPERATIONS, type Operation, type ResourceKind } from "../interpreter/types.js";
import { contextResponse, decodeContext, failureResponse, peekRoute } from "./context.js";
import { readConfig, type BuiltFramework, type ConfigPaths, type FrameworkSource } from "./config.js";
import { answer, badRequest } from "./evaluate.js";
import { clipped, createLogger, flushLogs, flushPending, requestLogger, type Logger } from "./log.js";
import { parseDuration } from "./duration.js";
import { ServerMetrics } from "./metrics.js";
import { EvaluationPool, type ContextAnswer, type TaskResult } from "./pool.js";
import { ServeError } from "./errors.js";
import { readKeyPair, reloadCertificates } from "./tls.js";
import { PathWatcher } from "./watch.js";
import { probesServer, type Readiness } from "./probes.js";
import { BAD_TARGET, requestTarget } from "./request-target.js";
import { refuseOversizedBody } from "./body.js";
import { answerClientErrors } from "./client-error.js";
import { listen } from "./listen.js";

/** The server's settings (the flags of `karta serve`). */
export interface ServeOptions extends ConfigPaths {
  securePort: number;
  bindAddress: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  /** Where ResourceInterpreterContexts are posted. */
  path: string;
  /** host:port of the metrics and probes server (":8080"; port 0 picks one). */
  metricsBindAddress: string;
  maxRequestBytes: number;
  requestTimeoutMs: number;
  workers: number;
  shutdownGracePeriodMs: number;
  /** Debounce of configuration and certificate watches, ms (default 200). */
  watchDebounceMs?: number;
  /** Answers of a kind and operation slower than this go to the workers, µs (default 100: see EVENT_LOOP_MAX_US). */
  eventLoopMaxUs?: number;
  logger?: Logger;
  /**
   * Serve /healthz, /readyz and /metrics on metricsBindAddress (default true). False in a serving
   * process of `karta serve --processes`, whose supervisor serves them for all (processes.ts).
   */
  probes?: boolean;
}

/** A running server. */
export interface RunningServer {
  /** The HTTPS port (the bound one when --secure-port was 0). */
  port: number;
  /** The probes port (0 without probes). */
  metricsPort: number;
  metrics: ServerMetrics;
  pool: EvaluationPool;
  /**
   * Shutting down soon (`karta serve --shutdown-delay-duration`): /readyz fails and answers close their
   * connections (a client's next request connects anew, through the Service to a server that stays), while
   * the server goes on accepting and answering.
   */
  unready(): void;
  /** Stops accepting, finishes requests in flight within the grace period, then releases everything. */
  close(): Promise<void>;
  /** Re-reads the configuration now (also done on file changes). */
  reload(): Promise<boolean>;
  /** What /readyz reads (a serving process of --processes reports it to its supervisor). */
  readiness(): Readiness;
}

export { ServeError } from "./errors.js";

/** Splits "host:port" (":8080", "0.0.0.0:8080", "[::1]:8080"). */
export function splitHostPort(address: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]*)\]|([^:]*)):(\d+)$/.exec(address);
  if (!m) return undefined;
  const port = Number(m[3]);
  if (port > 65535) return undefined;
  return { host: m[1] ?? m[2] ?? "", port };
}

/**
 * Bodies up to this size may be answered on the event loop: parsing and checking 256 KiB of JSON takes
 * about a millisecond. Larger ones go to a worker whole.
 */
const EVENT_LOOP_MAX_BYTES = 256 * 1024;
/**
 * Wall-clock time the jq of one request may take on the event loop (checked every 1,024 steps) before
 * the request is redone on a worker, where its full budget and the deadline apply.
 */
const EVENT_LOOP_SLICE_MS = 2;
/**
 * A kind and operation whose answers take longer than this (µs, the least of its last 8, a thread
 * preempted on a busy machine only adding time) go to the workers: past it, running them in parallel
 * beats the hand-off's cost. Answers are timed where they ran, on the event loop or on a worker, so a
 * kind whose evaluations got cheap (or that was timed cold) comes back: timed only now and then on the
 * event loop, between other work, a kind measures 4–8 times its cost there (a PyTorchJob's
 * InterpretComponent: 200–400 µs, against 50 µs when it runs there steadily).
 */
const EVENT_LOOP_MAX_US = 100;
const COST_SAMPLES = 8;
/** Kinds and operations whose times are kept (request contents must not grow memory without bound). */
const MAX_MEASURED = 1024;

interface ReloadState {
  generation: number;
  fingerprint: string;
  lastErrors: string[];
  lastAttempt?: Date;
}

/** The kinds some layer of a framework has an interpreter for, as the requests metric labels them (`apiVersion/kind`). */
function interpretedKinds(built: BuiltFramework): Set<string> {
  return new Set(built.kinds.map((k) => `${k.apiVersion}/${k.kind}`));
}

/** Starts the servers. Rejects with ServeError when the configuration or the certificate is unusable. */
export async function startServer(o: ServeOptions): Promise<RunningServer> {
  const log = o.logger ?? createLogger();
  const logRequest = requestLogger(log, "interpreted");
  const metrics = new ServerMetrics();
  const first = await readConfig(o, { keep: true });
  if (first.ok === false) throw new ServeError("the configuration has errors", first.errors);
  if (first.ok !== true) throw new ServeError("the configuration could not be read");
  for (const w of first.warnings) log.warn({ warning: w }, "bundled file problem");
  const pair = readKeyPair(o.tlsCertFile, o.tlsPrivateKeyFile);
  const metricsAddress = splitHostPort(o.metricsBindAddress);
  if (!pair.ok || !metricsAddress) {
    first.built!.close();
    throw new ServeError(!pair.ok ? pair.error : `--metrics-bind-address ${JSON.stringify(o.metricsBindAddress)}: expected host:port`);
  }
  // The event loop's own framework: it answers what runs no script (see needsWorker).
  let local: BuiltFramework = first.built!;
  let kindLabels = interpretedKinds(local);

  const state: ReloadState = { generation: 1, fingerprint: first.fingerprint, lastErrors: [] };
  metrics.configGeneration.set(1);
  metrics.configErrors.set(0);
  const pool = new EvaluationPool({
    size: o.workers,
    source: first.source,
    onEvent: (e) => {
      if (e.type === "restart") {
        metrics.workerRestarts.inc({ reason: e.reason });
        log.warn({ reason: e.reason, crashes: e.crashes, restartInMs: e.delayMs }, `evaluation worker replaced: ${e.message}${e.delayMs > 0 ? ` (crashed ${e.crashes} times in a row: restarting in ${e.delayMs} ms)` : ""}`);
      } else if (e.type === "failed") {
        log.error({ generation: e.generation }, `evaluation worker could not build the configuration: ${e.message}`);
      }
    },
  });
  metrics.backingOff = () => pool.backingOff;
  let draining = false;
  let closing: Promise<void> | undefined;
  /** Per kind and operation: the times of its last answers, µs, and whether it is slow here. */
  const costs = new KindTable<{ times: number[]; slow: boolean }>(MAX_MEASURED);

  const reload = async (): Promise<boolean> => {
    // The poll and every event in a watched directory land here: unchanged files are not rebuilt.
    const read = await readConfig(o, { keep: true, known: state.fingerprint });
    state.lastAttempt = new Date();
    if (read.ok === true && closing !== undefined) read.built?.close();
    if (closing !== undefined) return false;
    if (read.ok === "unchanged") return state.lastErrors.length === 0;
    if (read.ok === false) {
      if (read.fingerprint === state.fingerprint && state.lastErrors.length > 0) return false;
      state.fingerprint = read.fingerprint;
      state.lastErrors = read.errors;
      metrics.reloads.inc({ result: "failure" });
      metrics.configErrors.set(read.errors.length);
      for (const error of read.errors) log.error({ generation: state.generation }, `configuration not reloaded, keeping the last good one: ${error}`);
      return false;
    }
    state.fingerprint = read.fingerprint;
    state.lastErrors = [];
    state.generation++;
    pool.setSource(read.source);
    // Answers on the event loop never span an await of real work, so the old framework is idle here.
    const old = local;
    local = read.built!;
    kindLabels = interpretedKinds(local);
    old.close();
    costs.clear();
    metrics.reloads.inc({ result: "success" });
    metrics.configErrors.set(0);
    metrics.configGeneration.set(state.generation);
    log.info({ generation: state.generation, definitions: read.source.definitions.length, customizations: read.source.customizations.length }, "configuration reloaded");
    return true;
  };
  const configPaths = [...o.definitions, ...o.customizations];
  const configWatcher = configPaths.length > 0 ? new PathWatcher(configPaths, async () => void (await reload()), { debounceMs: o.watchDebounceMs ?? 200 }) : undefined;

  // A count, not a set of responses: a Set that grows and shrinks by a request at a time is rehashed
  // over and over, and V8 links each table it replaces to the new one (for its iterators), so that
  // one table promoted to the old generation keeps every later table, and the requests and responses
  // in them, alive through young collections: most of a request's objects then reach the old
  // generation, which a full collection has to clear every second or so.
  let inFlight = 0;
  // requestTimeout is checked every second (Node's default: every 30 s), so that it holds to the second.
  const server = https.createServer({ cert: pair.pair.cert, key: pair.pair.key, requestTimeout: o.requestTimeoutMs + 5000, connectionsCheckingInterval: 1000 }, (req, res) => handle(req, res));
  // Requests refused by Node's parser (malformed, or not received whole in time) are counted too.
  answerClientErrors(server, (status) => {
    const outcome = status === 408 ? "timeout" : status === 413 ? "too_large" : "bad_request";
    metrics.requests.inc({ operation: "", kind: "", outcome });
    log.info({ outcome, status }, "request refused before it was read");
  });
  // "Expect: 100-continue" is answered by handle: "100 Continue" only for a body it will read.
  server.on("checkContinue", (req: http.IncomingMessage, res: http.ServerResponse) => handle(req, res, true));
  const certWatcher = reloadCertificates(server, o.tlsCertFile, o.tlsPrivateKeyFile, pair.pair, (r) => {
    metrics.certReloads.inc({ result: r.ok ? "success" : "failure" });
    if (r.ok) log.info("serving certificate reloaded");
    else log.error(`serving certificate not reloaded, keeping the current one: ${r.error}`);
  });

  const send = (res: http.ServerResponse, status: number, body: string, close = false): void => {
    const headers: http.OutgoingHttpHeaders = { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) };
    if (close || draining) headers.Connection = "close";
    res.writeHead(status, headers);
    res.end(body);
  };

  // One listener for every response (a closure per request is garbage per request).
  function responseClosed(): void {
    inFlight--;
    metrics.inFlight--;
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse, expectsContinue = false): void {
    const started = performance.now();
    // In flight from its headers to its response: a request still sending its body is drained too.
    inFlight++;
    metrics.inFlight++;
    res.on("close", responseClosed);
    // Karmada posts to the path as configured, with its timeout as the only parameter (`?timeout=10s`):
    // only other requests need a URL parser.
    const target = req.url ?? "/";
    const plain = target === o.path || (target.startsWith(o.path) && target.startsWith("?timeout=", o.path.length) && !/[&#%+]/.test(target));
    const url = plain ? undefined : requestTarget(target);
    if (!plain && url === undefined) {
      failure(res, 400, "BadRequest", `${BAD_TARGET}; post ResourceInterpreterContexts to ${o.path}`);
      return;
    }
    if (url !== undefined && url.pathname !== o.path) {
      failure(res, 404, "NotFound", `no handler for ${url.pathname}; post ResourceInterpreterContexts to ${o.path}`);
      return;
    }
    const asked = url !== undefined ? url.searchParams.get("timeout") : target.length > o.path.length ? target.slice(o.path.length + 9) : null;
    if (req.method !== "POST") {
      res.setHeader("Allow", "POST");
      failure(res, 405, "MethodNotAllowed", `method ${req.method} not allowed; use POST`);
      return;
    }
    const contentType = req.headers["content-type"] ?? "";
    // As Karmada's client sends it, the type needs no parsing.
    const type = contentType === "application/json" ? contentType : contentType.split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json") {
      // Karmada's server: HTTP 200, code 400, no uid (the body is not read).
      refuse(res, 400, "bad_request", `contentType=${req.headers["content-type"] ?? ""}, expected application/json`, false, 200);
      req.resume();
      return;
    }
    const declared = Number(req.headers["content-length"] ?? NaN);
    if (declared > o.maxRequestBytes) {
      // A client that waits for "100 Continue" sends no body after a final answer.
      if (expectsContinue) refuse(res, 413, "too_large", tooLarge, true);
      else refuseTooLarge(req, res, 0, declared);
      return;
    }
    if (expectsContinue) res.writeContinue();
    const chunks: Buffer[] = [];
    let size = 0;
    let stopped = false;
    req.on("data", (c: Buffer) => {
      if (stopped) return;
      size += c.length;
      if (size > o.maxRequestBytes) {
        stopped = true;
        chunks.length = 0;
        refuseTooLarge(req, res, size, NaN);
        return;
      }
      chunks.push(c);
    });
    req.on("error", () => undefined);
    req.on("end", () => {
      if (stopped) return;
      // Most bodies arrive in one chunk: concat would copy it.
      const body = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString("utf8");
      const askedMs = asked ? parseDuration(asked) : undefined;
      const timeout = Math.min(o.requestTimeoutMs, askedMs ?? Infinity);
      if (size > EVENT_LOOP_MAX_BYTES) return toWorker(res, body, started, timeout);
      // Laid out as Karmada writes it, the body names its kind and operation early: a request bound for a
      // worker (a script, or a kind slow here) goes there without being parsed on this thread too.
      const route = peekRoute(body);
      let routed = false;
      if (route !== undefined && (OPERATIONS as readonly string[]).includes(route.operation)) {
        const kind = { apiVersion: route.apiVersion, kind: route.kind };
        if (local.needsWorker(kind, route.operation as Operation) || slowHere(kind, route.operation)) return toWorker(res, body, started, timeout);
        routed = true;
      }
      answerOnEventLoop(body, res, started, timeout, routed ? route : undefined);
    });
  }

  /** A request not for the webhook (a bad target or path, another method): counted, and a Kubernetes Status, as the API server answers. */
  function failure(res: http.ServerResponse, code: 400 | 404 | 405, reason: string, message: string): void {
    metrics.requests.inc({ operation: "", kind: "", outcome: code === 400 ? "bad_request" : code === 404 ? "not_found" : "method_not_allowed" });
    send(res, code, JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", message, reason, code }));
  }

  const tooLarge = `request body exceeds --max-request-bytes (${o.maxRequestBytes} bytes)`;

  /** A body over --max-request-bytes (see {@link refuseOversizedBody}). */
  function refuseTooLarge(req: http.IncomingMessage, res: http.ServerResponse, read: number, declared: number): void {
    refuseOversizedBody(req, res, { read, declared, limit: o.maxRequestBytes }, () => refuse(res, 413, "too_large", tooLarge, true));
  }

  /**
   * A request refused before its body is read (what it asks is unknown): counted, logged, answered with
   * `code` in the response's status, with HTTP `httpStatus` (by default the same code: a body over the
   * limit gets HTTP 413, see docs/decisions.md).
   */
  function refuse(res: http.ServerResponse, code: number, outcome: string, message: string, close = false, httpStatus = code): void {
    metrics.requests.inc({ operation: "", kind: "", outcome });
    log.info({ outcome, status: httpStatus }, message);
    send(res, httpStatus, contextResponse(failureResponse("", code, message)), close);
  }

  /** Answers a request on a worker. */
  function toWorker(res: http.ServerResponse, body: string, started: number, timeout: number): void {
    metrics.evaluations.inc({ thread: "worker" });
    void pool.answerContext(body, Date.now() + timeout).then((r) => {
      if (r.ok && r.value.meta.kind !== "" && r.value.meta.operation !== "") {
        // The answer names its kind as "group/version/Kind" (a kind has no "/").
        const named = r.value.meta.kind;
        const slash = named.lastIndexOf("/");
        noteCost({ apiVersion: named.slice(0, slash), kind: named.slice(slash + 1) }, r.value.meta.operation, r.value.ms * 1000);
      }
      finish(res, body, r, started);
    });
  }

  /** Whether a kind and operation measured slow goes to the workers (see EVENT_LOOP_MAX_US). */
  function slowHere(kind: ResourceKind, operation: string): boolean {
    return costs.get(kind.apiVersion, kind.kind, operation)?.slow === true;
  }

  /** Notes the time of an answer of a kind and operation, µs. */
  function noteCost(kind: ResourceKind, operation: string, us: number): void {
    let cost = costs.get(kind.apiVersion, kind.kind, operation);
    if (cost === undefined) costs.set(kind.apiVersion, kind.kind, operation, (cost = { times: [], slow: false }));
    const times = cost.times;
    if (times.push(us) > COST_SAMPLES) times.shift();
    // Judged once 8 answers were timed: the first ones of a kind run cold (before the JIT).
    if (times.length === COST_SAMPLES) {
      let least = times[0]!;
      for (let i = 1; i < times.length; i++) if (times[i]! < least) least = times[i]!;
      cost.slow = least > (o.eventLoopMaxUs ?? EVENT_LOOP_MAX_US);
    }
  }

  /**
   * Answers a small request on the event loop when no script can run for it and its kind's answers are
   * cheap: a worker hand-off costs more than such an answer (waking a thread per request). Its jq runs
   * in a time slice; past it, or at a regex that would need a blocking wait, the request is redone on
   * a worker.
   */
  function answerOnEventLoop(body: string, res: http.ServerResponse, started: number, timeout: number, route?: { operation: string; apiVersion: string; kind: string }): void {
    const decoded = decodeContext(body);
    if (!decoded.ok) {
      metrics.evaluations.inc({ thread: "event_loop" });
      const bad = badRequest(decoded.uid, decoded.message);
      finish(res, body, { ok: true, value: { body: contextResponse(bad.response), meta: bad.meta, ms: 0 } }, started);
      return;
    }
    const request = decoded.request;
    const kind = kindOf(request.object);
    // Where the body's peeked route named this kind and operation, they were checked already.
    const checked = route !== undefined && route.operation === request.operation && route.apiVersion === kind.apiVersion && route.kind === kind.kind;
    if (!checked && (local.needsWorker(kind, request.operation) || slowHere(kind, request.operation))) return toWorker(res, body, started, timeout);
    const slice = eventLoopSlice(EVENT_LOOP_SLICE_MS);
    const began = performance.now();
    const answering = answer(local.framework, request);
    // Timed up to the answer's first await: the layers answering here evaluate synchronously before it,
    // and what runs from then until the callback below is other requests' work (their responses).
    const us = (performance.now() - began) * 1000;
    void answering.then((a) => {
      // Stopped at the slice, it is timed where it is redone.
      if (slice.close()) {
        metrics.evaluations.inc({ thread: "event_loop_redone" });
        return toWorker(res, body, started, timeout);
      }
      noteCost(kind, request.operation, us);
      metrics.evaluations.inc({ thread: "event_loop" });
      finish(res, body, { ok: true, value: { body: contextResponse(a.response), meta: a.meta, ms: us / 1000 } }, started);
    });
  }

  /**
   * A kind as the requests metric names it: kinds no layer has an interpreter for are one label value,
   * "unknown" (the native layer's status reflection answers any kind), so that request contents cannot
   * grow the metric without bound.
   */
  function kindLabel(kind: string): string {
    return kindLabels.has(kind) ? kind : "unknown";
  }

  function finish(res: http.ServerResponse, body: string, r: TaskResult<ContextAnswer>, started: number): void {
    const seconds = (performance.now() - started) / 1000;
    if (r.ok) {
      const m = r.value.meta;
      // The answer first: what follows is bookkeeping.
      send(res, m.http, r.value.body);
      metrics.requests.inc({ operation: m.operation, kind: kindLabel(m.kind), outcome: m.outcome });
      if (m.operation) metrics.duration.observe({ operation: m.operation }, seconds);
      if (m.limit) metrics.limitHit(m.limit);
      logRequest({ uid: m.uid, kind: m.kind, operation: m.operation, layer: m.layer, outcome: m.outcome, status: m.http, durationMs: Math.round(seconds * 1e4) / 10 });
      return;
    }
    // No answer from a worker (deadline, runaway script, crash): read the uid here for the reply.
    let uid = "";
    let operation = "";
    let kind = "";
    try {
      const parsed = JSON.parse(body) as { request?: { uid?: unknown; operation?: unknown; object?: { apiVersion?: unknown; kind?: unknown } } };
      if (typeof parsed.request?.uid === "string") uid = parsed.request.uid;
      if (typeof parsed.request?.operation === "string" && (OPERATIONS as readonly string[]).includes(parsed.request.operation)) operation = parsed.request.operation;
      const obj = parsed.request?.object;
      if (obj && typeof obj.apiVersion === "string" && typeof obj.kind === "string") kind = `${obj.apiVersion}/${obj.kind}`;
    } catch {
      // Unreadable: answered without a uid.
    }
    const outcome = r.reason === "crashed" ? "error" : "timeout";
    metrics.requests.inc({ operation, kind: kindLabel(kind), outcome });
    if (operation) metrics.duration.observe({ operation }, seconds);
    if (r.reason === "lua-deadline") metrics.limitHit("lua-deadline");
    log.warn({ uid: clipped(uid), kind: clipped(kind), operation, outcome, reason: r.reason, durationMs: Math.round(seconds * 1e4) / 10 }, r.message);
    const code = r.reason === "crashed" ? 500 : r.reason === "closed" ? 503 : 504;
    send(res, 200, contextResponse(failureResponse(uid, code, `${kind ? kind.replace(/\/([^/]*)$/, ", Kind=$1") + " " : ""}${operation ? `${operation}: ` : ""}${r.message}`)));
  }

  const readiness = (): Readiness => ({ draining, readyWorkers: pool.readyWorkers, workers: pool.size, queued: pool.queued, generation: state.generation, lastErrors: state.lastErrors });
  const probes =
    o.probes === false
      ? undefined
      : probesServer({
          readiness: () => Promise.resolve({ readiness: readiness() }),
          metrics: async () => ({ body: await metrics.registry.metrics(), contentType: metrics.registry.contentType }),
        });

  let port: number;
  let metricsPort: number;
  try {
    port = await listen(server, o.securePort, o.bindAddress);
    metricsPort = probes === undefined ? 0 : await listen(probes, metricsAddress.port, metricsAddress.host);
  } catch (e) {
    server.close();
    probes?.close();
    configWatcher?.close();
    certWatcher.close();
    await pool.close();
    local.close();
    throw new ServeError(`cannot listen: ${(e as Error).message}`);
  }
  // A serving process of --processes: its supervisor says "serving" once every process does.
  if (probes === undefined) log.info({ port, path: o.path, workers: pool.size }, "process serving");
  else log.info({ port, metricsPort, path: o.path, workers: pool.size }, "serving");
  // Buffered log lines go out at least every second (and at once for this one).
  flushPending(log);
  const flusher = setInterval(() => flushPending(log), 1000);
  flusher.unref();

  const close = (): Promise<void> => {
    closing ??= (async () => {
      draining = true;
      configWatcher?.close();
      certWatcher.close();
      log.info({ inFlight }, "shutting down: no new connections, finishing requests in flight");
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const until = Date.now() + o.shutdownGracePeriodMs;
      while (inFlight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      if (inFlight > 0) log.warn({ inFlight }, "grace period over: closing the remaining connections");
      server.closeAllConnections();
      await closed;
      await pool.close();
      local.close();
      if (probes !== undefined) {
        await new Promise<void>((resolve) => probes.close(() => resolve()));
        probes.closeAllConnections();
      }
      log.info("stopped");
      clearInterval(flusher);
      await flushLogs(log);
    })();
    return closing;
  };
  const unready = (): void => {
    draining = true;
  };
  return { port, metricsPort, metrics, pool, unready, close, reload, readiness };
}

export type { FrameworkSource };
