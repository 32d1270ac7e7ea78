import { createHash, randomBytes, randomUUID } from 'node:crypto';

export const TOKEN_VALIDITY_DAYS = 14;
const TOKEN_BYTES = 24;
const DAY_MS = 24 * 60 * 60 * 1000;

export const ONBOARDING_TOKEN_STATUSES = ['Issued', 'Used', 'Expired', 'Revoked'] as const;
export type OnboardingTokenStatus = (typeof ONBOARDING_TOKEN_STATUSES)[number];

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
  revokedAt?: string;
  /** The revoker's `sub`, when the token named one. */
  revokedBy?: string;
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

/** Status is derived, not stored: `Used` once redeemed, `Revoked` once revoked, else `Expired` from `expiresAt` on. */
export function tokenStatus(
  record: Pick<OnboardingTokenRecord, 'expiresAt' | 'usedAt' | 'revokedAt'>,
  now: Date,
): OnboardingTokenStatus {
  if (record.usedAt) return 'Used';
  if (record.revokedAt) return 'Revoked';
  return now.getTime() >= Date.parse(record.expiresAt) ? 'Expired' : 'Issued';
}

/** The person a token is for, as the organization entered them. */
export interface TokenHolder {
  orgId: string;
  email: string;
  firstName: string;
  lastName: string;
}

/** A fresh token for `holder`, valid 14 days from `now`, and the record that keeps its hash. */
export function issueTokenFor(holder: TokenHolder, now: Date): { token: string; record: OnboardingTokenRecord } {
  const token = generateOnboardingToken();
  return {
    token,
    record: {
      orgId: holder.orgId,
      tokenId: randomUUID(),
      tokenHash: hashOnboardingToken(token),
      tokenHint: token.slice(-4),
      email: holder.email,
      firstName: holder.firstName,
      lastName: holder.lastName,
      createdAt: now.toISOString(),
      expiresAt: tokenExpiry(now).toISOString(),
    },
  };
}
