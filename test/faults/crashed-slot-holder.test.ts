import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { concurrencyPartition, DynamoDbConcurrencySlots } from '#shared/adapters/dynamodb/limits/concurrency-slots.ts';
import { DEFAULT_CONCURRENCY, type SlotLease } from '#shared/domain/limits/concurrency.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { usersDatabaseAsAdmin } from '#test/support/users-database.ts';
import { sleep } from './fault-support.ts';

/**
 * Contract §25: a slot "expires by itself at the request's deadline, so a crashed invocation
 * cannot hold one". A user-status invocation in a process of its own (./api-function-child.ts)
 * takes its organization's last database slot and is killed (SIGKILL: no `finally`, no release)
 * while its statement waits; the organization's next request is refused until the killed
 * invocation's deadline, and gets the slot within a moment of it.
 */

/** The killed invocation's function timeout: its slot's deadline. */
const CHILD_TIMEOUT_MS = 4_000;

const documents = DynamoDBDocumentClient.from(
  new DynamoDBClient({ endpoint: inject('endpoints').dynamodb, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }),
);
const tableName = inject('localEnv').REQUEST_BUDGETS_TABLE_NAME!;
const slots = new DynamoDbConcurrencySlots(documents, tableName);
const admin = usersDatabaseAsAdmin();
afterAll(() => admin.close());

async function databaseSlots(orgId: string): Promise<string[]> {
  const { Item } = await documents.send(
    new GetCommand({ TableName: tableName, Key: { pk: concurrencyPartition(orgId) }, ConsistentRead: true }),
  );
  return Item?.databaseRequests instanceof Set ? [...(Item.databaseRequests as Set<string>)] : [];
}

const userStatus = (token: string) =>
  callApi('POST', '/v1/user-status', {
    token,
    body: { filters: {}, result_keys: ['id'], pagination: { limit: 1 } },
  });

describe('a function killed while it holds a concurrency slot', () => {
  it('leaves the slot to expire at its deadline: the next request is 429 until then and gets the slot within a second of it', async () => {
    const orgId = uniqueOrg('killed-slot');
    const token = await tokenFor(orgId);
    // Three of the four database slots held by requests still running (a deadline far off).
    const running: SlotLease[] = Array.from({ length: DEFAULT_CONCURRENCY.databasePerOrganization - 1 }, () => ({
      id: randomUUID(),
      orgId,
      expiresAt: Date.now() + 120_000,
      database: true,
    }));
    for (const lease of running) expect(await slots.take(lease, DEFAULT_CONCURRENCY, Date.now())).toBe('taken');

    let killedDeadline = 0;
    await admin.transaction(async (run) => {
      // The child's statement waits for this lock: it holds its slot until it is killed.
      await run.query('LOCK TABLE users IN ACCESS EXCLUSIVE MODE');
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/faults/api-function-child.ts'], {
        cwd: repoRoot,
        env: {
          ...process.env,
          ...inject('localEnv'),
          CHILD_TOKEN: token,
          CHILD_TIMEOUT_MS: String(CHILD_TIMEOUT_MS),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = once(child, 'exit');
      try {
        const deadline = Date.now() + 30_000;
        let held: string[] = [];
        while ((held = await databaseSlots(orgId)).length < DEFAULT_CONCURRENCY.databasePerOrganization) {
          if (Date.now() > deadline || child.exitCode !== null) throw new Error('the child never took a slot');
          await sleep(10);
        }
        child.kill('SIGKILL');
        const [, signal] = await exited;
        expect(signal).toBe('SIGKILL');
        const killedSlot = held.find((slot) => !running.some((lease) => slot.endsWith(lease.id)));
        killedDeadline = Number(killedSlot!.split('#')[0]);
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    });
    expect(killedDeadline).toBeGreaterThan(Date.now());

    const answers: Array<{ status: number; at: number }> = [];
    while (answers.at(-1)?.status !== 200 && Date.now() < killedDeadline + 5_000) {
      const response = await userStatus(token);
      answers.push({ status: response.status, at: Date.now() });
      if (response.status !== 200) await sleep(100);
    }

    expect(answers[0]?.status, 'the killed invocation’s slot is still held at first').toBe(429);
    const admitted = answers.find((answer) => answer.status === 200);
    expect(admitted, JSON.stringify(answers)).toBeDefined();
    expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 429)).toEqual([]);
    expect(admitted!.at).toBeGreaterThanOrEqual(killedDeadline);
    expect(admitted!.at - killedDeadline).toBeLessThan(1_000);
    for (const lease of running) await slots.release(lease);
  }, 60_000);
});
