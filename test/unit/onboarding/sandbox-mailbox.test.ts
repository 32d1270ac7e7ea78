import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDbEmailReputationStore } from '#shared/adapters/dynamodb/email-reputation-store.ts';
import { DynamoDbOnboardingTokenStore } from '#shared/adapters/dynamodb/onboarding-token-store.ts';
import { DynamoDbSandboxMailbox } from '#shared/adapters/dynamodb/sandbox-mailbox.ts';
import { encodeCursor } from '#shared/adapters/dynamodb/page-cursor.ts';
import { MailboxOnboardingMailer } from '#shared/adapters/sandbox-mailer.ts';
import { SesOnboardingMailer } from '#shared/adapters/ses/onboarding-mailer.ts';
import { DependencyUnavailableError, InvalidInputError } from '#shared/domain/errors.ts';
import { createOnboardingToken } from '#shared/domain/onboarding/create-onboarding-token.ts';
import { countEmailEvent, type EmailEvent } from '#shared/domain/onboarding/email-reputation.ts';
import type { OnboardingEmail } from '#shared/domain/onboarding/ports.ts';
import { mailerByTenant } from '#shared/domain/sandbox/mailbox.ts';
import { logger } from '#shared/observability/logger.ts';
import { FakeEmailQuota } from './fake-email-quota.ts';
import { sendingNotPaused } from '#test/support/email-sending.ts';

/**
 * Contract §23: the sandbox never sends e-mail. The mailer every sending function gets routes a
 * sandbox key's e-mail to the mailbox (kept 7 days, listed newest first) and never calls SES.
 */

const TABLE = 'OnboardingTokens';
const NOW = new Date('2026-03-01T12:00:00.000Z');
const SANDBOX = 'acme~sandbox';
const documentsMock = mockClient(DynamoDBDocumentClient);
const sesMock = mockClient(SESv2Client);

const documents = () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' }));

const email = (overrides: Partial<OnboardingEmail> = {}): OnboardingEmail => ({
  orgId: SANDBOX,
  tokenId: '0b9c7a52-7f1e-4c3a-9d55-2f3a8e1c6b40',
  to: 'Ada@Example.org',
  firstName: 'Ada',
  lastName: '<b>Lovelace</b>',
  token: 'tok_abcdefghijklmnopqrstuvwxyz012345',
  expiresAt: new Date('2026-03-15T12:00:00.000Z'),
  organizationName: 'Acme Ltd',
  ...overrides,
});

function mailer(countEvent: (event: EmailEvent) => Promise<unknown> = async () => 'counted') {
  const counted: EmailEvent[] = [];
  const sandbox = new MailboxOnboardingMailer({
    mailbox: new DynamoDbSandboxMailbox(documents(), TABLE),
    countEmailEvent: (event) => {
      counted.push(event);
      return countEvent(event);
    },
    clock: { now: () => NOW },
    newMessageId: () => 'msg-1',
  });
  const live = new SesOnboardingMailer(new SESv2Client({ region: 'eu-west-1' }), {
    senderAddress: 'no-reply@service.test',
    templateName: 'onboarding-token-v2',
  });
  return { mailer: mailerByTenant({ live, sandbox }), counted };
}

const mailboxWrites = () =>
  documentsMock
    .commandCalls(TransactWriteCommand)
    .map((call) => call.args[0].input)
    .filter((input) => input.TransactItems?.some((item) => String(item.Put?.Item?.sk).startsWith('SANDBOX_EMAIL')));

beforeEach(() => {
  documentsMock.reset();
  sesMock.reset();
  documentsMock.on(TransactWriteCommand).resolves({});
  sesMock.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
});

describe('the mailer of a sending function', () => {
  it('keeps a sandbox e-mail, rendered, for 7 days under the tenant’s partition and never calls SES', async () => {
    const { mailer: send, counted } = mailer();

    await send.sendOnboardingToken(email());

    expect(sesMock).not.toHaveReceivedCommand(SendEmailCommand);
    const [write] = mailboxWrites();
    const items = write!.TransactItems!.map((item) => item.Put!.Item!);
    expect(items.map((item) => item.sk)).toEqual([
      `SANDBOX_EMAIL#${NOW.toISOString()}#msg-1`,
      `SANDBOX_EMAIL_TO#ada@example.org#${NOW.toISOString()}#msg-1`,
    ]);
    for (const item of items) {
      expect(item).toMatchObject({
        pk: `ORG#${SANDBOX}`,
        to: 'ada@example.org',
        subject: 'Your onboarding code for Acme Ltd',
        tokenId: '0b9c7a52-7f1e-4c3a-9d55-2f3a8e1c6b40',
        createdAt: NOW.toISOString(),
        ttl: NOW.getTime() / 1000 + 7 * 86_400,
      });
      expect(item.text).toContain('tok_abcdefghijklmnopqrstuvwxyz012345');
      expect(item.html).toContain('&lt;b&gt;Lovelace&lt;/b&gt;');
    }
    expect(counted).toEqual([{ kind: 'send', messageId: 'msg-1', orgId: SANDBOX }]);
  });

  it('sends a live e-mail with SES and keeps nothing', async () => {
    await mailer().mailer.sendOnboardingToken(email({ orgId: 'acme' }));

    expect(sesMock).toHaveReceivedCommandTimes(SendEmailCommand, 1);
    expect(mailboxWrites()).toEqual([]);
  });

  it('counts an e-mail to the simulator’s bounce or complaint address as one in the sandbox’s own reputation', async () => {
    documentsMock.on(GetCommand).resolves({});
    documentsMock.on(PutCommand).resolves({});
    const store = new DynamoDbEmailReputationStore(documents(), TABLE);
    const count = countEmailEvent({ store, clock: { now: () => NOW }, alerts: { emailPaused: vi.fn() } });
    const { mailer: send } = mailer(count);

    await send.sendOnboardingToken(email({ to: 'bounce@simulator.amazonses.com' }));

    const written = documentsMock.commandCalls(PutCommand).map((call) => call.args[0].input.Item!);
    expect(written.at(-1)).toMatchObject({
      pk: `EMAIL_REPUTATION#${SANDBOX}`,
      recent: [['msg-1', true, false]],
    });

    const { mailer: again, counted } = mailer();
    await again.sendOnboardingToken(email({ to: 'complaint@simulator.amazonses.com' }));
    expect(counted.map((event) => event.kind)).toEqual(['send', 'complaint']);
  });

  it('keeps the e-mail even when its reputation cannot be counted (logged)', async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    const { mailer: send } = mailer(() => Promise.reject(new Error('DynamoDB is down')));

    await send.sendOnboardingToken(email());

    expect(mailboxWrites()).toHaveLength(1);
    expect(warn).toHaveBeenCalledWith('could not count a sandbox e-mail in its reputation', expect.anything());
    expect(JSON.stringify(warn.mock.calls)).not.toContain('example.org');
  });
});

describe('a sandbox e-mail that cannot be kept', () => {
  it('withdraws the token and reports mail unavailable (503), as a failed SES send does; SES is not called', async () => {
    documentsMock
      .on(TransactWriteCommand)
      .callsFake((input: TransactWriteCommandInput) =>
        input.TransactItems?.some((item) => String(item.Put?.Item?.sk).startsWith('SANDBOX_EMAIL'))
          ? Promise.reject(new Error('DynamoDB is down'))
          : Promise.resolve({}),
      );
    const run = createOnboardingToken({
      tokens: new DynamoDbOnboardingTokenStore(documents(), TABLE),
      mailer: mailer().mailer,
      emailQuota: new FakeEmailQuota(),
      emailSending: sendingNotPaused,
      clock: { now: () => NOW },
    });

    const failure = await run({
      answerBy: new Date(NOW.getTime() + 9_000),
      orgId: SANDBOX,
      organizationName: 'Acme Ltd',
      email: 'zoe@example.com',
      firstName: 'Zoë',
      lastName: 'Ångström',
    }).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect(failure).toMatchObject({ dependency: 'mail' });
    expect(sesMock).not.toHaveReceivedCommand(SendEmailCommand);
    const writes = documentsMock.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);
    // Issued, the mailbox's failed write, then withdrawn: every item `issue` wrote but the quota is deleted.
    expect(writes).toHaveLength(3);
    const [issued, , withdrawn] = writes;
    expect(withdrawn!.every((item) => item.Delete?.Key?.pk === `ORG#${SANDBOX}`)).toBe(true);
    expect(withdrawn!.map((item) => item.Delete!.Key!.sk)).toContain('EMAIL#zoe@example.com');
    expect(issued!.length).toBeGreaterThan(withdrawn!.length);
  });
});

describe('the sandbox mailbox listing', () => {
  const stored = (n: number, to = 'ada@example.org') => ({
    sk: `SANDBOX_EMAIL#2026-03-01T12:00:0${n}.000Z#msg-${n}`,
    pk: `ORG#${SANDBOX}`,
    to,
    subject: 's',
    text: 't',
    html: 'h',
    tokenId: `token-${n}`,
    createdAt: `2026-03-01T12:00:0${n}.000Z`,
    ttl: 9_999_999_999,
  });

  it('reads one recipient’s e-mails newest first, one more than the page to know whether more follow', async () => {
    documentsMock.on(QueryCommand).resolves({ Items: [stored(3), stored(2), stored(1)] });
    const mailbox = new DynamoDbSandboxMailbox(documents(), TABLE);

    const page = await mailbox.list(SANDBOX, { to: ' Ada@Example.org', limit: 2 });

    expect(documentsMock).toHaveReceivedCommandWith(QueryCommand, {
      ExpressionAttributeValues: expect.objectContaining({
        ':pk': `ORG#${SANDBOX}`,
        ':prefix': 'SANDBOX_EMAIL_TO#ada@example.org#',
      }),
      ScanIndexForward: false,
      Limit: 3,
    });
    expect(page.emails.map((kept) => kept.tokenId)).toEqual(['token-3', 'token-2']);
    expect(page.emails[0]).toEqual({
      to: 'ada@example.org',
      subject: 's',
      text: 't',
      html: 'h',
      tokenId: 'token-3',
      createdAt: '2026-03-01T12:00:03.000Z',
    });
    expect(page.nextCursor).toBe(encodeCursor(stored(2).sk));
  });

  it('continues after a cursor it issued, ends without one, and refuses another listing’s cursor', async () => {
    documentsMock.on(QueryCommand).resolves({ Items: [stored(1)] });
    const mailbox = new DynamoDbSandboxMailbox(documents(), TABLE);

    const page = await mailbox.list(SANDBOX, { limit: 2, cursor: encodeCursor(stored(2).sk) });

    expect(documentsMock).toHaveReceivedCommandWith(QueryCommand, {
      ExclusiveStartKey: { pk: `ORG#${SANDBOX}`, sk: stored(2).sk },
    });
    expect(page.nextCursor).toBeUndefined();
    await expect(
      mailbox.list(SANDBOX, { limit: 2, cursor: encodeCursor('TOKEN#2026-03-01#x') }),
    ).rejects.toBeInstanceOf(InvalidInputError);
    await expect(
      mailbox.list(SANDBOX, {
        to: 'eve@example.org',
        limit: 2,
        cursor: encodeCursor('SANDBOX_EMAIL_TO#ada@example.org#x'),
      }),
    ).rejects.toBeInstanceOf(InvalidInputError);
  });
});
