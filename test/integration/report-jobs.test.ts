import { createHash, randomUUID } from 'node:crypto';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ScheduledEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as v from 'valibot';
import { afterAll, afterEach, describe, expect, inject, it, vi } from 'vitest';
import { completeReportJobSchema } from '#shared/schemas/report-job-responses.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { pdfsig } from '#test/support/pdf-signature.ts';
import { pdfinfo } from '#test/unit/reports/pdf/pdf-text.ts';
import {
  coldStart,
  documentClient,
  lambdaContext,
  reportJobRecord,
  reportJobStore,
  reportJobsTableName,
  seedOrganization,
  sqsEvent,
  waitForJob,
  writeOpenJob,
} from '#test/support/report-support.ts';

const CREATE = '/v1/document/api';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const standardBody = (code: number, error: string, path: string, method: string) => ({
  code,
  error,
  path,
  method,
  timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
  message: expect.any(String),
});

/**
 * Every member of a response schema, each matching only a value the schema accepts: in `toEqual`, a
 * body missing one of them, or carrying one the schema does not name, fails.
 */
const validMembersOf = (schema: { entries: v.ObjectEntries }) =>
  Object.fromEntries(
    Object.entries(schema.entries).map(([name, member]) => [
      name,
      expect.toSatisfy((value: unknown) => v.is(member, value), `a ${name} the schema accepts`),
    ]),
  );

const documents = documentClient();
const jobs = reportJobStore(documents);

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(() => {
  vi.unstubAllEnvs();
});

describe('POST /v1/document/api', () => {
  it('accepts exactly one of ten concurrent requests for a user while its job is open; the 409s name that job', async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId);

    const responses = await Promise.all(
      Array.from({ length: 10 }, () => callApi('POST', CREATE, { token, body: { userId: user!.id } })),
    );

    const accepted = responses.filter((r) => r.status === 202);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(accepted.length + conflicts.length).toBe(10);
    const [first] = accepted;
    const jobId: string = first!.body.jobId;
    expect(jobId).toMatch(UUID_V4);
    expect(first!.body).toEqual({
      jobId,
      status: 'PENDING',
      userId: user!.id,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(first!.headers.get('location')).toBe(`/v1/document/api/${jobId}`);
    expect(first!.headers.get('ratelimit-limit')).toBe('10');
    expect(first!.headers.get('ratelimit-remaining')).toMatch(/^\d$/);
    expect(first!.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    // The local worker runs meanwhile: on a slow machine it can finish the first job before the
    // last request arrives, which may then rightly open a second one. What must never happen is
    // two jobs open at once, so every later job starts only after the one before it finished.
    const acceptedJobs = await Promise.all(accepted.map((r) => jobs.get(r.body.jobId as string)));
    const byCreation = acceptedJobs.map((job) => job!).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    for (let i = 1; i < byCreation.length; i++) {
      const previous = await waitForJob(byCreation[i - 1]!.jobId, token);
      expect(previous.updatedAt <= byCreation[i]!.createdAt).toBe(true);
    }
    const acceptedIds = new Set(acceptedJobs.map((job) => job!.jobId));
    for (const conflict of conflicts) {
      expect(conflict.body).toEqual({ ...standardBody(409, 'CONFLICT', CREATE, 'POST'), jobId: expect.any(String) });
      expect(acceptedIds.has(conflict.body.jobId)).toBe(true);
    }
  });

  it('lets exactly one of ten concurrent job writes for a user through DynamoDB, however they interleave', async () => {
    const orgId = uniqueOrg('reports');
    const writes = await Promise.allSettled(
      Array.from({ length: 10 }, () => writeOpenJob(jobs, { orgId, userId: 'contended' })),
    );

    const written = writes.filter(
      (w): w is PromiseFulfilledResult<Awaited<ReturnType<typeof writeOpenJob>>> => w.status === 'fulfilled',
    );
    const refused = writes.filter((w): w is PromiseRejectedResult => w.status === 'rejected');
    expect(written).toHaveLength(1);
    expect(refused).toHaveLength(9);
    for (const { reason } of refused) {
      expect(reason).toMatchObject({ name: 'OpenJobExistsError', openJobId: written[0]!.value.jobId });
    }
  });

  it('accepts ten requests per organization in ten minutes, then answers 429 with Retry-After', async () => {
    const orgId = uniqueOrg('reports');
    const users = await seedOrganization(orgId, 13);
    const token = await tokenFor(orgId);

    const burst = await Promise.all(
      users.slice(0, 12).map((user) => callApi('POST', CREATE, { token, body: { userId: user.id } })),
    );
    const thirteenth = await callApi('POST', CREATE, { token, body: { userId: users[12]!.id } });

    expect(burst.map((r) => r.status).sort()).toEqual([202, 202, 202, 202, 202, 202, 202, 202, 202, 202, 429, 429]);
    for (const refused of [...burst.filter((r) => r.status === 429), thirteenth]) {
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual(standardBody(429, 'TOO_MANY_REQUESTS', CREATE, 'POST'));
      const retryAfter = refused.headers.get('retry-after');
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThan(590);
      expect(Number(retryAfter)).toBeLessThanOrEqual(600);
      expect(refused.headers.get('ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('ratelimit-limit')).toBe('10');
    }
  });

  it('checks the rate limit before the body: an exhausted organization gets 429 even for a malformed body', async () => {
    const orgId = uniqueOrg('reports');
    const token = await tokenFor(orgId);
    // Every authenticated request spends a token, whatever its outcome.
    for (let i = 0; i < 10; i++) await callApi('POST', CREATE, { token, body: { userId: `nobody-${i}` } });

    const malformed = await callApi('POST', CREATE, {
      token,
      rawBody: '{"userId": ',
      headers: { 'content-type': 'application/json' },
    });

    expect(malformed.status).toBe(429);
  });

  it('answers an unknown user with 404, a userId over 16 characters and a missing body with 400', async () => {
    const orgId = uniqueOrg('reports');
    await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId);

    const unknown = await callApi('POST', CREATE, { token, body: { userId: 'no-such-user' } });
    const tooLong = await callApi('POST', CREATE, { token, body: { userId: 'x'.repeat(17) } });
    const missing = await callApi('POST', CREATE, { token });

    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual(standardBody(404, 'NOT_FOUND', CREATE, 'POST'));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual({
      code: 400,
      errors: [{ field: 'userId', code: 'maxLength', hint: expect.stringContaining('userId') }],
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ code: 400, errors: [expect.objectContaining({ field: 'userId' })] });
  });

  it('needs the reports:write scope', async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId, { scopes: ['reports:read'] });

    const response = await callApi('POST', CREATE, { token, body: { userId: user!.id } });

    expect(response.status).toBe(403);
    expect(response.body).toEqual(standardBody(403, 'FORBIDDEN', CREATE, 'POST'));
  });

  it('replays the 202 to a retry with the same Idempotency-Key instead of creating a second job', async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId);
    const headers = { 'idempotency-key': `report-${randomUUID()}` };

    const first = await callApi('POST', CREATE, { token, body: { userId: user!.id }, headers });
    await waitForJob(first.body.jobId, token);
    // Without the key this would now create a new job: the first one is finished.
    const retry = await callApi('POST', CREATE, { token, body: { userId: user!.id }, headers });

    expect(first.status).toBe(202);
    expect(retry.status).toBe(202);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('location')).toBe(`/v1/document/api/${first.body.jobId}`);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const guard = await documents.send(
      new GetCommand({
        TableName: reportJobsTableName(),
        Key: { pk: `ORG#${orgId}`, sk: `OPEN_JOB#${user!.id}` },
        ConsistentRead: true,
      }),
    );
    expect(guard.Item).toBeUndefined();
  });
});

describe('a report from request to download', () => {
  it('completes, and its fresh pre-signed address serves the exact PDF that was recorded, signed (pdfsig: valid)', async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId);

    const created = await callApi('POST', CREATE, { token, body: { userId: user!.id } });
    expect(created.status).toBe(202);
    const job = await waitForJob(created.body.jobId, token);

    expect(job).toEqual({
      ...validMembersOf(completeReportJobSchema),
      jobId: created.body.jobId,
      status: 'COMPLETE',
      userId: user!.id,
      templateVersion: expect.stringMatching(/\S/),
      createdAt: created.body.createdAt,
      updatedAt: job.completedAt,
    });

    const beforeUrl = Date.now();
    const download = await callApi('GET', `/v1/document/api/${job.jobId}/url`, { token });
    const filename = `report-${user!.id}-${(job.completedAt as string).slice(0, 10).replaceAll('-', '')}.pdf`;
    expect(download.status).toBe(200);
    expect(download.headers.get('cache-control')).toBe('no-store');
    expect(download.body).toEqual({
      url: expect.stringMatching(/^http/),
      expiresInSeconds: 300,
      expiresAt: expect.any(String),
      filename,
    });
    const expiresAt = Date.parse(download.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(beforeUrl + 299_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 301_000);

    const pdf = await fetch(download.body.url);
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(pdf.status).toBe(200);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.length).toBe(job.sizeBytes);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(job.sha256);
    const signature = pdfsig(bytes);
    expect(signature).toContain('Signature Validation: Signature is Valid.');
    expect(signature).toContain(
      'Signer Certificate Common Name: Onboarding reports service, report signing, stage local',
    );
    expect(signature).toContain('Total document signed');
    // Archival and tagged as the worker stores it (contract §21; the structure in detail: tagged-report.test.ts).
    expect(pdfinfo(bytes)).toMatch(/^Tagged: +yes$/mu);
    expect(pdfinfo(bytes, '-meta')).toContain('<pdfaid:part>2</pdfaid:part>');
    expect(pdfinfo(bytes, '-struct-text')).toMatch(/^ {2}H1 \(block\)\n {4}"User status report"\n {2}P \(block\)\n/mu);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="${filename}"`);

    // Addresses are signed per call; the signature carries a time in whole seconds.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const again = await callApi('GET', `/v1/document/api/${job.jobId}/url`, { token });
    expect(again.status).toBe(200);
    expect(again.body.url).not.toBe(download.body.url);
  });

  it('answers the download address of an open job with 422 "report is not ready"', async () => {
    const orgId = uniqueOrg('reports');
    const [pendingUser, startedUser] = await seedOrganization(orgId, 2);
    const token = await tokenFor(orgId);
    const pending = await writeOpenJob(jobs, { orgId, userId: pendingUser!.id });
    const started = await writeOpenJob(jobs, { orgId, userId: startedUser!.id, status: 'IN_PROGRESS' });

    for (const job of [pending, started]) {
      const path = `/v1/document/api/${job.jobId}/url`;
      const response = await callApi('GET', path, { token });
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({
        ...standardBody(422, 'UNPROCESSABLE_ENTITY', path, 'GET'),
        message: 'report is not ready',
      });
    }
    expect((await callApi('GET', `/v1/document/api/${pending.jobId}`, { token })).body.status).toBe('PENDING');
    expect((await callApi('GET', `/v1/document/api/${started.jobId}`, { token })).body.status).toBe('IN_PROGRESS');
  });

  it('answers the download address of a failed job with 422 naming the errorCode', async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId);
    const job = await writeOpenJob(jobs, { orgId, userId: user!.id });
    await jobs.fail(job, 'RENDER_FAILED', new Date());

    const path = `/v1/document/api/${job.jobId}/url`;
    const response = await callApi('GET', path, { token });
    const status = await callApi('GET', `/v1/document/api/${job.jobId}`, { token });

    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      ...standardBody(422, 'UNPROCESSABLE_ENTITY', path, 'GET'),
      errorCode: 'RENDER_FAILED',
    });
    expect(status.body).toMatchObject({ status: 'FAILED', errorCode: 'RENDER_FAILED', durationMs: expect.any(Number) });
    expect(status.body.sha256).toBeUndefined();
  });
});

describe('the report worker', () => {
  it('renders a job once when its message is delivered twice at the same time', async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const job = await writeOpenJob(jobs, { orgId, userId: user!.id });
    const { handler, logger } = await coldStart<SQSEvent, SQSBatchResponse>('process-report-jobs');
    const info = vi.spyOn(logger, 'info');

    const message = { orgId, jobId: job.jobId };
    const results = await Promise.all([
      handler(sqsEvent(reportJobRecord(message)), lambdaContext('ProcessReportJobs')),
      handler(sqsEvent(reportJobRecord(message)), lambdaContext('ProcessReportJobs')),
    ]);

    expect(results).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    const outcomes = info.mock.calls
      .filter(([text]) => text === 'report job processed')
      .map(([, fields]) => fields as { outcome: string; reason?: string });
    expect(outcomes).toHaveLength(2);
    expect(outcomes.filter((o) => o.outcome === 'completed')).toHaveLength(1);
    // A second render would show up as another 'completed' or as 'lost-to-another-writer'.
    expect(outcomes.find((o) => o.outcome !== 'completed')).toMatchObject({
      outcome: 'skipped',
      reason: expect.stringMatching(/^(taken-by-another-attempt|already-finished)$/),
    });
    const stored = await jobs.get(job.jobId);
    expect(stored).toMatchObject({ status: 'COMPLETE', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const object = await s3Client().send(
      new GetObjectCommand({
        Bucket: inject('localEnv').REPORTS_BUCKET_NAME!,
        Key: `reports/${orgId}/${job.jobId}.pdf`,
      }),
    );
    const bytes = await object.Body!.transformToByteArray();
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(stored!.sha256);
  });

  it('fails a job with STORAGE_FAILED when the bucket refuses the PDF, and frees the user for a new request', async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId);
    const job = await writeOpenJob(jobs, { orgId, userId: user!.id });
    const { handler } = await coldStart<SQSEvent, SQSBatchResponse>('process-report-jobs', {
      REPORTS_BUCKET_NAME: `missing-${randomUUID()}`,
    });

    const result = await handler(
      sqsEvent(reportJobRecord({ orgId, jobId: job.jobId })),
      lambdaContext('ProcessReportJobs'),
    );

    expect(result).toEqual({ batchItemFailures: [] });
    const status = await callApi('GET', `/v1/document/api/${job.jobId}`, { token });
    expect(status.body).toMatchObject({
      status: 'FAILED',
      errorCode: 'STORAGE_FAILED',
      durationMs: expect.any(Number),
    });
    const retry = await callApi('POST', CREATE, { token, body: { userId: user!.id } });
    expect(retry.status).toBe(202);
  });

  it('fails a dead-lettered job with INTERNAL_ERROR (message put on the dead-letter queue)', async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId);
    const job = await writeOpenJob(jobs, { orgId, userId: user!.id });
    const env = inject('localEnv');
    const sqs = new SQSClient({
      endpoint: env.AWS_ENDPOINT_URL_SQS,
      region: env.AWS_REGION,
      credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
    });

    await sqs.send(
      new SendMessageCommand({
        QueueUrl: env.REPORT_DLQ_URL,
        MessageBody: JSON.stringify({ orgId, jobId: job.jobId }),
      }),
    );

    const failed = await waitForJob(job.jobId, token, ['FAILED', 'COMPLETE'], 10_000);
    expect(failed).toMatchObject({ status: 'FAILED', errorCode: 'INTERNAL_ERROR' });
    sqs.destroy();
  });
});

describe('jobs past the five-minute deadline', () => {
  it('are failed with TIMED_OUT by the sweep, which releases the guard', async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId);
    const job = await writeOpenJob(jobs, {
      orgId,
      userId: user!.id,
      status: 'IN_PROGRESS',
      createdAt: new Date(Date.now() - 6 * 60_000),
    });
    const { handler } = await coldStart<ScheduledEvent, { timedOut: number }>('sweep-timed-out-report-jobs');

    const result = await handler(scheduledEvent(), lambdaContext('SweepTimedOutReportJobs'));

    expect(result).toEqual({ timedOut: expect.any(Number), skipped: 0 });
    expect(await jobs.get(job.jobId)).toMatchObject({ status: 'FAILED', errorCode: 'TIMED_OUT' });
    const guard = await documents.send(
      new GetCommand({
        TableName: reportJobsTableName(),
        Key: { pk: `ORG#${orgId}`, sk: `OPEN_JOB#${user!.id}` },
        ConsistentRead: true,
      }),
    );
    expect(guard.Item).toBeUndefined();
    const status = await callApi('GET', `/v1/document/api/${job.jobId}`, { token });
    expect(status.body).toMatchObject({ status: 'FAILED', errorCode: 'TIMED_OUT', durationMs: expect.any(Number) });
  });

  it('read as FAILED/TIMED_OUT even before the sweep gets to them', async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const token = await tokenFor(orgId);
    const job = await writeOpenJob(jobs, { orgId, userId: user!.id, createdAt: new Date(Date.now() - 6 * 60_000) });

    const status = await callApi('GET', `/v1/document/api/${job.jobId}`, { token });

    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({ jobId: job.jobId, status: 'FAILED', errorCode: 'TIMED_OUT' });
  });
});

describe('reading jobs', () => {
  it("refuses another organization's job with 403 on status and download address", async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const job = await writeOpenJob(jobs, { orgId, userId: user!.id });
    const stranger = await tokenFor(uniqueOrg('stranger'));

    const status = await callApi('GET', `/v1/document/api/${job.jobId}`, { token: stranger });
    const url = await callApi('GET', `/v1/document/api/${job.jobId}/url`, { token: stranger });

    expect(status.status).toBe(403);
    expect(status.body).toEqual(standardBody(403, 'FORBIDDEN', `/v1/document/api/${job.jobId}`, 'GET'));
    expect(url.status).toBe(403);
    expect(url.body).toEqual(standardBody(403, 'FORBIDDEN', `/v1/document/api/${job.jobId}/url`, 'GET'));
  });

  it.each([
    ['an unknown job id', randomUUID()],
    ['an id that is not a UUID', 'not-a-job-id'],
  ])('answers %s with 404 on status and download address', async (_, jobId) => {
    const token = await tokenFor(uniqueOrg('reports'));

    for (const path of [`/v1/document/api/${jobId}`, `/v1/document/api/${jobId}/url`]) {
      const response = await callApi('GET', path, { token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual(standardBody(404, 'NOT_FOUND', path, 'GET'));
    }
  });

  it('needs the reports:read scope', async () => {
    const orgId = uniqueOrg('reports');
    const [user] = await seedOrganization(orgId, 1);
    const job = await writeOpenJob(jobs, { orgId, userId: user!.id });
    const token = await tokenFor(orgId, { scopes: ['reports:write'] });

    expect((await callApi('GET', `/v1/document/api/${job.jobId}`, { token })).status).toBe(403);
    expect((await callApi('GET', `/v1/document/api/${job.jobId}/url`, { token })).status).toBe(403);
  });
});

function s3Client(): S3Client {
  const env = inject('localEnv');
  return new S3Client({
    endpoint: env.AWS_ENDPOINT_URL_S3,
    region: env.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
  });
}

function scheduledEvent(): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString(),
    region: 'us-east-1',
    resources: ['arn:aws:events:us-east-1:000000000000:rule/sweep'],
    detail: {},
  };
}
