/**
 * kubectl's --request-timeout on the live commands, run as a user runs them against
 * test/support/fake-apiserver.ts: a server slower than the limit is an error naming it and the limit; a
 * number is seconds; the time an exec credential plugin takes (someone logging in) is not a request's.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { runKarta as karta } from "../support/cluster.js";
import { repoRoot } from "../support/conformance.js";
import { FAKE_GET_OUTPUT, startFakeApiServer } from "../support/fake-apiserver.js";


test("a list slower than --request-timeout (also one below a millisecond): exit 1, naming the server and the limit", async () => {
  const server = await startFakeApiServer({ listDelayMs: 4_000 });
  try {
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--request-timeout", "1s"]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^karta get: listing pytorchjobs\.kubeflow\.org in namespace team: no answer from http:\/\/127\.0\.0\.1:\d+ within 1 s$/m);
    assert.equal(r.stdout, "");
    const tiny = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--request-timeout", "1500us"]);
    assert.equal(tiny.code, 1, tiny.stderr);
    assert.match(tiny.stderr, /: no answer from http:\/\/127\.0\.0\.1:\d+ within 0\.0015 s$/m);
  } finally {
    server.close();
  }
});

test("--request-timeout as a number of seconds or a duration, as kubectl takes it: a slow list within it is read, the server told", async () => {
  const server = await startFakeApiServer({ listDelayMs: 1_500 });
  try {
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--request-timeout", "20"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, FAKE_GET_OUTPUT);
    // kubectl tells the server too: ?timeout= in Go's duration text, on every request.
    assert.ok(server.urls.length >= 3);
    for (const u of server.urls) assert.equal(new URL(u, "http://x").searchParams.get("timeout"), "20s", u);
    server.urls.length = 0;
    const fractional = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--request-timeout", "1m2.5s"]);
    assert.equal(fractional.code, 0, fractional.stderr);
    for (const u of server.urls) assert.equal(new URL(u, "http://x").searchParams.get("timeout"), "1m2.5s", u);
    server.urls.length = 0;
    // Without the flag (Karta's own 30 s deadline), or with 0 (no limit), nothing is sent, as kubectl sends nothing then.
    assert.equal((await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig])).code, 0);
    assert.equal((await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--request-timeout=0"])).code, 0);
    for (const u of server.urls) assert.equal(new URL(u, "http://x").searchParams.get("timeout"), null, u);
  } finally {
    server.close();
  }
});

test("an exec plugin slower than --request-timeout: its time is not counted, every request is answered", async () => {
  const server = await startFakeApiServer({ tls: true, user: "{exec: {apiVersion: client.authentication.k8s.io/v1, command: ./login, interactiveMode: Never}}" });
  try {
    writeFileSync(path.join(server.dir, "login"), `#!/bin/sh\nsleep 2\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"slow"}}'\n`);
    chmodSync(path.join(server.dir, "login"), 0o755);
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--request-timeout", "1s"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, FAKE_GET_OUTPUT);
    // Not even the cluster's Karta definitions (read first) time out.
    assert.deepEqual(r.stderr.split("\n").filter((l) => l !== "" && !l.includes("serves no Karta definitions")), []);
    assert.ok(server.authorizations.length >= 3);
    assert.deepEqual(new Set(server.authorizations), new Set(["Bearer slow"]));
  } finally {
    server.close();
  }
});

test("a token refused (401) and fetched again by a slow plugin: the new attempt gets its own deadline", async () => {
  const server = await startFakeApiServer({ tls: true, refuse: "Bearer tok-1", user: "{exec: {apiVersion: client.authentication.k8s.io/v1, command: ./login, interactiveMode: Never}}" });
  try {
    // Each run takes 1.5 s and gives the next token: tok-1 (refused), tok-2...
    writeFileSync(path.join(server.dir, "login"), `#!/bin/sh\ncd "$(dirname "$0")"\nn=$(( $(cat count 2>/dev/null || echo 0) + 1 ))\necho $n > count\nsleep 1.5\nprintf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tok-%s"}}' $n\n`);
    chmodSync(path.join(server.dir, "login"), 0o755);
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig, "--request-timeout", "1s"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, FAKE_GET_OUTPUT);
    assert.deepEqual(r.stderr.split("\n").filter((l) => l !== "" && !l.includes("serves no Karta definitions")), []);
    assert.ok(server.authorizations.includes("Bearer tok-1") && server.authorizations.includes("Bearer tok-2"), server.authorizations.join(","));
  } finally {
    server.close();
  }
});

test("--request-timeout given wrong, or without a cluster to read: usage errors", async () => {
  const cases: [string[], RegExp][] = [
    [["get", "pytorchjobs", "--request-timeout", "soon"], /^karta get: invalid argument "soon" for "--request-timeout": expected a number of seconds or a duration such as 30s or 2m \(0: no limit\)$/m],
    [["describe", "pytorchjob/x", "--request-timeout", "-1"], /^karta describe: invalid argument "-1" for "--request-timeout"/m],
    [["inspect", "-f", path.join(repoRoot, "examples", "pytorchjob.yaml"), "--request-timeout", "5s"], /^karta inspect: --request-timeout reads the workload from a cluster: give it as KIND\/NAME$/m],
    [["compile", "pytorchjob/x", "--request-timeout", "1d"], /^karta compile: invalid argument "1d" for "--request-timeout"/m],
  ];
  for (const [args, message] of cases) {
    const r = await karta(args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(" "));
  }
});
