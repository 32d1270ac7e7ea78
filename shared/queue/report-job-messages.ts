import type { SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { queueRecordBody } from '#shared/queue/queue-record-body.ts';
import type { ReportJobMessage } from '#shared/domain/reports/ports.ts';
import { isOrganizationId } from '#shared/domain/identity/organization-claim.ts';
import { tenantOfKey } from '#shared/domain/identity/tenant.ts';

const reportJobMessageSchema = v.object({
  // A tenant's key: the organization id in live, longer by its suffix in the sandbox.
  orgId: v.pipe(
    v.string(),
    v.check((key) => isOrganizationId(tenantOfKey(key).orgId)),
  ),
  jobId: v.pipe(v.string(), v.uuid()),
});

/** Retries before SQS moves a message to the dead-letter queue (the queue's maxReceiveCount). */
export const MAX_RECEIVES = 3;

/** The job a queue record names, or undefined for a body that is not one of our messages. */
export const reportJobMessageFrom: (record: SQSRecord) => ReportJobMessage | undefined =
  queueRecordBody(reportJobMessageSchema);

const receiveCount = (record: SQSRecord): number => Number(record.attributes.ApproximateReceiveCount ?? '1');

export const isFinalReceive = (record: SQSRecord): boolean => receiveCount(record) >= MAX_RECEIVES;

/**
 * The dead-letter handler tries a message this many receives at most (counting from the first
 * receive on the main queue, or on the dead-letter queue if SQS starts the count afresh there),
 * then gives it up with an ERROR log and a metric instead of retrying it every visibility timeout
 * for the dead-letter queue's whole retention.
 */
export const DEAD_LETTER_MAX_RECEIVES = MAX_RECEIVES + 5;

export const isLastDeadLetterReceive = (record: SQSRecord): boolean => receiveCount(record) >= DEAD_LETTER_MAX_RECEIVES;
