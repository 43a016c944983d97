/**
 * The controller's Events, written in the background by an {@link EventSink}: an Event never delays nor
 * fails a reconcile, and at most four are in flight (a burst of a thousand workloads queues them rather
 * than opening a connection each); past 1,000 waiting, the oldest are dropped (and counted), as
 * client-go's broadcaster drops what its queue cannot hold. A failure to record is logged, never thrown:
 * an Event is a courtesy, not part of the reconcile.
 * - {@link EventRecorder}: Events about cluster-scoped objects (Kartas) as client-go's events.k8s.io/v1
 *   recorder writes them, which upstream's operator uses: reportingController `karta-controller`,
 *   reportingInstance `karta-controller-<hostname>`, the object in `regarding`, the Event in the `default`
 *   namespace (the object has none), named `<object>.<time in hex nanoseconds>`;
 * - {@link coreEvent}: core/v1 Events about workloads (GroupsCreated, PodsWithoutGroup...).
 */
import { hostname } from "node:os";
import type { KubernetesObject } from "./kubernetes-object.js";
import { isTransient, microTime, resourcePath, type KubeClient } from "./client.js";
import type { Logger } from "./log.js";

export const REPORTING_CONTROLLER = "karta-controller";
/** How long an Event's write is retried while the API server is unavailable. */
const EVENT_RETRY_BUDGET_MS = 120_000;
/** How long a stopping controller waits for its queued Events. */
export const EVENTS_AT_SHUTDOWN_MS = 5000;

/** Writes Events in the background, a few at a time (see the module comment). */
export class EventSink {
  private readonly waiting: { path: string; body: unknown; what: string }[] = [];
  private inFlight = 0;
  /** Events dropped because too many were waiting. */
  dropped = 0;
  private idleWaiters: (() => void)[] = [];
  private closing = false;

  constructor(
    private readonly client: KubeClient,
    private readonly log: Logger,
    private readonly concurrency = 4,
    private readonly capacity = 1000,
  ) {}

  /** Queues the Event `body` for a POST to `path`; `what` names it in a log line if it fails. */
  post(path: string, body: unknown, what: string): void {
    if (this.waiting.length >= this.capacity) {
      this.waiting.shift();
      if (this.dropped++ % 100 === 0) this.log("info", "too many Events waiting; dropping the oldest", { dropped: this.dropped });
    }
    this.waiting.push({ path, body, what });
    this.pump();
  }

  /** Resolves once nothing waits or is in flight (tests, shutdown). */
  idle(): Promise<void> {
    if (this.inFlight === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Shutdown: waits up to `ms` for the Events queued and in flight, then drops the rest (logged at info:
   * the process is stopping, an Event it could not finish is no error of the cluster's).
   */
  async close(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
    this.closing = true;
    if (this.waiting.length + this.inFlight > 0) this.log("info", "shutting down: Events not recorded", { events: this.waiting.length + this.inFlight });
    this.waiting.length = 0;
  }

  private pump(): void {
    while (this.inFlight < this.concurrency && this.waiting.length > 0) {
      const e = this.waiting.shift()!;
      this.inFlight++;
      this.client
        // Through an API server outage (a restart takes a minute), as client-go's broadcaster retries.
        .create(e.path, e.body, { retryBudgetMs: EVENT_RETRY_BUDGET_MS })
        .catch((err: unknown) => this.log(this.closing ? "debug" : isTransient(err) ? "info" : "error", "cannot record an event", { event: e.what, err: String((err as Error)?.message ?? err) }))
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
    if (this.inFlight === 0 && this.waiting.length === 0) {
      const w = this.idleWaiters;
      this.idleWaiters = [];
      for (const f of w) f();
    }
  }
}

/** Queues a core/v1 Event about a namespaced object (a workload) on `sink`. */
export function coreEvent(sink: EventSink, involved: KubernetesObject, type: "Normal" | "Warning", reason: string, message: string): void {
  const ns = involved.metadata?.namespace ?? "default";
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  sink.post(
    resourcePath("v1", "events", ns),
    {
      apiVersion: "v1",
      kind: "Event",
      metadata: { generateName: `${involved.metadata?.name ?? "object"}.`.slice(0, 200), namespace: ns },
      involvedObject: { apiVersion: involved.apiVersion, kind: involved.kind, name: involved.metadata?.name, namespace: ns, uid: involved.metadata?.uid },
      type,
      reason,
      message: message.slice(0, 1024),
      source: { component: REPORTING_CONTROLLER },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    },
    `${reason} on ${involved.kind} ${ns}/${involved.metadata?.name}`,
  );
}

/** events.k8s.io/v1 limits the note to 1 kB. */
const MAX_NOTE = 1024;

export class EventRecorder {
  private readonly instance = `${REPORTING_CONTROLLER}-${hostname()}`;
  /** Nanoseconds within the millisecond, so two Events of one millisecond get two names. */
  private sequence = 0;

  constructor(private readonly sink: EventSink) {}

  /** Queues a Warning about `regarding`; `action` says what the controller was doing. */
  warning(regarding: KubernetesObject, reason: string, action: string, note: string): void {
    const now = new Date();
    const namespace = regarding.metadata?.namespace || "default";
    const name = `${regarding.metadata?.name ?? "object"}.${(BigInt(now.getTime()) * 1_000_000n + BigInt(this.sequence++ % 1_000_000)).toString(16)}`;
    this.sink.post(
      resourcePath("events.k8s.io/v1", "events", namespace),
      {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name, namespace },
        eventTime: microTime(now),
        type: "Warning",
        reason,
        action,
        note: note.length > MAX_NOTE ? `${note.slice(0, MAX_NOTE - 3)}...` : note,
        reportingController: REPORTING_CONTROLLER,
        reportingInstance: this.instance,
        regarding: {
          apiVersion: regarding.apiVersion,
          kind: regarding.kind,
          name: regarding.metadata?.name,
          uid: regarding.metadata?.uid,
          resourceVersion: regarding.metadata?.resourceVersion,
          ...(regarding.metadata?.namespace ? { namespace: regarding.metadata.namespace } : {}),
        },
      },
      `${reason} on ${regarding.kind} ${regarding.metadata?.name}`,
    );
  }
}
