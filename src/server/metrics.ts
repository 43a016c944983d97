/**
 * The server's Prometheus metrics (prom-client), in a registry of their own: requests by operation,
 * kind and outcome, a latency histogram, limit hits of the Lua and jq engines, configuration and
 * certificate reloads, worker restarts, and the process's default metrics.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** The metrics of one server. */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<"operation" | "kind" | "outcome">;
  readonly duration: Histogram<"operation">;
  readonly limitHits: Counter<"engine" | "limit">;
  readonly reloads: Counter<"result">;
  readonly configErrors: Gauge;
  readonly configGeneration: Gauge;
  readonly certReloads: Counter<"result">;
  readonly workerRestarts: Counter<"reason">;
  readonly inFlight: Gauge;
  readonly evaluations: Counter<"thread">;
  readonly workersBackingOff: Gauge;
  /** Read at each scrape for karta_workers_restart_backoff (the server points it at its pool). */
  backingOff: () => number = () => 0;

  constructor() {
    const registers = [this.registry];
    this.requests = new Counter({
      name: "karta_webhook_requests_total",
      help: "Interpreter webhook requests by operation, kind (group/version/kind) and outcome (success, failure, bad_request, too_large, timeout, error).",
      labelNames: ["operation", "kind", "outcome"],
      registers,
    });
    this.duration = new Histogram({
      name: "karta_webhook_request_duration_seconds",
      help: "Time from the end of a request's body to its response, by operation.",
      labelNames: ["operation"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.limitHits = new Counter({
      name: "karta_evaluation_limit_hits_total",
      help: "Evaluations stopped by a limit, by engine (lua, jq) and limit (lua: deadline, instructions, memory; jq: steps, depth, size).",
      labelNames: ["engine", "limit"],
      registers,
    });
    this.reloads = new Counter({ name: "karta_config_reloads_total", help: "Configuration reloads by result (success, failure).", labelNames: ["result"], registers });
    this.configErrors = new Gauge({ name: "karta_config_errors", help: "Errors found in the configuration files by the last reload (0 when it succeeded).", registers });
    this.configGeneration = new Gauge({ name: "karta_config_generation", help: "Generation of the configuration being served (1 at start, +1 per successful reload).", registers });
    this.certReloads = new Counter({ name: "karta_certificate_reloads_total", help: "Serving certificate reloads by result (success, failure).", labelNames: ["result"], registers });
    this.workerRestarts = new Counter({ name: "karta_worker_restarts_total", help: "Evaluation workers terminated and replaced, by reason (deadline, lua-deadline, crashed).", labelNames: ["reason"], registers });
    const backingOff = (): number => this.backingOff();
    this.workersBackingOff = new Gauge({
      name: "karta_workers_restart_backoff",
      help: "Evaluation workers that crashed repeatedly and wait out a backoff before their restart.",
      registers,
      collect() {
        this.set(backingOff());
      },
    });
    this.inFlight = new Gauge({ name: "karta_webhook_requests_in_flight", help: "Requests being answered.", registers });
    this.evaluations = new Counter({
      name: "karta_webhook_evaluations_total",
      help: "Requests by where they were evaluated: event_loop (no script runs for them), worker, or event_loop_redone (stopped at the event loop's time slice and redone on a worker).",
      labelNames: ["thread"],
      registers,
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /** Counts a limit hit reported as "<engine>-<limit>" (lua-deadline, lua-instructions, lua-memory, jq-steps, jq-depth, jq-size). */
  limitHit(limit: string): void {
    const [engine, which] = limit.split("-", 2) as [string, string | undefined];
    this.limitHits.inc({ engine, limit: which ?? "" });
  }
}
