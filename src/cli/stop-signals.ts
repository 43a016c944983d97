/**
 * What SIGTERM and SIGINT do to a long-running command (`karta serve`, `karta controller`), as
 * kube-apiserver's --shutdown-delay-duration has it: Service endpoints and load balancers stop sending to
 * a terminating pod a moment after it was told to stop, not at once, so with a delay the first signal
 * only makes /readyz fail while the command goes on working and serving; the stop comes when the delay is
 * over or at a second signal. Without a delay, or when the command was never in any endpoints, the first
 * signal stops it at once.
 */

export interface StopSignals {
  /** The first signal came and its delay runs. */
  readonly delaying: boolean;
  /** Removes the listeners and the delay's timer: from then on a signal has its default effect. */
  release(): void;
}

/**
 * Listens for SIGTERM and SIGINT (and `abort`, a caller's own stop). `stop` may be called more than once.
 * `canDelay` says whether a delay is worth it now (the command is ready, so in some endpoints).
 */
export function onStopSignals(o: { delayMs: number; canDelay?: () => boolean; beginDelay: () => void; stop: () => void; abort?: AbortSignal }): StopSignals {
  let timer: NodeJS.Timeout | undefined;
  let delaying = false;
  const onSignal = (): void => {
    if (delaying || o.delayMs <= 0 || o.canDelay?.() === false) {
      clearTimeout(timer);
      o.stop();
      return;
    }
    delaying = true;
    o.beginDelay();
    timer = setTimeout(o.stop, o.delayMs);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  o.abort?.addEventListener("abort", onSignal, { once: true });
  return {
    get delaying() {
      return delaying;
    },
    release() {
      clearTimeout(timer);
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      o.abort?.removeEventListener("abort", onSignal);
    },
  };
}
