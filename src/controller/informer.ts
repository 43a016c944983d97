/**
 * An informer as client-go's reflector and store make one: a watch-list (the objects streamed as events,
 * then watched on; where the server has no WatchList, a list in pages of 500, so neither the API server
 * nor this process holds a whole large collection at once, then a watch from the list's resourceVersion),
 * with bookmarks, keeping a cache current from the events:
 * - a watch the server ends (its timeoutSeconds, 5 to 10 minutes) is started again from the last
 *   resourceVersion seen (events and bookmarks both advance it), without a list;
 * - a resourceVersion the server no longer has (410 Gone, or an ERROR event with code 410: "too old
 *   resource version", after compaction or a long disconnection) means a new list, which replaces the
 *   cache: objects no longer listed are deleted (with their handlers called), changed ones updated;
 * - a failure (the API server restarting, a throttled or refused request) is retried with backoff
 *   (0.8 s doubling to 30 s), logged at info while the server is unavailable and at error when it refuses.
 * Every object goes through `transform` before the cache and the handlers see it (the controller keeps
 * only the fields it reads), and objects `keep` refuses are not cached at all (another shard's): an object
 * that stops being kept is deleted from the cache. List items get the list's apiVersion and kind, as
 * watch events carry them. Handlers run synchronously in event order; one that throws is logged and does
 * not stop the informer.
 */
import { ApiError, isTransient, type KubeClient, type WatchEvent } from "./client.js";
import type { KubernetesObject } from "./kubernetes-object.js";
import type { ObjectDecoder } from "./protobuf.js";
import { Backoff } from "./queue.js";
import type { Logger } from "./log.js";

export type InformerVerb = "add" | "update" | "delete";
export type Handler<T> = (obj: T, old?: T) => void;

export interface InformerOptions<T> {
  /** The collection: `/api/v1/pods`, `/apis/GROUP/VERSION/PLURAL`. */
  path: string;
  /** What it caches, for logs (`pods`, `pytorchjobs.kubeflow.org`). */
  what: string;
  log: Logger;
  /** Applied to every object before the cache and the handlers see it (it may change the object in place). */
  transform?: (o: T) => T;
  /** Objects to cache (default all). */
  keep?: (o: T) => boolean;
  labelSelector?: string;
  fieldSelector?: string;
  /** List page size (default 500, as client-go's). */
  pageSize?: number;
  /** What a 404 means, logged with it (the resource is not served: a CRD not installed). */
  notFound?: string;
  /** Watch in protobuf, objects decoded by this (a built-in kind's; lists stay JSON). */
  protobuf?: ObjectDecoder;
  /**
   * Read the watch at most once per this many milliseconds while events keep coming (KubeClient.watch):
   * less CPU for a busy collection whose handlers need no event at once.
   */
  batchMs?: number;
  /** Told of each failed list or watch before it is retried (besides the log), with why. */
  onFailure?: (why: string, retryInMs: number) => void;
}

/** What an informer has done (tests and metrics). */
export interface InformerStats {
  lists: number;
  /** Lists after the first: a watch expired (410) or the cache was otherwise out of date. */
  relists: number;
  watches: number;
  events: number;
  /** Retries after a failure. */
  failures: number;
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });

/** A 410 Gone: the resourceVersion asked for is no longer in the server's history. */
function isGone(err: unknown): boolean {
  return err instanceof ApiError && (err.code === 410 || err.reason === "Expired" || err.reason === "Gone");
}

export class Informer<T extends KubernetesObject = KubernetesObject> {
  private readonly objects = new Map<string, Map<string, T>>();
  private count = 0;
  private readonly handlers: Record<InformerVerb, Handler<T>[]> = { add: [], update: [], delete: [] };
  private resourceVersion = "";
  private synced = false;
  private abort = new AbortController();
  private running: Promise<void> | undefined;
  private syncWaiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  readonly stats: InformerStats = { lists: 0, relists: 0, watches: 0, events: 0, failures: 0 };
  /** The item kind of the collection (from the first list), for list items that come without it. */
  private itemKind: { apiVersion?: string; kind?: string } = {};
  /** Why the last list or watch failed, until one succeeds (for a start that never syncs). */
  lastError: string | undefined;
  /** Whether the last failure was logged as the server being unavailable (logged once per outage). */
  private unavailableLogged = false;

  constructor(
    private readonly client: KubeClient,
    private readonly o: InformerOptions<T>,
  ) {}

  on(verb: InformerVerb, handler: Handler<T>): void {
    this.handlers[verb].push(handler);
  }

  /** Starts listing and watching; resolves once the first list is in the cache (rejects if stopped before). */
  start(): Promise<void> {
    if (this.synced) return Promise.resolve();
    const waiting = new Promise<void>((resolve, reject) => this.syncWaiters.push({ resolve, reject }));
    if (!this.running) {
      if (this.abort.signal.aborted) this.abort = new AbortController();
      this.running = this.run(this.abort.signal);
    }
    return waiting;
  }

  /** Stops watching; the cache keeps what it has. */
  async stop(): Promise<void> {
    this.abort.abort();
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w.reject(new Error(`the ${this.o.what} informer was stopped before it synced`));
    await this.running;
    this.running = undefined;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  get size(): number {
    return this.count;
  }

  /** The resourceVersion the cache is current to. */
  lastResourceVersion(): string {
    return this.resourceVersion;
  }

  get(name: string, namespace?: string): T | undefined {
    return this.objects.get(namespace ?? "")?.get(name);
  }

  /** The cached objects (of one namespace). */
  list(namespace?: string): T[] {
    if (namespace !== undefined) return [...(this.objects.get(namespace)?.values() ?? [])];
    const out: T[] = [];
    for (const m of this.objects.values()) for (const o of m.values()) out.push(o);
    return out;
  }

  /** Every cached object, read as the iteration goes (not copied into an array). */
  *values(): Generator<T, void, undefined> {
    for (const m of this.objects.values()) yield* m.values();
  }

  /** Calls `fn` with every cached object (without copying the cache into an array). */
  forEach(fn: (o: T) => void): void {
    for (const m of this.objects.values()) for (const o of m.values()) fn(o);
  }

  private emit(verb: InformerVerb, obj: T, old?: T): void {
    for (const h of this.handlers[verb]) {
      try {
        h(obj, old);
      } catch (err) {
        this.o.log("error", "informer handler failed", { watch: this.o.what, verb, err: String((err as Error)?.stack ?? err) });
      }
    }
  }

  private upsert(o: T): void {
    const meta = o.metadata;
    if (!meta?.name) return;
    const ns = meta.namespace ?? "";
    let m = this.objects.get(ns);
    const old = m?.get(meta.name);
    if (this.o.keep && !this.o.keep(o)) {
      if (old) this.remove(old);
      return;
    }
    if (old && old.metadata?.resourceVersion !== undefined && old.metadata.resourceVersion === meta.resourceVersion) return;
    if (!m) this.objects.set(ns, (m = new Map()));
    m.set(meta.name, o);
    if (old) this.emit("update", o, old);
    else {
      this.count++;
      this.emit("add", o);
    }
  }

  /**
   * Applies `keep` again to a cached object, when what it depends on changed (a pod's owner arrived in
   * another cache): one it now refuses is dropped, as a delete.
   */
  recheck(o: T): void {
    if (this.o.keep && !this.o.keep(o)) this.remove(o);
  }

  private remove(o: T): void {
    const ns = o.metadata?.namespace ?? "";
    const m = this.objects.get(ns);
    const had = m?.get(o.metadata?.name ?? "");
    if (!m || !had) return;
    m.delete(o.metadata!.name!);
    if (m.size === 0) this.objects.delete(ns);
    this.count--;
    this.emit("delete", had);
  }

  private prepare(raw: Record<string, unknown>): T {
    const o = raw as unknown as T;
    if (o.kind === undefined && this.itemKind.kind !== undefined) {
      o.apiVersion = this.itemKind.apiVersion!;
      o.kind = this.itemKind.kind;
    }
    return this.o.transform ? this.o.transform(o) : o;
  }

  private markSynced(): void {
    if (this.synced) return;
    this.synced = true;
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w.resolve();
  }

  /** Says the server answers again, after "API server unavailable". */
  private recovered(): void {
    this.lastError = undefined;
    if (!this.unavailableLogged) return;
    this.unavailableLogged = false;
    this.o.log("info", "watching again", { watch: this.o.what });
  }

  /** Lists every page, then replaces the cache with what was listed. */
  private async listAll(signal: AbortSignal): Promise<void> {
    for (;;) {
      const seen = new Set<string>();
      let cont: string | undefined;
      let rv = "";
      let expired = false;
      do {
        let page: { apiVersion?: string; kind?: string; metadata?: { resourceVersion?: string; continue?: string }; items?: Record<string, unknown>[] | null };
        try {
          page = await this.client.get(this.o.path, {
            query: { limit: this.o.pageSize ?? 500, continue: cont, labelSelector: this.o.labelSelector, fieldSelector: this.o.fieldSelector },
            signal,
          });
        } catch (err) {
          // A continue token outlives the server's compaction window: list again from the start.
          if (cont !== undefined && isGone(err)) {
            expired = true;
            break;
          }
          throw err;
        }
        if (signal.aborted) return;
        if (page.kind?.endsWith("List")) this.itemKind = { ...(page.apiVersion ? { apiVersion: page.apiVersion } : {}), kind: page.kind.slice(0, -4) };
        if (rv === "") rv = page.metadata?.resourceVersion ?? "";
        for (const raw of page.items ?? []) {
          const o = this.prepare(raw);
          seen.add(`${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`);
          this.upsert(o);
        }
        cont = page.metadata?.continue || undefined;
      } while (cont !== undefined);
      if (expired) continue;
      // What the list no longer has was deleted while we were not watching.
      for (const o of this.list()) if (!seen.has(`${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`)) this.remove(o);
      this.resourceVersion = rv;
      return;
    }
  }

  /**
   * One watch, until the server ends it; a 410 throws. From the current resourceVersion, or, with none
   * (`initial`), a watch-list: the server streams every object as an ADDED event, then a bookmark marked
   * `k8s.io/initial-events-end`, and the watch goes on from there (client-go's WatchListClient). The
   * objects arrive one line at a time, so neither side holds a whole list (a 50,000-pod list is ~150 MB
   * of JSON), and the server answers from its watch cache; at the bookmark the cache is replaced (objects
   * not streamed are deleted) and is synced.
   */
  private async watch(signal: AbortSignal, initial = false): Promise<void> {
    this.stats.watches++;
    const stop = new AbortController();
    // Read once per event: AbortSignal's getter is a measurable share of an event at thousands a second.
    let stopped = false;
    stop.signal.addEventListener("abort", () => (stopped = true), { once: true });
    const onAbort = (): void => stop.abort();
    signal.addEventListener("abort", onAbort, { once: true });
    let failure: ApiError | undefined;
    let seen: Set<string> | undefined = initial ? new Set() : undefined;
    const onEvent = (e: WatchEvent): void => {
      if (stopped) return;
      this.stats.events++;
      this.recovered();
      const obj = e.object;
      if (e.type === "ERROR") {
        const s = obj as { code?: number; reason?: string; message?: string };
        failure = new ApiError(s.code ?? 500, s.reason ?? "", s.message ?? "watch error", obj);
        stop.abort();
        return;
      }
      const meta = obj["metadata"] as { resourceVersion?: string; annotations?: Record<string, string> } | undefined;
      const rv = meta?.resourceVersion;
      if (e.type === "BOOKMARK") {
        if (rv) this.resourceVersion = rv;
        if (seen && meta?.annotations?.["k8s.io/initial-events-end"] === "true") {
          for (const o of this.list()) if (!seen.has(`${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`)) this.remove(o);
          seen = undefined;
          this.markSynced();
        }
        return;
      }
      const o = this.prepare(obj);
      if (e.type === "DELETED") this.remove(o);
      else {
        seen?.add(`${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`);
        this.upsert(o);
      }
      if (rv) this.resourceVersion = rv;
    };
    try {
      await this.client.watch(
        this.o.path,
        {
          ...(initial ? { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", resourceVersion: "" } : { resourceVersion: this.resourceVersion }),
          allowWatchBookmarks: true,
          // Spread over 5 to 10 minutes, as client-go does, so watches do not all restart at once.
          timeoutSeconds: 300 + Math.floor(Math.random() * 300),
          labelSelector: this.o.labelSelector,
          fieldSelector: this.o.fieldSelector,
        },
        onEvent,
        stop.signal,
        { protobuf: this.o.protobuf, batchMs: this.o.batchMs },
      );
    } catch (err) {
      // An ERROR event ends the watch by aborting its request: the Status it carried (a 410 Expired, say)
      // is what ended it, not the abort.
      if (failure === undefined) throw err;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    if (failure) throw failure;
    // Ended before the initial events did (a server timeout): the cache is not known complete.
    if (seen) this.resourceVersion = "";
  }

  /** Whether the server streams initial events (WatchList); false once it refused, then lists in pages. */
  private watchList = true;

  /** The first state: a watch-list, or, where the server does not serve one, a paged list. */
  private async sync(signal: AbortSignal): Promise<void> {
    this.stats.lists++;
    if (this.stats.lists > 1) this.stats.relists++;
    if (this.watchList) {
      try {
        await this.watch(signal, true);
        return;
      } catch (err) {
        // An API server without WatchList refuses sendInitialEvents and resourceVersionMatch on a watch.
        if (!(err instanceof ApiError) || ![400, 403, 422].includes(err.code) || !/sendInitialEvents|resourceVersionMatch|watch.?list/i.test(err.message)) throw err;
        this.watchList = false;
        this.o.log("info", "the API server does not stream initial events; listing in pages", { watch: this.o.what, why: err.message });
      }
    }
    await this.listAll(signal);
    if (signal.aborted) return;
    this.markSynced();
    this.recovered();
    await this.watch(signal);
  }

  private async run(signal: AbortSignal): Promise<void> {
    const backoff = new Backoff(800, 30_000);
    while (!signal.aborted) {
      try {
        if (this.resourceVersion === "") await this.sync(signal);
        else await this.watch(signal);
        backoff.reset();
      } catch (err) {
        if (signal.aborted) break;
        if (isGone(err)) {
          // Too old a resourceVersion: list again, at once.
          this.o.log("info", "watch expired; listing again", { watch: this.o.what, resourceVersion: this.resourceVersion, why: (err as Error).message });
          this.resourceVersion = "";
          continue;
        }
        this.stats.failures++;
        const wait = backoff.next();
        const why = err instanceof ApiError ? (err.code === 404 && this.o.notFound ? this.o.notFound : err.message.startsWith(String(err.code)) ? err.message : `${err.code} ${err.message}`) : String((err as Error)?.message ?? err);
        this.lastError = `${this.o.what}: ${why}`;
        this.o.onFailure?.(why, wait);
        if (isTransient(err)) {
          // The API server restarting or pacing us: expected, and retried; said once per outage.
          this.o.log(this.unavailableLogged ? "debug" : "info", "API server unavailable; retrying", { watch: this.o.what, retryInMs: wait, why });
          this.unavailableLogged = true;
        } else this.o.log("error", "watch failed; retrying", { watch: this.o.what, retryInMs: wait, err: why });
        await sleep(wait, signal);
      }
    }
  }
}
