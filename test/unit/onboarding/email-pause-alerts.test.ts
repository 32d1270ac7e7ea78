import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { emailPauseAlertsFor } from '#shared/adapters/email-pause-alerts.ts';
import type { EmailPauseAlert } from '#shared/domain/onboarding/email-reputation.ts';
import { logger } from '#shared/observability/logger.ts';
import { metrics } from '#shared/observability/metrics.ts';

const sns = new SNSClient({ region: 'eu-west-1' });
const snsMock = mockClient(sns);
const OPTIONS = {
  topicArn: 'arn:aws:sns:eu-west-1:111122223333:ServiceUnderTest-AlarmTopic',
  tableName: 'ServiceUnderTest-OnboardingTokens-1A2B3C',
  stage: 'prod',
};
const pause = { since: '2026-11-28T12:00:00.000Z', reason: 'complaints' } as const;
const ALERT: EmailPauseAlert = {
  orgId: 'acme.eu',
  pause,
  figures: { sent: 150, bounces: 1, complaints: 3, bounceRate: 1 / 150, complaintRate: 0.02, paused: pause },
};

beforeEach(() => {
  snsMock.reset();
  metrics.clearMetrics();
});
afterEach(() => vi.restoreAllMocks());

describe('the operator’s alert of an e-mail pause (contract §27)', () => {
  it('publishes one message to the alarm topic naming the organization, why, its figures and the command that resumes it', async () => {
    snsMock.on(PublishCommand).resolves({ MessageId: 'n-1' });
    await emailPauseAlertsFor(sns, OPTIONS).emailPaused(ALERT);

    expect(snsMock).toReceiveCommandTimes(PublishCommand, 1);
    const { input } = snsMock.commandCalls(PublishCommand)[0]!.args[0];
    expect(input.TopicArn).toBe(OPTIONS.topicArn);
    expect(input.Subject).toBe('E-mail paused: acme.eu (prod)');
    expect(input.Message).toContain(
      'The onboarding e-mail of organization acme.eu (stage prod) is paused for its complaints since 2026-11-28T12:00:00.000Z: ' +
        '3 complaint(s) (2.0%) and 1 bounce(s) (0.7%) among its last 150 e-mail(s).',
    );
    expect(input.Message).toContain(
      'npm run -s org:email -- resume acme.eu --table ServiceUnderTest-OnboardingTokens-1A2B3C',
    );
  });

  it('counts the pause in EmailPauses with the service and stage dimensions alone, never the organization', async () => {
    snsMock.on(PublishCommand).resolves({ MessageId: 'n-1' });
    const addDimension = vi.spyOn(metrics, 'addDimension');
    await emailPauseAlertsFor(sns, OPTIONS).emailPaused(ALERT);

    const emitted = metrics.serializeMetrics();
    expect(emitted.EmailPauses).toEqual(1);
    expect(emitted._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['service', 'stage']]);
    expect(JSON.stringify(emitted)).not.toContain('acme.eu');
    expect(addDimension).not.toHaveBeenCalled();
  });

  it('logs a message SNS refuses, naming the organization, and does not throw: the EmailPauses alarm pages anyway', async () => {
    snsMock.on(PublishCommand).rejects(new Error('KMS key disabled'));
    const error = vi.spyOn(logger, 'error').mockImplementation(() => undefined);

    await expect(emailPauseAlertsFor(sns, OPTIONS).emailPaused(ALERT)).resolves.toBeUndefined();
    expect(error).toHaveBeenCalledWith(
      expect.stringContaining('e-mail pause'),
      expect.objectContaining({ orgId: 'acme.eu' }),
    );
    expect(metrics.serializeMetrics().EmailPauses).toEqual(1);
  });

  it('keeps the subject within SNS’s 100 characters for the longest id and stage', async () => {
    snsMock.on(PublishCommand).resolves({ MessageId: 'n-1' });
    const orgId = 'o'.repeat(64);
    await emailPauseAlertsFor(sns, { ...OPTIONS, stage: 's'.repeat(20) }).emailPaused({ ...ALERT, orgId });

    const { input } = snsMock.commandCalls(PublishCommand)[0]!.args[0];
    expect(input.Subject!.length).toBeLessThanOrEqual(100);
    expect(input.Subject).toContain(orgId);
  });

  it('publishes nothing where the stage has no alarm topic (no alarmEmail), and still counts the pause', async () => {
    await emailPauseAlertsFor(sns, { ...OPTIONS, topicArn: undefined }).emailPaused(ALERT);

    expect(snsMock).toReceiveCommandTimes(PublishCommand, 0);
    expect(metrics.serializeMetrics().EmailPauses).toEqual(1);
  });
});
