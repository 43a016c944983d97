/**
 * The roots trusted when a kubeconfig names no certificate authority, read as Go reads the system's
 * (SSL_CERT_FILE or the first distribution bundle, then every file of SSL_CERT_DIR or the system's
 * certificate directories), with NODE_EXTRA_CA_CERTS; and `karta get` trusting an API server signed by a
 * CA only SSL_CERT_FILE names, as kubectl does, where Node.js's bundled roots would refuse it.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createCA } from "../../src/server/certs.js";
import { systemRootCertificates } from "../../src/controller/system-roots.js";
import { runKarta } from "../support/cluster.js";
import { FAKE_GET_OUTPUT, startFakeApiServer } from "../support/fake-apiserver.js";

const dir = mkdtempSync(path.join(tmpdir(), "karta-system-roots-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const [a, b, c, d] = ["a", "b", "c", "d"].map((n) => createCA(`root-${n}`).certPem);
/** The same certificate as another encoder writes it: CRLF, 76 columns. */
const reflowed = (pem: string): string => {
  const body = pem.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  return `-----BEGIN CERTIFICATE-----\r\n${body.replace(/(.{76})/g, "$1\r\n")}\r\n-----END CERTIFICATE-----\r\n`;
};
const subjects = (pems: string[] | undefined): string[] => (pems ?? []).map((p) => new X509Certificate(p).subject);

test("SSL_CERT_FILE, then every file of SSL_CERT_DIR's directories, then NODE_EXTRA_CA_CERTS: each certificate once", () => {
  const file = path.join(dir, "bundle.pem");
  writeFileSync(file, `# a bundle\n${a}${b}`);
  const certDir = path.join(dir, "certs");
  mkdirSync(path.join(certDir, "nested"), { recursive: true });
  writeFileSync(path.join(certDir, "c.pem"), c);
  writeFileSync(path.join(certDir, "a-again.crt"), reflowed(a));
  writeFileSync(path.join(certDir, "junk.txt"), "-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n");
  writeFileSync(path.join(certDir, "nested", "d.pem"), d); // not read: directories are not walked
  symlinkSync("c.pem", path.join(certDir, "1234abcd.0")); // a hash link within the directory: skipped, as by Go
  const extra = path.join(dir, "extra.pem");
  writeFileSync(extra, d);
  const roots = systemRootCertificates({ SSL_CERT_FILE: file, SSL_CERT_DIR: `${certDir}:${path.join(dir, "absent")}`, NODE_EXTRA_CA_CERTS: extra });
  assert.deepEqual(subjects(roots), ["CN=root-a", "CN=root-b", "CN=root-c", "CN=root-d"]);
  // SSL_CERT_FILE replaces the bundles; an unreadable one leaves the directories.
  assert.deepEqual(subjects(systemRootCertificates({ SSL_CERT_FILE: path.join(dir, "absent.pem"), SSL_CERT_DIR: certDir })), ["CN=root-a", "CN=root-c"]);
  // None found: undefined (Node.js's own roots are used), NODE_EXTRA_CA_CERTS or not.
  assert.equal(systemRootCertificates({ SSL_CERT_FILE: path.join(dir, "absent.pem"), SSL_CERT_DIR: path.join(dir, "absent"), NODE_EXTRA_CA_CERTS: extra }), undefined);
});

test("karta get trusts an API server whose kubeconfig names no CA through SSL_CERT_FILE, as kubectl does", async () => {
  const server = await startFakeApiServer({ tls: true });
  try {
    // The kubeconfig without its certificate-authority: the system's roots decide.
    writeFileSync(server.kubeconfig, readFileSync(server.kubeconfig, "utf8").replace(/, certificate-authority: [^}]*/, ""));
    const env = (roots: Record<string, string>): NodeJS.ProcessEnv => {
      const out: NodeJS.ProcessEnv = { ...process.env, ...roots };
      delete out["NODE_EXTRA_CA_CERTS"];
      return out;
    };
    const trusted = await runKarta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig], env({ SSL_CERT_FILE: server.caFile!, SSL_CERT_DIR: path.join(dir, "absent") }));
    assert.equal(trusted.code, 0, trusted.stderr);
    assert.match(trusted.stdout, FAKE_GET_OUTPUT);
    const refused = await runKarta(["get", "pytorchjobs", "--kubeconfig", server.kubeconfig], env({ SSL_CERT_FILE: "/etc/ssl/certs/ca-certificates.crt", SSL_CERT_DIR: path.join(dir, "absent") }));
    assert.equal(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /certificate/);
  } finally {
    server.close();
  }
});
