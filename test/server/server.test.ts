/**
 * `karta serve` behaviours over real HTTPS on loopback: the body limit, malformed bodies, hot reload
 * (good change, bad change, removal, ConfigMap-style symlink swap), certificate rotation, and a
 * runaway Lua script in one request while other requests are answered on time.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from "node:fs";
import https from "node:https";
import net from "node:net";
import tls from "node:tls";
import path from "node:path";
import type { RunningServer } from "../../src/server/server.js";
import { readKeyPair, reloadCertificates } from "../../src/server/tls.js";
import { rawGet } from "../support/raw-http.js";
import { contextBody, eventually, metricsText, request, RUNAWAY, startTestServer, tempDir, writeCerts, type Response } from "./helpers.js";

const DEPLOYMENT = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "default" },
  spec: { replicas: 3, template: { spec: { containers: [{ name: "c", image: "nginx" }] } } },
};

function ric(kind: string, healthy: string, name = kind.toLowerCase()): string {
  return `apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: ${name}
spec:
  target:
    apiVersion: example.io/v1
    kind: ${kind}
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(obj)
          return ${healthy}
        end
`;
}

const obj = (kind: string, name = "x"): Record<string, unknown> => ({ apiVersion: "example.io/v1", kind, metadata: { name, namespace: "default" } });

describe("karta serve: requests", () => {
  let server: RunningServer;
  let url: string;
  let ca: string;
  let dir: string;
  before(async () => {
    dir = tempDir();
    writeFileSync(path.join(dir, "runaway.yaml"), RUNAWAY);
    writeFileSync(path.join(dir, "spinner.yaml"), ric("Spinner", "true").replace("return true", "while true do end"));
    writeFileSync(path.join(dir, "healthy.yaml"), ric("Healthy", "true"));
    const s = await startTestServer({ customizations: [path.join(dir, "runaway.yaml"), path.join(dir, "spinner.yaml"), path.join(dir, "healthy.yaml")], maxRequestBytes: 64 * 1024 });
    server = s.server;
    url = s.url;
    ca = s.caPem;
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("response.uid equals the request's; an unchanged object gets no patch", async () => {
    const r = await request(url, ca, contextBody("uid-1", "ReviseReplica", DEPLOYMENT, { replicas: 3 }));
    assert.equal(r.status, 200);
    const body = r.json() as Response & { response: { patch?: string } };
    assert.equal(body.response.uid, "uid-1");
    assert.equal(body.response.successful, true);
    assert.equal(body.response.patch, undefined);
    const changed = (await request(url, ca, contextBody("uid-2", "ReviseReplica", DEPLOYMENT, { replicas: 5 }))).json() as { response: { patch: string; patchType: string } };
    assert.equal(changed.response.patchType, "JSONPatch");
    assert.deepEqual(JSON.parse(Buffer.from(changed.response.patch, "base64").toString()), [{ op: "replace", path: "/spec/replicas", value: 5 }]);
  });

  test("a kind no layer answers: successful false, status.code 404, the kind, operation and layer named", async () => {
    const r = (await request(url, ca, contextBody("uid-3", "InterpretReplica", obj("Unknown")))).json() as Response;
    assert.equal(r.response.uid, "uid-3");
    assert.equal(r.response.successful, false);
    assert.equal(r.response.status?.code, 404);
    assert.match(r.response.status!.message, /^example\.io\/v1, Kind=Unknown InterpretReplica: framework layer: /);
  });

  test("a script in an endless loop is stopped by the VM's own limits: a failure naming the field, and a limit metric", async () => {
    const r = (await request(url, ca, contextBody("spin", "InterpretHealth", obj("Spinner")))).json() as Response;
    assert.equal(r.response.successful, false);
    assert.ok([500, 504].includes(r.response.status!.code), JSON.stringify(r));
    assert.match(r.response.status!.message, /^example\.io\/v1, Kind=Spinner InterpretHealth: declarative layer: spec\.customizations\.healthInterpretation: ((<string>:\d+: )?context deadline exceeded|lua script exceeded its instruction budget)/);
    assert.match(await metricsText(server), /karta_evaluation_limit_hits_total\{engine="lua",limit="(deadline|instructions)"\} 1/);
  });

  test("the deadline Karmada sends (?timeout=) shortens the request's", async () => {
    const started = Date.now();
    const r = (await request(`${url}?timeout=300ms`, ca, contextBody("short", "InterpretHealth", obj("Runaway")))).json() as Response;
    const ms = Date.now() - started;
    assert.equal(r.response.uid, "short");
    assert.equal(r.response.status?.code, 504);
    assert.match(r.response.status!.message, /request deadline exceeded/);
    assert.ok(ms < 900, `answered after ${ms} ms`);
    await eventually(() => server.pool.readyWorkers === 2, 30_000, "the replaced worker");
  });

  test("a body over --max-request-bytes gets 413, declared or streamed", async () => {
    const big = contextBody("big", "InterpretReplica", { ...DEPLOYMENT, metadata: { name: "web", annotations: { pad: "x".repeat(70 * 1024) } } });
    const declared = await request(url, ca, big);
    assert.equal(declared.status, 413);
    assert.equal((declared.json() as Response).response.successful, false);
    assert.equal((declared.json() as Response).response.status?.code, 413);
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = https.request(url, { method: "POST", ca, headers: { "Content-Type": "application/json", "Transfer-Encoding": "chunked" }, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      for (let i = 0; i < 80; i++) req.write("x".repeat(1024));
      req.end();
    });
    assert.equal(streamed, 413);
    assert.match(await metricsText(server), /karta_webhook_requests_total\{operation="",kind="",outcome="too_large"\} 2/);
  });

  test("a body over the limit that the client is still sending gets its 413, not a reset connection", async () => {
    // The default limit (3 MiB) and a body a little over it, with its Content-Length, as Karmada's Go
    // client sends it: an answer sent while the client still writes, and the socket closed on the unread
    // bytes, reached the client as ECONNRESET or EPIPE in about half the tries.
    // The body goes out in pieces, as a client on a real network sends it.
    const s = await startTestServer({ workers: 1 });
    try {
      const body = Buffer.from(contextBody("big", "InterpretReplica", { ...DEPLOYMENT, metadata: { name: "web", annotations: { pad: "x".repeat(3 * 1024 * 1024) } } }));
      const port = Number(new URL(s.url).port);
      for (let i = 0; i < 3; i++) {
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = tls.connect({ host: "127.0.0.1", port, ca: s.caPem }, async () => {
            socket.write(`POST /interpret HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
            for (let at = 0; at < body.length && !socket.destroyed; at += 128 * 1024) {
              socket.write(body.subarray(at, at + 128 * 1024));
              await new Promise((r) => setTimeout(r, 2));
            }
          });
          let text = "";
          socket.on("data", (c: Buffer) => (text += c.toString()));
          socket.on("end", () => resolve(text));
          socket.on("error", reject);
        });
        assert.match(answer, /^HTTP\/1\.1 413 /);
        assert.match(answer, /request body exceeds --max-request-bytes \(3145728 bytes\)/);
      }
    } finally {
      await s.server.close();
    }
  });

  test("Expect: 100-continue: a body over the limit gets 413 without 100 Continue; one within it is read", async () => {
    const ask = (length: number, body: string | undefined): Promise<{ status: number; continued: boolean }> =>
      new Promise((resolve, reject) => {
        let continued = false;
        const req = https.request(url, { method: "POST", ca, agent: false, headers: { "Content-Type": "application/json", "Content-Length": String(length), Expect: "100-continue" } }, (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0, continued }));
        });
        req.on("continue", () => {
          continued = true;
          req.end(body);
        });
        req.on("error", reject);
        req.flushHeaders();
      });
    assert.deepEqual(await ask(1024 * 1024, undefined), { status: 413, continued: false });
    const small = contextBody("small", "InterpretReplica", DEPLOYMENT);
    assert.deepEqual(await ask(Buffer.byteLength(small), small), { status: 200, continued: true });
  });

  test("request targets WHATWG's URL parser refuses: a path (///, //a:99999) is not found, a bad absolute URL is 400, on both ports", async () => {
    const port = Number(new URL(url).port);
    // As Go's net/http reads them: a target that starts with "/" is a path.
    for (const [target, status] of [["///", 404], ["//a:99999", 404], ["//%", 404], ["http://a:99999/", 400]] as const) {
      assert.match(await rawGet(tls.connect({ host: "127.0.0.1", port, ca }), target), new RegExp(`^HTTP/1\\.1 ${status} `), target);
      assert.match(await rawGet(net.connect({ host: "127.0.0.1", port: server.metricsPort }), target), new RegExp(`^HTTP/1\\.1 ${status} `), target);
    }
    assert.equal((await request(url, ca, contextBody("after", "InterpretReplica", DEPLOYMENT))).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${server.metricsPort}/healthz`)).status, 200);
    // Counted as the API server counts requests it refuses.
    const m = await metricsText(server);
    assert.match(m, /karta_webhook_requests_total\{operation="",kind="",outcome="not_found"\} 3/);
    assert.match(m, /karta_webhook_requests_total\{operation="",kind="",outcome="bad_request"\} 1/);
  });

  test("requests Node's parser refuses are answered as Node answers them and counted: malformed 400, not whole within the request timeout 408", async () => {
    const s = await startTestServer({ workers: 1, requestTimeoutMs: 200 });
    try {
      const port = Number(new URL(s.url).port);
      const exchange = (text: string): Promise<{ answer: string; ms: number }> =>
        new Promise((resolve, reject) => {
          const started = performance.now();
          const socket = tls.connect({ host: "127.0.0.1", port, ca: s.caPem }, () => socket.write(text));
          let answer = "";
          socket.on("data", (c: Buffer) => (answer += c.toString()));
          socket.on("end", () => resolve({ answer, ms: performance.now() - started }));
          socket.on("error", reject);
        });
      assert.match((await exchange("GARBAGE\r\n\r\n")).answer, /^HTTP\/1\.1 400 Bad Request\r\nConnection: close\r\n/);
      // Headers never finished: Node's requestTimeout (the deadline and 5 s) ends it, checked every second.
      const slow = await exchange("POST /interpret HTTP/1.1\r\nHost: localhost\r\n");
      assert.match(slow.answer, /^HTTP\/1\.1 408 Request Timeout\r\n/);
      assert.ok(slow.ms >= 5000 && slow.ms < 8000, `408 after ${Math.round(slow.ms)} ms`);
      const m = await metricsText(s.server);
      assert.match(m, /karta_webhook_requests_total\{operation="",kind="",outcome="bad_request"\} 1/);
      assert.match(m, /karta_webhook_requests_total\{operation="",kind="",outcome="timeout"\} 1/);
    } finally {
      await s.server.close();
    }
  });

  test("the requests metric names the kinds some layer interprets; any other kind (answered by status reflection) is \"unknown\"", async () => {
    for (let i = 0; i < 5; i++) {
      const r = (await request(url, ca, contextBody(`made-up-${i}`, "InterpretStatus", { apiVersion: "evil.example/v1", kind: `MadeUp${i}${"x".repeat(1000)}`, metadata: { name: "a" }, status: { ok: true } }))).json() as Response;
      assert.equal(r.response.successful, true);
    }
    await request(url, ca, contextBody("deploy-replica", "InterpretReplica", DEPLOYMENT));
    const text = await metricsText(server);
    assert.doesNotMatch(text, /MadeUp/);
    assert.match(text, /karta_webhook_requests_total\{operation="InterpretStatus",kind="unknown",outcome="success"\} 5/);
    assert.match(text, /karta_webhook_requests_total\{operation="InterpretReplica",kind="apps\/v1\/Deployment",outcome="success"\} [1-9]/);
  });

  test("malformed bodies get HTTP 200 with successful false, code 400 and the message, and the uid when it can be read (as Karmada's server)", async () => {
    // Karmada's client reads a response only from a 2xx: any other status loses the message.
    const refused = (r: { status: number; json(): unknown }): Response["response"] => {
      assert.equal(r.status, 200);
      const response = (r.json() as Response).response;
      assert.equal(response.successful, false);
      assert.equal(response.status!.code, 400);
      return response;
    };
    const notJson = refused(await request(url, ca, "{not json"));
    assert.equal(notJson.uid, "");
    assert.notEqual(notJson.status!.message, "");
    const wrongKind = refused(await request(url, ca, JSON.stringify({ apiVersion: "v1", kind: "Pod", request: { uid: "u-9" } })));
    assert.equal(wrongKind.uid, "u-9");
    const noObject = refused(await request(url, ca, JSON.stringify({ apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", request: { uid: "u-10", operation: "InterpretHealth" } })));
    assert.equal(noObject.uid, "u-10");
    assert.match(noObject.status!.message, /request\.object/);
    const badOp = refused(await request(url, ca, contextBody("u-11", "Explode", DEPLOYMENT)));
    assert.equal(badOp.uid, "u-11");
    assert.match(badOp.status!.message, /request\.operation/);
    // The body is not read, as in Karmada's server: no uid.
    const text = refused(await request(url, ca, contextBody("u-12", "InterpretReplica", DEPLOYMENT), { "Content-Type": "text/plain" }));
    assert.deepEqual([text.uid, text.status!.message], ["", "contentType=text/plain, expected application/json"]);
    assert.equal((await request(url.replace("/interpret", "/other"), ca, "{}")).status, 404);
    assert.equal((await request(url, ca, undefined, {}, "GET")).status, 405);
  });

  test("a ReviseReplica without a usable request.replicas is refused (code 400), never answered with a patch to 0", async () => {
    const refused = async (body: string): Promise<string> => {
      const r = await request(url, ca, body);
      const answer = r.json() as Response & { response: { patch?: string } };
      assert.equal(r.status, 200, r.body);
      assert.equal(answer.response.successful, false);
      assert.equal(answer.response.status!.code, 400);
      assert.equal(answer.response.patch, undefined);
      return answer.response.status!.message;
    };
    // Karmada's request as it would come without the count: every field but replicas.
    const revise = (extra: Record<string, unknown>): string => {
      const body = JSON.parse(contextBody("r-1", "ReviseReplica", DEPLOYMENT)) as { request: Record<string, unknown> };
      delete body.request.replicas;
      Object.assign(body.request, extra);
      return JSON.stringify(body);
    };
    assert.equal(await refused(revise({})), "request.replicas: Required value for ReviseReplica");
    assert.equal(await refused(revise({ replicas: null })), "request.replicas: Required value for ReviseReplica");
    assert.equal(await refused(revise({ replicas: -3 })), "request.replicas: Invalid value: -3: must be greater than or equal to 0");
    assert.equal(await refused(revise({ replicas: 1.5 })), "request.replicas: Invalid value: 1.5: must be an integer");
    assert.equal(await refused(revise({ replicas: "3" })), 'request.replicas: Invalid value: "3": must be an integer');
    assert.equal(await refused(revise({ replicas: 2 ** 31 })), "request.replicas: Invalid value: 2147483648: must be less than or equal to 2147483647");
    // A negative count is refused whatever the operation (Karmada never sends one).
    assert.equal(await refused(contextBody("r-2", "InterpretReplica", DEPLOYMENT, { replicas: -1 })), "request.replicas: Invalid value: -1: must be greater than or equal to 0");
    // A present value of the wrong type is an Invalid value, not a missing one.
    assert.equal(await refused(revise({ uid: 7, replicas: 2 })), "request.uid: Invalid value: 7: must be a string");
    assert.equal(await refused(revise({ uid: "", replicas: 2 })), "request.uid: Required value");
    assert.equal(await refused(revise({ operation: ["ReviseReplica"], replicas: 2 })), 'request.operation: Invalid value: ["ReviseReplica"]: must be a string');
    assert.equal(await refused(revise({ object: "web", replicas: 2 })), 'request.object: Invalid value: "web": must be an object');
    assert.equal(await refused(revise({ object: { ...DEPLOYMENT, kind: 1 }, replicas: 2 })), "request.object.kind: Invalid value: 1: must be a string");
    // 0 is a count like any other: scaling to zero stays possible.
    const zero = (await request(url, ca, revise({ replicas: 0 }))).json() as { response: { successful: boolean; patch: string } };
    assert.equal(zero.response.successful, true);
    assert.deepEqual(JSON.parse(Buffer.from(zero.response.patch, "base64").toString()), [{ op: "replace", path: "/spec/replicas", value: 0 }]);
  });

  test("a ReviseComponents needs its components, each with a name and a replica count", async () => {
    const job = { apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", metadata: { name: "p", namespace: "default" }, spec: {} };
    const message = async (components: unknown): Promise<string> => {
      const body = JSON.parse(contextBody("c-1", "ReviseComponents", job)) as { request: Record<string, unknown> };
      delete body.request.replicas;
      if (components !== undefined) body.request.components = components;
      const r = await request(url, ca, JSON.stringify(body));
      assert.equal(r.status, 200, r.body);
      assert.equal((r.json() as Response).response.status!.code, 400);
      return (r.json() as Response).response.status!.message;
    };
    assert.equal(await message(undefined), "request.components: Required value for ReviseComponents");
    assert.equal(await message([]), "request.components: Required value for ReviseComponents");
    assert.equal(await message({ master: 1 }), 'request.components: Invalid value: {"master":1}: must be a list');
    assert.equal(await message([{ name: "master", replicas: 1 }, { name: "worker" }]), "request.components[1].replicas: Required value");
    assert.equal(await message([{ name: "master", replicas: -2 }]), "request.components[0].replicas: Invalid value: -2: must be greater than or equal to 0");
    assert.equal(await message([{ name: 5, replicas: 1 }]), "request.components[0].name: Invalid value: 5: must be a string");
  });

  test("a runaway Lua script holds one worker until its deadline; other requests are answered on time", async () => {
    const started = Date.now();
    const runaway = request(url, ca, contextBody("runaway", "InterpretHealth", obj("Runaway"))).then((r) => ({ r, ms: Date.now() - started }));
    await new Promise((r) => setTimeout(r, 100));
    const others: number[] = [];
    // Built-in kinds (answered on the event loop) and a Lua customization (on the other worker).
    for (let i = 0; i < 10; i++) {
      const t = Date.now();
      const r = await request(url, ca, i % 2 === 0 ? contextBody(`ok-${i}`, "InterpretReplica", DEPLOYMENT) : contextBody(`ok-${i}`, "InterpretHealth", obj("Healthy")));
      assert.equal((r.json() as Response).response.successful, true);
      others.push(Date.now() - t);
    }
    const { r, ms } = await runaway;
    const body = r.json() as Response;
    assert.equal(body.response.uid, "runaway");
    assert.equal(body.response.successful, false);
    assert.equal(body.response.status?.code, 504);
    assert.match(body.response.status!.message, /Kind=Runaway InterpretHealth: context deadline exceeded/);
    // Lua's deadline is 1 s; the watchdog stops the worker shortly after it.
    assert.ok(ms >= 900 && ms < 5000, `runaway answered after ${ms} ms`);
    // The ten others did not wait for it (they share the second worker).
    const total = others.reduce((a, b) => a + b, 0);
    assert.ok(total < ms + 2000, `others took ${others.join(", ")} ms`);
    await eventually(() => server.pool.readyWorkers === 2, 30_000, "the replaced worker");
    const m = await metricsText(server);
    assert.match(m, /karta_worker_restarts_total\{reason="lua-deadline"\} 1/);
    // A request past its deadline is counted under its kind (a customization's).
    assert.match(m, /karta_webhook_requests_total\{operation="InterpretHealth",kind="example\.io\/v1\/Runaway",outcome="timeout"\} [1-9]/);
    assert.match(m, /karta_evaluation_limit_hits_total\{engine="lua",limit="deadline"\} [1-9]/);
  });
});

describe("karta serve: hot reload", () => {
  let server: RunningServer;
  let url: string;
  let ca: string;
  let dir: string;
  let mount: string;
  const health = async (kind: string): Promise<Response["response"]> => ((await request(url, ca, contextBody(`h-${kind}`, "InterpretHealth", obj(kind)))).json() as Response).response;
  const readyz = async (): Promise<string> => (await fetch(`http://127.0.0.1:${server.metricsPort}/readyz?verbose`)).text();
  before(async () => {
    dir = tempDir();
    mkdirSync(path.join(dir, "custom"));
    writeFileSync(path.join(dir, "custom", "alpha.yaml"), ric("Alpha", "true"));
    // A ConfigMap volume as the kubelet writes it: files reached through the ..data symlink.
    mount = path.join(dir, "mount");
    mkdirSync(path.join(mount, "..2026_01"), { recursive: true });
    writeFileSync(path.join(mount, "..2026_01", "gamma.yaml"), ric("Gamma", "true"));
    symlinkSync("..2026_01", path.join(mount, "..data"));
    symlinkSync(path.join("..data", "gamma.yaml"), path.join(mount, "gamma.yaml"));
    const s = await startTestServer({ customizations: [path.join(dir, "custom"), mount] });
    server = s.server;
    url = s.url;
    ca = s.caPem;
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a good change is swapped in", async () => {
    assert.equal((await health("Alpha")).healthy, true);
    assert.equal((await health("Beta")).successful, false);
    writeFileSync(path.join(dir, "custom", "beta.yaml"), ric("Beta", "false"));
    await eventually(async () => (await health("Beta")).successful, 20_000, "Beta to be answered");
    assert.equal((await health("Beta")).healthy, false);
    assert.match(await metricsText(server), /karta_config_reloads_total\{result="success"\} [1-9]/);
  });

  test("a bad change keeps the last good configuration and reports the error at file:line:col", async () => {
    const bad = path.join(dir, "custom", "broken.yaml");
    writeFileSync(bad, "apiVersion: config.karmada.io/v1alpha1\nkind: ResourceInterpreterCustomization\nmetadata: {name: broken\n");
    await eventually(async () => /karta_config_errors [1-9]/.test(await metricsText(server)), 20_000, "the error metric");
    const text = await readyz();
    assert.match(text, /the last change was refused/);
    assert.ok(text.includes(`${bad}:`), text);
    assert.match(text, new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:\\d+:\\d+: error: `));
    assert.match(await metricsText(server), /karta_config_reloads_total\{result="failure"\} [1-9]/);
    assert.equal((await health("Alpha")).healthy, true, "the last good configuration still answers");
    assert.equal((await fetch(`http://127.0.0.1:${server.metricsPort}/readyz`)).status, 200);
    rmSync(bad);
    await eventually(async () => /karta_config_errors 0/.test(await metricsText(server)), 20_000, "the error to clear");
  });

  test("a Lua syntax error is refused too", async () => {
    const bad = path.join(dir, "custom", "syntax.yaml");
    writeFileSync(bad, ric("Delta", "true end end"));
    await eventually(async () => (await readyz()).includes("syntax.yaml"), 20_000, "the Lua error on /readyz");
    assert.match(await readyz(), /syntax\.yaml:\d+:\d+: error: spec\.customizations\.healthInterpretation\.luaScript: /);
    assert.equal((await health("Delta")).successful, false);
    rmSync(bad);
    await eventually(async () => !(await readyz()).includes("refused"), 20_000, "the error to clear");
  });

  test("removing a file removes its kinds", async () => {
    rmSync(path.join(dir, "custom", "beta.yaml"));
    await eventually(async () => !(await health("Beta")).successful, 20_000, "Beta to be gone");
    assert.equal((await health("Alpha")).healthy, true);
  });

  test("a ConfigMap update (..data symlink swap) is picked up", async () => {
    assert.equal((await health("Gamma")).healthy, true);
    mkdirSync(path.join(mount, "..2026_02"));
    writeFileSync(path.join(mount, "..2026_02", "gamma.yaml"), ric("Gamma", "false"));
    symlinkSync("..2026_02", path.join(mount, "..data_tmp"));
    renameSync(path.join(mount, "..data_tmp"), path.join(mount, "..data"));
    rmSync(path.join(mount, "..2026_01"), { recursive: true });
    await eventually(async () => (await health("Gamma")).healthy === false, 20_000, "Gamma's new script");
  });
});

describe("karta serve: certificate rotation", () => {
  test("files that cannot be installed are reported once per change, not at every check while they stay", async () => {
    const dir = tempDir();
    const good = writeCerts(dir);
    const reports: string[] = [];
    const installed: unknown[] = [];
    const fake = { setSecureContext: (pair: unknown) => void installed.push(pair) } as unknown as https.Server;
    const first = readKeyPair(good.certFile, good.keyFile);
    assert.ok(first.ok);
    const watcher = reloadCertificates(fake, good.certFile, good.keyFile, first.pair, (r) => reports.push(r.ok ? "ok" : r.error));
    const checks = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        watcher.trigger();
        await new Promise((r) => setTimeout(r, 300));
      }
    };
    try {
      mkdirSync(path.join(dir, "other"));
      const other = writeCerts(path.join(dir, "other"));
      // A key that does not match the certificate, checked three times: one report.
      copyFileSync(other.keyFile, good.keyFile);
      await checks(3);
      assert.equal(reports.length, 1, reports.join("\n"));
      assert.match(reports[0]!, /not a usable certificate and key/);
      // Another bad change is reported; the matching pair is installed; the same bad files again are a new change.
      writeFileSync(good.keyFile, "not a key");
      await checks(2);
      copyFileSync(other.certFile, good.certFile);
      copyFileSync(other.keyFile, good.keyFile);
      await checks(2);
      writeFileSync(good.keyFile, "not a key");
      await checks(2);
      assert.deepEqual(reports.map((r) => (r === "ok" ? r : "failure")), ["failure", "failure", "ok", "failure"]);
      assert.equal(installed.length, 1);
    } finally {
      watcher.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("an emptied certificate or key, or a certificate without its key, is not installed: the current pair keeps serving", async () => {
    const dir = tempDir();
    const { server, caPem, url } = await startTestServer({ certDir: dir });
    try {
      const certFile = path.join(dir, "tls.crt");
      const keyFile = path.join(dir, "tls.key");
      const [cert, key] = [readFileSync(certFile, "utf8"), readFileSync(keyFile, "utf8")];
      let failures = 0;
      // One file made bad at a time, the other put back first: each step is one change, one report.
      const refused = async (file: string, text: string, what: string): Promise<void> => {
        if (file === certFile) writeFileSync(keyFile, key);
        else writeFileSync(certFile, cert);
        writeFileSync(file, text);
        failures++;
        await eventually(async () => new RegExp(`karta_certificate_reloads_total\\{result="failure"\\} ${failures}\\n`).test(await metricsText(server)), 20_000, `${what} to be refused`);
        // New connections still get the current certificate.
        assert.equal((await request(url, caPem, contextBody(`after ${what}`, "InterpretReplica", DEPLOYMENT))).status, 200, what);
      };
      await refused(certFile, "", "an empty certificate");
      await refused(keyFile, "", "an empty key");
      await refused(certFile, " \n", "a certificate of blanks");
      await refused(certFile, readFileSync(path.join(dir, "ca.crt"), "utf8"), "the CA's certificate");
      assert.doesNotMatch(await metricsText(server), /karta_certificate_reloads_total\{result="success"\}/);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("new connections get the rotated certificate without a restart", async () => {
    const dir = tempDir();
    const { server, caPem: oldCa, url } = await startTestServer({ certDir: dir });
    try {
      assert.equal((await request(url, oldCa, contextBody("c1", "InterpretReplica", DEPLOYMENT))).status, 200);
      const staging = tempDir();
      const fresh = writeCerts(staging);
      // Replace the pair the way a Secret volume does: key and certificate together.
      copyFileSync(fresh.keyFile, path.join(dir, "tls.key.new"));
      copyFileSync(fresh.certFile, path.join(dir, "tls.crt.new"));
      renameSync(path.join(dir, "tls.key.new"), path.join(dir, "tls.key"));
      renameSync(path.join(dir, "tls.crt.new"), path.join(dir, "tls.crt"));
      await eventually(
        async () => {
          try {
            return (await request(url, fresh.caPem, contextBody("c2", "InterpretReplica", DEPLOYMENT))).status === 200;
          } catch {
            return false;
          }
        },
        20_000,
        "the new certificate",
      );
      await assert.rejects(request(url, oldCa, contextBody("c3", "InterpretReplica", DEPLOYMENT)), /certificate/);
      assert.match(await metricsText(server), /karta_certificate_reloads_total\{result="success"\} [1-9]/);
      rmSync(staging, { recursive: true, force: true });
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
