import { describe, expect, it } from 'vitest';
import { REPORT_REQUEST_RATE_LIMIT, spendToken } from '#shared/domain/limits/report-rate-limit.ts';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const WINDOW_MS = 600_000;
const policy = REPORT_REQUEST_RATE_LIMIT;

/** Spends `count` tokens one second apart from `start`, as accepted requests would. */
function spendMany(count: number, start = T0): number[] {
  let state: number[] = [];
  for (let i = 0; i < count; i++) state = spendToken(state, start + i * 1000, policy).spentAt;
  return state;
}

describe('REPORT_REQUEST_RATE_LIMIT', () => {
  it('is 10 requests per 10 minutes, as the contract states', () => {
    expect(REPORT_REQUEST_RATE_LIMIT).toEqual({ capacity: 10, windowMs: WINDOW_MS });
  });
});

describe('spendToken', () => {
  it('allows a request on an empty bucket and leaves 9 tokens', () => {
    const decision = spendToken([], T0, policy);

    expect(decision).toEqual({
      allowed: true,
      limit: 10,
      remaining: 9,
      resetSeconds: 600,
      retryAfterSeconds: 0,
      spentAt: [T0],
    });
  });

  it('never announces a reset beyond the window, even for a spend time ahead of this clock', () => {
    const fromAFastClock = [T0 + 1500];
    const decision = spendToken(fromAFastClock, T0, policy);

    expect(decision.resetSeconds).toBe(600);
    expect(spendToken(spendMany(10, T0 + 2000), T0, policy)).toMatchObject({ allowed: false, retryAfterSeconds: 600 });
  });

  it('allows the 10th request with 0 remaining', () => {
    const nine = spendMany(9);

    const decision = spendToken(nine, T0 + 9_000, policy);

    expect(decision.allowed).toBe(true);
    expect(decision.remaining).toBe(0);
    expect(decision.spentAt).toHaveLength(10);
  });

  it('refuses the 11th request with Retry-After = whole seconds until the oldest spend returns, rounded up', () => {
    const ten = spendMany(10);
    const now = T0 + 120_750; // the oldest token returns in 479.25 s

    const decision = spendToken(ten, now, policy);

    expect(decision.allowed).toBe(false);
    expect(decision.remaining).toBe(0);
    expect(decision.retryAfterSeconds).toBe(480);
    expect(decision.resetSeconds).toBe(480);
    expect(decision.spentAt).toEqual(ten);
  });

  it('still refuses 1 ms before the token returns (599.999 s after it was spent), with Retry-After 1', () => {
    const ten = spendMany(10);

    const decision = spendToken(ten, T0 + WINDOW_MS - 1, policy);

    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterSeconds).toBe(1);
  });

  it('gives the token back exactly 600.000 s after it was spent', () => {
    const ten = spendMany(10);

    const decision = spendToken(ten, T0 + WINDOW_MS, policy);

    expect(decision.allowed).toBe(true);
    expect(decision.remaining).toBe(0);
    expect(decision.spentAt).not.toContain(T0);
    expect(decision.spentAt.at(-1)).toBe(T0 + WINDOW_MS);
  });

  it('returns only the one expired token: a second request in the same millisecond is refused', () => {
    const afterReturn = spendToken(spendMany(10), T0 + WINDOW_MS, policy).spentAt;

    const decision = spendToken(afterReturn, T0 + WINDOW_MS, policy);

    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterSeconds).toBe(1); // the second spend (T0 + 1 s) returns next
  });

  it('never lets more than 10 requests through in any 10-minute window', () => {
    let state: number[] = [];
    const accepted: number[] = [];
    for (let now = T0; now < T0 + 3 * WINDOW_MS; now += 7_001) {
      const decision = spendToken(state, now, policy);
      state = decision.spentAt;
      if (decision.allowed) accepted.push(now);
    }

    for (const start of accepted) {
      expect(accepted.filter((t) => t >= start && t < start + WINDOW_MS).length).toBeLessThanOrEqual(10);
    }
    expect(accepted.length).toBeGreaterThan(10);
  });

  describe('resetSeconds', () => {
    it('is the whole seconds, rounded up, until the oldest live spend returns', () => {
      const state = [T0, T0 + 30_000];

      const decision = spendToken(state, T0 + 100_750, policy);

      expect(decision.resetSeconds).toBe(500); // 499.25 s, rounded up
      expect(decision.remaining).toBe(7);
    });

    it('counts this request itself when it is the only live spend (600)', () => {
      const decision = spendToken([T0 - WINDOW_MS - 5], T0, policy);

      expect(decision.resetSeconds).toBe(600);
    });
  });

  it('drops spends older than the window from the state it returns', () => {
    const state = [T0 - WINDOW_MS - 1, T0 - WINDOW_MS, T0 - WINDOW_MS + 1, T0 - 10];

    const decision = spendToken(state, T0, policy);

    expect(decision.spentAt).toEqual([T0 - WINDOW_MS + 1, T0 - 10, T0]);
    expect(decision.remaining).toBe(7);
  });

  it('drops expired spends from the state of a refused request too', () => {
    const ten = spendMany(10);
    const state = [T0 - WINDOW_MS - 1_000, ...ten];

    const decision = spendToken(state, T0 + 20_000, policy);

    expect(decision.allowed).toBe(false);
    expect(decision.spentAt).toEqual(ten);
  });

  it('handles stored spend times out of order: Retry-After follows the oldest, and the state comes back sorted', () => {
    const ten = spendMany(10);
    const shuffled = [ten[5]!, ten[9]!, ten[0]!, ten[3]!, ten[8]!, ten[1]!, ten[7]!, ten[2]!, ten[6]!, ten[4]!];

    const refused = spendToken(shuffled, T0 + 100_000, policy);
    const allowed = spendToken(shuffled, T0 + WINDOW_MS, policy);

    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(500);
    expect(refused.spentAt).toEqual(ten);
    expect(allowed.allowed).toBe(true);
    expect(allowed.spentAt).toEqual([...ten.slice(1), T0 + WINDOW_MS]);
  });

  it('does not change the state it was given', () => {
    const state = [T0 + 2, T0 + 1];

    spendToken(state, T0 + 3, policy);

    expect(state).toEqual([T0 + 2, T0 + 1]);
  });
});
