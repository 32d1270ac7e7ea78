import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { EventBridgeEvent } from 'aws-lambda';
import { containerDynamoDbClients, createSnsClient } from '#shared/adapters/aws-clients.ts';
import { DynamoDbEmailReputationStore } from '#shared/adapters/dynamodb/email-reputation-store.ts';
import { emailPauseAlertsFor } from '#shared/adapters/email-pause-alerts.ts';
import { emailEventFrom } from '#shared/adapters/ses/ses-events.ts';
import { loadBackgroundFunctionConfig } from '#shared/wiring/function-config.ts';
import { processEnvironment } from '#shared/config/process-environment.ts';
import { systemClock } from '#shared/domain/clock.ts';
import { countEmailEvent, type EmailEventOutcome } from '#shared/domain/onboarding/email-reputation.ts';
import { logger } from '#shared/observability/logger.ts';
import { publishRecordedMetrics } from '#shared/observability/metrics.ts';
import { traceInvocation } from '#shared/observability/tracer.ts';

const config = loadBackgroundFunctionConfig('CountEmailEvents');
const count = countEmailEvent({
  store: new DynamoDbEmailReputationStore(containerDynamoDbClients().documents, config.ONBOARDING_TOKENS_TABLE_NAME),
  clock: systemClock,
  alerts: emailPauseAlertsFor(createSnsClient(), {
    topicArn: config.EMAIL_PAUSE_TOPIC_ARN,
    tableName: config.ONBOARDING_TOKENS_TABLE_NAME,
    stage: processEnvironment.stage(),
  }),
});

/**
 * One SES event of the configuration set (EventBridge: `aws.ses` send, bounce and complaint):
 * counted in its organization's reputation; a pause alerts the operator. A failure throws, and
 * EventBridge's asynchronous invocation retries it; counting the same event again changes nothing.
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
    return count(emailEvent);
  });
