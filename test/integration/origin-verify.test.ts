import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { ORIGIN_VERIFY_HEADER } from '#shared/config/origin-verify.ts';
import { apiEvent } from '#test/support/api-event.ts';
import { tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { coldStart, lambdaContext } from '#test/support/report-support.ts';

/**
 * The edge's origin check through a real function module on the local stack (the stack itself runs
 * with the edge off): a container started with ORIGIN_VERIFY_SECRETS, as CDK sets it with
 * `edgeProtection`, refuses a request without CloudFront's header before it fetches the provider's
 * key set or writes the organization's request budget in DynamoDB Local.
 */
const CURRENT = 'integration-origin-verify-current-0123456789abcdef';
const PREVIOUS = 'integration-origin-verify-previous-0123456789abcdef';

type ApiHandler = (
  event: APIGatewayProxyEventV2,
  context: ReturnType<typeof lambdaContext>,
) => Promise<APIGatewayProxyStructuredResultV2>;

async function container(overrides: Record<string, string>): Promise<ApiHandler> {
  const started = await coldStart<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(
    'list-webhook-endpoints',
    overrides,
  );
  return started.handler as ApiHandler;
}

const listEndpoints = (handler: ApiHandler, token: string, headers: Record<string, string> = {}) =>
  handler(
    apiEvent({ method: 'GET', path: '/v1/webhooks', headers: { authorization: `Bearer ${token}`, ...headers } }),
    lambdaContext('ListWebhookEndpoints', 10_000),
  );

/** The organization's item in the RequestBudgets table: there once a request has spent its budget. */
async function budgetItem(orgId: string): Promise<Record<string, unknown> | undefined> {
  const env = inject('localEnv');
  const documents = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      endpoint: env.AWS_ENDPOINT_URL_DYNAMODB,
      region: env.AWS_REGION,
      credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
    }),
  );
  const { Item } = await documents.send(
    new GetCommand({ TableName: env.REQUEST_BUDGETS_TABLE_NAME!, Key: { pk: `ORG#${orgId}` } }),
  );
  return Item;
}

/** Counts the fetches of the provider's key set the container makes. */
function keySetFetches(): () => number {
  const jwksUrl = inject('localEnv').JWKS_URL!;
  const fetchSpy = vi.spyOn(globalThis, 'fetch');
  return () =>
    fetchSpy.mock.calls.filter(([input]) => String(input instanceof Request ? input.url : input) === jwksUrl).length;
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('with the edge on (ORIGIN_VERIFY_SECRETS set)', () => {
  const edgeOn = { ORIGIN_VERIFY_SECRETS: JSON.stringify({ current: CURRENT, previous: PREVIOUS }) };

  it('refuses a call without the origin-verify header with 403, fetching no key set and spending no budget', async () => {
    const handler = await container(edgeOn);
    const fetches = keySetFetches();
    const orgId = uniqueOrg('edge-bypass');

    const response = await listEndpoints(handler, await tokenFor(orgId, { issuer: inject('localEnv').JWT_ISSUER }));

    expect(response.statusCode).toBe(403);
    expect(JSON.parse(response.body ?? '{}')).toMatchObject({
      code: 403,
      error: 'FORBIDDEN',
      path: '/v1/webhooks',
      method: 'GET',
    });
    expect(fetches()).toBe(0);
    expect(await budgetItem(orgId)).toBeUndefined();
  });

  it.each([
    { label: 'current', value: CURRENT },
    { label: 'previous', value: PREVIOUS },
  ])('answers a call carrying the $label value, which spends the organization’s budget', async ({ value }) => {
    const handler = await container(edgeOn);
    const fetches = keySetFetches();
    const orgId = uniqueOrg('edge-through');

    const response = await listEndpoints(handler, await tokenFor(orgId, { issuer: inject('localEnv').JWT_ISSUER }), {
      [ORIGIN_VERIFY_HEADER]: value,
    });

    expect(response.statusCode).toBe(200);
    expect(fetches()).toBe(1);
    expect(await budgetItem(orgId)).toBeDefined();
  });
});

describe('with the edge off (the local stack as it runs)', () => {
  it('answers a call without the header', async () => {
    const handler = await container({});
    const orgId = uniqueOrg('edge-off');

    const response = await listEndpoints(handler, await tokenFor(orgId, { issuer: inject('localEnv').JWT_ISSUER }));

    expect(response.statusCode).toBe(200);
    expect(await budgetItem(orgId)).toBeDefined();
  });
});
