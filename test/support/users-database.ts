import { inject } from 'vitest';
import { connectAsAdmin } from '#local/seed-demo-data.ts';
import type { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';

/** The tier's local users database as its superuser (one pool per test file; close it in afterAll). */
export function usersDatabaseAsAdmin(): PostgresUsersDatabase {
  return connectAsAdmin({ ...inject('usersDatabase'), stop: () => Promise.resolve() });
}
