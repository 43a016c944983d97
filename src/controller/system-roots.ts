/**
 * The root certificates client-go trusts when a kubeconfig names no certificate authority: Go's system
 * roots, read on Linux as crypto/x509 reads them (SSL_CERT_FILE, else the first distribution bundle that
 * can be read; then every file of SSL_CERT_DIR's directories, else of /etc/ssl/certs and
 * /etc/pki/tls/certs). kubectl trusts them for such an API server, for an https proxy and for an oidc
 * issuer; Node.js would trust its own bundled roots instead, which lack a company's CA installed on the
 * machine. NODE_EXTRA_CA_CERTS, which Node.js adds to its own roots, is added to these too.
 */
import { readdirSync, readFileSync, readlinkSync, lstatSync } from "node:fs";
import path from "node:path";
import tls from "node:tls";

/** Go's certFiles for Linux, in its order: the first that can be read is used. */
const CERT_FILES = [
  "/etc/ssl/certs/ca-certificates.crt", // Debian, Ubuntu, Gentoo
  "/etc/pki/tls/certs/ca-bundle.crt", // Fedora, RHEL 6
  "/etc/ssl/ca-bundle.pem", // OpenSUSE
  "/etc/pki/tls/cacert.pem", // OpenELEC
  "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", // CentOS, RHEL 7
  "/etc/ssl/cert.pem", // Alpine
];
/** Go's certDirectories for Linux: every file in them is read. */
const CERT_DIRECTORIES = ["/etc/ssl/certs", "/etc/pki/tls/certs"];

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+?)-----END CERTIFICATE-----/g;

/** The certificates of a PEM text, each in one canonical form (so the same certificate twice is one). */
function certificates(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PEM_CERTIFICATE)) {
    const body = m[1]!.replace(/\s+/g, "");
    out.push(`-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, "$1\n").replace(/\n$/, "")}\n-----END CERTIFICATE-----\n`);
  }
  return out;
}

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, "latin1");
  } catch {
    return "";
  }
}

/** A directory's files, but not links to files of the same directory (Go's readUniqueDirectoryEntries). */
function uniqueFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort(); // in Go's order (os.ReadDir sorts by name)
  } catch {
    return [];
  }
  return names
    .filter((name) => {
      const p = path.join(dir, name);
      try {
        if (!lstatSync(p).isSymbolicLink()) return true;
        return path.dirname(path.resolve(dir, readlinkSync(p))) !== path.resolve(dir);
      } catch {
        return false;
      }
    })
    .map((name) => path.join(dir, name));
}

let cached: { key: string; certs: string[] | undefined } | undefined;

/**
 * The system's root certificates (PEM, each once), with NODE_EXTRA_CA_CERTS's; undefined where there are
 * none (Node.js's own roots are used) and on platforms whose roots are not files (macOS, Windows).
 */
export function systemRootCertificates(env: Readonly<Record<string, string | undefined>> = process.env): string[] | undefined {
  if (process.platform !== "linux") return undefined;
  const key = [env["SSL_CERT_FILE"], env["SSL_CERT_DIR"], env["NODE_EXTRA_CA_CERTS"]].join("\0");
  if (cached?.key === key) return cached.certs;
  const texts: string[] = [];
  for (const file of env["SSL_CERT_FILE"] ? [env["SSL_CERT_FILE"]] : CERT_FILES) {
    const text = readOrEmpty(file);
    if (text === "") continue;
    texts.push(text);
    break;
  }
  const dirs = env["SSL_CERT_DIR"] ? env["SSL_CERT_DIR"].split(":") : CERT_DIRECTORIES;
  for (const dir of dirs) for (const file of uniqueFiles(dir)) texts.push(readOrEmpty(file));
  const certs = texts.flatMap(certificates);
  if (certs.length > 0 && env["NODE_EXTRA_CA_CERTS"]) certs.push(...certificates(readOrEmpty(env["NODE_EXTRA_CA_CERTS"])));
  const out = certs.length > 0 ? [...new Set(certs)] : undefined;
  cached = { key, certs: out };
  return out;
}

let plainContext: { certs: string[]; context: tls.SecureContext } | undefined;

/**
 * A TLS context trusting the system's roots, with a client certificate when given (made once per
 * identity: a context of a few hundred roots takes tens of ms to make, too long for every connection);
 * undefined where Node.js's own roots apply.
 */
export function systemTrust(cert?: Buffer, key?: Buffer): tls.SecureContext | undefined {
  const certs = systemRootCertificates();
  if (!certs) return undefined;
  // A certificate that does not parse is left out (Node.js ignores it), as Go skips it.
  if (cert && key) return tls.createSecureContext({ ca: certs, cert, key });
  if (plainContext?.certs !== certs) plainContext = { certs, context: tls.createSecureContext({ ca: certs }) };
  return plainContext.context;
}

/**
 * What a TLS connection trusts, as Go's transport takes it: `ca` when given (a kubeconfig's, an oidc
 * issuer's), else the system's roots; with the client certificate when given.
 */
export function trustOptions(ca: Buffer | undefined, cert?: Buffer, key?: Buffer): tls.ConnectionOptions {
  const identity = cert && key ? { cert, key } : {};
  if (ca) return { ca, ...identity };
  const context = systemTrust(cert, key);
  return context ? { secureContext: context } : identity;
}
