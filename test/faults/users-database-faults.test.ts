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
 * The users database black-holed (a network stall, where users-database-stall.test.ts pauses the
 * processes), then refusing connections (a database that is down), while user-status queries and
 * report requests flow and the worker needs a user. API answers: 200/202 or the contract's 503
 * with no job left behind. A job whose worker could not read its user is retried by SQS and
 * completes once the database is back.
 */

/** The tier's visibility timeout (21 s) plus a render. */
const REDELIVERY_MS = 40_000;

describe('the users database stalled, then down, while requests and reports flow', () => {
  const orgId = uniqueOrg('sqlfault');
  let token: string;
  let receiver: WebhookReceiver;
  let userIds: string[];
  const queuedJobIds: string[] = [];
  const answers: TimedResponse[] = [];
  let recoveredAt = 0;

  const queueJob = async (userId: string) => {
    const job = await writeOpenJob(reportJobStore(), { orgId, userId });
    await queueReportJob({ orgId, jobId: job.jobId });
    queuedJobIds.push(job.jobId);
  };
  const traffic = (phase: string, userId: string) => [
    timed(`user status, ${phase}`, callApi('POST', '/v1/user-status', { token, body: {} })),
    timed(`report, ${phase}`, callApi('POST', '/v1/document/api', { token, body: { userId } })),
  ];

  beforeAll(async () => {
    token = await tokenFor(orgId);
    userIds = (await seedOrganization(orgId, 4)).map((user) => user.id);
    receiver = await reportEventsReceiver(token);
    // Open connections first: the faults must hit pooled connections as well as new ones.
    expect((await callApi('POST', '/v1/user-status', { token, body: {} })).status).toBe(200);

    await fault('postgres', 'stall');
    try {
      await queueJob(userIds[2]!);
      answers.push(...(await Promise.all(traffic('database stalled', userIds[0]!))));
      const stalled = await fault('postgres', 'refuse');
      expect(stalled.stalledConnections, 'the functions reached the stalled database').toBeGreaterThan(0);
      await queueJob(userIds[3]!);
      answers.push(...(await Promise.all(traffic('database down', userIds[1]!))));
      await sleep(1_000);
    } finally {
      await fault('postgres', 'pass');
      recoveredAt = Date.now();
    }
  }, 60_000);

  afterAll(async () => {
    await fault('postgres', 'pass');
    await receiver?.close();
  });

  it('answers every request with the contract’s 503 in time', () => {
    expectContractAnswers(answers, 200);
    expect(answers.map((answer) => answer.status)).toEqual([503, 503, 503, 503]);
  });

  it('once the database is back: answers again, the 503s left no job, and every job ends with one PDF and one event', async () => {
    await sleep(Math.max(0, recoveredAt + longestRetryAfterMs(answers) - Date.now()));
    expect((await callApi('POST', '/v1/user-status', { token, body: {} })).status).toBe(200);
    const listed = await callApi('GET', '/v1/document/api?limit=100', { token });
    expect((listed.body.results as Array<{ jobId: string }>).map((job) => job.jobId).sort()).toEqual(
      [...queuedJobIds].sort(),
    );

    const jobIds = [...queuedJobIds];
    for (const userId of userIds.slice(0, 2)) {
      const retried = await callApi('POST', '/v1/document/api', { token, body: { userId } });
      expect.soft(retried.status, userId).toBe(202);
      jobIds.push(retried.body.jobId as string);
    }
    const jobs = await finalJobs(token, jobIds, REDELIVERY_MS);
    expect(jobs.map((job) => job.status)).toEqual(Array(4).fill('COMPLETE'));
    await expectOnePdfPerCompleteJob(orgId, jobs);
    await expectOneEventPerFinishedJob(receiver, jobs);
  }, 90_000);
});
