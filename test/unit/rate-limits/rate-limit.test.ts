import { describe, expect, it } from 'vitest';
import {
  countInWindow,
  fixedWindowStart,
  mostRestrictive,
  type QuotaDecision,
} from '#shared/domain/limits/rate-limit.ts';

const HOUR_MS = 3_600_000;
const hourly = (capacity: number) => ({ capacity, windowMs: HOUR_MS });
/** 12:20:00.250 UTC: 2399.75 s before the clock hour ends. */
const NOW = Date.parse('2026-03-01T12:20:00.250Z');

describe('fixedWindowStart', () => {
  it('is the start of the clock hour (UTC) for hourly windows', () => {
    expect(new Date(fixedWindowStart(NOW, HOUR_MS)).toISOString()).toBe('2026-03-01T12:00:00.000Z');
    expect(fixedWindowStart(Date.parse('2026-03-01T13:00:00.000Z'), HOUR_MS)).toBe(Date.parse('2026-03-01T13:00:00Z'));
    expect(fixedWindowStart(Date.parse('2026-03-01T12:59:59.999Z'), HOUR_MS)).toBe(Date.parse('2026-03-01T12:00:00Z'));
  });
});

describe('countInWindow', () => {
  it('allows the first unit of a window, leaving capacity - 1, resetting when the hour ends', () => {
    expect(countInWindow(0, NOW, hourly(1000))).toEqual({
      allowed: true,
      limit: 1000,
      remaining: 999,
      resetSeconds: 2400,
      retryAfterSeconds: 0,
      windowStartMs: Date.parse('2026-03-01T12:00:00.000Z'),
    });
  });

  it('allows the last unit with 0 remaining, and refuses the next until the hour ends (Retry-After rounded up)', () => {
    expect(countInWindow(999, NOW, hourly(1000))).toMatchObject({ allowed: true, remaining: 0 });
    expect(countInWindow(1000, NOW, hourly(1000))).toMatchObject({
      allowed: false,
      remaining: 0,
      resetSeconds: 2400,
      retryAfterSeconds: 2400,
    });
  });

  it('refuses with Retry-After 1 in the last millisecond of the hour, and allows again at the turn', () => {
    const lastMs = Date.parse('2026-03-01T12:59:59.999Z');
    expect(countInWindow(3, lastMs, hourly(3))).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    // The next hour is another item, whose count starts at 0.
    expect(countInWindow(0, lastMs + 1, hourly(3))).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 3600 });
  });

  it('never reports a negative remainder for a count beyond the limit (a lowered limit)', () => {
    expect(countInWindow(1200, NOW, hourly(1000))).toMatchObject({ allowed: false, remaining: 0 });
  });
});

describe('mostRestrictive', () => {
  const decision = (overrides: Partial<QuotaDecision>): QuotaDecision => ({
    allowed: true,
    limit: 5,
    remaining: 3,
    resetSeconds: 100,
    retryAfterSeconds: 0,
    ...overrides,
  });

  it('reports a refusal over any allowance', () => {
    const refusal = decision({ allowed: false, limit: 1000, remaining: 0, retryAfterSeconds: 30 });
    expect(mostRestrictive([decision({ remaining: 0 }), refusal])).toBe(refusal);
    expect(mostRestrictive([refusal, decision({ remaining: 0 })])).toBe(refusal);
  });

  it('of two refusals reports the longer one: the request succeeds only once both have room', () => {
    const soon = decision({ allowed: false, remaining: 0, retryAfterSeconds: 30 });
    const later = decision({ allowed: false, remaining: 0, retryAfterSeconds: 900 });
    expect(mostRestrictive([soon, later])).toBe(later);
    expect(mostRestrictive([later, soon])).toBe(later);
  });

  it('of allowances reports the one with the fewest units left', () => {
    const recipient = decision({ limit: 5, remaining: 1 });
    const organization = decision({ limit: 1000, remaining: 990 });
    expect(mostRestrictive([recipient, organization])).toBe(recipient);
    expect(mostRestrictive([organization, recipient])).toBe(recipient);
  });
});
