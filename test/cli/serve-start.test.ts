/**
 * What `karta serve` and `karta controller` do before they listen: the configuration is checked before
 * a certificate is written into --cert-dir, and a --cert-dir that cannot hold one is said in a few words.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";

const dir = mkdtempSync(path.join(tmpdir(), "karta-serve-start-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("serve with a definition that has errors writes no certificate into --cert-dir", async () => {
  const bad = path.join(dir, "bad.yaml");
  writeFileSync(bad, "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: bad}\nspec:\n  structureDefinition:\n    rootComponent: {name: r, kind: {group: example.com, version: v1, kind: Thing}, nope: 1}\n");
  const certs = path.join(dir, "certs");
  const io = memoryIO();
  assert.equal(await main(["serve", "--cert-dir", certs, "--definitions", bad, "--secure-port", "0", "--metrics-bind-address", "127.0.0.1:0"], io), 1);
  assert.match(io.err, /^karta serve: the configuration has errors\n {2}.*bad\.yaml:\d+:\d+: error: /);
  assert.doesNotMatch(io.err, /generated/);
  assert.equal(existsSync(certs), false, "the certificate was written before the configuration was checked");
});

test("a --cert-dir that is a file, or that cannot be created, is one line without errno text or a temporary file's name", async () => {
  const file = path.join(dir, "a-file");
  writeFileSync(file, "");
  for (const [certDir, reason] of [[file, "not a directory"], [path.join(file, "sub"), "not a directory"], ["/proc/karta-nope", "cannot create: no such file or directory"]] as const) {
    const serve = memoryIO();
    assert.equal(await main(["serve", "--cert-dir", certDir, "--secure-port", "0", "--metrics-bind-address", "127.0.0.1:0"], serve), 1);
    assert.equal(serve.err, `karta serve: --cert-dir ${certDir}: ${reason}\n`);
    const controller = memoryIO();
    assert.equal(await main(["controller", "--cert-dir", certDir], controller), 1);
    assert.ok(controller.err.includes(JSON.stringify(`--cert-dir ${certDir}: ${reason}`)), controller.err);
  }
});
