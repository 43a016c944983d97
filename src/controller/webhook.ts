/**
 * The controller's admission webhook server: HTTPS on --webhook-port, AdmissionReviews posted to
 * {@link POD_WEBHOOK_PATH} (pods, src/controller/admission.ts) and to the Karta webhooks' paths
 * (src/controller/karta-admission.ts), answered from the informer caches. Bodies are bounded, every
 * request has a deadline (the API server's `?timeout=`, at most 10 s), the certificate is reloaded when
 * its files change (src/server/tls.ts), and close() lets requests in flight finish.
 */
import https from "node:https";
import type http from "node:http";
import { readKeyPair, reloadCertificates } from "../server/tls.js";
import { listen } from "../server/listen.js";
import { parseDuration } from "../server/duration.js";
import { BAD_TARGET, requestTarget } from "../server/request-target.js";
import { refuseOversizedBody } from "../server/body.js";
import { answerClientErrors } from "../server/client-error.js";
import { admissionResponse, admitPod, parseAdmissionReview, type AdmissionRequest, type PodRootSource } from "./admission.js";
import { reviewAnswer } from "./admission-review.js";
import { KARTA_MUTATE_PATH, KARTA_VALIDATE_PATH, mutateKarta, validateKarta, type KartaAdmission } from "./karta-admission.js";
import type { KartaLike } from "../definition/index.js";
import type { Logger } from "./log.js";
import type { ControllerMetrics } from "./metrics.js";

/** Where the API server posts pod admissions (as kubebuilder names a mutating pod webhook's path). */
export const POD_WEBHOOK_PATH = "/mutate-v1-pod";
/** The API server limits requests to 3 MiB; an AdmissionReview holds one pod. */
export const MAX_ADMISSION_BYTES = 3 * 1024 * 1024;
const MAX_DEADLINE_MS = 10_000;

export interface WebhookOptions {
  host: string;
  port: number;
  certFile: string;
  keyFile: string;
  source: PodRootSource;
  /** The cluster's Kartas (the controller's cache): with it, the Karta webhooks are served too. */
  kartas?: () => readonly KartaLike[];
  metrics: ControllerMetrics;
  log: Logger;
  /** Longest wait for an owner not yet in the cache (default 2 s; always within the request's deadline). */
  cacheWaitMs?: number;
}

export interface WebhookServer {
  port: number;
  /**
   * Shutting down soon (--shutdown-delay-duration): answers close their connections, so the API server's
   * next call connects anew, through the Service to a replica that stays; requests are still answered.
   */
  unready(): void;
  /** Stops accepting, lets requests in flight finish (at most `graceMs`), then closes every connection. */
  close(graceMs?: number): Promise<void>;
}

/** Starts the server; rejects when the certificate cannot be read or the port cannot be bound. */
export async function startWebhook(o: WebhookOptions): Promise<WebhookServer> {
  const pair = readKeyPair(o.certFile, o.keyFile);
  if (!pair.ok) throw new Error(pair.error);
  const inFlight = new Set<http.ServerResponse>();
  let closeConnections = false;
  const server = https.createServer({ cert: pair.pair.cert, key: pair.pair.key, requestTimeout: MAX_DEADLINE_MS + 5000, headersTimeout: 10_000, connectionsCheckingInterval: 1000 }, (req, res) => handle(req, res));
  server.keepAliveTimeout = 30_000;
  // Requests refused by Node's parser are counted under the webhook "unknown": their path was not read.
  answerClientErrors(server, (status) => o.metrics.webhookRequests.inc({ webhook: "unknown", code: String(status) }));
  const certWatcher = reloadCertificates(server, o.certFile, o.keyFile, pair.pair, (r) => {
    if (r.ok) o.log("info", "webhook serving certificate reloaded");
    else o.log("error", "webhook serving certificate not reloaded, keeping the current one", { err: r.error });
  });
  const paths = [POD_WEBHOOK_PATH, ...(o.kartas ? [KARTA_MUTATE_PATH, KARTA_VALIDATE_PATH] : [])];

  function send(res: http.ServerResponse, webhook: string, started: number, code: number, body: string, type = "application/json"): void {
    o.metrics.webhookRequests.inc({ webhook, code: String(code) });
    o.metrics.webhookLatency.observe({ webhook }, (performance.now() - started) / 1000);
    if (res.headersSent || res.destroyed) return;
    res.writeHead(code, { "Content-Type": type, "Content-Length": Buffer.byteLength(body), ...(closeConnections ? { Connection: "close" } : {}) }).end(body);
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const started = performance.now();
    const url = requestTarget(req.url);
    // Known paths only as metric labels: the label's values stay few.
    const webhook = url !== undefined && paths.includes(url.pathname) ? url.pathname : "unknown";
    inFlight.add(res);
    o.metrics.webhookInFlight.inc({ webhook });
    res.on("close", () => {
      inFlight.delete(res);
      o.metrics.webhookInFlight.dec({ webhook });
    });
    const text = (code: number, msg: string): void => send(res, webhook, started, code, `${msg}\n`, "text/plain");
    if (url === undefined) return (req.resume(), text(400, BAD_TARGET));
    if (webhook === "unknown") return (req.resume(), text(404, `no webhook at ${url.pathname}; the webhooks are served at ${paths.join(", ")}`));
    if (req.method !== "POST") return (req.resume(), res.setHeader("Allow", "POST"), text(405, `method ${req.method} not allowed; use POST`));
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/json") return (req.resume(), text(415, `content type ${JSON.stringify(req.headers["content-type"] ?? "")}: expected application/json`));
    const asked = url.searchParams.get("timeout");
    const deadline = Date.now() + Math.min(MAX_DEADLINE_MS, (asked ? parseDuration(asked) : undefined) ?? MAX_DEADLINE_MS);
    const tooLarge = `request body larger than ${MAX_ADMISSION_BYTES} bytes`;
    const declared = Number(req.headers["content-length"] ?? NaN);
    if (declared > MAX_ADMISSION_BYTES) return refuseOversizedBody(req, res, { read: 0, declared, limit: MAX_ADMISSION_BYTES }, () => text(413, tooLarge));
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    // A client sending its body too slowly is cut off at the deadline.
    const timer = setTimeout(() => {
      refused = true;
      text(408, "request body not received before the deadline");
      req.destroy();
    }, Math.max(0, deadline - Date.now()));
    timer.unref();
    req.on("data", (c: Buffer) => {
      if (refused) return;
      size += c.length;
      if (size > MAX_ADMISSION_BYTES) {
        refused = true;
        clearTimeout(timer);
        chunks.length = 0;
        refuseOversizedBody(req, res, { read: size, declared: NaN, limit: MAX_ADMISSION_BYTES }, () => text(413, tooLarge));
        return;
      }
      chunks.push(c);
    });
    req.on("error", () => clearTimeout(timer));
    req.on("end", () => {
      clearTimeout(timer);
      if (refused) return;
      const parsed = parseAdmissionReview(Buffer.concat(chunks).toString("utf8"));
      if (!parsed.ok) return text(400, parsed.error);
      if (webhook === POD_WEBHOOK_PATH) admitPodRequest(parsed.request, res, started, deadline);
      else answerKarta(webhook, parsed.request, res, started);
    });
  }

  /** A Karta admission: answered at once from the cache. */
  function answerKarta(webhook: string, request: AdmissionRequest, res: http.ServerResponse, started: number): void {
    let done: KartaAdmission;
    try {
      done = webhook === KARTA_MUTATE_PATH ? mutateKarta(request) : validateKarta(request, o.kartas!);
    } catch (err) {
      // A bug of ours: answered as failurePolicy would answer for a webhook that fails (the API server
      // applies the configuration's policy to a 500).
      o.log("error", "karta admission failed", { uid: request.uid, webhook, err: String((err as Error)?.message ?? err) });
      return send(res, webhook, started, 500, "internal error\n", "text/plain");
    }
    if (done.outcome !== "not-a-karta") {
      const name = (request.object as { metadata?: { name?: string } } | undefined)?.metadata?.name;
      o.log(done.outcome === "denied" ? "info" : "debug", "karta admitted", {
        uid: request.uid,
        karta: name ?? "",
        operation: request.operation ?? "",
        outcome: done.outcome,
        ...(done.answer.status ? { why: done.answer.status.message } : {}),
      });
    }
    send(res, webhook, started, 200, reviewAnswer(request.uid, done.answer));
  }

  function admitPodRequest(request: AdmissionRequest, res: http.ServerResponse, started: number, deadline: number): void {
    const webhook = POD_WEBHOOK_PATH;
    // Answer before the API server gives up: its timeout minus a margin for the reply.
    const waitUntil = Math.min(deadline - 250, Date.now() + (o.cacheWaitMs ?? 2000));
    admitPod(request, o.source, waitUntil).then(
      (r) => {
        o.metrics.admissions.inc({ outcome: r.outcome });
        if (r.outcome !== "not-a-pod-create") {
          const meta = (request.object as { metadata?: { name?: string; generateName?: string } } | undefined)?.metadata;
          o.log(r.outcome === "patched" ? "debug" : "info", "pod admitted", {
            uid: request.uid,
            namespace: request.namespace,
            pod: meta?.name || `${meta?.generateName ?? ""}*`,
            outcome: r.outcome,
            ...(r.podGroupName ? { podGroup: r.podGroupName } : {}),
            ...(r.why ? { why: r.why } : {}),
          });
        }
        send(res, webhook, started, 200, admissionResponse(request.uid, r.patch));
      },
      (err: unknown) => {
        // A bug of ours: the pod is admitted unchanged, as failurePolicy Ignore would.
        o.log("error", "admission failed; pod allowed unchanged", { uid: request.uid, err: String((err as Error)?.message ?? err) });
        send(res, webhook, started, 200, admissionResponse(request.uid));
      },
    );
  }

  const port = await listen(server, o.port, o.host).catch((err: unknown) => {
    certWatcher.close();
    throw err;
  });
  return {
    port,
    unready: () => {
      closeConnections = true;
    },
    close: async (graceMs = 5000) => {
      certWatcher.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const until = Date.now() + graceMs;
      while (inFlight.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      server.closeAllConnections();
      await closed;
    },
  };
}
