import type { QuotaDecision } from '#shared/domain/limits/rate-limit.ts';
import type { ApiResult } from './api-types.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function jsonResponse(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult {
  return {
    statusCode,
    headers: { 'content-type': JSON_CONTENT_TYPE, 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

export const ok = (body: unknown, headers?: Record<string, string>): ApiResult => jsonResponse(200, body, headers);
export const created = (body: unknown, headers?: Record<string, string>): ApiResult => jsonResponse(201, body, headers);
export const accepted = (body: unknown, headers?: Record<string, string>): ApiResult =>
  jsonResponse(202, body, headers);

/** 204: done, nothing to say. */
export const noContent = (): ApiResult => ({ statusCode: 204, headers: { 'cache-control': 'no-store' }, body: '' });

/** The RateLimit-* headers of an organization's quota decision (limit, what remains, seconds to reset). */
export function rateLimitHeaders(decision: QuotaDecision): Record<string, string> {
  return {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  };
}
