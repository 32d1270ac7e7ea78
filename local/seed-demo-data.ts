import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { usersTable } from '../lib/table-definitions.ts';
import { UserRecordWriter } from '../shared/adapters/dynamodb/user-record-writer.ts';
import { parseUserRecord } from '../shared/domain/users/user-record-schema.ts';
import type { UserRecord } from '../shared/domain/users/user-record.ts';
import { DEMO_ORG_ID, generateDemoUsers, WELL_KNOWN_DEMO_USERS } from './demo-users.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './emulators.ts';
import type { LocalStack } from './local-stack.ts';

/**
 * Writes user records into the Users table through the import command's validation and batch writer.
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
  const client = new DynamoDBClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: stack.endpoints.dynamodb,
  });
  try {
    const { written } = await seedUsers({ documents: DynamoDBDocumentClient.from(client), tableName });
    return { orgId: DEMO_ORG_ID, users: written, exampleUserId: WELL_KNOWN_DEMO_USERS.adult };
  } finally {
    client.destroy();
  }
}

export async function seedUsers({
  documents,
  tableName,
  orgId = DEMO_ORG_ID,
  users = generateDemoUsers({ orgId }),
}: SeedUsersInput): Promise<{ written: number }> {
  const writer = await UserRecordWriter.open<string>({ documents, tableName, orgId });
  try {
    for (const user of users) {
      // The same validation and normalisation as `npm run users:import`.
      const parsed = parseUserRecord(orgId, user);
      if (!parsed.success) throw new Error(`demo user ${user.id} is invalid: ${parsed.problems.join('; ')}`);
      await writer.put(parsed.record, user.id);
    }
  } catch (error) {
    await writer.abandon();
    throw error;
  }
  await writer.close();
  return { written: users.length };
}
