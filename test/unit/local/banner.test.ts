import { describe, expect, it } from 'vitest';
import { localStackBanner, type BannerInput } from '#local/banner.ts';

const queue = (name: string) => ({ name, url: `http://127.0.0.1:4566/000000000000/${name}`, arn: `arn:${name}` });

function banner(overrides: { baseUrl?: string; reportRateLimit?: number } = {}): string {
  const input: BannerInput = {
    stack: {
      baseUrl: overrides.baseUrl ?? 'http://127.0.0.1:3000',
      endpoints: {
        dynamodb: 'http://127.0.0.1:8000',
        sqs: 'http://127.0.0.1:4566',
        s3: 'http://127.0.0.1:4568',
        ses: 'http://127.0.0.1:8005',
      },
      usersDatabase: { host: '127.0.0.1', port: 5433 },
      resources: {
        tables: {},
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
      reportRateLimit: overrides.reportRateLimit ?? 10,
      startupMs: 4200,
      identityProvider: {
        issuer: 'http://127.0.0.1:3001',
        jwksUrl: 'http://127.0.0.1:3001/jwks',
        dashboardClientId: 'd',
      },
    },
    demo: { orgId: 'demo-org', users: 300, exampleUserId: 'demo-user-1' },
    token: 'eyJhbGciOiJFUzI1NiJ9.payload.signature',
  };
  return localStackBanner(input);
}

describe('the npm start banner', () => {
  it('exports the variables the CLI reads, with the router’s real address and port', () => {
    const text = banner({ baseUrl: 'http://127.0.0.1:43210' });
    const exports = text.split('\n').filter((line) => /^\s*export /.test(line));
    expect(exports).toEqual([
      '  export API_URL=http://127.0.0.1:43210 API_TOKEN=eyJhbGciOiJFUzI1NiJ9.payload.signature',
    ]);
    expect(text).not.toContain(':3000');
    expect(text).toContain('Dashboard      http://127.0.0.1:43210/');
  });

  it('has every curl call use those variables, and no other token variable', () => {
    const text = banner({ baseUrl: 'http://127.0.0.1:43210' });
    const calls = text.split('\n').filter((line) => /\bcurl\b/.test(line) && !line.includes('report.pdf'));
    expect(calls.length).toBeGreaterThanOrEqual(8);
    for (const call of calls)
      expect(call, call).toMatch(/curl .*"\$API_URL\/v1\/[^"]*" -H "Authorization: Bearer \$API_TOKEN"/);
    expect(text).not.toMatch(/\$TOKEN\b|export TOKEN=/);
  });

  it('prints the demo staff’s sign-in credentials and the identity provider’s address', () => {
    const text = banner();
    expect(text).toContain('admin@demo-org.test / demo-org-admin (admin)');
    expect(text).toContain('operator@demo-org.test / demo-org-operator (operator)');
    expect(text).toContain('auditor@demo-org.test / demo-org-auditor (auditor)');
    expect(text).toContain('viewer@demo-org.test / demo-org-viewer (viewer)');
    expect(text).toContain('Sign-in        http://127.0.0.1:3001');
  });

  it('states the report rate limit the stack runs with', () => {
    expect(banner()).toContain('limited to 10 per 10 minutes per organization');
    expect(banner({ reportRateLimit: 100 })).toContain('limited to 100 per 10 minutes per organization');
  });
});
