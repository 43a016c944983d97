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
    return `no certificate in the certificate file: ${(e as Error).message}`;
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (e) {
    return `no private key in the key file: ${(e as Error).message}`;
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
