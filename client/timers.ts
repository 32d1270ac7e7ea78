/** Time and chance, injectable so that waiting can be tested without waiting. */
export interface Timers {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1), for jitter. */
  random(): number;
}

export const systemTimers: Timers = {
  now: () => performance.now(),
  random: () => Math.random(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/** AbortSignal reasons are DOMExceptions unless the caller chose otherwise; anything else is wrapped. */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('aborted', { cause: reason });
}
