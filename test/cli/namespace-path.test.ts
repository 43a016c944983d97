/**
 * A namespace or name never changes which API path is requested: -n/--namespace is a DNS-1123 label,
 * refused before any request (a usage error naming the flag), as is the kubeconfig context's namespace (as
 * clientcmd refuses it); a name that cannot be a path segment is refused as client-go refuses it, and every
 * other name is percent-escaped. Run against test/support/fake-apiserver.ts, which records each request.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { runKarta as karta } from "../support/cluster.js";
import { startFakeApiServer } from "../support/fake-apiserver.js";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";

const LABEL_RULE = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";

test("-n/--namespace that is not a DNS-1123 label: exit 2 naming the flag, on every command that reads a cluster, nothing sent", async () => {
  const server = await startFakeApiServer();
  try {
    const kc = ["--kubeconfig", server.kubeconfig];
    for (const [ns, flag] of [
      ["ml-team/pytorchjobs/llama-finetune#", "-n"],
      ["..", "-n"],
      ["../../api/v1", "--namespace"],
      ["ml team", "-n"],
      ["Team", "--namespace"],
      ["a".repeat(64), "-n"],
    ] as const) {
      for (const command of [["get", "pytorchjob"], ["get", "pytorchjob", "llama-finetune"], ["describe", "pytorchjob/llama-finetune"], ["inspect", "pytorchjob/llama-finetune"], ["compile", "pytorchjob/llama-finetune"]]) {
        for (const given of flag === "-n" ? [[flag, ns], [`${flag}=${ns}`], [`${flag}${ns}`]] : [[flag, ns], [`${flag}=${ns}`]]) {
          const io = memoryIO();
          const code = await main([...command, ...given, ...kc], io);
          const what = [...command, ...given].join(" ");
          assert.equal(code, 2, `${what}: ${io.err}`);
          const first = io.err.split("\n")[0]!;
          assert.ok(first.startsWith(`karta ${command[0]}: invalid value '${ns}' for ${flag}: `), `${what}: ${first}`);
          assert.ok(first.includes(ns.length > 63 ? "must be no more than 63 characters" : LABEL_RULE), `${what}: ${first}`);
          assert.equal(io.err.split("\n")[1], `Run 'karta ${command[0]} --help' for usage.`);
        }
      }
    }
    assert.deepEqual(server.urls, []);
  } finally {
    server.close();
  }
});

test("the kubeconfig context's namespace is checked as clientcmd checks it: exit 1, nothing sent", async () => {
  const server = await startFakeApiServer();
  try {
    const kubeconfig = path.join(server.dir, "bad-namespace");
    writeFileSync(kubeconfig, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "${server.url}"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u, namespace: "../../api/v1"}}]\ncurrent-context: x\n`);
    for (const args of [["get", "pytorchjob"], ["describe", "pytorchjob/llama-finetune"]]) {
      const r = await karta([...args, "--kubeconfig", kubeconfig]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr.trim(), `karta ${args[0]}: kubeconfig: namespace "../../api/v1" for context "x" does not conform to the kubernetes DNS_LABEL rules`);
    }
    assert.deepEqual(server.urls, []);
  } finally {
    server.close();
  }
});

test("a name that cannot be a path segment is refused as client-go refuses it; any other name is escaped", async () => {
  const server = await startFakeApiServer();
  try {
    const kc = ["--kubeconfig", server.kubeconfig];
    for (const [name, why] of [
      ["..", "[may not be '..']"],
      [".", "[may not be '.']"],
      ["50%", "[may not contain '%']"],
      ["..%2Fx", "[may not contain '%']"],
    ]) {
      const r = await karta(["get", "pytorchjob", name!, ...kc]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr.trim().split("\n").at(-1), `karta get: reading PyTorchJob ${name}: invalid resource name ${JSON.stringify(name)}: ${why}`);
    }
    const d = await karta(["describe", "pytorchjob/..", ...kc]);
    assert.equal(d.code, 1, d.stderr);
    assert.match(d.stderr, /invalid resource name "\.\.": \[may not be '\.\.'\]/);
    for (const [name, escaped] of [
      ["x#y", "x%23y"],
      ["a b", "a%20b"],
      ["q?watch=true", "q%3Fwatch%3Dtrue"],
    ]) {
      const r = await karta(["get", "pytorchjob", name!, ...kc]);
      assert.equal(r.code, 3, r.stderr); // not found, as the README's exit codes say
      assert.match(r.stderr, new RegExp(`PyTorchJob ${JSON.stringify(name).replace(/[?]/g, "\\?")} not found`));
      assert.ok(server.urls.some((u) => u.startsWith(`/apis/kubeflow.org/v1/namespaces/team/pytorchjobs/${escaped}?`) || u === `/apis/kubeflow.org/v1/namespaces/team/pytorchjobs/${escaped}`), `${name}: ${server.urls.join(" ")}`);
    }
    assert.ok(!server.urls.some((u) => /\/\.\.?(\/|\?|$)|%25/.test(u)), server.urls.join(" "));
  } finally {
    server.close();
  }
});
