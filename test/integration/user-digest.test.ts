import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { generateDemoUsers } from '../../local/demo-users.ts';
import { importUserLines } from '../../scripts/users-import/import-user-lines.ts';
import { reindexUsers } from '../../scripts/users-reindex/reindex-users.ts';
import { DynamoDbUserDigestStore, forgetCachedDigests } from '../../shared/adapters/dynamodb/user-digest-store.ts';
import { toUserItem } from '../../shared/adapters/dynamodb/user-items.ts';
import { DynamoDbUserStatusReader } from '../../shared/adapters/dynamodb/user-status-reader.ts';
import { parseUserRecord } from '../../shared/domain/users/user-record-schema.ts';
import type { UserRecord } from '../../shared/domain/users/user-record.ts';
import type { UserFilter } from '../../shared/domain/users/user-status-query.ts';
import { uniqueOrg } from './api-client.ts';
import { documentClient } from './report-support.ts';

/**
 * The user digest against DynamoDB Local: every way users are written (import, concurrent
 * imports, an import that stops, a writer that crashes) ends with queries that count exactly,
 * from the digest once it is rebuilt and from `byStatus` until then.
 */
const tableName = () => inject('localEnv').USERS_TABLE_NAME!;
const documents = documentClient();

async function* linesOf(records: readonly UserRecord[]): AsyncIterable<string> {
  for (const record of records) yield JSON.stringify(record);
}

const importUsers = (orgId: string, records: readonly UserRecord[]) =>
  importUserLines({ lines: linesOf(records), orgId, documents, tableName: tableName() });

const usersOf = (orgId: string, count: number, seed: number, idPrefix = 'u') =>
  generateDemoUsers({ orgId, count, seed }).map((user, n) => ({ ...user, id: `${idPrefix}-${seed}-${n}` }));

const pending: UserFilter = { kind: 'equals', field: 'registration_status', values: ['For Review', 'Referred'] };

/** The reader's answer to "how many pending users", and which path gave it (a cold function). */
async function countPending(orgId: string): Promise<{ total: number; accessPath: string }> {
  forgetCachedDigests();
  const page = await new DynamoDbUserStatusReader(documents, tableName()).findPage(orgId, [pending], {
    offset: 0,
    limit: 1,
    fields: ['id'],
  });
  return { total: page.total, accessPath: page.accessPath };
}

const pendingIn = (records: ReadonlyMap<string, UserRecord>) =>
  [...records.values()].filter((user) => ['For Review', 'Referred'].includes(user.registration_status ?? '')).length;
const byId = (...lists: Array<readonly UserRecord[]>) => new Map(lists.flat().map((user) => [user.id, user]));

describe('the user digest on DynamoDB Local', () => {
  it('is merged by each import, replaced records included, and answers queries', async () => {
    const orgId = uniqueOrg('digest-import');
    const first = usersOf(orgId, 300, 1);
    // The second import changes the status of 50 stored users and adds 100 new ones.
    const changed = first.slice(0, 50).map((user) => ({
      ...user,
      registration_status: user.registration_status === 'Referred' ? 'Complete' : 'Referred',
    }));
    const added = usersOf(orgId, 100, 2);

    const firstCounts = await importUsers(orgId, first);
    const afterFirst = await countPending(orgId);
    const secondCounts = await importUsers(orgId, [...changed, ...added]);
    const afterSecond = await countPending(orgId);

    expect(firstCounts.digest).toBe('merged');
    expect(afterFirst).toEqual({ total: pendingIn(byId(first)), accessPath: 'digest' });
    expect(secondCounts.digest).toBe('merged');
    expect(afterSecond).toEqual({ total: pendingIn(byId(first, changed, added)), accessPath: 'digest' });
    expect(afterSecond.total).not.toBe(afterFirst.total);
  });

  it('stays exact when imports of one organization run at the same time: the last one out rebuilds it', async () => {
    const orgId = uniqueOrg('digest-parallel');
    const batches = [usersOf(orgId, 200, 3), usersOf(orgId, 200, 4), usersOf(orgId, 200, 5)];
    // Each import reads its first line once it has registered; none writes before all three have.
    let registered = 0;
    let allRegistered!: () => void;
    const overlapping = new Promise<void>((resolve) => (allRegistered = resolve));
    async function* afterAllRegistered(records: readonly UserRecord[]): AsyncIterable<string> {
      if (++registered === batches.length) allRegistered();
      await overlapping;
      yield* linesOf(records);
    }

    const outcomes = await Promise.all(
      batches.map((batch) =>
        importUserLines({ lines: afterAllRegistered(batch), orgId, documents, tableName: tableName() }),
      ),
    );

    expect(outcomes.map((counts) => counts.imported)).toEqual([200, 200, 200]);
    // Overlapping imports cannot merge (each misses the others' records): one of them rebuilds.
    expect(outcomes.map((counts) => counts.digest)).toContain('rebuilt');
    expect(outcomes.map((counts) => counts.digest)).not.toContain('merged');
    expect(await countPending(orgId)).toEqual({ total: pendingIn(byId(...batches)), accessPath: 'digest' });
  });

  it('leaves queries exact but on byStatus after an import stops, until users:reindex rebuilds the digest', async () => {
    const orgId = uniqueOrg('digest-stopped');
    const stored = usersOf(orgId, 120, 6);
    await importUsers(orgId, stored);
    // An import that wrote one record and then stopped (abandoned its digest session).
    const session = await new DynamoDbUserDigestStore(documents, tableName()).beginWrite(orgId);
    const late = parseUserRecord(orgId, { ...usersOf(orgId, 1, 7)[0]!, registration_status: 'Referred' });
    if (!late.success) throw new Error(late.problems.join('; '));
    await documents.send(new PutCommand({ TableName: tableName(), Item: toUserItem(orgId, late.record) }));
    await session.abandon();
    const expected = pendingIn(byId(stored, [late.record]));

    const meanwhile = await countPending(orgId);
    const reindexed = await reindexUsers({ documents, tableName: tableName(), segments: 2 });
    const afterwards = await countPending(orgId);

    expect(meanwhile).toEqual({ total: expected, accessPath: 'byStatus' });
    expect(reindexed.digestsRebuilt).toBeGreaterThanOrEqual(1);
    expect(afterwards).toEqual({ total: expected, accessPath: 'digest' });
  });

  it('clears the lease of a writer that stopped renewing it, and that writer cannot commit afterwards', async () => {
    const orgId = uniqueOrg('digest-crashed');
    await importUsers(orgId, usersOf(orgId, 40, 8));
    let clock = Date.now();
    const store = new DynamoDbUserDigestStore(documents, tableName(), { leaseMs: 60_000, now: () => clock });
    const crashed = await store.beginWrite(orgId);

    const whileHeld = await store.rebuild(orgId);
    clock += 61_000; // The lease ran out without a renewal.
    const afterExpiry = await store.rebuild(orgId);
    const renewed = await store.renewLease(orgId, crashed.writerId);

    expect(whileHeld).toBe('left to the writers still at work');
    expect(afterExpiry).toBe('rebuilt');
    expect(renewed).toBe(false);
    expect(await countPending(orgId)).toMatchObject({ accessPath: 'digest' });
    await crashed.abandon();
  });

  it('a writer whose lease was cleared cannot commit its merge: its end rebuilds the digest instead', async () => {
    const orgId = uniqueOrg('digest-lost');
    const stored = usersOf(orgId, 30, 9);
    await importUsers(orgId, stored);
    const session = await new DynamoDbUserDigestStore(documents, tableName()).beginWrite(orgId);
    const extra = parseUserRecord(orgId, { ...usersOf(orgId, 1, 10)[0]!, registration_status: 'For Review' });
    if (!extra.success) throw new Error(extra.problems.join('; '));
    await documents.send(new PutCommand({ TableName: tableName(), Item: toUserItem(orgId, extra.record) }));
    session.put(extra.record);
    // Seen from eleven minutes later, the session's lease has expired: it is cleared.
    const later = new DynamoDbUserDigestStore(documents, tableName(), { now: () => Date.now() + 11 * 60_000 });
    await later.rebuild(orgId);

    const outcome = await session.finish();

    expect(outcome).toBe('rebuilt');
    expect(await countPending(orgId)).toEqual({
      total: pendingIn(byId(stored, [extra.record])),
      accessPath: 'digest',
    });
  });
});
