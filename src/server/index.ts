/**
 * The library entry of `karta serve`, Karmada's resource interpreter webhook: the server started in the
 * caller's process with the command's defaults for everything but the serving certificate
 * ({@link startInterpreterServer}), and the webhook's wire format for callers that serve it their own
 * way (decode a ResourceInterpreterContext, answer it with a framework, encode the response). The
 * server's own modules (pino, prom-client, TLS, worker threads) load only when a server starts.
 */
import { availableParallelism } from "node:os";
import type { InterpreterFramework } from "../interpreter/framework.js";
import { contextResponse, decodeContext } from "./context.js";
import { answer, badRequest } from "./evaluate.js";
import type { Logger } from "./log.js";

export { ServeError } from "./errors.js";
export { CONTEXT_API_VERSION, CONTEXT_KIND, contextResponse, decodeContext, failureResponse } from "./context.js";
export type { DecodedContext, InterpreterRequest, InterpreterResponse, OperationInput } from "./context.js";
export type { AnswerMeta } from "./evaluate.js";
export type { Logger } from "./log.js";

/** The levels of {@link InterpreterServerOptions.logLevel} (`karta serve --log-level`). */
export type LogLevel = "trace" | "debug" | "info" | "warn" | "error" | "fatal" | "silent";

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
  /** Address to listen on (default "0.0.0.0": every address of both IP families, as a Go server listens; "::" the same). */
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
  /** Level of the JSON lines logged on standard error (default "info"; ignored when `logger` is given). */
  logLevel?: LogLevel;
  /** A pino logger of the caller's (default: JSON lines on standard error at `logLevel`). */
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
  const [{ startServer }, { createLogger }] = await Promise.all([import("./server.js"), import("./log.js")]);
  const { logLevel = "info", ...rest } = options;
  const running = await startServer({
    ...SERVE_DEFAULTS,
    definitions: [],
    customizations: [],
    multiplePodTemplatesScheduling: false,
    workers: availableParallelism(),
    ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
    tlsCertFile: options.tlsCertFile,
    tlsPrivateKeyFile: options.tlsPrivateKeyFile,
    logger: options.logger ?? createLogger(logLevel),
  });
  return { port: running.port, metricsPort: running.metricsPort, reload: () => running.reload(), close: () => running.close() };
}

/**
 * Answers one ResourceInterpreterContext body (JSON text) with a framework, as `karta serve` does on its
 * own event loop: the response body and its HTTP status, 200 (a body that is not a ResourceInterpreterContext
 * too: `successful: false`, status code 400, as Karmada's webhook server answers). Runs in the caller's thread: a Lua customization in the
 * framework runs here with its own time and memory limits, but a script stuck inside a library function
 * is only stopped by a worker thread, which `startInterpreterServer` provides.
 *
 * ```ts
 * const { framework } = await assembleLayers({ thirdparty: true });
 * const { status, body } = await answerInterpreterContext(framework, requestBody);
 * ```
 */
export async function answerInterpreterContext(framework: InterpreterFramework, body: string): Promise<{ status: number; body: string; meta: import("./evaluate.js").AnswerMeta }> {
  const decoded = decodeContext(body);
  const { response, meta } = decoded.ok ? await answer(framework, decoded.request) : badRequest(decoded.uid, decoded.message);
  return { status: meta.http, body: contextResponse(response), meta };
}
