/**
 * The client through a kubeconfig `proxy-url`, else the environment's HTTPS_PROXY (an HTTP proxy, as
 * corporate networks put in front of API servers): a CONNECT tunnel per connection, the proxy's
 * credentials from its URL, TLS to the API server inside the tunnel checked against the kubeconfig's CA,
 * keep-alive connections reused through it; a proxy that refuses the tunnel is an error naming it. A local proxy and a local HTTPS server stand in.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import { KubeClient } from "../../src/controller/client.js";
import { loadClusterAccess, withEnvironmentProxy } from "../../src/controller/kubeconfig.js";
import { createCA, issueServing } from "../../src/server/certs.js";
import { tempDir, writeCerts } from "../server/helpers.js";

const ONLY_VIA_PROXY = "kube.karta-test.invalid";

/** Pipes a CONNECT tunnel's client to `port` on loopback (`host`), whatever host it asked for. */
function connectTo(port: number, client: net.Socket, head: Buffer, host = "127.0.0.1"): void {
  const upstream = net.connect(port, host, () => {
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on("error", () => client.destroy());
  client.on("error", () => upstream.destroy());
}

const listen = async <T extends net.Server>(server: T): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
};

test("proxy-url, else the environment's: requests tunnel through the proxy with its credentials, TLS checked inside; a refused tunnel names the proxy", async () => {
  const dir = tempDir("karta-proxy-");
  const certs = writeCerts(dir);
  const api = https.createServer({ cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) }, (req, res) => {
    req.resume();
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ kind: "APIGroupList", path: req.url }));
  });
  const tunnels: { target: string; auth: string }[] = [];
  let refuse = false;
  const proxy = http.createServer((_req, res) => res.writeHead(405).end());
  proxy.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    tunnels.push({ target: req.url ?? "", auth: req.headers["proxy-authorization"] ?? "" });
    if (refuse) return client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
    // Every host is loopback here: a name only the proxy resolves stands for a server reached through it
    // (the environment's proxy case below; a loopback address is never proxied).
    connectTo(Number((req.url ?? "").split(":")[1]), client, head);
  });
  const apiPort = await listen(api);
  const proxyPort = await listen(proxy);
  const kubeconfig = path.join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${apiPort}", certificate-authority: ca.crt, proxy-url: "http://team%40corp:s3cret@127.0.0.1:${proxyPort}"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
  );
  const client = new KubeClient(loadClusterAccess({ kubeconfig }));
  try {
    assert.deepEqual(await client.get("/apis"), { kind: "APIGroupList", path: "/apis" });
    assert.deepEqual(await client.get("/api/v1"), { kind: "APIGroupList", path: "/api/v1" });
    // One tunnel: the keep-alive connection inside it served both.
    assert.deepEqual(tunnels, [{ target: `127.0.0.1:${apiPort}`, auth: `Basic ${Buffer.from("team@corp:s3cret").toString("base64")}` }]);
    client.close();

    refuse = true;
    const refused = new KubeClient(loadClusterAccess({ kubeconfig }));
    try {
      await assert.rejects(refused.get("/apis", { retryBudgetMs: 0 }), { message: `the proxy 127.0.0.1:${proxyPort} refused a tunnel to 127.0.0.1:${apiPort}: 403 Forbidden` });
    } finally {
      refused.close();
    }

    // Without the kubeconfig's CA the server's certificate is refused inside the tunnel, as without a proxy.
    refuse = false;
    writeFileSync(kubeconfig, readFileSync(kubeconfig, "utf8").replace(", certificate-authority: ca.crt", ""));
    const untrusted = new KubeClient(loadClusterAccess({ kubeconfig }));
    try {
      await assert.rejects(untrusted.get("/apis", { retryBudgetMs: 0 }), /self[- ]signed certificate|unable to verify|unable to get local issuer/);
    } finally {
      untrusted.close();
    }

    // No proxy-url: HTTPS_PROXY's proxy (NO_PROXY not naming the server), the server's name in the CONNECT,
    // TLS checked against the CA for the tls-server-name.
    tunnels.length = 0;
    writeFileSync(kubeconfig, `clusters: [{name: c, cluster: {server: "https://${ONLY_VIA_PROXY}:${apiPort}", certificate-authority: ca.crt, tls-server-name: localhost}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`);
    const { proxyUrl: _, ...access } = loadClusterAccess({ kubeconfig });
    const environment = withEnvironmentProxy(access, { https_proxy: `127.0.0.1:${proxyPort}`, HTTP_PROXY: "http://unused.invalid:1", NO_PROXY: "10.0.0.0/8,.internal" });
    assert.equal(environment.proxyUrl, `http://127.0.0.1:${proxyPort}/`);
    const viaEnvironment = new KubeClient(environment);
    try {
      assert.deepEqual(await viaEnvironment.get("/apis"), { kind: "APIGroupList", path: "/apis" });
      assert.deepEqual(tunnels, [{ target: `${ONLY_VIA_PROXY}:${apiPort}`, auth: "" }]);
    } finally {
      viaEnvironment.close();
    }
    assert.equal(withEnvironmentProxy(access, { HTTPS_PROXY: `http://127.0.0.1:${proxyPort}`, no_proxy: "karta-test.invalid" }).proxyUrl, undefined);
  } finally {
    client.close();
    api.close();
    api.closeAllConnections();
    proxy.close();
    proxy.closeAllConnections();
    rmSync(dir, { recursive: true, force: true });
  }
});

type Ca = ReturnType<typeof createCA>;

/** An https server with a certificate from `ca` for `names`, on loopback (`host`); its port. */
async function tlsServer(ca: Ca, names: string[], handler: http.RequestListener, host = "127.0.0.1"): Promise<{ server: https.Server; port: number }> {
  const issued = issueServing(ca, names);
  const server = https.createServer({ cert: issued.certPem, key: issued.keyPem }, handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** An API server answering every request with its path and Host header. */
const answer: http.RequestListener = (req, res) => {
  req.resume();
  res.writeHead(200, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ kind: "APIGroupList", path: req.url, host: req.headers.host }));
};

/** An https proxy tunnelling every CONNECT to `port` on `host`; the targets it was asked for. */
async function tlsTunnel(ca: Ca, names: string[], port: number, host = "127.0.0.1"): Promise<{ server: https.Server; port: number; tunnels: string[] }> {
  const tunnels: string[] = [];
  const proxy = await tlsServer(ca, names, (_req, res) => res.writeHead(405).end(), host);
  proxy.server.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    tunnels.push(req.url ?? "");
    connectTo(port, client, head, host);
  });
  return { ...proxy, tunnels };
}

/** A client of a kubeconfig in `dir` (its CA in ca.crt) whose cluster has `fields` (YAML flow mapping entries). */
function clientOf(dir: string, ca: Ca, fields: string): KubeClient {
  writeFileSync(path.join(dir, "ca.crt"), ca.certPem);
  const kubeconfig = path.join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    `clusters: [{name: c, cluster: {certificate-authority: ca.crt, ${fields}}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
  );
  return new KubeClient(loadClusterAccess({ kubeconfig }));
}

function closeAll(servers: https.Server[], clients: KubeClient[], dir: string): void {
  for (const c of clients) c.close();
  for (const s of servers) {
    s.close();
    s.closeAllConnections();
  }
  rmSync(dir, { recursive: true, force: true });
}

test("an https proxy-url: its certificate checked with the kubeconfig's CA, against the tls-server-name when there is one, as Go's transport checks it", async () => {
  const dir = tempDir("karta-https-proxy-");
  const ca = createCA("test-ca");
  const api = await tlsServer(ca, ["api.internal"], answer);
  // Two https proxies: one whose certificate names its address, one whose certificate names the API server.
  const byAddress = await tlsTunnel(ca, ["127.0.0.1"], api.port);
  const byServerName = await tlsTunnel(ca, ["api.internal"], api.port);
  const server = `server: "https://${ONLY_VIA_PROXY}:${api.port}"`;
  const clients: KubeClient[] = [];
  const client = (fields: string): KubeClient => clients[clients.push(clientOf(dir, ca, fields)) - 1]!;
  try {
    // No tls-server-name: the proxy is checked against its own address, the server inside against its name.
    const plain = client(`${server}, proxy-url: "https://127.0.0.1:${byAddress.port}"`);
    await assert.rejects(plain.get("/apis", { retryBudgetMs: 0 }), /api\.internal|altnames|Hostname\/IP does not match/);
    // The proxy was trusted (the tunnel opened): only the server inside was refused, for its name.
    assert.deepEqual(byAddress.tunnels, [`${ONLY_VIA_PROXY}:${api.port}`]);

    // tls-server-name: Go checks the proxy's certificate against it too, so a proxy whose certificate
    // names only its address is refused before any tunnel...
    const named = client(`${server}, proxy-url: "https://127.0.0.1:${byAddress.port}", tls-server-name: api.internal`);
    await assert.rejects(named.get("/apis", { retryBudgetMs: 0 }), /api\.internal|altnames|Hostname\/IP does not match/);
    assert.equal(byAddress.tunnels.length, 1);
    // ...and one whose certificate names the server is trusted, with the server inside.
    const throughNamed = client(`${server}, proxy-url: "https://127.0.0.1:${byServerName.port}", tls-server-name: api.internal`);
    assert.deepEqual(await throughNamed.get("/apis"), { kind: "APIGroupList", path: "/apis", host: `${ONLY_VIA_PROXY}:${api.port}` });
    assert.deepEqual(byServerName.tunnels, [`${ONLY_VIA_PROXY}:${api.port}`]);
  } finally {
    closeAll([api.server, byAddress.server, byServerName.server], clients, dir);
  }
});

/** Whether this machine has IPv6 loopback (some CI containers do not). */
async function ipv6Loopback(): Promise<boolean> {
  const probe = net.createServer();
  return new Promise((resolve) => {
    probe.once("error", () => resolve(false));
    probe.listen(0, "::1", () => probe.close(() => resolve(true)));
  });
}

test("an API server and an https proxy at IPv6 addresses ([::1] in the kubeconfig), as kubectl reaches them", async (t) => {
  if (!(await ipv6Loopback())) return t.skip("no IPv6 loopback on this machine");
  const dir = tempDir("karta-ipv6-");
  const ca = createCA("test-ca");
  const api = await tlsServer(ca, ["::1"], answer, "::1");
  const proxy = await tlsTunnel(ca, ["::1"], api.port, "::1");
  const clients: KubeClient[] = [];
  try {
    const server = `server: "https://[::1]:${api.port}"`;
    const expected = { kind: "APIGroupList", path: "/apis", host: `[::1]:${api.port}` };
    clients.push(clientOf(dir, ca, server));
    assert.deepEqual(await clients[0]!.get("/apis", { retryBudgetMs: 0 }), expected);
    clients.push(clientOf(dir, ca, `${server}, proxy-url: "https://[::1]:${proxy.port}"`));
    assert.deepEqual(await clients[1]!.get("/apis", { retryBudgetMs: 0 }), expected);
    assert.deepEqual(proxy.tunnels, [`[::1]:${api.port}`]);
  } finally {
    closeAll([api.server, proxy.server], clients, dir);
  }
});
