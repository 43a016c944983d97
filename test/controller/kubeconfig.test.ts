/**
 * Finding the cluster and the credentials as kubectl does (src/controller/kubeconfig.ts), which `karta
 * controller` and the live commands (`get`, `describe`, `inspect KIND/NAME`) share: --kubeconfig, the
 * files of KUBECONFIG merged (the first to name an entry or a current context wins), ~/.kube/config;
 * --context; paths relative to the file naming them; tokens, client certificates, basic auth, an oidc
 * auth-provider's id-token (refreshed at a local issuer and written back into the kubeconfig) and exec
 * credential plugins (the plugin's token checked on a request to a local server); kubectl's flags over it (--cluster, --user, --server, --token, the TLS flags and
 * impersonation) merged as client-go merges them; and each mistake a clear error naming what is wrong.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { KubeClient } from "../../src/controller/client.js";
import { loadClusterAccess } from "../../src/controller/kubeconfig.js";
import { writeCerts } from "../server/helpers.js";

let dir = "";
const saved = { KUBECONFIG: process.env["KUBECONFIG"], HOME: process.env["HOME"], KUBERNETES_SERVICE_HOST: process.env["KUBERNETES_SERVICE_HOST"] };

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "karta-kubeconfig-"));
  // Nothing of the machine's own: no ~/.kube/config, no KUBECONFIG, not in a pod.
  process.env["HOME"] = path.join(dir, "home");
  delete process.env["KUBECONFIG"];
  delete process.env["KUBERNETES_SERVICE_HOST"];
});

after(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Writes a kubeconfig (YAML text) at `dir/name`; its path. */
function kubeconfig(name: string, text: string): string {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const one = (o: { server?: string; cluster?: string; user?: string; namespace?: string; context?: string } = {}): string =>
  `apiVersion: v1
kind: Config
clusters:
- name: ${o.cluster ?? "c"}
  cluster: {server: "${o.server ?? "https://api.example:6443/"}"}
users:
- name: ${o.user ?? "u"}
  user: {token: tok-${o.user ?? "u"}}
contexts:
- name: ${o.context ?? "x"}
  context: {cluster: ${o.cluster ?? "c"}, user: ${o.user ?? "u"}${o.namespace ? `, namespace: ${o.namespace}` : ""}}
current-context: ${o.context ?? "x"}
`;

describe("the kubeconfig, as kubectl finds it", () => {
  test("--kubeconfig: the current context's server (no trailing slash), token and namespace", () => {
    const file = kubeconfig("flag/config", one({ namespace: "team" }));
    const a = loadClusterAccess({ kubeconfig: file });
    assert.deepEqual([a.server, a.token, a.namespace, a.insecureSkipTLSVerify, a.source], ["https://api.example:6443", "tok-u", "team", false, file]);
  });

  test("KUBECONFIG: files merged, the first to name an entry or a current context wins; missing files skipped; --context picks", () => {
    const first = kubeconfig("merge/first", one({ server: "https://first", context: "a" }));
    // Its cluster "c" and context "a" lose to the first file's; "b" is its own, on the first file's "c".
    const second = kubeconfig(
      "merge/second",
      `clusters: [{name: c, cluster: {server: "https://second"}}]
users: [{name: u2, user: {token: tok-u2}}]
contexts: [{name: a, context: {cluster: c, user: u2}}, {name: b, context: {cluster: c, user: u2, namespace: ns-b}}]
current-context: b
`,
    );
    process.env["KUBECONFIG"] = [path.join(dir, "merge", "absent"), first, second].join(path.delimiter);
    try {
      const a = loadClusterAccess();
      assert.deepEqual([a.server, a.token, a.source], ["https://first", "tok-u", `${first}${path.delimiter}${second}`]);
      const b = loadClusterAccess({ context: "b" });
      assert.deepEqual([b.server, b.token, b.namespace], ["https://first", "tok-u2", "ns-b"]);
      assert.throws(() => loadClusterAccess({ context: "nope" }), { message: "context was not found for specified context: nope" });
    } finally {
      delete process.env["KUBECONFIG"];
    }
  });

  test("~/.kube/config when there is no KUBECONFIG; nothing at all is an error saying where to look", () => {
    // Not "no cluster in the kubeconfig": there is no kubeconfig, and the message says where it looked.
    const home = path.join(homedir(), ".kube", "config");
    assert.throws(() => loadClusterAccess(), { message: `no kubeconfig found (looked at ${home}: none exists); give --kubeconfig or --server, set KUBECONFIG, or run in a pod` });
    process.env["KUBECONFIG"] = path.join(dir, "absent");
    try {
      assert.throws(() => loadClusterAccess(), { message: `no kubeconfig found (looked at KUBECONFIG ${path.join(dir, "absent")}, ${home}: none exists); give --kubeconfig or --server, set KUBECONFIG, or run in a pod` });
    } finally {
      delete process.env["KUBECONFIG"];
    }
    kubeconfig("home/.kube/config", one({ server: "https://home" }));
    try {
      assert.equal(loadClusterAccess().server, "https://home");
    } finally {
      rmSync(path.join(dir, "home"), { recursive: true, force: true });
    }
  });

  test("files it names are relative to the kubeconfig, data fields are base64; a certificate needs its key", () => {
    mkdirSync(path.join(dir, "rel", "pki"), { recursive: true });
    writeFileSync(path.join(dir, "rel", "pki", "ca.crt"), "CA");
    writeFileSync(path.join(dir, "rel", "pki", "me.crt"), "CERT");
    const file = kubeconfig(
      "rel/config",
      `clusters: [{name: c, cluster: {server: "https://x", certificate-authority: pki/ca.crt, tls-server-name: api.internal}}]
users: [{name: u, user: {client-certificate: pki/me.crt, client-key-data: ${Buffer.from("KEY").toString("base64")}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
    );
    const a = loadClusterAccess({ kubeconfig: file });
    assert.deepEqual([a.ca?.toString(), a.cert?.toString(), a.key?.toString(), a.tlsServerName], ["CA", "CERT", "KEY", "api.internal"]);
    const noKey = kubeconfig("rel/nokey", `clusters: [{name: c, cluster: {server: "https://x"}}]\nusers: [{name: u, user: {client-certificate: pki/me.crt}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`);
    assert.throws(() => loadClusterAccess({ kubeconfig: noKey }), { message: 'user "u": a client certificate needs its key, and a key its certificate' });
  });

  test("basic auth, and an oidc auth-provider (its id-token sent, refreshed as client-go refreshes it)", () => {
    const file = kubeconfig(
      "auth/config",
      `clusters: [{name: c, cluster: {server: "https://x"}}]
users:
- {name: basic, user: {username: admin, password: secret}}
- {name: oidc, user: {auth-provider: {name: oidc, config: {id-token: eyJ.id.token, refresh-token: r, idp-issuer-url: "https://issuer", client-id: kubectl}}}}
- {name: oidc-empty, user: {auth-provider: {name: oidc, config: {idp-issuer-url: "https://issuer"}}}}
- {name: oidc-basic, user: {username: admin, password: secret, auth-provider: {name: oidc, config: {id-token: eyJ.id.token, idp-issuer-url: "https://issuer", client-id: kubectl}}}}
- {name: gcp, user: {auth-provider: {name: gcp}}}
contexts:
- {name: basic, context: {cluster: c, user: basic}}
- {name: oidc, context: {cluster: c, user: oidc}}
- {name: oidc-empty, context: {cluster: c, user: oidc-empty}}
- {name: gcp, context: {cluster: c, user: gcp}}
current-context: basic
`,
    );
    assert.deepEqual(loadClusterAccess({ kubeconfig: file }).basic, { username: "admin", password: "secret" });
    assert.deepEqual(loadClusterAccess({ kubeconfig: file, context: "oidc" }).oidc, { issuer: "https://issuer", clientId: "kubectl", idToken: "eyJ.id.token", refreshToken: "r", persist: { file, user: "oidc" } });
    // Beside basic auth or a token, client-go's oidc round tripper stands aside: the other is sent.
    const beside = loadClusterAccess({ kubeconfig: file, context: "oidc", overrides: { user: "oidc-basic" } });
    assert.deepEqual([beside.oidc, beside.basic?.username], [undefined, "admin"]);
    const flag = loadClusterAccess({ kubeconfig: file, context: "oidc", overrides: { token: "flag" } });
    assert.deepEqual([flag.token, flag.oidc], ["flag", undefined]);
    assert.throws(() => loadClusterAccess({ kubeconfig: file, context: "oidc-empty" }), { message: 'user "oidc-empty": the oidc auth-provider must provide client-id' });
    assert.throws(() => loadClusterAccess({ kubeconfig: file, context: "gcp" }), { message: 'user "gcp": the gcp auth-provider is not supported (kubectl removed it too); use an exec credential plugin' });
  });

  test("mistakes name the file or entry and what is wrong", () => {
    assert.throws(() => loadClusterAccess({ kubeconfig: path.join(dir, "absent") }), { message: `cannot read the kubeconfig ${path.join(dir, "absent")}: no such file` });
    const noCurrent = kubeconfig("bad/nocurrent", one().replace(/current-context: .*\n/, ""));
    assert.throws(() => loadClusterAccess({ kubeconfig: noCurrent }), { message: `${noCurrent}: no current-context (give --context)` });
    const garbage = kubeconfig("bad/garbage", "hello world\n");
    assert.throws(() => loadClusterAccess({ kubeconfig: garbage }), { message: `${garbage}: not a kubeconfig: expected a mapping (apiVersion: v1, kind: Config), found a string` });
    const list = kubeconfig("bad/list", "- a\n");
    assert.throws(() => loadClusterAccess({ kubeconfig: list }), { message: `${list}: not a kubeconfig: expected a mapping (apiVersion: v1, kind: Config), found a list` });
    // Nesting is bounded before the parser, in the words every reader uses; of several documents the first is read, as client-go reads it.
    const deep = kubeconfig("bad/deep", "a: " + "[".repeat(10_000) + "]".repeat(10_000) + "\n");
    assert.throws(() => loadClusterAccess({ kubeconfig: deep }), { message: `${deep}:1: not a kubeconfig: nested deeper than 256 levels (the limit on the objects Karta reads)` });
    const two = kubeconfig("bad/two", `${one()}---\nkind: Other\n`);
    assert.doesNotThrow(() => loadClusterAccess({ kubeconfig: two }));
    const notList = kubeconfig("bad/notlist", "clusters: {c: 1}\n");
    assert.throws(() => loadClusterAccess({ kubeconfig: notList }), { message: `${notList}: clusters must be a list` });
    const socks = kubeconfig("bad/proxy", one().replace('cluster: {server: "https://api.example:6443/"}', 'cluster: {server: "https://api.example:6443/", proxy-url: "socks5://proxy:1080"}'));
    assert.throws(() => loadClusterAccess({ kubeconfig: socks }), { message: 'cluster "c": proxy-url socks5://proxy:1080: expected an http:// or https:// proxy (a socks proxy is not supported)' });
    const dangling = kubeconfig("bad/dangling", one().replace("context: {cluster: c,", "context: {cluster: other,"));
    assert.throws(() => loadClusterAccess({ kubeconfig: dangling }), { message: 'no cluster in the kubeconfig (context "x" names cluster "other", which is not defined)' });
  });
});

describe("an exec credential plugin", () => {
  test("runs from the kubeconfig's directory with its env and KUBERNETES_EXEC_INFO; its token authenticates the requests", async () => {
    const seen: string[] = [];
    const certs = writeCerts(mkdtempSync(path.join(dir, "exec-tls-")));
    const server = https.createServer({ cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) }, (req, res) => {
      seen.push(req.headers.authorization ?? "");
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ kind: "APIGroupList", groups: [] }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const plugin = path.join(dir, "exec", "bin", "credential");
      mkdirSync(path.dirname(plugin), { recursive: true });
      // The token names the plugin's env variable and the kind of KUBERNETES_EXEC_INFO, so both are checked.
      writeFileSync(plugin, `#!/bin/sh\nkind=$(printf '%s' "$KUBERNETES_EXEC_INFO" | sed -n 's/.*"kind":"\\([A-Za-z]*\\)".*/\\1/p')\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s-%s"}}' "$TEAM" "$kind"\n`);
      chmodSync(plugin, 0o755);
      const file = kubeconfig(
        "exec/config",
        `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${(server.address() as AddressInfo).port}", certificate-authority: ${certs.caFile}}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ./bin/credential, env: [{name: TEAM, value: ml}]}}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`,
      );
      const client = new KubeClient(loadClusterAccess({ kubeconfig: file }));
      try {
        await client.get("/apis");
      } finally {
        client.close();
      }
      assert.deepEqual(seen, ["Bearer ml-ExecCredential"]);
    } finally {
      server.close();
    }
  });
});

describe("an oidc auth-provider", () => {
  const b64url = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString("base64url");
  /** An unsigned JWT expiring `inSeconds` from now (the client reads only its exp; the server judges it). */
  const jwt = (sub: string, inSeconds: number): string => `${b64url({ alg: "none" })}.${b64url({ sub, exp: Math.floor(Date.now() / 1000) + inSeconds })}.sig`;
  type Answer = { status: number; body: string; type?: string };
  /** An issuer (discovery and a token endpoint answering `answer`, each behind a redirect) and an API server, over TLS; what each saw. */
  async function servers(answer: (auth: string | undefined, form: URLSearchParams) => Answer) {
    const certs = writeCerts(mkdtempSync(path.join(dir, "oidc-tls-")));
    const tlsOptions = { cert: readFileSync(certs.certFile), key: readFileSync(certs.keyFile) };
    const tokenRequests: { auth?: string; form: Record<string, string> }[] = [];
    const apiAuth: string[] = [];
    const issuer = https.createServer(tlsOptions, (req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        const base = `https://127.0.0.1:${(issuer.address() as AddressInfo).port}/realm`;
        // Both moved, as Go's client follows them: discovery by a 302, the token endpoint by a 307 (the POST kept).
        if (req.method === "GET" && req.url === "/realm/.well-known/openid-configuration") return res.writeHead(302, { Location: "/moved/openid-configuration" }).end();
        if (req.method === "GET" && req.url === "/moved/openid-configuration") {
          res.writeHead(200, { "Content-Type": "application/json" });
          return res.end(JSON.stringify({ issuer: base, token_endpoint: `${base}/token` }));
        }
        if (req.url === "/realm/token") return res.writeHead(307, { Location: `${base}/token/v2` }).end();
        const form = new URLSearchParams(body);
        tokenRequests.push({ ...(req.headers.authorization ? { auth: req.headers.authorization } : {}), form: Object.fromEntries(form) });
        const a = answer(req.headers.authorization, form);
        res.writeHead(a.status, { "Content-Type": a.type ?? "application/json" });
        res.end(a.body);
      });
    });
    const api = https.createServer(tlsOptions, (req, res) => {
      apiAuth.push(req.headers.authorization ?? "");
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ kind: "APIGroupList", groups: [] }));
    });
    await Promise.all([issuer, api].map((s) => new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve))));
    const port = (s: https.Server): number => (s.address() as AddressInfo).port;
    return {
      certs,
      tokenRequests,
      apiAuth,
      issuerUrl: `https://127.0.0.1:${port(issuer)}/realm`,
      apiUrl: `https://127.0.0.1:${port(api)}`,
      close: () => Promise.all([issuer, api].map((s) => new Promise((resolve) => s.close(resolve)))),
    };
  }
  const config = (s: { certs: { caFile: string }; issuerUrl: string; apiUrl: string }, name: string, provider: string): string =>
    kubeconfig(
      name,
      `# the team's cluster: log in with kubelogin
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "${s.apiUrl}", certificate-authority: ${s.certs.caFile}}}]
users:
- name: other
  user: {token: keep-me}
- name: sso
  user:
    auth-provider:
      name: oidc
      config:
        idp-issuer-url: ${s.issuerUrl}
        idp-certificate-authority: ${s.certs.caFile}
        client-id: kubectl
${provider}
contexts: [{name: x, context: {cluster: c, user: sso}}]
current-context: x
`,
    );
  const get = async (file: string): Promise<void> => {
    const client = new KubeClient(loadClusterAccess({ kubeconfig: file }));
    try {
      await client.get("/apis");
    } finally {
      client.close();
    }
  };

  test("a valid id-token is sent; an expired one is refreshed at the issuer and written back into the kubeconfig, the rest of the file kept", async () => {
    const fresh = jwt("alice", 3600);
    const s = await servers(() => ({ status: 200, body: JSON.stringify({ access_token: "at", token_type: "Bearer", expires_in: 3600, id_token: fresh, refresh_token: "r2" }) }));
    try {
      const file = config(s, "oidc/config", `        client-secret: "s e/cret"\n        id-token: ${jwt("alice", -60)}\n        refresh-token: r1`);
      chmodSync(file, 0o600);
      await get(file);
      assert.deepEqual(s.apiAuth, [`Bearer ${fresh}`]);
      // The client's credentials in a basic Authorization header, escaped as Go's url.QueryEscape escapes them.
      assert.deepEqual(s.tokenRequests, [{ auth: `Basic ${Buffer.from("kubectl:s+e%2Fcret").toString("base64")}`, form: { grant_type: "refresh_token", refresh_token: "r1" } }]);
      const text = readFileSync(file, "utf8");
      assert.match(text, /^# the team's cluster: log in with kubelogin\n/);
      assert.ok(text.includes(`id-token: ${fresh}\n`), text);
      assert.match(text, /refresh-token: r2\n/);
      assert.match(text, /user: \{ token: keep-me \}|user: \{token: keep-me\}/);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      // The next command starts from the written token: nothing more asked of the issuer.
      await get(file);
      assert.deepEqual([s.apiAuth.length, s.tokenRequests.length], [2, 1]);
    } finally {
      await s.close();
    }
  });

  test("an issuer refusing the client's credentials in a header gets them in the form", async () => {
    const fresh = jwt("bob", 3600);
    const s = await servers((auth, form) => (auth ? { status: 401, body: JSON.stringify({ error: "invalid_client" }) } : { status: 200, type: "application/x-www-form-urlencoded", body: `access_token=at&id_token=${fresh}&for=${form.get("client_id")}` }));
    try {
      await get(config(s, "oidc-form/config", `        refresh-token: r1`));
      assert.deepEqual(s.apiAuth, [`Bearer ${fresh}`]);
      assert.deepEqual(
        s.tokenRequests.map((r) => r.form),
        [
          { grant_type: "refresh_token", refresh_token: "r1" },
          { grant_type: "refresh_token", refresh_token: "r1", client_id: "kubectl" },
        ],
      );
    } finally {
      await s.close();
    }
  });

  test("what cannot give a token says why, and no request reaches the API server", async () => {
    let answer: Answer = { status: 400, body: JSON.stringify({ error: "invalid_grant", error_description: "refresh token expired" }) };
    const s = await servers(() => answer);
    try {
      const refresh = config(s, "oidc-bad/config", `        id-token: ${jwt("carol", -60)}\n        refresh-token: r1`);
      await assert.rejects(get(refresh), { name: "CredentialError", message: `failed to refresh the oidc id-token at ${s.issuerUrl}/token: 400 invalid_grant: refresh token expired` });
      answer = { status: 200, body: JSON.stringify({ access_token: "at" }) };
      await assert.rejects(get(refresh), { message: `the token response from ${s.issuerUrl}/token has no id_token: either the scope "openid" was not asked for at login, or the issuer gives no id-tokens on refresh` });
      await assert.rejects(get(config(s, "oidc-none/config", `        id-token: ${jwt("carol", -60)}`)), { message: "no valid oidc id-token, and no refresh-token to get one (log in again)" });
      await assert.rejects(get(config(s, "oidc-jwt/config", `        id-token: not-a-jwt`)), { message: "the oidc id-token is not a valid JWT" });
      // The file is left as it was.
      assert.match(readFileSync(refresh, "utf8"), /refresh-token: r1\n/);
      assert.deepEqual(s.apiAuth, []);
    } finally {
      await s.close();
    }
  });
});

describe("kubectl's flags over the kubeconfig (client-go's ConfigOverrides)", () => {
  const b64 = (s: string): string => Buffer.from(s).toString("base64");
  const two = (prod = "https://prod.example", name = "flags/config"): string =>
    kubeconfig(
      name,
      `clusters:
- {name: prod, cluster: {server: "${prod}", certificate-authority-data: ${b64("PROD-CA")}, tls-server-name: prod.internal}}
- {name: lab, cluster: {server: "https://lab.example", insecure-skip-tls-verify: true}}
users:
- {name: dev, user: {token: dev-token}}
- {name: robot, user: {client-certificate-data: ${b64("CERT")}, client-key-data: ${b64("KEY")}}}
- {name: sso, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: login}}}
- {name: boss, user: {token: t, as: alice, as-groups: [devs, ops], as-uid: "42", as-user-extra: {acme.com/project: [llm]}}}
- {name: half, user: {token: t, as-groups: [devs]}}
- {name: basic, user: {username: admin, password: pw}}
- {name: both, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: login}, auth-provider: {name: oidc, config: {id-token: x}}}}
contexts:
- {name: x, context: {cluster: prod, user: dev, namespace: team}}
current-context: x
`,
    );

  test("--cluster and --user pick other entries of the kubeconfig; names it lacks are errors", () => {
    const file = two();
    const a = loadClusterAccess({ kubeconfig: file, overrides: { cluster: "lab", user: "robot" } });
    assert.deepEqual([a.server, a.insecureSkipTLSVerify, a.ca, a.cert?.toString(), a.token, a.namespace], ["https://lab.example", true, undefined, "CERT", undefined, "team"]);
    assert.throws(() => loadClusterAccess({ kubeconfig: file, overrides: { cluster: "nope" } }), { message: 'no server found for cluster "nope"' });
    // As client-go merges them, --server supplies what a missing cluster lacks.
    assert.equal(loadClusterAccess({ kubeconfig: file, overrides: { cluster: "nope", server: "https://elsewhere.example" } }).server, "https://elsewhere.example");
    assert.throws(() => loadClusterAccess({ kubeconfig: file, overrides: { user: "nope" } }), { message: 'auth info "nope" does not exist' });
  });

  test("--server drops the kubeconfig's tls-server-name unless given again; --certificate-authority and --insecure-skip-tls-verify replace each other", () => {
    const file = two();
    writeFileSync(path.join(dir, "flags", "other-ca.crt"), "OTHER-CA");
    const moved = loadClusterAccess({ kubeconfig: file, overrides: { server: "https://10.0.0.1:6443" } });
    assert.deepEqual([moved.server, moved.ca?.toString(), moved.tlsServerName], ["https://10.0.0.1:6443", "PROD-CA", undefined]);
    assert.equal(loadClusterAccess({ kubeconfig: file, overrides: { server: "https://10.0.0.1:6443", tlsServerName: "prod.internal" } }).tlsServerName, "prod.internal");
    const ca = loadClusterAccess({ kubeconfig: file, overrides: { cluster: "lab", certificateAuthority: path.join(dir, "flags", "other-ca.crt") } });
    assert.deepEqual([ca.ca?.toString(), ca.insecureSkipTLSVerify], ["OTHER-CA", false]);
    const insecure = loadClusterAccess({ kubeconfig: file, overrides: { insecureSkipTLSVerify: true } });
    assert.deepEqual([insecure.ca, insecure.insecureSkipTLSVerify, insecure.tlsServerName], [undefined, true, "prod.internal"]);
  });

  test("--token replaces a token, goes before an exec plugin and beside a client certificate; with basic auth it is refused as client-go refuses it", () => {
    const file = two();
    assert.equal(loadClusterAccess({ kubeconfig: file, overrides: { token: "flag" } }).token, "flag");
    const sso = loadClusterAccess({ kubeconfig: file, overrides: { user: "sso", token: "flag" } });
    assert.deepEqual([sso.token, sso.exec], ["flag", undefined]);
    assert.equal(loadClusterAccess({ kubeconfig: file, overrides: { user: "sso" } }).exec?.command, "login");
    const robot = loadClusterAccess({ kubeconfig: file, overrides: { user: "robot", token: "flag" } });
    assert.deepEqual([robot.token, robot.cert?.toString()], ["flag", "CERT"]);
    assert.throws(() => loadClusterAccess({ kubeconfig: file, overrides: { user: "basic", token: "flag" } }), { message: "more than one authentication method found for basic; found [token basicAuth], only one is allowed" });
    assert.throws(() => loadClusterAccess({ kubeconfig: file, overrides: { user: "both" } }), { message: "authProvider cannot be provided in combination with an exec plugin for both" });
  });

  test("--username and --password replace the kubeconfig's basic auth each on its own; beside a token they are refused as client-go refuses them", () => {
    const file = two();
    assert.deepEqual(loadClusterAccess({ kubeconfig: file, overrides: { user: "basic", password: "new" } }).basic, { username: "admin", password: "new" });
    assert.deepEqual(loadClusterAccess({ kubeconfig: file, overrides: { user: "basic", username: "root" } }).basic, { username: "root", password: "pw" });
    const robot = loadClusterAccess({ kubeconfig: file, overrides: { user: "robot", username: "root", password: "pw" } });
    assert.deepEqual([robot.basic, robot.cert?.toString()], [{ username: "root", password: "pw" }, "CERT"]);
    // A password alone is basic auth to client-go's checks, but without a username nothing is sent.
    assert.throws(() => loadClusterAccess({ kubeconfig: file, overrides: { password: "pw" } }), { message: "more than one authentication method found for dev; found [token basicAuth], only one is allowed" });
    assert.equal(loadClusterAccess({ kubeconfig: file, overrides: { user: "sso", password: "pw" } }).basic, undefined);
  });

  test("servers: host:port is http:// (kubectl -s localhost:8001), which gets no credentials and no CA; a path that is not a prefix is refused", () => {
    const file = two();
    const bare = loadClusterAccess({ kubeconfig: file, overrides: { server: "localhost:8001", user: "boss" } });
    assert.deepEqual([bare.server, bare.token, bare.ca, bare.impersonate?.user], ["http://localhost:8001", undefined, undefined, "alice"]);
    assert.equal(loadClusterAccess({ kubeconfig: file, overrides: { server: "10.0.0.1:6443" } }).server, "http://10.0.0.1:6443");
    const sso = loadClusterAccess({ kubeconfig: file, overrides: { server: "http://10.0.0.1:8080", user: "sso" } });
    assert.equal(sso.exec, undefined);
    assert.equal(loadClusterAccess({ kubeconfig: file, overrides: { server: "https://lb.example/k8s/" } }).server, "https://lb.example/k8s");
    assert.throws(() => loadClusterAccess({ kubeconfig: file, overrides: { server: "10.0.0.1:6443/k8s" } }), { message: 'host must be a URL or a host:port pair: "10.0.0.1:6443/k8s"' });
  });

  test("impersonation from the kubeconfig (as, as-groups, as-uid, as-user-extra) and from --as, --as-group, --as-uid", () => {
    const file = two();
    assert.deepEqual(loadClusterAccess({ kubeconfig: file, overrides: { user: "boss" } }).impersonate, { user: "alice", uid: "42", groups: ["devs", "ops"], extra: { "acme.com/project": ["llm"] } });
    assert.deepEqual(loadClusterAccess({ kubeconfig: file, overrides: { as: "bob", asGroups: ["qa"] } }).impersonate, { user: "bob", groups: ["qa"], extra: {} });
    assert.deepEqual(loadClusterAccess({ kubeconfig: file, overrides: { user: "boss", as: "bob" } }).impersonate, { user: "bob", uid: "42", groups: ["devs", "ops"], extra: { "acme.com/project": ["llm"] } });
    assert.equal(loadClusterAccess({ kubeconfig: file }).impersonate, undefined);
    assert.throws(() => loadClusterAccess({ kubeconfig: file, overrides: { user: "half" } }), { message: "requesting uid, groups or user-extra for half without impersonating a user" });
    assert.throws(() => loadClusterAccess({ kubeconfig: file, overrides: { asGroups: ["qa"] } }), { message: "requesting uid, groups or user-extra for dev without impersonating a user" });
  });

  test("--server needs no kubeconfig and no current context; without --server they are still needed", () => {
    const a = loadClusterAccess({ overrides: { server: "https://10.0.0.1:6443", token: "flag", insecureSkipTLSVerify: true } });
    assert.deepEqual([a.server, a.token, a.insecureSkipTLSVerify, a.source], ["https://10.0.0.1:6443", "flag", true, "the command line"]);
    const noContext = kubeconfig("flags/nocontext", `clusters: [{name: c, cluster: {server: "https://x"}}]\nusers: [{name: u, user: {token: t}}]\n`);
    assert.equal(loadClusterAccess({ kubeconfig: noContext, overrides: { server: "https://y", token: "flag" } }).server, "https://y");
    assert.equal(loadClusterAccess({ kubeconfig: noContext, overrides: { server: "https://y", user: "u" } }).token, "t");
    assert.throws(() => loadClusterAccess({ kubeconfig: noContext, overrides: { token: "flag" } }), { message: `${noContext}: no current-context (give --context)` });
  });

  test("the impersonation reaches the server as client-go sends it: Impersonate-User, -Uid, one Impersonate-Group per group, -Extra- with the key escaped", async () => {
    let raw: string[] = [];
    const server = http.createServer((req, res) => {
      raw = req.rawHeaders;
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end("{}");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const file = two(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, "flags/local");
    const client = new KubeClient(loadClusterAccess({ kubeconfig: file, overrides: { user: "boss" } }));
    try {
      await client.get("/apis");
    } finally {
      client.close();
      server.close();
    }
    const pairs: string[] = [];
    for (let i = 0; i < raw.length; i += 2) if (/^impersonate-/i.test(raw[i]!)) pairs.push(`${raw[i]}: ${raw[i + 1]}`);
    assert.deepEqual(pairs.sort(), ["Impersonate-Extra-acme.com%2Fproject: llm", "Impersonate-Group: devs", "Impersonate-Group: ops", "Impersonate-Uid: 42", "Impersonate-User: alice"]);
  });
});

describe("the server's scheme and the client's deadline", () => {
  test("HTTPS:// is https (Go folds the scheme's case); an http server's entries are still checked, as client-go validates them", () => {
    const upper = kubeconfig("scheme/upper", one({ server: "HTTPS://api.example:6443" }));
    const a = loadClusterAccess({ kubeconfig: upper });
    assert.deepEqual([a.server, a.token], ["https://api.example:6443", "tok-u"]);
    const http = (user: string, cluster = ""): string =>
      kubeconfig(`scheme/http-${user.length}-${cluster.length}`, `clusters: [{name: c, cluster: {server: "http://10.0.0.1:8080"${cluster}}}]\nusers: [{name: u, user: ${user}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`);
    assert.throws(() => loadClusterAccess({ kubeconfig: http(`{client-certificate-data: ${Buffer.from("C").toString("base64")}}`) }), { message: 'user "u": a client certificate needs its key, and a key its certificate' });
    assert.throws(() => loadClusterAccess({ kubeconfig: http("{token: t}", ", certificate-authority: /nonexistent/ca.crt") }), /cannot read the certificate authority \/nonexistent\/ca\.crt/);
    assert.throws(() => loadClusterAccess({ kubeconfig: http("{exec: {apiVersion: client.authentication.k8s.io/v1}}") }), { message: 'user "u": exec.command is missing' });
    assert.deepEqual(loadClusterAccess({ kubeconfig: http("{token: t}") }).token, undefined);
  });

  test("deadlineMs: one attempt, counted once it has a connection, not retried within the retry budget", async () => {
    let attempts = 0;
    const server = http.createServer(() => {
      attempts++; // never answers
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = new KubeClient({ server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, insecureSkipTLSVerify: false, source: "test" });
    try {
      await assert.rejects(client.get("/apis", { deadlineMs: 300, retryBudgetMs: 5_000 }), { code: "ETIMEDOUT", message: "no answer within 300 ms" });
      assert.equal(attempts, 1, "not retried");
    } finally {
      client.close();
      server.close();
      server.closeAllConnections();
    }
  });
});
