/**
 * `karta controller`'s pod admission webhook under load over HTTPS on loopback, against a TLS hello-world
 * server answering the same AdmissionReview, measured in the same run (bench/admission-server.ts; each
 * server a process of its own, rounds alternating so the shared machine's load falls on both alike).
 * The webhook's cache holds 1,000 LeaderWorkerSets with 50 pods each (50,000 pods, 11,000 StatefulSets);
 * every request is a new worker pod whose owner chain has four links (StatefulSet, leader pod, leaders'
 * StatefulSet, LeaderWorkerSet) and is answered with its podGroupName patch. Latency is timed per request
 * by the client (keep-alive connections, as the API server keeps them). Target: p99 < 10 ms. Both servers
 * run with the Node.js flags the Deployment sets: a 32 MiB young generation, so that the garbage of each
 * request is collected without promoting it into the large heap the caches make.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createCA, issueServing } from "../src/server/certs.js";
import { workerReview, GROUPS } from "./admission-objects.js";
import { median, nodeOptions } from "./harness.js";

const ROOTS = Number(process.env["KARTA_BENCH_ADMISSION_ROOTS"] ?? 1000);
const REQUESTS = 4000;
const CONNECTIONS = 2;
const ROUNDS = 3;

/** The Node.js options of the servers: the deployed controller's (NODE_OPTIONS), or KARTA_BENCH_ADMISSION_NODE_ARGS. */
const NODE_FLAGS = nodeOptions("KARTA_BENCH_ADMISSION_NODE_ARGS");

function start(args: string[]): Promise<{ child: ChildProcess; port: number; info: string }> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "admission-server.js");
  const child = spawn(process.execPath, [...NODE_FLAGS, script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (b: Buffer) => {
      out += b.toString();
      const m = /^port (\d+)(.*)$/m.exec(out);
      if (m) resolve({ child, port: Number(m[1]), info: m[2]!.trim() });
    });
    child.on("exit", (code) => reject(new Error(`${args[0]} server exited with ${code}`)));
  });
}

interface Run {
  p50: number;
  p99: number;
  max: number;
  rps: number;
  patched: number;
}

async function load(port: number, ca: string, requests: number, offset: number): Promise<Run> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: CONNECTIONS, ca });
  const times: number[] = [];
  let patched = 0;
  let next = 0;
  const one = (n: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const body = workerReview((n * 7919) % ROOTS, n % GROUPS, n);
      const started = performance.now();
      const req = https.request({ host: "127.0.0.1", port, path: "/mutate-v1-pod?timeout=5s", method: "POST", agent, headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } }, (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => {
          times.push(performance.now() - started);
          if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}: ${text}`));
          if (text.includes('"patch"')) patched++;
          resolve();
        });
      });
      req.on("error", reject);
      req.end(body);
    });
  const began = performance.now();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < requests) await one(offset + next++);
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  agent.destroy();
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!;
  return { p50: q(0.5), p99: q(0.99), max: times[times.length - 1]!, rps: requests / seconds, patched };
}

export async function benchAdmission(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-bench-admission-"));
  const ca = createCA();
  const serving = issueServing(ca, ["127.0.0.1", "localhost"]);
  const cert = path.join(dir, "tls.crt");
  const key = path.join(dir, "tls.key");
  writeFileSync(cert, serving.certPem);
  writeFileSync(key, serving.keyPem);
  const started = performance.now();
  const karta = await start(["karta", cert, key, String(ROOTS)]);
  const cacheSeconds = (performance.now() - started) / 1000;
  const hello = await start(["hello", cert, key]);
  try {
    // Warm-up: TLS sessions, JIT.
    await load(hello.port, ca.certPem, 500, 0);
    await load(karta.port, ca.certPem, 500, 0);
    const runs: { hello: Run[]; karta: Run[] } = { hello: [], karta: [] };
    for (let r = 0; r < ROUNDS; r++) {
      runs.hello.push(await load(hello.port, ca.certPem, REQUESTS, r * REQUESTS));
      runs.karta.push(await load(karta.port, ca.certPem, REQUESTS, r * REQUESTS));
    }
    const ms = (x: number) => `${x.toFixed(2)} ms`;
    const row = (name: string, rs: Run[]) => [name, ms(median(rs.map((x) => x.p50))), ms(median(rs.map((x) => x.p99))), ms(Math.max(...rs.map((x) => x.max))), median(rs.map((x) => x.rps)).toFixed(0)];
    const k = row("karta webhook (4-link owner chain, patch)", runs.karta);
    const h = row("TLS hello-world (parse, allow)", runs.hello);
    const p99 = median(runs.karta.map((x) => x.p99));
    const ratio = median(runs.karta.map((x) => x.p99)) / median(runs.hello.map((x) => x.p99));
    console.log(`\n## admission webhook over HTTPS: ${karta.info} in cache (built in ${cacheSeconds.toFixed(1)} s); node ${NODE_FLAGS.join(" ")}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${REQUESTS} requests each, medians of the rounds`);
    const header = ["server", "p50", "p99", "max", "requests/s"];
    const rows = [k, h];
    const widths = header.map((x, i) => Math.max(x.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ") + " |";
    console.log(line(header));
    console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
    for (const r of rows) console.log(line(r));
    const patched = runs.karta.reduce((a, x) => a + x.patched, 0);
    console.log(`p99 ratio karta / hello-world: ${ratio.toFixed(2)}x; target p99 < 10 ms: ${p99 < 10 ? "met" : "NOT met"}; responses with a patch: ${patched} of ${ROUNDS * REQUESTS}`);
  } finally {
    karta.child.kill();
    hello.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
