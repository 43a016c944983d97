/**
 * The id-token of a kubeconfig's `oidc` auth-provider, kept fresh as client-go's oidc plugin keeps it: the
 * id-token held is sent while its `exp` is more than 10 s away; otherwise the refresh-token is exchanged at
 * the issuer's token endpoint (found by OpenID Connect discovery, `idp-issuer-url` +
 * `/.well-known/openid-configuration`), and the new id-token, with the new refresh-token if the issuer
 * rotated it, is written back into the kubeconfig file that defines the user (only those two values: the
 * file's other entries and its comments are kept, and the file is replaced whole, never half-written), so
 * kubectl and the next command start from it. The issuer is trusted through `idp-certificate-authority` or
 * `idp-certificate-authority-data`, else the system's roots (src/controller/system-roots.ts).
 */
import { chmodSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import { isMap, isSeq, parseDocument } from "yaml";
import { trustOptions } from "./system-roots.js";

/** A kubeconfig user's `auth-provider: {name: oidc, config: ...}`. */
export interface OidcProvider {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  idToken?: string;
  refreshToken?: string;
  /** The issuer's CA (PEM); undefined: the system's roots. */
  ca?: Buffer;
  /** Where new tokens are written: the kubeconfig file defining the user, and the user's name there. */
  persist?: { file: string; user: string };
}

/** client-go's expiryDelta: a token this close to its `exp` is treated as expired. */
const EXPIRY_DELTA_MS = 10_000;
/** The most a discovery document or token response may be. */
const MAX_RESPONSE_BYTES = 1 << 20;
/** Each request to the issuer. */
const ISSUER_TIMEOUT_MS = 30_000;

/** When a JWT expires (ms since the epoch); an Error when it is not one. */
export function jwtExpiry(token: string): number {
  const parts = token.split(".");
  if (parts.length !== 3) throw new Error("the oidc id-token is not a valid JWT");
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
  } catch {
    throw new Error("the oidc id-token's claims are not JSON");
  }
  const exp = (claims as { exp?: unknown } | null)?.exp;
  // A token without a numeric exp is expired, as client-go reads the zero time.
  return typeof exp === "number" && Number.isFinite(exp) ? Math.trunc(exp) * 1000 : 0;
}

/**
 * The id-token to send and when it must be looked at again (ms since the epoch): the one held while
 * valid, else a refreshed one (written back into the kubeconfig; `provider` is updated once it is).
 */
export async function oidcIdToken(provider: OidcProvider, now = Date.now()): Promise<{ token: string; until: number }> {
  if (provider.idToken !== undefined) {
    const expires = jwtExpiry(provider.idToken);
    if (now + EXPIRY_DELTA_MS < expires) return { token: provider.idToken, until: expires - EXPIRY_DELTA_MS };
  }
  if (provider.refreshToken === undefined) throw new Error("no valid oidc id-token, and no refresh-token to get one (log in again)");
  const tokenUrl = await tokenEndpoint(provider);
  const got = await refresh(provider, tokenUrl, provider.refreshToken);
  const refreshToken = got.refreshToken ?? provider.refreshToken;
  if (provider.persist) {
    try {
      persistTokens(provider.persist, got.idToken, refreshToken);
    } catch (err) {
      throw new Error(`could not write the new oidc tokens into ${provider.persist.file}: ${(err as Error).message}`);
    }
  }
  provider.idToken = got.idToken;
  provider.refreshToken = refreshToken;
  const expires = jwtExpiry(got.idToken);
  // A refreshed token that is already expired is sent once (the server judges it), then refreshed again.
  return { token: got.idToken, until: Math.max(now, expires - EXPIRY_DELTA_MS) };
}

/** The issuer's token endpoint, from its discovery document. */
async function tokenEndpoint(p: OidcProvider): Promise<string> {
  const url = `${p.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  const res = await issuerRequest(p, url, "GET");
  if (res.status !== 200) throw new Error(`oidc: the issuer's metadata ${url} answered ${res.status}: ${JSON.stringify(shorten(res.body))}`);
  let doc: unknown;
  try {
    doc = JSON.parse(res.body);
  } catch {
    throw new Error(`oidc: the issuer's metadata ${url} is not JSON`);
  }
  const endpoint = (doc as { token_endpoint?: unknown } | null)?.token_endpoint;
  if (typeof endpoint !== "string" || endpoint === "") throw new Error(`oidc: the issuer's metadata ${url} has no token_endpoint`);
  return endpoint;
}

/**
 * A refresh_token grant, with the client's credentials as HTTP basic auth, then, if refused, in the form
 * (golang.org/x/oauth2's AuthStyleAutoDetect, which client-go uses).
 */
async function refresh(p: OidcProvider, tokenUrl: string, refreshToken: string): Promise<{ idToken: string; refreshToken?: string }> {
  const form = (fields: Record<string, string>): string =>
    Object.entries(fields)
      .map(([k, v]) => `${goQueryEscape(k)}=${goQueryEscape(v)}`)
      .join("&");
  const grant = { grant_type: "refresh_token", refresh_token: refreshToken };
  const basic = `Basic ${Buffer.from(`${goQueryEscape(p.clientId)}:${goQueryEscape(p.clientSecret ?? "")}`).toString("base64")}`;
  let res = await issuerRequest(p, tokenUrl, "POST", form(grant), basic);
  if (res.status < 200 || res.status > 299) res = await issuerRequest(p, tokenUrl, "POST", form({ ...grant, client_id: p.clientId, ...(p.clientSecret ? { client_secret: p.clientSecret } : {}) }));
  const fields = tokenFields(res.body, res.contentType);
  if (res.status < 200 || res.status > 299) {
    const why = [fields["error"], fields["error_description"]].filter((x) => typeof x === "string" && x !== "").join(": ");
    throw new Error(`failed to refresh the oidc id-token at ${tokenUrl}: ${res.status}${why ? ` ${why}` : `: ${JSON.stringify(shorten(res.body))}`}`);
  }
  if (typeof fields["access_token"] !== "string" || fields["access_token"] === "") throw new Error(`failed to refresh the oidc id-token at ${tokenUrl}: the response has no access_token`);
  const idToken = fields["id_token"];
  if (typeof idToken !== "string" || idToken === "") {
    throw new Error(`the token response from ${tokenUrl} has no id_token: either the scope "openid" was not asked for at login, or the issuer gives no id-tokens on refresh`);
  }
  const rotated = fields["refresh_token"];
  return { idToken, ...(typeof rotated === "string" && rotated !== "" ? { refreshToken: rotated } : {}) };
}

/** A token response's fields: a form when the server says so (as oauth2 reads it), else JSON. */
function tokenFields(body: string, contentType: string): Record<string, unknown> {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-www-form-urlencoded" || type === "text/plain") return Object.fromEntries(new URLSearchParams(body));
  try {
    const v = JSON.parse(body) as unknown;
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Go's url.QueryEscape: everything but letters, digits and `-_.~` escaped, a space as `+`. */
function goQueryEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

function shorten(body: string): string {
  return body.length > 80 ? `${body.slice(0, 80)}...` : body;
}

type Answer = { status: number; contentType: string; location?: string; body: string };

/**
 * A request to the issuer (http or https, as Go's client allows either), following redirects as Go's
 * client follows them: at most 10; 301, 302 and 303 go on as a GET without the body, 307 and 308 as they
 * were; the Authorization header only to the same host or its subdomains.
 */
async function issuerRequest(p: OidcProvider, url: string, method: "GET" | "POST", body?: string, authorization?: string): Promise<Answer> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new Error(`oidc: ${url} is not a URL`);
  }
  const host = target.hostname;
  for (let redirects = 0; ; redirects++) {
    if (target.protocol !== "https:" && target.protocol !== "http:") throw new Error(`oidc: ${target.href}: expected an http or https URL`);
    const sameSite = target.hostname === host || target.hostname.endsWith(`.${host}`);
    const res = await issuerRequestOnce(p, target, method, body, sameSite ? authorization : undefined);
    if (![301, 302, 303, 307, 308].includes(res.status) || res.location === undefined) return res;
    if (redirects === 10) throw new Error(`oidc: ${url}: stopped after 10 redirects`);
    if (res.status <= 303 && method !== "GET") [method, body] = ["GET", undefined];
    target = new URL(res.location, target);
  }
}

/** One request: its status, content type, Location and body (at most 1 MiB, within 30 s). */
function issuerRequestOnce(p: OidcProvider, target: URL, method: "GET" | "POST", body: string | undefined, authorization: string | undefined): Promise<Answer> {
  const url = target.href;
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/x-www-form-urlencoded";
  if (authorization) headers["authorization"] = authorization;
  const secure = target.protocol === "https:";
  const trust = secure ? trustOptions(p.ca) : {};
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(target, { method, headers, ...trust, timeout: ISSUER_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES) req.destroy(new Error(`oidc: ${url} answered more than 1 MiB`));
        else chunks.push(c);
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), ...(res.headers.location ? { location: res.headers.location } : {}), body: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`oidc: ${url} did not answer within ${ISSUER_TIMEOUT_MS / 1000} s`)));
    req.on("error", (err) => reject(new Error(err.message.startsWith("oidc:") ? err.message : `oidc: ${url}: ${err.message}`)));
    req.end(body);
  });
}

/**
 * Writes the new tokens into the user's `auth-provider.config` in `file`, changing nothing else: the file
 * is edited as a YAML document (comments kept), written beside itself with its mode, then renamed over it.
 */
export function persistTokens(where: { file: string; user: string }, idToken: string, refreshToken: string): void {
  const text = readFileSync(where.file, "utf8");
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Error(doc.errors[0]!.message.split("\n")[0]);
  const users = doc.get("users");
  const index = isSeq(users) ? users.items.findIndex((u) => isMap(u) && u.get("name") === where.user) : -1;
  if (index < 0) throw new Error(`it no longer defines the user "${where.user}"`);
  for (const [key, value] of [
    ["id-token", idToken],
    ["refresh-token", refreshToken],
  ] as const) {
    doc.setIn(["users", index, "user", "auth-provider", "config", key], value);
  }
  const mode = statSync(where.file).mode & 0o777;
  const temp = path.join(path.dirname(where.file), `.${path.basename(where.file)}.karta-${process.pid}.tmp`);
  try {
    // Laid out as kubectl writes kubeconfigs (list items at their key's indentation), long tokens on one line.
    writeFileSync(temp, doc.toString({ indentSeq: false, flowCollectionPadding: false, lineWidth: 0 }), { mode });
    chmodSync(temp, mode); // writeFileSync's mode is masked by the umask
    renameSync(temp, where.file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
