/**
 * The controller's logging: the project's pino logger (src/server/log.ts) through the (level, msg, fields)
 * calls the controller's modules make. JSON lines on standard error, with `component: karta-controller`.
 */
import { createLogger, levelLogger, type LogFn } from "../server/log.js";

export { silentLogger, type Level } from "../server/log.js";
export type Logger = LogFn;

/** A logger writing JSON lines to `write` (standard error by default); debug lines only when `verbose`. */
export function jsonLogger(write: (line: string) => void = (l) => void process.stderr.write(l), verbose = false): Logger {
  return levelLogger(createLogger(verbose ? "debug" : "info", { write }, "karta-controller"));
}
