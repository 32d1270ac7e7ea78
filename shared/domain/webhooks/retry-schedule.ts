/**
 * Delays before each retry of a failed delivery (docs/contract.md §9): the n-th entry is the wait
 * after the n-th failed attempt; past the last one the message is `failed`.
 */
export const AWS_RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000] as const;
/** Local mode: the same shape in seconds, so a test sees every retry within half a minute. */
export const LOCAL_RETRY_DELAYS_SECONDS = [1, 2, 4, 8, 16] as const;

export type RetrySchedule = readonly number[];

/** Seconds to wait after failed attempt `attempt` (1-based), or undefined when it was the last. */
export function retryDelaySeconds(schedule: RetrySchedule, attempt: number): number | undefined {
  return schedule[attempt - 1];
}

/** SQS delays a message at most 15 minutes; a longer wait is a chain of such delays. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
