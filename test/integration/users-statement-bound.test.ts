import { afterAll, describe, expect, inject, it } from 'vitest';
import { runWithDeadline } from '#shared/support/request-deadline.ts';
import { PostgresUsersDatabase } from '#shared/adapters/postgres/users-database.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';

/**
 * No statement outlives its request: a statement cut off by the invocation's deadline is
 * cancelled on the server too (a CancelRequest), not only abandoned by the client.
 */

const local = inject('usersDatabase');
const admin = usersDatabaseAsAdmin();
const reader = PostgresUsersDatabase.withPassword({
  host: local.host,
  port: local.port,
  ...local.reader,
  maxConnections: 1,
});

afterAll(async () => {
  await Promise.all([admin.close(), reader.close()]);
});

async function running(marker: string): Promise<number> {
  const rows = await admin.query<{ pid: number }>(
    "SELECT pid FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()",
    [`%${marker}%`],
  );
  return rows.length;
}

describe('a users statement cut off by the deadline', () => {
  it('answers 503 at the deadline and is gone from pg_stat_activity within 1 s', async () => {
    const marker = `cut-off-${Math.random().toString(36).slice(2, 10)}`;

    const cutOff = runWithDeadline(2_500, () => reader.query(`SELECT pg_sleep(30) /* ${marker} */`)).then(
      () => undefined,
      (error: unknown) => error,
    );
    // It really runs on the server first (seen well before the deadline, even on a busy machine).
    await expect.poll(() => running(marker), { timeout: 2_000, interval: 50 }).toBe(1);
    const error = await cutOff;
    const answeredAt = Date.now();

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    await expect.poll(() => running(marker), { timeout: 1_000, interval: 50 }).toBe(0);
    expect(Date.now() - answeredAt).toBeLessThan(1_000);
  });
});
