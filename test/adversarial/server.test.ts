/**
 * The adversarial corpus through `karta serve`: the server runs as a child process under a heap cap,
 * hostile requests arrive over real HTTPS, and each gets a bounded answer (an error response with our
 * message), while the process stays alive, keeps answering, stays under the memory bound and shuts down
 * cleanly on SIGTERM.
 */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { kartaBin, repoRoot } from "../support/conformance.js";
import { contextBody, eventually, request, RUNAWAY } from "../server/helpers.js";

const CASES = path.join(repoRoot, "test", "adversarial", "cases");
const HEAP_MB = 512;
const RSS_KB = 1_200_000;
/** Every answer within this, the server's --request-timeout included: a hang runs far past it. */
const ANSWER_MS = 45_000;
const ENGINE_WORDS = /Maximum call stack size exceeded|internal error|RangeError|TypeError|\n\s+at .*\(.*:\d+:\d+\)|out of memory|is of the type number/;

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "shop" }, spec: { replicas: 2, template: { spec: { containers: [{ name: "c", image: "nginx" }] } } } };

describe("karta serve under hostile requests", () => {
  let dir: string;
  let child: ChildProcess;
  let url: string;
  let ca: string;
  let metrics: string;
  let stderr = "";

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "karta-adv-serve-"));
    writeFileSync(path.join(dir, "runaway.yaml"), RUNAWAY);
    // The corpus's Karta, for a kind of its own (Kartas leave Kubernetes' own kinds to the built-in interpreters).
    const karta = readFileSync(path.join(CASES, "karta-shared-structure.yaml"), "utf8")
      .replace("{group: apps, version: v1, kind: Deployment}", "{group: example.io, version: v1, kind: Widget}")
      .replace("run.ai/karta-group: apps", "run.ai/karta-group: example.io")
      .replace("run.ai/karta-kind: Deployment", "run.ai/karta-kind: Widget");
    writeFileSync(path.join(dir, "karta.yaml"), karta);
    const [port, metricsPort] = [await freePort(), await freePort()];
    url = `https://127.0.0.1:${port}/interpret`;
    metrics = `http://127.0.0.1:${metricsPort}`;
    child = spawn(
      process.execPath,
      [
        `--max-old-space-size=${HEAP_MB}`,
        kartaBin,
        "serve",
        "--cert-dir", path.join(dir, "certs"),
        "--bind-address", "127.0.0.1",
        "--secure-port", String(port),
        "--metrics-bind-address", `127.0.0.1:${metricsPort}`,
        "--workers", "2",
        // Generous: the step budget, not the deadline, must stop the shared-structure case on a loaded
        // machine (20,000,000 jq steps took over 10 s under a load average of 10 on 2 cores).
        "--request-timeout", "30s",
        // Small enough that an oversized body is read whole before the answer (a 3 MiB one is reset).
        "--max-request-bytes", "768KiB",
        "--definitions", path.join(dir, "karta.yaml"),
        "--customizations", path.join(CASES, "lua-deep-result.yaml"),
        "--customizations", path.join(dir, "runaway.yaml"),
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    child.stderr!.on("data", (d: Buffer) => void (stderr += d.toString()));
    await eventually(async () => (await fetch(`${metrics}/readyz`).catch(() => undefined))?.status === 200, 60_000, "karta serve ready");
    ca = readFileSync(path.join(dir, "certs", "ca.crt"), "utf8");
  });

  after(async () => {
    if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  /** Sends a body; asserts the answer came in time and speaks our words; returns it. */
  async function send(label: string, body: string | Buffer, query = ""): Promise<{ status: number; response: { uid?: string; successful?: boolean; status?: { code?: number; message?: string } } }> {
    const t = Date.now();
    const r = await request(url + query, ca, body);
    assert.ok(Date.now() - t < ANSWER_MS, `${label}: answered after ${Date.now() - t} ms`);
    assert.doesNotMatch(r.body, ENGINE_WORDS, `${label}: engine words reached the client`);
    const parsed = JSON.parse(r.body) as { response: { uid?: string; successful?: boolean; status?: { code?: number; message?: string } } };
    return { status: r.status, response: parsed.response };
  }

  test("each hostile request gets a bounded error answer", async () => {
    const deep = await send("body nested 100,000 deep", '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000));
    // As Karmada's server answers a body it cannot read: HTTP 200, code 400 (its client drops non-2xx bodies).
    assert.equal(deep.status, 200);
    assert.equal(deep.response.successful, false);
    assert.equal(deep.response.status!.code, 400);

    const nested = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":${'{"a":'.repeat(5000)}1${"}".repeat(5000)}}`;
    const deepObject = await send("object nested 5,000 deep", contextBody("deep-object", "InterpretReplica", {}).replace('"object":{}', `"object":${nested}`));
    assert.deepEqual([deepObject.status, deepObject.response.status!.code], [200, 400]);
    assert.equal(deepObject.response.uid, "deep-object");
    assert.match(deepObject.response.status!.message!, /nested deeper than 256 levels/);

    const big = await send("body over --max-request-bytes", Buffer.alloc(800 << 10, 0x20));
    // Refused before it is read (no uid to answer with): HTTP 413 (docs/decisions.md).
    assert.deepEqual([big.status, big.response.status!.code], [413, 413]);

    const notUtf8 = await send("invalid UTF-8", Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    assert.deepEqual([notUtf8.status, notUtf8.response.status!.code], [200, 400]);

    const inf = await send("replicas 1e400", contextBody("inf", "InterpretReplica", deployment).replace('"replicas":2', '"replicas":1e400'));
    assert.equal(inf.response.successful, false);
    assert.equal(inf.response.uid, "inf");

    const shared = await send("a Karta's replicasPath over shared structure", contextBody("shared", "InterpretReplica", { ...deployment, apiVersion: "example.io/v1", kind: "Widget" }));
    assert.equal(shared.response.successful, false);
    assert.match(shared.response.status!.message!, /budget of 20000000 steps/);

    const luaDeep = await send("a Lua result nested 5,000 deep", contextBody("lua-deep", "Retain", deployment, { observedObject: deployment }));
    assert.equal(luaDeep.response.successful, false);
    assert.match(luaDeep.response.status!.message!, /nested deeper than 256 levels/);

    // Karmada's own ?timeout= shortens this one's deadline: it is stopped there, not at --request-timeout.
    const runaway = await send("a Lua script stuck inside string.find", contextBody("runaway", "InterpretHealth", { apiVersion: "example.io/v1", kind: "Runaway", metadata: { name: "r" } }), "?timeout=5s");
    assert.equal(runaway.response.successful, false);
    assert.match(runaway.response.status!.message!, /deadline/);
  });

  test("afterwards the server still answers, within its memory bound, and stops cleanly on SIGTERM", async () => {
    const ok = await send("a plain request", contextBody("ok", "InterpretHealth", { ...deployment, status: { replicas: 2, updatedReplicas: 2, availableReplicas: 2, observedGeneration: 1 }, metadata: { ...deployment.metadata, generation: 1 } }));
    assert.equal(ok.status, 200);
    assert.equal(ok.response.successful, true);
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
    assert.ok(hwm < RSS_KB, `peak resident set ${hwm} kB`);
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    assert.equal(await exited, 0, stderr.slice(-2000));
    assert.doesNotMatch(stderr, ENGINE_WORDS);
  });
});
