/**
 * The controller's Prometheus metrics (prom-client), named as controller-runtime names its own so existing
 * dashboards and alerts apply: work queue depth, reconcile count, errors and latency per controller
 * (`karta`, `workload`), whether this replica leads, the admission webhook's latency and requests, and
 * the process's default metrics.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import { collectProcessMetrics } from "../server/metrics.js";
import type { QueueMetrics, WorkQueue } from "./queue.js";

/** What the workload reconciler reports (src/controller/workloads.ts). */
export interface WorkloadStats {
  counters: { applies: number; deletes: number; skipped: number };
  podsWithoutGroup(): number;
  cachedPodCount(): number;
}

export class ControllerMetrics {
  readonly registry = new Registry();
  private readonly queues = new Map<string, WorkQueue>();
  readonly reconciles: Counter<"controller" | "result">;
  readonly errors: Counter<"controller">;
  readonly duration: Histogram<"controller">;
  readonly leader: Gauge;
  readonly webhookLatency: Histogram<"webhook">;
  readonly webhookRequests: Counter<"webhook" | "code">;
  readonly webhookInFlight: Gauge<"webhook">;
  readonly admissions: Counter<"outcome">;
  /** Requests to the API server by method and HTTP code, as client-go's rest_client_requests_total. */
  readonly requests: Counter<"method" | "code">;
  private workloads: WorkloadStats | undefined;
  /** More families in the text format, written by their owners (the workload exporter). */
  private readonly texts: (() => string | Iterable<string>)[] = [];

  constructor() {
    const registers = [this.registry];
    const queues = this.queues;
    // A gauge per queue, read from it at each scrape (client-go's queue metrics are labelled by the queue's
    // name, controller-runtime's by the controller's: here they are the same).
    const perQueue = (name: string, help: string, label: "name" | "controller", read: (m: QueueMetrics) => number) =>
      new Gauge({
        name,
        help,
        labelNames: [label],
        registers,
        collect() {
          this.reset();
          for (const [q, queue] of queues) this.set({ [label]: q }, read(queue.metrics()));
        },
      });
    perQueue("workqueue_depth", "Keys waiting in the controller's work queue.", "name", (m) => m.depth);
    perQueue("controller_runtime_max_concurrent_reconciles", "Reconciles a controller runs at once at most.", "controller", (m) => m.workers);
    perQueue("controller_runtime_active_workers", "Reconciles a controller is running now.", "controller", (m) => m.processing);
    new Counter({
      name: "workqueue_retries_total",
      help: "Keys requeued with backoff after a failed reconcile.",
      labelNames: ["name"],
      registers,
      collect() {
        this.reset();
        for (const [name, q] of queues) this.inc({ name }, q.metrics().retries);
      },
    });
    this.reconciles = new Counter({ name: "controller_runtime_reconcile_total", help: "Reconciles by controller and result (success, error).", labelNames: ["controller", "result"], registers });
    this.errors = new Counter({ name: "controller_runtime_reconcile_errors_total", help: "Reconciles that failed, by controller.", labelNames: ["controller"], registers });
    this.duration = new Histogram({
      name: "controller_runtime_reconcile_time_seconds",
      help: "Time of one reconcile, by controller.",
      labelNames: ["controller"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.leader = new Gauge({ name: "leader_election_master_status", help: "1 while this replica holds the Lease, else 0.", labelNames: ["name"], registers });
    // The admission webhook, as controller-runtime's webhook server names its metrics.
    this.webhookLatency = new Histogram({
      name: "controller_runtime_webhook_latency_seconds",
      help: "Time to answer an admission request, by webhook path.",
      labelNames: ["webhook"],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.webhookRequests = new Counter({ name: "controller_runtime_webhook_requests_total", help: "Admission requests by webhook path and HTTP code.", labelNames: ["webhook", "code"], registers });
    this.webhookInFlight = new Gauge({ name: "controller_runtime_webhook_requests_in_flight", help: "Admission requests being answered.", labelNames: ["webhook"], registers });
    this.admissions = new Counter({ name: "karta_pod_admissions_total", help: "Pods admitted, by outcome (patched, named, no-karta, not-in-cache, no-group, not-a-pod-create, malformed).", labelNames: ["outcome"], registers });
    this.requests = new Counter({ name: "rest_client_requests_total", help: "Requests to the API server, by method and HTTP code (<error>: no answer).", labelNames: ["method", "code"], registers });
    const stats = () => this.workloads;
    new Counter({
      name: "karta_group_writes_total",
      help: "Writes of Workload API objects to the API server, by operation (apply, delete).",
      labelNames: ["operation"],
      registers,
      collect() {
        this.reset();
        const w = stats();
        if (!w) return;
        this.inc({ operation: "apply" }, w.counters.applies);
        this.inc({ operation: "delete" }, w.counters.deletes);
      },
    });
    new Counter({
      name: "karta_group_applies_skipped_total",
      help: "Applies not sent because the cluster already held the object as compiled (after a restart or failover).",
      registers,
      collect() {
        this.reset();
        this.inc(stats()?.counters.skipped ?? 0);
      },
    });
    new Gauge({
      name: "karta_pods_without_group",
      help: "Pods of this shard's workloads that do not name their PodGroup (admitted while the webhook was unreachable, or without it).",
      registers,
      collect() {
        this.set(stats()?.podsWithoutGroup() ?? 0);
      },
    });
    new Gauge({
      name: "karta_cached_pods",
      help: "Pods in the controller's cache (this shard's, and those whose owners are not cached yet).",
      registers,
      collect() {
        this.set(stats()?.cachedPodCount() ?? 0);
      },
    });
    collectProcessMetrics(this.registry);
  }

  /** Reports the workload reconciler's writes and pods. */
  watchWorkloads(w: WorkloadStats): void {
    this.workloads = w;
  }

  /** Adds families that `text` writes in the text format (whole, or as pieces to concatenate) to every scrape. */
  addText(text: () => string | Iterable<string>): void {
    this.texts.push(text);
  }

  /** What /metrics serves, as pieces to concatenate (made as they are read): prom-client's families, then the others'. */
  async metrics(): Promise<Iterable<string>> {
    const first = await this.registry.metrics();
    const texts = this.texts;
    return (function* () {
      yield first;
      for (const t of texts) {
        const x = t();
        if (typeof x === "string") yield x;
        else yield* x;
      }
    })();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Reports a queue's depth and every reconcile it runs under `controller`. */
  watch(controller: string, queue: WorkQueue): void {
    this.queues.set(controller, queue);
    this.reconciles.inc({ controller, result: "success" }, 0);
    this.errors.inc({ controller }, 0);
    queue.onProcessed = (ms, ok) => {
      this.duration.observe({ controller }, ms / 1000);
      this.reconciles.inc({ controller, result: ok ? "success" : "error" });
      if (!ok) this.errors.inc({ controller });
    };
  }
}
