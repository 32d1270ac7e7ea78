import { describe, expect, it } from 'vitest';
import { checkFunctionEnvironments } from '#local/function-environments.ts';

/** Every variable some declared need of an API function requires, with a value it accepts. */
const complete: Record<string, string> = {
  AUDIT_EVENTS_TABLE_NAME: 'AuditEvents',
  ONBOARDING_TOKENS_TABLE_NAME: 'OnboardingTokens',
  IDEMPOTENCY_TABLE_NAME: 'Idempotency',
  SENDER_EMAIL: 'no-reply@onboarding.local',
  ONBOARDING_TEMPLATE_NAME: 'onboarding',
  WEBHOOK_QUEUE_URL: 'http://127.0.0.1:4566/000000000000/webhooks',
  WEBHOOKS_TABLE_NAME: 'Webhooks',
  WEBHOOK_LOCAL_SECRET_KEY: 'a-local-key',
  REPORT_JOBS_TABLE_NAME: 'ReportJobs',
  REPORT_QUEUE_URL: 'http://127.0.0.1:4566/000000000000/reports',
  REPORTS_BUCKET_NAME: 'reports-local',
  USERS_DATABASE_HOST: '127.0.0.1',
  USERS_DATABASE_USER: 'users_reader',
  USERS_ERASER_DATABASE_USER: 'users_eraser',
};

describe('the local stack’s environment against the functions’ declared needs', () => {
  it('passes an environment that holds every variable some function’s needs require', () => {
    expect(() => checkFunctionEnvironments(complete)).not.toThrow();
  });

  it('stops the start naming the function and the variable its needs require and the environment lacks', () => {
    const { USERS_ERASER_DATABASE_USER: _eraser, ...withoutEraser } = complete;

    expect(() => checkFunctionEnvironments(withoutEraser)).toThrow(/EraseUser: USERS_ERASER_DATABASE_USER/);
  });
});
