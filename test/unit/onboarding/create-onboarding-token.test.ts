import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import {
  ConflictError,
  DependencyUnavailableError,
  EmailPausedError,
  EmailQuotaExceededError,
  RateLimitedError,
} from '#shared/domain/errors.ts';
import { createOnboardingToken } from '#shared/domain/onboarding/create-onboarding-token.ts';
import { hashOnboardingToken } from '#shared/domain/onboarding/onboarding-token.ts';
import type { OnboardingEmail, OnboardingMailer } from '#shared/domain/onboarding/ports.ts';
import { ALLOWED, FakeEmailQuota, quotaWrite, RECIPIENT_REFUSAL } from './fake-email-quota.ts';
import { emailSendingPausedFor, sendingNotPaused } from '#test/support/email-sending.ts';

const TABLE = 'OnboardingTokens';
const NOW = new Date('2026-03-01T12:00:00.000Z');
const documentsMock = mockClient(DynamoDBDocumentClient);

/** Records what it is asked to send, or fails with `failure` (the SES adapter has its own tests). */
class FakeMailer implements OnboardingMailer {
  readonly sent: OnboardingEmail[] = [];
  failure: Error | undefined;

  async sendOnboardingToken(email: OnboardingEmail): Promise<void> {
    if (this.failure) throw this.failure;
    this.sent.push(email);
  }
}

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

function useCase(onWithdrawFailed = vi.fn(), emailQuota = new FakeEmailQuota(), emailSending = sendingNotPaused) {
  const mailer = new FakeMailer();
  const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
  const run = createOnboardingToken({
    tokens: new DynamoDbOnboardingTokenStore(documents, TABLE),
    mailer,
    emailQuota,
    emailSending,
    clock: { now: () => NOW },
    onWithdrawFailed,
  });
  return { run, mailer, onWithdrawFailed, emailQuota };
}

const ANSWER_BY = new Date('2026-03-01T12:00:09.000Z');
const PROVISIONAL_UNTIL = new Date('2026-03-01T12:00:10.000Z');

const input = {
  answerBy: ANSWER_BY,
  orgId: 'acme',
  organizationName: 'Acme Ltd',
  email: 'zoe@example.com',
  firstName: 'Zoë',
  lastName: 'Ångström',
};

describe('createOnboardingToken', () => {
  beforeEach(() => {
    documentsMock.reset();
    documentsMock.on(TransactWriteCommand).resolves({});
  });

  it('writes the token and its e-mail guard in one conditional transaction, provisionally, storing only the hash', async () => {
    const { run } = useCase();

    const result = await run(input);

    expect(result.expiresAt).toBe('2026-03-15T12:00:00.000Z');
    const [call] = documentsMock.commandCalls(TransactWriteCommand);
    const [guard, token] = call!.args[0].input.TransactItems!;
    // Until confirmed, the guard holds the e-mail only until 1 s after the caller stops waiting.
    expect(guard!.Put).toMatchObject({
      TableName: TABLE,
      Item: { pk: 'ORG#acme', sk: 'EMAIL#zoe@example.com', expiresAtEpoch: PROVISIONAL_UNTIL.getTime() / 1000 },
      ConditionExpression: 'attribute_not_exists(pk) OR expiresAtEpoch <= :now',
      ExpressionAttributeValues: { ':now': NOW.getTime() / 1000 },
    });
    expect(token!.Put!.Item).toMatchObject({
      pk: 'ORG#acme',
      tokenHash: hashOnboardingToken(result.onboardingToken),
      tokenHint: result.onboardingToken.slice(-4),
      email: 'zoe@example.com',
      provisionalUntil: PROVISIONAL_UNTIL.toISOString(),
    });
    expect(JSON.stringify(call!.args[0].input)).not.toContain(result.onboardingToken);
  });

  it('confirms the token after the e-mail went out: the guard then holds the e-mail for 14 days', async () => {
    const { run, mailer } = useCase();

    const result = await run(input);

    const calls = documentsMock.commandCalls(TransactWriteCommand);
    expect(calls).toHaveLength(2);
    expect(mailer.sent).toHaveLength(1);
    const [token, guard] = calls[1]!.args[0].input.TransactItems!;
    const tokenSk = calls[0]!.args[0].input.TransactItems![1]!.Put!.Item!.sk as string;
    expect(token!.Update).toMatchObject({
      Key: { pk: 'ORG#acme', sk: tokenSk },
      UpdateExpression: 'REMOVE provisionalUntil',
      ConditionExpression: 'provisionalUntil = :provisionalUntil',
      ExpressionAttributeValues: { ':provisionalUntil': PROVISIONAL_UNTIL.toISOString() },
    });
    expect(guard!.Update).toMatchObject({
      Key: { pk: 'ORG#acme', sk: 'EMAIL#zoe@example.com' },
      ConditionExpression: 'tokenSk = :tokenSk',
      ExpressionAttributeValues: { ':expiresAtEpoch': Date.parse(result.expiresAt) / 1000, ':tokenSk': tokenSk },
    });
  });

  it('answers 503 (not success) when the confirmation finds the provisional token already given up', async () => {
    documentsMock
      .on(TransactWriteCommand)
      .resolvesOnce({})
      .rejects(cancelled('ConditionalCheckFailed', 'ConditionalCheckFailed'));
    const { run } = useCase();

    await expect(run(input)).rejects.toBeInstanceOf(DependencyUnavailableError);
  });

  it('e-mails the plaintext token, its expiry and the organization to the person', async () => {
    const { run, mailer } = useCase();

    const result = await run(input);

    expect(mailer.sent).toEqual([
      {
        orgId: 'acme',
        tokenId: result.tokenId,
        to: 'zoe@example.com',
        firstName: 'Zoë',
        lastName: 'Ångström',
        token: result.onboardingToken,
        expiresAt: new Date('2026-03-15T12:00:00.000Z'),
        organizationName: 'Acme Ltd',
      },
    ]);
  });

  it('reports a conflict and sends nothing when the e-mail already holds a live token', async () => {
    documentsMock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    const { run, mailer } = useCase();

    await expect(run(input)).rejects.toBeInstanceOf(ConflictError);
    expect(mailer.sent).toEqual([]);
  });

  it('retries a transaction cancelled only by a concurrent writer, then succeeds', async () => {
    documentsMock.on(TransactWriteCommand).rejectsOnce(cancelled('TransactionConflict', 'None')).resolves({});
    const { run } = useCase();

    await run(input);

    // Issue (twice), then confirm.
    expect(documentsMock).toHaveReceivedCommandTimes(TransactWriteCommand, 3);
  });

  it('withdraws the token and its guard and reports mail unavailable when the e-mail fails', async () => {
    const { run, mailer } = useCase();
    mailer.failure = new Error('SES is down');

    const failure = await run(input).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect(failure).toMatchObject({ dependency: 'mail', cause: mailer.failure });

    const calls = documentsMock.commandCalls(TransactWriteCommand);
    expect(calls).toHaveLength(2);
    const issued = calls[0]!.args[0].input.TransactItems!;
    const withdrawn = calls[1]!.args[0].input.TransactItems!;
    // The token, its id and hash pointers, and the e-mail guard: everything `issue` wrote but the
    // e-mail quota, which keeps the e-mail counted (SES may have delivered it after all).
    expect(issued).toHaveLength(5);
    expect(withdrawn.map((item) => item.Delete?.Key)).toEqual(
      issued
        .slice(0, 4)
        .map((item) => ({ pk: 'ORG#acme', sk: item.Put!.Item!.sk }))
        .slice(1)
        .concat([{ pk: 'ORG#acme', sk: 'EMAIL#zoe@example.com' }]),
    );
    expect(withdrawn[3]!.Delete!.ExpressionAttributeValues).toEqual({ ':tokenSk': issued[1]!.Put!.Item!.sk });
  });

  it('still answers "mail unavailable" and tells the operator when the withdrawal fails too', async () => {
    documentsMock.on(TransactWriteCommand).resolvesOnce({}).rejects(new Error('DynamoDB is down'));
    const { run, mailer, onWithdrawFailed } = useCase();
    mailer.failure = new Error('SES is down');

    await expect(run(input)).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(onWithdrawFailed).toHaveBeenCalledWith(expect.any(String), expect.any(Error));
  });

  describe('the e-mail quota', () => {
    it('is decided before anything is written and spent in the token’s own transaction; its decision is returned', async () => {
      const steps: string[] = [];
      documentsMock.on(TransactWriteCommand).callsFake(() => {
        steps.push('write');
        return {};
      });
      const emailQuota = new FakeEmailQuota(() => steps.push('reserve'));
      const { run } = useCase(vi.fn(), emailQuota);

      const result = await run(input);

      expect(emailQuota.reserved).toEqual([{ orgId: 'acme', email: 'zoe@example.com', now: NOW }]);
      expect(steps).toEqual(['reserve', 'write', 'write']);
      const [issue] = documentsMock.commandCalls(TransactWriteCommand);
      // The guard, the token and its two pointers, then the quota's writes: one transaction.
      expect(issue!.args[0].input.TransactItems).toHaveLength(5);
      expect(issue!.args[0].input.TransactItems![4]).toEqual(quotaWrite(1));
      expect(result.emailQuota).toEqual(ALLOWED);
    });

    it('refuses a paused organization with 429 (EmailPausedError) before the quota: nothing spent, stored or sent', async () => {
      const emailQuota = new FakeEmailQuota();
      const { run, mailer } = useCase(vi.fn(), emailQuota, emailSendingPausedFor('bounces'));

      const failure = await run(input).catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(EmailPausedError);
      expect(failure).toBeInstanceOf(RateLimitedError);
      expect((failure as Error).message).toMatch(/^e-mail is paused for this organization: too many bounces/);
      expect(emailQuota.reserved).toEqual([]);
      expect(documentsMock).not.toHaveReceivedCommand(TransactWriteCommand);
      expect(mailer.sent).toEqual([]);
    });

    it('refuses with 429 (EmailQuotaExceededError) and stores and sends nothing when it is used up', async () => {
      const emailQuota = new FakeEmailQuota();
      emailQuota.refusal = RECIPIENT_REFUSAL;
      const { run, mailer } = useCase(vi.fn(), emailQuota);

      const failure = await run(input).catch((error: unknown) => error);

      expect(failure).toBeInstanceOf(EmailQuotaExceededError);
      expect(failure).toBeInstanceOf(RateLimitedError);
      expect(failure).toMatchObject({
        retryAfterSeconds: 2400,
        decision: RECIPIENT_REFUSAL.decision,
        exhausted: 'recipient',
        message: 'at most 5 onboarding e-mails an hour to one address',
      });
      expect(documentsMock).not.toHaveReceivedCommand(TransactWriteCommand);
      expect(mailer.sent).toEqual([]);
    });

    it('names the organization’s quota when that one is used up', async () => {
      const emailQuota = new FakeEmailQuota();
      emailQuota.refusal = {
        allowed: false,
        decision: { allowed: false, limit: 1000, remaining: 0, resetSeconds: 600, retryAfterSeconds: 600 },
        exhausted: 'organization',
      };
      const { run } = useCase(vi.fn(), emailQuota);

      await expect(run(input)).rejects.toMatchObject({
        exhausted: 'organization',
        message: 'at most 1000 onboarding e-mails an hour per organization',
      });
    });

    it('is not spent when the e-mail already holds a live token: 409, the one transaction cancelled', async () => {
      documentsMock
        .on(TransactWriteCommand)
        .rejects(cancelled('ConditionalCheckFailed', 'None', 'None', 'None', 'None'));
      const { run, mailer, emailQuota } = useCase();

      await expect(run(input)).rejects.toBeInstanceOf(ConflictError);
      expect(emailQuota.reserved).toHaveLength(1);
      expect(documentsMock).toHaveReceivedCommandTimes(TransactWriteCommand, 1);
      expect(mailer.sent).toEqual([]);
    });

    it('is decided again on fresh state when a concurrent e-mail spent it meanwhile (its condition failed)', async () => {
      documentsMock
        .on(TransactWriteCommand)
        .rejectsOnce(cancelled('None', 'None', 'None', 'None', 'ConditionalCheckFailed'))
        .resolves({});
      const { run, mailer, emailQuota } = useCase();

      await run(input);

      expect(emailQuota.reserved).toHaveLength(2);
      const [refused, issued] = documentsMock.commandCalls(TransactWriteCommand);
      expect(refused!.args[0].input.TransactItems![4]).toEqual(quotaWrite(1));
      expect(issued!.args[0].input.TransactItems![4]).toEqual(quotaWrite(2));
      expect(mailer.sent).toHaveLength(1);
    });

    it('a live token wins over a changed quota: 409, not decided again', async () => {
      documentsMock
        .on(TransactWriteCommand)
        .rejects(cancelled('ConditionalCheckFailed', 'None', 'None', 'None', 'ConditionalCheckFailed'));
      const { run, emailQuota } = useCase();

      await expect(run(input)).rejects.toBeInstanceOf(ConflictError);
      expect(emailQuota.reserved).toHaveLength(1);
    });
  });
});
