import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { generateDemoUsers } from '#local/demo-users.ts';
import { copyDynamoDbUsers, type CopyProgress } from '#scripts/users-migrate/copy-dynamodb-users.ts';
import { PostgresUserDirectory } from '#shared/adapters/postgres/user-directory.ts';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';
import { uniqueOrg, userStatusTotal } from '#test/support/api-client.ts';

/** An item as the DynamoDB Users table of earlier releases stored it: the record, its keys and index attributes. */
const legacyItem = (orgId: string, user: UserRecord) => ({
  ...user,
  pk: `ORG#${orgId}`,
  sk: `USER#${user.id}`,
  createdAtSk: `${user.created_at}#${user.id}`,
  ...(user.email ? { emailPk: `ORG#${orgId}#EMAIL#${user.email.toLowerCase()}` } : {}),
  statusPk: `ORG#${orgId}#STATUS#${user.registration_status ?? '-'}#AGE#-`,
});

describe('users:migrate-from-dynamodb', () => {
  const env = inject('localEnv');
  const client = new DynamoDBClient({
    endpoint: env.AWS_ENDPOINT_URL_DYNAMODB,
    region: env.AWS_REGION,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  });
  const documents = DynamoDBDocumentClient.from(client);
  const tableName = `LegacyUsers-${randomUUID()}`;
  const orgA = uniqueOrg('legacy-a');
  const orgB = uniqueOrg('legacy-b');
  const usersA = generateDemoUsers({ orgId: orgA, count: 120, seed: 11 });
  const usersB = generateDemoUsers({ orgId: orgB, count: 30, seed: 12 });
  const database = usersDatabaseAsAdmin();

  beforeAll(async () => {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
    const items = [
      ...usersA.map((user) => legacyItem(orgA, user)),
      ...usersB.map((user) => legacyItem(orgB, user)),
      // Not a user: an item of another kind in the same partition, which the copy must skip.
      { pk: `ORG#${orgA}`, sk: 'USERDIGEST', version: 3 },
      // A user item the record schema refuses.
      { ...legacyItem(orgB, usersB[0]!), sk: 'USER#broken', id: 'broken', created_at: 'yesterday' },
    ];
    for (let i = 0; i < items.length; i += 25) {
      await documents.send(
        new BatchWriteCommand({
          RequestItems: { [tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
        }),
      );
    }
  });

  afterAll(async () => {
    await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    client.destroy();
    await database.close();
  });

  it('copies every user of every organization, skips other items, refuses an invalid one, and resumes after a stop', async () => {
    const refused: string[] = [];
    const saved: CopyProgress[] = [];
    let pages = 0;
    // The first run stops after its second page, as a crash would.
    await expect(
      copyDynamoDbUsers({
        documents,
        tableName,
        database,
        pageSize: 40,
        onRefused: ({ userId }) => refused.push(userId),
        onPage: (progress) => {
          saved.push(progress);
          if (++pages === 2) throw new Error('stopped');
        },
      }),
    ).rejects.toThrow('stopped');

    const counts = await copyDynamoDbUsers({
      documents,
      tableName,
      database,
      pageSize: 40,
      resumeFrom: saved.at(-1),
      onRefused: ({ userId }) => refused.push(userId),
    });

    expect(counts).toEqual({ scanned: 152, copied: 150, refused: 1 });
    expect(refused).toEqual(['broken']);
    expect(await userStatusTotal(orgA)).toBe(120);
    expect(await userStatusTotal(orgB)).toBe(30);
    const flagged = usersA.find((user) => (user.idcheck_pep_sanction_result?.pep_result.length ?? 0) > 0)!;
    const expected = parseUserRecord(orgA, flagged);
    if (!expected.success) throw new Error(expected.problems.join('; '));
    expect(await new PostgresUserDirectory(database).find(orgA, flagged.id)).toEqual(expected.record);
  });
});
