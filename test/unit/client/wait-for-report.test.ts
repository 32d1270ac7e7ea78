import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiConnectionError,
  NotFoundError,
  RateLimitedError,
  ReportFailedError,
  ReportTimedOutError,
  SEED_POLLING_SCHEDULE,
  ServerError,
  systemTimers,
  waitForReport,
  type ReportJob,
  type ReportProgress,
  type ReportWait,
  type Timers,
} from '#client/index.ts';
import { reportJobBodyIn } from '#test/support/fixtures/report-jobs.ts';

const JOB_ID = '6f1c2c52-2f7e-4a55-9a57-7bb0f0ce43c1';
const SECOND = 1000;

const job = (status: ReportJob['status']): ReportJob => reportJobBodyIn(status, { jobId: JOB_ID, userId: 'u-1' });

const created = { jobId: JOB_ID, status: 'PENDING' as const, userId: 'u-1', createdAt: '', updatedAt: '' };

/** A virtual clock: sleeping moves it forward at once and records how long. */
function fakeTimers(random: () => number = () => 0.5) {
  let now = 0;
  const sleeps: number[] = [];
  const timers: Timers = {
    now: () => now,
    random,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      now += ms;
    },
  };
  return { timers, sleeps, now: () => now };
}

/** A job reader answering from a script (one answer per poll; the last repeats) and noting when it was called. */
function scriptedReader(clock: { now: () => number }, ...answers: Array<ReportJob | Error>) {
  const pollsAt: number[] = [];
  const read = async (): Promise<ReportJob> => {
    pollsAt.push(clock.now());
    const answer = answers.length > 1 ? answers.shift()! : answers[0]!;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { read, pollsAt };
}

const apiError = <T extends new (...args: any[]) => Error>(ErrorClass: T, status: number, retryAfterSeconds?: number) =>
  new ErrorClass({
    status,
    method: 'GET',
    path: `/v1/document/api/${JOB_ID}`,
    requestId: 'req-1',
    body: undefined,
    retryAfterSeconds,
  });

const seconds = (times: number[]) => times.map((ms) => ms / SECOND);

describe('waitForReport on the seed schedule', () => {
  it('polls every 3 s for the first 30 s, then every 10 s, when the jitter draws its minimum, and gives up at exactly 5 minutes', async () => {
    const clock = fakeTimers(() => 0);
    const reader = scriptedReader(clock, job('PENDING'));

    const waiting = waitForReport(reader.read, JOB_ID, { job: created, timers: clock.timers });

    await expect(waiting).rejects.toBeInstanceOf(ReportTimedOutError);
    const expected = [3, 6, 9, 12, 15, 18, 21, 24, 27, 30, ...Array.from({ length: 27 }, (_, i) => 40 + i * 10)];
    expect(seconds(reader.pollsAt)).toEqual(expected);
    expect(seconds(reader.pollsAt).at(-1)).toBe(300);
  });

  it('polls every 5 s for the first 30 s, then every 15 s, when the jitter draws its maximum', async () => {
    const clock = fakeTimers(() => 1);
    const reader = scriptedReader(clock, job('IN_PROGRESS'));

    await expect(waitForReport(reader.read, JOB_ID, { job: created, timers: clock.timers })).rejects.toBeInstanceOf(
      ReportTimedOutError,
    );

    expect(seconds(reader.pollsAt)).toEqual([
      5,
      10,
      15,
      20,
      25,
      30,
      ...Array.from({ length: 18 }, (_, i) => 45 + i * 15),
    ]);
  });

  it('draws every interval from 3-5 s while under 30 s and from 10-15 s after, and never polls past the deadline', async () => {
    let seed = 7;
    const clock = fakeTimers(() => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    });
    const reader = scriptedReader(clock, job('PENDING'));

    await expect(waitForReport(reader.read, JOB_ID, { job: created, timers: clock.timers })).rejects.toBeInstanceOf(
      ReportTimedOutError,
    );

    const polls = [0, ...reader.pollsAt];
    for (let i = 1; i < polls.length; i += 1) {
      const [previous, current] = [polls[i - 1]!, polls[i]!];
      const interval = current - previous;
      if (current === SEED_POLLING_SCHEDULE.deadlineMs) {
        expect(interval).toBeLessThanOrEqual(15 * SECOND);
        continue;
      }
      const [min, max] = previous < 30 * SECOND ? [3 * SECOND, 5 * SECOND] : [10 * SECOND, 15 * SECOND];
      expect(interval, `poll ${i} at ${current} ms`).toBeGreaterThanOrEqual(min);
      expect(interval, `poll ${i} at ${current} ms`).toBeLessThanOrEqual(max);
    }
    expect(polls.at(-1)).toBe(5 * 60 * SECOND);
    expect(new Set(clock.sleeps).size).toBeGreaterThan(10); // actually jittered
  });

  it('treats a job not complete within 5 minutes as failed, naming its last status and the time waited', async () => {
    const clock = fakeTimers();
    const reader = scriptedReader(clock, job('PENDING'), job('IN_PROGRESS'));

    const error = await waitForReport(reader.read, JOB_ID, { job: created, timers: clock.timers }).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(ReportTimedOutError);
    expect(error).toMatchObject({ jobId: JOB_ID, lastJob: { status: 'IN_PROGRESS' }, waitedMs: 300 * SECOND });
    expect(clock.now()).toBe(300 * SECOND);
  });

  it('returns the COMPLETE job at the first poll that sees it and reports each status change once', async () => {
    const clock = fakeTimers(() => 0);
    const reader = scriptedReader(clock, job('PENDING'), job('IN_PROGRESS'), job('IN_PROGRESS'), job('COMPLETE'));
    const progress: ReportProgress[] = [];

    const complete = await waitForReport(reader.read, JOB_ID, {
      job: created,
      timers: clock.timers,
      onProgress: (p) => progress.push(p),
    });

    expect(complete.status).toBe('COMPLETE');
    expect(seconds(reader.pollsAt)).toEqual([3, 6, 9, 12]);
    expect(progress.map((p) => [p.previousStatus, p.status, p.elapsedMs / SECOND])).toEqual([
      [undefined, 'PENDING', 0],
      ['PENDING', 'IN_PROGRESS', 6],
      ['IN_PROGRESS', 'COMPLETE', 12],
    ]);
  });

  it('polls at once when it does not know the job yet, so a finished job returns without waiting', async () => {
    const clock = fakeTimers();
    const reader = scriptedReader(clock, job('COMPLETE'));

    await expect(waitForReport(reader.read, JOB_ID, { timers: clock.timers })).resolves.toMatchObject({
      status: 'COMPLETE',
    });
    expect(reader.pollsAt).toEqual([0]);
    expect(clock.sleeps).toEqual([]);
  });

  it('throws ReportFailedError with the job when it ends FAILED', async () => {
    const clock = fakeTimers();
    const reader = scriptedReader(clock, job('IN_PROGRESS'), job('FAILED'));

    const error = await waitForReport(reader.read, JOB_ID, { timers: clock.timers }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ReportFailedError);
    expect((error as ReportFailedError).job.errorCode).toBe('RENDER_FAILED');
  });
});

describe('waitForReport when a poll fails', () => {
  it('waits at least Retry-After after a 503 and after a 429, longer than the schedule would', async () => {
    const clock = fakeTimers(() => 0);
    const reader = scriptedReader(
      clock,
      apiError(ServerError, 503, 20),
      apiError(RateLimitedError, 429, 7),
      job('COMPLETE'),
    );
    const waits: ReportWait[] = [];

    await waitForReport(reader.read, JOB_ID, { job: created, timers: clock.timers, onWait: (w) => waits.push(w) });

    expect(seconds(reader.pollsAt)).toEqual([3, 23, 30]);
    expect(waits.map((w) => [w.reason, w.delayMs / SECOND])).toEqual([
      ['schedule', 3],
      ['retry-after', 20],
      ['retry-after', 7],
    ]);
  });

  it('keeps the schedule when Retry-After is shorter than the next interval', async () => {
    const clock = fakeTimers(() => 0);
    const reader = scriptedReader(clock, apiError(ServerError, 503, 1), job('COMPLETE'));

    await waitForReport(reader.read, JOB_ID, { job: created, timers: clock.timers });

    expect(seconds(reader.pollsAt)).toEqual([3, 6]);
  });

  it('retries a 500 and a lost connection on the schedule until the deadline', async () => {
    const clock = fakeTimers(() => 0);
    const reader = scriptedReader(
      clock,
      apiError(ServerError, 500),
      new ApiConnectionError('GET', 'http://x', new Error('ECONNRESET')),
      job('COMPLETE'),
    );

    await expect(waitForReport(reader.read, JOB_ID, { job: created, timers: clock.timers })).resolves.toMatchObject({
      status: 'COMPLETE',
    });
    expect(seconds(reader.pollsAt)).toEqual([3, 6, 9]);

    const failing = scriptedReader(clock, apiError(ServerError, 500));
    const before = clock.now();
    await expect(waitForReport(failing.read, JOB_ID, { timers: clock.timers })).rejects.toBeInstanceOf(
      ReportTimedOutError,
    );
    expect(clock.now() - before).toBe(300 * SECOND);
  });

  it('gives up at once on an answer that will not change: 404, 403, 401', async () => {
    const clock = fakeTimers();
    const reader = scriptedReader(clock, apiError(NotFoundError, 404));

    await expect(waitForReport(reader.read, JOB_ID, { job: created, timers: clock.timers })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(reader.pollsAt).toHaveLength(1);
  });
});

describe('waitForReport cancellation', () => {
  it('stops with the signal’s reason when aborted between polls', async () => {
    const clock = fakeTimers();
    const reader = scriptedReader(clock, job('PENDING'));
    const controller = new AbortController();
    const reason = new Error('user pressed Ctrl-C');

    const waiting = waitForReport(reader.read, JOB_ID, {
      timers: clock.timers,
      signal: controller.signal,
      onWait: () => controller.abort(reason),
    });

    await expect(waiting).rejects.toBe(reason);
    expect(reader.pollsAt).toHaveLength(1);
  });

  it('does not start when the signal is already aborted', async () => {
    const reader = scriptedReader(fakeTimers(), job('PENDING'));
    await expect(waitForReport(reader.read, JOB_ID, { signal: AbortSignal.abort(new Error('no')) })).rejects.toThrow(
      'no',
    );
    expect(reader.pollsAt).toEqual([]);
  });

  it('interrupts a real sleep promptly', async () => {
    const controller = new AbortController();
    const startedAt = Date.now();
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(systemTimers.sleep(60_000, controller.signal)).rejects.toThrow('stop');
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });
});

describe('waitForReport with the default timers under vi.useFakeTimers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('follows the schedule on the faked clock (setTimeout and performance.now) without waiting', async () => {
    vi.useFakeTimers();
    const pollsAt: number[] = [];
    const startedAt = performance.now();
    const answers = [job('PENDING'), job('PENDING'), job('COMPLETE')];
    const read = async (): Promise<ReportJob> => {
      pollsAt.push(performance.now() - startedAt);
      return answers.shift()!;
    };
    vi.spyOn(Math, 'random').mockReturnValue(0.5);

    const waiting = waitForReport(read, JOB_ID, { job: created });
    await vi.advanceTimersByTimeAsync(3_999);
    expect(pollsAt).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(pollsAt).toEqual([4_000]);
    await vi.advanceTimersByTimeAsync(8_000);

    await expect(waiting).resolves.toMatchObject({ status: 'COMPLETE' });
    expect(pollsAt).toEqual([4_000, 8_000, 12_000]);
  });
});
