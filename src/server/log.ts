/**
 * Structured JSON logs (pino): one line per request at info with its uid, kind, operation, layer,
 * outcome and duration; object contents are never logged at info (they may hold secrets).
 */
import { pino, type Logger, type DestinationStream } from "pino";

export type { Logger };

/**
 * A logger writing JSON lines to `destination` (default: stdout, buffered in 4 KB writes: a
 * synchronous write per request costs the server's main thread about a tenth of its time under load;
 * `flushLogs` writes out the rest at exit).
 */
export function createLogger(level = "info", destination?: DestinationStream): Logger {
  const options = { level, base: { component: "karta-serve" }, timestamp: pino.stdTimeFunctions.isoTime };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false, minLength: 4096 }));
}

/** Writes out buffered log lines (before the process exits). */
export function flushLogs(log: Logger): Promise<void> {
  return new Promise((resolve) => log.flush(() => resolve()));
}
