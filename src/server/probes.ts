/**
 * The plain HTTP server of `karta serve`'s --metrics-bind-address: /healthz (and /livez), /readyz with
 * kube-apiserver's `?verbose` check list, and /metrics. One process serves it from its own state; with
 * `--processes`, the supervisor serves it from what its serving processes report (see processes.ts).
 */
import http from "node:http";
import { BAD_TARGET, requestTarget } from "./request-target.js";

/** What /readyz reads from one server (a serving process reports it to its supervisor as it is). */
export interface Readiness {
  draining: boolean;
  readyWorkers: number;
  workers: number;
  queued: number;
  /** Generation of the configuration served. */
  generation: number;
  /** Errors of the last refused reload (empty when the last change was taken). */
  lastErrors: string[];
}

/** Serving processes of `--processes`: how many answer requests now, of how many, and how many of those have no ready worker. */
export interface ProcessCount {
  serving: number;
  total: number;
  withoutWorkers: number;
}

/**
 * The servers' readiness taken together: workers and queues summed, the oldest configuration
 * generation (the one every process serves), every process's reload errors once.
 */
export function combineReadiness(all: readonly Readiness[]): Readiness {
  return {
    draining: all.some((r) => r.draining),
    readyWorkers: all.reduce((n, r) => n + r.readyWorkers, 0),
    workers: all.reduce((n, r) => n + r.workers, 0),
    queued: all.reduce((n, r) => n + r.queued, 0),
    generation: all.length === 0 ? 0 : Math.min(...all.map((r) => r.generation)),
    lastErrors: [...new Set(all.flatMap((r) => r.lastErrors))],
  };
}

/**
 * The /readyz answer: ready when not shutting down and a worker is ready; with processes, when one
 * serves and each serving process has a ready worker (each gets its share of the connections).
 */
export function readyzAnswer(r: Readiness, verbose: boolean, processes?: ProcessCount): { status: number; body: string } {
  const checks: [boolean, string][] = [[!r.draining, r.draining ? "shutdown failed: the server is shutting down" : "shutdown ok"]];
  if (processes !== undefined) {
    const ok = processes.serving > 0 && processes.withoutWorkers === 0;
    checks.push([ok, `processes ${ok ? "ok" : "failed"}: ${processes.serving}/${processes.total} serving${processes.withoutWorkers > 0 ? `, ${processes.withoutWorkers} without a ready worker` : ""}`]);
  }
  checks.push(
    [r.readyWorkers > 0, `workers ${r.readyWorkers > 0 ? "ok" : "failed"}: ${r.readyWorkers}/${r.workers} ready, ${r.queued} queued`],
    [true, `config ok: generation ${r.generation}${r.lastErrors.length > 0 ? `; the last change was refused (${r.lastErrors.length} error(s)), the last good configuration is served` : ""}`],
  );
  const ok = checks.every(([pass]) => pass);
  if (!verbose) return { status: ok ? 200 : 503, body: ok ? "ok" : "not ready" };
  const lines = checks.map(([pass, line]) => `[${pass ? "+" : "-"}]${line}`);
  for (const e of r.lastErrors) lines.push(`    ${e}`);
  lines.push(ok ? "readyz check passed" : "readyz check failed");
  return { status: ok ? 200 : 503, body: lines.join("\n") + "\n" };
}

/** Where the probes server reads what it answers. */
export interface ProbeSources {
  readiness(): Promise<{ readiness: Readiness; processes?: ProcessCount }>;
  /** The Prometheus text of /metrics and its content type. */
  metrics(): Promise<{ body: string; contentType: string }>;
}

/** The probes server (not listening yet). */
export function probesServer(sources: ProbeSources): http.Server {
  return http.createServer((req, res) => {
    const text = (status: number, body: string, type = "text/plain; charset=utf-8"): void => {
      res.writeHead(status, { "Content-Type": type });
      res.end(body);
    };
    const url = requestTarget(req.url);
    if (url === undefined) return text(400, BAD_TARGET);
    const failed = (e: Error): void => text(500, e.message);
    if (url.pathname === "/healthz" || url.pathname === "/livez") return text(200, "ok");
    if (url.pathname === "/readyz") {
      void sources.readiness().then(({ readiness, processes }) => {
        const a = readyzAnswer(readiness, url.searchParams.has("verbose"), processes);
        text(a.status, a.body);
      }, failed);
      return;
    }
    if (url.pathname === "/metrics") {
      void sources.metrics().then((m) => text(200, m.body, m.contentType), failed);
      return;
    }
    text(404, "not found");
  });
}
