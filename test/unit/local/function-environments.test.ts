import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { checkFunctionEnvironments, isolateFunctionEnvironments } from '#local/function-environments.ts';

/** Every variable some declared need of a function requires, with a value it accepts. */
const complete: Record<string, string> = {
  AUDIT_EVENTS_TABLE_NAME: 'AuditEvents',
  ONBOARDING_TOKENS_TABLE_NAME: 'OnboardingTokens',
  IDEMPOTENCY_TABLE_NAME: 'Idempotency',
  SENDER_EMAIL: 'no-reply@onboarding.local',
  ONBOARDING_TEMPLATE_NAME: 'onboarding',
  WEBHOOK_QUEUE_URL: 'http://127.0.0.1:4566/000000000000/webhooks',
  WEBHOOK_SLOW_QUEUE_URL: 'http://127.0.0.1:4566/000000000000/webhooks-slow',
  SANDBOX_WIPE_QUEUE_URL: 'http://127.0.0.1:4566/000000000000/sandbox-wipes',
  WEBHOOKS_TABLE_NAME: 'Webhooks',
  WEBHOOK_LOCAL_SECRET_KEY: 'a-local-key',
  REPORT_JOBS_TABLE_NAME: 'ReportJobs',
  REPORT_QUEUE_URL: 'http://127.0.0.1:4566/000000000000/reports',
  REPORTS_BUCKET_NAME: 'reports-local',
  USERS_DATABASE_HOST: '127.0.0.1',
  USERS_DATABASE_USER: 'users_reader',
  USERS_ERASER_DATABASE_USER: 'users_eraser',
  USERS_SANDBOX_WRITER_DATABASE_USER: 'users_sandbox_writer',
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

describe('each function’s own environment in the one process of the local stack', () => {
  const stackEnvironment = {
    ...complete,
    AWS_REGION: 'eu-west-1',
    LOG_LEVEL: 'WARN',
    JWT_ISSUER: 'http://127.0.0.1:9999',
    REQUEST_BUDGET_RATE: '50',
    LOCAL_KEYS_DIR: '/tmp/keys',
  };
  let restore: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await restore?.();
    for (const name of Object.keys(stackEnvironment)) delete process.env[name];
  });

  /** The variables of the stack's environment one function's import and invocation see. */
  async function seenBy(entry: string): Promise<{ atImport: string[]; atInvocation: string[] }> {
    Object.assign(process.env, stackEnvironment);
    const stackNames = (names: string[]) => names.filter((name) => name in stackEnvironment).sort();
    const isolated = isolateFunctionEnvironments(stackEnvironment, () => {
      const atImport = stackNames(Object.keys(process.env));
      return Promise.resolve(() => Promise.resolve({ atImport, atInvocation: stackNames(Object.keys(process.env)) }));
    });
    restore = isolated.restore;
    const handler = await isolated.loadHandler(entry);
    return (await handler({}, {} as Context)) as { atImport: string[]; atInvocation: string[] };
  }

  it('gives a background function its needs’ variables and the runtime’s, and no token settings', async () => {
    const seen = await seenBy('functions/republish-webhook-events.ts');

    const expected = ['AWS_REGION', 'LOG_LEVEL', 'WEBHOOKS_TABLE_NAME', 'WEBHOOK_QUEUE_URL'];
    expect(seen).toEqual({ atImport: expected, atInvocation: expected });
  });

  it('gives an authenticated route its needs’ variables, the token settings and the request budget', async () => {
    const seen = await seenBy('functions/list-audit-events.ts');

    expect(seen.atInvocation).toEqual([
      'AUDIT_EVENTS_TABLE_NAME',
      'AWS_REGION',
      'JWT_ISSUER',
      'LOG_LEVEL',
      'REQUEST_BUDGET_RATE',
    ]);
  });

  it('leaves the stack’s own code, outside any function, the whole environment', async () => {
    await seenBy('functions/list-audit-events.ts');

    expect(process.env.LOCAL_KEYS_DIR).toBe('/tmp/keys');
    expect(process.env.REPORT_QUEUE_URL).toBe(complete.REPORT_QUEUE_URL);
  });
});
