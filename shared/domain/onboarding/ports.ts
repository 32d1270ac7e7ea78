import type { OnboardingTokenRecord } from './onboarding-token.ts';

export interface OnboardingTokenPage {
  records: OnboardingTokenRecord[];
  /** Opaque; present when more records follow. */
  nextCursor: string | undefined;
}

export interface OnboardingTokenStore {
  /**
   * Records a new token. Throws `ConflictError` when the organization already holds an
   * unexpired token for the same e-mail; atomic under concurrent calls.
   */
  issue(record: OnboardingTokenRecord, now: Date): Promise<void>;
  /** Undoes `issue` (used when the e-mail could not be sent). */
  withdraw(record: OnboardingTokenRecord): Promise<void>;
  /** Newest first. Throws `InvalidInputError` for a cursor it did not issue to this organization. */
  listByOrganization(orgId: string, page: { limit: number; cursor: string | undefined }): Promise<OnboardingTokenPage>;
}

export interface OnboardingEmail {
  to: string;
  firstName: string;
  lastName: string;
  token: string;
  expiresAt: Date;
  organizationName: string;
}

export interface OnboardingMailer {
  sendOnboardingToken(email: OnboardingEmail): Promise<void>;
}
