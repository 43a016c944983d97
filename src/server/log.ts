/**
 * Structured JSON logs (pino), one logger for every long-running command: `karta serve` logs one line
 * per request at info with its uid, kind, operation, layer, outcome and duration (object contents are
 * never logged at info: they may hold secrets); `karta controller` logs through {@link levelLogger}.
 */
import { pino, type Logger, type DestinationStream } from "pino";

export type { Logger };

/**
 * A logger writing JSON lines to `destination` (default: standard error, where Kubernetes components and
 * controller-runtime log, and where `karta controller` logs; buffered in writes of about 64 KiB: a
 * synchronous write per request costs the server's main thread about a tenth of its time under load,
 * and each asynchronous write still wakes a thread-pool thread, so ~300 lines share one; the server
 * flushes every second and `flushLogs` writes out the rest at exit). `component` names the command in
 * every line.
 */
export function createLogger(level = "info", destination?: DestinationStream, component = "karta-serve"): Logger {
  const options = { level, base: { component }, timestamp: pino.stdTimeFunctions.isoTime };
  return pino(options, destination ?? batchedOutput(2));
}

/**
 * Standard error (fd 2), or standard output (fd 1: a serving process's lines to its supervisor), in
 * batches. Lines are joined as strings (a rope: appending one costs a few
 * nanoseconds) and handed to sonic-boom as one Buffer per batch of 64 Ki characters: a Buffer per
 * line (its `contentMode: "buffer"`) costs an encoding call and an allocation per request, about 2 µs,
 * and given strings, sonic-boom appends each line to its batch's string and measures the whole
 * batch's byte length again, which grows a batch one line at a time.
 */
export function batchedOutput(fd: 1 | 2): DestinationStream & { flush(cb?: (err?: Error) => void): void; flushSync(): void } {
  // minLength above 0: sonic-boom then calls a flush callback once the lines are written (at 0, at once).
  const out = pino.destination({ dest: fd, sync: false, minLength: 1, maxWrite: 256 * 1024, contentMode: "buffer" });
  let pending = "";
  const handOver = (): void => {
    if (pending === "") return;
    const batch = Buffer.from(pending);
    pending = "";
    out.write(batch as unknown as string);
  };
  return {
    write: (line: string) => {
      pending += line;
      // In characters: at most 3 bytes each, a batch stays under maxWrite.
      if (pending.length >= BATCH_CHARS) handOver();
    },
    // Without a callback (flushPending), no fsync: see flushPending.
    flush: (cb?: (err?: Error) => void) => {
      handOver();
      if (cb) out.flush(cb);
      else out.flush();
    },
    flushSync: () => {
      handOver();
      out.flushSync();
    },
  };
}

/** The destination a pino logger writes to (pino keeps it under a symbol of its own). */
function destinationOf(log: Logger): { write?(line: string): void; flush?(cb?: () => void): void; flushSync?(): void } | undefined {
  return (log as unknown as Record<symbol, ReturnType<typeof destinationOf>>)[pino.symbols.streamSym];
}

/**
 * Writes text that is already whole JSON lines to the logger's output, in order with its own lines
 * (the serving processes' lines, relayed by their supervisor).
 */
export function rawLogWriter(log: Logger): (lines: string) => void {
  const stream = destinationOf(log) as { write(line: string): void };
  return (lines) => stream.write(lines);
}

/** Characters of a value from a request (its uid, its kind) that a log line keeps. */
const LOGGED_CHARS = 256;

/**
 * A value read from a request as a log line carries it: cut to {@link LOGGED_CHARS} characters (a
 * Kubernetes uid or kind is far shorter), so that a request's contents cannot make each of its lines
 * as large as its body.
 */
export function clipped(text: string): string {
  return text.length <= LOGGED_CHARS ? text : `${text.slice(0, LOGGED_CHARS)}... (${text.length} characters)`;
}

/** Characters of log lines handed to the output at once. */
const BATCH_CHARS = 64 * 1024;

/** The fields of a request's log line, in the order they are written. */
export interface RequestFields {
  uid: string;
  kind: string;
  operation: string;
  layer: string;
  outcome: string;
  status: number;
  durationMs: number;
}

/**
 * The writer of `karta serve`'s line per request at info: exactly the line `log.info(fields, msg)`
 * writes, put together here and handed to the logger's destination, since pino's general path (its
 * serializers, hooks and a date per line) is a measurable share of a request answered in tens of
 * microseconds. Nothing is written when the logger's level is above info.
 */
export function requestLogger(log: Logger, msg: string): (fields: RequestFields) => void {
  const stream = destinationOf(log) as { write(line: string): void };
  const info = log.levels.values.info!;
  const tail = `,"msg":${JSON.stringify(msg)}}\n`;
  let ms = -1;
  let time = "";
  return (f) => {
    // The logger's bindings and level are read per line: a child logger or a level change applies at once.
    if (!log.isLevelEnabled("info")) return;
    const now = Date.now();
    if (now !== ms) {
      ms = now;
      time = new Date(now).toISOString();
    }
    const bindings = (log as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? "";
    stream.write(
      `{"level":${info},"time":"${time}"${bindings},"uid":${JSON.stringify(clipped(f.uid))},"kind":${JSON.stringify(clipped(f.kind))},"operation":${JSON.stringify(f.operation)},"layer":${JSON.stringify(f.layer)},"outcome":${JSON.stringify(f.outcome)},"status":${f.status},"durationMs":${f.durationMs}${tail}`,
    );
  };
}

/**
 * Hands buffered log lines to the operating system now, without waiting for them to reach the disk:
 * pino's `flush()` asks sonic-boom for a callback, and with one sonic-boom also fsyncs the file (a
 * disk flush a second when the log is a file, for lines nobody waits on).
 */
export function flushPending(log: Logger): void {
  const stream = destinationOf(log);
  if (stream?.flush) stream.flush();
  else log.flush();
}

/** Writes out buffered log lines now, synchronously (before a process exits in a hurry). */
export function flushLogsSync(log: Logger): void {
  destinationOf(log)?.flushSync?.();
}

/** Writes out buffered log lines (before the process exits). */
export function flushLogs(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}

/** The levels the controller logs at. */
export type Level = "info" | "error" | "debug";

/** A log call as the controller's modules make it: level, message, then key/value fields. */
export type LogFn = (level: Level, msg: string, fields?: Record<string, unknown>) => void;

/** A {@link LogFn} over a pino logger; Error values in fields are logged as their message. */
export function levelLogger(log: Logger): LogFn {
  return (level, msg, fields = {}) => {
    if (!log.isLevelEnabled(level)) return;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(fields)) out[k] = v instanceof Error ? v.message : v;
    log[level](out, msg);
  };
}

/** A {@link LogFn} that drops everything (tests). */
export const silentLogger: LogFn = () => {};
