/**
 * `karta serve` under load (autocannon as a library, over HTTPS on loopback), against a do-nothing
 * webhook measured in the same run: a plain `node:https` server with the same certificate that reads
 * the same request body, `JSON.parse`s it and answers a fixed ResourceInterpreterContext with
 * `JSON.stringify` (what any webhook must do before interpreting anything). Both servers run as child
 * processes, so that the load generator does not share their event loop; both get the same client,
 * body and keep-alive connections, and runs alternate so that the shared machine's load falls on all
 * alike. Each run also reports the server's CPU time per request (user + system, all its threads and
 * processes, from /proc), which moves less with the machine's load than rates do. `karta serve` runs
 * with its defaults, a serving process per CPU (`--processes`); the do-nothing webhook is the plain
 * one-process server the target names.
 *
 * Targets, each on the median of 3 alternating rounds, 10 connections, 5 s per run:
 * 1. InterpretHealth on a bundled kind (the PyTorchJob, answered by its bundled Karta): ≥ 0.8x the
 *    do-nothing webhook's requests per second, and p99 latency < 5 ms at that load.
 * 2. Lua operations ≥ 0.5x native ones: InterpretReplica and InterpretHealth of a Deployment, answered
 *    by Karmada's built-in interpreter (native), against the same object under a kind of its own that a
 *    ResourceInterpreterCustomization answers with the same rules (Lua, on the workers).
 * 3. RSS of the server after 10,000 Lua requests and after 100,000: within 10%, each the highest of samples
 *    every 50 ms over a window of 10,000 requests (the first 10,000, the last 10,000 of 100,000).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, readdirSync, writeFileSync, mkdirSync, mkdtempSync, rmSync, openSync, closeSync } from "node:fs";
import https from "node:https";
import net from "node:net";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { parse } from "yaml";
import { createCA, issueServing } from "../src/server/certs.js";
import { median, repoRoot } from "./harness.js";

/** The Deployment's twin kind: the same object, answered by a customization instead of the built-in interpreter. */
const TWIN = { apiVersion: "bench.karta.io/v1", kind: "Deployment" };

const RIC = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: deployment-twin
spec:
  target:
    apiVersion: ${TWIN.apiVersion}
    kind: ${TWIN.kind}
  customizations:
    replicaResource:
      luaScript: |
        local kube = require("kube")
        function GetReplicas(obj)
          local replicas = obj.spec.replicas
          if replicas == nil then replicas = 1 end
          return replicas, kube.accuratePodRequirements(obj.spec.template)
        end
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          local status = obj.status or {}
          local generation = obj.metadata.generation or 0
          if (status.observedGeneration or 0) ~= generation then return false end
          local replicas = obj.spec.replicas
          if replicas == nil then replicas = 1 end
          if (status.updatedReplicas or 0) < replicas then return false end
          if (status.availableReplicas or 0) < (status.updatedReplicas or 0) then return false end
          return true
        end
`;

// The baseline: reads the body, JSON.parse, answers a fixed ResourceInterpreterContext with JSON.stringify.
const DO_NOTHING = `
const https = require("node:https");
const fs = require("node:fs");
const [cert, key, port] = process.argv.slice(1);
https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const request = JSON.parse(Buffer.concat(chunks).toString("utf8")).request;
    const body = JSON.stringify({ apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: { uid: request.uid, successful: true, healthy: true } });
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
    res.end(body);
  });
}).listen(Number(port), "127.0.0.1", () => console.log("listening"));
`;

function post(url: string, caPem: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method: "POST", ca: caPem, headers: { "content-type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve(text));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if (await check()) return;
    } catch {
      // Not up yet.
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start`);
}

/** A process and its descendants (`karta serve`'s serving processes), by their parent pids in /proc. */
function processTree(root: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Exited meanwhile.
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(parents.get(tree[i]!) ?? []));
  return tree;
}

/** CPU time (user + system, every thread) a process and its descendants have used, ms. */
function cpuMs(pid: number): number {
  let ms = 0;
  for (const p of processTree(pid)) {
    const fields = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1]!.split(" ");
    ms += ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  }
  return ms;
}

/** Resident memory of processes (a process and its descendants: {@link processTree}), MiB. */
function rssMiB(pids: readonly number[]): number {
  let kb = 0;
  for (const p of pids) kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? NaN);
  return kb / 1024;
}

/**
 * The highest resident memory of a process and its descendants while `work` runs, sampled every 50 ms:
 * one sample lands anywhere in the rise and fall of each process's heap between collections (a serving
 * process moved by 20 MiB from one second to the next), where the highest in a window of several
 * collections moves only when the memory does.
 */
async function peakRssDuring<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  const pids = processTree(pid);
  let peak = rssMiB(pids);
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pids))), 50);
  try {
    const result = await work();
    return { result, peak: Math.max(peak, rssMiB(pids)) };
  } finally {
    clearInterval(timer);
  }
}

function contextBody(op: string, object: Record<string, unknown>): string {
  const [group, version] = String(object.apiVersion).includes("/") ? String(object.apiVersion).split("/") : ["", String(object.apiVersion)];
  return JSON.stringify({
    apiVersion: "config.karmada.io/v1alpha1",
    kind: "ResourceInterpreterContext",
    request: { uid: "6d3f1c2e-0000-4000-8000-000000000001", kind: { group, version, kind: object.kind }, name: "bench", namespace: "default", operation: op, object, replicas: 0 },
  });
}

interface Load {
  rps: number;
  /** The server's CPU time per request, µs. */
  cpuUs: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
}

async function load(url: string, body: string, options: { connections: number; duration?: number; amount?: number; pid: number }): Promise<Load> {
  const opts: autocannon.Options = { url, method: "POST", headers: { "content-type": "application/json" }, body, connections: options.connections };
  if (options.amount !== undefined) opts.amount = options.amount;
  else opts.duration = options.duration ?? 5;
  const cpu0 = cpuMs(options.pid);
  const r = await autocannon(opts);
  const cpuUs = ((cpuMs(options.pid) - cpu0) * 1000) / Math.max(1, r.requests.total);
  return { rps: r.requests.average, cpuUs, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx, requests: r.requests.total };
}

function table(title: string, header: string[], rows: string[][]): void {
  console.log(`\n## ${title}`);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ") + " |";
  console.log(line(header));
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const r of rows) console.log(line(r));
}

/** Runs the benchmark and prints its tables. */
export async function benchServe(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-bench-serve-"));
  const ca = createCA("bench-ca");
  const serving = issueServing(ca, ["localhost", "127.0.0.1"]);
  const cert = path.join(dir, "tls.crt");
  const key = path.join(dir, "tls.key");
  writeFileSync(cert, serving.certPem);
  writeFileSync(key, serving.keyPem);
  // The customization in a directory of its own: the server watches it, and the log file must not wake it.
  mkdirSync(path.join(dir, "config"));
  writeFileSync(path.join(dir, "config", "ric.yaml"), RIC);
  const children: ChildProcess[] = [];
  const logFd = openSync(path.join(dir, "serve.log"), "w");
  try {
    const basePort = await freePort();
    const base = spawn(process.execPath, ["-e", DO_NOTHING, cert, key, String(basePort)], { stdio: "ignore" });
    children.push(base);
    const port = await freePort();
    const metricsPort = await freePort();
    // Logs at info, as deployed; to a file, so that no pipe slows the server. Processes and workers as
    // by default: one serving process per CPU (--processes), the CPUs shared among their workers.
    const karta = spawn(
      process.execPath,
      [path.join(repoRoot, "bin", "karta.js"), "serve", "--tls-cert-file", cert, "--tls-private-key-file", key, "--secure-port", String(port), "--bind-address", "127.0.0.1", "--metrics-bind-address", `127.0.0.1:${metricsPort}`, "--customizations", path.join(dir, "config", "ric.yaml")],
      { stdio: ["ignore", logFd, logFd] },
    );
    children.push(karta);
    const baseUrl = `https://127.0.0.1:${basePort}/`;
    const kartaUrl = `https://127.0.0.1:${port}/interpret`;
    await waitFor(async () => (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status === 200, 120_000, "karta serve");
    const pytorchjob = parse(readFileSync(path.join(repoRoot, "examples", "pytorchjob.yaml"), "utf8")) as Record<string, unknown>;
    const deployment = parse(readFileSync(path.join(repoRoot, "examples", "deployment.yaml"), "utf8")) as Record<string, unknown>;
    const twin = { ...deployment, ...TWIN };
    const health = { name: "InterpretHealth, PyTorchJob (bundled Karta)", body: contextBody("InterpretHealth", pytorchjob) };
    const pairs: { op: string; native: { name: string; body: string }; lua: { name: string; body: string } }[] = ["InterpretReplica", "InterpretHealth"].map((op) => ({
      op,
      native: { name: `${op}, Deployment (built-in)`, body: contextBody(op, deployment) },
      lua: { name: `${op}, Deployment twin (Lua customization)`, body: contextBody(op, twin) },
    }));
    const cases = [health, ...pairs.flatMap((p) => [p.native, p.lua])];
    // Check each answer once: a benchmark of failures would measure nothing.
    for (const c of cases) {
      const answer = await post(kartaUrl, ca.certPem, c.body);
      if (!/"successful":true/.test(answer)) throw new Error(`${c.name}: ${answer}`);
    }
    for (const p of pairs) {
      const strip = (a: string): unknown => (JSON.parse(a) as { response: unknown }).response;
      const [n, l] = [await post(kartaUrl, ca.certPem, p.native.body), await post(kartaUrl, ca.certPem, p.lua.body)];
      if (JSON.stringify(strip(n)) !== JSON.stringify(strip(l))) throw new Error(`${p.op}: the built-in and the Lua twin answer differently: ${n} / ${l}`);
    }
    console.log(`\n# karta serve: load average at start ${loadavg().map((l) => l.toFixed(2)).join(" ")}; PyTorchJob body ${health.body.length} bytes, Deployment body ${pairs[0]!.native.body.length} bytes`);
    // Warm up both servers.
    await load(baseUrl, health.body, { connections: 10, duration: 2, pid: base.pid! });
    for (const c of cases) await load(kartaUrl, c.body, { connections: 10, duration: 2, pid: karta.pid! });

    const rounds = 3;
    const runs = new Map<string, Load[]>();
    const note = (name: string, l: Load): void => void runs.set(name, [...(runs.get(name) ?? []), l]);
    const baseName = "do-nothing webhook";
    for (let i = 0; i < rounds; i++) {
      note(baseName, await load(baseUrl, health.body, { connections: 10, duration: 5, pid: base.pid! }));
      for (const c of cases) {
        const k = await load(kartaUrl, c.body, { connections: 10, duration: 5, pid: karta.pid! });
        if (k.errors + k.non2xx > 0) throw new Error(`${c.name}: ${k.errors} errors, ${k.non2xx} non-2xx answers`);
        note(c.name, k);
      }
    }
    const rps = (name: string): number[] => runs.get(name)!.map((r) => r.rps);
    const ratios = (a: string, b: string): number[] => rps(a).map((x, i) => x / rps(b)[i]!);
    const row = (name: string, against: string, target: number, extra: string[] = []): string[] => {
      const r = ratios(name, against);
      const mid = median(r);
      return [name, `${Math.round(median(rps(name)))}/s`, `${Math.round(median(rps(against)))}/s`, r.map((x) => `${x.toFixed(2)}x`).join(", "), `${mid.toFixed(2)}x (${mid >= target ? "met" : "NOT met"})`, `${Math.round(median(runs.get(name)!.map((l) => l.cpuUs)))} / ${Math.round(median(runs.get(against)!.map((l) => l.cpuUs)))} µs`, ...extra];
    };
    const p99 = median(runs.get(health.name)!.map((l) => l.p99));
    // The do-nothing webhook's own tail in the same rounds: what the machine allows at that load.
    const baseP99 = runs.get(baseName)!.map((l) => l.p99);
    table(
      "karta serve vs a do-nothing webhook (reads the body, JSON.parse, a fixed answer), 10 connections, 5 s per run, 3 alternating rounds (target ≥ 0.8x and p99 < 5 ms, on the medians)",
      ["request", "karta rps (median)", "do-nothing rps (median)", "ratio per round", "median ratio", "server CPU per request, karta / do-nothing", "karta p99 (median), target < 5 ms"],
      [row(health.name, baseName, 0.8, [`${p99} ms (${p99 < 5 ? "met" : "NOT met"}); rounds ${runs.get(health.name)!.map((l) => l.p99).join(", ")} ms; do-nothing ${baseP99.join(", ")} ms`])],
    );
    table(
      "Lua operations vs native ones: the same Deployment, answered by the built-in interpreter or by a customization (target ≥ 0.5x, on the median)",
      ["request", "Lua rps (median)", "native rps (median)", "ratio per round", "median ratio", "server CPU per request, Lua / native"],
      pairs.map((p) => row(p.lua.name, p.native.name, 0.5)),
    );
    const evaluated = (await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).split("\n").filter((l) => l.startsWith("karta_webhook_evaluations_total"));
    console.log(`\nwhere karta serve evaluated the requests so far: ${evaluated.map((l) => l.replace("karta_webhook_evaluations_total", "")).join(", ")}`);

    const body = pairs[0]!.lua.body;
    // The highest RSS over the first 10,000 requests and over the last 10,000 of 100,000: windows of as
    // many requests, so of as many collections.
    const tenThousand = () => load(kartaUrl, body, { connections: 10, amount: 10_000, pid: karta.pid! });
    const first = await peakRssDuring(karta.pid!, tenThousand);
    const middle = await load(kartaUrl, body, { connections: 10, amount: 80_000, pid: karta.pid! });
    const last = await peakRssDuring(karta.pid!, tenThousand);
    const growth = last.peak / first.peak - 1;
    table("RSS of karta serve (every serving process and its workers), InterpretReplica through Lua, the highest of samples every 50 ms (target: within 10%)", ["requests", "answered so far", "peak RSS", "change"], [
      ["1–10,000", String(first.result.requests), `${first.peak.toFixed(1)} MiB`, ""],
      ["90,001–100,000", String(first.result.requests + middle.requests + last.result.requests), `${last.peak.toFixed(1)} MiB`, `${(growth * 100).toFixed(1)}% (${Math.abs(growth) <= 0.1 ? "met" : "NOT met"})`],
    ]);
    console.log(`\nload average at end ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  } finally {
    for (const c of children) c.kill("SIGTERM");
    closeSync(logFd);
    rmSync(dir, { recursive: true, force: true });
  }
}
