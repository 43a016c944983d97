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

/** Reads and checks the pair (a key that does not match the certificate is an error). */
export function readKeyPair(certFile: string, keyFile: string): { ok: true; pair: KeyPair } | { ok: false; error: string } {
  let cert: string;
  let key: string;
  try {
    cert = readFileSync(certFile, "utf8");
  } catch (e) {
    return { ok: false, error: `${certFile}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  try {
    key = readFileSync(keyFile, "utf8");
  } catch (e) {
    return { ok: false, error: `${keyFile}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` };
  }
  try {
    tls.createSecureContext({ cert, key });
  } catch (e) {
    return { ok: false, error: `${certFile}, ${keyFile}: not a usable certificate and key: ${(e as Error).message}` };
  }
  return { ok: true, pair: { cert, key } };
}

/**
 * Watches the pair's files and installs a changed, valid pair on the server; `report` hears each
 * attempt (an invalid pair leaves the current one in place).
 */
export function reloadCertificates(server: https.Server, certFile: string, keyFile: string, current: KeyPair, report: (r: { ok: true } | { ok: false; error: string }) => void): PathWatcher {
  let installed = current;
  return new PathWatcher([certFile, keyFile], async () => {
    const read = readKeyPair(certFile, keyFile);
    if (!read.ok) {
      report(read);
      return;
    }
    if (read.pair.cert === installed.cert && read.pair.key === installed.key) return;
    server.setSecureContext(read.pair);
    installed = read.pair;
    report({ ok: true });
  });
}
