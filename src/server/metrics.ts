/**
 * The server's Prometheus metrics (prom-client), in a registry of their own: requests by operation,
 * kind and outcome, a latency histogram, limit hits of the Lua and jq engines, configuration and
 * certificate reloads, worker restarts, and the process's default metrics. The metrics counted at
 * every request (requests, duration, evaluations, in flight) are kept in plain numbers and maps and
 * read by the registry at each scrape: prom-client's own counters build a label string per update,
 * a measurable share of a request answered in tens of microseconds.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";

/** What prom-client's registry reads from a metric at a scrape. */
interface Scraped {
  name: string;
  help: string;
  type: "counter" | "histogram";
  aggregator: "sum";
  values: { metricName?: string; labels: Record<string, string | number>; value: number }[];
}

/** Label values in the order of the metric's label names; the nested maps end in a number. */
type Tree<V> = Map<string, Tree<V> | V>;

/** The entry for these label values (made at first use), in nested maps: an update builds no string. */
function leaf<V>(tree: Tree<V>, values: readonly string[], make: () => V): V {
  let node: Tree<V> = tree;
  for (let i = 0; i < values.length - 1; i++) {
    let next = node.get(values[i]!) as Tree<V> | undefined;
    if (next === undefined) node.set(values[i]!, (next = new Map()));
    node = next;
  }
  const last = values[values.length - 1]!;
  let v = node.get(last) as V | undefined;
  if (v === undefined) node.set(last, (v = make()));
  return v;
}

/** Every entry of a tree with its label values. */
function* leaves<V>(tree: Tree<V>, depth: number, prefix: string[] = []): Generator<[string[], V]> {
  for (const [k, v] of tree) {
    if (prefix.length + 1 === depth) yield [[...prefix, k], v as V];
    else yield* leaves(v as Tree<V>, depth, [...prefix, k]);
  }
}

function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  names.forEach((n, i) => (out[n] = values[i]!));
  return out;
}

/** A counter by labels, registered as a prom-client metric. */
class RequestCounter<L extends string> {
  readonly type = "counter" as const;
  readonly aggregator = "sum" as const;
  private readonly counts: Tree<{ n: number }> = new Map();
  private readonly values: string[];
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    registry: Registry,
  ) {
    this.values = labelNames.map(() => "");
    registry.registerMetric(this as unknown as Counter);
  }

  inc(labels: Partial<Record<L, string>>, by = 1): void {
    for (let i = 0; i < this.labelNames.length; i++) this.values[i] = labels[this.labelNames[i]!] ?? "";
    leaf(this.counts, this.values, () => ({ n: 0 })).n += by;
  }

  get(): Promise<Scraped> {
    const values: Scraped["values"] = [];
    for (const [v, c] of leaves(this.counts, this.labelNames.length)) values.push({ labels: labelsOf(this.labelNames, v), value: c.n });
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}

/** A histogram by labels with fixed buckets, registered as a prom-client metric. */
class RequestHistogram<L extends string> {
  readonly type = "histogram" as const;
  readonly aggregator = "sum" as const;
  private readonly data: Tree<{ buckets: Float64Array; sum: number; count: number }> = new Map();
  private readonly values: string[];
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly labelNames: readonly L[],
    private readonly upper: readonly number[],
    registry: Registry,
  ) {
    this.values = labelNames.map(() => "");
    registry.registerMetric(this as unknown as Counter);
  }

  observe(labels: Partial<Record<L, string>>, value: number): void {
    for (let i = 0; i < this.labelNames.length; i++) this.values[i] = labels[this.labelNames[i]!] ?? "";
    const d = leaf(this.data, this.values, () => ({ buckets: new Float64Array(this.upper.length), sum: 0, count: 0 }));
    let b = 0;
    while (b < this.upper.length && value > this.upper[b]!) b++;
    if (b < this.upper.length) d.buckets[b]!++;
    d.sum += value;
    d.count++;
  }

  get(): Promise<Scraped> {
    const values: Scraped["values"] = [];
    for (const [v, d] of leaves(this.data, this.labelNames.length)) {
      const labels = labelsOf(this.labelNames, v);
      let cumulative = 0;
      this.upper.forEach((le, i) => {
        cumulative += d.buckets[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { le, ...labels }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { le: "+Inf", ...labels }, value: d.count });
      values.push({ metricName: `${this.name}_sum`, labels, value: d.sum });
      values.push({ metricName: `${this.name}_count`, labels, value: d.count });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }
}

/**
 * prom-client's gauges named with `_total`, which `promtool check metrics` refuses ("non-counter metrics
 * should not have _total suffix"); the gauges of the same name without it, by type, remain.
 */
const GAUGES_NAMED_AS_COUNTERS = ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"];

/** The process's own metrics (CPU, memory, event loop, garbage collection) in `registry`, as every Karta server exposes them. */
export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry });
  for (const name of GAUGES_NAMED_AS_COUNTERS) registry.removeSingleMetric(name);
}

/** The metrics of one server. */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly requests: RequestCounter<"operation" | "kind" | "outcome">;
  readonly duration: RequestHistogram<"operation">;
  readonly limitHits: Counter<"engine" | "limit">;
  readonly reloads: Counter<"result">;
  readonly configErrors: Gauge;
  readonly configGeneration: Gauge;
  readonly certReloads: Counter<"result">;
  readonly workerRestarts: Counter<"reason">;
  /** Requests being answered (read at each scrape). */
  inFlight = 0;
  readonly evaluations: RequestCounter<"thread">;
  readonly workersBackingOff: Gauge;
  /** Read at each scrape for karta_workers_restart_backoff (the server points it at its pool). */
  backingOff: () => number = () => 0;

  constructor() {
    const registers = [this.registry];
    this.requests = new RequestCounter(
      "karta_webhook_requests_total",
      "Interpreter webhook requests by operation, kind (group/version/kind; \"unknown\" for a kind no layer interprets) and outcome (success, failure, bad_request, too_large, timeout, error; not_found and method_not_allowed for requests to another path or with another method).",
      ["operation", "kind", "outcome"],
      this.registry,
    );
    this.duration = new RequestHistogram(
      "karta_webhook_request_duration_seconds",
      "Time from the end of a request's body to its response, by operation.",
      ["operation"],
      [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      this.registry,
    );
    this.limitHits = new Counter({
      name: "karta_evaluation_limit_hits_total",
      help: "Evaluations stopped by a limit, by engine (lua, jq) and limit (lua: deadline, instructions, memory; jq: steps, depth, size).",
      labelNames: ["engine", "limit"],
      registers,
    });
    this.reloads = new Counter({ name: "karta_config_reloads_total", help: "Configuration reloads by result (success, failure).", labelNames: ["result"], registers });
    // With --processes, each process reloads on its own: the most errors, the oldest generation.
    this.configErrors = new Gauge({ name: "karta_config_errors", help: "Errors found in the configuration files by the last reload (0 when it succeeded).", registers, aggregator: "max" });
    this.configGeneration = new Gauge({ name: "karta_config_generation", help: "Generation of the configuration being served (1 at start, +1 per successful reload).", registers, aggregator: "min" });
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
    const inFlight = (): number => this.inFlight;
    new Gauge({
      name: "karta_webhook_requests_in_flight",
      help: "Requests being answered.",
      registers,
      collect() {
        this.set(inFlight());
      },
    });
    this.evaluations = new RequestCounter(
      "karta_webhook_evaluations_total",
      "Requests by where they were evaluated: event_loop (no script runs for them), worker, or event_loop_redone (stopped at the event loop's time slice and redone on a worker).",
      ["thread"],
      this.registry,
    );
    collectProcessMetrics(this.registry);
  }

  /** Counts a limit hit reported as "<engine>-<limit>" (lua-deadline, lua-instructions, lua-memory, jq-steps, jq-depth, jq-size). */
  limitHit(limit: string): void {
    const [engine, which] = limit.split("-", 2) as [string, string | undefined];
    this.limitHits.inc({ engine, limit: which ?? "" });
  }
}
