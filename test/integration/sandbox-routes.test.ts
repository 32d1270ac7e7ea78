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
