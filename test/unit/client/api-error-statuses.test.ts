import { describe, expect, it } from 'vitest';
import openApiDocument from '#openapi.json' with { type: 'json' };
import { ApiError, apiErrorFor, ServerError } from '#client/errors.ts';

type Json = Record<string, any>;

/** Every error status some operation of the document declares. */
const declaredErrorStatuses = [
  ...new Set(
    Object.values(openApiDocument.paths as Json).flatMap((operations) =>
      Object.values(operations as Json).flatMap((operation) =>
        Object.keys((operation as Json).responses as Json).map(Number),
      ),
    ),
  ),
]
  .filter((status) => status >= 400)
  .sort((a, b) => a - b);

const errorFor = (status: number) =>
  apiErrorFor({
    status,
    method: 'GET',
    path: '/v1/x',
    requestId: 'r',
    body: undefined,
    retryAfterSeconds: undefined,
  });

describe('the client’s error types follow the statuses openapi.json declares', () => {
  it('declares some error statuses to follow', () => {
    expect(declaredErrorStatuses).toEqual(expect.arrayContaining([400, 401, 403, 404, 413, 415, 429, 500, 503]));
  });

  it.each(declaredErrorStatuses.filter((status) => status < 500))('%i has an error class of its own', (status) => {
    const error = errorFor(status);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.constructor, `a declared ${status} answered with a bare ApiError`).not.toBe(ApiError);
    expect(error.status).toBe(status);
  });

  it.each(declaredErrorStatuses.filter((status) => status >= 500))('%i is a ServerError', (status) => {
    expect(errorFor(status)).toBeInstanceOf(ServerError);
  });

  it('has no error class for a 4XX no operation declares (it stays a plain ApiError)', () => {
    const undeclared = Array.from({ length: 100 }, (_, i) => 400 + i).filter(
      (status) => !declaredErrorStatuses.includes(status),
    );
    for (const status of undeclared) expect(errorFor(status).constructor, String(status)).toBe(ApiError);
  });
});
