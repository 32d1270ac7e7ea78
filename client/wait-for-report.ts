import { ApiConnectionError, ApiError, ReportFailedError, ReportTimedOutError } from './errors.ts';
import { systemTimers, type Timers } from './timers.ts';
import type { CompleteReportJob, ReportJob, ReportJobCreated, ReportJobStatus } from './types.ts';

/** When to poll a report job. All times in milliseconds, measured from the start of waiting. */
export interface PollingSchedule {
  /** Interval range while less than `initialPhaseMs` has passed. */
  initialIntervalMs: readonly [min: number, max: number];
  initialPhaseMs: number;
  /** Interval range after that. */
  laterIntervalMs: readonly [min: number, max: number];
  /** A job not complete this long after the start is treated as failed; the last poll happens exactly then. */
  deadlineMs: number;
}

/**
 * The seed's guidance: every 3 to 5 seconds for the first 30 seconds, then every 10 to 15 seconds,
 * and a job not complete within 5 minutes has failed.
 */
export const SEED_POLLING_SCHEDULE: PollingSchedule = Object.freeze({
  initialIntervalMs: [3_000, 5_000] as const,
  initialPhaseMs: 30_000,
  laterIntervalMs: [10_000, 15_000] as const,
  deadlineMs: 5 * 60_000,
});

export interface ReportProgress {
  jobId: string;
  status: ReportJobStatus;
  /** Undefined for the first status seen. */
  previousStatus: ReportJobStatus | undefined;
  job: ReportJob | ReportJobCreated;
  elapsedMs: number;
}

export interface ReportWait {
  /** How long until the next poll. */
  delayMs: number;
  elapsedMs: number;
  /** `schedule`: the normal interval; `retry-after`: a 429/503 asked for longer; `error`: the last poll failed and is retried. */
  reason: 'schedule' | 'retry-after' | 'error';
  /** The failure of the last poll, for `error` and `retry-after`. */
  error?: Error;
}

export interface WaitForReportOptions {
  /**
   * The job as already known (e.g. the 202 body): the first poll then waits one interval. Without
   * it the first poll is immediate, so a job that is already final returns at once.
   */
  job?: ReportJob | ReportJobCreated;
  /** Default: the seed's schedule. Tests may pass a faster one. */
  schedule?: PollingSchedule;
  signal?: AbortSignal;
  /** Called with the first status seen and every change after it. */
  onProgress?: (progress: ReportProgress) => void;
  /** Called before every pause, e.g. to show a countdown. */
  onWait?: (wait: ReportWait) => void;
  timers?: Timers;
}

export type ReadReportJob = (jobId: string, signal: AbortSignal | undefined) => Promise<ReportJob>;

/**
 * Polls a report job on `schedule` until it is COMPLETE (returned) or FAILED (ReportFailedError),
 * or until the deadline passes (ReportTimedOutError). A poll answered 429 or 503 waits at least
 * Retry-After before the next; other 5XX answers and network failures are retried on the schedule
 * until the deadline; any other error ends the wait. Aborting the signal rejects with its reason.
 */
export async function waitForReport(
  readJob: ReadReportJob,
  jobId: string,
  options: WaitForReportOptions = {},
): Promise<CompleteReportJob> {
  const schedule = options.schedule ?? SEED_POLLING_SCHEDULE;
  const timers = options.timers ?? systemTimers;
  const { signal } = options;
  signal?.throwIfAborted();

  const startedAt = timers.now();
  const elapsed = (): number => timers.now() - startedAt;
  let last: ReportJob | ReportJobCreated | undefined;
  const observe = (job: ReportJob | ReportJobCreated): void => {
    if (job.status !== last?.status) {
      options.onProgress?.({ jobId, status: job.status, previousStatus: last?.status, job, elapsedMs: elapsed() });
    }
    last = job;
  };

  let pause: Pause | undefined;
  if (options.job) {
    observe(options.job);
    pause = { reason: 'schedule' };
  }
  for (;;) {
    if (pause) {
      const delayMs = nextDelay(schedule, timers, elapsed(), pause.retryAfterMs);
      options.onWait?.({
        reason: pause.reason,
        ...(pause.error ? { error: pause.error } : {}),
        delayMs,
        elapsedMs: elapsed(),
      });
      await timers.sleep(delayMs, signal);
    }
    try {
      const job = await readJob(jobId, signal);
      observe(job);
      if (job.status === 'COMPLETE') return job;
      if (job.status === 'FAILED') throw new ReportFailedError(job);
      pause = { reason: 'schedule' };
    } catch (error) {
      if (!isRetryable(error)) throw error;
      const retryAfterSeconds = error instanceof ApiError ? error.retryAfterSeconds : undefined;
      pause =
        retryAfterSeconds === undefined
          ? { reason: 'error', error }
          : { reason: 'retry-after', error, retryAfterMs: retryAfterSeconds * 1000 };
    }
    if (elapsed() >= schedule.deadlineMs) throw new ReportTimedOutError(jobId, last, elapsed());
  }
}

interface Pause {
  reason: ReportWait['reason'];
  error?: Error;
  retryAfterMs?: number;
}

/**
 * The next interval: drawn uniformly from the range of the phase we are in, never past the
 * deadline (so the last poll happens at it), and never shorter than a Retry-After.
 */
function nextDelay(schedule: PollingSchedule, timers: Timers, elapsedMs: number, retryAfterMs = 0): number {
  const [min, max] = elapsedMs < schedule.initialPhaseMs ? schedule.initialIntervalMs : schedule.laterIntervalMs;
  const interval = min + timers.random() * (max - min);
  const untilDeadline = Math.max(0, schedule.deadlineMs - elapsedMs);
  return Math.max(Math.min(interval, untilDeadline), retryAfterMs);
}

function isRetryable(error: unknown): error is Error {
  if (error instanceof ApiConnectionError) return true;
  return error instanceof ApiError && (error.status === 429 || error.status >= 500);
}
