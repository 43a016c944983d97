/**
 * Structured JSON logs (pino): one line per request at info with its uid, kind, operation, layer,
 * outcome and duration; object contents are never logged at info (they may hold secrets).
 */
import { pino, type Logger, type DestinationStream } from "pino";

export type { Logger };

/**
 * A logger writing JSON lines to `destination` (default: stdout, buffered in 16 KiB writes: a
 * synchronous write per request costs the server's main thread about a tenth of its time under load,
 * and each asynchronous write still wakes a thread-pool thread, so ~60 lines share one; the server
 * flushes every second and `flushLogs` writes out the rest at exit).
 */
export function createLogger(level = "info", destination?: DestinationStream): Logger {
  const options = { level, base: { component: "karta-serve" }, timestamp: pino.stdTimeFunctions.isoTime };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false, minLength: 16 * 1024, maxWrite: 64 * 1024 }));
}

/** Writes out buffered log lines (before the process exits). */
export function flushLogs(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
