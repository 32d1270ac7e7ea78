import { createHash } from 'node:crypto';
import { DynamoDBClient, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbOnboardingEmailQuota, recipientQuotaKey } from '#shared/adapters/dynamodb/limits/email-quota.ts';
import { DynamoDbRateLimiter } from '#shared/adapters/dynamodb/limits/rate-limiter.ts';
import { cancellationReasons } from '#shared/adapters/dynamodb/transactions.ts';
import { onboardingEmailQuotaFor } from '#shared/wiring/onboarding.ts';
import { DependencyUnavailableError, EmailQuotaExceededError } from '#shared/domain/errors.ts';
import { spendingEmailQuota, type EmailQuotaPolicy } from '#shared/domain/limits/email-quota.ts';
import type { EmailQuotaSpend, OnboardingEmailQuota } from '#shared/domain/onboarding/ports.ts';
import { QuotaChangedError } from '#shared/domain/limits/rate-limit.ts';
import { BusinessMetric, metrics } from '#shared/observability/metrics.ts';
import { FakeClock } from '#test/unit/reports/fakes.ts';
import { InMemoryLimiterTable } from './in-memory-limiter-table.ts';
import { sendingNotPaused } from '#test/support/email-sending.ts';

const TABLE = 'OnboardingTokens';
const ORG = 'acme';
const PK = `ORG#${ORG}`;
/** 12:20 UTC: the organization's hourly window ends in 40 minutes. */
const T0 = new Date('2026-03-01T12:20:00.000Z');
const HOUR_ITEM = 'RATE_LIMIT#email-org#2026-03-01T12:00:00.000Z';
const MINUTE = 60_000;
const documentsMock = mockClient(DynamoDBDocumentClient);
const documents = () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));

let table: InMemoryLimiterTable;
let clock: FakeClock;

const quota = (policy: EmailQuotaPolicy = { perRecipientPerHour: 5, perOrganizationPerHour: 1000 }) =>
  new DynamoDbOnboardingEmailQuota(documents(), TABLE, policy);

/**
 * The token store's part, reduced to the quota: commits the reservation's writes in one
 * transaction, and reports a failed quota condition as the store does (QuotaChangedError).
 */
async function commitAlone(spend: EmailQuotaSpend): Promise<void> {
  try {
    await documents().send(
      new TransactWriteCommand({ TransactItems: spend.writes as TransactWriteCommand['input']['TransactItems'] }),
    );
  } catch (error) {
    if (cancellationReasons(error).includes('ConditionalCheckFailed')) throw new QuotaChangedError({ cause: error });
    throw error;
  }
}

/** One e-mail to `email`, as create and resend spend it: the decision, or the 429 error. */
const send = (limiter: OnboardingEmailQuota, email: string, orgId = ORG) =>
  spendingEmailQuota(limiter, { orgId, email }, clock.now(), commitAlone, sendingNotPaused).then(
    ({ decision }) => decision,
    (error: unknown) => {
      if (error instanceof EmailQuotaExceededError) return error;
      throw error;
    },
  );

const passed = (outcome: Awaited<ReturnType<typeof send>>) => !(outcome instanceof EmailQuotaExceededError);
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const hourCount = (sk = HOUR_ITEM) => table.get(PK, sk)?.count;

beforeEach(() => {
  documentsMock.reset();
  table = new InMemoryLimiterTable(documentsMock);
  clock = new FakeClock(T0);
  vi.spyOn(Math, 'random').mockReturnValue(0);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('DynamoDbOnboardingEmailQuota: reserve', () => {
  it('reads both quotas consistently in one request and writes nothing: the token store commits the spend', async () => {
    const reservation = await quota().reserve(ORG, 'zoe@example.com', clock.now());

    expect(reservation).toMatchObject({ allowed: true, decision: { allowed: true, limit: 5, remaining: 4 } });
    expect(table.writes).toEqual([]);
    const reads = documentsMock.commandCalls(BatchGetCommand).map((call) => call.args[0].input);
    expect(reads).toEqual([
      {
        RequestItems: {
          [TABLE]: {
            Keys: [
              { pk: PK, sk: recipientQuotaKey('zoe@example.com') },
              { pk: PK, sk: HOUR_ITEM },
            ],
            ConsistentRead: true,
          },
        },
      },
    ]);
  });

  it('reads again the keys DynamoDB left unprocessed, and gives up with 503 if it keeps leaving them', async () => {
    const recipient = { pk: PK, sk: recipientQuotaKey('zoe@example.com') };
    await table.put({ ...recipient, spentAt: [T0.getTime() - MINUTE], version: 3 });
    documentsMock
      .on(BatchGetCommand)
      .resolvesOnce({ Responses: { [TABLE]: [] }, UnprocessedKeys: { [TABLE]: { Keys: [recipient] } } })
      .resolvesOnce({ Responses: { [TABLE]: [table.get(PK, recipient.sk)!] }, UnprocessedKeys: {} });

    const reservation = await quota().reserve(ORG, 'zoe@example.com', clock.now());

    expect(reservation).toMatchObject({ allowed: true, decision: { limit: 5, remaining: 3 } });
    const rounds = documentsMock
      .commandCalls(BatchGetCommand)
      .map((call) => call.args[0].input.RequestItems?.[TABLE]?.Keys);
    expect(rounds).toEqual([[recipient, { pk: PK, sk: HOUR_ITEM }], [recipient]]);

    documentsMock.on(BatchGetCommand).resolves({ Responses: {}, UnprocessedKeys: { [TABLE]: { Keys: [recipient] } } });
    await expect(quota().reserve(ORG, 'zoe@example.com', clock.now())).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
  });

  it('spends with two conditional writes: the spend times if the version is unchanged, the hour’s count if below the limit', async () => {
    await table.put({ pk: PK, sk: recipientQuotaKey('zoe@example.com'), spentAt: [T0.getTime() - MINUTE], version: 3 });
    await table.put({ pk: PK, sk: HOUR_ITEM, count: 41 });

    const reservation = await quota().reserve(ORG, 'zoe@example.com', clock.now());

    if (!reservation.allowed) throw new Error('refused');
    expect(reservation.spend.writes).toEqual([
      {
        Put: {
          TableName: TABLE,
          Item: {
            pk: PK,
            sk: recipientQuotaKey('zoe@example.com'),
            spentAt: [T0.getTime() - MINUTE, T0.getTime()],
            version: 4,
            ttl: T0.getTime() / 1000 + 3600 + 60,
            writeId: expect.any(String),
          },
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': 3 },
        },
      },
      {
        Update: {
          TableName: TABLE,
          Key: { pk: PK, sk: HOUR_ITEM },
          UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
          ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': 1000,
            ':ttl': Date.parse('2026-03-01T13:00:00.000Z') / 1000 + 60,
          },
        },
      },
    ]);
  });

  it('keys the address by the SHA-256 of its trimmed, lower-cased form, never the address itself', async () => {
    await send(quota(), '  Zoe@Example.COM ');

    const keys = [...table.items.values()].map((item) => item.sk as string);
    expect(keys).toEqual([`RATE_LIMIT#email#${sha256('zoe@example.com')}`, HOUR_ITEM]);
    expect(recipientQuotaKey('zoe@example.com')).toBe(recipientQuotaKey(' ZOE@example.com'));
    expect(JSON.stringify([...table.items.values()]).toLowerCase()).not.toContain('example.com');
  });
});

describe('the e-mail quotas, spent as create and resend spend them (fake clock)', () => {
  it('allows 5 e-mails to one address in an hour, refuses the 6th until the oldest is an hour old', async () => {
    const limiter = quota();
    const decisions = [];
    for (let i = 0; i < 5; i++) {
      decisions.push(await send(limiter, 'zoe@example.com'));
      clock.advance(5 * MINUTE);
    }
    // 12:45: the first e-mail (12:20) counts until 13:20.
    const refused = await send(limiter, 'zoe@example.com');

    expect(decisions.map(passed)).toEqual([true, true, true, true, true]);
    expect(decisions.map((decision) => 'remaining' in decision && decision.remaining)).toEqual([4, 3, 2, 1, 0]);
    expect(refused).toBeInstanceOf(EmailQuotaExceededError);
    expect(refused).toMatchObject({
      exhausted: 'recipient',
      retryAfterSeconds: 35 * 60,
      decision: { allowed: false, limit: 5, remaining: 0, resetSeconds: 35 * 60, retryAfterSeconds: 35 * 60 },
    });
    // A refusal writes nothing: the organization counted 5.
    expect(hourCount()).toBe(5);

    clock.advance(35 * MINUTE - 1);
    expect(await send(limiter, 'zoe@example.com')).toBeInstanceOf(EmailQuotaExceededError);
    clock.advance(1);
    expect(await send(limiter, 'zoe@example.com')).toMatchObject({ allowed: true });
  });

  it('counts each address (and each organization’s use of it) on its own', async () => {
    const limiter = quota();
    for (let i = 0; i < 5; i++) await send(limiter, 'zoe@example.com');

    expect(await send(limiter, 'ada@example.com')).toMatchObject({ allowed: true });
    expect(await send(limiter, 'zoe@example.com', 'globex')).toMatchObject({ allowed: true });
    expect(await send(limiter, 'ZOE@example.com')).toBeInstanceOf(EmailQuotaExceededError);
  });

  it('allows the organization its e-mails per clock hour, then refuses until the hour turns', async () => {
    const limiter = quota({ perRecipientPerHour: 5, perOrganizationPerHour: 3 });
    const allowed = [];
    for (let i = 0; i < 3; i++) allowed.push(await send(limiter, `user-${i}@example.com`));
    clock.advance(10 * MINUTE);

    const refused = await send(limiter, 'late@example.com');

    expect(allowed).toEqual([
      expect.objectContaining({ allowed: true, limit: 3, remaining: 2 }),
      expect.objectContaining({ allowed: true, limit: 3, remaining: 1 }),
      expect.objectContaining({ allowed: true, limit: 3, remaining: 0 }),
    ]);
    // 12:30: the hour ends in 30 minutes.
    expect(refused).toMatchObject({
      exhausted: 'organization',
      decision: { allowed: false, limit: 3, remaining: 0, resetSeconds: 1800, retryAfterSeconds: 1800 },
    });
    // Nothing of the refused e-mail was spent on its address either: both or neither.
    expect(table.get(PK, recipientQuotaKey('late@example.com'))).toBeUndefined();

    clock.advance(30 * MINUTE);
    expect(await send(limiter, 'late@example.com')).toMatchObject({ allowed: true, remaining: 2, resetSeconds: 3600 });
    expect(hourCount('RATE_LIMIT#email-org#2026-03-01T13:00:00.000Z')).toBe(1);
  });

  it('reports the quota nearest to refusing on success', async () => {
    const limiter = quota({ perRecipientPerHour: 5, perOrganizationPerHour: 3 });

    expect(await send(limiter, 'zoe@example.com')).toMatchObject({ limit: 3, remaining: 2 }); // the address: 4 left
    expect(await send(limiter, 'zoe@example.com')).toMatchObject({ limit: 3, remaining: 1 });
    const wide = quota({ perRecipientPerHour: 5, perOrganizationPerHour: 1000 });
    expect(await send(wide, 'ada@example.com')).toMatchObject({ limit: 5, remaining: 4 });
  });
});

describe('the e-mail quotas under parallel requests', () => {
  it('of 8 parallel e-mails to one address, exactly 5 pass; the 3 refused spend nothing', async () => {
    const limiter = quota();

    const outcomes = await Promise.all(Array.from({ length: 8 }, () => send(limiter, 'zoe@example.com')));

    expect(outcomes.filter((outcome) => outcome instanceof EmailQuotaExceededError)).toHaveLength(3);
    expect(outcomes.filter(passed)).toHaveLength(5);
    expect(table.get(PK, recipientQuotaKey('zoe@example.com'))?.spentAt).toHaveLength(5);
    expect(hourCount()).toBe(5);
  });

  it('of 12 parallel e-mails to 12 addresses under an organization limit of 7, exactly 7 pass, each spent on its address', async () => {
    const limiter = quota({ perRecipientPerHour: 5, perOrganizationPerHour: 7 });
    const addresses = Array.from({ length: 12 }, (_, i) => `user-${i}@example.com`);

    const outcomes = await Promise.all(addresses.map((address) => send(limiter, address)));

    expect(outcomes.filter(passed)).toHaveLength(7);
    expect(hourCount()).toBe(7);
    addresses.forEach((address, i) => {
      const spentAt = (table.get(PK, recipientQuotaKey(address))?.spentAt as number[] | undefined) ?? [];
      expect(spentAt, address).toHaveLength(passed(outcomes[i]!) ? 1 : 0);
    });
  });

  it('gives up with 503 when the quota keeps changing under it', async () => {
    const alwaysChanged = () => Promise.reject(new QuotaChangedError());

    await expect(
      spendingEmailQuota(quota(), { orgId: ORG, email: 'zoe@example.com' }, T0, alwaysChanged, sendingNotPaused),
    ).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(table.writes).toEqual([]);
  });
});

describe('DynamoDbRateLimiter.spend with several quotas (on its own, without a token)', () => {
  const specs = (capacity: number) =>
    [
      { kind: 'sliding-window', key: { pk: PK, sk: 'RATE_LIMIT#a' }, policy: { capacity, windowMs: MINUTE } },
      { kind: 'fixed-window', key: { pk: PK, sk: 'RATE_LIMIT#b' }, policy: { capacity: 100, windowMs: MINUTE } },
    ] as const;

  it('commits both in one transaction, deciding again after a concurrent transaction', async () => {
    table.cancellations.push(['TransactionConflict', 'None'], ['None', 'ConditionalCheckFailed']);

    const reservation = await new DynamoDbRateLimiter(documents(), TABLE).spend([...specs(2)], T0);

    expect(reservation.allowed).toBe(true);
    expect(table.writes).toEqual(['TransactWrite']);
    expect(documentsMock.commandCalls(BatchGetCommand)).toHaveLength(3);
    expect(table.get(PK, 'RATE_LIMIT#a')?.spentAt).toEqual([T0.getTime()]);
    expect(table.get(PK, 'RATE_LIMIT#b#2026-03-01T12:20:00.000Z')?.count).toBe(1);
  });

  it('answers 503 (database unavailable), spending nothing, when DynamoDB throttles the transaction', async () => {
    table.cancellations.push(['ThrottlingError', 'None']);

    await expect(new DynamoDbRateLimiter(documents(), TABLE).spend([...specs(2)], T0)).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
    expect(table.writes).toEqual([]);
  });

  it('passes on another cancellation as it is', async () => {
    table.cancellations.push(['ValidationError', 'None']);

    await expect(new DynamoDbRateLimiter(documents(), TABLE).spend([...specs(2)], T0)).rejects.toBeInstanceOf(
      TransactionCanceledException,
    );
  });
});

describe('onboardingEmailQuotaFor (the functions’ composition)', () => {
  it('applies the configured limits and counts a refusal as a rate-limited request', async () => {
    const counted = vi.spyOn(metrics, 'addMetric');
    const limiter = onboardingEmailQuotaFor(documents(), {
      ONBOARDING_TOKENS_TABLE_NAME: TABLE,
      EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR: 1,
      EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR: 1000,
    });

    const first = await send(limiter, 'zoe@example.com');
    expect(counted).not.toHaveBeenCalled();
    const second = await send(limiter, 'zoe@example.com');

    expect(first).toMatchObject({ allowed: true, limit: 1, remaining: 0 });
    expect(second).toMatchObject({ exhausted: 'recipient' });
    expect(counted).toHaveBeenCalledWith(BusinessMetric.RateLimitedRequests, 'Count', 1);
  });
});
