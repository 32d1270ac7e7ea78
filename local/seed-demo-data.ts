import { PostgresUsersDatabase, type SqlRunner } from '#shared/adapters/postgres/users-database.ts';
import { PostgresUserWriter } from '#shared/adapters/postgres/user-writer.ts';
import { parseUserRecord } from '#shared/domain/users/user-record-schema.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { DEMO_ORG_ID, generateDemoUsers, WELL_KNOWN_DEMO_USERS } from './demo-users.ts';
import type { LocalUsersDatabase } from './users-postgres.ts';

/**
 * Writes user records into the users table through the import command's validation and writer.
 * Idempotent: a record is keyed by organization and id, so writing the same records again
 * overwrites each with identical content.
 */

export interface SeedUsersInput {
  database: Pick<SqlRunner, 'query' | 'transaction'>;
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

/** A connection to the local users database as its superuser (what the seed and the tests write with). */
export function connectAsAdmin(usersDatabase: LocalUsersDatabase, maxConnections = 4): PostgresUsersDatabase {
  const { host, port, admin } = usersDatabase;
  return PostgresUsersDatabase.withPassword({ host, port, ...admin, maxConnections });
}

/** The demo organization's users, into the local stack's PostgreSQL (which keeps nothing between runs). */
export async function seedDemoData(stack: { usersDatabase: LocalUsersDatabase }): Promise<SeededDemoData> {
  const database = connectAsAdmin(stack.usersDatabase);
  try {
    const { written } = await seedUsers({ database });
    return { orgId: DEMO_ORG_ID, users: written, exampleUserId: WELL_KNOWN_DEMO_USERS.adult };
  } finally {
    await database.close();
  }
}

export async function seedUsers({
  database,
  orgId = DEMO_ORG_ID,
  users = generateDemoUsers({ orgId }),
}: SeedUsersInput): Promise<{ written: number }> {
  const writer = new PostgresUserWriter<string>({ database, orgId });
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

/**
 * `count` generated users in an organization of their own, written through a connection that is
 * closed afterwards (the tests' and the bench's organizations); returns their records.
 */
export async function seedGeneratedOrganization(input: {
  database: SqlRunner;
  orgId: string;
  count: number;
  organizationName: string;
}): Promise<UserRecord[]> {
  const users = generateDemoUsers({ orgId: input.orgId, count: input.count, organizationName: input.organizationName });
  try {
    await seedUsers({ database: input.database, orgId: input.orgId, users });
  } finally {
    await input.database.close();
  }
  return users;
}
