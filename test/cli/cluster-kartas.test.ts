/**
 * What `karta get` and `karta describe` say about the cluster's Kartas, run as a user runs them (main(),
 * its printed output and exit code) against test/support/fake-apiserver.ts: an invalid Karta (or two of one
 * kind) is a warning only where the command lists its kind; a cluster that is reachable but whose Kartas
 * cannot be listed is a warning, then the bundled definitions answer; a server that cannot be read at all
 * (not reached, no answer in time, 401) is the command's one error, said once, after one request's time.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "yaml";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { repoRoot } from "../support/conformance.js";
import { FAKE_GET_OUTPUT, startFakeApiServer } from "../support/fake-apiserver.js";

async function karta(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO();
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}

/** A bundled definition as a cluster Karta, its pod template path made unparseable (so the Karta is not valid). */
function brokenKarta(file: string, name: string): Record<string, any> {
  const karta = parse(readFileSync(path.join(repoRoot, "definitions", file), "utf8")) as Record<string, any>;
  karta.metadata = { ...karta.metadata, name, uid: `${name}-uid`, creationTimestamp: "2026-12-01T00:00:00Z" };
  const sd = karta.spec.structureDefinition;
  const c = sd.childComponents?.[0] ?? sd.rootComponent;
  c.specDefinition = { podTemplateSpecPath: '.spec | (("' };
  return karta;
}

const kartaLines = (err: string): string[] => err.split("\n").filter((l) => /Karta/.test(l));

test("an invalid Karta of another kind is not warned about; of the kind listed, or with --all-types, it is", async () => {
  const server = await startFakeApiServer({ named: true, kartas: [brokenKarta("jobset.x-k8s.io/v1alpha2/JobSet.yaml", "broken-jobset")] });
  try {
    for (const args of [
      ["get", "pytorchjobs"],
      ["get", "pytorchjob/llama-finetune", "-o", "name"],
      ["describe", "pytorchjob/llama-finetune"],
    ]) {
      const r = await karta([...args, "--kubeconfig", server.kubeconfig]);
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
      assert.deepEqual(kartaLines(r.err), [], args.join(" "));
    }
    const all = await karta(["get", "--all-types", "--kubeconfig", server.kubeconfig]);
    assert.equal(all.code, 0, all.err);
    assert.match(all.out, /^llama-finetune +team +PyTorchJob +/m);
    assert.deepEqual(kartaLines(all.err), ['karta get: warning: Karta broken-jobset is not valid (spec.structureDefinition.childComponents[0].specDefinition.podTemplateSpecPath: failed to parse JQ expression \'.spec | (("\' at \'Spec.StructureDefinition.ChildComponents[0].SpecDefinition.PodTemplateSpecPath\': syntax error, unexpected end of file, expecting QQSTRING_TEXT or QQSTRING_INTERP_START or QQSTRING_END); left out']);
  } finally {
    server.close();
  }
  const mine = await startFakeApiServer({ named: true, kartas: [brokenKarta("kubeflow.org/v1/PyTorchJob.yaml", "broken-pytorchjob")] });
  try {
    for (const [command, args] of [["get", ["get", "pytorchjobs"]], ["describe", ["describe", "pytorchjob", "llama-finetune"]]] as const) {
      const r = await karta([...args, "--kubeconfig", mine.kubeconfig]);
      assert.equal(r.code, 0, r.err);
      assert.deepEqual(kartaLines(r.err).length, 1, r.err);
      assert.match(kartaLines(r.err)[0]!, new RegExp(`^karta ${command}: warning: Karta broken-pytorchjob is not valid \\(.*\\); left out$`));
    }
    // The bundled definition answers for it.
    assert.match((await karta(["get", "pytorchjobs", "-o", "wide", "--kubeconfig", mine.kubeconfig])).out, /kubeflow-org-v1-pytorchjob +catalog$/m);
  } finally {
    mine.close();
  }
});

test("Kartas a reachable cluster does not let us list: a warning, then the bundled definitions", async () => {
  const server = await startFakeApiServer({ kartas: "forbidden" });
  try {
    const r = await karta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, FAKE_GET_OUTPUT);
    assert.equal(r.err, "karta get: warning: cannot list the cluster's Karta definitions (forbidden); using the bundled ones\n");
  } finally {
    server.close();
  }
});

test("a server that cannot be read (not reached, no answer in time, 401): one error, no warning first, one request", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-unreadable-"));
  const requests: string[] = [];
  // A server that takes requests and never answers.
  const silent = http.createServer((req) => void requests.push(req.url ?? ""));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const refusing = await startFakeApiServer({ tls: true, refuse: "Bearer t" });
  try {
    const kubeconfig = (name: string, server: string): string => {
      const file = path.join(dir, name);
      writeFileSync(file, `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: '${server}'}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n`);
      return file;
    };
    const down = kubeconfig("down", "https://127.0.0.1:1");
    for (const command of ["get", "describe"]) {
      const r = await karta([command, "pytorchjob/x", "--kubeconfig", down]);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, new RegExp(`^karta ${command}: discovering the API groups: cannot reach https://127\\.0\\.0\\.1:1: connect ECONNREFUSED 127\\.0\\.0\\.1:1\\n$`));
    }
    const port = (silent.address() as AddressInfo).port;
    const started = Date.now();
    const slow = await karta(["get", "pytorchjobs", "--request-timeout", "1s", "--kubeconfig", kubeconfig("silent", `http://127.0.0.1:${port}`)]);
    const took = Date.now() - started;
    assert.equal(slow.code, 1, slow.err);
    assert.equal(slow.err, `karta get: discovering the API groups: no answer from http://127.0.0.1:${port} within 1 s\n`);
    assert.deepEqual(requests.map((u) => new URL(u, "http://x").pathname), ["/apis"], "one request timed out, not one after another");
    assert.ok(took < 1_900, `took ${took} ms`);
    const unauthorized = await karta(["get", "pytorchjobs", "--kubeconfig", refusing.kubeconfig]);
    assert.deepEqual([unauthorized.code, unauthorized.err], [1, "karta get: discovering the API groups: Unauthorized\n"]);
  } finally {
    silent.closeAllConnections();
    silent.close();
    refusing.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
