/**
 * The library entry of `karta serve`: Karmada's resource interpreter webhook, started in the caller's
 * process with the command's defaults for everything but the serving certificate.
 */
import { availableParallelism } from "node:os";
import type { Logger } from "./log.js";

export { ServeError } from "./errors.js";

/** The defaults of `karta serve`'s flags and of {@link startInterpreterServer}'s options (one place for both). */
export const SERVE_DEFAULTS = {
  securePort: 8443,
  bindAddress: "0.0.0.0",
  path: "/interpret",
  metricsBindAddress: ":8080",
  maxRequestBytes: 3 * 1024 * 1024,
  requestTimeoutMs: 10_000,
  shutdownGracePeriodMs: 20_000,
} as const;

/** Options of {@link startInterpreterServer}; each optional one defaults as the `karta serve` flag of that name does. */
export interface InterpreterServerOptions {
  /** Serving certificate (PEM, with its chain); reloaded when the file changes. */
  tlsCertFile: string;
  /** Its private key (PEM). */
  tlsPrivateKeyFile: string;
  /** HTTPS port (default 8443; 0 picks a free one, see {@link InterpreterServer.port}). */
  securePort?: number;
  /** Address to listen on (default "0.0.0.0"). */
  bindAddress?: string;
  /** Karta definition files or directories (default: the bundled Kartas only); watched and reloaded. */
  definitions?: string[];
  /** ResourceInterpreterCustomization files or directories (default: none); watched and reloaded. */
  customizations?: string[];
  /** Karmada's MultiplePodTemplatesScheduling feature gate: answer InterpretComponent (default false). */
  multiplePodTemplatesScheduling?: boolean;
  /** Where ResourceInterpreterContexts are posted (default "/interpret"). */
  path?: string;
  /** host:port of /healthz, /readyz and /metrics, plain HTTP (default ":8080"; port 0 picks one). */
  metricsBindAddress?: string;
  /** Larger bodies get 413 (default 3 MiB). */
  maxRequestBytes?: number;
  /** Deadline of each request, ms (default 10,000; Karmada's ?timeout= may shorten it). */
  requestTimeoutMs?: number;
  /** Evaluation worker threads for Lua customizations (default: the number of CPUs). */
  workers?: number;
  /** Time `close()` gives requests in flight, ms (default 20,000). */
  shutdownGracePeriodMs?: number;
  /** A pino logger (default: JSON lines on stdout at info). */
  logger?: Logger;
}

/** A running interpreter webhook. */
export interface InterpreterServer {
  /** The HTTPS port (the bound one when `securePort` was 0). */
  readonly port: number;
  /** The port of /healthz, /readyz and /metrics. */
  readonly metricsPort: number;
  /** Re-reads the definitions and customizations now (also done when they change); false when they have errors. */
  reload(): Promise<boolean>;
  /** Stops accepting, finishes requests in flight within the grace period, then releases everything. */
  close(): Promise<void>;
}

/**
 * Starts Karmada's resource interpreter webhook: an HTTPS server answering ResourceInterpreterContext
 * requests for every kind Karta interprets, and a plain HTTP server for probes and metrics. Rejects
 * with {@link ServeError} (its `details` list each problem at file:line:col) when the configuration or
 * the certificate cannot be served.
 *
 * ```ts
 * const server = await startInterpreterServer({ tlsCertFile: "tls.crt", tlsPrivateKeyFile: "tls.key", customizations: ["ric/"] });
 * process.once("SIGTERM", () => void server.close());
 * ```
 */
export async function startInterpreterServer(options: InterpreterServerOptions): Promise<InterpreterServer> {
  // Loaded on use: importing the library does not load the server (pino, prom-client, TLS).
  const { startServer } = await import("./server.js");
  const running = await startServer({
    ...SERVE_DEFAULTS,
    definitions: [],
    customizations: [],
    multiplePodTemplatesScheduling: false,
    workers: availableParallelism(),
    ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    tlsCertFile: options.tlsCertFile,
    tlsPrivateKeyFile: options.tlsPrivateKeyFile,
  });
  return { port: running.port, metricsPort: running.metricsPort, reload: () => running.reload(), close: () => running.close() };
}
