import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allTables } from '#shared/config/table-definitions.ts';
import { handlerEnvironment, type EnvironmentInput } from '#local/local-stack.ts';
import { ConfigurationError, loadConfig } from '#shared/config/load-config.ts';
import {
  reportRateLimitFrom,
  reportRateLimitPolicy,
  reportRateLimitVariable,
} from '#shared/config/limits/report-rate-limit.ts';

describe('REPORT_RATE_LIMIT', () => {
  it('is the contract’s 10 per 10 minutes when unset (or empty, as a shell leaves it)', () => {
    expect(reportRateLimitFrom({})).toBe(10);
    expect(reportRateLimitFrom({ REPORT_RATE_LIMIT: '' })).toBe(10);
    expect(reportRateLimitPolicy(reportRateLimitFrom({}))).toEqual({ capacity: 10, windowMs: 600_000 });
  });

  it('takes another capacity over the same 10-minute window', () => {
    expect(reportRateLimitFrom({ REPORT_RATE_LIMIT: '100' })).toBe(100);
    expect(reportRateLimitFrom({ REPORT_RATE_LIMIT: ' 1000 ' })).toBe(1000);
    expect(reportRateLimitPolicy(100)).toEqual({ capacity: 100, windowMs: 600_000 });
  });

  it.each(['0', '-5', '2.5', '1e3', 'lots', '1001'])('refuses %j, naming the variable and the range', (value) => {
    expect(() => reportRateLimitFrom({ REPORT_RATE_LIMIT: value })).toThrow(ConfigurationError);
    expect(() => reportRateLimitFrom({ REPORT_RATE_LIMIT: value })).toThrow(
      `REPORT_RATE_LIMIT must be a whole number from 1 to 1000 (report requests per organization in 10 minutes), got "${value}"`,
    );
  });

  it('is what the report function’s configuration reads at cold start (default 10, a bad value stops it)', () => {
    const schema = v.object({ REPORT_RATE_LIMIT: reportRateLimitVariable });
    expect(loadConfig(schema, {}).REPORT_RATE_LIMIT).toBe(10);
    expect(loadConfig(schema, { REPORT_RATE_LIMIT: '100' }).REPORT_RATE_LIMIT).toBe(100);
    expect(() => loadConfig(schema, { REPORT_RATE_LIMIT: '0' })).toThrow(/REPORT_RATE_LIMIT must be at least 1/);
  });
});

describe('the local stack’s handler environment', () => {
  let keysDir: string;
  beforeAll(async () => {
    keysDir = await mkdtemp(join(tmpdir(), 'rate-limit-env-keys-'));
  });
  afterAll(async () => {
    await rm(keysDir, { recursive: true, force: true });
  });

  const queue = (name: string) => ({ name, url: `http://127.0.0.1:4566/000000000000/${name}`, arn: `arn:${name}` });
  const input = (reportRateLimit: number): EnvironmentInput => ({
    endpoints: {
      dynamodb: 'http://127.0.0.1:8000',
      sqs: 'http://127.0.0.1:4566',
      s3: 'http://127.0.0.1:4568',
      ses: 'http://127.0.0.1:8005',
    },
    usersDatabase: {
      host: '127.0.0.1',
      port: 5433,
      reader: { user: 'users_reader', password: 'r' },
      eraser: { user: 'users_eraser', password: 'e' },
      sandboxWriter: { user: 'users_sandbox_writer', password: 'w' },
    },
    resources: {
      tables: Object.fromEntries(allTables.map((table) => [table.envVar, table.id])),
      reportQueue: { ...queue('report-jobs'), visibilityTimeoutSeconds: 360, maxReceiveCount: 3 },
      reportDlq: queue('report-jobs-dlq'),
      webhookQueue: queue('webhook-deliveries'),
      webhookSlowQueue: queue('webhook-deliveries-slow'),
      webhookDlq: queue('webhook-deliveries-dlq'),
      sandboxWipeQueue: queue('sandbox-wipes'),
      sandboxWipeDlq: queue('sandbox-wipes-dlq'),
      reportsBucketName: 'reports',
      emailTemplateName: 'onboarding',
    },
    keysDir,
    identityProvider: { issuer: 'http://127.0.0.1:3001', jwksUrl: 'http://127.0.0.1:3001/jwks' },
    quiet: true,
    prettyLogs: false,
    reportRateLimit,
    requestBudget: { ratePerSecond: 7, burst: 14 },
    concurrency: { perOrganization: 9, databasePerOrganization: 3 },
  });

  it('passes the stack’s report rate limit to the handlers as REPORT_RATE_LIMIT', async () => {
    expect((await handlerEnvironment(input(100))).REPORT_RATE_LIMIT).toBe('100');
    expect((await handlerEnvironment(input(10))).REPORT_RATE_LIMIT).toBe('10');
  });

  it('passes the stack’s request budget to the handlers as REQUEST_BUDGET_RATE and REQUEST_BUDGET_BURST', async () => {
    const env = await handlerEnvironment(input(10));
    expect([env.REQUEST_BUDGET_RATE, env.REQUEST_BUDGET_BURST]).toEqual(['7', '14']);
    expect(env.REQUEST_BUDGETS_TABLE_NAME).toBe('RequestBudgets');
  });

  it('passes the stack’s concurrency limits to the handlers as CONCURRENCY_PER_ORGANIZATION and DATABASE_CONCURRENCY_PER_ORGANIZATION', async () => {
    const env = await handlerEnvironment(input(10));
    expect([env.CONCURRENCY_PER_ORGANIZATION, env.DATABASE_CONCURRENCY_PER_ORGANIZATION]).toEqual(['9', '3']);
  });
});
