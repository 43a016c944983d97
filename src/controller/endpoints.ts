/**
 * The controller's plain-HTTP endpoints, bound as controller-runtime binds them: /metrics on
 * --metrics-bind-address and /healthz, /readyz on --health-probe-bind-address ("0" turns one off; the
 * two may share an address; no host or an unspecified one is every address of both families, as Go's). GET and HEAD only, no request bodies, a deadline per request.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import { BAD_TARGET, requestTarget } from "../server/request-target.js";
import { listen } from "../server/listen.js";

/** `:8080`, `127.0.0.1:8080`, `[::1]:0` as host and port; "0" is off (null); undefined when malformed. */
export function parseBindAddress(address: string): { host: string; port: number } | null | undefined {
  if (address === "0") return null;
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):(\d{1,5})$/.exec(address);
  if (!m || Number(m[3]) > 65535) return undefined;
  return { host: m[1] ?? m[2] ?? "", port: Number(m[3]) };
}

export interface Probes {
  /** The process is alive (false makes the kubelet restart it). */
  healthy(): boolean;
  /** The replica can do its work: standing by for the Lease, or leading with its caches synced; not while shutting down. */
  ready(): boolean;
}

type Handler = (path: string) => Promise<{ status: number; type: string; body: string | Iterable<string> }> | undefined;

/** Bytes of text handed to the socket at once when a body comes in pieces (see {@link writePieces}). */
export const CHUNK = 32 * 1024;

/**
 * Writes a body given as pieces in chunks of about {@link CHUNK}, reading the pieces as it goes and
 * waiting for the socket to drain: a scrape of tens of thousands of series is tens of MB, which neither
 * becomes one string nor waits whole in the socket's buffer (each chunk is garbage of the young
 * generation once written).
 */
async function writePieces(res: ServerResponse, pieces: Iterable<string>): Promise<void> {
  let chunk = "";
  for (const p of pieces) {
    chunk += p;
    if (chunk.length < CHUNK) continue;
    const more = res.write(chunk);
    chunk = "";
    if (!more && !res.destroyed) await new Promise<void>((resolve) => {
      res.once("drain", resolve);
      res.once("close", resolve);
    });
    if (res.destroyed) return;
  }
  res.end(chunk);
}

/** Serves the given handlers on one address; resolves with the server and its bound port. */
async function serve(bind: { host: string; port: number }, handlers: Handler[]): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    req.resume();
    res.setTimeout(10_000, () => res.destroy());
    const url = requestTarget(req.url);
    if (url === undefined) {
      res.writeHead(400, { "Content-Type": "text/plain" }).end(`${BAD_TARGET}\n`);
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain" }).end("method not allowed\n");
      return;
    }
    const answer = handlers.map((h) => h(url.pathname)).find((a) => a !== undefined);
    if (!answer) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found\n");
      return;
    }
    answer.then(
      (a) => {
        res.writeHead(a.status, { "Content-Type": a.type });
        if (req.method === "HEAD") res.end();
        else if (typeof a.body === "string") res.end(a.body);
        // A generator that fails halfway has sent a 200 already: the connection is cut, so the scrape fails.
        else writePieces(res, a.body).catch(() => res.destroy());
      },
      (err: unknown) => res.writeHead(500, { "Content-Type": "text/plain" }).end(`${String((err as Error)?.message ?? err)}\n`),
    );
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  return { server, port: await listen(server, bind.port, bind.host) };
}

export interface Endpoints {
  metricsPort?: number;
  healthPort?: number;
  close(): Promise<void>;
}

/** Starts the metrics and probe servers (one server when both addresses are the same). */
export async function startEndpoints(
  metricsBind: { host: string; port: number } | null,
  healthBind: { host: string; port: number } | null,
  registry: { metrics(): Promise<string | Iterable<string>>; contentType: string },
  probes: Probes,
): Promise<Endpoints> {
  const text = (ok: boolean, what: string) => Promise.resolve({ status: ok ? 200 : 503, type: "text/plain", body: ok ? "ok\n" : `${what} failed\n` });
  const metrics: Handler = (p) => (p === "/metrics" ? registry.metrics().then((body) => ({ status: 200, type: registry.contentType, body })) : undefined);
  const health: Handler = (p) => (p === "/healthz" || p === "/livez" ? text(probes.healthy(), "healthz") : p === "/readyz" ? text(probes.ready(), "readyz") : undefined);
  const servers: Server[] = [];
  const out: Endpoints = {
    close: async () => {
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      })));
    },
  };
  try {
    const same = metricsBind && healthBind && metricsBind.host === healthBind.host && metricsBind.port === healthBind.port && metricsBind.port !== 0;
    if (same) {
      const s = await serve(metricsBind, [metrics, health]);
      servers.push(s.server);
      out.metricsPort = out.healthPort = s.port;
      return out;
    }
    if (metricsBind) {
      const s = await serve(metricsBind, [metrics]);
      servers.push(s.server);
      out.metricsPort = s.port;
    }
    if (healthBind) {
      const s = await serve(healthBind, [health]);
      servers.push(s.server);
      out.healthPort = s.port;
    }
    return out;
  } catch (err) {
    await out.close();
    throw err;
  }
}
