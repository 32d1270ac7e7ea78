import { performance } from 'node:perf_hooks';
import { REPORT_REQUEST_RATE_LIMIT } from '#shared/domain/limits/report-rate-limit.ts';
import { summarize, type Row } from '#bench/report.ts';
import { callLocalApi, requestReport, seedOrganization, waitUntilComplete } from '#bench/support/local-api.ts';
import type { Measurement } from '#bench/support/measurement.ts';

/**
 * 6. A report job end to end on the emulators: POST /v1/document/api until GET says COMPLETE,
 * through the router, DynamoDB Local, the SQS emulator, the worker (PDF render, S3 upload) and
 * back, one job at a time. Status is polled every 20 ms, so a figure is at most that late.
 * Baseline: one GET status round trip of a finished job. Organizations hold at most as many jobs
 * as the rate limit allows, so it never refuses one.
 */
const JOBS = 20;
const WARMUP_JOBS = 1;
const POLL = { intervalMs: 20, timeoutMs: 30_000 };
const STATUS_CALLS = 30;
const MAX_MS = 1_500;

export default {
  title: '6 report end to end',
  async run(context) {
    const stack = await context.localStack();
    const perOrg = REPORT_REQUEST_RATE_LIMIT.capacity;
    const jobTimes: number[] = [];
    let organization: { users: Array<{ id: string }>; token: string } | undefined;
    let finished: { jobId: string; token: string } | undefined;
    for (let job = 0; job < WARMUP_JOBS + JOBS; job++) {
      if (job % perOrg === 0) {
        const orgId = `bench-e2e-${context.runId}-${job / perOrg}`;
        organization = {
          users: await seedOrganization(context, orgId, perOrg),
          token: await stack.issueToken({ orgId }),
        };
      }
      const { users, token } = organization!;
      const startedAt = performance.now();
      const jobId = await requestReport(stack.baseUrl, users[job % perOrg]!.id, token);
      await waitUntilComplete(stack.baseUrl, jobId, token, POLL);
      if (job >= WARMUP_JOBS) jobTimes.push(performance.now() - startedAt);
      finished = { jobId, token };
    }
    context.log(`end to end: ${jobTimes.length} jobs timed`);
    if (!finished) throw new Error('no job ran');
    const statusTimes: number[] = [];
    for (let i = 0; i < STATUS_CALLS; i++) {
      const startedAt = performance.now();
      const { status } = await callLocalApi(stack.baseUrl, 'GET', `/v1/document/api/${finished.jobId}`, {
        token: finished.token,
      });
      statusTimes.push(performance.now() - startedAt);
      if (status !== 200) throw new Error(`GET status answered ${status}`);
    }
    return [
      {
        measurement: this.title,
        subject: `POST report -> COMPLETE (${JOBS} jobs)`,
        unit: 'ms',
        value: summarize(jobTimes, { p99: true }),
        baseline: { subject: 'GET status', value: summarize(statusTimes) },
        budget: { on: 'median', max: MAX_MS },
      },
    ] satisfies Row[];
  },
} satisfies Measurement;
