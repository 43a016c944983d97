/**
 * `karta get` behind the proxy the environment names, as kubectl goes through it: HTTP_PROXY for an http
 * API server (each request forwarded in absolute form, with the proxy's credentials), NO_PROXY naming the
 * server for a direct connection, and a socks proxy refused by name. The server is
 * test/support/fake-apiserver.ts under a name only the proxy resolves (a loopback address would never be
 * proxied, as in Go).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { runKarta as karta } from "../support/cluster.js";
import { FAKE_GET_OUTPUT, startFakeApiServer } from "../support/fake-apiserver.js";
import { tempDir, writeCerts } from "../server/helpers.js";

const HOST = "kube.karta-test.invalid";

/**
 * A forward proxy that sends every request for HOST to 127.0.0.1 (same port), recording what it was asked;
 * with `tls`, an https proxy.
 */
async function startForwardProxy(tls?: { certFile: string; keyFile: string }): Promise<{ url: (auth?: string) => string; seen: { url: string; auth: string; host: string }[]; close(): void }> {
  const seen: { url: string; auth: string; host: string }[] = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    seen.push({ url: req.url ?? "", auth: req.headers["proxy-authorization"] ?? "", host: req.headers.host ?? "" });
    const target = new URL(req.url ?? "/");
    if (target.hostname !== HOST) return void res.writeHead(502).end();
    const headers = { ...req.headers };
    delete headers["proxy-authorization"];
    const upstream = http.request({ host: "127.0.0.1", port: target.port, path: target.pathname + target.search, method: req.method, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  };
  const server = tls ? https.createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (auth) => `${tls ? "https" : "http"}://${auth ? `${auth}@` : ""}127.0.0.1:${port}`,
    seen,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

/** The environment of the test run without its own proxy variables, plus `extra`. */
function env(extra: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"]) delete out[k];
  return { ...out, ...extra };
}


test("HTTP_PROXY: every request goes through the proxy, in absolute form, with its credentials", async () => {
  const api = await startFakeApiServer({ serverHost: HOST });
  const proxy = await startForwardProxy();
  try {
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", api.kubeconfig], env({ http_proxy: proxy.url("ops:pa%24s") }));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, FAKE_GET_OUTPUT);
    assert.ok(proxy.seen.length >= 3, `${proxy.seen.length} requests through the proxy`);
    assert.equal(proxy.seen.length, api.authorizations.length, "every request reached the server through the proxy");
    const port = new URL(proxy.seen[0]!.url).port;
    for (const s of proxy.seen) {
      assert.ok(s.url.startsWith(`http://${HOST}:${port}/`), s.url);
      assert.equal(s.host, `${HOST}:${port}`);
      assert.equal(s.auth, `Basic ${Buffer.from("ops:pa$s").toString("base64")}`);
    }
    assert.ok(proxy.seen.some((s) => new URL(s.url).pathname === "/apis/kubeflow.org/v1/namespaces/team/pytorchjobs"));
  } finally {
    proxy.close();
    api.close();
  }
});

test("an https proxy: the requests forwarded to it over TLS, as Go forwards them (no CONNECT)", async () => {
  const api = await startFakeApiServer({ serverHost: HOST });
  const certDir = tempDir("karta-https-proxy-");
  const certs = writeCerts(certDir);
  const proxy = await startForwardProxy(certs);
  try {
    // The proxy's certificate is trusted as a corporate proxy's CA is given to Node.js.
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", api.kubeconfig], env({ HTTP_PROXY: proxy.url(), NODE_EXTRA_CA_CERTS: certs.caFile }));
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, FAKE_GET_OUTPUT);
    assert.ok(proxy.seen.length >= 3 && proxy.seen.every((s) => s.url.startsWith(`http://${HOST}:`)), JSON.stringify(proxy.seen));
  } finally {
    proxy.close();
    api.close();
    rmSync(certDir, { recursive: true, force: true });
  }
});

test("NO_PROXY naming the server: a direct connection, not the proxy's", async () => {
  const api = await startFakeApiServer({ serverHost: HOST });
  const proxy = await startForwardProxy();
  try {
    // The name resolves nowhere but in the proxy, so the direct connection fails, naming the server.
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", api.kubeconfig, "--request-timeout", "10s"], env({ HTTP_PROXY: proxy.url(), NO_PROXY: `localhost,.karta-test.invalid` }));
    assert.equal(r.code, 1, r.stderr);
    // (A resolver that never answers makes it the deadline instead; either names the server.)
    assert.match(r.stderr, new RegExp(`^karta get: .*(cannot reach|no answer from) http://${HOST.replaceAll(".", "\\.")}:\\d+`, "m"));
    assert.deepEqual(proxy.seen, []);
  } finally {
    proxy.close();
    api.close();
  }
});

test("a socks proxy in the environment: refused by name, nothing sent", async () => {
  const api = await startFakeApiServer({ serverHost: HOST });
  try {
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", api.kubeconfig], env({ HTTP_PROXY: "socks5://127.0.0.1:1080" }));
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, "karta get: kubeconfig: HTTP_PROXY socks5://127.0.0.1:1080: expected an http:// or https:// proxy (a socks proxy is not supported)\n");
    assert.deepEqual(api.authorizations, []);
  } finally {
    api.close();
  }
});
