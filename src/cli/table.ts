/**
 * Columns and ages as kubectl prints them: cells aligned as Go's text/tabwriter aligns tab-separated
 * cells (kubectl's printers use a minimum width of 6 and a padding of 3; `kubectl describe` 0 and 2), and
 * an age as apimachinery's duration.HumanDuration writes it.
 */

/** Aligns rows of cells: every cell but a row's last padded to its column's width plus `padding`, at least `minWidth`. */
export function alignColumns(rows: readonly (readonly string[])[], options: { minWidth?: number; padding?: number } = {}): string[] {
  const minWidth = options.minWidth ?? 6;
  const padding = options.padding ?? 3;
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, c) => c < row.length - 1 && (widths[c] = Math.max(widths[c] ?? 0, [...cell].length)));
  return rows.map((row) =>
    row
      .map((cell, c) => (c < row.length - 1 ? cell + " ".repeat(Math.max(widths[c]! + padding, minWidth) - [...cell].length) : cell))
      .join("")
      .trimEnd(),
  );
}

/** The age of something that happened at `since` (an RFC 3339 time), as kubectl prints it (HumanDuration); `<unknown>` without one. */
export function age(since: string | undefined, now: number = Date.now()): string {
  const t = since === undefined ? NaN : Date.parse(since);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now - t);
}

/** apimachinery's duration.HumanDuration of `ms` milliseconds: 45s, 3m20s, 12m, 5h30m, 3d4h, 2y30d. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}
