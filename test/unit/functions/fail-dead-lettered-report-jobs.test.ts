import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics } from '#shared/observability/metrics.ts';
import { DEAD_LETTER_MAX_RECEIVES } from '#shared/queue/report-job-messages.ts';
import { lambdaContext } from '#test/support/api-event.ts';

const documentsMock = mockClient(DynamoDBDocumentClient);
type Handler = (event: SQSEvent, context: ReturnType<typeof lambdaContext>) => Promise<SQSBatchResponse>;
let handler: Handler;

const record = (receiveCount: number): SQSRecord =>
  ({
    messageId: `m-${receiveCount}`,
    body: JSON.stringify({ orgId: 'acme', jobId: '1b4e28ba-2fa1-4d2b-883f-0016d3cca427' }),
    attributes: { ApproximateReceiveCount: String(receiveCount) },
    eventSource: 'aws:sqs',
  }) as unknown as SQSRecord;

beforeAll(async () => {
  Object.assign(process.env, {
    REPORT_JOBS_TABLE_NAME: 'ReportJobs',
    AWS_REGION: 'eu-west-1',
    WEBHOOK_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/000000000000/webhook-deliveries',
    WEBHOOKS_TABLE_NAME: 'Webhooks',
  });
  ({ handler } = (await import('#functions/fail-dead-lettered-report-jobs.ts')) as unknown as {
    handler: Handler;
  });
});

beforeEach(() => {
  vi.restoreAllMocks();
  documentsMock.reset();
  vi.spyOn(logger, 'error').mockImplementation(() => undefined);
  vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
});

afterAll(() => {
  documentsMock.restore();
});

describe('the dead-letter handler', () => {
  it('hands a message it cannot process back to SQS while attempts remain', async () => {
    documentsMock.on(GetCommand).rejects(new Error('item cannot be read'));

    // Powertools reports a batch whose every record failed by throwing: SQS retries the batch.
    await expect(handler({ Records: [record(DEAD_LETTER_MAX_RECEIVES - 1)] }, lambdaContext())).rejects.toThrow(
      /All records failed/,
    );
  });

  it('gives a message up after the last attempt: an ERROR line and the abandoned-message metric, no retry', async () => {
    documentsMock.on(GetCommand).rejects(new Error('item cannot be read'));
    const addMetric = vi.spyOn(metrics, 'addMetric');

    const result = await handler({ Records: [record(DEAD_LETTER_MAX_RECEIVES)] }, lambdaContext());

    expect(result.batchItemFailures).toEqual([]);
    expect(logger.error).toHaveBeenCalledWith(
      'giving up a dead-lettered report job after repeated failures',
      expect.objectContaining({ jobId: '1b4e28ba-2fa1-4d2b-883f-0016d3cca427' }),
    );
    expect(addMetric).toHaveBeenCalledWith(BusinessMetric.DeadLetterMessagesAbandoned, 'Count', 1);
  });
});
