import type { QuotaDecision } from '#shared/domain/limits/rate-limit.ts';

/**
 * Outcomes a use case reports by throwing. They name what happened in domain terms; the HTTP
 * layer's error mapper (shared/http/error-mapper.ts) is the one place that turns them into
 * status codes and the contract's bodies.
 */

export interface FieldProblem {
  /** camelCase path of the offending input, e.g. `firstName`, `filters.age.gte`, `resultKeys[2]`. */
  field: string;
  /** Validation rule name, e.g. `isNotEmpty`, `isEmail`, `isIn`. */
  code: string;
  /** Short text naming the member as the client sent it. */
  hint: string;
}

export class InvalidInputError extends Error {
  override name = 'InvalidInputError';
  constructor(readonly problems: readonly FieldProblem[]) {
    super(problems.map((p) => p.hint).join('; '));
  }
}

export class NotFoundError extends Error {
  override name = 'NotFoundError';
}

export class ForbiddenError extends Error {
  override name = 'ForbiddenError';
}

export class ConflictError extends Error {
  override name = 'ConflictError';
  /** Additive members for the error body, e.g. the open job's `jobId`. */
  constructor(
    message: string,
    readonly details: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class UnprocessableError extends Error {
  override name = 'UnprocessableError';
  constructor(
    message: string,
    readonly details: Record<string, string> = {},
  ) {
    super(message);
  }
}

export class RateLimitedError extends Error {
  override name = 'RateLimitedError';
  constructor(
    readonly retryAfterSeconds: number,
    readonly headers: Record<string, string> = {},
  ) {
    super('rate limit exceeded');
  }
}

/**
 * The organization's request budget ran out while this request's database statements ran
 * (contract §19, charged as they run): the statements were stopped, and the request is refused
 * like one over budget at admission.
 */
export class RequestBudgetSpentError extends RateLimitedError {
  override name = 'RequestBudgetSpentError';
  constructor(retryAfterSeconds: number, headers: Record<string, string> = {}) {
    super(retryAfterSeconds, headers);
    this.message =
      "the organization's request budget is spent: this request's running database statements were stopped";
  }
}

/**
 * The organization has as many requests in flight as its concurrency limit allows (contract §25):
 * `limit` on all routes, or on the routes that run database statements (`database`).
 */
export class ConcurrencyLimitedError extends RateLimitedError {
  override name = 'ConcurrencyLimitedError';
  constructor(
    retryAfterSeconds: number,
    readonly limit: number,
    readonly database: boolean,
  ) {
    super(retryAfterSeconds);
    this.message = database
      ? `the organization already has ${limit} requests running database statements; retry when one ends`
      : `the organization already has ${limit} requests in flight; retry when one ends`;
  }
}

/**
 * An onboarding e-mail quota is used up: the recipient's (per address and organization) or the
 * organization's. `decision` is the refusing quota's, for the `RateLimit-*` headers.
 */
export class EmailQuotaExceededError extends RateLimitedError {
  override name = 'EmailQuotaExceededError';
  constructor(
    readonly decision: QuotaDecision,
    readonly exhausted: 'recipient' | 'organization',
  ) {
    super(decision.retryAfterSeconds);
    this.message =
      exhausted === 'recipient'
        ? `at most ${decision.limit} onboarding e-mails an hour to one address`
        : `at most ${decision.limit} onboarding e-mails an hour per organization`;
  }
}

/** An operator resumes a paused organization's e-mail; until then a client retrying sooner is refused again. */
export const EMAIL_PAUSED_RETRY_AFTER_SECONDS = 3600;

/**
 * The organization's e-mail is paused (contract §19): its bounces or complaints over its last
 * e-mails went past the limits, and only an operator's resume lets it send again.
 */
export class EmailPausedError extends RateLimitedError {
  override name = 'EmailPausedError';
  constructor(readonly reason: 'bounces' | 'complaints') {
    super(EMAIL_PAUSED_RETRY_AFTER_SECONDS);
    this.message =
      `e-mail is paused for this organization: too many ${reason} among its recent onboarding e-mails; ` +
      'an operator must resume it';
  }
}

/** A dependency (database, queue, storage, mail) is throttling or unavailable; the client may retry. */
export class DependencyUnavailableError extends Error {
  override name = 'DependencyUnavailableError';
  /** The call was cut off after it was sent: a write in it may still take effect. */
  readonly outcomeUnknown: boolean;
  /** How long the caller should wait before retrying, when the failure tells (a stall does). */
  readonly retryAfterSeconds: number | undefined;
  constructor(
    readonly dependency: string,
    options?: { cause?: unknown; outcomeUnknown?: boolean; retryAfterSeconds?: number },
  ) {
    super(`${dependency} is unavailable`, options);
    this.outcomeUnknown = options?.outcomeUnknown ?? false;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/** The user already has a PENDING or IN_PROGRESS report job; `jobId` names it. */
export class OpenJobExistsError extends ConflictError {
  override name = 'OpenJobExistsError';
  constructor(
    readonly openJobId: string,
    readonly openJobCreatedAt: string,
  ) {
    super('a report job for this user is already pending', { jobId: openJobId });
  }
}

/** The onboarding token is not `Issued` (any more): 409 naming its `tokenStatus`. */
export class TokenNotIssuedError extends ConflictError {
  override name = 'TokenNotIssuedError';
  constructor(readonly tokenStatus: string) {
    super(`the onboarding token is ${tokenStatus}`, { tokenStatus });
  }
}
