import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { reportJobStore, seedOrganization, writeOpenJob } from '#test/support/report-support.ts';
import {
  expectContractAnswers,
  expectOneEventPerFinishedJob,
  expectOnePdfPerCompleteJob,
  fault,
  finalJobs,
  longestRetryAfterMs,
  queueReportJob,
  reportEventsReceiver,
  sleep,
  timed,
  type TimedResponse,
  type WebhookReceiver,
} from './fault-support.ts';

/**
 * SQS black-holed, then answering 503, for the functions (the stack's own pollers keep receiving,
 * as Lambda's event source mapping is not the functions' client). A report job is confirmed only
 * once SQS accepted its message, so each request is a 202 or the contract's 503 leaving no job.
 * A job that finishes while the webhook queue is unreachable still has its event delivered once
 * SQS is back, with the same event id.
 */

describe('SQS stalled, then failing, while reports are requested and finished', () => {
  const orgId = uniqueOrg('sqsfault');
  let token: string;
  let receiver: WebhookReceiver;
  let userIds: string[];
  let finishedDuringStall: string;
  const answers: TimedResponse[] = [];
  let recoveredAt = 0;

  const requestReport = (userId: string, label: string) =>
    timed(label, callApi('POST', '/v1/document/api', { token, body: { userId } }));

  beforeAll(async () => {
    token = await tokenFor(orgId);
    userIds = (await seedOrganization(orgId, 5)).map((user) => user.id);
    receiver = await reportEventsReceiver(token);
    // Queued before the fault (straight onto the queue): the worker finishes it while SQS is stalled.
    const queued = await writeOpenJob(reportJobStore(), { orgId, userId: userIds[4]! });
    finishedDuringStall = queued.jobId;

    await fault('sqs', 'stall');
    try {
      await queueReportJob({ orgId, jobId: queued.jobId });
      answers.push(
        ...(await Promise.all([
          requestReport(userIds[0]!, 'report, SQS stalled'),
          requestReport(userIds[1]!, 'report, SQS stalled'),
          timed('list reports, SQS stalled', callApi('GET', '/v1/document/api', { token })),
        ])),
      );
      const stalled = await fault('sqs', 'http-503');
      expect(stalled.stalledConnections, 'the functions reached the stalled SQS').toBeGreaterThan(0);
      answers.push(
        ...(await Promise.all([
          requestReport(userIds[2]!, 'report, SQS failing'),
          requestReport(userIds[3]!, 'report, SQS failing'),
        ])),
      );
    } finally {
      const failing = await fault('sqs', 'pass');
      recoveredAt = Date.now();
      expect(failing.refusedWith503, 'the functions reached the failing SQS').toBeGreaterThan(0);
    }
  }, 60_000);

  afterAll(async () => {
    await fault('sqs', 'pass');
    await receiver?.close();
  });

  it('answers every report request with the contract’s 503 in time, and reads with 200', () => {
    const creates = answers.filter((answer) => answer.label.startsWith('report'));
    expectContractAnswers(creates, 202);
    expect(creates.map((answer) => answer.status)).toEqual([503, 503, 503, 503]);
    const list = answers.find((answer) => answer.label.startsWith('list'))!;
    expectContractAnswers([list], 200);
    expect(list.status).toBe(200);
  });

  it('left no job of a 503 behind: the retries are accepted, and every job ends with one PDF and one event', async () => {
    await sleep(Math.max(0, recoveredAt + longestRetryAfterMs(answers) - Date.now()));
    const listed = await callApi('GET', '/v1/document/api?limit=100', { token });
    expect((listed.body.results as Array<{ jobId: string }>).map((job) => job.jobId)).toEqual([finishedDuringStall]);

    const jobIds = [finishedDuringStall];
    for (const userId of userIds.slice(0, 4)) {
      const retried = await callApi('POST', '/v1/document/api', { token, body: { userId } });
      expect.soft(retried.status, `${userId}: ${JSON.stringify(retried.body)}`).toBe(202);
      jobIds.push(retried.body.jobId as string);
    }
    const jobs = await finalJobs(token, jobIds, 30_000);
    expect(jobs.map((job) => job.status)).toEqual(Array(5).fill('COMPLETE'));
    await expectOnePdfPerCompleteJob(orgId, jobs);
    await expectOneEventPerFinishedJob(receiver, jobs, 45_000);
  }, 90_000);
});
