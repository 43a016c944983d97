/**
 * Self-signed serving certificates for `karta serve --cert-dir DIR` (as kube-apiserver's --cert-dir):
 * a CA and a serving certificate signed by it, written to DIR as ca.crt, tls.crt and tls.key (the
 * names cert-manager gives a Secret's keys), and reused when they are already there. RSA keys come
 * from Node's crypto; node-forge builds and signs the X.509 certificates.
 */
import { generateKeyPairSync, randomBytes, X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import forge from "node-forge";
import { systemErrorText } from "../files/read-error.js";

/** The files of a certificate directory. */
export interface CertFiles {
  caFile: string;
  certFile: string;
  keyFile: string;
}

/** A certificate and its key, as PEM. */
export interface Issued {
  certPem: string;
  keyPem: string;
}

function keyPair(): { pub: forge.pki.PublicKey; priv: forge.pki.rsa.PrivateKey; pem: string } {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return { pub: forge.pki.publicKeyFromPem(publicKey.export({ type: "spki", format: "pem" }).toString()), priv: forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey, pem };
}

function serial(): string {
  // Positive (high bit clear), 16 bytes, as RFC 5280 allows.
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString("hex");
}

/** A new key pair and a certificate for its public key, valid from a minute ago (clock skew) for `days`. */
function newCertificate(days: number): { k: ReturnType<typeof keyPair>; cert: forge.pki.Certificate } {
  const k = keyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = k.pub;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + days * 86_400_000);
  return { k, cert };
}

/** A self-signed CA valid for `days`. */
export function createCA(commonName = "karta-webhook-ca", days = 3650): Issued & { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey } {
  const { k, cert } = newCertificate(days);
  const name = [{ name: "commonName", value: commonName }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  cert.sign(k.priv, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: k.pem, cert, key: k.priv };
}

/** A serving certificate for these DNS names and IP addresses, signed by the CA. */
export function issueServing(ca: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey }, names: readonly string[], days = 365): Issued {
  const { k, cert } = newCertificate(days);
  cert.setSubject([{ name: "commonName", value: names[0] ?? "karta-webhook" }]);
  cert.setIssuer(ca.cert.subject.attributes);
  const altNames = names.map((n) => (/^[0-9.]+$|:/.test(n) ? { type: 7, ip: n } : { type: 2, value: n }));
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames },
  ]);
  cert.sign(ca.key, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: k.pem };
}

/** The names a local serving certificate covers. */
export function defaultServingNames(extra: readonly string[] = []): string[] {
  return [...new Set(["localhost", hostname(), "127.0.0.1", "::1", ...extra])];
}

/**
 * Writes each file to a temporary name, then renames them all: a write that fails (a full disk) leaves
 * none of them, and a process stopped mid-way leaves at most a temporary file, never a lone ca.crt or
 * half a pair, which the next start would refuse.
 */
function writeAllAtomic(files: readonly { file: string; text: string; mode: number }[]): void {
  const written: string[] = [];
  try {
    for (const f of files) {
      const tmp = `${f.file}.tmp-${process.pid}`;
      written.push(tmp);
      writeFileSync(tmp, f.text, { mode: f.mode });
    }
  } catch (err) {
    for (const tmp of written) rmSync(tmp, { force: true });
    throw err;
  }
  files.forEach((f, i) => renameSync(written[i]!, f.file));
}

/**
 * `dir` and the directories above it that are missing, created one at a time (as `mkdir -p`). Not
 * Node's recursive mkdirSync: under a file system that refuses mkdir with ENOENT although the parent
 * exists (procfs: `/proc/nope`), Node 20's never returns; here that ENOENT is the error.
 */
function makeDirectories(dir: string, mode: number): void {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !existsSync(d); d = path.dirname(d)) {
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d, { mode });
    } catch (err) {
      // Made meanwhile by another process (two replicas sharing a volume): fine if it is a directory.
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || !statSync(d).isDirectory()) throw err;
    }
  }
}

/** Thrown by ensureCertDir: why --cert-dir cannot hold the certificate, in a few words (`not a directory`). */
export class CertDirError extends Error {}

/**
 * Why `dir` cannot be made or written: `not a directory` (a file is in the way), `cannot create:
 * permission denied`, `cannot write: read-only file system`..., rather than Node's errno text naming a
 * temporary file.
 */
function certDirProblem(dir: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === "ENOTDIR" || code === "EEXIST") return "not a directory";
  let exists = false;
  try {
    exists = statSync(dir).isDirectory();
  } catch {
    // Not there: it was to be created.
  }
  return `cannot ${exists ? "write" : "create"}: ${systemErrorText(err).toLowerCase()}`;
}

/**
 * The certificate files of `dir`, and whether the pair is there (ensureCertDir then writes nothing): a
 * tls.crt and tls.key put there by their owner (a TLS Secret mounted without ca.crt) are used, as
 * controller-runtime's webhook server reads them, never replaced by a generated pair.
 */
export function certDirFiles(dir: string): CertFiles & { complete: boolean } {
  const files: CertFiles = { caFile: path.join(dir, "ca.crt"), certFile: path.join(dir, "tls.crt"), keyFile: path.join(dir, "tls.key") };
  return { ...files, complete: existsSync(files.certFile) && existsSync(files.keyFile) };
}

/** Where the CA bundle of a cert dir's certificate is, in words for a start-up message: ca.crt, or why there is none. */
export function caBundleText(files: CertFiles): string {
  if (!existsSync(files.caFile)) return `none (${files.caFile} absent: the certificate was not generated there; its issuer's CA is the bundle)`;
  // A ca.crt left from another pair would make every caller's TLS check fail: said here, where it is read.
  let ca: X509Certificate;
  try {
    ca = new X509Certificate(readFileSync(files.caFile));
  } catch {
    return `${files.caFile}, which is not a PEM certificate: give the CA that issued ${path.basename(files.certFile)} to the callers`;
  }
  try {
    const chain = readFileSync(files.certFile, "utf8").match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
    const issued = chain.some((pem) => {
      const c = new X509Certificate(pem);
      return c.fingerprint256 === ca.fingerprint256 || (c.checkIssued(ca) && c.verify(ca.publicKey));
    });
    return issued ? files.caFile : `${files.caFile}, which did not issue ${path.basename(files.certFile)}: give the CA that did to the callers`;
  } catch {
    // A tls.crt that cannot be read is reported where the pair is read, in its own words.
    return files.caFile;
  }
}

/**
 * The certificate files in `dir`, created when absent (a CA and a serving certificate for `names`);
 * existing files are kept, as kube-apiserver keeps the ones it generated before.
 */
export function ensureCertDir(dir: string, names: readonly string[] = defaultServingNames()): CertFiles & { created: boolean } {
  const { complete, ...files } = certDirFiles(dir);
  if (complete) {
    for (const f of [files.certFile, files.keyFile]) {
      try {
        readFileSync(f);
      } catch (err) {
        throw new CertDirError(`cannot read ${path.basename(f)}: ${systemErrorText(err).toLowerCase()}`);
      }
    }
    return { ...files, created: false };
  }
  // Half a pair is someone's (a copy cut short, a Secret missing a key): refused, never replaced by a generated pair.
  const [there, missing] = existsSync(files.certFile) ? [files.certFile, files.keyFile] : [files.keyFile, files.certFile];
  if (existsSync(there)) throw new CertDirError(`${path.basename(there)} is there but ${path.basename(missing)} is not: give both (or neither, to generate a pair); nothing was written`);
  // A ca.crt alone is someone's CA bundle (Karta writes the three files together): generating would replace it.
  if (existsSync(files.caFile)) throw new CertDirError(`${path.basename(files.caFile)} is there but ${path.basename(files.certFile)} and ${path.basename(files.keyFile)} are not: give the pair it issued (or remove it, to generate a CA and a pair); nothing was written`);
  try {
    makeDirectories(dir, 0o700);
  } catch (err) {
    throw new CertDirError(certDirProblem(dir, err));
  }
  const ca = createCA();
  const serving = issueServing(ca, names);
  try {
    writeAllAtomic([
      { file: files.keyFile, text: serving.keyPem, mode: 0o600 },
      { file: files.certFile, text: serving.certPem + ca.certPem, mode: 0o644 },
      { file: files.caFile, text: ca.certPem, mode: 0o644 },
    ]);
  } catch (err) {
    throw new CertDirError(certDirProblem(dir, err));
  }
  return { ...files, created: true };
}
