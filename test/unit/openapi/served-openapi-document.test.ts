import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';
import { OPENAPI_DOCUMENT_FILE } from '#scripts/openapi/build-openapi-document.ts';
import type { ApiContext } from '#shared/http/middlewares.ts';
import { openApiDocumentServedAt } from '#shared/presenters/openapi-document.ts';
import { apiEvent, lambdaContext } from '#test/support/api-event.ts';

vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
});

const committed = JSON.parse(readFileSync(path.join(repoRoot, OPENAPI_DOCUMENT_FILE), 'utf8')) as Record<
  string,
  unknown
>;
const EDGE = 'https://d111111abcdef8.cloudfront.net';

/** GET /v1/openapi.json's body, from the function as a cold start with `API_URL` (or none) loads it. */
async function servedDocument(apiUrl: string | undefined): Promise<Record<string, unknown>> {
  vi.resetModules();
  if (apiUrl !== undefined) vi.stubEnv('API_URL', apiUrl);
  const { handler } = await import('#functions/get-openapi-document.ts');
  const response = await handler(apiEvent({ method: 'GET', path: '/v1/openapi.json' }), lambdaContext() as ApiContext);
  expect(response.statusCode).toBe(200);
  return JSON.parse(response.body as string) as Record<string, unknown>;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the OpenAPI document a stage serves', () => {
  it('names the stage’s own address (its ApiUrl, the edge’s with the edge on) as its one server', () => {
    const served = openApiDocumentServedAt(committed, EDGE);
    expect(served.servers).toEqual([{ url: EDGE, description: expect.stringContaining('ApiUrl') }]);
    expect({ ...served, servers: committed.servers }).toEqual(committed);
  });

  it('is the committed document as it is where no address is known (the local stack)', () => {
    expect(openApiDocumentServedAt(committed, undefined)).toBe(committed);
  });

  it('GET /v1/openapi.json answers with the address of API_URL as its server', async () => {
    expect((await servedDocument(EDGE)).servers).toEqual([{ url: EDGE, description: expect.any(String) }]);
  });

  it('GET /v1/openapi.json keeps the committed servers without API_URL', async () => {
    expect((await servedDocument(undefined)).servers).toEqual(committed.servers);
  });

  it('refuses to start with an API_URL that is not an https address without a final slash', async () => {
    for (const apiUrl of ['http://d111111abcdef8.cloudfront.net', `${EDGE}/`, 'cloudfront']) {
      await expect(servedDocument(apiUrl), apiUrl).rejects.toThrow(/API_URL/);
      vi.unstubAllEnvs();
    }
  });
});
