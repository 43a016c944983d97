/** Kubernetes timestamps (metav1.Time): RFC 3339, written in UTC with whole seconds. */

/** Milliseconds since the epoch, or undefined when the value is not a timestamp. */
export function parseTime(v: unknown): number | undefined {
  if (typeof v !== "string" || v === "") return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

/** A timestamp as metav1.Time writes it ("2026-01-02T03:04:05Z"). */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Re-writes a timestamp string as metav1.Time would, leaving non-timestamps alone. */
export function normalizeTime(v: unknown): unknown {
  const t = parseTime(v);
  return t === undefined ? v : formatTime(t);
}
