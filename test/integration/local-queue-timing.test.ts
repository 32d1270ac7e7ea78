import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, inject, it } from 'vitest';
import {
  DEAD_LETTER_QUEUE_VISIBILITY_SECONDS,
  REPORT_QUEUE_VISIBILITY_SECONDS,
  WORKER_TIMEOUT_SECONDS,
} from '#shared/queue/report-pipeline-timing.ts';

/**
 * The local stack's queues keep the deployed ones' timings (the same constants; the infra tier pins
 * the template to them), so a stall behaves locally as in AWS.
 */
describe('report queue timings', () => {
  const sqs = () => {
    const env = inject('localEnv');
    return new SQSClient({
      endpoint: env.AWS_ENDPOINT_URL_SQS,
      region: env.AWS_REGION,
      credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! },
    });
  };
  const visibilityOf = async (url: string) =>
    Number(
      (await sqs().send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['VisibilityTimeout'] })))
        .Attributes!.VisibilityTimeout,
    );

  it('are the deployed ones: visibility six times the consuming function’s timeout', async () => {
    const env = inject('localEnv');
    expect(await visibilityOf(env.REPORT_QUEUE_URL!)).toBe(REPORT_QUEUE_VISIBILITY_SECONDS);
    expect(await visibilityOf(env.REPORT_DLQ_URL!)).toBe(DEAD_LETTER_QUEUE_VISIBILITY_SECONDS);

    expect(REPORT_QUEUE_VISIBILITY_SECONDS).toBe(6 * WORKER_TIMEOUT_SECONDS);
  });
});
