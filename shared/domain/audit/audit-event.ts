/**
 * The audit trail (contract §16): who did what to which resource, one event per state-changing
 * request and per download address issued. An event names people only by ids.
 */

export const AUDIT_ACTIONS = [
  'onboarding_token.created',
  'onboarding_token.redeemed',
  'onboarding_token.revoked',
  'onboarding_token.resent',
  'onboarding_token.expired',
  'report.requested',
  'report.download_url_issued',
  'webhook.created',
  'webhook.deleted',
  'webhook.tested',
  'user.erasure_started',
  'user.erased',
  'sandbox.wipe_requested',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_TARGET_TYPES = ['onboarding_token', 'report', 'webhook', 'user', 'sandbox'] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** Which kind of resource each action acts on. */
export const TARGET_TYPE_OF: Record<AuditAction, AuditTargetType> = {
  'onboarding_token.created': 'onboarding_token',
  'onboarding_token.redeemed': 'onboarding_token',
  'onboarding_token.revoked': 'onboarding_token',
  'onboarding_token.resent': 'onboarding_token',
  'onboarding_token.expired': 'onboarding_token',
  'report.requested': 'report',
  'report.download_url_issued': 'report',
  'webhook.created': 'webhook',
  'webhook.deleted': 'webhook',
  'webhook.tested': 'webhook',
  'user.erasure_started': 'user',
  'user.erased': 'user',
  // The target's id is the wipe's id (DELETE /v1/sandbox answers it).
  'sandbox.wipe_requested': 'sandbox',
};

/**
 * `success` once a change has committed; `started` for an erasure about to delete (contract §20):
 * recorded before the first deletion, so an erasure cut off half way still shows in the trail.
 */
export const AUDIT_OUTCOMES = ['success', 'started'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export const outcomeOf = (action: AuditAction): AuditOutcome =>
  action === 'user.erasure_started' ? 'started' : 'success';

export interface AuditEvent {
  eventId: string;
  /** ISO 8601 instant. */
  occurredAt: string;
  action: AuditAction;
  /** The token's subject and OAuth client; null when the token does not say. */
  actor: { sub: string | null; clientId: string | null };
  target: { type: AuditTargetType; id: string };
  requestId: string;
  /** Refused requests record nothing. */
  outcome: AuditOutcome;
}

export interface AuditEventQuery {
  limit: number;
  cursor?: string | undefined;
  action?: AuditAction | undefined;
  targetId?: string | undefined;
  /** Inclusive bounds on `occurredAt` (ISO 8601 instants). */
  from?: string | undefined;
  to?: string | undefined;
}

export interface AuditEventPage {
  results: AuditEvent[];
  nextCursor: string | null;
}

/** Where an organization's events are kept: appended, listed newest first, never changed. */
export interface AuditTrail {
  append(orgId: string, event: AuditEvent): Promise<void>;
  list(orgId: string, query: AuditEventQuery): Promise<AuditEventPage>;
}
