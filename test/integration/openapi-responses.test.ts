import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';
import { openApiValidator } from '#test/support/openapi-validator.ts';
import { callApi, tokenFor, uniqueOrg, type ApiResponse } from '#test/support/api-client.ts';
import { reportJobStore, seedOrganization, waitForJob, writeOpenJob } from '#test/support/report-support.ts';

/**
 * Real responses of the local stack against openapi.json: each status is listed for its
 * operation, each body matches the response schema (strictly: no member the document does not
 * name), and every required header is there.
 */

const document = JSON.parse(readFileSync(path.join(repoRoot, 'openapi.json'), 'utf8')) as Record<string, any>;
const validator = openApiValidator(document, { strict: true });

const TOKEN_PATH = '/v1/onboarding-token';
const TOKENS_PATH = '/v1/onboarding-tokens';
const JOBS_PATH = '/v1/document/api';
const JOB_PATH = '/v1/document/api/{id}';
const URL_PATH = '/v1/document/api/{id}/url';
const USERS_PATH = '/v1/user-status';

function expectDocumented(route: { method: string; path: string }, response: ApiResponse, status: number): void {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(validator.checkResponse(route, response), `${route.method} ${route.path} ${status}`).toEqual([]);
}

const GET = (p: string) => ({ method: 'GET', path: p });
const POST = (p: string) => ({ method: 'POST', path: p });

let orgId: string;
let token: string;
let userIds: string[];

beforeAll(async () => {
  orgId = uniqueOrg('openapi');
  userIds = (await seedOrganization(orgId, 12)).map((user) => user.id);
  token = await tokenFor(orgId);
});

describe('success responses match the document', () => {
  it('POST /v1/onboarding-token 201, and its replay with Idempotency-Key', async () => {
    const body = { email: `${orgId}@example.com`, first_name: 'Zoë', last_name: 'Ångström' };
    const headers = { 'idempotency-key': `key-${orgId}` };
    const first = await callApi('POST', TOKEN_PATH, { token, body, headers });
    expectDocumented(POST(TOKEN_PATH), first, 201);
    const replay = await callApi('POST', TOKEN_PATH, { token, body, headers });
    expectDocumented(POST(TOKEN_PATH), replay, 201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('GET /v1/onboarding-tokens 200', async () => {
    expectDocumented(GET(TOKENS_PATH), await callApi('GET', `${TOKENS_PATH}?limit=1`, { token }), 200);
  });

  it('POST /v1/document/api 202, then GET the job 200 (COMPLETE) and its address 200', async () => {
    const created = await callApi('POST', JOBS_PATH, { token, body: { userId: userIds[0] } });
    expectDocumented(POST(JOBS_PATH), created, 202);
    const jobId = created.body.jobId as string;

    const pending = await callApi('GET', `${JOBS_PATH}/${jobId}`, { token });
    expectDocumented(GET(JOB_PATH), pending, 200);
    await waitForJob(jobId, token);
    const complete = await callApi('GET', `${JOBS_PATH}/${jobId}`, { token });
    expectDocumented(GET(JOB_PATH), complete, 200);
    expect(complete.body.status).toBe('COMPLETE');
    expectDocumented(GET(URL_PATH), await callApi('GET', `${JOBS_PATH}/${jobId}/url`, { token }), 200);
    expectDocumented(GET(JOBS_PATH), await callApi('GET', `${JOBS_PATH}?limit=5`, { token }), 200);
    expectDocumented(GET(JOBS_PATH), await callApi('GET', `${JOBS_PATH}?limit=500`, { token }), 400);
  });

  it('GET a job past its deadline: 200 FAILED (TIMED_OUT), and its address 422 naming the error code', async () => {
    const job = await writeOpenJob(reportJobStore(), {
      orgId,
      userId: userIds[1]!,
      createdAt: new Date(Date.now() - 6 * 60_000),
    });
    const failed = await callApi('GET', `${JOBS_PATH}/${job.jobId}`, { token });
    expectDocumented(GET(JOB_PATH), failed, 200);
    expect(failed.body).toMatchObject({ status: 'FAILED', errorCode: 'TIMED_OUT' });
    const refused = await callApi('GET', `${JOBS_PATH}/${job.jobId}/url`, { token });
    expectDocumented(GET(URL_PATH), refused, 422);
    expect(refused.body.errorCode).toBe('TIMED_OUT');
  });

  it('the token lifecycle: resend 201, redeem 200 and 409 with tokenStatus, revoke 204 and 409, list by status 200', async () => {
    const created = await callApi('POST', TOKEN_PATH, {
      token,
      body: { email: `life.${orgId}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
    });
    const resent = await callApi('POST', `${TOKENS_PATH}/${created.body.tokenId}/resend`, { token });
    expectDocumented(POST(`${TOKENS_PATH}/{tokenId}/resend`), resent, 201);
    const redeemed = await callApi('POST', `${TOKEN_PATH}/redeem`, {
      token,
      body: { onboarding_token: resent.body.onboarding_token },
    });
    expectDocumented(POST(`${TOKEN_PATH}/redeem`), redeemed, 200);
    const again = await callApi('POST', `${TOKEN_PATH}/redeem`, {
      token,
      body: { onboarding_token: resent.body.onboarding_token },
    });
    expectDocumented(POST(`${TOKEN_PATH}/redeem`), again, 409);
    expect(again.body.tokenStatus).toBe('Used');
    expectDocumented(
      { method: 'DELETE', path: `${TOKENS_PATH}/{tokenId}` },
      await callApi('DELETE', `${TOKENS_PATH}/${resent.body.tokenId}`, { token }),
      409,
    );
    const other = await callApi('POST', TOKEN_PATH, {
      token,
      body: { email: `revoke.${orgId}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
    });
    expectDocumented(
      { method: 'DELETE', path: `${TOKENS_PATH}/{tokenId}` },
      await callApi('DELETE', `${TOKENS_PATH}/${other.body.tokenId}`, { token }),
      204,
    );
    expectDocumented(GET(TOKENS_PATH), await callApi('GET', `${TOKENS_PATH}?status=Revoked`, { token }), 200);
  });

  it('POST /v1/user-status 200, default fields and every field', async () => {
    expectDocumented(POST(USERS_PATH), await callApi('POST', USERS_PATH, { token, body: {} }), 200);
    const everything = await callApi('POST', USERS_PATH, {
      token,
      body: {
        result_keys: Object.keys(document.components.schemas.UserStatusRecord.properties),
        pagination: { limit: 12 },
      },
    });
    expectDocumented(POST(USERS_PATH), everything, 200);
    expect(everything.body.results).toHaveLength(12);
  });

  it('GET /v1/openapi.json 200 without a token: the committed document', async () => {
    const served = await callApi('GET', '/v1/openapi.json');
    expectDocumented(GET('/v1/openapi.json'), served, 200);
    expect(served.body).toEqual(document);
  });
});

describe('error responses match the document', () => {
  it('400 validation body on every route that validates input', async () => {
    expectDocumented(POST(TOKEN_PATH), await callApi('POST', TOKEN_PATH, { token, body: { email: 'nope' } }), 400);
    expectDocumented(GET(TOKENS_PATH), await callApi('GET', `${TOKENS_PATH}?limit=0`, { token }), 400);
    expectDocumented(POST(JOBS_PATH), await callApi('POST', JOBS_PATH, { token, body: { userId: '' } }), 400);
    expectDocumented(POST(USERS_PATH), await callApi('POST', USERS_PATH, { token, body: { filter: {} } }), 400);
  });

  it('401 without a token, with WWW-Authenticate', async () => {
    const response = await callApi('GET', TOKENS_PATH);
    expectDocumented(GET(TOKENS_PATH), response, 401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('403 for a missing scope and for another organization’s job', async () => {
    const readOnly = await tokenFor(orgId, { scopes: 'onboarding:read' });
    expectDocumented(POST(USERS_PATH), await callApi('POST', USERS_PATH, { token: readOnly, body: {} }), 403);
    const foreign = await writeOpenJob(reportJobStore(), { orgId: uniqueOrg('other'), userId: 'someone' });
    expectDocumented(GET(JOB_PATH), await callApi('GET', `${JOBS_PATH}/${foreign.jobId}`, { token }), 403);
  });

  it('DELETE /v1/users/{id} 204, then 404 once erased', async () => {
    const route = { method: 'DELETE', path: '/v1/users/{id}' };
    expectDocumented(route, await callApi('DELETE', `/v1/users/${userIds[11]}`, { token }), 204);
    expectDocumented(route, await callApi('DELETE', `/v1/users/${userIds[11]}`, { token }), 404);
  });

  it('404 for an unknown job and an unknown user', async () => {
    const unknownJob = '00000000-0000-4000-8000-000000000000';
    expectDocumented(GET(JOB_PATH), await callApi('GET', `${JOBS_PATH}/${unknownJob}`, { token }), 404);
    expectDocumented(GET(URL_PATH), await callApi('GET', `${JOBS_PATH}/${unknownJob}/url`, { token }), 404);
    expectDocumented(
      POST(JOBS_PATH),
      await callApi('POST', JOBS_PATH, { token, body: { userId: 'no-such-user' } }),
      404,
    );
  });

  it('409 for a duplicate token and for a user’s open job (naming it)', async () => {
    const body = { email: `dup-${orgId}@example.com`, first_name: 'A', last_name: 'B' };
    expectDocumented(POST(TOKEN_PATH), await callApi('POST', TOKEN_PATH, { token, body }), 201);
    expectDocumented(POST(TOKEN_PATH), await callApi('POST', TOKEN_PATH, { token, body }), 409);
    const open = await writeOpenJob(reportJobStore(), { orgId, userId: userIds[2]! });
    const conflict = await callApi('POST', JOBS_PATH, { token, body: { userId: userIds[2] } });
    expectDocumented(POST(JOBS_PATH), conflict, 409);
    expect(conflict.body.jobId).toBe(open.jobId);
  });

  it('422 for a job not ready and for an Idempotency-Key reused with another body', async () => {
    const open = await writeOpenJob(reportJobStore(), { orgId, userId: userIds[3]! });
    const notReady = await callApi('GET', `${JOBS_PATH}/${open.jobId}/url`, { token });
    expectDocumented(GET(URL_PATH), notReady, 422);
    expect(notReady.body.status).toBe('PENDING');

    const headers = { 'idempotency-key': `reuse-${orgId}` };
    await callApi('POST', TOKEN_PATH, {
      token,
      headers,
      body: { email: `k1-${orgId}@example.com`, first_name: 'A', last_name: 'B' },
    });
    const reused = await callApi('POST', TOKEN_PATH, {
      token,
      headers,
      body: { email: `k2-${orgId}@example.com`, first_name: 'A', last_name: 'B' },
    });
    expectDocumented(POST(TOKEN_PATH), reused, 422);
  });

  it('413 for a body over 64 KiB', async () => {
    const rawBody = JSON.stringify({ filters: { name: 'x'.repeat(70 * 1024) } });
    const response = await callApi('POST', USERS_PATH, {
      token,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expectDocumented(POST(USERS_PATH), response, 413);
  });

  it('415 for a body sent as another type than JSON', async () => {
    const response = await callApi('POST', USERS_PATH, {
      token,
      rawBody: 'filters[name]=Ada',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectDocumented(POST(USERS_PATH), response, 415);
    expect(response.body.error).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('429 with Retry-After and RateLimit-* once the organization spent its 10 report requests', async () => {
    const limitedOrg = uniqueOrg('openapi-429');
    const limitedToken = await tokenFor(limitedOrg);
    // Every authenticated request counts, accepted or not: ten 404s spend the window.
    await Promise.all(
      Array.from({ length: 10 }, () => callApi('POST', JOBS_PATH, { token: limitedToken, body: { userId: 'nobody' } })),
    );
    const refused = await callApi('POST', JOBS_PATH, { token: limitedToken, body: { userId: 'nobody' } });
    expectDocumented(POST(JOBS_PATH), refused, 429);
  });

  it('429 on create and resend once an address had its 5 onboarding e-mails of the hour', async () => {
    const body = { email: `quota.${orgId}@example.com`, first_name: 'Ada', last_name: 'Lovelace' };
    let tokenId = (await callApi('POST', TOKEN_PATH, { token, body })).body.tokenId as string;
    for (let i = 0; i < 4; i++) {
      const resent = await callApi('POST', `${TOKENS_PATH}/${tokenId}/resend`, { token });
      expectDocumented(POST(`${TOKENS_PATH}/{tokenId}/resend`), resent, 201);
      tokenId = resent.body.tokenId;
    }
    expectDocumented(
      POST(`${TOKENS_PATH}/{tokenId}/resend`),
      await callApi('POST', `${TOKENS_PATH}/${tokenId}/resend`, { token }),
      429,
    );
    expectDocumented(POST(TOKEN_PATH), await callApi('POST', TOKEN_PATH, { token, body }), 429);
  });

  it('POST /v1/webhooks/{id}/test 202, then 429 once the organization spent its 10 tests of the minute', async () => {
    const limitedToken = await tokenFor(uniqueOrg('openapi-wh'));
    const endpoint = await callApi('POST', '/v1/webhooks', {
      token: limitedToken,
      body: { url: 'http://127.0.0.1:9/hooks', events: ['report.completed'] },
    });
    const testPath = `/v1/webhooks/${endpoint.body.id}/test`;
    const tests = await Promise.all(
      Array.from({ length: 11 }, () => callApi('POST', testPath, { token: limitedToken })),
    );
    const route = POST('/v1/webhooks/{id}/test');
    expectDocumented(
      route,
      tests.find((response) => response.status === 202)!,
      202,
    );
    expectDocumented(
      route,
      tests.find((response) => response.status === 429)!,
      429,
    );
  });
});
