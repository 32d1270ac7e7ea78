import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The instant by which an invocation must have its answer, carried through every await of the
 * invocation (AsyncLocalStorage), so every AWS SDK call made on its behalf (middlewares, use
 * cases, adapters) is aborted at that instant without each caller passing a signal along.
 */
export interface RequestDeadline {
  /** Epoch milliseconds at which the signal aborts. */
  readonly at: number;
  readonly signal: AbortSignal;
}

export class DeadlineExceededError extends Error {
  override name = 'DeadlineExceededError';
  constructor(readonly deadlineAt: number) {
    super('the request ran out of time waiting for a dependency');
  }
}

const currentDeadline = new AsyncLocalStorage<RequestDeadline>();

/**
 * What the queue and schedule functions keep after their AWS calls' deadline: time to report
 * the batch's failed records (retried by SQS) instead of timing out with the whole batch.
 */
export const BACKGROUND_RESERVE_MS = 2_000;

/** Runs `work` with every SDK call in it aborted `budgetMs` from now. */
export async function runWithDeadline<T>(budgetMs: number, work: () => Promise<T>): Promise<T> {
  const at = Date.now() + Math.max(0, budgetMs);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DeadlineExceededError(at)), Math.max(0, budgetMs));
  try {
    return await currentDeadline.run({ at, signal: controller.signal }, work);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs an invocation's work with its AWS calls cut off `reserveMs` before the Lambda timeout,
 * leaving that long to answer (or report failed records). Without a remaining-time clock (a
 * plain unit test call), `work` runs unbounded.
 */
export function runBeforeTimeout<T>(
  context: { getRemainingTimeInMillis?: () => number },
  reserveMs: number,
  work: () => Promise<T>,
): Promise<T> {
  const remainingMs = context.getRemainingTimeInMillis?.();
  if (remainingMs === undefined) return work();
  return runWithDeadline(remainingMs - reserveMs, work);
}

export function requestDeadline(): RequestDeadline | undefined {
  return currentDeadline.getStore();
}

/** True when `error` is an SDK call cut off by the invocation's deadline. */
export function isDeadlineAbort(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof DeadlineExceededError) return true;
  return error.name === 'AbortError' && error.cause instanceof DeadlineExceededError;
}
