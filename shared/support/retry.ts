import { setTimeout as sleep } from 'node:timers/promises';
/**
 * The one retry loop of the deployed code: DynamoDB transaction conflicts, quota races and SQL
 * batches all retry through it, with the same exponential backoff and full or equal jitter.
 */

/** Delay in milliseconds before the attempt after `attempt` (1-based). */
export type Backoff = (attempt: number) => number;

export interface ExponentialBackoffOptions {
  /** The first delay's ceiling; each later attempt doubles it. */
  baseMs: number;
  /** No delay's ceiling grows past this. */
  capMs?: number;
  /**
   * `full`: anywhere in [0, ceiling) (contending writers spread out most); `equal`: in
   * [ceiling / 2, ceiling) (a floor of waiting, for a dependency that needs time to recover).
   */
  jitter?: 'full' | 'equal';
  /** A number in [0, 1); default Math.random. */
  random?: () => number;
}

export function exponentialBackoff({
  baseMs,
  capMs = Number.POSITIVE_INFINITY,
  jitter = 'full',
  random = Math.random,
}: ExponentialBackoffOptions): Backoff {
  return (attempt) => {
    const ceiling = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
    return jitter === 'full' ? random() * ceiling : ceiling / 2 + random() * (ceiling / 2);
  };
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Whether an attempt's error is worth another attempt; any other error is thrown at once. */
  isRetryable: (error: unknown) => boolean;
  backoff: Backoff;
  /** Epoch milliseconds: an attempt whose wait would end at or after it is not made; the last error is thrown. */
  deadlineAt?: number;
  /** Told before each wait, with the error that caused it (a metric counts retries here). */
  onRetry?: (error: unknown, attempt: number) => void;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

/**
 * Runs `operation` until it resolves, throws an error `isRetryable` refuses, has run
 * `maxAttempts` times or would next start past `deadlineAt`; then throws that attempt's error as
 * it is, for the caller to map.
 */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  const wait = policy.sleep ?? sleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= policy.maxAttempts || !policy.isRetryable(error)) throw error;
      const delayMs = policy.backoff(attempt);
      if (policy.deadlineAt !== undefined && (policy.now ?? Date.now)() + delayMs >= policy.deadlineAt) throw error;
      policy.onRetry?.(error, attempt);
      await wait(delayMs);
    }
  }
}
