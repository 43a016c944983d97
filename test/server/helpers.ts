/** Helpers of the server tests: certificates made at test time, a server on loopback, raw HTTPS requests. */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import type { Readable } from "node:stream";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCA, issueServing } from "../../src/server/certs.js";
import { createLogger } from "../../src/server/log.js";
import { startServer, type RunningServer, type ServeOptions } from "../../src/server/server.js";
import { kartaBin } from "../support/conformance.js";

/** The repository root (tests run from dist/test/server). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** A fresh temporary directory. */
export function tempDir(prefix = "karta-serve-"): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/** A CA and a serving certificate for 127.0.0.1 and localhost, written to `dir` (ca.crt, tls.crt, tls.key). */
export function writeCerts(dir: string): { caPem: string; certFile: string; keyFile: string; caFile: string } {
  const ca = createCA("test-ca");
  const serving = issueServing(ca, ["localhost", "127.0.0.1"]);
  const certFile = path.join(dir, "tls.crt");
  const keyFile = path.join(dir, "tls.key");
  const caFile = path.join(dir, "ca.crt");
  writeFileSync(certFile, serving.certPem);
  writeFileSync(keyFile, serving.keyPem);
  writeFileSync(caFile, ca.certPem);
  return { caPem: ca.certPem, certFile, keyFile, caFile };
}

/** Starts a server on loopback (ephemeral ports) and waits until its workers are ready. */
export async function startTestServer(options: Partial<ServeOptions> & { certDir?: string } = {}): Promise<{ server: RunningServer; caPem: string; url: string; dir: string }> {
  const dir = options.certDir ?? tempDir();
  const certs = writeCerts(dir);
  const server = await startServer({
    securePort: 0,
    bindAddress: "127.0.0.1",
    tlsCertFile: certs.certFile,
    tlsPrivateKeyFile: certs.keyFile,
    definitions: [],
    customizations: [],
    multiplePodTemplatesScheduling: true,
    path: "/interpret",
    metricsBindAddress: "127.0.0.1:0",
    maxRequestBytes: 3 * 1024 * 1024,
    requestTimeoutMs: 10_000,
    workers: 2,
    shutdownGracePeriodMs: 5_000,
    watchDebounceMs: 100,
    logger: createLogger("silent"),
    ...options,
  });
  if (options.certDir === undefined) {
    // The certificate directory made here goes with the server.
    const close = server.close;
    server.close = async () => {
      await close();
      rmSync(dir, { recursive: true, force: true });
    };
  }
  if (!(await server.pool.whenReady(60_000))) throw new Error("workers not ready");
  return { server, caPem: certs.caPem, url: `https://127.0.0.1:${server.port}/interpret`, dir };
}

/** One raw HTTPS request; resolves with the status and body (never rejects on HTTP errors). */
export function request(url: string, ca: string, body: string | Buffer | undefined, headers: Record<string, string> = { "Content-Type": "application/json" }, method = "POST"): Promise<{ status: number; body: string; json: () => unknown }> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, ca, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, body: text, json: () => JSON.parse(text) as unknown });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The part of a ResourceInterpreterContext answer the server tests read. */
export type Response = { response: { uid: string; successful: boolean; healthy?: boolean; status?: { code: number; message: string } } };

/** A ResourceInterpreterContext request body. */
export function contextBody(uid: string, operation: string, object: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const [group, version] = String(object.apiVersion).includes("/") ? String(object.apiVersion).split("/") : ["", String(object.apiVersion)];
  return JSON.stringify({
    apiVersion: "config.karmada.io/v1alpha1",
    kind: "ResourceInterpreterContext",
    request: { uid, kind: { group, version, kind: object.kind }, name: (object.metadata as { name?: string } | undefined)?.name ?? "", operation, object, replicas: 0, ...extra },
  });
}

/** The text of the metrics endpoint. */
export async function metricsText(server: RunningServer): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${server.metricsPort}/metrics`);
  return res.text();
}

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 15_000, what = "condition"): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A customization whose InterpretHealth spends all its time inside string.find (4 KB of "a", a pattern that backtracks for ages): only terminating its thread stops it. */
export const RUNAWAY = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: runaway
spec:
  target:
    apiVersion: example.io/v1
    kind: Runaway
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          local s = "a"
          for i = 1, 12 do s = s .. s end
          -- 4 KB of "a" and a pattern that backtracks for ages: all the time is spent inside string.find
          return string.find(s, ".-.-.-.-.-.-.-.-b") ~= nil
        end
`;

/** `karta serve` run as a process: what it printed so far, its exit, and its "serving" line once logged. */
export interface ServeProcess {
  child: ChildProcessByStdio<null, Readable, Readable>;
  out(): string;
  err(): string;
  /** Its log so far: the JSON lines of standard error (not the start-up line about the certificate). */
  log(): string;
  exited: Promise<number | null>;
  /** Waits for the `"msg":"serving"` line on standard error (60 s) and returns it: the ports, and more fields with --processes. */
  serving(): Promise<{ port: number; metricsPort: number; processes?: number; process?: number }>;
}

/** Starts `karta serve ARGS` (with `bin`: that installed command instead of the repository's). */
export function spawnServe(args: string[], options: { bin?: string; cwd?: string } = {}): ServeProcess {
  const [command, argv] = options.bin !== undefined ? [options.bin, ["serve", ...args]] : [process.execPath, [kartaBin, "serve", ...args]];
  const child = spawn(command, argv, { stdio: ["ignore", "pipe", "pipe"], ...(options.cwd !== undefined ? { cwd: options.cwd } : {}) });
  let out = "";
  let err = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    out: () => out,
    err: () => err,
    log: () => err.split("\n").filter((l) => l.startsWith("{")).map((l) => `${l}\n`).join(""),
    exited,
    serving: async () => {
      await eventually(() => /"msg":"serving"/.test(err), 60_000, `karta serve to start (${out}${err})`);
      return JSON.parse(err.split("\n").find((l) => l.includes('"msg":"serving"'))!) as Awaited<ReturnType<ServeProcess["serving"]>>;
    },
  };
}
