/**
 * Restart backoff, as the kubelet restarts a crashing container: the first crash of a run is restarted
 * at once, each further one after `initialMs` doubling per crash up to `maxMs`; something that answered
 * or lived `resetAfterMs` starts a new count. Used for evaluation workers (pool.ts) and serving
 * processes (processes.ts).
 */
export interface RestartBackoff {
  initialMs: number;
  maxMs: number;
  resetAfterMs: number;
}

export const DEFAULT_RESTART_BACKOFF: RestartBackoff = { initialMs: 200, maxMs: 30_000, resetAfterMs: 60_000 };

/** The crash count after one more crash, and the delay before the restart it calls for. */
export function nextRestart(b: RestartBackoff, previousCrashes: number, stable: boolean): { crashes: number; delayMs: number } {
  const crashes = (stable ? 0 : previousCrashes) + 1;
  return { crashes, delayMs: crashes <= 1 ? 0 : Math.min(b.maxMs, b.initialMs * 2 ** (crashes - 2)) };
}
