import * as v from 'valibot';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiHandler } from '#shared/http/api-handler.ts';
import type { ApiEvent, ApiResult } from '#shared/http/api-types.ts';
import type { TokenVerifier } from '#shared/http/auth.ts';
import type { ApiContext } from '#shared/http/middlewares.ts';
import { ok } from '#shared/http/responses.ts';
import { apiEvent, lambdaContext } from '#test/support/api-event.ts';
import { bearer, createTestKeySet, signToken, validClaims, type TestSigningKey } from '#test/support/jwt.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
});

/** Contract §23: every answer to a sandbox token carries `Sandbox: true`, errors too once the token is verified. */

let key: TestSigningKey;
let verifyToken: TokenVerifier;

beforeAll(async () => {
  const keys = await createTestKeySet();
  key = keys.es256;
  verifyToken = testTokenVerifier(keys.jwks);
});

type Handler = (event: ApiEvent, context: ApiContext) => Promise<ApiResult>;

function route(handle: () => Promise<ApiResult> = async () => ok({ done: true })): Handler {
  return createApiHandler({
    requiredScope: 'onboarding:write',
    verifyToken,
    bodySchema: v.object({ name: v.string() }),
    handle,
  });
}

async function call(handler: Handler, scope: string, body = '{"name":"ada"}', claims: Record<string, unknown> = {}) {
  const token = await signToken(validClaims({ scope, ...claims }), { key });
  return handler(
    apiEvent({
      method: 'POST',
      path: '/v1/things',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body,
    }),
    lambdaContext() as ApiContext,
  );
}

describe('the Sandbox header', () => {
  it('is on every answer to a sandbox token: success, refused scope, invalid body, a failure', async () => {
    const answers = [
      await call(route(), 'onboarding:write sandbox'),
      await call(route(), 'onboarding:read sandbox'),
      await call(route(), 'onboarding:write sandbox', '{"name":1}'),
      await call(
        route(() => Promise.reject(new Error('boom'))),
        'onboarding:write sandbox',
      ),
    ];

    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 403, 400, 500]);
    for (const answer of answers) expect(answer.headers.sandbox).toBe('true');
  });

  it('is on no answer to a live token, nor to a token that was not verified', async () => {
    const live = await call(route(), 'onboarding:write');
    const liveRefused = await call(route(), 'onboarding:read');
    const expiredSandbox = await call(route(), 'onboarding:write sandbox', undefined, { exp: 1_000 });

    expect([live.statusCode, liveRefused.statusCode, expiredSandbox.statusCode]).toEqual([200, 403, 401]);
    for (const answer of [live, liveRefused, expiredSandbox]) expect(answer.headers).not.toHaveProperty('sandbox');
  });
});
