/**
 * Faults for the cluster tests, against a private cluster's real processes:
 * - {@link restartServer}: stops kube-apiserver or etcd (SIGTERM, or SIGKILL as a crash) and starts it
 *   again with the same command line, data directory and port, as a node reboot or a rolling restart
 *   would; `scripts/test-cluster down` still finds it by its pid file;
 * - {@link FaultProxy}: a plain-HTTP proxy in front of the API server (it authenticates upstream with the
 *   cluster's admin certificate) that can answer the next watch of a resource as the API server answers
 *   a resourceVersion it no longer has (an ERROR event, 410 Expired), drop the open watches, and
 *   answer requests with 429 and Retry-After as a throttling or starting API server does;
 * - {@link faultModule}: a bug of Karta's in a command's process, for `node --import`.
 */
import { spawn } from "node:child_process";
import { openSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The admin client's TLS options of a private cluster (its pki). */
function adminTls(dir: string): https.AgentOptions {
  const pki = path.join(dir, "pki");
  return { ca: readFileSync(path.join(pki, "ca.crt")), cert: readFileSync(path.join(pki, "admin.crt")), key: readFileSync(path.join(pki, "admin.key")) };
}

/** The API server's URL of a private cluster. */
export function apiServerUrl(dir: string): URL {
  return new URL(/server: (\S+)/.exec(readFileSync(path.join(dir, "kubeconfig"), "utf8"))![1]!);
}

async function ready(dir: string, name: "kube-apiserver" | "etcd", argv: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const probe = (): Promise<boolean> =>
    new Promise((resolve) => {
      const req =
        name === "etcd"
          ? http.get(`${argv[argv.indexOf("--listen-client-urls") + 1]}/health`, (res) => (res.resume(), resolve(res.statusCode === 200)))
          : https.get({ host: apiServerUrl(dir).hostname, port: apiServerUrl(dir).port, path: "/readyz", ...adminTls(dir) }, (res) => (res.resume(), resolve(res.statusCode === 200)));
      req.setTimeout(2000, () => req.destroy());
      req.on("error", () => resolve(false));
    });
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${name} not ready ${timeoutMs} ms after its restart (log: ${path.join(dir, `${name}.log`)})`);
    await sleep(200);
  }
}

/**
 * Stops a private cluster's kube-apiserver or etcd, waits `downMs`, and starts it again with the same
 * command line (its log appended to), resolving once it answers its readiness check.
 */
export async function restartServer(dir: string, name: "kube-apiserver" | "etcd", o: { downMs?: number; signal?: NodeJS.Signals; readyTimeoutMs?: number } = {}): Promise<void> {
  const pidFile = path.join(dir, `${name}.pid`);
  const pid = Number(readFileSync(pidFile, "utf8"));
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((a) => a !== "");
  process.kill(pid, o.signal ?? "SIGTERM");
  const deadline = Date.now() + 30_000;
  while (alive(pid)) {
    if (Date.now() > deadline) process.kill(pid, "SIGKILL");
    await sleep(50);
  }
  await sleep(o.downMs ?? 1000);
  const log = openSync(path.join(dir, `${name}.log`), "a");
  // Its own session, as the script starts it: it outlives this test file and `down` stops it by its pid file.
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ["ignore", log, log] });
  child.unref();
  writeFileSync(pidFile, String(child.pid));
  await ready(dir, name, argv, o.readyTimeoutMs ?? 120_000);
}

/**
 * The line the API server streams to refuse a watch from `resourceVersion`, older than the `oldest` it
 * still has: an ERROR event carrying a 410 Expired Status.
 */
export function expiredWatchEvent(resourceVersion: string, oldest: number): string {
  const status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: `too old resource version: ${resourceVersion} (${oldest})`, reason: "Expired", code: 410 };
  return `${JSON.stringify({ type: "ERROR", object: status })}\n`;
}

/** One request the proxy saw, and what it answered (`status` 0: passed upstream). */
export interface ProxiedRequest {
  method: string;
  path: string;
  injected?: number;
}

/** A plain-HTTP proxy to a private cluster's API server with injectable faults (see the module comment). */
export class FaultProxy {
  private readonly server: http.Server;
  private readonly upstream: URL;
  private readonly agent: https.Agent;
  /** Watches hold a connection each. */
  private readonly watchAgent: https.Agent;
  private readonly watches = new Set<{ path: string; res: http.ServerResponse; up: http.ClientRequest }>();
  private expire: RegExp[] = [];
  private holds: { pattern: RegExp; until: number }[] = [];
  private failures: { n: number; match: (method: string, path: string) => boolean; code: number; reason: string; message: string; retryAfter?: number }[] = [];
  readonly requests: ProxiedRequest[] = [];
  port = 0;

  private constructor(dir: string) {
    this.upstream = apiServerUrl(dir);
    this.agent = new https.Agent({ keepAlive: true, ...adminTls(dir) });
    this.watchAgent = new https.Agent({ keepAlive: false, ...adminTls(dir) });
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  static async start(dir: string): Promise<FaultProxy> {
    const p = new FaultProxy(dir);
    await new Promise<void>((resolve) => p.server.listen(0, "127.0.0.1", resolve));
    p.port = (p.server.address() as AddressInfo).port;
    return p;
  }

  /** A kubeconfig (written to `file`) that reaches the API server through the proxy. */
  writeKubeconfig(file: string): string {
    writeFileSync(
      file,
      `apiVersion: v1\nkind: Config\nclusters:\n- name: proxy\n  cluster:\n    server: http://127.0.0.1:${this.port}\nusers:\n- name: proxy\n  user: {}\ncontexts:\n- name: proxy\n  context:\n    cluster: proxy\n    user: proxy\ncurrent-context: proxy\n`,
    );
    return file;
  }

  /** The next watch whose path matches is told its resourceVersion is too old (an ERROR event, 410 Expired). */
  expireNextWatch(pattern: RegExp): void {
    this.expire.push(pattern);
  }

  /** New watches whose path matches wait `ms` before they reach the server (a disconnection that lasts). */
  holdWatches(pattern: RegExp, ms: number): void {
    this.holds.push({ pattern, until: Date.now() + ms });
  }

  /** Ends the open watches whose path matches (the connection drops). */
  dropWatches(pattern: RegExp = /./): number {
    let n = 0;
    for (const w of [...this.watches]) {
      if (!pattern.test(w.path)) continue;
      w.up.destroy();
      w.res.destroy();
      this.watches.delete(w);
      n++;
    }
    return n;
  }

  /** Answers the next `n` matching requests (not watches) with 429, Retry-After and a Status saying `message`. */
  throttle(n: number, o: { match?: (method: string, path: string) => boolean; retryAfter?: number; message?: string } = {}): void {
    this.failures.push({ n, match: o.match ?? (() => true), code: 429, reason: "TooManyRequests", retryAfter: o.retryAfter ?? 1, message: o.message ?? "storage is (re)initializing" });
  }

  /** Answers the next `n` matching requests (not watches) with `code` and a Status of `reason` saying `message`. */
  fail(n: number, o: { match: (method: string, path: string) => boolean; code: number; reason: string; message: string }): void {
    this.failures.push({ n, ...o });
  }

  openWatches(pattern: RegExp = /./): number {
    return [...this.watches].filter((w) => pattern.test(w.path)).length;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://proxy");
    const watch = url.searchParams.get("watch") === "true" || url.searchParams.get("watch") === "1";
    const record: ProxiedRequest = { method: req.method ?? "GET", path: url.pathname + (watch ? "?watch" : "") };
    this.requests.push(record);
    if (!watch) {
      const f = this.failures.find((x) => x.n > 0 && x.match(record.method, url.pathname));
      if (f) {
        f.n--;
        record.injected = f.code;
        req.resume();
        const retry = f.retryAfter === undefined ? undefined : { details: { retryAfterSeconds: f.retryAfter } };
        const body = JSON.stringify({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: f.message, reason: f.reason, ...retry, code: f.code });
        res.writeHead(f.code, { "Content-Type": "application/json", ...(f.retryAfter === undefined ? {} : { "Retry-After": String(f.retryAfter) }) }).end(body);
        return;
      }
    } else {
      const hold = this.holds.find((h) => h.pattern.test(url.pathname) && h.until > Date.now());
      if (hold) await sleep(hold.until - Date.now());
      const i = this.expire.findIndex((p) => p.test(url.pathname));
      if (i >= 0) {
        // Answered here, as the API server answers a resourceVersion older than its history: 200, one
        // ERROR event carrying a 410 Expired Status, and the end of the stream. (Asking the real server
        // for resourceVersion 1 was not deterministic: before etcd compacts, it serves the watch.)
        this.expire.splice(i, 1);
        record.injected = 410;
        req.resume();
        const rv = url.searchParams.get("resourceVersion") ?? "";
        // The oldest the server still has: one past the one asked for (a resourceVersion is opaque to clients).
        const oldest = /^\d+$/.test(rv) ? Number(rv) + 1 : 1;
        res.writeHead(200, { "Content-Type": "application/json" }).end(expiredWatchEvent(rv, oldest));
        return;
      }
    }
    const up = https.request(
      { host: this.upstream.hostname, port: this.upstream.port, path: url.pathname + url.search, method: req.method, headers: { ...req.headers, host: this.upstream.host }, agent: watch ? this.watchAgent : this.agent },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    if (watch) {
      const w = { path: url.pathname, res, up };
      this.watches.add(w);
      res.on("close", () => {
        this.watches.delete(w);
        up.destroy();
      });
    }
    up.on("error", () => res.destroy());
    req.pipe(up);
  }

  async close(): Promise<void> {
    this.dropWatches();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
    this.watchAgent.destroy();
  }
}

/**
 * A module for `node --import` that, on SIGUSR2, throws from a callback or leaves a promise rejection
 * unhandled: an internal error of the command the process runs.
 */
export function faultModule(how: "throw" | "reject"): string {
  const fault = how === "throw" ? 'throw new Error("injected fault")' : 'void Promise.reject(new Error("injected fault"))';
  return `data:text/javascript,${encodeURIComponent(`process.on("SIGUSR2", () => setImmediate(() => { ${fault}; }));`)}`;
}
