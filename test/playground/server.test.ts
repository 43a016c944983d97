/** `karta playground`'s server: loopback only, static files of one folder, GET/HEAD, clear usage errors. */
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { builtPlaygroundDir, runPlayground, startPlaygroundServer, type PlaygroundServer } from "../../src/cli/playground.js";
import type { CliIO } from "../../src/cli/io.js";

/** A raw request (fetch would normalise the path before sending it). */
function get(url: string, rawPath: string, method = "GET"): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: rawPath, method }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

function io(): CliIO & { out: string; err: string } {
  const o = {
    out: "",
    err: "",
    stdout(t: string) {
      o.out += t;
    },
    stderr(t: string) {
      o.err += t;
    },
    readStdin: () => Promise.resolve(""),
    readFile: () => "",
    readChunks: () => [],
  };
  return o;
}

describe("playground server", () => {
  let dir: string;
  let root: string;
  let server: PlaygroundServer;
  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "karta-playground-"));
    root = path.join(dir, "site");
    mkdirSync(path.join(root, "chunks"), { recursive: true });
    writeFileSync(path.join(root, "index.html"), "<!doctype html><title>t</title>");
    writeFileSync(path.join(root, "app.js"), "export {};");
    writeFileSync(path.join(root, "glue.wasm"), "\0asm");
    writeFileSync(path.join(dir, "secret.txt"), "secret");
    symlinkSync(path.join(dir, "secret.txt"), path.join(root, "link.txt"));
    server = await startPlaygroundServer({ root, port: 0 });
  });
  after(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("serves the folder's files with their types and a strict content security policy", async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await get(server.url, "/");
    assert.equal(index.status, 200);
    assert.equal(index.headers["content-type"], "text/html; charset=utf-8");
    assert.match(String(index.headers["content-security-policy"]), /default-src 'self'; script-src 'self' 'wasm-unsafe-eval'/);
    assert.equal(index.headers["x-content-type-options"], "nosniff");
    assert.equal((await get(server.url, "/app.js?x=1")).headers["content-type"], "text/javascript; charset=utf-8");
    assert.equal((await get(server.url, "/glue.wasm")).headers["content-type"], "application/wasm");
    const head = await get(server.url, "/app.js", "HEAD");
    assert.equal(head.status, 200);
    assert.equal(head.body, "");
  });

  test("nothing outside the folder, no listings, only GET and HEAD", async () => {
    for (const p of ["/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt", "/link.txt", "/chunks/", "/chunks", "/missing.js"]) {
      const r = await get(server.url, p);
      assert.equal(r.status, 404, p);
      assert.doesNotMatch(r.body, /secret/);
    }
    const post = await get(server.url, "/", "POST");
    assert.equal(post.status, 405);
    assert.equal(post.headers["allow"], "GET, HEAD");
    assert.equal((await get(server.url, "/%E0%A4%A")).status, 400);
  });

  test("listens only on loopback addresses", async () => {
    await assert.rejects(startPlaygroundServer({ root, port: 0, address: "0.0.0.0" }), /loopback/);
  });
});

describe("karta playground", () => {
  test("--help shows an example; bad flags are usage errors", async () => {
    const h = io();
    assert.equal(await runPlayground(["--help"], h), 0);
    assert.match(h.out, /Example:\n {2}karta playground --port 8088/);
    for (const [args, message] of [
      [["--port", "http"], /^karta playground: invalid value 'http' for --port: expected an integer from 0 to 65535\n/],
      [["--port", "70000"], /invalid value '70000' for --port/],
      [["--address", "0.0.0.0"], /invalid value '0\.0\.0\.0' for --address: expected a loopback address/],
      [["--prot", "1"], /unknown flag: --prot \(did you mean --port\?\)/],
      [["extra"], /unexpected argument 'extra'/],
    ] as const) {
      const o = io();
      assert.equal(await runPlayground([...args], o), 2, args.join(" "));
      assert.match(o.err, message);
    }
  });

  test("serves the built page until SIGTERM", async (t) => {
    const built = builtPlaygroundDir();
    const o = io();
    const signals = new EventEmitter();
    if (!built) {
      // Without `npm run build` the command says how to get the page.
      assert.equal(await runPlayground(["--port", "0"], o, signals), 1);
      assert.match(o.err, /run 'npm run build' first/);
      t.diagnostic("dist/playground-page is not built: checked the message only");
      return;
    }
    const done = runPlayground(["--port", "0"], o, signals);
    while (!/at (http:\S+)/.test(o.out)) await new Promise((r) => setTimeout(r, 20));
    const url = /at (http:\S+)/.exec(o.out)![1]!;
    const page = await get(url, "/");
    assert.equal(page.status, 200);
    assert.match(page.body, /<title>Karta playground<\/title>/);
    assert.equal((await get(url, "/app.js", "HEAD")).status, 200);
    signals.emit("SIGTERM");
    assert.equal(await done, 0);
    assert.match(o.out, /stopped/);
    await assert.rejects(get(url, "/"));
  });
});
