import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import type { EmailPauseAlert, EmailPauseAlerts } from '#shared/domain/onboarding/email-reputation.ts';
import { logger } from '#shared/observability/logger.ts';
import { BusinessMetric, metrics, MetricUnit } from '#shared/observability/metrics.ts';

export interface EmailPauseAlertOptions {
  /** The operator's alarm topic; a stage without `alarmEmail` has none, and its pauses page nobody by e-mail. */
  topicArn: string | undefined;
  /** The OnboardingTokens table, which the resume command is pointed at. */
  tableName: string;
  stage: string;
}

/** SNS refuses a longer subject. */
const SNS_SUBJECT_MAX_LENGTH = 100;

/** The counter's warning line for a pause; the operations guide's query looks for it. */
export const EMAIL_PAUSED_LOG_MESSAGE = "an organization's e-mail is paused for its bounces or complaints";

/**
 * Contract §27: every pause alarms the operator, naming the organization, which a CloudWatch alarm's
 * message cannot carry and a metric dimension must not. So each pause is counted in `EmailPauses`
 * (service and stage only), whose alarm on the same topic pages even when the message below is
 * lost, and is published as a message of its own on the alarm topic: the organization, why, its
 * figures and the command that resumes it. A message SNS refuses is logged, not thrown: the pause
 * is stored, and a retried event would not publish it again.
 */
export function emailPauseAlertsFor(sns: SNSClient, options: EmailPauseAlertOptions): EmailPauseAlerts {
  return {
    emailPaused: async (alert) => {
      const { orgId, pause, figures } = alert;
      metrics.addMetric(BusinessMetric.EmailPauses, MetricUnit.Count, 1);
      logger.warn(EMAIL_PAUSED_LOG_MESSAGE, {
        orgId,
        reason: pause.reason,
        sent: figures.sent,
        bounces: figures.bounces,
        complaints: figures.complaints,
      });
      if (!options.topicArn) return;
      try {
        await sns.send(
          new PublishCommand({
            TopicArn: options.topicArn,
            Subject: pauseSubject(orgId, options.stage),
            Message: pauseMessage(alert, options),
          }),
        );
      } catch (error) {
        logger.error('could not publish the e-mail pause alert; the EmailPauses alarm pages without the organization', {
          orgId,
          error: error as Error,
        });
      }
    },
  };
}

function pauseSubject(orgId: string, stage: string): string {
  const subject = `E-mail paused: ${orgId} (${stage})`;
  return subject.length <= SNS_SUBJECT_MAX_LENGTH ? subject : `E-mail paused: ${orgId}`;
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

function pauseMessage({ orgId, pause, figures }: EmailPauseAlert, options: EmailPauseAlertOptions): string {
  return [
    `The onboarding e-mail of organization ${orgId} (stage ${options.stage}) is paused for its ${pause.reason} ` +
      `since ${pause.since}: ${figures.complaints} complaint(s) (${percent(figures.complaintRate)}) and ` +
      `${figures.bounces} bounce(s) (${percent(figures.bounceRate)}) among its last ${figures.sent} e-mail(s).`,
    '',
    'Its token create and resend answer 429 until an operator resumes it. Find out first why its recipients ' +
      'bounce or complain (its recent tokens: GET /v1/onboarding-tokens), then resume it:',
    '',
    `  npm run -s org:email -- resume ${orgId} --table ${options.tableName}`,
    '',
    'The operations guide (docs/operate.md, "Alarms") has the rest.',
  ].join('\n');
}
