import type { Context, SQSRecord } from 'aws-lambda';
import { runSandboxWipe } from '#shared/domain/sandbox/wipe-sandbox.ts';
import { logger } from '#shared/observability/logger.ts';
import { sandboxWipeMessageFrom, WIPE_CONTINUE_RESERVE_MS } from '#shared/queue/sandbox-wipe-messages.ts';
import { createSqsBatchHandler } from '#shared/queue/sqs-batch-handler.ts';
import { loadBackgroundFunctionConfig } from '#shared/wiring/function-config.ts';
import { sandboxDataStoresFor, sandboxWipeRequestPortsFor } from '#shared/wiring/sandbox-wipes.ts';

// Its needs' variables: the stores it empties, the eraser's connection, and its own queue, where a run whose time
// runs out sends the wipe's continuation.
const config = loadBackgroundFunctionConfig('ProcessSandboxWipes');
const { wipes, queue, clock } = sandboxWipeRequestPortsFor(config);
const wipe = runSandboxWipe({ wipes, queue, clock, stores: sandboxDataStoresFor(config) });

async function processRecord(record: SQSRecord, lambdaContext: Context): Promise<void> {
  const message = sandboxWipeMessageFrom(record);
  if (!message) {
    logger.error('discarding a queue message that is not a sandbox wipe', { messageId: record.messageId });
    return;
  }
  const result = await wipe(message, () => lambdaContext.getRemainingTimeInMillis() > WIPE_CONTINUE_RESERVE_MS);
  // Ids and counts only.
  logger.info('sandbox wipe run', { tenantKey: message.tenantKey, wipeId: message.wipeId, ...result });
}

/** DELETE /v1/sandbox's consumer: a failed run's message comes back, and the next run finishes the wipe. */
export const handler = createSqsBatchHandler(processRecord);
