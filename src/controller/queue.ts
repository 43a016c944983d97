/**
 * A rate-limited work queue, as client-go's: a key is queued at most once at a time, is never processed by
 * two workers at once (a key added while it is processed runs again afterwards), and a failed key is
 * retried with per-key exponential backoff (base doubling up to a cap), forgotten on success.
 */

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
}

export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly order: string[] = [];
  private readonly processing = new Set<string>();
  /** Keys added again while being processed. */
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
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

  /** Queues a key after a delay (a pending delayed add of the same key is replaced by the earlier one). */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (this.timers.has(key)) return;
    const t = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    t.unref();
    this.timers.set(key, t);
  }

  metrics(): QueueMetrics {
    return { depth: this.order.length, processing: this.processing.size, retries: this.retryCount };
  }

  /** Resolves when nothing is queued, processing or waiting for a retry timer that is due within the call. */
  async idle(): Promise<void> {
    if (this.order.length === 0 && this.active === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops taking keys; resolves when the keys being processed are done. */
  async shutDown(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    this.order.length = 0;
    this.queued.clear();
    await this.idle();
  }

  private pump(): void {
    while (!this.stopped && this.active < this.workers) {
      const idx = this.order.findIndex((k) => !this.processing.has(k));
      if (idx < 0) break;
      const [key] = this.order.splice(idx, 1) as [string];
      this.queued.delete(key);
      this.processing.add(key);
      this.active++;
      void this.process(key);
    }
    if (this.order.length === 0 && this.active === 0) {
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
