/**
 * Durations as Kubernetes components read them: Go's time.ParseDuration ("10s", "500ms", "1m30s", "1.5h",
 * "-2m", "0"), for ?timeout= on webhook requests and for duration flags, and client-go's ParseTimeout
 * (kubectl's --request-timeout: also a bare number of seconds).
 */

const MAX = (1n << 63n) - 1n;
const UNITS: Record<string, bigint> = { ns: 1n, us: 1_000n, "\u00b5s": 1_000n, "\u03bcs": 1_000n, ms: 1_000_000n, s: 1_000_000_000n, m: 60_000_000_000n, h: 3_600_000_000_000n };

/** Go's time.ParseDuration, exactly (its overflow bounds and its float rounding of fractions): nanoseconds, or undefined. */
export function parseGoDuration(text: string): bigint | undefined {
  let s = text;
  let neg = false;
  if (s[0] === "-" || s[0] === "+") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") return undefined;
  let d = 0n;
  while (s !== "") {
    if (!/^[0-9.]/.test(s)) return undefined;
    const int = /^[0-9]*/.exec(s)![0];
    s = s.slice(int.length);
    let v = 0n;
    for (const c of int) {
      if (v > (1n << 63n) / 10n) return undefined; // overflow (leadingInt)
      v = v * 10n + BigInt(c);
      if (v > 1n << 63n) return undefined;
    }
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === ".") {
      s = s.slice(1);
      const frac = /^[0-9]*/.exec(s)![0];
      s = s.slice(frac.length);
      post = frac.length > 0;
      // Go keeps the digits while they fit, and ignores the rest (leadingFraction).
      let overflow = false;
      for (const c of frac) {
        if (overflow) continue;
        if (f > MAX / 10n) {
          overflow = true;
          continue;
        }
        const y = f * 10n + BigInt(c);
        if (y > 1n << 63n) {
          overflow = true;
          continue;
        }
        f = y;
        scale *= 10;
      }
    }
    if (int.length === 0 && !post) return undefined;
    const unitText = /^[^0-9.]*/.exec(s)![0];
    if (unitText === "") return undefined; // missing unit
    s = s.slice(unitText.length);
    const unit = UNITS[unitText];
    if (unit === undefined) return undefined;
    if (v > (1n << 63n) / unit) return undefined;
    v *= unit;
    if (f > 0n) {
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > 1n << 63n) return undefined;
    }
    d += v;
    if (d > 1n << 63n) return undefined;
  }
  if (neg) return -d;
  if (d > MAX) return undefined;
  return d;
}

/** A Go duration in ms, or undefined when it is not one or is negative (a flag's or a request's timeout). */
export function parseDuration(text: string): number | undefined {
  const ns = parseGoDuration(text);
  return ns === undefined || ns < 0n ? undefined : Number(ns) / 1e6;
}

/**
 * client-go's ParseTimeout (kubectl's --request-timeout): a whole number of seconds, else a Go duration;
 * nanoseconds, or undefined when it is neither. Zero or negative means no limit to the caller.
 */
export function parseRequestTimeout(text: string): bigint | undefined {
  // strconv.ParseInt: an optional sign and decimal digits, within int64.
  if (/^[+-]?[0-9]+$/.test(text)) {
    const i = BigInt(text);
    // time.Duration(i) * time.Second, which wraps around in int64 as Go's arithmetic does.
    if (i >= 0n && i <= MAX) return BigInt.asIntN(64, i * 1_000_000_000n);
  }
  return parseGoDuration(text);
}

/** Go's Duration.String() ("1m30s", "1.5s", "500ms", "2h0m0s", "0s"): how kubectl writes ?timeout=. */
export function formatGoDuration(ns: bigint): string {
  const neg = ns < 0n;
  // uint64 arithmetic, as Go's: -(-2^63) stays 2^63.
  let u = neg ? -ns : ns;
  /** The fraction of u / 10^prec without trailing zeros (and without the point when it is 0); u / 10^prec. */
  const frac = (prec: number): string => {
    let out = "";
    let print = false;
    for (let i = 0; i < prec; i++) {
      const digit = u % 10n;
      print ||= digit !== 0n;
      if (print) out = String(digit) + out;
      u /= 10n;
    }
    return print ? `.${out}` : "";
  };
  let text: string;
  if (u < 1_000_000_000n) {
    if (u === 0n) return "0s";
    const [prec, unit] = u < 1_000n ? [0, "ns"] : u < 1_000_000n ? [3, "\u00b5s"] : [6, "ms"];
    const f = frac(prec);
    text = `${u}${f}${unit}`;
  } else {
    const f = frac(9);
    text = `${u % 60n}${f}s`;
    u /= 60n;
    if (u > 0n) {
      text = `${u % 60n}m${text}`;
      u /= 60n;
      if (u > 0n) text = `${u}h${text}`;
    }
  }
  return neg ? `-${text}` : text;
}
