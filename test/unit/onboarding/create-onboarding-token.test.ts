import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbOnboardingTokenStore } from '../../../shared/adapters/dynamodb/onboarding-token-store.ts';
import { SesOnboardingMailer } from '../../../shared/adapters/ses/onboarding-mailer.ts';
import { ConflictError, DependencyUnavailableError } from '../../../shared/domain/errors.ts';
import { createOnboardingToken } from '../../../shared/domain/onboarding/create-onboarding-token.ts';
import { hashOnboardingToken } from '../../../shared/domain/onboarding/onboarding-token.ts';

const TABLE = 'OnboardingTokens';
const NOW = new Date('2026-03-01T12:00:00.000Z');
const documentsMock = mockClient(DynamoDBDocumentClient);
const sesMock = mockClient(SESv2Client);

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

function useCase(onWithdrawFailed = vi.fn()) {
  const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
  const run = createOnboardingToken({
    tokens: new DynamoDbOnboardingTokenStore(documents, TABLE),
    mailer: new SesOnboardingMailer(new SESv2Client({ region: 'us-east-1' }), {
      senderAddress: 'no-reply@example.com',
      templateName: 'onboarding-token',
    }),
    clock: { now: () => NOW },
    onWithdrawFailed,
  });
  return { run, onWithdrawFailed };
}

const input = { orgId: 'acme', organizationName: 'Acme Ltd', email: 'zoe@example.com', firstName: 'Zoë', lastName: 'Ångström' };

describe('createOnboardingToken', () => {
  beforeEach(() => {
    documentsMock.reset();
    sesMock.reset();
    documentsMock.on(TransactWriteCommand).resolves({});
    sesMock.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
  });

  it('writes the token and its e-mail guard in one conditional transaction, storing only the hash', async () => {
    const { run } = useCase();

    const result = await run(input);

    expect(result.expiresAt).toBe('2026-03-15T12:00:00.000Z');
    const [call] = documentsMock.commandCalls(TransactWriteCommand);
    const [guard, token] = call!.args[0].input.TransactItems!;
    expect(guard!.Put).toMatchObject({
      TableName: TABLE,
      Item: { pk: 'ORG#acme', sk: 'EMAIL#zoe@example.com', expiresAtEpoch: Date.parse(result.expiresAt) / 1000 },
      ConditionExpression: 'attribute_not_exists(pk) OR expiresAtEpoch <= :now',
      ExpressionAttributeValues: { ':now': NOW.getTime() / 1000 },
    });
    expect(token!.Put!.Item).toMatchObject({
      pk: 'ORG#acme',
      tokenHash: hashOnboardingToken(result.onboardingToken),
      tokenHint: result.onboardingToken.slice(-4),
      email: 'zoe@example.com',
    });
    expect(JSON.stringify(call!.args[0].input)).not.toContain(result.onboardingToken);
  });

  it('e-mails the plaintext token with the onboarding template', async () => {
    const { run } = useCase();

    const result = await run(input);

    expect(sesMock).toHaveReceivedCommandTimes(SendEmailCommand, 1);
    const sent = sesMock.commandCalls(SendEmailCommand)[0]!.args[0].input;
    expect(sent.Destination?.ToAddresses).toEqual(['zoe@example.com']);
    expect(sent.Content?.Template?.TemplateName).toBe('onboarding-token');
    expect(JSON.parse(sent.Content!.Template!.TemplateData!)).toEqual({
      firstName: 'Zoë',
      lastName: 'Ångström',
      token: result.onboardingToken,
      expiresOn: '2026-03-15',
      organizationName: 'Acme Ltd',
    });
  });

  it('reports a conflict and sends nothing when the e-mail already holds a live token', async () => {
    documentsMock.on(TransactWriteCommand).rejects(cancelled('ConditionalCheckFailed', 'None'));
    const { run } = useCase();

    await expect(run(input)).rejects.toBeInstanceOf(ConflictError);
    expect(sesMock).not.toHaveReceivedCommand(SendEmailCommand);
  });

  it('retries a transaction cancelled only by a concurrent writer, then succeeds', async () => {
    documentsMock
      .on(TransactWriteCommand)
      .rejectsOnce(cancelled('TransactionConflict', 'None'))
      .resolves({});
    const { run } = useCase();

    await run(input);

    expect(documentsMock).toHaveReceivedCommandTimes(TransactWriteCommand, 2);
  });

  it('withdraws the token and its guard and reports mail unavailable when SES fails', async () => {
    sesMock.on(SendEmailCommand).rejects(new Error('SES is down'));
    const { run } = useCase();

    await expect(run(input)).rejects.toBeInstanceOf(DependencyUnavailableError);

    const calls = documentsMock.commandCalls(TransactWriteCommand);
    expect(calls).toHaveLength(2);
    const issued = calls[0]!.args[0].input.TransactItems!;
    const withdrawn = calls[1]!.args[0].input.TransactItems!;
    expect(withdrawn.map((item) => item.Delete?.Key)).toEqual([
      { pk: 'ORG#acme', sk: issued[1]!.Put!.Item!.sk },
      { pk: 'ORG#acme', sk: 'EMAIL#zoe@example.com' },
    ]);
    expect(withdrawn[1]!.Delete!.ExpressionAttributeValues).toEqual({ ':tokenSk': issued[1]!.Put!.Item!.sk });
  });

  it('still answers "mail unavailable" and tells the operator when the withdrawal fails too', async () => {
    sesMock.on(SendEmailCommand).rejects(new Error('SES is down'));
    documentsMock.on(TransactWriteCommand).resolvesOnce({}).rejects(new Error('DynamoDB is down'));
    const { run, onWithdrawFailed } = useCase();

    await expect(run(input)).rejects.toBeInstanceOf(DependencyUnavailableError);
    expect(onWithdrawFailed).toHaveBeenCalledWith(expect.any(String), expect.any(Error));
  });
});

describe('SesOnboardingMailer', () => {
  it("reports a failed send without SES's message, which can name the recipient", async () => {
    sesMock.reset();
    const rejected = Object.assign(new Error('Email address is not verified: zoe@example.com'), {
      name: 'MessageRejected',
      $metadata: { httpStatusCode: 400, requestId: 'req-123' },
    });
    sesMock.on(SendEmailCommand).rejects(rejected);
    const mailer = new SesOnboardingMailer(new SESv2Client({ region: 'us-east-1' }), {
      senderAddress: 'no-reply@example.com',
      templateName: 'onboarding-token',
    });

    const failure = await mailer
      .sendOnboardingToken({ ...input, to: 'zoe@example.com', token: 't', expiresAt: NOW })
      .catch((error: unknown) => error as Error);

    expect(failure).toBeInstanceOf(Error);
    expect(failure!.message).toContain('MessageRejected');
    expect(failure!.message).toContain('req-123');
    expect(JSON.stringify({ message: failure!.message, cause: (failure as Error).cause })).not.toContain('zoe@example.com');
  });
});
