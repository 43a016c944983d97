/**
 * `karta get` with a kubeconfig whose user is an oidc auth-provider holding an expired id-token, as kubectl
 * runs one (test/support/fake-apiserver.ts is the cluster, a local HTTPS server the issuer): the
 * refresh-token is exchanged once for a new id-token, which authenticates every request and is written
 * back into the kubeconfig; an issuer that refuses the refresh is a credential problem the command names.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { runKarta } from "../support/cluster.js";
import { FAKE_GET_OUTPUT, startFakeApiServer } from "../support/fake-apiserver.js";
import { writeCerts } from "../server/helpers.js";

const b64url = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString("base64url");
const jwt = (inSeconds: number): string => `${b64url({ alg: "none" })}.${b64url({ sub: "alice", exp: Math.floor(Date.now() / 1000) + inSeconds })}.sig`;

/** An issuer over TLS whose token endpoint answers `status` and `body`; the refresh requests it got. */
async function issuer(status: number, body: string): Promise<{ url: string; caFile: string; refreshes: number; close: () => void }> {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-oidc-issuer-"));
  const certs = writeCerts(dir);
  let refreshes = 0;
  const server = https.createServer({ cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) }, (req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(req.url?.endsWith("/token") ? status : 200, { "Content-Type": "application/json" });
      if (req.url?.endsWith("/token")) {
        refreshes++;
        return res.end(body);
      }
      res.end(JSON.stringify({ token_endpoint: `https://127.0.0.1:${(server.address() as AddressInfo).port}/token` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caFile: certs.caFile,
    get refreshes() {
      return refreshes;
    },
    close: () => {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const user = (idp: { url: string; caFile: string }): string =>
  `{auth-provider: {name: oidc, config: {idp-issuer-url: "${idp.url}", idp-certificate-authority: "${idp.caFile}", client-id: kubectl, id-token: "${jwt(-60)}", refresh-token: r1}}}`;

test("an expired oidc id-token is refreshed once, authenticates every request and is written back into the kubeconfig", async () => {
  const fresh = jwt(3600);
  const idp = await issuer(200, JSON.stringify({ access_token: "at", token_type: "Bearer", id_token: fresh }));
  const server = await startFakeApiServer({ tls: true, user: user(idp) });
  try {
    const r = await runKarta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, FAKE_GET_OUTPUT);
    assert.ok(server.authorizations.length >= 3);
    assert.deepEqual(new Set(server.authorizations), new Set([`Bearer ${fresh}`]));
    assert.equal(idp.refreshes, 1);
    assert.ok(readFileSync(server.kubeconfig, "utf8").includes(`id-token: "${fresh}"`), readFileSync(server.kubeconfig, "utf8"));
  } finally {
    server.close();
    idp.close();
  }
});

test("an issuer refusing the refresh: the command says why, as a credential problem, and sends no request", async () => {
  const idp = await issuer(400, JSON.stringify({ error: "invalid_grant", error_description: "Token is not active" }));
  const server = await startFakeApiServer({ tls: true, user: user(idp) });
  try {
    const r = await runKarta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr.trim().split("\n").at(-1), `karta get: discovering the API groups: getting credentials: failed to refresh the oidc id-token at ${idp.url}/token: 400 invalid_grant: Token is not active`);
    assert.deepEqual(server.authorizations, []);
  } finally {
    server.close();
    idp.close();
  }
});
