/**
 * A long-running command's answer to a bug of Karta's: an exception nothing caught, or a promise
 * rejection nothing handled. Node's default prints a stack trace on standard error and exits at once,
 * outside the command's JSON logs and without releasing what it holds (a Lease, connections in flight).
 * Here the error is reported once through the command's own logger, then the command stops as it does
 * on SIGTERM and exits with EXIT_INTERNAL. Node's documentation says a process must not carry on after
 * such an error, so a stop that has not ended within the grace period exits at once.
 */
import { EXIT_INTERNAL } from "./exit-codes.js";

/** The fields of the log line reporting an internal error. */
export interface InternalErrorFields {
  err: string;
  /** "uncaughtException" or "unhandledRejection". */
  origin: string;
  stacktrace?: string;
}

export interface InternalErrorGuard {
  /** Whether an internal error happened (the command then returns EXIT_INTERNAL). */
  readonly failed: boolean;
  /** Removes the process listeners (when the command returns). */
  release(): void;
}

/** How long a stop after an internal error may take, unless the command says (its own grace period). */
const DEFAULT_GRACE_MS = 5_000;

/**
 * Listens for internal errors while a command runs: `report` logs each one, `stop` is called at the
 * first. `exitNow` runs before the process exits on its own `graceMs` later (default 5 s; to write out
 * buffered logs), if it is still running then.
 */
export function guardInternalErrors(o: { report: (fields: InternalErrorFields) => void; stop: () => void; graceMs?: number; exitNow?: () => void }): InternalErrorGuard {
  let failed = false;
  const onError = (origin: string) => (e: unknown): void => {
    const fields: InternalErrorFields = { err: e instanceof Error ? e.message : String(e), origin };
    if (e instanceof Error && e.stack !== undefined) fields.stacktrace = e.stack;
    try {
      o.report(fields);
    } catch {
      // The logger itself failed: the exit code still says what happened.
    }
    if (failed) return;
    failed = true;
    // Unref'd: a stop that ends lets the process exit without waiting for it.
    setTimeout(() => {
      o.exitNow?.();
      process.exit(EXIT_INTERNAL);
    }, o.graceMs ?? DEFAULT_GRACE_MS).unref();
    o.stop();
  };
  const uncaught = onError("uncaughtException");
  const unhandled = onError("unhandledRejection");
  process.on("uncaughtException", uncaught);
  process.on("unhandledRejection", unhandled);
  return {
    get failed() {
      return failed;
    },
    release() {
      process.off("uncaughtException", uncaught);
      process.off("unhandledRejection", unhandled);
    },
  };
}
