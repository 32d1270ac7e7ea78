import {
  ConflictError,
  DependencyUnavailableError,
  EmailQuotaExceededError,
  ForbiddenError,
  InvalidInputError,
  NotFoundError,
  RateLimitedError,
  UnprocessableError,
} from '#shared/domain/errors.ts';
import {
  MethodNotAllowedError,
  PayloadTooLargeError,
  RouteNotFoundError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from './http-errors.ts';
import type { ApiEvent, ApiResult } from './api-types.ts';
import { jsonResponse, rateLimitHeaders } from './responses.ts';
import { STATUS_NAMES, type StandardErrorBody, type ValidationErrorBody } from '#shared/schemas/error-responses.ts';

/** The standard body's `error` member for each status (the OpenAPI document lists these values). */

/** Throttling or a 5XX that outlasted the SDK's retries; a stall tells its own length instead. */
const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

/** The contract's standard error body: every non-400 error on every endpoint. */
export function standardErrorResponse(
  event: Pick<ApiEvent, 'rawPath' | 'requestContext'>,
  statusCode: number,
  message: string,
  extra: { headers?: Record<string, string>; details?: Record<string, string> } = {},
): ApiResult {
  const standard = {
    code: statusCode,
    timestamp: new Date().toISOString(),
    path: event.rawPath,
    method: event.requestContext.http.method,
    error: STATUS_NAMES[statusCode] ?? 'INTERNAL_SERVER_ERROR',
    message,
  } satisfies StandardErrorBody;
  // Details are additive: listed after the standard members, never replacing one of them.
  return jsonResponse(statusCode, { ...standard, ...extra.details, ...standard }, extra.headers);
}

export interface MappedError {
  response: ApiResult;
  /** Unexpected: log at error level with the stack. Expected outcomes are logged at info. */
  unexpected: boolean;
}

/** The one place that turns a thrown error into the contract's bodies. */
export function mapErrorToResponse(error: unknown, event: Pick<ApiEvent, 'rawPath' | 'requestContext'>): MappedError {
  const respond = (status: number, message: string, extra?: Parameters<typeof standardErrorResponse>[3]) => ({
    response: standardErrorResponse(event, status, message, extra),
    unexpected: false,
  });

  if (error instanceof InvalidInputError) {
    const body: ValidationErrorBody = { code: 400, errors: [...error.problems] };
    return { response: jsonResponse(400, body), unexpected: false };
  }
  if (isJsonParseFailure(error)) {
    const errors = [{ field: 'body', code: 'isJson', hint: 'body must be a valid JSON object' }];
    return { response: jsonResponse(400, { code: 400, errors } satisfies ValidationErrorBody), unexpected: false };
  }
  if (error instanceof UnauthorizedError) {
    return respond(401, error.message, { headers: { 'www-authenticate': 'Bearer' } });
  }
  if (error instanceof ForbiddenError) return respond(403, error.message);
  if (error instanceof NotFoundError || error instanceof RouteNotFoundError) return respond(404, error.message);
  if (error instanceof MethodNotAllowedError) {
    return respond(405, error.message, { headers: { allow: error.allowedMethods.join(', ') } });
  }
  if (error instanceof ConflictError) return respond(409, error.message, { details: error.details });
  if (error instanceof PayloadTooLargeError) return respond(413, error.message);
  if (error instanceof UnsupportedMediaTypeError) return respond(415, error.message);
  if (error instanceof UnprocessableError) return respond(422, error.message, { details: error.details });
  if (error instanceof RateLimitedError) {
    return respond(429, error.message, {
      headers: {
        'retry-after': String(error.retryAfterSeconds),
        ...(error instanceof EmailQuotaExceededError ? rateLimitHeaders(error.decision) : error.headers),
      },
    });
  }
  if (isIdempotencyError(error, 'IdempotencyValidationError')) {
    return respond(422, 'Idempotency-Key was already used with a different request body');
  }
  if (isIdempotencyError(error, 'IdempotencyAlreadyInProgressError')) {
    return respond(409, 'a request with this Idempotency-Key is still being processed; retry later');
  }
  const unavailable = causeChain(error).find(
    (link): link is DependencyUnavailableError => link instanceof DependencyUnavailableError,
  );
  if (unavailable) {
    const retryAfter = unavailable.retryAfterSeconds ?? DEPENDENCY_RETRY_AFTER_SECONDS;
    return {
      response: standardErrorResponse(event, 503, 'a dependency is temporarily unavailable; retry later', {
        headers: { 'retry-after': String(retryAfter) },
      }),
      unexpected: true,
    };
  }
  return { response: standardErrorResponse(event, 500, 'internal error'), unexpected: true };
}

function isJsonParseFailure(error: unknown): boolean {
  const cause = (error as { cause?: { package?: string } } | undefined)?.cause;
  return cause?.package === '@middy/http-json-body-parser';
}

function isIdempotencyError(error: unknown, name: string): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === name || (error.cause instanceof Error && error.cause.name === name);
}

/** The error and what it wraps: libraries (e.g. Powertools idempotency) wrap our adapters' errors. */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let link = error; link !== undefined && chain.length < 6; link = (link as { cause?: unknown }).cause) {
    chain.push(link);
    if (!(link instanceof Error)) break;
  }
  return chain;
}
