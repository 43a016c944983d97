/**
 * Structured JSON logs (pino): one line per request at info with its uid, kind, operation, layer,
 * outcome and duration; object contents are never logged at info (they may hold secrets).
 */
import { pino, type Logger, type DestinationStream } from "pino";

export type { Logger };

/** A logger writing JSON lines to `destination` (default stdout) at `level`. */
export function createLogger(level = "info", destination?: DestinationStream): Logger {
  const options = { level, base: { component: "karta-serve" }, timestamp: pino.stdTimeFunctions.isoTime };
  return destination ? pino(options, destination) : pino(options);
}
