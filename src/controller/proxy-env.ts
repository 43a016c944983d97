/**
 * The proxy the environment names for an API server, as client-go finds it when the kubeconfig gives no
 * `proxy-url`: Go's net/http.ProxyFromEnvironment (golang.org/x/net/http/httpproxy). HTTPS_PROXY (else
 * https_proxy) for an https server, HTTP_PROXY (else http_proxy) for an http one; a value without a scheme
 * is taken as http://; a value that is not a URL is ignored, as Go ignores it. The server is reached
 * directly when it is `localhost` or a loopback address, or when NO_PROXY (else no_proxy) names it: `*`,
 * an IP address or CIDR block, or a domain (`corp.example` matches it and its subdomains,
 * `.corp.example` and `*.corp.example` only its subdomains), each optionally with `:PORT`.
 * (Go also refuses HTTP_PROXY under CGI, REQUEST_METHOD set; Karta is never run as CGI.)
 */
import net from "node:net";

const DEFAULT_PORT: Record<string, string> = { "http:": "80", "https:": "443" };

/**
 * The proxy for requests to `server` (a URL string as in a kubeconfig) and the variable that named it, or
 * undefined for a direct connection.
 */
export function proxyFromEnvironment(server: string, env: Readonly<Record<string, string | undefined>>): { url: URL; variable: string } | undefined {
  const target = hostPort(server);
  if (!target) return undefined;
  const named = target.scheme === "https:" ? first(env, "HTTPS_PROXY", "https_proxy") : target.scheme === "http:" ? first(env, "HTTP_PROXY", "http_proxy") : undefined;
  const url = named === undefined ? undefined : parseProxy(named.value);
  if (!url) return undefined;
  return useProxy(target.host, target.port, first(env, "NO_PROXY", "no_proxy")?.value ?? "") ? { url, variable: named!.variable } : undefined;
}

/** The first variable of `names` set to a non-empty value (Go's getEnvAny). */
function first(env: Readonly<Record<string, string | undefined>>, ...names: string[]): { variable: string; value: string } | undefined {
  for (const n of names) if (env[n]) return { variable: n, value: env[n] };
  return undefined;
}

/** A proxy URL as Go parses it: with a scheme and a host, else read again with http:// before it. */
function parseProxy(value: string): URL | undefined {
  const parse = (text: string): URL | undefined => {
    try {
      const u = new URL(text);
      return u.host === "" ? undefined : u;
    } catch {
      return undefined;
    }
  };
  return parse(value) ?? parse(`http://${value}`);
}

/**
 * The scheme, host (as written: Go does not fold the case of a URL's host) and port (the scheme's default
 * when none) of a server URL.
 */
function hostPort(server: string): { scheme: string; host: string; port: string } | undefined {
  const m = /^([a-z][a-z0-9+.-]*:)\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d*))?/i.exec(server);
  if (!m) return undefined;
  const scheme = m[1]!.toLowerCase();
  const host = m[2]!.startsWith("[") ? m[2]!.slice(1, -1) : m[2]!;
  return { scheme, host, port: m[3] || (DEFAULT_PORT[scheme] ?? "") };
}

/** One NO_PROXY entry: every host, an address block, an address, or a domain, with an optional port. */
type NoProxy = { all: true } | { ips: net.BlockList; port: string } | { domain: string; port: string; matchHost: boolean };

/** Parses NO_PROXY as httpproxy's config.init does. */
function noProxyEntries(text: string): NoProxy[] {
  const out: NoProxy[] = [];
  for (let p of text.split(",")) {
    p = p.trim().toLowerCase();
    if (p === "") continue;
    if (p === "*") return [{ all: true }];
    const cidr = /^(.+)\/(\d{1,3})$/.exec(p);
    if (cidr && net.isIP(cidr[1]!) !== 0 && Number(cidr[2]) <= (net.isIP(cidr[1]!) === 4 ? 32 : 128)) {
      const ips = addresses((b, family) => b.addSubnet(cidr[1]!, Number(cidr[2]), family), cidr[1]!);
      if (ips) out.push({ ips, port: "" });
      continue;
    }
    let host = p;
    let port = "";
    const split = splitHostPort(p);
    if (split) {
      if (split.host === "") continue;
      [host, port] = [split.host, split.port];
    }
    if (net.isIP(host) !== 0) {
      const ips = addresses((b, family) => b.addAddress(host, family), host);
      if (ips) out.push({ ips, port });
      continue;
    }
    if (host === "") continue;
    if (host.startsWith("*.")) host = host.slice(1);
    const matchHost = !host.startsWith(".");
    out.push({ domain: matchHost ? `.${host}` : host, port, matchHost });
  }
  return out;
}

/** Go's net.SplitHostPort: `host:port` or `[host]:port`; undefined when the text is not of that form. */
function splitHostPort(text: string): { host: string; port: string } | undefined {
  const m = /^(?:\[([^\]]*)\]|([^:[\]]*)):([^:[\]]*)$/.exec(text);
  return m ? { host: m[1] ?? m[2]!, port: m[3]! } : undefined;
}

/**
 * A set of addresses (a BlockList compares any spelling of an address, and IPv4 with IPv4-mapped IPv6, as
 * Go's net.IP.Equal does); undefined for an address it cannot hold (an IPv6 zone).
 */
function addresses(add: (b: net.BlockList, family: "ipv4" | "ipv6") => void, ip: string): net.BlockList | undefined {
  const b = new net.BlockList();
  try {
    add(b, net.isIP(ip) === 4 ? "ipv4" : "ipv6");
  } catch {
    return undefined;
  }
  return b;
}

/** Whether requests to host:port go through the proxy (httpproxy's useProxy). */
function useProxy(host: string, port: string, noProxy: string): boolean {
  if (host === "localhost") return false;
  const family = net.isIP(host);
  // An address's zone (fe80::1%eth0) takes no part in the comparisons, as in Go's.
  const ip = host.replace(/%.*$/, "");
  if (family !== 0 && isLoopback(ip, family)) return false;
  const name = host.trim().toLowerCase();
  for (const e of noProxyEntries(noProxy)) {
    if ("all" in e) return false;
    if (family === 0) {
      if ("domain" in e && (name.endsWith(e.domain) || (e.matchHost && name === e.domain.slice(1))) && (e.port === "" || e.port === port)) return false;
      continue;
    }
    if ("ips" in e && e.ips.check(ip, family === 4 ? "ipv4" : "ipv6") && (e.port === "" || e.port === port)) return false;
  }
  return true;
}

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

function isLoopback(ip: string, family: number): boolean {
  return LOOPBACK.check(ip, family === 4 ? "ipv4" : "ipv6");
}
