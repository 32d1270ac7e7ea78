import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { usersTable } from '../lib/table-definitions.ts';
import { toUserItem } from '../shared/adapters/dynamodb/user-items.ts';
import type { UserRecord } from '../shared/domain/users/user-record.ts';
import { DEMO_ORG_ID, generateDemoUsers, WELL_KNOWN_DEMO_USERS } from './demo-users.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './emulators.ts';
import type { LocalStack } from './local-stack.ts';

/**
 * Writes user records into the Users table in batches of 25, as the import command does.
 * Idempotent: a record is keyed by organization and id, so writing the same records again
 * overwrites each with identical content.
 */

export interface SeedUsersInput {
  documents: DynamoDBDocumentClient;
  tableName: string;
  orgId?: string;
  /** Default: the demo users (`generateDemoUsers()`). */
  users?: readonly UserRecord[];
}

/** What `npm start` prints. */
export interface SeededDemoData {
  orgId: string;
  users: number;
  exampleUserId: string;
}

/** The demo organization's users, into the local stack's Users table (DynamoDB Local keeps nothing between runs). */
export async function seedDemoData(stack: Pick<LocalStack, 'endpoints' | 'resources'>): Promise<SeededDemoData> {
  const tableName = stack.resources.tables[usersTable.envVar];
  if (!tableName) throw new Error('the local stack has no Users table');
  const client = new DynamoDBClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: stack.endpoints.dynamodb });
  try {
    const { written } = await seedUsers({ documents: DynamoDBDocumentClient.from(client), tableName });
    return { orgId: DEMO_ORG_ID, users: written, exampleUserId: WELL_KNOWN_DEMO_USERS.adult };
  } finally {
    client.destroy();
  }
}

const BATCH_SIZE = 25;
const MAX_ATTEMPTS = 8;

export async function seedUsers({ documents, tableName, orgId = DEMO_ORG_ID, users = generateDemoUsers({ orgId }) }: SeedUsersInput): Promise<{ written: number }> {
  for (let start = 0; start < users.length; start += BATCH_SIZE) {
    const requests = users.slice(start, start + BATCH_SIZE).map((user) => ({ PutRequest: { Item: toUserItem(orgId, user) } }));
    await writeBatch(documents, tableName, requests);
  }
  return { written: users.length };
}

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } };

/** BatchWriteItem may leave items unprocessed (throttling); those are sent again with backoff. */
async function writeBatch(documents: DynamoDBDocumentClient, tableName: string, requests: WriteRequest[]): Promise<void> {
  let pending = requests;
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (attempt > MAX_ATTEMPTS) throw new Error(`${pending.length} user record(s) still unprocessed after ${MAX_ATTEMPTS} attempts`);
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 50 * 2 ** attempt)));
    const { UnprocessedItems } = await documents.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
    pending = (UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
  }
}
