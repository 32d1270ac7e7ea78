import { randomUUID } from 'node:crypto';
import type { MiddlewareObj } from '@middy/core';
import { ForbiddenError, InvalidInputError } from '#shared/domain/errors.ts';
import { logger } from '#shared/observability/logger.ts';
import type { ApiEvent, ApiResult, LambdaContext, Principal, Scope } from './api-types.ts';
import { bearerTokenFrom, type TokenVerifier } from './auth.ts';
import { mapErrorToResponse } from './error-mapper.ts';
import { PayloadTooLargeError, RouteNotFoundError, UnsupportedMediaTypeError } from './http-errors.ts';

/** Lambda context plus what the HTTP layer learns about the request. */
export interface ApiContext extends LambdaContext {
  requestId: string;
  principal: Principal;
}

export type ApiMiddleware = MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>;

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Outermost layer: a request id on every response and log line, `Sandbox: true` on every response
 * to a verified sandbox token (contract §23), and the one place thrown errors become the
 * contract's bodies. 5XX bodies say nothing internal; the log has the error.
 */
export function httpBoundary(): ApiMiddleware {
  const setRequestIdHeader = (request: { response: ApiResult | null | undefined; context: ApiContext }): void => {
    if (request.response) {
      const sandbox: Record<string, string> =
        request.context.principal?.tenant.mode === 'sandbox' ? { sandbox: 'true' } : {};
      request.response.headers = { ...request.response.headers, 'x-request-id': request.context.requestId, ...sandbox };
    }
  };
  return {
    before: (request) => {
      request.context.requestId = request.event.requestContext?.requestId || randomUUID();
      logger.appendKeys({ requestId: request.context.requestId, route: request.event.routeKey });
    },
    after: (request) => setRequestIdHeader(request),
    onError: (request) => {
      const { response, unexpected } = mapErrorToResponse(request.error, request.event);
      if (unexpected) logger.error('request failed', { error: request.error as Error, status: response.statusCode });
      else logger.info('request refused', { status: response.statusCode, reason: request.error?.name });
      request.response = response;
      setRequestIdHeader(request);
    },
  };
}

/**
 * Verifies the bearer token and requires the route's scope; the principal lands on the context. A
 * sandbox-only route (`sandboxOnly` in api-routes.ts) does not exist for any other token: 404, as
 * an unknown route, before its scope is looked at (docs/contract.md §23).
 */
export function authenticate(
  verifyToken: TokenVerifier,
  requiredScope: Scope,
  options: { sandboxOnly?: boolean | undefined } = {},
): ApiMiddleware {
  return {
    before: async (request) => {
      const principal = await verifyToken(bearerTokenFrom(request.event.headers));
      logger.appendKeys({ orgId: principal.tenantKey });
      // Before the scope check: a refusal to a verified sandbox token says it is the sandbox's too.
      request.context.principal = principal;
      if (options.sandboxOnly && principal.tenant.mode !== 'sandbox') {
        throw new RouteNotFoundError('a sandbox route, and the token is not a sandbox token');
      }
      if (!principal.scopes.has(requiredScope)) {
        throw new ForbiddenError(`token lacks the ${requiredScope} scope`);
      }
    },
  };
}

/** `application/json` or a `+json` type, any parameters, any case (RFC 9110: media types are case-insensitive). */
const JSON_MEDIA_TYPE = /^application\/([^\s;/]+\+)?json\s*(;|$)/i;

/**
 * A body declared as another media type than JSON is refused (415) before anything reads it. A
 * body without Content-Type is still read as JSON: the seed's clients may leave the header out.
 */
export function requireJsonContentType(): ApiMiddleware {
  return {
    before: (request) => {
      const { body, headers } = request.event;
      const contentType = headers?.['content-type']?.trim();
      if (body === undefined || body === '' || !contentType) return;
      if (!JSON_MEDIA_TYPE.test(contentType)) {
        throw new UnsupportedMediaTypeError('the request body must be JSON (Content-Type: application/json)');
      }
    },
  };
}

/**
 * Enforces the 64 KiB body limit before anything parses the body, and treats an absent body as
 * `{}` so that missing members are reported one by one rather than as "not JSON".
 */
export function limitRequestBody(maxBytes = MAX_BODY_BYTES): ApiMiddleware {
  return {
    before: (request) => {
      const { body, isBase64Encoded } = request.event;
      if (body === undefined || body === '') {
        request.event.body = '{}';
        request.event.isBase64Encoded = false;
        return;
      }
      const size = isBase64Encoded ? Buffer.from(body, 'base64').byteLength : Buffer.byteLength(body, 'utf8');
      if (size > maxBytes) throw new PayloadTooLargeError(`request body exceeds ${maxBytes} bytes`);
    },
  };
}

/** After JSON parsing: the body must be a JSON object, not an array, string or number. */
export function requireJsonObjectBody(): ApiMiddleware {
  return {
    before: (request) => {
      const body: unknown = request.event.body;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new InvalidInputError([{ field: 'body', code: 'isJson', hint: 'body must be a JSON object' }]);
      }
    },
  };
}
