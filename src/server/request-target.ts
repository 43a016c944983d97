/**
 * A request's target as a URL, read as Go's net/http reads it: a target that starts with "/" is a path
 * (`///` and `//host:99999` are paths, not scheme-relative URLs, which WHATWG's parser would refuse);
 * an absolute URL is parsed as one. Node's HTTP parser hands on targets no URL parser accepts.
 */
export function requestTarget(target: string | undefined): URL | undefined {
  const t = target ?? "/";
  try {
    return t.startsWith("/") ? new URL(`http://localhost${t}`) : new URL(t);
  } catch {
    return undefined;
  }
}

/** The answer to a target {@link requestTarget} cannot read (Go's net/http: 400 Bad Request). */
export const BAD_TARGET = "malformed request target";
