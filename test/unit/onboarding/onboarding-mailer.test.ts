import { inspect } from 'node:util';
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { HttpRequest, HttpResponse } from '@smithy/core/transport';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  MailDeliveryError,
  onboardingMailerFromEnvironment,
  SesOnboardingMailer,
  type SesOnboardingMailerOptions,
} from '../../../shared/adapters/ses/onboarding-mailer.ts';
import type { OnboardingEmail } from '../../../shared/domain/onboarding/ports.ts';
import { expectedAuthorization, RecordingHttpEndpoint } from '../../support/recording-http-endpoint.ts';

const REGION = 'eu-west-1';
const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'fake-secret-key',
  sessionToken: 'fake-session-token',
};
const RECIPIENT = 'zoe@example.com';
const EMAIL: OnboardingEmail = {
  to: RECIPIENT,
  firstName: 'Zoë',
  lastName: 'Ångström',
  token: 'tok_4f9Qx2LmZ8rT1vW7yB3nC6dE0aH5jK9p',
  expiresAt: new Date('2026-03-15T12:00:00.000Z'),
  organizationName: 'Acme Ltd',
};
const SENDER = { senderAddress: 'no-reply@example.com', templateName: 'onboarding-token' };
/** SES's text for an unverified recipient in the sandbox: it names the address. */
const SES_MESSAGE = `Email address is not verified. The following identities failed the check in region EU-WEST-1: ${RECIPIENT}`;

/** A stand-in for SES v2: answers 200 with a message id unless a refusal is scripted. */
class FakeSes extends RecordingHttpEndpoint {
  constructor() {
    super({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"MessageId":"m-1"}' });
  }

  /** An error as SES sends it: the type in a header and/or the body, SES's message in the body, the request id in a header. */
  refuse(
    status: number,
    error: { headerType?: string; bodyType?: Record<string, string>; requestId?: string } = {},
  ): this {
    return this.enqueue({
      status,
      headers: {
        'content-type': 'application/json',
        ...(error.headerType ? { 'x-amzn-errortype': error.headerType } : {}),
        ...(error.requestId ? { 'x-amzn-requestid': error.requestId } : {}),
      },
      body: JSON.stringify({ ...error.bodyType, message: SES_MESSAGE }),
    });
  }
}

const mailerFor = (endpoint: string, options: Partial<SesOnboardingMailerOptions> = { retryDelaysMs: [1, 1] }) =>
  new SesOnboardingMailer({ region: REGION, credentials: CREDENTIALS, endpoint }, { ...SENDER, ...options });

const SES_SIGNING = { service: 'ses', region: REGION, credentials: CREDENTIALS };

const failureOf = (promise: Promise<unknown>): Promise<Error> =>
  promise.then(
    () => expect.unreachable('the send should have failed'),
    (error: unknown) => error as Error,
  );

describe('SesOnboardingMailer', () => {
  let ses: FakeSes;

  beforeEach(async () => {
    ses = await new FakeSes().start();
  });

  afterEach(async () => {
    await ses.stop();
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    vi.useRealTimers();
  });

  it('posts SES v2 SendEmail as JSON: sender, recipient, template and its data with the expiry day', async () => {
    await mailerFor(ses.endpoint).sendOnboardingToken(EMAIL);

    expect(ses.requests).toHaveLength(1);
    const [sent] = ses.requests;
    expect(sent).toMatchObject({
      method: 'POST',
      path: '/v2/email/outbound-emails',
      headers: {
        host: `127.0.0.1:${ses.port}`,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(sent!.body)),
      },
    });
    const body = JSON.parse(sent!.body.toString());
    expect(body).toEqual({
      FromEmailAddress: 'no-reply@example.com',
      Destination: { ToAddresses: [RECIPIENT] },
      Content: { Template: { TemplateName: 'onboarding-token', TemplateData: expect.any(String) } },
    });
    expect(JSON.parse(body.Content.Template.TemplateData)).toEqual({
      firstName: 'Zoë',
      lastName: 'Ångström',
      token: EMAIL.token,
      expiresOn: '2026-03-15',
      organizationName: 'Acme Ltd',
    });
  });

  it('sends what the SDK sends for the same SendEmailCommand', async () => {
    await mailerFor(ses.endpoint).sendOnboardingToken(EMAIL);
    const sdk = new SESv2Client({ region: REGION, credentials: CREDENTIALS, endpoint: ses.endpoint });
    await sdk.send(new SendEmailCommand(JSON.parse(ses.requests[0]!.body.toString())));
    sdk.destroy();

    const [ours, theirs] = ses.requests;
    expect({ ...ours, headers: undefined, body: JSON.parse(ours!.body.toString()) }).toEqual({
      ...theirs,
      headers: undefined,
      body: JSON.parse(theirs!.body.toString()),
    });
    expect(ours!.headers['content-type']).toBe(theirs!.headers['content-type']);
    expect(ours!.headers.authorization!.split(',')[0]).toBe(theirs!.headers.authorization!.split(',')[0]);
  });

  it('signs the request with SigV4 for ses in the region, over its body and session token', async () => {
    await mailerFor(ses.endpoint).sendOnboardingToken(EMAIL);

    const [sent] = ses.requests;
    const authorization = sent!.headers.authorization!;
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/ses\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
    );
    expect(/SignedHeaders=([^,]+)/.exec(authorization)![1]!.split(';')).toEqual(
      expect.arrayContaining(['content-length', 'content-type', 'host', 'x-amz-date', 'x-amz-security-token']),
    );
    expect(sent!.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
    expect(authorization).toBe(await expectedAuthorization(sent!, ses.port, SES_SIGNING));
  });

  it.each([
    ['eu-west-1', 'https://email.eu-west-1.amazonaws.com'],
    ['cn-north-1', 'https://email.cn-north-1.amazonaws.com.cn'],
  ])('sends to the regional endpoint in %s by default', async (region, origin) => {
    const sent: HttpRequest[] = [];
    vi.spyOn(NodeHttpHandler.prototype, 'handle').mockImplementation(async (request) => {
      sent.push(request);
      return { response: new HttpResponse({ statusCode: 200, headers: {}, body: (async function* () {})() }) };
    });

    await new SesOnboardingMailer({ region, credentials: CREDENTIALS }, SENDER).sendOnboardingToken(EMAIL);

    expect(sent).toHaveLength(1);
    const url = new URL(origin);
    expect(sent[0]).toMatchObject({
      method: 'POST',
      protocol: 'https:',
      hostname: url.hostname,
      path: '/v2/email/outbound-emails',
    });
    expect(sent[0]!.headers).toMatchObject({ host: url.hostname });
    expect(sent[0]!.port).toBeUndefined();
  });

  it('reuses its keep-alive connection for the next e-mail', async () => {
    const mailer = mailerFor(ses.endpoint);

    await mailer.sendOnboardingToken(EMAIL);
    await mailer.sendOnboardingToken(EMAIL);

    expect(ses.requests).toHaveLength(2);
    expect(ses.connections).toBe(1);
  });

  it.each([
    ['a 500 without a type', 500, {}, 'unknown error'],
    ['a 503 ServiceUnavailable', 503, { bodyType: { code: 'ServiceUnavailable' } }, 'ServiceUnavailable'],
    ['a 429 TooManyRequestsException', 429, { headerType: 'TooManyRequestsException' }, 'TooManyRequestsException'],
    [
      'a 400 ThrottlingException',
      400,
      { bodyType: { __type: 'com.amazonaws.sesv2#ThrottlingException' } },
      'ThrottlingException',
    ],
    [
      'a 400 LimitExceededException',
      400,
      { headerType: 'LimitExceededException:http://internal.amazon.com/' },
      'LimitExceededException',
    ],
  ])('tries %s three times in all, then fails naming the last answer', async (_label, status, error, type) => {
    for (let i = 1; i <= 3; i++) ses.refuse(status, { ...error, requestId: `req-${i}` });

    const failure = await failureOf(mailerFor(ses.endpoint).sendOnboardingToken(EMAIL));

    expect(failure).toBeInstanceOf(MailDeliveryError);
    expect(failure.message).toBe(`SES SendEmail failed: ${type} (status ${status}, request req-3)`);
    expect(ses.requests).toHaveLength(3);
  });

  it('sends the e-mail when a retry succeeds, each attempt signed afresh with the same body', async () => {
    ses.refuse(503).refuse(429, { headerType: 'TooManyRequestsException' });

    await mailerFor(ses.endpoint).sendOnboardingToken(EMAIL);

    expect(ses.requests).toHaveLength(3);
    for (const sent of ses.requests) {
      expect(sent.body).toEqual(ses.requests[0]!.body);
      expect(sent.headers.authorization).toBe(await expectedAuthorization(sent, ses.port, SES_SIGNING));
    }
  });

  it('waits 50 ms, then 200 ms between attempts by default', async () => {
    ses.refuse(503).refuse(503).refuse(503);
    const startedAt = Date.now();

    await expect(mailerFor(ses.endpoint, {}).sendOnboardingToken(EMAIL)).rejects.toBeInstanceOf(MailDeliveryError);

    expect(ses.requests).toHaveLength(3);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(245);
  });

  it.each([
    [
      'MessageRejected in the header, with its suffix',
      400,
      { headerType: 'MessageRejected:http://internal.amazon.com/coral/com.amazonaws.sesv2/' },
      'MessageRejected',
    ],
    [
      'NotFoundException in the body',
      404,
      { bodyType: { __type: 'com.amazonaws.sesv2#NotFoundException' } },
      'NotFoundException',
    ],
    [
      'AccessDeniedException in both',
      403,
      { headerType: 'AccessDeniedException', bodyType: { code: 'AccessDeniedException' } },
      'AccessDeniedException',
    ],
  ])('fails at once on %s, without the recipient or the text SES sent', async (_label, status, error, type) => {
    ses.refuse(status, { ...error, requestId: 'req-123' });

    const failure = await failureOf(mailerFor(ses.endpoint).sendOnboardingToken(EMAIL));

    expect(failure).toBeInstanceOf(MailDeliveryError);
    expect(failure.message).toBe(`SES SendEmail failed: ${type} (status ${status}, request req-123)`);
    expect(ses.requests).toHaveLength(1);
    const everything = inspect(failure, { depth: null });
    expect(everything).not.toContain(RECIPIENT);
    expect(everything).not.toContain('not verified');
  });

  it('keeps SES text out of the failure when it sits where the error type belongs', async () => {
    ses.refuse(400, { bodyType: { __type: SES_MESSAGE } });

    const failure = await failureOf(mailerFor(ses.endpoint).sendOnboardingToken(EMAIL));

    expect(failure.message).toBe('SES SendEmail failed: unknown error (status 400, request none)');
  });

  it('gives each attempt at most 1.2 s, and all of them together at most 3 s', async () => {
    vi.useFakeTimers({ now: new Date('2026-03-01T10:00:00Z'), toFake: ['Date'] });
    const attemptTimeouts: number[] = [];
    vi.spyOn(NodeHttpHandler.prototype, 'handle').mockImplementation(async (_request, options) => {
      attemptTimeouts.push(options!.requestTimeout!);
      vi.setSystemTime(Date.now() + options!.requestTimeout!);
      throw Object.assign(new Error('the request timed out'), { name: 'TimeoutError', code: 'ETIMEDOUT' });
    });

    const failure = await failureOf(mailerFor(ses.endpoint).sendOnboardingToken(EMAIL));

    expect(failure.message).toBe('SES SendEmail failed: ETIMEDOUT (status none, request none)');
    expect(attemptTimeouts).toEqual([1_200, 1_200, 600]);
  });

  it('names the network error when SES cannot be reached at all, after trying three times', async () => {
    const endpoint = ses.endpoint;
    await ses.stop();

    const failure = await failureOf(mailerFor(endpoint).sendOnboardingToken(EMAIL));

    expect(failure).toBeInstanceOf(MailDeliveryError);
    expect(failure.message).toBe('SES SendEmail failed: ECONNREFUSED (status none, request none)');
  });

  it('passes on a failure that is not SES’s, such as missing credentials, as it is and without sending', async () => {
    const noCredentials = new Error('Could not load credentials from any providers');
    const mailer = new SesOnboardingMailer(
      { region: REGION, credentials: () => Promise.reject(noCredentials), endpoint: ses.endpoint },
      SENDER,
    );

    const failure = await failureOf(mailer.sendOnboardingToken(EMAIL));

    expect(failure).toBe(noCredentials);
    expect(ses.requests).toHaveLength(0);
  });
});

describe('onboardingMailerFromEnvironment', () => {
  let ses: FakeSes;

  beforeEach(async () => {
    ses = await new FakeSes().start();
    vi.stubEnv('AWS_REGION', 'eu-central-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDFROMENV');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret-from-env');
  });

  afterEach(async () => {
    await ses.stop();
    vi.unstubAllEnvs();
  });

  it('sends to AWS_ENDPOINT_URL_SESV2 before AWS_ENDPOINT_URL, signed with the credentials and region of the environment', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL', 'http://127.0.0.1:1');
    vi.stubEnv('AWS_ENDPOINT_URL_SESV2', ses.endpoint);

    await onboardingMailerFromEnvironment(SENDER).sendOnboardingToken(EMAIL);

    expect(ses.requests).toHaveLength(1);
    expect(ses.requests[0]!.headers.authorization).toMatch(
      /Credential=AKIDFROMENV\/\d{8}\/eu-central-1\/ses\/aws4_request/,
    );
  });

  it('falls back to AWS_ENDPOINT_URL', async () => {
    vi.stubEnv('AWS_ENDPOINT_URL', ses.endpoint);

    await onboardingMailerFromEnvironment(SENDER).sendOnboardingToken(EMAIL);

    expect(ses.requests).toHaveLength(1);
  });
});
