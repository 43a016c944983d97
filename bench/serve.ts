/**
 * `karta serve` under load (autocannon as a library, over HTTPS on loopback), against a Node.js
 * `https` hello-world server measured in the same run. Both servers run as child processes, so the
 * load generator does not share their event loop; both get the same client, certificate, body and
 * keep-alive connections, and runs alternate (hello, karta, hello, karta, ...) so that the shared
 * machine's load falls on both alike. Each run also reports the server process's CPU time per request
 * (user + system, all its threads, from /proc), which moves less with the machine's load than rates.
 *
 * 1. Requests per second, 10 connections, 3 rounds: InterpretHealth on the bundled PyTorchJob (Karta layer),
 *    InterpretComponent on it (Karta layer; the operation Karmada asks of a multi-template kind with
 *    MultiplePodTemplatesScheduling on), InterpretReplica on it through a user customization (Lua:
 *    no Karta or built-in interpreter gives a PyTorchJob a single replica count), InterpretReplica on
 *    the bundled Deployment (built-in). Target: ≥ 0.5x the hello-world server.
 * 2. Latency p50/p99 with 2 workers, 2 connections (one request in flight per worker). Target p99 < 5 ms.
 * 3. RSS of the server after 10,000 requests and after 100,000. Target: within 10%.
 *
 * For context, each request's evaluation alone (decode, interpret, encode) is timed in this process
 * on one thread: twice that rate is what 2 workers can do at most, whatever the HTTP side costs. And
 * a third server, the "JSON floor", runs in the same rounds: it only parses the body and answers the
 * uid, which is what any webhook must do before interpreting anything.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync, mkdirSync, mkdtempSync, rmSync, openSync, closeSync } from "node:fs";
import https from "node:https";
import net from "node:net";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { parse } from "yaml";
import { createCA, issueServing } from "../src/server/certs.js";
import { buildFramework } from "../src/server/config.js";
import { contextResponse, decodeContext } from "../src/server/context.js";
import { answer } from "../src/server/evaluate.js";
import { repoRoot } from "./harness.js";

const RIC = `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: pytorchjob-replicas
spec:
  target:
    apiVersion: kubeflow.org/v1
    kind: PyTorchJob
  customizations:
    replicaResource:
      luaScript: |
        local kube = require("kube")
        function GetReplicas(obj)
          local replicas = 0
          for _, spec in pairs(obj.spec.pytorchReplicaSpecs) do
            replicas = replicas + (spec.replicas or 1)
          end
          local requires = kube.accuratePodRequirements(obj.spec.pytorchReplicaSpecs.Worker.template)
          return replicas, requires
        end
`;

const HELLO = `
const https = require("node:https");
const fs = require("node:fs");
const [cert, key, port] = process.argv.slice(1);
const body = JSON.stringify({ hello: "world" });
https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
  req.on("data", () => {});
  req.on("end", () => { res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) }); res.end(body); });
}).listen(Number(port), "127.0.0.1", () => console.log("listening"));
`;

// A second reference, not the target's baseline: a server that only reads the body as JSON and
// answers a ResourceInterpreterContext with its uid. What any webhook must do costs this much.
const JSON_FLOOR = `
const https = require("node:https");
const fs = require("node:fs");
const [cert, key, port] = process.argv.slice(1);
https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const request = JSON.parse(Buffer.concat(chunks).toString("utf8")).request;
    const body = JSON.stringify({ apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: { uid: request.uid, successful: true } });
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

/** CPU time (user + system, every thread) a process has used, ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
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
    const helloPort = await freePort();
    const hello = spawn(process.execPath, ["-e", HELLO, cert, key, String(helloPort)], { stdio: "ignore" });
    children.push(hello);
    const floorPort = await freePort();
    const floor = spawn(process.execPath, ["-e", JSON_FLOOR, cert, key, String(floorPort)], { stdio: "ignore" });
    children.push(floor);
    const floorUrl = `https://127.0.0.1:${floorPort}/`;
    const port = await freePort();
    const metricsPort = await freePort();
    // Logs at info (one line per request), as deployed; to a file, so that no pipe slows the server.
    const karta = spawn(
      process.execPath,
      [path.join(repoRoot, "bin", "karta.js"), "serve", "--tls-cert-file", cert, "--tls-private-key-file", key, "--secure-port", String(port), "--bind-address", "127.0.0.1", "--metrics-bind-address", `127.0.0.1:${metricsPort}`, "--workers", "2", "--customizations", path.join(dir, "config", "ric.yaml"), "--feature-gates", "MultiplePodTemplatesScheduling=true"],
      { stdio: ["ignore", logFd, logFd] },
    );
    children.push(karta);
    const helloUrl = `https://127.0.0.1:${helloPort}/`;
    const kartaUrl = `https://127.0.0.1:${port}/interpret`;
    await waitFor(async () => (await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status === 200, 120_000, "karta serve");
    const pytorchjob = parse(readFileSync(path.join(repoRoot, "examples", "pytorchjob.yaml"), "utf8")) as Record<string, unknown>;
    const deployment = parse(readFileSync(path.join(repoRoot, "examples", "deployment.yaml"), "utf8")) as Record<string, unknown>;
    const cases: { name: string; body: string }[] = [
      { name: "InterpretHealth, PyTorchJob (Karta)", body: contextBody("InterpretHealth", pytorchjob) },
      { name: "InterpretComponent, PyTorchJob (Karta)", body: contextBody("InterpretComponent", pytorchjob) },
      { name: "InterpretReplica, PyTorchJob (Lua customization)", body: contextBody("InterpretReplica", pytorchjob) },
      { name: "InterpretReplica, Deployment (built-in)", body: contextBody("InterpretReplica", deployment) },
    ];
    // Check each answer once: a benchmark of failures would measure nothing.
    for (const c of cases) {
      const answer = await post(kartaUrl, ca.certPem, c.body);
      if (!/"successful":true/.test(answer)) throw new Error(`${c.name}: ${answer}`);
    }
    console.log(`\n# karta serve: load average at start ${loadavg().map((l) => l.toFixed(2)).join(" ")}; PyTorchJob body ${cases[0]!.body.length} bytes`);
    // Warm up both servers.
    await load(helloUrl, cases[0]!.body, { connections: 10, duration: 2, pid: hello.pid! });
    await load(floorUrl, cases[0]!.body, { connections: 10, duration: 2, pid: floor.pid! });
    for (const c of cases) await load(kartaUrl, c.body, { connections: 10, duration: 2, pid: karta.pid! });

    // The evaluation alone, one thread, in this process (same configuration as the server).
    const built = await buildFramework({ definitions: [], customizations: [{ file: "ric.yaml", text: RIC }], webhookConfigurations: [], multiplePodTemplatesScheduling: true });
    const alone = new Map<string, number>();
    for (const c of cases) {
      let n = 0;
      const t0 = performance.now();
      while (performance.now() - t0 < 1500) {
        const d = decodeContext(c.body);
        if (!d.ok) throw new Error(d.message);
        contextResponse((await answer(built.framework, d.request)).response);
        n++;
      }
      alone.set(c.name, (n * 1000) / (performance.now() - t0));
    }
    built.close();

    const rounds = 3;
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const rows: string[][] = [];
    for (const c of cases) {
      const ratios: number[] = [];
      const runs: { hello: Load; karta: Load; floor: Load }[] = [];
      for (let i = 0; i < rounds; i++) {
        const h = await load(helloUrl, c.body, { connections: 10, duration: 5, pid: hello.pid! });
        const f = await load(floorUrl, c.body, { connections: 10, duration: 5, pid: floor.pid! });
        const k = await load(kartaUrl, c.body, { connections: 10, duration: 5, pid: karta.pid! });
        if (k.errors + k.non2xx > 0) throw new Error(`${c.name}: ${k.errors} errors, ${k.non2xx} non-2xx answers`);
        ratios.push(k.rps / h.rps);
        runs.push({ hello: h, karta: k, floor: f });
      }
      const mid = median(ratios);
      const ceiling = 2 * alone.get(c.name)!;
      const kartaRps = median(runs.map((r) => r.karta.rps));
      rows.push([
        c.name,
        `${Math.round(kartaRps)}/s`,
        `${Math.round(median(runs.map((r) => r.hello.rps)))}/s`,
        ratios.map((r) => `${r.toFixed(2)}x`).join(", "),
        `${mid.toFixed(2)}x (${mid >= 0.5 ? "met" : "NOT met"})`,
        `${Math.round(median(runs.map((r) => r.karta.cpuUs)))} / ${Math.round(median(runs.map((r) => r.hello.cpuUs)))} µs`,
        `${median(runs.map((r) => r.floor.rps / r.hello.rps)).toFixed(2)}x`,
        `${Math.round(ceiling)}/s (${(kartaRps / ceiling).toFixed(2)}x of it)`,
      ]);
    }
    table(
      "karta serve vs a Node.js https hello-world, 10 connections, 5 s per run, 3 alternating rounds (target ≥ 0.5x, on the median)",
      ["request", "karta rps (median)", "hello-world rps (median)", "ratio per round", "median ratio", "server CPU per request, karta / hello", "JSON floor / hello", "evaluation alone x 2 workers"],
      rows,
    );
    const evaluated = (await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).split("\n").filter((l) => l.startsWith("karta_webhook_evaluations_total"));
    console.log(`\nwhere karta serve evaluated the requests so far: ${evaluated.map((l) => l.replace("karta_webhook_evaluations_total", "")).join(", ")}`);

    const lat: string[][] = [];
    for (const c of cases) {
      const h = await load(helloUrl, c.body, { connections: 2, duration: 5, pid: hello.pid! });
      const k = await load(kartaUrl, c.body, { connections: 2, duration: 5, pid: karta.pid! });
      lat.push([c.name, `${k.p50} ms`, `${k.p99} ms`, `${h.p50} ms / ${h.p99} ms`, k.p99 < 5 ? "met" : "NOT met"]);
    }
    table("latency with 2 workers, 2 connections (one request in flight per worker), 5 s (target p99 < 5 ms)", ["request", "karta p50", "karta p99", "hello-world p50 / p99", "target"], lat);

    const body = cases[2]!.body;
    const first = await load(kartaUrl, body, { connections: 10, amount: 10_000, pid: karta.pid! });
    const rss10k = rssMiB(karta.pid!);
    const rest = await load(kartaUrl, body, { connections: 10, amount: 90_000, pid: karta.pid! });
    const rss100k = rssMiB(karta.pid!);
    const growth = rss100k / rss10k - 1;
    table("RSS of karta serve (main thread and 2 workers), InterpretReplica through Lua (target: within 10%)", ["after", "requests answered", "RSS", "change"], [
      ["10,000 requests", String(first.requests), `${rss10k.toFixed(1)} MiB`, ""],
      ["100,000 requests", String(first.requests + rest.requests), `${rss100k.toFixed(1)} MiB`, `${(growth * 100).toFixed(1)}% (${Math.abs(growth) <= 0.1 ? "met" : "NOT met"})`],
    ]);
    console.log(`\nload average at end ${loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  } finally {
    for (const c of children) c.kill("SIGTERM");
    closeSync(logFd);
    rmSync(dir, { recursive: true, force: true });
  }
}
