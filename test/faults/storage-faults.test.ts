import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { seedOrganization, waitForJob } from '#test/support/report-support.ts';
import {
  expectContractAnswers,
  expectOneEventPerFinishedJob,
  expectOnePdfPerCompleteJob,
  fault,
  finalJobs,
  reportEventsReceiver,
  sleep,
  timed,
  type TimedResponse,
  type WebhookReceiver,
} from './fault-support.ts';

/**
 * S3 black-holed, then answering 503, while report jobs are requested and rendered. The API
 * never calls S3 on a request (a download address is signed locally), so every answer is the
 * contract's success; the worker's PUT fails after its bounded retries, the job goes back to the
 * queue, and once S3 is back every job ends COMPLETE (or FAILED with a documented code), with
 * one PDF per COMPLETE job, no other object, and one webhook event per job.
 */

/** The worker bounds all attempts of one PUT at 8 s (shared/adapters/s3/report-storage.ts). */
const STORAGE_GIVE_UP_MS = 8_000;
/** The tier's visibility timeout (21 s) plus a render and a PUT. */
const REDELIVERY_MS = 40_000;

describe('S3 stalled, then failing, while reports are rendered', () => {
  const orgId = uniqueOrg('s3fault');
  let token: string;
  let receiver: WebhookReceiver;
  let userIds: string[];
  const answers: TimedResponse[] = [];
  const jobIds: string[] = [];

  const requestReport = async (userId: string, label: string) => {
    const response = await timed(label, callApi('POST', '/v1/document/api', { token, body: { userId } }));
    answers.push(response);
    if (response.status === 202) jobIds.push(response.body.jobId as string);
    return response;
  };

  beforeAll(async () => {
    token = await tokenFor(orgId);
    userIds = (await seedOrganization(orgId, 5)).map((user) => user.id);
    receiver = await reportEventsReceiver(token);
    // One report finished before the faults: its download address must keep working during them.
    const before = await requestReport(userIds[0]!, 'report before the faults');
    expect(before.status).toBe(202);
    await waitForJob(before.body.jobId as string, token);

    await fault('s3', 'stall');
    try {
      await Promise.all([
        requestReport(userIds[1]!, 'report, S3 stalled'),
        requestReport(userIds[2]!, 'report, S3 stalled'),
      ]);
      answers.push(
        await timed('download address, S3 stalled', callApi('GET', `/v1/document/api/${jobIds[0]}/url`, { token })),
      );
      await sleep(STORAGE_GIVE_UP_MS + 1_000);
      const stalled = await fault('s3', 'http-503');
      expect(stalled.stalledConnections, 'the worker reached the stalled S3').toBeGreaterThan(0);
      await Promise.all([
        requestReport(userIds[3]!, 'report, S3 failing'),
        requestReport(userIds[4]!, 'report, S3 failing'),
      ]);
      await sleep(3_000);
    } finally {
      const failing = await fault('s3', 'pass');
      expect(failing.refusedWith503, 'the worker reached the failing S3').toBeGreaterThan(0);
    }
  }, 60_000);

  afterAll(async () => {
    await fault('s3', 'pass');
    await receiver?.close();
  });

  it('answers every request with the contract’s success within the function’s budget', () => {
    const reports = answers.filter((answer) => answer.label.startsWith('report'));
    expectContractAnswers(reports, 202);
    expect(reports.map((answer) => answer.status)).toEqual(Array(5).fill(202));
    const download = answers.find((answer) => answer.label.startsWith('download'))!;
    expectContractAnswers([download], 200);
    expect(download.status).toBe(200);
  });

  it('after recovery every job ends COMPLETE or FAILED, one PDF per COMPLETE job, one event per job', async () => {
    const jobs = await finalJobs(token, jobIds, REDELIVERY_MS);
    await expectOnePdfPerCompleteJob(orgId, jobs);
    await expectOneEventPerFinishedJob(receiver, jobs);
    // A PUT that failed for a while is retried, not given up: S3 was back well within the receives.
    expect(jobs.map((job) => job.status)).toEqual(Array(5).fill('COMPLETE'));
  }, 60_000);
});
