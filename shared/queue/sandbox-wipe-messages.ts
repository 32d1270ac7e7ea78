import type { SQSRecord } from 'aws-lambda';
import * as v from 'valibot';
import { queueRecordBody } from '#shared/queue/queue-record-body.ts';
import type { SandboxWipeMessage } from '#shared/domain/sandbox/sandbox-wipe.ts';

/** The wipe consumer's Lambda timeout: a run sends its continuation WIPE_CONTINUE_RESERVE_MS before it. */
export const SANDBOX_WIPE_TIMEOUT_SECONDS = 60;
/** What a run keeps for its last page (a users transaction, a BatchWriteItem round) and its continuation. */
export const WIPE_CONTINUE_RESERVE_MS = 15_000;
/** Six times the consumer's timeout, as AWS advises for an event source's queue. */
export const SANDBOX_WIPE_VISIBILITY_SECONDS = 6 * SANDBOX_WIPE_TIMEOUT_SECONDS;
/** Receives before SQS moves a wipe's message to the dead-letter queue; the next request sends it again. */
export const SANDBOX_WIPE_MAX_RECEIVES = 5;

const sandboxWipeMessageSchema = v.object({
  tenantKey: v.pipe(v.string(), v.minLength(1), v.maxLength(80)),
  wipeId: v.pipe(v.string(), v.uuid()),
});

/** The wipe a queue record names, or undefined for a body that is not one of our messages. */
export const sandboxWipeMessageFrom: (record: SQSRecord) => SandboxWipeMessage | undefined =
  queueRecordBody(sandboxWipeMessageSchema);
