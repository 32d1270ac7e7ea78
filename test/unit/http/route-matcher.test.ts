import { describe, expect, it } from 'vitest';
import { MethodNotAllowedError, RouteNotFoundError } from '#shared/http/http-errors.ts';
import { explainUnmatchedRoute } from '#shared/http/route-matcher.ts';

const explain = explainUnmatchedRoute([
  { method: 'POST', path: '/v1/document/api' },
  { method: 'GET', path: '/v1/document/api/{jobId}' },
  { method: 'GET', path: '/v1/document/api/{jobId}/download' },
  { method: 'GET', path: '/v1/report.v2' },
  { method: 'POST', path: '/v1/report.v2' },
]);

function thrownBy(method: string, path: string): unknown {
  try {
    explain(method, path);
  } catch (error) {
    return error;
  }
  throw new Error('expected explain to throw');
}

describe('explainUnmatchedRoute', () => {
  it('answers a path parameter route called with the wrong method with 405 allowing GET', () => {
    const error = thrownBy('POST', '/v1/document/api/0b7c6a4e-1f0e-4f6b-9d7a-2a1c3e5f7a90');

    expect(error).toBeInstanceOf(MethodNotAllowedError);
    expect((error as MethodNotAllowedError).allowedMethods).toEqual(['GET']);
  });

  it('lists every method a path allows', () => {
    const error = thrownBy('DELETE', '/v1/report.v2');

    expect((error as MethodNotAllowedError).allowedMethods).toEqual(['GET', 'POST']);
  });

  it('does not let a path parameter span several segments', () => {
    expect(thrownBy('GET', '/v1/document/api/a/b/download')).toBeInstanceOf(RouteNotFoundError);
  });

  it('treats dots in route paths literally, not as regular-expression wildcards', () => {
    expect(thrownBy('DELETE', '/v1/reportXv2')).toBeInstanceOf(RouteNotFoundError);
  });

  it('matches paths exactly, so a trailing slash is an unknown path', () => {
    const error = thrownBy('GET', '/v1/onboarding-token/');

    expect(error).toBeInstanceOf(RouteNotFoundError);
  });

  it('answers an unknown path with 404 naming the method and path', () => {
    const error = thrownBy('GET', '/v2/unknown');

    expect(error).toBeInstanceOf(RouteNotFoundError);
    expect((error as Error).message).toBe('no route for GET /v2/unknown');
  });

  it('answers 404 for an empty path parameter', () => {
    expect(thrownBy('POST', '/v1/document/api//download')).toBeInstanceOf(RouteNotFoundError);
  });
});
