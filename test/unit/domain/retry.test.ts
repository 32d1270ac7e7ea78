import { describe, expect, it } from 'vitest';
import { exponentialBackoff, withRetries } from '#shared/support/retry.ts';

class Transient extends Error {}

describe('withRetries', () => {
  it('retries a retryable error with the backoff between attempts, then resolves', async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await withRetries(
      async (attempt) => {
        calls++;
        if (attempt < 3) throw new Transient(`attempt ${attempt}`);
        return `done on ${attempt}`;
      },
      {
        maxAttempts: 5,
        isRetryable: (error) => error instanceof Transient,
        backoff: (attempt) => attempt * 100,
        sleep: async (ms) => void waits.push(ms),
      },
    );
    expect(result).toBe('done on 3');
    expect(calls).toBe(3);
    expect(waits).toEqual([100, 200]);
  });

  it('throws the last error as it is after maxAttempts', async () => {
    let calls = 0;
    const failing = withRetries(
      async (attempt) => {
        calls++;
        throw new Transient(`attempt ${attempt}`);
      },
      { maxAttempts: 4, isRetryable: () => true, backoff: () => 0, sleep: async () => {} },
    );
    await expect(failing).rejects.toThrow('attempt 4');
    expect(calls).toBe(4);
  });

  it('throws an error the policy refuses at once, without waiting', async () => {
    const waits: number[] = [];
    let calls = 0;
    const failing = withRetries(
      async () => {
        calls++;
        throw new TypeError('a bug, not a race');
      },
      {
        maxAttempts: 6,
        isRetryable: (error) => error instanceof Transient,
        backoff: () => 50,
        sleep: async (ms) => void waits.push(ms),
      },
    );
    await expect(failing).rejects.toBeInstanceOf(TypeError);
    expect(calls).toBe(1);
    expect(waits).toEqual([]);
  });
});

describe('exponentialBackoff', () => {
  it('doubles the ceiling each attempt up to the cap; full jitter spans [0, ceiling)', () => {
    const top = exponentialBackoff({ baseMs: 20, capMs: 100, random: () => 0.999999 });
    expect([1, 2, 3, 4, 5].map((attempt) => Math.round(top(attempt)))).toEqual([20, 40, 80, 100, 100]);
    const bottom = exponentialBackoff({ baseMs: 20, random: () => 0 });
    expect(bottom(3)).toBe(0);
  });

  it('equal jitter keeps at least half the ceiling', () => {
    const bottom = exponentialBackoff({ baseMs: 200, capMs: 10_000, jitter: 'equal', random: () => 0 });
    expect([1, 2, 3, 7].map(bottom)).toEqual([100, 200, 400, 5_000]);
  });

  it('makes no attempt whose wait would end past deadlineAt, and tells onRetry of each one it makes', async () => {
    let now = 1_000;
    const retried: number[] = [];
    let calls = 0;
    const failing = withRetries(
      async (attempt) => {
        calls++;
        throw new Transient(`attempt ${attempt}`);
      },
      {
        maxAttempts: Number.POSITIVE_INFINITY,
        isRetryable: () => true,
        backoff: () => 100,
        deadlineAt: 1_350,
        now: () => now,
        onRetry: (_error, attempt) => void retried.push(attempt),
        sleep: async (ms) => void (now += ms),
      },
    );
    // Waits end at 1,100, 1,200 and 1,300; the fourth would end at 1,400, past the deadline.
    await expect(failing).rejects.toThrow('attempt 4');
    expect(calls).toBe(4);
    expect(retried).toEqual([1, 2, 3]);
  });
});
