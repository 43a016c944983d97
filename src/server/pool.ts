/**
 * A pool of evaluation worker threads. Each task runs on one idle worker; a task has a deadline, and
 * a worker that passes it, or that runs a Lua call past the call's own deadline (a script stuck
 * inside a library function, where the VM's hook cannot stop it), is terminated and replaced at once,
 * so a runaway script holds one worker for at most its deadline and never delays requests on the
 * others. A worker that crashes (an error, an exit, its heap limit) is replaced at once the first
 * time; crashing again before it has answered a task or run for a minute, it is restarted after an
 * exponential backoff (as the kubelet restarts a crashing container), so a crash loop does not spin.
 *
 * Under load each worker is given up to {@link PIPELINE_DEPTH} tasks at a time, so that it starts the
 * next as soon as it answers one instead of sleeping until the main thread, busy with HTTP, hands it
 * another (a thread wake-up per request costs more than a cheap evaluation on a small machine). A task
 * waiting behind one that has run for {@link STALLED_MS} is taken back and given to another worker:
 * the worker skips it (see WorkerData.skip), and answers are pure, so the first one wins.
 */
import { Worker } from "node:worker_threads";
import type { LayerOutcome } from "../interpreter/framework.js";
import type { AggregatedStatusItem, KubeObject, Operation, ResourceInterpreterCustomization, TargetComponent } from "../interpreter/types.js";
import type { FrameworkSource } from "./config.js";
import type { OperationInput } from "./context.js";
import type { AnswerMeta } from "./evaluate.js";
import { DEFAULT_RESTART_BACKOFF, nextRestart, type RestartBackoff } from "./backoff.js";

/** What the main thread sends a worker. */
export type WorkerRequest =
  | { type: "source"; source: FrameworkSource; generation: number }
  | { type: "context"; id: number; body: string }
  | { type: "operation"; id: number; input: OperationInput }
  | ({ type: "rule"; id: number } & RuleInput);

/** One customization rule run on a sample (`karta interpret --check --desired-file`). */
export interface RuleInput {
  customization: ResourceInterpreterCustomization;
  operation: Operation;
  sample: KubeObject;
  observed: KubeObject;
  /** The status items (absent: none, Go's nil). */
  items?: AggregatedStatusItem[];
  replicas: number;
  /** ReviseComponents' assignment (empty when none was given). */
  components?: TargetComponent[];
}

/** A server answer: the response body (a ResourceInterpreterContext) and how it went. */
export interface ContextAnswer {
  body: string;
  meta: AnswerMeta;
  /** The evaluation's own time (the answer, without decoding the body and encoding the response), ms. */
  ms: number;
}

/** What a worker sends back. */
export type WorkerReply =
  | { type: "ready"; generation: number }
  | { type: "failed"; generation: number; message: string }
  | { type: "done"; id: number; value: ContextAnswer | LayerOutcome<unknown> | string | null }
  | { type: "crashed"; id: number; message: string };

/** Why a task has no answer. */
export type TaskFailure = "deadline" | "lua-deadline" | "crashed" | "closed";

/** A task's result. */
export type TaskResult<T> = { ok: true; value: T } | { ok: false; reason: TaskFailure; message: string };

/** Events for logs and metrics. */
export type PoolEvent =
  /** A worker was terminated or crashed; its replacement starts after `delayMs` (`crashes` in a row so far). */
  | { type: "restart"; reason: TaskFailure | "exit"; message: string; delayMs: number; crashes: number }
  | { type: "ready"; generation: number }
  | { type: "failed"; generation: number; message: string };

/** Options of a pool. */
export interface PoolOptions {
  /** Number of workers (at least 1). */
  size: number;
  /** The framework source each worker builds. */
  source: FrameworkSource;
  /** How long past a Lua call's deadline the call may run before its worker is terminated (default 100 ms). */
  luaGraceMs?: number;
  /** Heap limit of each worker, MiB (default 512): a worker that exceeds it is replaced. */
  maxHeapMb?: number;
  /**
   * Delay before restarting a worker that crashed again: `initialMs` (default 200) doubling per crash
   * in a row, at most `maxMs` (default 30,000). A crash counts as "in a row" unless the worker answered
   * a task or ran for `resetAfterMs` (default 60,000) since the previous one.
   */
  restartBackoff?: { initialMs?: number; maxMs?: number; resetAfterMs?: number };
  onEvent?: (e: PoolEvent) => void;
}

interface Task {
  /** The id of the task's message (a task taken back from a worker is sent again under a new id). */
  id: number;
  message: WorkerRequest;
  deadlineAt: number;
  timer: NodeJS.Timeout;
  resolve: (r: TaskResult<unknown>) => void;
  slot?: Slot;
}

interface Slot {
  /** Absent while a restart waits out its backoff. */
  worker?: Worker;
  board: Float64Array;
  ready: boolean;
  /** Tasks given to the worker, in order: the first is running (or about to). */
  tasks: Task[];
  /** When the first task became the worker's current one (performance.now()). */
  headSince: number;
  /** Ids of tasks taken back from the worker, and of the task it runs: see {@link WorkerData.skip}. */
  skip: BigInt64Array;
  /** Crashes in a row of this slot's workers. */
  crashes: number;
  /** When the current worker started (ms since the epoch). */
  since: number;
  /** Set once the current worker has answered a task. */
  answered: boolean;
  restartTimer?: NodeJS.Timeout;
}

const WORKER_URL = new URL("./worker.js", import.meta.url);

/** Tasks a worker holds at most: the one running and the ones it runs next without waiting for the main thread. */
export const PIPELINE_DEPTH = 4;
/** A task running this long (ms) gets no tasks queued behind it, and those already queued are given to other workers. */
export const STALLED_MS = 20;
/** Entries of a worker's board of tasks taken back. */
export const SKIP_SLOTS = 64;
/** What a worker receives at start. */
export interface WorkerData {
  /** Where the worker's Lua VM publishes each call's deadline (Float64Array(1)). */
  board: SharedArrayBuffer;
  /**
   * BigInt64Array(SKIP_SLOTS + 1): a task taken back from the worker has its id at index id % SKIP_SLOTS,
   * and the worker skips a request whose id it finds there (an id overwritten before the worker reached
   * it only costs an answer that is dropped); at index SKIP_SLOTS the worker publishes the id of the task
   * it runs, so that a worker stopped in a task the pool took back fails no other.
   */
  skip: SharedArrayBuffer;
  source: FrameworkSource;
  generation: number;
}

/** The pool. Create with `new EvaluationPool(options)`; `close()` terminates the workers. */
export class EvaluationPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private source: FrameworkSource;
  private generation = 1;
  private nextId = 1;
  private closed = false;
  private readonly watchdog: NodeJS.Timeout;
  private readonly grace: number;
  private readonly heapMb: number;
  private readonly backoff: RestartBackoff;
  private readonly onEvent: (e: PoolEvent) => void;

  constructor(options: PoolOptions) {
    this.source = options.source;
    this.grace = options.luaGraceMs ?? 100;
    this.heapMb = options.maxHeapMb ?? 512;
    this.backoff = { ...DEFAULT_RESTART_BACKOFF, ...options.restartBackoff };
    this.onEvent = options.onEvent ?? (() => undefined);
    for (let i = 0; i < Math.max(1, options.size); i++) this.slots.push(this.spawn(0));
    this.watchdog = setInterval(() => this.watch(), 10);
    this.watchdog.unref();
  }

  /** Workers ready to answer. */
  get readyWorkers(): number {
    return this.slots.filter((s) => s.ready).length;
  }

  /** Number of workers. */
  get size(): number {
    return this.slots.length;
  }

  /** Workers waiting out a restart backoff. */
  get backingOff(): number {
    return this.slots.filter((s) => s.restartTimer !== undefined).length;
  }

  /** Tasks waiting for a worker. */
  get queued(): number {
    return this.queue.length;
  }

  /** Resolves once every worker has built the current source (or `timeoutMs` passed). */
  async whenReady(timeoutMs = 30_000): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (this.readyWorkers < this.slots.length) {
      if (Date.now() > until || this.closed) return false;
      await new Promise((r) => setTimeout(r, 10));
    }
    return true;
  }

  /** Builds a new source in every worker; each swaps it in between two tasks. */
  setSource(source: FrameworkSource): void {
    this.source = source;
    this.generation++;
    for (const s of this.slots) s.worker?.postMessage({ type: "source", source, generation: this.generation } satisfies WorkerRequest);
  }

  /** Answers a ResourceInterpreterContext body. */
  answerContext(body: string, deadlineAt: number): Promise<TaskResult<ContextAnswer>> {
    return this.submit({ type: "context", id: this.nextId++, body }, deadlineAt) as Promise<TaskResult<ContextAnswer>>;
  }

  /** Runs one operation (the CLI's path). */
  runOperation(input: OperationInput, deadlineAt: number): Promise<TaskResult<LayerOutcome<unknown>>> {
    return this.submit({ type: "operation", id: this.nextId++, input }, deadlineAt) as Promise<TaskResult<LayerOutcome<unknown>>>;
  }

  /** Runs one customization rule on a sample: its error message, or null. */
  runRule(input: RuleInput, deadlineAt: number): Promise<TaskResult<string | null>> {
    return this.submit({ type: "rule", id: this.nextId++, ...input }, deadlineAt) as Promise<TaskResult<string | null>>;
  }

  /** Terminates every worker; waiting tasks fail with "closed". */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.watchdog);
    for (const t of this.queue.splice(0)) this.settle(t, { ok: false, reason: "closed", message: "the server is shutting down" });
    await Promise.all(
      this.slots.map((s) => {
        clearTimeout(s.restartTimer);
        s.restartTimer = undefined;
        for (const t of s.tasks.splice(0)) this.settle(t, { ok: false, reason: "closed", message: "the server is shutting down" });
        return s.worker?.terminate();
      }),
    );
  }

  private submit(message: WorkerRequest & { id: number }, deadlineAt: number): Promise<TaskResult<unknown>> {
    if (this.closed) return Promise.resolve({ ok: false, reason: "closed", message: "the server is shutting down" });
    return new Promise((resolve) => {
      const task: Task = {
        id: message.id,
        message,
        deadlineAt,
        resolve,
        timer: setTimeout(() => this.expire(task), Math.max(0, deadlineAt - Date.now())),
      };
      this.queue.push(task);
      this.dispatch();
    });
  }

  /** A slot with a new worker (`crashes`: the crashes in a row before it). */
  private spawn(crashes: number): Slot {
    const board = new Float64Array(new SharedArrayBuffer(8));
    const skip = new BigInt64Array(new SharedArrayBuffer(8 * (SKIP_SLOTS + 1)));
    const slot: Slot = { board, skip, tasks: [], headSince: 0, ready: false, crashes, since: Date.now(), answered: false };
    let worker: Worker;
    try {
      worker = new Worker(WORKER_URL, {
        workerData: { board: board.buffer, skip: skip.buffer, source: this.source, generation: this.generation } satisfies WorkerData,
        resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
        stdout: false,
        stderr: false,
      });
    } catch (e) {
      // No thread could be started (out of memory or threads): a crash like any other, retried later.
      setImmediate(() => this.replace(slot, "crashed", `evaluation worker could not start: ${(e as Error).message}`));
      return slot;
    }
    slot.worker = worker;
    worker.on("message", (m: WorkerReply) => this.onMessage(slot, m));
    worker.on("error", (e: Error) => this.replace(slot, "crashed", `evaluation worker failed: ${e.message}`));
    worker.on("exit", () => {
      if (!this.closed && this.slots.includes(slot)) this.replace(slot, "crashed", "evaluation worker exited");
    });
    worker.unref();
    return slot;
  }

  private onMessage(slot: Slot, m: WorkerReply): void {
    if (!this.slots.includes(slot)) return;
    switch (m.type) {
      case "ready":
        if (m.generation === this.generation) slot.ready = true;
        this.onEvent({ type: "ready", generation: m.generation });
        break;
      case "failed":
        // The source was checked before it was sent: keep answering with the previous framework.
        if (m.generation === this.generation) slot.ready = true;
        this.onEvent({ type: "failed", generation: m.generation, message: m.message });
        break;
      case "done":
      case "crashed": {
        // An answer to a task taken back from this worker (it had started it) was superseded: dropped.
        const task = slot.tasks[0];
        if (!task || task.id !== m.id) return;
        slot.tasks.shift();
        slot.headSince = performance.now();
        slot.answered = true;
        this.settle(task, m.type === "done" ? { ok: true, value: m.value } : { ok: false, reason: "crashed", message: m.message });
        break;
      }
    }
    this.dispatch();
  }

  private settle(task: Task, r: TaskResult<unknown>): void {
    clearTimeout(task.timer);
    task.resolve(r);
  }

  /** Gives waiting tasks to the ready workers holding the fewest, never behind a stalled one. */
  private dispatch(): void {
    const now = performance.now();
    while (this.queue.length > 0) {
      let slot: (Slot & { worker: Worker }) | undefined;
      for (const s of this.slots) {
        if (!s.ready || s.worker === undefined || s.tasks.length >= PIPELINE_DEPTH) continue;
        if (s.tasks.length > 0 && now - s.headSince >= STALLED_MS) continue;
        if (!slot || s.tasks.length < slot.tasks.length) slot = s as Slot & { worker: Worker };
      }
      if (!slot) return;
      const task = this.queue.shift()!;
      if (slot.tasks.push(task) === 1) slot.headSince = now;
      task.slot = slot;
      slot.worker.postMessage(task.message);
    }
  }

  /** Takes back a slot's tasks from `from` on (by default those queued behind its current one), to be given to other workers first. */
  private takeBack(slot: Slot, from = 1): void {
    const behind = slot.tasks.splice(from);
    if (behind.length === 0) return;
    for (const t of behind) {
      Atomics.store(slot.skip, t.id % SKIP_SLOTS, BigInt(t.id));
      t.slot = undefined;
      t.id = this.nextId++;
      t.message = { ...t.message, id: t.id } as WorkerRequest;
    }
    this.queue.unshift(...behind);
  }

  private expire(task: Task): void {
    const waited = "request deadline exceeded while waiting for an evaluation worker";
    const i = this.queue.indexOf(task);
    if (i >= 0) {
      this.queue.splice(i, 1);
      task.resolve({ ok: false, reason: "deadline", message: waited });
      return;
    }
    const slot = task.slot;
    if (!slot) return;
    if (this.running(slot) === task) {
      this.replace(slot, "deadline", "request deadline exceeded: the evaluation was stopped");
      return;
    }
    const at = slot.tasks.indexOf(task);
    if (at < 0) return;
    // Not started on its worker: skipped there (with those behind it), failed here.
    this.takeBack(slot, at);
    this.queue.splice(this.queue.indexOf(task), 1);
    task.resolve({ ok: false, reason: "deadline", message: waited });
    this.dispatch();
  }

  private watch(): void {
    const now = Date.now();
    const tick = performance.now();
    let moved = false;
    for (const slot of this.slots) {
      const deadline = slot.board[0]!;
      if (slot.tasks.length > 0 && deadline > 0 && now > deadline + this.grace) {
        this.replace(slot, "lua-deadline", "context deadline exceeded: the Lua script was stopped at its deadline inside a library function");
      } else if (slot.tasks.length > 1 && tick - slot.headSince >= STALLED_MS) {
        this.takeBack(slot);
        moved = true;
      }
    }
    if (moved) this.dispatch();
  }

  /** The slot's task its worker is running (or ran last), if the pool still holds it. */
  private running(slot: Slot): Task | undefined {
    const id = Atomics.load(slot.skip, SKIP_SLOTS);
    return slot.tasks.find((t) => BigInt(t.id) === id);
  }

  /**
   * Terminates a slot's worker, fails its task with `reason`, and starts a fresh worker in its place:
   * at once, or after a backoff when it is a crash following another (see PoolOptions.restartBackoff).
   */
  private replace(slot: Slot, reason: TaskFailure, message: string): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    // The task it runs fails with the reason; the others were not run: they go to other workers. (It
    // may run none of them: one taken back that it had already started, its answer no longer awaited.)
    const task = this.running(slot);
    if (task) slot.tasks.splice(slot.tasks.indexOf(task), 1);
    this.takeBack(slot, 0);
    if (task) this.settle(task, { ok: false, reason, message });
    void slot.worker?.terminate();
    if (this.closed) return;
    // Stopping a runaway script is not the worker's fault: only crashes count, and a worker that
    // answered or lived long enough starts a new count.
    const stable = slot.answered || Date.now() - slot.since >= this.backoff.resetAfterMs;
    const { crashes, delayMs } = reason === "crashed" ? nextRestart(this.backoff, slot.crashes, stable) : { crashes: 0, delayMs: 0 };
    this.onEvent({ type: "restart", reason, message, delayMs, crashes });
    if (delayMs === 0) {
      this.slots[i] = this.spawn(crashes);
      this.dispatch();
      return;
    }
    const waiting: Slot = { board: slot.board, skip: slot.skip, tasks: [], headSince: 0, ready: false, crashes, since: Date.now(), answered: false };
    this.slots[i] = waiting;
    waiting.restartTimer = setTimeout(() => {
      if (this.closed || this.slots[i] !== waiting) return;
      this.slots[i] = this.spawn(crashes);
      this.dispatch();
    }, delayMs);
    waiting.restartTimer.unref();
    this.dispatch();
  }
}
