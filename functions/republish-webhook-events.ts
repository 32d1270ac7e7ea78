import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { BACKGROUND_RESERVE_MS, runBeforeTimeout } from '#shared/support/request-deadline.ts';
import { webhookEventPublishing } from '#shared/wiring/webhook-events.ts';
import { loadBackgroundFunctionConfig } from '#shared/wiring/function-config.ts';
import { republishPendingEvents } from '#shared/domain/webhooks/republish-pending-events.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit, publishRecordedMetrics } from '#shared/observability/metrics.ts';
import { traceInvocation } from '#shared/observability/tracer.ts';
import { WEBHOOK_REPUBLISH_BATCH_SIZE } from '#shared/queue/webhook-messages.ts';

// The same queue and pending events the publishing functions use.
const { queue, pending } = webhookEventPublishing(loadBackgroundFunctionConfig('RepublishWebhookEvents'));
const republish = republishPendingEvents({ pending, queue, batchSize: WEBHOOK_REPUBLISH_BATCH_SIZE });

/** Runs every minute: hands the pending events to the webhook queue, batch after batch, while it takes them. */
export const handler = middy<ScheduledEvent, { republished: number; stillPending: number }>()
  .use(traceInvocation())
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishRecordedMetrics())
  .handler(async (_event, context) => {
    const result = await runBeforeTimeout(context, BACKGROUND_RESERVE_MS, async () => {
      let republished = 0;
      for (;;) {
        const batch = await republish();
        republished += batch.republished;
        if (batch.refusedBy !== undefined || batch.republished < WEBHOOK_REPUBLISH_BATCH_SIZE) {
          return { republished, stillPending: batch.stillPending, refusedBy: batch.refusedBy };
        }
      }
    });
    if (result.republished > 0) {
      logger.info('pending webhook events queued', { republished: result.republished });
      metrics.addMetric(BusinessMetric.WebhookEventsRepublished, MetricUnit.Count, result.republished);
    }
    if (result.refusedBy !== undefined) {
      logger.warn('webhook queue still refuses events; they stay pending until the next run', {
        stillPending: result.stillPending,
        error: result.refusedBy as Error,
      });
    }
    return { republished: result.republished, stillPending: result.stillPending };
  });
