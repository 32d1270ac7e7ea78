import { createHash, randomBytes } from 'node:crypto';

export const TOKEN_VALIDITY_DAYS = 14;
const TOKEN_BYTES = 24;
const DAY_MS = 24 * 60 * 60 * 1000;

export type OnboardingTokenStatus = 'Issued' | 'Used' | 'Expired';

/** What the service keeps about an issued token: never the token itself, only its SHA-256. */
export interface OnboardingTokenRecord {
  orgId: string;
  tokenId: string;
  tokenHash: string;
  /** Last 4 characters, so the dashboard can tell tokens apart without revealing them. */
  tokenHint: string;
  /** Trimmed and lower-cased. */
  email: string;
  firstName: string;
  lastName: string;
  createdAt: string;
  expiresAt: string;
  usedAt?: string;
}

/** 32 characters of base64url from 24 bytes of a CSPRNG (192 bits). */
export function generateOnboardingToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

export function hashOnboardingToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function tokenExpiry(createdAt: Date): Date {
  return new Date(createdAt.getTime() + TOKEN_VALIDITY_DAYS * DAY_MS);
}

/** Status is derived, not stored: `Used` once redeemed, else `Expired` from `expiresAt` on. */
export function tokenStatus(
  record: Pick<OnboardingTokenRecord, 'expiresAt' | 'usedAt'>,
  now: Date,
): OnboardingTokenStatus {
  if (record.usedAt) return 'Used';
  return now.getTime() >= Date.parse(record.expiresAt) ? 'Expired' : 'Issued';
}
