/**
 * Durations as Kubernetes components read them: Go's time.ParseDuration syntax ("10s", "500ms", "1m30s"),
 * for ?timeout= on webhook requests and for duration flags.
 */

/** A Go duration ("10s", "500ms", "1m30s", "1.5h") in ms, or undefined when it is not one. */
export function parseDuration(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let matched = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    total += Number(m[1]) * unit[m[2]!]!;
    matched = re.lastIndex;
  }
  return matched === text.length && text.length > 0 ? total : undefined;
}
