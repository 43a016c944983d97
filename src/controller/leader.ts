/**
 * Leader election on a coordination.k8s.io/v1 Lease, with client-go's rules: a candidate takes the Lease
 * when it is absent, or when its holder has not renewed it for leaseDuration as observed locally (so
 * clocks need not agree); the leader renews every retryPeriod and gives up leadership when it could not
 * renew for renewDeadline; every write carries the resourceVersion read, so two candidates cannot both win.
 * On a graceful stop the leader releases the Lease, so another replica takes over at once.
 */
import { apiError, microTime, pathSegment, resourcePath, type KubeClient } from "./client.js";
import type { Logger } from "./log.js";

/** A coordination.k8s.io/v1 Lease as the API serves it (times are MicroTime strings). */
interface Lease {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; [k: string]: unknown };
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; acquireTime?: string; renewTime?: string; leaseTransitions?: number; [k: string]: unknown };
}

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export interface LeaderCallbacks {
  onStartedLeading: () => void | Promise<void>;
  onStoppedLeading: () => void | Promise<void>;
}

/** Waits `ms` or until `signal` aborts; the abort listener is removed when the time is up (a standby replica sleeps every retry period). */
export const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = (): void => (clearTimeout(t), resolve());
    const t = setTimeout(() => (signal.removeEventListener("abort", onAbort), resolve()), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });

export class LeaderElector {
  private readonly path: string;
  private leading = false;
  /** The last Lease seen, and when (local clock) its holder or renewTime last changed. */
  private observed: { holder: string; renew: string; at: number } | undefined;
  private readonly stop = new AbortController();
  private done: Promise<void> | undefined;

  constructor(
    private readonly client: KubeClient,
    private readonly options: LeaderElectionOptions,
    private readonly callbacks: LeaderCallbacks,
    private readonly log: Logger,
  ) {
    this.path = resourcePath("coordination.k8s.io/v1", "leases", options.namespace);
    if (!(options.renewDeadlineMs < options.leaseDurationMs) || !(options.retryPeriodMs < options.renewDeadlineMs)) {
      throw new Error("leader election needs retry-period < renew-deadline < lease-duration");
    }
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Runs until {@link release} is called or leadership is lost. */
  run(): Promise<void> {
    this.done ??= this.loop();
    return this.done;
  }

  /** Stops campaigning and renewing without releasing the Lease, as a crashed process would (tests). */
  async abandon(): Promise<void> {
    this.stop.abort();
    await this.done;
    this.leading = false;
  }

  /** Stops campaigning; a leader releases the Lease (empty holder) so another replica takes over at once. */
  async release(): Promise<void> {
    this.stop.abort();
    await this.done;
    if (!this.leading) return;
    this.leading = false;
    try {
      const lease = await this.client.get<Lease>(this.leasePath(), { timeoutMs: this.options.renewDeadlineMs, retryBudgetMs: this.options.renewDeadlineMs });
      if (lease.spec?.holderIdentity === this.options.identity) {
        lease.apiVersion = "coordination.k8s.io/v1";
        lease.kind = "Lease";
        lease.spec.holderIdentity = "";
        lease.spec.leaseDurationSeconds = 1;
        await this.client.replace(this.leasePath(), lease, { timeoutMs: this.options.renewDeadlineMs, retryBudgetMs: 0 });
      }
    } catch (err) {
      this.log("error", "could not release the lease", { err: String((err as Error)?.message ?? err) });
    }
    await this.callbacks.onStoppedLeading();
  }

  private async loop(): Promise<void> {
    const o = this.options;
    // Campaign until leading.
    while (!this.stop.signal.aborted && !this.leading) {
      if (await this.tryAcquireOrRenew()) {
        this.leading = true;
        this.log("info", "became leader", { lease: `${o.namespace}/${o.name}`, identity: o.identity });
        await this.callbacks.onStartedLeading();
        break;
      }
      await sleep(o.retryPeriodMs, this.stop.signal);
    }
    // Renew until stopped or a renewal has failed for renewDeadline.
    let lastRenew = Date.now();
    while (!this.stop.signal.aborted && this.leading) {
      await sleep(o.retryPeriodMs, this.stop.signal);
      if (this.stop.signal.aborted) break;
      if (await this.tryAcquireOrRenew()) lastRenew = Date.now();
      else if (Date.now() - lastRenew > o.renewDeadlineMs) {
        this.leading = false;
        this.log("error", "lost leadership: could not renew the lease", { lease: `${o.namespace}/${o.name}`, identity: o.identity });
        await this.callbacks.onStoppedLeading();
      }
    }
  }

  private leasePath(): string {
    return `${this.path}/${pathSegment("name", this.options.name)}`;
  }

  /** One attempt; true when this candidate holds the Lease afterwards. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const o = this.options;
    const now = microTime(new Date());
    const seconds = Math.ceil(o.leaseDurationMs / 1000);
    // One attempt is bounded well within the renew deadline: a hung request must not hold the loop past it.
    const request = { timeoutMs: Math.max(o.retryPeriodMs, o.renewDeadlineMs / 2), retryBudgetMs: 0 };
    let lease: Lease;
    try {
      lease = await this.client.get<Lease>(this.leasePath(), request);
    } catch (err) {
      if (apiError(err)?.code !== 404) return this.failed(err);
      try {
        await this.client.create(this.path, { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: o.name, namespace: o.namespace }, spec: { holderIdentity: o.identity, leaseDurationSeconds: seconds, acquireTime: now, renewTime: now, leaseTransitions: 0 } }, request);
        return true;
      } catch (e) {
        return this.failed(e);
      }
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity ?? "";
    const renew = spec.renewTime ? new Date(spec.renewTime).toISOString() : "";
    if (!this.observed || this.observed.holder !== holder || this.observed.renew !== renew) this.observed = { holder, renew, at: Date.now() };
    const duration = (spec.leaseDurationSeconds ?? seconds) * 1000;
    if (holder !== "" && holder !== o.identity && Date.now() < this.observed.at + duration) return false;
    const next: Lease = {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      ...lease,
      spec: {
        ...spec,
        holderIdentity: o.identity,
        leaseDurationSeconds: seconds,
        renewTime: now,
        ...(holder !== o.identity ? { acquireTime: now, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 } : {}),
      },
    };
    try {
      await this.client.replace(this.leasePath(), next, request);
      return true;
    } catch (err) {
      return this.failed(err);
    }
  }

  private failed(err: unknown): false {
    const e = apiError(err);
    // A conflict means another candidate wrote first: not an error worth logging.
    if (e?.code !== 409) this.log("debug", "lease attempt failed", { err: e ? `${e.code} ${e.message}` : String((err as Error)?.message ?? err) });
    return false;
  }
}
