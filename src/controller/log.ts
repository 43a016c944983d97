/** Structured logs: one JSON object per line (`ts`, `level`, `msg`, then key/value fields), as klog's JSON format. */
export type Level = "info" | "error" | "debug";
export type Logger = (level: Level, msg: string, fields?: Record<string, unknown>) => void;

/** A logger writing JSON lines to `write` (standard error by default); debug lines only when `verbose`. */
export function jsonLogger(write: (line: string) => void = (l) => void process.stderr.write(l), verbose = false): Logger {
  return (level, msg, fields = {}) => {
    if (level === "debug" && !verbose) return;
    const out: Record<string, unknown> = { ts: new Date().toISOString(), level, msg };
    for (const [k, v] of Object.entries(fields)) out[k] = v instanceof Error ? v.message : v;
    write(JSON.stringify(out) + "\n");
  };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = () => {};
