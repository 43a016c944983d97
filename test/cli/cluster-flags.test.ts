/**
 * kubectl's flags over the kubeconfig on the live commands, run as a user runs them against
 * test/support/fake-apiserver.ts: --token and --as/--as-group/--as-uid reach the server as client-go sends
 * them, -s/--server with --token needs no kubeconfig at all, and a kubeconfig entry that is not there is
 * an error naming it. (test/controller/kubeconfig.test.ts checks how each flag merges into the kubeconfig.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runKarta as karta } from "../support/cluster.js";
import { repoRoot } from "../support/conformance.js";
import { FAKE_GET_OUTPUT, startFakeApiServer } from "../support/fake-apiserver.js";


test("--token and --as, --as-group, --as-uid: every request carries them", async () => {
  const server = await startFakeApiServer({ tls: true });
  try {
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--token", "flag-token", "--as", "alice@example.com", "--as-group", "ml-team", "--as-group=oncall", "--as-uid", "1234"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, FAKE_GET_OUTPUT);
    assert.ok(server.headers.length >= 3);
    for (const h of server.headers) {
      assert.equal(h.authorization, "Bearer flag-token");
      assert.deepEqual([h["impersonate-user"], h["impersonate-group"], h["impersonate-uid"]], ["alice@example.com", "ml-team, oncall", "1234"]);
    }
  } finally {
    server.close();
  }
});

test("--username and --password: every request carries them as basic auth", async () => {
  const server = await startFakeApiServer({ tls: true, user: "{}" });
  try {
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--username", "admin", "--password", "s3cr:et"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, FAKE_GET_OUTPUT);
    assert.deepEqual(new Set(server.authorizations), new Set([`Basic ${Buffer.from("admin:s3cr:et").toString("base64")}`]));
  } finally {
    server.close();
  }
});

test("-s/--server, --certificate-authority and --token without any kubeconfig, -n for the namespace", async () => {
  const server = await startFakeApiServer({ tls: true });
  const home = mkdtempSync(path.join(tmpdir(), "karta-no-kubeconfig-"));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete env["KUBECONFIG"];
  delete env["KUBERNETES_SERVICE_HOST"];
  try {
    const r = await karta(["get", "pytorchjobs", "-s", server.url, "--certificate-authority", server.caFile!, "--token", "flag-token", "-n", "team"], env);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, FAKE_GET_OUTPUT);
    assert.deepEqual(new Set(server.authorizations), new Set(["Bearer flag-token"]));
    const none = await karta(["get", "pytorchjobs", "--token", "flag-token"], env);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /^karta get: kubeconfig: no kubeconfig found \(looked at .*: none exists\); give --kubeconfig or --server, set KUBECONFIG, or run in a pod$/m);
  } finally {
    server.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("--cluster or --user naming no entry, --as-group without --as: exit 1, naming it, nothing sent", async () => {
  const server = await startFakeApiServer();
  try {
    const cases: [string[], string][] = [
      [["--cluster", "staging"], 'karta get: kubeconfig: no server found for cluster "staging"'],
      [["--user", "admin"], 'karta get: kubeconfig: auth info "admin" does not exist'],
      [["--as-group", "ops"], "karta get: kubeconfig: requesting uid, groups or user-extra for u without impersonating a user"],
    ];
    for (const [flags, message] of cases) {
      const r = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, ...flags]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr.trim(), message);
    }
    assert.deepEqual(server.authorizations, []);
    const usage = await karta(["inspect", "-f", path.join(repoRoot, "examples", "pytorchjob.yaml"), "--as", "alice"]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /^karta inspect: --as reads the workload from a cluster: give it as KIND\/NAME$/m);
  } finally {
    server.close();
  }
});

test("kubectl's flags given empty (--namespace=, -o=, --token=...) are as if not given; --request-timeout= is no limit", async () => {
  const server = await startFakeApiServer({ tls: true });
  try {
    const plain = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig]);
    assert.equal(plain.code, 0, plain.stderr);
    const asked = server.headers.splice(0);
    const empty = ["--namespace=", "-n=", "-o=", "-l=", "--context=", "--cluster=", "--user=", "-s=", "--token=", "--username=", "--as=", "--as-group=", "--as-uid=", "--tls-server-name=", "--request-timeout="];
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, ...empty]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, plain.stdout);
    assert.match(r.stdout, FAKE_GET_OUTPUT);
    // The same requests with the same credentials, and no impersonation.
    assert.deepEqual(server.headers.map((h) => [h.authorization, h["impersonate-user"]]), asked.map((h) => [h.authorization, h["impersonate-user"]]));
    const described = await karta(["describe", "pytorchjob/llama-finetune", "--kubeconfig", server.kubeconfig, "--namespace=", "-o="]);
    const describedPlain = await karta(["describe", "pytorchjob/llama-finetune", "--kubeconfig", server.kubeconfig]);
    // The fake server lists but has no object by name: both are not found, in the context's namespace.
    assert.match(describedPlain.stderr, /PyTorchJob "llama-finetune" not found in namespace team/);
    assert.deepEqual([described.code, described.stdout, described.stderr], [describedPlain.code, describedPlain.stdout, describedPlain.stderr]);
  } finally {
    server.close();
  }
});

test("an http:// server (or host:port, read as one) gets no credentials, as from kubectl; impersonation still goes", async () => {
  const server = await startFakeApiServer({ user: "{token: secret}" });
  try {
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--as", "alice"]);
    assert.equal(r.code, 0, r.stderr);
    const bare = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "-s", server.url.replace("http://", ""), "--token", "flag-token"]);
    assert.equal(bare.code, 0, bare.stderr);
    assert.ok(server.headers.length >= 6);
    for (const h of server.headers) assert.equal(h.authorization, undefined);
    assert.ok(server.headers.some((h) => h["impersonate-user"] === "alice"));
  } finally {
    server.close();
  }
});

test("answers asked for in gzip, as kubectl asks, unless --disable-compression or the cluster's disable-compression", async () => {
  const server = await startFakeApiServer();
  try {
    const gzip = (): (string | undefined)[] => server.headers.splice(0).map((h) => h["accept-encoding"]);
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, FAKE_GET_OUTPUT);
    const asked = gzip();
    assert.ok(asked.length >= 3 && asked.every((a) => a === "gzip"), JSON.stringify(asked));
    const off = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--disable-compression"]);
    assert.equal(off.code, 0, off.stderr);
    assert.match(off.stdout, FAKE_GET_OUTPUT);
    assert.ok(gzip().every((a) => a === undefined));
    writeFileSync(server.kubeconfig, readFileSync(server.kubeconfig, "utf8").replace("cluster: {server:", "cluster: {disable-compression: true, server:"));
    assert.equal((await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig])).code, 0);
    assert.ok(gzip().every((a) => a === undefined));
  } finally {
    server.close();
  }
});

test("with no kubeconfig at all, get, describe and inspect KIND/NAME say that none was found and where they looked", async () => {
  const home = mkdtempSync(path.join(tmpdir(), "karta-nohome-"));
  try {
    // Not in a pod either (its service account would be the configuration).
    const { KUBERNETES_SERVICE_HOST: _host, KUBERNETES_SERVICE_PORT: _port, ...outside } = process.env;
    const env = { ...outside, HOME: home, KUBECONFIG: path.join(home, "absent") };
    for (const args of [["get", "jobset", "-n", "research"], ["describe", "jobset/x", "-n", "research"], ["inspect", "pytorchjob/bert", "-n", "team-a"]]) {
      const r = await karta(args, env);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, "");
      assert.equal(r.stderr, `karta ${args[0]}: kubeconfig: no kubeconfig found (looked at KUBECONFIG ${path.join(home, "absent")}, ${path.join(home, ".kube", "config")}: none exists); give --kubeconfig or --server, set KUBECONFIG, or run in a pod\n`);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("--chunk-size: get and describe read their lists in pages of N (limit=N), 500 by default, 0 in one request", async () => {
  const server = await startFakeApiServer();
  try {
    const lists = (): string[] => server.urls.filter((u) => /\/(pytorchjobs|pods)(\?|$)/.test(u) && !u.includes("watch=true"));
    const limits = (): (string | null)[] => [...new Set(lists().map((u) => new URL(u, "http://x").searchParams.get("limit")))];
    for (const [args, want] of [[[], ["500"]], [["--chunk-size", "2"], ["2"]], [["--chunk-size=0"], [null]]] as const) {
      for (const command of ["get", "describe"]) {
        server.urls.length = 0;
        const r = await karta([command, "pytorchjobs", "--kubeconfig", server.kubeconfig, ...args]);
        assert.equal(r.code, 0, r.stderr);
        assert.ok(lists().length > 0, `${command} listed nothing`);
        assert.deepEqual(limits(), want, `${command} ${args.join(" ")}`);
      }
    }
    const bad = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--chunk-size", "-1"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /invalid value '-1' for --chunk-size/);
  } finally {
    server.close();
  }
});
