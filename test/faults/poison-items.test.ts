import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ScheduledEvent } from 'aws-lambda';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { tokenFor, uniqueOrg, callApi } from '#test/support/api-client.ts';
import {
  coldStart,
  documentClient,
  lambdaContext,
  reportJobsTableName,
  reportJobStore,
  seedOrganization,
  writeOpenJob,
} from '#test/support/report-support.ts';

const scheduledEvent = (): ScheduledEvent => ({
  version: '0',
  id: randomUUID(),
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '000000000000',
  time: new Date().toISOString(),
  region: 'us-east-1',
  resources: ['arn:aws:events:us-east-1:000000000000:rule/sweep'],
  detail: {},
});

afterAll(() => vi.unstubAllEnvs());

describe('a job item the sweep cannot update (a poison item)', () => {
  it('is skipped and counted, and the abandoned job behind it is still timed out', async () => {
    const orgId = uniqueOrg('poison');
    const [poisonUser, normalUser] = await seedOrganization(orgId, 2);
    const token = await tokenFor(orgId);
    const jobs = reportJobStore();
    const longAgo = new Date(Date.now() - 6 * 60_000);
    // Older, so the sweep meets it first; corrupt (a start time that is no time), so failing it is refused.
    const poison = await writeOpenJob(jobs, {
      orgId,
      userId: poisonUser!.id,
      createdAt: new Date(longAgo.getTime() - 1_000),
    });
    await documentClient().send(
      new UpdateCommand({
        TableName: reportJobsTableName(),
        Key: { pk: `JOB#${poison.jobId}`, sk: 'JOB' },
        UpdateExpression: 'SET startedAt = :corrupt',
        ExpressionAttributeValues: { ':corrupt': 'not-a-time' },
      }),
    );
    const abandoned = await writeOpenJob(jobs, { orgId, userId: normalUser!.id, createdAt: longAgo });
    const { handler } = await coldStart<ScheduledEvent, { timedOut: number; skipped: number }>(
      'sweep-timed-out-report-jobs',
    );

    const result = await handler(scheduledEvent(), lambdaContext('SweepTimedOutReportJobs'));

    expect(result.skipped).toBeGreaterThanOrEqual(1);
    expect((await jobs.get(abandoned.jobId))?.status).toBe('FAILED');
    expect((await jobs.get(poison.jobId))?.status).toBe('PENDING');
    const read = await callApi('GET', `/v1/document/api/${abandoned.jobId}`, { token });
    expect(read.body).toMatchObject({ status: 'FAILED', errorCode: 'TIMED_OUT' });
  });
});
