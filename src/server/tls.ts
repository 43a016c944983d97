/**
 * The serving certificate: read from --tls-cert-file/--tls-private-key-file, checked, and reloaded
 * when the files change (cert-manager rotates the Secret behind them) without a restart: new
 * connections get the new certificate, connections already open keep theirs.
 */
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type https from "node:https";
import tls from "node:tls";
import { readErrorReason } from "../files/read-error.js";
import { PathWatcher } from "./watch.js";

/** A certificate chain and key, as PEM. */
export interface KeyPair {
  cert: string;
  key: string;
}

/**
 * Reads and checks the pair: a certificate (the first of the file, with its chain after it) and its key;
 * anything else (an empty file, a key that does not match the certificate) is an error. A failure carries
 * `seen`, what was read (the texts, or the error), so that the same bad files are told apart from new ones.
 */
export function readKeyPair(certFile: string, keyFile: string): { ok: true; pair: KeyPair } | { ok: false; error: string; seen: string } {
  let cert: string;
  let key: string;
  const unreadable = (file: string, e: unknown, seen: string) => {
    const error = `${file}: cannot read: ${readErrorReason(e)}`;
    return { ok: false as const, error, seen: `${seen}\0${error}` };
  };
  try {
    cert = readFileSync(certFile, "utf8");
  } catch (e) {
    return unreadable(certFile, e, "");
  }
  try {
    key = readFileSync(keyFile, "utf8");
  } catch (e) {
    return unreadable(keyFile, e, cert);
  }
  const problem = keyPairProblem(cert, key);
  if (problem !== undefined) return { ok: false, error: `${certFile}, ${keyFile}: not a usable certificate and key: ${problem}`, seen: `${cert}\0${key}` };
  return { ok: true, pair: { cert, key } };
}

/**
 * Why the pair cannot serve TLS, or undefined when it can. createSecureContext alone is not enough: it
 * takes an empty certificate or key as "none given" (every handshake then fails), and it does not
 * compare a key with a certificate of another algorithm (an EC certificate with an RSA key).
 */
function keyPairProblem(cert: string, key: string): string | undefined {
  if (cert.trim() === "") return "the certificate file is empty";
  if (key.trim() === "") return "the key file is empty";
  let leaf: X509Certificate;
  try {
    // The first certificate of the chain, the one the server presents.
    leaf = new X509Certificate(cert);
  } catch (e) {
    return `no certificate in the certificate file (${pemProblem(e, cert, "certificate")})`;
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (e) {
    return `no private key in the key file (${pemProblem(e, key, "private key")})`;
  }
  if (!leaf.checkPrivateKey(privateKey)) return `the key does not match the certificate (${leaf.subject.replace(/\n/g, ", ")})`;
  try {
    tls.createSecureContext({ cert, key });
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

/**
 * Why OpenSSL could not read a PEM file, in words rather than its `error:0480006C:PEM routines::no start
 * line` codes: the cases a mistaken file gives (another file, a truncated copy, a key it cannot decode).
 */
function pemProblem(e: unknown, text: string, what: "certificate" | "private key"): string {
  const code = (e as { code?: string })?.code;
  const blocks = [...text.matchAll(/-----BEGIN ([A-Z0-9 ]+)-----/g)].map((m) => m[1]!);
  const wanted = what === "certificate" ? (b: string) => b === "CERTIFICATE" : (b: string) => b.endsWith("PRIVATE KEY");
  // The two files swapped, or one copied twice: the file holds the other's PEM data.
  if (blocks.length > 0 && !blocks.some(wanted)) return `it holds ${[...new Set(blocks)].join(" and ")} PEM data, not a ${what === "certificate" ? "CERTIFICATE" : "PRIVATE KEY"}`;
  // A passphrase-protected key (PKCS#8 or OpenSSL's legacy header): a server cannot ask for the passphrase.
  if (what === "private key" && (blocks.includes("ENCRYPTED PRIVATE KEY") || /^Proc-Type: *4,ENCRYPTED/m.test(text))) return "the key is encrypted with a passphrase; give it decrypted (openssl pkey -in KEY -out KEY)";
  if (code === "ERR_OSSL_PEM_NO_START_LINE" || blocks.length === 0) return `no PEM block: expected -----BEGIN ${what === "certificate" ? "CERTIFICATE" : "PRIVATE KEY"}-----`;
  if (code === "ERR_OSSL_PEM_BAD_BASE64_DECODE") return "its PEM block is not valid base64";
  if (code === "ERR_OSSL_UNSUPPORTED") return `not a ${what} in PEM (PKCS#8, PKCS#1 or SEC 1) or DER that can be decoded`;
  // ASN.1 and other decoding errors: OpenSSL's reason without its error code.
  const reason = ((e as Error)?.message ?? String(e)).replace(/^error:[0-9A-Fa-f]+:[^:]*:[^:]*:/, "");
  return `its ${what} cannot be decoded: ${reason}`;
}

/**
 * Watches the pair's files and installs a changed, valid pair on the server; `report` hears each
 * change: a pair installed, or files that cannot be installed (the current pair stays in place), once
 * per change of the files rather than at every poll while they stay bad.
 */
export function reloadCertificates(server: https.Server, certFile: string, keyFile: string, current: KeyPair, report: (r: { ok: true } | { ok: false; error: string }) => void): PathWatcher {
  let installed = current;
  let failed: string | undefined;
  return new PathWatcher([certFile, keyFile], async () => {
    const read = readKeyPair(certFile, keyFile);
    if (!read.ok) {
      if (read.seen === failed) return;
      failed = read.seen;
      report(read);
      return;
    }
    failed = undefined;
    if (read.pair.cert === installed.cert && read.pair.key === installed.key) return;
    server.setSecureContext(read.pair);
    installed = read.pair;
    report({ ok: true });
  });
}
