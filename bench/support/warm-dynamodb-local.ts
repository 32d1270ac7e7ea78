import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Rounds of the warm-up. DynamoDB Local's JVM compiles its request path while it serves: measured on
 * this machine (C1 compiler, as the local stack runs it), a conditional UpdateItem took 2.4 ms (median)
 * over its first 3,000 requests and 1.6 ms over the next 3,000. AWS's DynamoDB is never cold, so a
 * bench that timed the service's DynamoDB calls against the emulator's first thousands would time the
 * emulator.
 */
const WARM_ROUNDS = 2_000;

/**
 * Warms DynamoDB Local before the bench times anything: WARM_ROUNDS rounds of the item shapes the
 * functions send most (a conditional string-set ADD and its DELETE, as the concurrency limiter's take
 * and release; a Query; a GetItem) on a scratch table of its own, dropped afterwards, so nothing the
 * measurements read or count is touched. 19-39 s on this machine, whose speed varied twofold between runs.
 */
export async function warmDynamoDbLocal(endpoint: string, env: Readonly<Record<string, string>>): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: env.AWS_REGION,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  });
  const documents = DynamoDBDocumentClient.from(client);
  const TableName = `bench-warm-up-${randomUUID()}`;
  await client.send(
    new CreateTableCommand({
      TableName,
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  try {
    const Key = { pk: 'WARM', sk: 'SLOTS' };
    for (let round = 0; round < WARM_ROUNDS; round++) {
      const slot = new Set([`${Date.now() + 30_000}#${round}`]);
      await documents.send(
        new UpdateCommand({
          TableName,
          Key,
          UpdateExpression: 'ADD requests :slot SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(requests) OR size(requests) < :limit',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':slot': slot, ':limit': 20, ':ttl': round },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      await documents.send(
        new UpdateCommand({
          TableName,
          Key,
          UpdateExpression: 'DELETE requests :slot',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':slot': slot },
        }),
      );
      await documents.send(new GetCommand({ TableName, Key }));
      await documents.send(
        new QueryCommand({
          TableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': 'WARM', ':prefix': 'S' },
        }),
      );
    }
  } finally {
    await client.send(new DeleteTableCommand({ TableName }));
    client.destroy();
  }
}
