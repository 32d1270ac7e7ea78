import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { tenantKey } from '#shared/domain/identity/tenant.ts';
import { reportJobMessageFrom } from '#shared/queue/report-job-messages.ts';

const JOB_ID = '6f1c1a4e-8d5b-4c1e-9a3e-2f4b5c6d7e8f';
const recordOf = (body: unknown) => ({ body: JSON.stringify(body) }) as SQSRecord;

describe('reportJobMessageFrom', () => {
  it('reads the job of any tenant: a live key, and a sandbox key of an organization id at its longest (64)', () => {
    const orgId = 'o'.repeat(64);
    for (const key of [orgId, tenantKey({ orgId, mode: 'sandbox' })]) {
      expect(reportJobMessageFrom(recordOf({ orgId: key, jobId: JOB_ID }))).toEqual({ orgId: key, jobId: JOB_ID });
    }
  });

  it('discards a body whose key is no tenant’s', () => {
    for (const orgId of ['', 'o'.repeat(65), 'has space', `${'o'.repeat(65)}~sandbox`, '~sandbox']) {
      expect(reportJobMessageFrom(recordOf({ orgId, jobId: JOB_ID })), orgId).toBeUndefined();
    }
  });
});
