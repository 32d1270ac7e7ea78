import { describe, expect, inject, it } from 'vitest';
import { generateDemoUsers } from '../../local/demo-users.ts';
import { reindexUsers } from '../../scripts/users-reindex/reindex-users.ts';
import { UserBatchWriter } from '../../shared/adapters/dynamodb/user-batch-writer.ts';
import { toUserItem } from '../../shared/adapters/dynamodb/user-items.ts';
import { parseUserRecord } from '../../shared/domain/users/user-record-schema.ts';
import { REGISTRATION_CATEGORIES } from '../../shared/domain/users/user-status-query.ts';
import { uniqueOrg, userStatusTotal } from './api-client.ts';
import { documentClient } from './report-support.ts';

describe('users:reindex', () => {
  it('backfills statusPk of records stored before byStatus existed and builds their digest; queries count them before and after; a second run changes nothing', async () => {
    const orgId = uniqueOrg('reindex');
    const tableName = inject('localEnv').USERS_TABLE_NAME!;
    const documents = documentClient();
    const users = generateDemoUsers({ orgId, count: 300, seed: 11 }).map((user) => {
      const parsed = parseUserRecord(orgId, user);
      if (!parsed.success) throw new Error(parsed.problems.join('; '));
      return parsed.record;
    });
    // Items as an earlier release wrote them: no statusPk.
    const writer = new UserBatchWriter<string>({ documents, tableName });
    for (const user of users) {
      const { statusPk: _omitted, ...item } = toUserItem(orgId, user);
      await writer.put(item, user.id);
    }
    await writer.close();
    const active = users.filter((user) => REGISTRATION_CATEGORIES.active!.includes(user.registration_status!)).length;
    // No writer of this release touched the organization: the complete byCreatedAt index answers.
    expect(await userStatusTotal(orgId, { registration_status: 'active' })).toBe(active);

    const first = await reindexUsers({ documents, tableName, segments: 3 });

    expect(first.updated).toBeGreaterThanOrEqual(300);
    expect(first.digestsRebuilt).toBeGreaterThanOrEqual(1);
    await expect.poll(() => userStatusTotal(orgId), { timeout: 15_000, interval: 250 }).toBe(300);
    expect(await userStatusTotal(orgId, { registration_status: 'active' })).toBe(active);
    const second = await reindexUsers({ documents, tableName, segments: 2 });
    expect(second.updated).toBe(0);
    expect(second.unchanged).toBeGreaterThanOrEqual(300);
  });
});
