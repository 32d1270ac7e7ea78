import { describe, expect, it } from 'vitest';
import {
  generateOnboardingToken,
  hashOnboardingToken,
  tokenExpiry,
  tokenStatus,
} from '#shared/domain/onboarding/onboarding-token.ts';

describe('onboarding token', () => {
  it('is 32 characters of base64url without padding', () => {
    const token = generateOnboardingToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(24);
  });

  it('does not repeat across many generations', () => {
    const tokens = new Set(Array.from({ length: 2_000 }, generateOnboardingToken));
    expect(tokens.size).toBe(2_000);
  });

  it('is stored as its SHA-256 hex digest', () => {
    expect(hashOnboardingToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('expires exactly 14 days after creation', () => {
    expect(tokenExpiry(new Date('2026-01-01T10:00:00.000Z')).toISOString()).toBe('2026-01-15T10:00:00.000Z');
  });

  it('is Issued until its expiry instant, Expired from then on, and Used once redeemed', () => {
    const record = { expiresAt: '2026-01-15T10:00:00.000Z' };
    expect(tokenStatus(record, new Date('2026-01-15T09:59:59.999Z'))).toBe('Issued');
    expect(tokenStatus(record, new Date('2026-01-15T10:00:00.000Z'))).toBe('Expired');
    expect(tokenStatus({ ...record, usedAt: '2026-01-02T00:00:00.000Z' }, new Date('2026-01-03T00:00:00.000Z'))).toBe(
      'Used',
    );
  });
});
