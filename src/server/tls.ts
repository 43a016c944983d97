/**
 * The serving certificate: read from --tls-cert-file/--tls-private-key-file, checked, and reloaded
 * when the files change (cert-manager rotates the Secret behind them) without a restart: new
 * connections get the new certificate, connections already open keep theirs.
 */
import { readFileSync } from "node:fs";
import type https from "node:https";
import tls from "node:tls";
import { PathWatcher } from "./watch.js";

/** A certificate chain and key, as PEM. */
export interface KeyPair {
  cert: string;
  key: string;
}

/**
 * Reads and checks the pair (a key that does not match the certificate is an error). A failure carries
 * `seen`, what was read (the texts, or the error), so that the same bad files are told apart from new ones.
 */
export function readKeyPair(certFile: string, keyFile: string): { ok: true; pair: KeyPair } | { ok: false; error: string; seen: string } {
  let cert: string;
  let key: string;
  const unreadable = (file: string, e: unknown, seen: string) => {
    const error = `${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
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
  try {
    tls.createSecureContext({ cert, key });
  } catch (e) {
    return { ok: false, error: `${certFile}, ${keyFile}: not a usable certificate and key: ${(e as Error).message}`, seen: `${cert}\0${key}` };
  }
  return { ok: true, pair: { cert, key } };
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
