/**
 * The one work queue of the controller and its servers, as client-go's: a key is queued at most once at a
 * time, is never processed by two workers at once (a key added while it is processed runs again
 * afterwards), and a failed key is retried with per-key exponential backoff (base doubling up to a cap),
 * forgotten on success. `addAfter` coalesces: the events of a burst (a job's fifty pods) that arrive
 * within the delay give one reconcile. And the backoff every retry loop uses (requests, watches, keys).
 */

/** Exponential backoff with jitter: `next()` gives base, 2·base, 4·base... up to max, each ±20%. */
export class Backoff {
  private attempt = 0;
  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  next(): number {
    const d = Math.min(this.maxMs, this.baseMs * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 30);
    return Math.round(d * (0.8 + 0.4 * Math.random()));
  }

  reset(): void {
    this.attempt = 0;
  }
}

export interface QueueOptions {
  /** First retry delay (default 50 ms). */
  baseDelayMs?: number;
  /** Longest retry delay (default 5 minutes). */
  maxDelayMs?: number;
  /** Workers processing keys concurrently (default 2). */
  workers?: number;
}

export interface QueueMetrics {
  depth: number;
  processing: number;
  retries: number;
  /** Keys waiting for a delayed add (coalescing or retry). */
  waiting: number;
  /** Keys processed at once at most. */
  workers: number;
}

export class WorkQueue {
  private readonly queued = new Set<string>();
  /** FIFO of queued keys from `head` on (never holds a key being processed: those go to `dirty`). */
  private order: string[] = [];
  private head = 0;
  private readonly processing = new Set<string>();
  /** Keys added again while being processed. */
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private active = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  private retryCount = 0;
  private readonly base: number;
  private readonly max: number;
  private readonly workers: number;
  /** Called after each processing of a key with its duration and outcome (for metrics). */
  onProcessed: (durationMs: number, ok: boolean) => void = () => {};

  constructor(
    private readonly handler: (key: string) => Promise<void>,
    private readonly onError: (key: string, err: unknown, attempt: number) => void = () => {},
    options: QueueOptions = {},
  ) {
    this.base = options.baseDelayMs ?? 50;
    this.max = options.maxDelayMs ?? 5 * 60_000;
    this.workers = options.workers ?? 2;
  }

  /** Queues a key (no-op when already queued). */
  add(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.order.push(key);
    this.pump();
  }

  /**
   * Queues a key after a delay. Adds of a key already waiting keep the earlier time, so a burst of events
   * within `delayMs` gives one add (coalescing); a key already queued is not delayed.
   */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped || this.queued.has(key)) return;
    const at = Date.now() + delayMs;
    const had = this.timers.get(key);
    if (had && had.at <= at) return;
    if (had) clearTimeout(had.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  metrics(): QueueMetrics {
    return { depth: this.order.length - this.head, processing: this.processing.size, retries: this.retryCount, waiting: this.timers.size, workers: this.workers };
  }

  /** Resolves when nothing is queued or processing (keys waiting for a delayed add are not counted). */
  async idle(): Promise<void> {
    if (this.order.length === this.head && this.active === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking keys; resolves when the keys being processed are done. */
  async shutDown(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t.timer);
    this.timers.clear();
    this.order = [];
    this.head = 0;
    this.queued.clear();
    await this.idle();
  }

  private pump(): void {
    while (!this.stopped && this.active < this.workers && this.head < this.order.length) {
      const key = this.order[this.head++]!;
      this.queued.delete(key);
      this.processing.add(key);
      this.active++;
      void this.process(key);
    }
    if (this.head === this.order.length) {
      this.order = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
    if (this.order.length === this.head && this.active === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async process(key: string): Promise<void> {
    const started = performance.now();
    try {
      await this.handler(key);
      this.failures.delete(key);
      this.onProcessed(performance.now() - started, true);
    } catch (err) {
      this.onProcessed(performance.now() - started, false);
      const attempt = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, attempt);
      this.retryCount++;
      this.onError(key, err, attempt);
      this.addAfter(key, Math.min(this.max, this.base * 2 ** (attempt - 1)));
    } finally {
      this.processing.delete(key);
      this.active--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
