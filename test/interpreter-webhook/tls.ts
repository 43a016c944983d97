/**
 * Test certificates made at test time with the openssl binary (Node cannot issue X.509
 * certificates): a CA, and a server certificate it signs for the webhook Service's DNS name and
 * 127.0.0.1. Undefined (the tests skip) when openssl is not installed.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface TestPki {
  caPem: string;
  certPem: string;
  keyPem: string;
  /** The CA bundle as a webhook clientConfig carries it (base64 of the PEM). */
  caBundle: string;
}

function openssl(args: string[], cwd: string): void {
  execFileSync("openssl", args, { cwd, stdio: ["ignore", "ignore", "pipe"], timeout: 20_000 });
}

/** A fresh CA and a server certificate for `dnsNames` and 127.0.0.1, or undefined without openssl. */
export function makeTestPki(dnsNames: string[]): TestPki | undefined {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-pki-"));
  try {
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    openssl(["req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=karta-test-ca"], dir);
    openssl(["req", ...ec, "-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=karta-webhook"], dir);
    const san = [...dnsNames.map((d) => `DNS:${d}`), "IP:127.0.0.1"].join(",");
    writeFileSync(path.join(dir, "ext.cnf"), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
    openssl(["x509", "-req", "-in", "srv.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "srv.crt", "-days", "1", "-extfile", "ext.cnf"], dir);
    const caPem = readFileSync(path.join(dir, "ca.crt"), "utf8");
    return {
      caPem,
      certPem: readFileSync(path.join(dir, "srv.crt"), "utf8"),
      keyPem: readFileSync(path.join(dir, "srv.key"), "utf8"),
      caBundle: Buffer.from(caPem).toString("base64"),
    };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") {
      console.log("notice: openssl is not installed; skipping the HTTPS webhook tests");
      return undefined;
    }
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
