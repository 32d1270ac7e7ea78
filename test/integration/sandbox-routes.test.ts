import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { OnboardingApiClient } from '#client/index.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { ALL_SCOPES } from '#local/dev-keys.ts';
import { SANDBOX_SCOPE } from '#shared/domain/identity/tenant.ts';
import { listScenarios, SCENARIO_IDS } from '#shared/domain/sandbox/scenarios.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { openApiValidator } from '#test/support/openapi-validator.ts';

/**
 * The sandbox's own routes through the local stack (docs/sandbox.md): they answer sandbox tokens
 * alone (a live token gets 404, as for an unknown route, whatever its scopes), their bodies are the
 * document's, and the scenario listing is the definition the users database and the worker use.
 */

const document = JSON.parse(await readFile(path.join(repoRoot, 'openapi.json'), 'utf8')) as Record<string, unknown>;
const validator = openApiValidator(document, { strict: true });
const orgId = uniqueOrg('sandbox-routes');
const sandboxToken = (scopes: readonly string[] = ALL_SCOPES) =>
  tokenFor(orgId, { scopes: [...scopes, SANDBOX_SCOPE] });

describe('GET /v1/sandbox/scenarios', () => {
  const SCENARIOS_PATH = '/v1/sandbox/scenarios';

  it('lists every scenario user with its record and report, as the definition gives them', async () => {
    const response = await callApi('GET', SCENARIOS_PATH, { token: await sandboxToken() });

    expect(response.status).toBe(200);
    expect(response.headers.get('sandbox')).toBe('true');
    expect(validator.checkResponse({ method: 'GET', path: SCENARIOS_PATH }, response)).toEqual([]);
    expect(response.body.results.map((scenario: { id: string }) => scenario.id)).toEqual([...SCENARIO_IDS]);
    expect(response.body).toEqual(JSON.parse(JSON.stringify({ results: listScenarios(orgId, new Date()) })));
  });

  it('gives each listed user to user-status in the same sandbox, with the same record', async () => {
    const token = await sandboxToken();
    const listed = (await callApi('GET', SCENARIOS_PATH, { token })).body.results as Array<{
      id: string;
      user: Record<string, unknown>;
    }>;
    const fields = [...new Set(listed.flatMap((scenario) => Object.keys(scenario.user)))];
    const queried = await callApi('POST', '/v1/user-status', {
      token,
      // A new sandbox holds its scenario users alone.
      body: { result_keys: fields, pagination: { limit: 50 } },
    });
    expect(queried.status).toBe(200);
    // What user-status gives for a field a user lacks is null.
    expect(queried.body.results).toEqual(
      listed.map((scenario) => Object.fromEntries(fields.map((field) => [field, scenario.user[field] ?? null]))),
    );
  });

  it('is 404 for a live token, before its scopes are looked at; 403 for a sandbox token without users:read', async () => {
    for (const scopes of [ALL_SCOPES, ['reports:read']]) {
      const live = await callApi('GET', SCENARIOS_PATH, { token: await tokenFor(orgId, { scopes }) });
      expect(live.status).toBe(404);
      expect(validator.checkResponse({ method: 'GET', path: SCENARIOS_PATH }, live)).toEqual([]);
    }
    const withoutScope = await callApi('GET', SCENARIOS_PATH, { token: await sandboxToken(['reports:read']) });
    expect(withoutScope.status).toBe(403);
  });

  it('is what the typed client returns', async () => {
    const client = new OnboardingApiClient({ baseUrl: inject('baseUrl'), token: await sandboxToken() });
    const listing = await client.listSandboxScenarios();
    expect(listing.results.find((scenario) => scenario.id === 'sbx-slow')?.report).toEqual({
      status: 'COMPLETE',
      completesAfterSeconds: 30,
      pages: 2,
    });
  });
});

describe('POST /v1/sandbox/users', () => {
  const USERS_PATH = '/v1/sandbox/users';
  const record = (id: string) => ({ id, name: `Added ${id}`, created_at: '2024-05-01T10:00:00Z' });

  it('stores every record in the sandbox (201 {imported}), listed by user-status after the scenario users', async () => {
    const token = await sandboxToken();
    const response = await callApi('POST', USERS_PATH, { token, body: { users: [record('a-1'), record('a-2')] } });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({ imported: 2 });
    expect(validator.checkResponse({ method: 'POST', path: USERS_PATH }, response)).toEqual([]);
    const listed = await callApi('POST', '/v1/user-status', {
      token,
      body: { result_keys: ['id'], pagination: { limit: 50 } },
    });
    expect(listed.body.results.map((user: { id: string }) => user.id)).toEqual([...SCENARIO_IDS, 'a-1', 'a-2']);
    // Not in live.
    const live = await callApi('POST', '/v1/user-status', {
      token: await tokenFor(orgId),
      body: { result_keys: ['id'], pagination: { limit: 50 } },
    });
    expect(live.body.results).toEqual([]);
  });

  it('is 400 naming a bad record, and stores nothing of the call', async () => {
    const token = await sandboxToken();
    const response = await callApi('POST', USERS_PATH, {
      token,
      body: { users: [record('b-1'), { id: 'b-2', created_at: 'yesterday' }] },
    });

    expect(response.status).toBe(400);
    expect(validator.checkResponse({ method: 'POST', path: USERS_PATH }, response)).toEqual([]);
    expect(response.body.errors).toEqual([
      expect.objectContaining({ field: 'users[1]', hint: expect.stringContaining('created_at') }),
    ]);
    const found = await callApi('POST', '/v1/user-status', {
      token,
      body: { filters: { id: 'b-1' }, result_keys: ['id'] },
    });
    expect(found.body.results).toEqual([]);
  });

  it('is 404 for a live token, and refuses more than 1,000 records', async () => {
    const live = await callApi('POST', USERS_PATH, { token: await tokenFor(orgId), body: { users: [record('c-1')] } });
    expect(live.status).toBe(404);
    const tooMany = await callApi('POST', USERS_PATH, {
      token: await sandboxToken(),
      body: { users: Array.from({ length: 1001 }, (_, i) => ({ id: `c-${i}` })) },
    });
    expect(tooMany.status).toBe(400);
  });

  it('is what the typed client sends', async () => {
    const client = new OnboardingApiClient({ baseUrl: inject('baseUrl'), token: await sandboxToken() });
    expect(await client.importSandboxUsers({ users: [record('d-1')] })).toEqual({ imported: 1 });
  });
});
