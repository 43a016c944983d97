/**
 * `karta playground`: serves the built playground (static files under dist/playground-page/, made by
 * `npm run build`) on a loopback address, until interrupted. The page runs the library in the
 * browser; the server only hands out files (GET/HEAD, no directory listings, nothing outside the
 * folder).
 */
import { createReadStream, existsSync, realpathSync, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseCommand, usageError, type Flags } from "./args.js";
import { guardInternalErrors, type InternalErrorGuard } from "./crash.js";
import { EXIT_INTERNAL } from "./exit-codes.js";
import { internalErrorLine, type CliIO } from "./io.js";

export const PLAYGROUND_HELP = `Usage: karta playground [--port N] [--address ADDRESS]

Serves the Karta playground on a loopback address: a page with editors for a Karta, a workload
object and its pods that shows, as you type, karta validate's diagnostics, the component tree with
resources, the status, the pod groups as a picture, the Workload API objects, Karmada's interpreter
answers and the JSON Patches. Everything runs in the browser; the link carries the page's state.
The page is built by 'npm run build' (dist/playground-page/); it can be hosted as static files.

  -p, --port N            the port (default 8088; 0 picks a free one)
      --address ADDRESS   the loopback address to listen on: 127.0.0.1 (default), ::1 or localhost
  -h, --help              show this help

Stops on Ctrl-C (SIGINT) or SIGTERM. Exit code: 0 after a clean stop, 2 usage, 1 when it cannot serve, 5
after an internal error (one line on standard error, then it stops as on SIGTERM).

Example:
  karta playground --port 8088
  # then open http://127.0.0.1:8088/
`;

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".wasm": "application/wasm",
  ".txt": "text/plain; charset=utf-8",
};

// The page needs its own scripts, wasm (the Lua VM) and CodeMirror's injected styles; nothing else.
const HEADERS = {
  "content-security-policy": "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

/** The built page's folder: `dist/playground-page/` found walking up from this module, or undefined. */
export function builtPlaygroundDir(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    for (const candidate of [path.join(dir, "playground-page"), path.join(dir, "dist", "playground-page")]) {
      if (existsSync(path.join(candidate, "index.html")) && existsSync(path.join(candidate, "app.js"))) return candidate;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** A running playground server. */
export interface PlaygroundServer {
  url: string;
  /** Stops accepting connections and closes the open ones. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Serves `root` on a loopback address. Rejects when the port cannot be had. */
export function startPlaygroundServer(options: { root: string; port?: number; address?: string }): Promise<PlaygroundServer> {
  const address = options.address ?? "127.0.0.1";
  if (!LOOPBACK.has(address)) return Promise.reject(new Error(`--address must be a loopback address (127.0.0.1, ::1 or localhost), not '${address}'`));
  const root = realpathSync(options.root);
  const server: Server = createServer((req, res) => serve(root, req, res));
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8088, address, () => {
      server.off("error", reject);
      const a = server.address() as AddressInfo;
      const host = a.family === "IPv6" ? `[${a.address}]` : a.address;
      resolve({
        url: `http://${host}:${a.port}/`,
        close: () =>
          new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

function fail(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { ...HEADERS, "content-type": "text/plain; charset=utf-8", ...extra });
  res.end(text + "\n");
}

function serve(root: string, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== "GET" && req.method !== "HEAD") return fail(res, 405, "only GET and HEAD", { allow: "GET, HEAD" });
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
  } catch {
    return fail(res, 400, "bad path");
  }
  if (pathname.endsWith("/")) pathname += "index.html";
  const file = path.resolve(root, "." + pathname);
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return fail(res, 404, "not found");
  }
  if (real !== root && !real.startsWith(root + path.sep)) return fail(res, 404, "not found");
  const st = statSync(real);
  if (!st.isFile()) return fail(res, 404, "not found");
  res.writeHead(200, { ...HEADERS, "content-type": TYPES[path.extname(real)] ?? "application/octet-stream", "content-length": String(st.size) });
  if (req.method === "HEAD") return void res.end();
  createReadStream(real)
    .on("error", () => res.destroy())
    .pipe(res);
}

export const FLAGS = {
  port: { type: "integer", short: "p", min: 0, max: 65535, default: 8088 },
  address: { type: "string" },
} as const satisfies Flags;

/** Runs `karta playground`; resolves to the exit code when stopped by a signal. */
export async function runPlayground(args: string[], io: CliIO, signals: NodeJS.EventEmitter = process): Promise<number> {
  const parsed = parseCommand(io, "playground", args, FLAGS, PLAYGROUND_HELP);
  if (typeof parsed === "number") return parsed;
  const { values } = parsed;
  const port = values.port;
  if (values.address !== undefined && !LOOPBACK.has(values.address)) {
    return usageError(io, "playground", `invalid value '${values.address}' for --address: expected a loopback address (127.0.0.1, ::1 or localhost)`);
  }
  const root = builtPlaygroundDir();
  if (!root) {
    io.stderr("karta playground: the page is not built (dist/playground-page/ not found); run 'npm run build' first\n");
    return 1;
  }
  let server: PlaygroundServer;
  try {
    server = await startPlaygroundServer({ root, port, ...(values.address !== undefined ? { address: values.address } : {}) });
  } catch (err) {
    const code = (err as { code?: string }).code;
    io.stderr(`karta playground: cannot listen on port ${port}: ${code === "EADDRINUSE" ? "the port is in use (try --port 0)" : err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  io.stdout(`Karta playground at ${server.url} (serving ${root}); Ctrl-C stops it\n`);
  let guard: InternalErrorGuard;
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      signals.off("SIGINT", stop);
      signals.off("SIGTERM", stop);
      resolve();
    };
    signals.on("SIGINT", stop);
    signals.on("SIGTERM", stop);
    guard = guardInternalErrors({ report: (f) => io.stderr(internalErrorLine("playground", f.err)), stop });
  });
  await server.close();
  guard!.release();
  io.stdout("karta playground: stopped\n");
  return guard!.failed ? EXIT_INTERNAL : 0;
}
