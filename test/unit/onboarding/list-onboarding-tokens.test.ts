import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { encodeCursor } from '#shared/adapters/dynamodb/page-cursor.ts';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import { InvalidInputError } from '#shared/domain/errors.ts';
import { listOnboardingTokens } from '#shared/domain/onboarding/list-onboarding-tokens.ts';
import { onboardingTokenPageBody } from '#shared/presenters/onboarding-token-bodies.ts';
import { issuedTokenRecord, tokenItem } from '#test/support/fixtures/onboarding-tokens.ts';

const documentsMock = mockClient(DynamoDBDocumentClient);
const NOW = new Date('2026-03-20T00:00:00.000Z');

const item = (n: number, createdAt: string, expiresAt: string) => ({
  ...tokenItem(
    issuedTokenRecord({
      orgId: 'acme',
      tokenId: `id-${n}`,
      tokenHash: `hash-${n}`,
      tokenHint: `h${n}`.padEnd(4, 'x'),
      email: `user${n}@example.com`,
      firstName: 'First',
      lastName: 'Last',
      createdAt,
      expiresAt,
    }),
  ),
  ttl: 1,
});

/** The listing as `GET /v1/onboarding-tokens` answers it: the use case over the store, then the presenter. */
function listing() {
  const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
  const list = listOnboardingTokens({
    tokens: new DynamoDbOnboardingTokenStore(documents, 'OnboardingTokens'),
    clock: { now: () => NOW },
  });
  return async (input: Parameters<typeof list>[0]) => onboardingTokenPageBody(await list(input));
}

describe('listOnboardingTokens', () => {
  beforeEach(() => documentsMock.reset());

  it("queries only the caller's partition, newest first, one item beyond the page", async () => {
    documentsMock.on(QueryCommand).resolves({ Items: [] });

    await listing()({ orgId: 'acme', limit: 25, cursor: undefined });

    expect(documentsMock).toHaveReceivedCommandWith(QueryCommand, {
      TableName: 'OnboardingTokens',
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': 'ORG#acme', ':prefix': 'TOKEN#' },
      ScanIndexForward: false,
      Limit: 26,
    });
  });

  it('derives status, shows only the hint, and gives a cursor only when more records follow', async () => {
    documentsMock.on(QueryCommand).resolves({
      Items: [
        item(3, '2026-03-10T00:00:00.000Z', '2026-03-24T00:00:00.000Z'),
        item(2, '2026-03-01T00:00:00.000Z', '2026-03-15T00:00:00.000Z'),
        item(1, '2026-02-01T00:00:00.000Z', '2026-02-15T00:00:00.000Z'),
      ],
    });

    const page = await listing()({ orgId: 'acme', limit: 2, cursor: undefined });

    expect(page.results).toEqual([
      expect.objectContaining({ email: 'user3@example.com', status: 'Issued', tokenHint: 'h3xx' }),
      expect.objectContaining({ email: 'user2@example.com', status: 'Expired' }),
    ]);
    expect(JSON.stringify(page)).not.toContain('hash-');
    expect(page.nextCursor).toBe(encodeCursor('TOKEN#2026-03-01T00:00:00.000Z#id-2'));
  });

  it('names the person as create takes it (first_name, last_name), with the first answers’ camelCase names kept as aliases', async () => {
    documentsMock
      .on(QueryCommand)
      .resolves({ Items: [item(1, '2026-03-10T00:00:00.000Z', '2026-03-24T00:00:00.000Z')] });

    const [summary] = (await listing()({ orgId: 'acme', limit: 2, cursor: undefined })).results;

    expect(summary).toMatchObject({ first_name: 'First', last_name: 'Last', firstName: 'First', lastName: 'Last' });
  });

  it('has no cursor on the last page', async () => {
    documentsMock
      .on(QueryCommand)
      .resolves({ Items: [item(1, '2026-03-10T00:00:00.000Z', '2026-03-24T00:00:00.000Z')] });

    const page = await listing()({ orgId: 'acme', limit: 2, cursor: undefined });

    expect(page.nextCursor).toBeNull();
  });

  it("continues after the cursor's sort key inside the caller's own partition", async () => {
    documentsMock.on(QueryCommand).resolves({ Items: [] });
    const cursor = encodeCursor('TOKEN#2026-03-01T00:00:00.000Z#id-2');

    await listing()({ orgId: 'globex', limit: 10, cursor });

    expect(documentsMock).toHaveReceivedCommandWith(QueryCommand, {
      ExclusiveStartKey: { pk: 'ORG#globex', sk: 'TOKEN#2026-03-01T00:00:00.000Z#id-2' },
    });
  });

  it.each([
    ['not base64 JSON', '!!!'],
    ['JSON without a sort key', Buffer.from('{"x":1}').toString('base64url')],
    ['a sort key of another item type', encodeCursor('EMAIL#someone@example.com')],
  ])('refuses a cursor that is %s without querying', async (_, cursor) => {
    await expect(listing()({ orgId: 'acme', limit: 10, cursor })).rejects.toBeInstanceOf(InvalidInputError);
    expect(documentsMock).not.toHaveReceivedCommand(QueryCommand);
  });

  it('with a status, reads at most five pages of 100 items and hands back a cursor to go on, even with no results', async () => {
    // A partition of Issued tokens: the Used filter keeps none of them.
    let page = 0;
    documentsMock.on(QueryCommand).callsFake(() => {
      page += 1;
      return {
        Items: [],
        LastEvaluatedKey: { pk: 'ORG#acme', sk: `TOKEN#2026-03-0${10 - page}T00:00:00.000Z#id-${page}` },
      };
    });

    const listed = await listing()({ orgId: 'acme', limit: 1, cursor: undefined, status: 'Used' });

    expect(documentsMock).toHaveReceivedCommandTimes(QueryCommand, 5);
    expect(documentsMock).toHaveReceivedCommandWith(QueryCommand, {
      FilterExpression: expect.stringContaining('attribute_exists(usedAt)'),
      Limit: 100,
    });
    expect(listed.results).toEqual([]);
    expect(listed.nextCursor).toBe(encodeCursor('TOKEN#2026-03-05T00:00:00.000Z#id-5'));
  });

  it('with a status, reads on until the page is full and cuts the cursor at its last row', async () => {
    documentsMock
      .on(QueryCommand)
      .resolvesOnce({
        Items: [item(3, '2026-03-10T00:00:00.000Z', '2026-03-24T00:00:00.000Z')],
        LastEvaluatedKey: { pk: 'ORG#acme', sk: 'TOKEN#2026-03-09T00:00:00.000Z#id-x' },
      })
      .resolvesOnce({
        Items: [
          item(2, '2026-03-08T00:00:00.000Z', '2026-03-24T00:00:00.000Z'),
          item(1, '2026-03-07T00:00:00.000Z', '2026-03-24T00:00:00.000Z'),
        ],
        LastEvaluatedKey: { pk: 'ORG#acme', sk: 'TOKEN#2026-03-07T00:00:00.000Z#id-1' },
      });

    const listed = await listing()({ orgId: 'acme', limit: 2, cursor: undefined, status: 'Issued' });

    expect(documentsMock).toHaveReceivedCommandTimes(QueryCommand, 2);
    expect(listed.results.map((row) => row.tokenId)).toEqual(['id-3', 'id-2']);
    expect(listed.nextCursor).toBe(encodeCursor('TOKEN#2026-03-08T00:00:00.000Z#id-2'));
  });
});
