import { SendEmailCommand, SESv2Client, SESv2ServiceException } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSesClient } from '#shared/adapters/aws-clients.ts';
import { MailDeliveryError, SesOnboardingMailer } from '#shared/adapters/ses/onboarding-mailer.ts';
import { fakeHttpHandler } from '#test/support/fake-http-handler.ts';

const EMAIL = {
  orgId: 'acme',
  tokenId: '0b9c7a52-7f1e-4c3a-9d55-2f3a8e1c6b40',
  to: 'ada@example.org',
  firstName: 'Ada',
  lastName: 'Lovelace',
  token: 'tok_abcdefghijklmnopqrstuvwxyz012345',
  expiresAt: new Date('2026-12-07T10:00:00Z'),
  organizationName: 'org-1',
};
const SENDER = { senderAddress: 'no-reply@service.test', templateName: 'onboarding-token-dev' };

/** What Lambda gives a function: its region and its role's credentials. */
const FUNCTION_ENVIRONMENT = {
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
};

const sesMock = mockClient(SESv2Client);
beforeEach(() => sesMock.reset());
afterEach(() => sesMock.reset());

const sesError = (name: string, fault: 'client' | 'server', httpStatusCode: number) =>
  new SESv2ServiceException({
    name,
    $fault: fault,
    $metadata: { httpStatusCode, requestId: 'REQ-SES-1' },
    message: `Email address is not verified: ${EMAIL.to}`,
  });

describe('SesOnboardingMailer', () => {
  it('escapes a period of the organization id in the org_id tag, which SES limits to letters, digits, _ and - (contract §27)', async () => {
    sesMock.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    await new SesOnboardingMailer(new SESv2Client({ region: 'eu-west-1' }), SENDER).sendOnboardingToken({
      ...EMAIL,
      orgId: 'acme.eu',
    });

    expect(sesMock).toReceiveCommandWith(SendEmailCommand, { EmailTags: [{ Name: 'org_id', Value: 'acme_-eu' }] });
  });

  it('sends SES v2 SendEmail with the stored template: sender, recipient, data with the expiry day, and the org_id tag', async () => {
    sesMock.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    await new SesOnboardingMailer(new SESv2Client({ region: 'eu-west-1' }), {
      ...SENDER,
      configurationSetName: 'onboarding-dev',
    }).sendOnboardingToken(EMAIL);

    expect(sesMock).toReceiveCommandTimes(SendEmailCommand, 1);
    expect(sesMock).toReceiveCommandWith(SendEmailCommand, {
      FromEmailAddress: SENDER.senderAddress,
      Destination: { ToAddresses: [EMAIL.to] },
      ConfigurationSetName: 'onboarding-dev',
      EmailTags: [{ Name: 'org_id', Value: 'acme' }],
      Content: {
        Template: {
          TemplateName: SENDER.templateName,
          TemplateData: JSON.stringify({
            firstName: 'Ada',
            lastName: 'Lovelace',
            token: EMAIL.token,
            expiresOn: '2026-12-07',
            organizationName: 'org-1',
            firstNameHtml: 'Ada',
            lastNameHtml: 'Lovelace',
            tokenHtml: EMAIL.token,
            expiresOnHtml: '2026-12-07',
            organizationNameHtml: 'org-1',
          }),
        },
      },
    });
  });

  it('describes a refusal by SES’s error type, status and request id, never its text (it echoes the recipient)', async () => {
    sesMock.on(SendEmailCommand).rejects(sesError('MessageRejected', 'client', 400));
    const failure = await new SesOnboardingMailer(new SESv2Client({ region: 'eu-west-1' }), SENDER)
      .sendOnboardingToken(EMAIL)
      .catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(MailDeliveryError);
    expect((failure as Error).message).toBe('SES SendEmail failed: MessageRejected (status 400, request REQ-SES-1)');
    expect((failure as Error).message).not.toContain(EMAIL.to);
  });
});

// Through the SDK's own stack (retries, error parsing, aws-clients.ts's translation), not a mocked `send`.
describe('SesOnboardingMailer with the service’s SES client', () => {
  beforeEach(() => {
    sesMock.restore();
    Object.assign(process.env, FUNCTION_ENVIRONMENT);
  });
  afterEach(() => {
    for (const name of Object.keys(FUNCTION_ENVIRONMENT)) delete process.env[name];
  });

  const mailerAnswering = (answer: Parameters<typeof fakeHttpHandler>[0], timeoutMs?: number) => {
    const client = createSesClient();
    const handler = fakeHttpHandler(answer);
    client.config.requestHandler = handler as never; // the SDK only calls handle()
    return { mailer: new SesOnboardingMailer(client, { ...SENDER, timeoutMs }), handler };
  };

  it('tries three times while SES throttles, then fails naming the error type only', async () => {
    const { mailer, handler } = mailerAnswering(() => ({
      statusCode: 429,
      headers: { 'x-amzn-errortype': 'TooManyRequestsException', 'x-amzn-requestid': 'REQ-9' },
      body: JSON.stringify({ message: `Too many requests for ${EMAIL.to}` }),
    }));
    const failure = await mailer.sendOnboardingToken(EMAIL).catch((e: unknown) => e);

    expect(handler.requests).toHaveLength(3);
    expect(failure).toBeInstanceOf(MailDeliveryError);
    expect((failure as Error).message).toBe(
      'SES SendEmail failed: TooManyRequestsException (status 429, request REQ-9)',
    );
  });

  it('sends once SES answers', async () => {
    const { mailer, handler } = mailerAnswering(() => ({ statusCode: 200, body: '{"MessageId":"m-1"}' }));
    await mailer.sendOnboardingToken(EMAIL);

    expect(handler.requests).toHaveLength(1);
    expect(JSON.parse(String(handler.requests[0]!.body))).toMatchObject({ Destination: { ToAddresses: [EMAIL.to] } });
  });

  it('gives up a send that stalls past its time budget', async () => {
    const { mailer } = mailerAnswering(() => 'hang', 100);
    const failure = await mailer.sendOnboardingToken(EMAIL).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(MailDeliveryError);
  });
});

describe('createSesClient', () => {
  it('tries three times', async () => {
    expect(await createSesClient().config.maxAttempts()).toBe(3);
  });
});
