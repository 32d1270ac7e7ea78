import { beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPT_TIMEOUT_MS } from '#shared/adapters/aws-clients.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { seedOrganization } from '#test/support/report-support.ts';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';
import { expectOnePdfPerCompleteJob, finalJobs, timed, withOneHungAttempt } from './fault-support.ts';

/**
 * Gray failures: one attempt of one call hangs (its request swallowed by the dependency's proxy,
 * its connection silent) while every other request is answered. The client cuts the attempt off
 * at its attempt timeout and the SDK retries it on another connection, so the call succeeds in
 * about that timeout plus a backoff, far inside the request's deadline, and the API answers its
 * usual 2XX. Without a per-attempt timeout that fires, the hung attempt would hold the call until
 * the deadline and the answer would be a 503.
 */

/** The SDK's first backoff (up to 200 ms), the retried call and the rest of the request, on two busy cores. */
const RETRY_ALLOWANCE_MS = 1_500;

function expectRetriedAfter(elapsedMs: number, attemptTimeoutMs: number): void {
  expect(elapsedMs, 'the hung attempt was waited for until its timeout').toBeGreaterThanOrEqual(attemptTimeoutMs - 50);
  expect(elapsedMs, 'then retried at once, far inside the deadline').toBeLessThan(
    attemptTimeoutMs + RETRY_ALLOWANCE_MS,
  );
}

describe('one attempt hangs, the next answers', () => {
  const orgId = uniqueOrg('grayfail');
  let token: string;
  let userId: string;

  const createToken = (email: string) =>
    timed(
      email,
      callApi('POST', '/v1/onboarding-token', { token, body: { email, first_name: 'Gray', last_name: 'Failure' } }),
    );

  // The functions warm (modules loaded, fonts read), so each timing below is the hang and its retry alone.
  beforeAll(async () => {
    token = await tokenFor(orgId);
    const [user] = await seedOrganization(orgId, 1);
    userId = user!.id;
    const receiver = await startWebhookReceiver();
    try {
      const [created, registered, requested] = await Promise.all([
        createToken('gray-warm-up@example.com'),
        callApi('POST', '/v1/webhooks', { token, body: { url: receiver.url, events: ['report.completed'] } }),
        callApi('POST', '/v1/document/api', { token, body: { userId } }),
      ]);
      expect([created.status, registered.status, requested.status]).toEqual([201, 201, 202]);
      await finalJobs(token, [requested.body.jobId as string], 30_000);
    } finally {
      await receiver.close();
    }
  }, 60_000);

  it('DynamoDB: a token is created (201) after its transaction’s first attempt hangs', async () => {
    const created = await withOneHungAttempt('dynamodb', 'DynamoDB_20120810.TransactWriteItems', () =>
      createToken('gray-dynamodb@example.com'),
    );

    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expectRetriedAfter(created.elapsedMs, ATTEMPT_TIMEOUT_MS.dynamoDbItem);
    const listed = await callApi('GET', '/v1/onboarding-tokens?limit=10', { token });
    const tokens = listed.body.results as Array<{ email: string }>;
    expect(
      tokens.filter((item) => item.email === 'gray-dynamodb@example.com'),
      'written once',
    ).toHaveLength(1);
  });

  it('SES: the e-mail is sent and the token created (201) after the send’s first attempt hangs', async () => {
    const created = await withOneHungAttempt('ses', '/v2/email/outbound-emails', () =>
      createToken('gray-ses@example.com'),
    );

    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expectRetriedAfter(created.elapsedMs, ATTEMPT_TIMEOUT_MS.ses);
  });

  it('KMS: a webhook endpoint is registered (201) after sealing its secret hangs once', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const registered = await withOneHungAttempt('kms', 'TrentService.Encrypt', () =>
        timed(
          'register',
          callApi('POST', '/v1/webhooks', { token, body: { url: receiver.url, events: ['report.completed'] } }),
        ),
      );

      expect(registered.status, JSON.stringify(registered.body)).toBe(201);
      expectRetriedAfter(registered.elapsedMs, ATTEMPT_TIMEOUT_MS.kms);
    } finally {
      await receiver.close();
    }
  });

  it('SQS: a report is queued (202) after the send’s first attempt hangs', async () => {
    const requested = await withOneHungAttempt('sqs', 'AmazonSQS.SendMessage', () =>
      timed('report', callApi('POST', '/v1/document/api', { token, body: { userId } })),
    );

    expect(requested.status, JSON.stringify(requested.body)).toBe(202);
    expectRetriedAfter(requested.elapsedMs, ATTEMPT_TIMEOUT_MS.sqs);
    const [job] = await finalJobs(token, [requested.body.jobId as string], 30_000);
    expect(job!.status).toBe('COMPLETE');
  });

  it('S3: a report is stored and COMPLETE after its PUT’s first attempt hangs, without a redelivery', async () => {
    const s3OrgId = uniqueOrg('grayfail-s3');
    const [user] = await seedOrganization(s3OrgId, 1);
    const s3Token = await tokenFor(s3OrgId);
    const [job] = await withOneHungAttempt('s3', 'PUT ', async () => {
      const requested = await callApi('POST', '/v1/document/api', { token: s3Token, body: { userId: user!.id } });
      expect(requested.status, JSON.stringify(requested.body)).toBe(202);
      return finalJobs(s3Token, [requested.body.jobId as string], 30_000);
    });

    expect(job!.status).toBe('COMPLETE');
    // The worker's own time covers the hung attempt and its retry; a redelivery would add the 21 s visibility timeout.
    expectRetriedAfter(job!.durationMs as number, ATTEMPT_TIMEOUT_MS.s3);
    await expectOnePdfPerCompleteJob(s3OrgId, [job!]);
  });
});
