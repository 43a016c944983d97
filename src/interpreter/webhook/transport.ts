/**
 * The HTTPS edge of the webhook layer: where a hook is reached (its url, or its Service resolved to
 * https://name.namespace.svc:port/path) and one bounded POST of a JSON body with Node's https module.
 * One request per call, no redirects followed, no retries, a deadline and a cap on the response size.
 */
import https from "node:https";
import tls from "node:tls";
import type { ServiceReference, WebhookClientConfig } from "./config.js";

/** Where and how to send: the URL dialled, the TLS server name checked, the CA certificates (PEM). */
export interface WebhookEndpoint {
  url: URL;
  /** The name the server certificate must carry (the Service's DNS name for service references). */
  serverName: string;
  /** PEM CA certificates from the caBundle; the system roots when undefined. */
  ca?: string;
}

/**
 * Turns a Service reference into the URL to dial. The default is the cluster DNS name
 * `https://<name>.<namespace>.svc:<port><path>`; tests and out-of-cluster callers inject their own
 * (the TLS name checked stays the Service's DNS name either way).
 */
export type ServiceResolver = (service: ServiceReference) => string;

/** The Service's in-cluster URL. */
export function serviceUrl(service: ServiceReference): string {
  return `https://${service.name}.${service.namespace}.svc:${service.port ?? 443}${service.path ?? ""}`;
}

/** Resolves a client config to an endpoint, or an error message. */
export function resolveEndpoint(cc: WebhookClientConfig, resolver: ServiceResolver = serviceUrl): { ok: true; endpoint: WebhookEndpoint } | { ok: false; error: string } {
  let ca: string | undefined;
  if (cc.caBundle) {
    const pem = Buffer.from(cc.caBundle, "base64").toString("utf8");
    if (!pem.includes("-----BEGIN CERTIFICATE-----")) return { ok: false, error: "caBundle does not hold a PEM certificate" };
    ca = pem;
  }
  let target: string;
  let serverName: string;
  if (cc.url !== undefined) {
    target = cc.url;
    try {
      serverName = new URL(cc.url).hostname;
    } catch {
      return { ok: false, error: `invalid url ${JSON.stringify(cc.url)}` };
    }
  } else if (cc.service !== undefined) {
    target = resolver(cc.service);
    serverName = `${cc.service.name}.${cc.service.namespace}.svc`;
  } else {
    return { ok: false, error: "neither url nor service is set in clientConfig" };
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return { ok: false, error: `invalid url ${JSON.stringify(target)}` };
  }
  if (url.protocol !== "https:") return { ok: false, error: `webhook scheme must be https, got ${JSON.stringify(url.protocol.slice(0, -1))}` };
  const endpoint: WebhookEndpoint = { url, serverName: serverName.replace(/^\[|\]$/g, "") };
  if (ca !== undefined) endpoint.ca = ca;
  return { ok: true, endpoint };
}

/** The largest response body read (bytes); larger responses are an error. */
export const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

/** The outcome of one POST. */
export type PostOutcome = { ok: true; status: number; body: string } | { ok: false; error: string };

/**
 * POSTs `body` as application/json with a deadline of `timeoutSeconds`, which is also sent as the
 * `timeout` query parameter (as Kubernetes' REST client does). Never throws.
 */
export function postJson(endpoint: WebhookEndpoint, body: string, timeoutSeconds: number): Promise<PostOutcome> {
  const url = new URL(endpoint.url.href);
  url.searchParams.set("timeout", `${timeoutSeconds}s`);
  const shown = `Post "${url.href}"`;
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (o: PostOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
    };
    const isIp = /^[0-9.]+$|:/.test(endpoint.serverName);
    const options: https.RequestOptions = {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json", "Content-Length": Buffer.byteLength(body) },
      agent: false,
      checkServerIdentity: (_host, cert) => tlsCheck(endpoint.serverName, cert),
    };
    if (!isIp) options.servername = endpoint.serverName;
    if (endpoint.ca !== undefined) options.ca = endpoint.ca;
    const req = https.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES) {
          finish({ ok: false, error: `${shown}: response body exceeds ${MAX_RESPONSE_BYTES} bytes` });
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      res.on("end", () => finish({ ok: true, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", (e) => finish({ ok: false, error: `${shown}: ${e.message}` }));
    });
    const timer = setTimeout(() => {
      finish({ ok: false, error: `${shown}: context deadline exceeded` });
      req.destroy();
    }, timeoutSeconds * 1000);
    req.on("error", (e) => finish({ ok: false, error: `${shown}: ${e.message}` }));
    req.end(body);
  });
}

/** Node's default identity check against the expected server name (not the dialled host). */
function tlsCheck(serverName: string, cert: tls.PeerCertificate): Error | undefined {
  return tls.checkServerIdentity(serverName, cert);
}
