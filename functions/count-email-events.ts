import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import * as v from 'valibot';
import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbEmailReputationStore } from '#shared/adapters/dynamodb/email-reputation-store.ts';
import { emailEventFrom } from '#shared/adapters/ses/ses-events.ts';
import { loadConfig, requiredString } from '#shared/config/load-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { countEmailEvent, type EmailEventOutcome } from '#shared/domain/onboarding/email-reputation.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit, publishRecordedMetrics } from '#shared/observability/metrics.ts';
import { traceInvocation } from '#shared/observability/tracer.ts';

const config = loadConfig(v.object({ ONBOARDING_TOKENS_TABLE_NAME: requiredString('ONBOARDING_TOKENS_TABLE_NAME') }));
const count = countEmailEvent({
  store: new DynamoDbEmailReputationStore(containerDynamoDbClients().documents, config.ONBOARDING_TOKENS_TABLE_NAME),
  clock: systemClock,
});

/**
 * One SES event of the configuration set (EventBridge: `aws.ses` send, bounce and complaint):
 * counted in its organization's reputation. A failure throws, and EventBridge's asynchronous
 * invocation retries it; counting the same event again changes nothing.
 */
export const handler = middy<EventBridgeEvent<string, unknown>, EmailEventOutcome | 'ignored'>()
  .use(traceInvocation())
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishRecordedMetrics())
  .handler(async (event) => {
    const emailEvent = emailEventFrom(event.detail);
    if ('ignored' in emailEvent) {
      logger.info('SES event not counted', { reason: emailEvent.ignored, detailType: event['detail-type'] });
      return 'ignored';
    }
    const outcome = await count(emailEvent);
    if (outcome === 'paused') {
      metrics.addMetric(BusinessMetric.EmailPauses, MetricUnit.Count, 1);
      logger.warn("an organization's e-mail is paused for its bounces or complaints", { orgId: emailEvent.orgId });
    }
    return outcome;
  });
