/**
 * The controller's HTTP client for the Kubernetes API, on node:https alone: one keep-alive agent per TLS
 * identity (a TCP connect, a TLS handshake and the parsing of keys and CAs per request were most of a busy
 * controller's CPU), JSON in and out as plain objects (no generated models: they drop fields newer than
 * they are, and cost ~70 MiB of memory), watches decoded line by line from the response bytes, and the
 * retries client-go makes:
 * - a 429 (the server's throttling, or "storage is (re)initializing" from a starting API server) or a 5xx
 *   with Retry-After is retried after the time it asks (at most 10 s), logged at debug: it is the server
 *   pacing us, not an error;
 * - a connection refused, reset or timed out (an API server restarting) is retried with backoff;
 * within a budget per request (default 30 s), after which the caller sees the error (the work queue then
 * retries the key with its own backoff).
 * Credentials: a client certificate, a bearer token (a token file is re-read every minute, as the kubelet
 * rotates it), basic auth, an oidc auth-provider's id-token (refreshed when it expires), or an exec
 * plugin's token or certificate, cached until it expires; a 401 refreshes them once. A proxy (the
 * kubeconfig's `proxy-url`, else the environment's) is a CONNECT tunnel per connection, or, for an http
 * server behind a proxy, the proxy forwards each request. Trusted: the kubeconfig's CA, else the system's
 * roots as Go reads them (src/controller/system-roots.ts), for the server and an https proxy alike.
 */
import http from "node:http";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import { readFileSync } from "node:fs";
import zlib from "node:zlib";
import { isValidPathSegmentName } from "../names/index.js";
import { runExecPlugin, type ClusterAccess, type ExecCredential, type ExecTerminal, type Impersonation } from "./kubeconfig.js";
import { oidcIdToken } from "./oidc.js";
import { MAX_FRAME_BYTES, PROTOBUF, statusOf, watchEvent, type ObjectDecoder } from "./protobuf.js";
import { Backoff } from "./queue.js";
import { trustOptions } from "./system-roots.js";
import type { Logger } from "./log.js";

/** A request the API server refused: its HTTP code and the Status it sent. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    /** The Status object, when the server sent one. */
    readonly status?: Record<string, unknown>,
    /** Seconds the server asked to wait (Retry-After). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The credentials could not be had (an exec plugin failed, a token file is unreadable): no request was sent. */
export class CredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CredentialError";
  }
}

/** Transport failures worth retrying: the server is restarting, or the connection died. */
const TRANSIENT_NET = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "ECONNABORTED", "ERR_STREAM_PREMATURE_CLOSE"]);

/** The most a compressed answer may unpack to (a list page of 500 large objects is tens of MiB). */
const MAX_BODY_BYTES = 1 << 30;

/** Whether an error is the server or the network being unavailable for now (retry later), not a refusal. */
export function isTransient(err: unknown): boolean {
  if (err instanceof ApiError) return err.code === 429 || err.code === 503 || err.code === 504 || err.code === 502 || (err.code >= 500 && err.retryAfterSeconds !== undefined);
  const code = (err as { code?: unknown })?.code;
  return (typeof code === "string" && TRANSIENT_NET.has(code)) || /socket hang up|request timed out/.test(String((err as Error)?.message));
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  /** A value sent as JSON, or bytes sent as they are. */
  body?: unknown;
  contentType?: string;
  accept?: string;
  /** How long one attempt's connection may stay silent (default 60 s; 0: no limit). */
  timeoutMs?: number;
  /**
   * A deadline on each attempt, counted from when it has its credentials and a connection (an exec
   * plugin's login and the wait for one of the agent's sockets are not the server's time): the request
   * then fails with code ETIMEDOUT, not retried.
   */
  deadlineMs?: number;
  /** How long retries may go on (default 30 s; 0: no retries). */
  retryBudgetMs?: number;
  signal?: AbortSignal;
}

/** A watch event as the API server streams it. */
export interface WatchEvent {
  type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR";
  object: Record<string, unknown>;
}

export interface ClientOptions {
  log?: Logger;
  userAgent?: string;
  /** The terminal an exec credential plugin may use (a command someone runs); none for the controller. */
  execTerminal?: ExecTerminal;
  /**
   * Ask for gzip answers, as client-go does unless the kubeconfig's `disable-compression` or kubectl's
   * --disable-compression says not to: the live commands, whose lists may cross a slow network. The
   * controller, next to its API server, does not: compressing costs the API server CPU.
   */
  compression?: boolean;
  /** Called after every response or failure (metrics): method, HTTP code ("<error>" for none), ms. */
  onResponse?: (method: string, code: string, ms: number) => void;
}

interface Credentials {
  headers: Record<string, string | string[]>;
  /** Requests share at most 16 connections; each watch holds one of its own. */
  agent: http.Agent;
  watchAgent: http.Agent;
  /** When they must be fetched again (ms since the epoch). */
  until: number;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });

/** Parses a response body as a Status (JSON, or protobuf for a request that accepted it) for an error message. */
function errorOf(code: number, body: Buffer, retryAfter: string | undefined, contentType = ""): ApiError {
  let status: Record<string, unknown> | undefined;
  const protobuf = contentType.startsWith(PROTOBUF);
  if (protobuf) status = statusOf(body);
  else {
    try {
      const parsed = JSON.parse(body.toString("utf8")) as unknown;
      if (parsed && typeof parsed === "object") status = parsed as Record<string, unknown>;
    } catch {
      // not JSON: the text is the message
    }
  }
  const text = status === undefined && protobuf ? "" : body.toString("utf8").slice(0, 500).trim();
  const message = typeof status?.["message"] === "string" ? status["message"] : text || http.STATUS_CODES[code] || `HTTP ${code}`;
  const after = retryAfter !== undefined && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
  return new ApiError(code, typeof status?.["reason"] === "string" ? status["reason"] : "", message, status, after);
}

/** The headers that make the API server act as someone else, as client-go's impersonating round tripper sets them. */
function impersonationHeaders(i: Impersonation): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = { "Impersonate-User": i.user };
  if (i.uid !== undefined) out["Impersonate-Uid"] = i.uid;
  if (i.groups.length > 0) out["Impersonate-Group"] = i.groups;
  for (const [k, v] of Object.entries(i.extra)) if (v.length > 0) out[`Impersonate-Extra-${headerKeyEscape(k)}`] = v;
  return out;
}

/** A key in a header name: bytes that are not legal there (and `%`) percent-encoded, as client-go's headerKeyEscape. */
function headerKeyEscape(key: string): string {
  let out = "";
  for (const b of Buffer.from(key, "utf8")) {
    const c = String.fromCharCode(b);
    out += /^[A-Za-z0-9!#$&'*+\-.^_`|~]$/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The Proxy-Authorization of a proxy URL's credentials (Basic, as Go sends them), if it has any. */
function proxyAuthorization(proxy: URL): string | undefined {
  return proxy.username ? `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64")}` : undefined;
}

/**
 * The name an https proxy's certificate is checked against, as Go's transport checks it: the
 * tls-server-name when the kubeconfig has one (Go's ServerName wins over the proxy's host), else the
 * proxy's host name (an address sends no SNI and is checked as an address); never the Host header's server.
 */
function proxyServerName(proxy: URL, tlsServerName: string | undefined): string {
  const host = hostOf(proxy);
  return tlsServerName || (net.isIP(host) ? "" : host);
}

/** A URL's host as a connection takes it: an IPv6 address without the brackets `URL.hostname` keeps. */
function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/** An agent's createConnection that answers through its callback (Node's http.Agent accepts that form). */
type TunnelConnect = (options: tls.ConnectionOptions & { host?: string; port?: number; timeout?: number }, done: (err: Error | null, socket?: net.Socket) => void) => undefined;

/**
 * Connections through an HTTP proxy (kubeconfig `proxy-url`, as client-go and client-node use it): a
 * CONNECT tunnel to the API server, with credentials from the proxy URL, and TLS to the server inside it
 * (the agent's CA, client certificate and server name apply as without a proxy).
 */
function tunnel(proxy: URL, secure: boolean, proxyTls: tls.ConnectionOptions): TunnelConnect {
  return (options, done) => {
    const host = options.host ?? "localhost";
    const target = `${net.isIPv6(host) ? `[${host}]` : host}:${options.port}`;
    const headers: Record<string, string> = { Host: target };
    const auth = proxyAuthorization(proxy);
    if (auth) headers["Proxy-Authorization"] = auth;
    const viaTls = proxy.protocol === "https:";
    // Node would take the TLS server name from the Host header (the API server's): the proxy's, as Go's.
    const proxyName = viaTls ? { ...proxyTls, servername: proxyServerName(proxy, proxyTls.servername) } : {};
    const req = (viaTls ? https : http).request({ host: hostOf(proxy), port: proxy.port || (viaTls ? 443 : 80), method: "CONNECT", path: target, headers, agent: false, ...proxyName, ...(options.timeout ? { timeout: options.timeout } : {}) });
    let settled = false;
    const finish = (err: Error | null, socket?: net.Socket): void => {
      if (settled) return;
      settled = true;
      done(err, socket);
    };
    req.once("connect", (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        return finish(new Error(`the proxy ${proxy.host} refused a tunnel to ${target}: ${res.statusCode} ${res.statusMessage ?? ""}`.trim()));
      }
      finish(null, secure ? tls.connect({ ...options, socket }) : socket);
    });
    req.once("timeout", () => req.destroy(Object.assign(new Error(`the proxy ${proxy.host} did not open a tunnel to ${target} in time`), { code: "ETIMEDOUT" })));
    req.once("error", (err) => finish(err));
    req.end();
    return undefined;
  };
}

export class KubeClient {
  private readonly base: URL;
  private readonly secure: boolean;
  private readonly proxy: URL | undefined;
  /** Requests go to the proxy in absolute form (an http server behind a proxy, as Go sends them); else a tunnel. */
  private readonly forward: boolean;
  /** Whether the connection the client opens is TLS: to the server, or to the proxy requests are forwarded to. */
  private readonly tls: boolean;
  private creds: Credentials | undefined;
  private pendingCreds: Promise<Credentials> | undefined;
  private readonly agents = new Map<string, { requests: http.Agent; watches: http.Agent }>();
  private closed = false;

  constructor(
    readonly access: ClusterAccess,
    private readonly options: ClientOptions = {},
  ) {
    this.base = new URL(access.server);
    this.secure = this.base.protocol === "https:";
    this.proxy = access.proxyUrl ? new URL(access.proxyUrl) : undefined;
    this.forward = !this.secure && this.proxy !== undefined;
    this.tls = this.forward ? this.proxy!.protocol === "https:" : this.secure;
  }

  /**
   * The keep-alive agents of one TLS identity (a rotated client certificate gets new ones): requests share
   * at most 16 connections (a burst queues rather than opening hundreds of TLS sessions, each ~100 KB of
   * buffers), watches get one each.
   */
  private agentsFor(cert: Buffer | undefined, key: Buffer | undefined): { requests: http.Agent; watches: http.Agent } {
    const id = cert ? cert.toString("base64").slice(-64) : "";
    let agents = this.agents.get(id);
    if (agents) return agents;
    // The TLS settings of every connection, as Go's transport has one for the server and an https proxy
    // alike: the kubeconfig's CA, else the system's roots; the client certificate; the skip setting; the
    // tls-server-name, which Go checks an https proxy's certificate against too (its ServerName, when set,
    // wins over the proxy's host).
    const serverName = this.access.tlsServerName ? { servername: this.access.tlsServerName } : {};
    const settings: tls.ConnectionOptions = this.tls ? { ...trustOptions(this.access.ca, cert, key), rejectUnauthorized: !this.access.insecureSkipTLSVerify, ...serverName } : {};
    const make = (maxSockets: number): http.Agent => {
      // An idle socket is closed after 30 s, before the API server's own idle timeout can close it under a request.
      const common = { keepAlive: true, timeout: 30_000, maxSockets, maxFreeSockets: 16 };
      const agent = this.secure
        ? new https.Agent({ ...common, ...settings })
        : this.tls
          ? new https.Agent({ ...common, ...settings }) // to an https proxy that forwards to an http server
          : new http.Agent(common);
      if (this.proxy && !this.forward) (agent as unknown as { createConnection: TunnelConnect }).createConnection = tunnel(this.proxy, this.secure, settings);
      return agent;
    };
    agents = { requests: make(16), watches: make(Infinity) };
    // Requests in flight on an old identity's agents finish on their own.
    if (this.agents.size >= 4) this.agents.delete(this.agents.keys().next().value!);
    this.agents.set(id, agents);
    return agents;
  }

  private async fetchCredentials(): Promise<Credentials> {
    const a = this.access;
    const headers: Record<string, string | string[]> = { "User-Agent": this.options.userAgent ?? "karta-controller" };
    let until = Infinity;
    let cert = a.cert;
    let key = a.key;
    if (a.exec) {
      const got: ExecCredential = await runExecPlugin(a.exec, a.server, a.ca, this.options.execTerminal);
      if (got.token) headers["Authorization"] = `Bearer ${got.token}`;
      if (got.cert && got.key) [cert, key] = [got.cert, got.key];
      // Fetched again a minute before they expire.
      if (got.expires !== undefined) until = got.expires - 60_000;
    } else if (a.token !== undefined) headers["Authorization"] = `Bearer ${a.token}`;
    else if (a.oidc) {
      const got = await oidcIdToken(a.oidc);
      headers["Authorization"] = `Bearer ${got.token}`;
      until = got.until;
    } else if (a.tokenFile !== undefined) {
      headers["Authorization"] = `Bearer ${readFileSync(a.tokenFile, "utf8").trim()}`;
      until = Date.now() + 60_000;
    } else if (a.basic) headers["Authorization"] = `Basic ${Buffer.from(`${a.basic.username}:${a.basic.password}`).toString("base64")}`;
    if (a.impersonate) Object.assign(headers, impersonationHeaders(a.impersonate));
    const agents = this.agentsFor(cert, key);
    return { headers, agent: agents.requests, watchAgent: agents.watches, until };
  }

  private async credentials(): Promise<Credentials> {
    if (this.creds && Date.now() < this.creds.until) return this.creds;
    this.pendingCreds ??= this.fetchCredentials()
      .catch((err: unknown) => {
        throw new CredentialError((err as Error)?.message ?? String(err));
      })
      .finally(() => (this.pendingCreds = undefined));
    this.creds = await this.pendingCreds;
    return this.creds;
  }

  private url(path: string, query?: RequestOptions["query"]): string {
    let q = "";
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) q += `${q ? "&" : "?"}${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`;
    return `${this.base.pathname.replace(/\/$/, "")}${path}${q}`;
  }

  /** One attempt: the response, or an ApiError (status ≥ 300) or a transport error. */
  private async once(method: string, path: string, o: RequestOptions, body: Buffer | undefined, onResponse?: (res: http.IncomingMessage) => Promise<Buffer>): Promise<Buffer> {
    const watching = onResponse !== undefined;
    const creds = await this.credentials();
    // Aborted while the credentials were fetched: not sent (an aborted signal fires no 'abort' event later).
    if (o.signal?.aborted) throw Object.assign(new Error("request aborted"), { code: "ABORT_ERR" });
    const started = performance.now();
    return new Promise<Buffer>((resolve, reject) => {
      const headers: Record<string, string | string[] | number> = { ...creds.headers, Accept: o.accept ?? "application/json" };
      // As Go's transport asks unless compression is disabled; the API server compresses large answers, never watches.
      if (this.options.compression && !watching) headers["Accept-Encoding"] = "gzip";
      let to: { host: string; port: string | number; path: string; servername?: string } = { host: hostOf(this.base), port: this.base.port || (this.secure ? 443 : 80), path: this.url(path, o.query) };
      if (this.forward) {
        const proxy = this.proxy!;
        to = { host: hostOf(proxy), port: proxy.port || (this.tls ? 443 : 80), path: `${this.base.origin}${to.path}`, ...(this.tls ? { servername: proxyServerName(proxy, this.access.tlsServerName) } : {}) };
        headers["Host"] = this.base.host;
        const auth = proxyAuthorization(proxy);
        if (auth) headers["Proxy-Authorization"] = auth;
      }
      if (body !== undefined) {
        headers["Content-Type"] = o.contentType ?? "application/json";
        headers["Content-Length"] = body.length;
      }
      let settled = false;
      let deadline: NodeJS.Timeout | undefined;
      const finish = (err: unknown, value?: Buffer, code = "<error>"): void => {
        if (settled) return;
        settled = true;
        o.signal?.removeEventListener("abort", abort);
        clearTimeout(deadline);
        this.options.onResponse?.(method, code, performance.now() - started);
        if (err) reject(err);
        else resolve(value!);
      };
      const req = (this.tls ? https : http).request(
        { ...to, method, headers, agent: watching ? creds.watchAgent : creds.agent, timeout: o.timeoutMs ?? 60_000 },
        (res) => {
          const code = res.statusCode ?? 0;
          if (code < 300 && onResponse) {
            onResponse(res).then((b) => finish(undefined, b, String(code)), (err: unknown) => finish(err, undefined, String(code)));
            return;
          }
          const chunks: Buffer[] = [];
          // A gzip answer (asked for with `compression`) is read through gunzip, and no further than MAX_BODY_BYTES.
          const gzip = res.headers["content-encoding"] === "gzip";
          const body = gzip ? res.pipe(zlib.createGunzip()) : res;
          let size = 0;
          body.on("data", (c: Buffer) => {
            size += c.length;
            if (gzip && size > MAX_BODY_BYTES) return stop(new Error(`the answer unpacks to more than ${MAX_BODY_BYTES} bytes`));
            chunks.push(c);
          });
          body.on("error", (err) => (gzip ? stop(err) : finish(err)));
          if (gzip) res.on("error", (err) => finish(err));
          body.on("end", () => {
            const all = Buffer.concat(chunks);
            if (code >= 300) finish(errorOf(code, all, res.headers["retry-after"] as string | undefined, res.headers["content-type"]), undefined, String(code));
            else finish(undefined, all, String(code));
          });
        },
      );
      // Ends the request with `err`: settled here, and destroyed without an error. Once its response has
      // arrived, the request no longer listens on its socket, and an error given to destroy() would be an
      // unhandled 'error' event there (a watch ended by its own ERROR event crashed the process this way).
      const stop = (err: Error): void => {
        finish(err);
        req.destroy();
      };
      const abort = (): void => stop(Object.assign(new Error("request aborted"), { code: "ABORT_ERR" }));
      o.signal?.addEventListener("abort", abort, { once: true });
      const deadlineMs = o.deadlineMs;
      if (deadlineMs) {
        req.once("socket", () => {
          if (!settled) deadline = setTimeout(() => stop(Object.assign(new Error(`no answer within ${deadlineMs} ms`), { code: "ETIMEDOUT", deadline: true })), Math.max(1, Math.ceil(deadlineMs)));
        });
      }
      req.on("timeout", () => stop(Object.assign(new Error(`request timed out after ${o.timeoutMs ?? 60_000} ms`), { code: "ETIMEDOUT" })));
      req.on("error", (err) => finish(err));
      req.end(body);
    });
  }

  /** A request with client-go's retries (see the module comment): the response body. */
  async request(method: string, path: string, o: RequestOptions = {}, onResponse?: (res: http.IncomingMessage) => Promise<Buffer>): Promise<Buffer> {
    const body = o.body === undefined ? undefined : Buffer.isBuffer(o.body) ? o.body : Buffer.from(JSON.stringify(o.body));
    const deadline = Date.now() + (o.retryBudgetMs ?? 30_000);
    const backoff = new Backoff(200, 5_000);
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw Object.assign(new Error("the client is closed"), { code: "ABORT_ERR" });
      try {
        return await this.once(method, path, o, body, onResponse);
      } catch (err) {
        if (err instanceof ApiError && err.code === 401 && !refreshed && (this.access.exec || this.access.tokenFile)) {
          // Expired credentials: fetch them again, once.
          refreshed = true;
          this.creds = undefined;
          continue;
        }
        // The caller's deadline is not retried: it is the caller's limit, not the server's trouble.
        if (o.signal?.aborted || (err as { deadline?: boolean })?.deadline === true || !isTransient(err)) throw err;
        const wait = err instanceof ApiError && err.retryAfterSeconds !== undefined ? Math.min(10_000, err.retryAfterSeconds * 1000) : backoff.next();
        if (Date.now() + wait > deadline) throw err;
        this.options.log?.("debug", "API request retried", {
          method,
          path,
          attempt,
          retryInMs: wait,
          ...(err instanceof ApiError ? { code: err.code, why: err.message } : { err: String((err as Error)?.message ?? err) }),
        });
        await sleep(wait, o.signal);
      }
    }
  }

  /** A request whose answer is JSON (or nothing). */
  async json<T = Record<string, unknown>>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    const b = await this.request(method, path, o);
    return (b.length === 0 ? {} : JSON.parse(b.toString("utf8"))) as T;
  }

  get<T = Record<string, unknown>>(path: string, o: RequestOptions = {}): Promise<T> {
    return this.json<T>("GET", path, o);
  }

  create<T = Record<string, unknown>>(path: string, body: unknown, o: RequestOptions = {}): Promise<T> {
    return this.json<T>("POST", path, { ...o, body });
  }

  /** Server-side apply of `body` as `fieldManager` (force: take over fields another manager holds). */
  apply<T = Record<string, unknown>>(path: string, body: unknown, fieldManager: string, force = true, o: RequestOptions = {}): Promise<T> {
    return this.json<T>("PATCH", path, { ...o, body, contentType: "application/apply-patch+yaml", query: { ...o.query, fieldManager, force } });
  }

  mergePatch<T = Record<string, unknown>>(path: string, body: unknown, o: RequestOptions = {}): Promise<T> {
    return this.json<T>("PATCH", path, { ...o, body, contentType: "application/merge-patch+json" });
  }

  replace<T = Record<string, unknown>>(path: string, body: unknown, o: RequestOptions = {}): Promise<T> {
    return this.json<T>("PUT", path, { ...o, body });
  }

  delete(path: string, o: RequestOptions & { propagationPolicy?: "Background" | "Foreground" | "Orphan"; preconditions?: { uid?: string; resourceVersion?: string } } = {}): Promise<Record<string, unknown>> {
    const body = o.propagationPolicy || o.preconditions ? { apiVersion: "meta.k8s.io/v1", kind: "DeleteOptions", ...(o.propagationPolicy ? { propagationPolicy: o.propagationPolicy } : {}), ...(o.preconditions ? { preconditions: o.preconditions } : {}) } : undefined;
    return this.json("DELETE", path, { ...o, ...(body ? { body } : {}) });
  }

  /**
   * Streams a watch: `onEvent` gets every event as it is decoded. Resolves when the server ends the
   * stream (its timeoutSeconds), rejects with an ApiError when it refuses the watch (410 Gone: the
   * resourceVersion is too old), or a transport error; `signal` stops it. No data for `idleMs` (a dead
   * connection) is a transport error. With `protobuf` (a decoder of the collection's kind), the watch asks
   * for protobuf, as client-go's watchers of built-in kinds do, with JSON as the fallback the server may
   * choose: the API server sends every watcher of protobuf the encoding it keeps, where JSON is encoded
   * again for each watcher. With `batchMs`, the connection is read at most once per that many
   * milliseconds while events keep coming (see {@link readWatch}).
   */
  async watch(path: string, query: RequestOptions["query"], onEvent: (e: WatchEvent) => void, signal: AbortSignal, o: { idleMs?: number; protobuf?: ObjectDecoder; batchMs?: number } = {}): Promise<void> {
    const accept = o.protobuf ? `${PROTOBUF}, application/json` : "application/json";
    await this.once("GET", path, { query: { ...query, watch: true }, signal, timeoutMs: o.idleMs ?? 15 * 60_000, accept }, undefined, (res) => {
      const contentType = res.headers["content-type"] ?? "";
      this.options.log?.("debug", "watch started", { path, contentType });
      const read = { signal, batchMs: o.batchMs ?? 0 };
      return o.protobuf && contentType.startsWith(PROTOBUF) ? decodeFrames(res, o.protobuf, onEvent, read) : decodeLines(res, onEvent, read);
    });
  }

  /** Closes the idle connections; requests in flight finish. */
  close(): void {
    this.closed = true;
    for (const a of this.agents.values()) {
      a.requests.destroy();
      a.watches.destroy();
    }
    this.agents.clear();
  }
}

/** Reads length-prefixed protobuf events (4 bytes, big-endian) from a watch response until it ends. */
function decodeFrames(res: http.IncomingMessage, decode: ObjectDecoder, onEvent: (e: WatchEvent) => void, read: ReadOptions): Promise<Buffer> {
  // Frames inside a chunk are read in place; one that continues into the next chunks is copied into a
  // buffer of its size (`frame`, `filled` bytes so far), and a length cut by a chunk's end waits in `head`.
  let head: Buffer | undefined;
  let frame: Buffer | undefined;
  let filled = 0;
  /** Decodes one frame's event and hands it on; false when the stream is broken. */
  const one = (body: Buffer): boolean => {
    let e: WatchEvent;
    try {
      e = watchEvent(body, decode) as WatchEvent;
    } catch (err) {
      broken(res, `the watch stream sent an event that is not the protobuf expected: ${(err as Error).message}`);
      return false;
    }
    onEvent(e);
    return true;
  };
  const sizeOk = (n: number): boolean => {
    if (n <= MAX_FRAME_BYTES) return true;
    broken(res, `the watch stream sent a frame of ${n} bytes (at most ${MAX_FRAME_BYTES})`);
    return false;
  };
  const data = (chunk: Buffer): void => {
    let at = 0;
    if (head) {
      at = Math.min(4 - head.length, chunk.length);
      head = Buffer.concat([head, chunk.subarray(0, at)]);
      if (head.length < 4) return;
      const n = head.readUInt32BE(0);
      head = undefined;
      if (!sizeOk(n)) return;
      frame = Buffer.allocUnsafe(n);
      filled = 0;
    }
    if (frame) {
      const take = Math.min(frame.length - filled, chunk.length - at);
      chunk.copy(frame, filled, at, at + take);
      filled += take;
      at += take;
      if (filled < frame.length) return;
      const body = frame;
      frame = undefined;
      if (!one(body)) return;
    }
    while (chunk.length - at >= 4) {
      const n = chunk.readUInt32BE(at);
      if (!sizeOk(n)) return;
      if (chunk.length - at - 4 < n) {
        frame = Buffer.allocUnsafe(n);
        filled = chunk.copy(frame, 0, at + 4);
        return;
      }
      if (!one(chunk.subarray(at + 4, at + 4 + n))) return;
      at += 4 + n;
    }
    // A length cut by the chunk's end: copied, as the chunk's memory is the socket's to reuse.
    if (at < chunk.length) head = Buffer.from(chunk.subarray(at));
  };
  return readWatch(res, read, data, () => (head || frame ? "the watch stream ended inside a frame" : undefined));
}

/** Reads newline-delimited JSON events from a watch response until it ends. */
function decodeLines(res: http.IncomingMessage, onEvent: (e: WatchEvent) => void, read: ReadOptions): Promise<Buffer> {
  let pending: Buffer | undefined;
  const line = (text: string): void => {
    if (text.trim() === "") return;
    let e: WatchEvent;
    try {
      e = JSON.parse(text) as WatchEvent;
    } catch {
      return broken(res, `the watch stream sent a line that is not JSON: ${text.slice(0, 200)}`);
    }
    onEvent(e);
  };
  const data = (chunk: Buffer): void => {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, start)) {
      if (pending) {
        line(Buffer.concat([pending, chunk.subarray(start, nl)]).toString("utf8"));
        pending = undefined;
      } else line(chunk.toString("utf8", start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) pending = pending ? Buffer.concat([pending, chunk.subarray(start)]) : Buffer.from(chunk.subarray(start));
  };
  return readWatch(res, read, data, () => {
    if (pending) line(pending.toString("utf8"));
    return undefined;
  });
}

/**
 * Ends a watch whose stream is not what the API server sends (a line that is not JSON, a frame that is
 * not the protobuf expected or too large), saying why. Not a transport error: the stream arrived and was
 * wrong, so the informer logs it as a failed watch (client-go reports an undecodable event as an error)
 * and watches again after a backoff.
 */
function broken(res: http.IncomingMessage, why: string): void {
  res.destroy(Object.assign(new Error(why), { code: "ERR_WATCH_STREAM_MALFORMED" }));
}

/** How a watch's connection is read: until `signal` aborts, at most once per `batchMs` (0: as data comes). */
interface ReadOptions {
  signal: AbortSignal;
  batchMs: number;
}

/**
 * Feeds a watch response's chunks to `data` until the stream ends (resolved, unless `end` says what was
 * left unread), fails or is aborted.
 *
 * With `batchMs`, once a read has been handled the socket is left unread for that long, and what arrived
 * meanwhile is then read at once. The API server writes each event on its own (a TLS record each), and a
 * reader that wakes for every one pays a system call, a decryption and Node's stream machinery per event;
 * read in batches, a busy watch of pods took a quarter less CPU (docs/benchmarks.md). The kernel's buffers
 * hold what waits, and the server's watch cache keeps each watcher's backlog: nothing is dropped, events
 * are only later by up to `batchMs`. An idle watch is read at once, as without it.
 */
function readWatch(res: http.IncomingMessage, read: ReadOptions, data: (chunk: Buffer) => void, end: () => string | undefined): Promise<Buffer> {
  let held: NodeJS.Timeout | undefined;
  let holding = false;
  const release = (): void => {
    clearTimeout(held);
    held = undefined;
    holding = false;
    if (res.socket && !res.socket.destroyed) res.socket.resume();
  };
  /** After this turn's reads are handled, stops reading for `batchMs`. */
  const hold = (): void => {
    holding = true;
    setImmediate(() => {
      if (!holding || !res.socket || res.socket.destroyed || res.complete) return void (holding = false);
      res.socket.pause();
      held = setTimeout(release, read.batchMs);
    });
  };
  return new Promise((resolve, reject) => {
    res.on(
      "data",
      read.batchMs > 0
        ? (chunk: Buffer) => {
            data(chunk);
            if (!holding) hold();
          }
        : data,
    );
    res.on("end", () => {
      const why = end();
      if (why) reject(Object.assign(new Error(why), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
      else resolve(Buffer.alloc(0));
    });
    res.on("error", reject);
    res.on("close", () => {
      if (holding) release(); // the socket may go back to the agent's pool: never left paused
      if (read.signal.aborted) resolve(Buffer.alloc(0));
      else if (!res.complete) reject(Object.assign(new Error("the watch connection closed"), { code: "ECONNRESET" }));
    });
  });
}

/**
 * A value that cannot be one segment of an API path (`..`, `a/b`, `50%`), refused before a request is
 * built, as client-go's request builder refuses it: escaping alone does not do, since the API server
 * decodes `%2F` before it splits the path and `..` needs no escape.
 */
export class PathSegmentError extends Error {}

/**
 * `value` as one segment of an API path: checked as apimachinery's IsValidPathSegmentName (a
 * {@link PathSegmentError} worded as client-go's, `invalid namespace "../x": [may not contain '/']`), then
 * percent-escaped, so that no value can change which path is requested.
 */
export function pathSegment(what: string, value: string): string {
  const msgs = isValidPathSegmentName(value);
  if (value === "") msgs.push("may not be empty");
  if (msgs.length > 0) throw new PathSegmentError(`invalid ${what} ${JSON.stringify(value)}: [${msgs.join(" ")}]`);
  return encodeURIComponent(value);
}

/** A collection's or an object's API path: `/api/v1/namespaces/NS/pods[/NAME]`, `/apis/G/V/...`; every segment checked and escaped ({@link pathSegment}). */
export function resourcePath(apiVersion: string, plural: string, namespace?: string, name?: string): string {
  const slash = apiVersion.indexOf("/");
  const prefix = slash >= 0 ? `/apis/${pathSegment("group", apiVersion.slice(0, slash))}/${pathSegment("version", apiVersion.slice(slash + 1))}` : `/api/${pathSegment("version", apiVersion)}`;
  return `${prefix}${namespace ? `/namespaces/${pathSegment("namespace", namespace)}` : ""}/${pathSegment("resource", plural)}${name !== undefined ? `/${pathSegment("resource name", name)}` : ""}`;
}

/** What an API error said: HTTP code, Status reason and message. */
export interface ApiErrorInfo {
  code: number;
  reason: string;
  message: string;
}

/** The Status of a failed request (an {@link ApiError}), or undefined for what is not an API answer (network, bugs). */
export function apiError(err: unknown): ApiErrorInfo | undefined {
  return err instanceof ApiError ? { code: err.code, reason: err.reason, message: err.message } : undefined;
}

/** One served resource of a group/version. */
export interface ServedResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** The resources a group/version serves (discovery), or undefined when the group/version is not served. */
export async function discover(client: KubeClient, group: string, version: string): Promise<ServedResource[] | undefined> {
  try {
    const list = await client.get<{ resources?: { name: string; kind: string; namespaced: boolean }[] }>(group === "" ? `/api/${version}` : `/apis/${group}/${version}`);
    return (list.resources ?? []).filter((r) => !r.name.includes("/")).map((r) => ({ name: r.name, kind: r.kind, namespaced: r.namespaced }));
  } catch (err) {
    if (apiError(err)?.code === 404) return undefined;
    throw err;
  }
}

/** An RFC 3339 time with microseconds (metav1.MicroTime), as the API server wants Lease and Event times. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
