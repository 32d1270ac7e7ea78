import type { SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import type { ReportJobMessage } from '../domain/reports/ports.ts';

const reportJobMessageSchema = v.object({
  orgId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  jobId: v.pipe(v.string(), v.uuid()),
});

/** Retries before SQS moves a message to the dead-letter queue (the queue's maxReceiveCount). */
export const MAX_RECEIVES = 3;

/** The job a queue record names, or undefined for a body that is not one of our messages. */
export function reportJobMessageFrom(record: SQSRecord): ReportJobMessage | undefined {
  try {
    const parsed = v.safeParse(reportJobMessageSchema, JSON.parse(record.body));
    return parsed.success ? parsed.output : undefined;
  } catch {
    return undefined;
  }
}

export const isFinalReceive = (record: SQSRecord): boolean =>
  Number(record.attributes.ApproximateReceiveCount ?? '1') >= MAX_RECEIVES;
