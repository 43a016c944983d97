/** --cert-dir: what is generated, what is reused as its owner put it there, and why a file cannot serve. */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { caBundleText, ensureCertDir } from "../../src/server/certs.js";
import { readKeyPair } from "../../src/server/tls.js";
import { tempDir, writeCerts } from "./helpers.js";

describe("--cert-dir", () => {
  const dirs: string[] = [];
  const dir = (): string => {
    const d = tempDir("karta-certdir-");
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  test("an empty directory gets a CA and a serving certificate; a second start reuses them", () => {
    const d = dir();
    const made = ensureCertDir(d, ["localhost"]);
    assert.equal(made.created, true);
    assert.equal(caBundleText(made), path.join(d, "ca.crt"));
    const cert = readFileSync(made.certFile, "utf8");
    assert.equal(ensureCertDir(d, ["localhost"]).created, false);
    assert.equal(readFileSync(made.certFile, "utf8"), cert);
  });

  test("a tls.crt and tls.key put there without ca.crt (a TLS Secret mounted) are used, never replaced", () => {
    const d = dir();
    const own = writeCerts(d);
    rmSync(own.caFile);
    const before = [readFileSync(own.certFile, "utf8"), readFileSync(own.keyFile, "utf8")];
    const used = ensureCertDir(d, ["localhost"]);
    assert.equal(used.created, false);
    assert.deepEqual([readFileSync(own.certFile, "utf8"), readFileSync(own.keyFile, "utf8")], before);
    assert.equal(existsSync(own.caFile), false);
    assert.equal(caBundleText(used), `none (${own.caFile} absent: the certificate was not generated there; its issuer's CA is the bundle)`);
  });

  test("a ca.crt that did not issue tls.crt (left from another pair) is said to be no bundle of it", () => {
    const d = dir();
    const own = writeCerts(d);
    assert.equal(caBundleText({ ...own }), own.caFile);
    const other = writeCerts(dir());
    writeFileSync(own.caFile, readFileSync(other.caFile));
    assert.equal(caBundleText({ ...own }), `${own.caFile}, which did not issue tls.crt: give the CA that did to the callers`);
    writeFileSync(own.caFile, "junk");
    assert.equal(caBundleText({ ...own }), `${own.caFile}, which is not a PEM certificate: give the CA that issued tls.crt to the callers`);
  });

  test("a tls.crt that cannot be read is named", () => {
    const d = dir();
    mkdirSync(path.join(d, "tls.crt"));
    writeFileSync(path.join(d, "tls.key"), "x");
    assert.throws(() => ensureCertDir(d, ["localhost"]), (e: Error) => e.message === "cannot read tls.crt: is a directory");
  });

  test("half a pair is refused and left as it is, as controller-runtime refuses a missing key: never replaced by a generated pair", () => {
    for (const [keep, gone] of [["certFile", "keyFile"], ["keyFile", "certFile"]] as const) {
      const d = dir();
      const own = writeCerts(d);
      rmSync(own.caFile);
      rmSync(own[gone]);
      const before = readFileSync(own[keep], "utf8");
      assert.throws(() => ensureCertDir(d, ["localhost"]), (e: Error) => e.message === `${path.basename(own[keep])} is there but ${path.basename(own[gone])} is not: give both (or neither, to generate a pair); nothing was written`);
      assert.equal(readFileSync(own[keep], "utf8"), before);
      assert.deepEqual([existsSync(own[gone]), existsSync(own.caFile)], [false, false]);
    }
  });

  test("a ca.crt alone is refused and left as it is: generating a CA would replace someone's bundle", () => {
    const d = dir();
    const own = writeCerts(d);
    rmSync(own.certFile);
    rmSync(own.keyFile);
    const before = readFileSync(own.caFile, "utf8");
    assert.throws(() => ensureCertDir(d, ["localhost"]), (e: Error) => e.message === "ca.crt is there but tls.crt and tls.key are not: give the pair it issued (or remove it, to generate a CA and a pair); nothing was written");
    assert.equal(readFileSync(own.caFile, "utf8"), before);
    assert.deepEqual(readdirSync(d).sort(), ["ca.crt"]);
  });

  test("a generation that cannot write one of its files leaves none of them, not even a temporary one", () => {
    const d = dir();
    // The certificate's temporary name taken by a directory: its write fails after the key's succeeded.
    const blocker = `tls.crt.tmp-${process.pid}`;
    mkdirSync(path.join(d, blocker));
    assert.throws(() => ensureCertDir(d, ["localhost"]), (e: Error) => e.message.startsWith("cannot write: "));
    assert.deepEqual(readdirSync(d), [blocker]);
  });

  test("a file that is no PEM certificate or key is named with why, in words rather than OpenSSL's codes", () => {
    const d = dir();
    const own = writeCerts(d);
    const pem = readFileSync(own.certFile, "utf8");
    const encrypted = generateKeyPairSync("ec", { namedCurve: "P-256", privateKeyEncoding: { type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase: "x" }, publicKeyEncoding: { type: "spki", format: "pem" } }).privateKey;
    const cases: [string, string, string][] = [
      ["garbage", readFileSync(own.keyFile, "utf8"), "no certificate in the certificate file (no PEM block: expected -----BEGIN CERTIFICATE-----)"],
      ["-----BEGIN CERTIFICATE-----\nabc\n-----END CERTIFICATE-----\n", readFileSync(own.keyFile, "utf8"), "no certificate in the certificate file (its PEM block is not valid base64)"],
      [pem, "garbage", "no private key in the key file (no PEM block: expected -----BEGIN PRIVATE KEY-----)"],
      [pem, pem, "no private key in the key file (it holds CERTIFICATE PEM data, not a PRIVATE KEY)"],
      [pem, "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n", "no private key in the key file (not a private key in PEM (PKCS#8, PKCS#1 or SEC 1) or DER that can be decoded)"],
      [readFileSync(own.keyFile, "utf8"), readFileSync(own.keyFile, "utf8"), "no certificate in the certificate file (it holds PRIVATE KEY PEM data, not a CERTIFICATE)"],
      [pem, encrypted, "no private key in the key file (the key is encrypted with a passphrase; give it decrypted (openssl pkey -in KEY -out KEY))"],
    ];
    for (const [cert, key, why] of cases) {
      writeFileSync(own.certFile, cert);
      writeFileSync(own.keyFile, key);
      const r = readKeyPair(own.certFile, own.keyFile);
      assert.equal(r.ok, false);
      assert.equal(r.ok ? "" : r.error, `${own.certFile}, ${own.keyFile}: not a usable certificate and key: ${why}`);
    }
  });
});
