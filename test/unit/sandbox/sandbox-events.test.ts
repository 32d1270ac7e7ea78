import { beforeEach, describe, expect, it } from 'vitest';
import { ConflictError } from '#shared/domain/errors.ts';
import { tenantKey } from '#shared/domain/identity/tenant.ts';
import {
  tokenStatus,
  type OnboardingTokenRecord,
  type OnboardingTokenStatus,
} from '#shared/domain/onboarding/onboarding-token.ts';
import type { OnboardingEmail, OnboardingTokenStore } from '#shared/domain/onboarding/ports.ts';
import { SANDBOX_EVENT_TYPES, triggerSandboxEvent } from '#shared/domain/sandbox/sandbox-events.ts';
import { scenarioUser } from '#shared/domain/sandbox/scenarios.ts';
import { emittingTokenEvents } from '#shared/domain/webhooks/webhook-events.ts';
import { WEBHOOK_EVENT_TYPES } from '#shared/domain/webhooks/event-types.ts';
import { reportJobBody } from '#shared/presenters/report-job-bodies.ts';
import { ORG_ID, T0 } from '#test/support/fixtures/defaults.ts';
import { sendingNotPaused } from '#test/support/email-sending.ts';
import { FakeEmailQuota } from '#test/unit/onboarding/fake-email-quota.ts';
import { FakeClock, FakeReportQueue, InMemoryReportJobStore, InMemoryUserDirectory } from '#test/unit/reports/fakes.ts';
import { InMemoryEndpoints, InMemoryPendingEvents, RecordingQueue } from '#test/unit/webhooks/fakes.ts';

const SANDBOX = tenantKey({ orgId: ORG_ID, mode: 'sandbox' });
const LIVE = tenantKey({ orgId: ORG_ID, mode: 'live' });

/** Tokens by id, with the DynamoDB store's transitions: each leaves Issued once, or answers the status that kept it. */
class InMemoryTokens implements OnboardingTokenStore {
  readonly records = new Map<string, OnboardingTokenRecord & { confirmed: boolean }>();
  issue(record: OnboardingTokenRecord) {
    this.records.set(record.tokenId, { ...record, confirmed: false });
    return Promise.resolve();
  }
  confirm(record: OnboardingTokenRecord) {
    this.records.get(record.tokenId)!.confirmed = true;
    return Promise.resolve();
  }
  withdraw(record: OnboardingTokenRecord) {
    this.records.delete(record.tokenId);
    return Promise.resolve();
  }
  findById(orgId: string, tokenId: string) {
    return Promise.resolve(this.find((record) => record.orgId === orgId && record.tokenId === tokenId));
  }
  findByHash(orgId: string, tokenHash: string) {
    return Promise.resolve(this.find((record) => record.orgId === orgId && record.tokenHash === tokenHash));
  }
  markUsed(record: OnboardingTokenRecord, now: Date) {
    return this.leaveIssued(record, now, { usedAt: now.toISOString() });
  }
  revoke(record: OnboardingTokenRecord, revokedBy: string | undefined, now: Date) {
    return this.leaveIssued(record, now, { revokedAt: now.toISOString(), ...(revokedBy ? { revokedBy } : {}) });
  }
  expire(record: OnboardingTokenRecord, now: Date) {
    return this.leaveIssued(record, now, { expiresAt: now.toISOString() });
  }
  listByOrganization = () => Promise.reject(new Error('not used'));
  replace = () => Promise.reject(new Error('not used'));
  undoReplace = () => Promise.reject(new Error('not used'));
  eraseIssuedTo = () => Promise.reject(new Error('not used'));

  private find(match: (record: OnboardingTokenRecord) => boolean): OnboardingTokenRecord | undefined {
    const found = [...this.records.values()].find((record) => record.confirmed && match(record));
    if (!found) return undefined;
    const { confirmed: _confirmed, ...record } = found;
    return record;
  }

  private leaveIssued(
    record: OnboardingTokenRecord,
    now: Date,
    change: Partial<OnboardingTokenRecord>,
  ): Promise<OnboardingTokenRecord | OnboardingTokenStatus> {
    const stored = this.records.get(record.tokenId)!;
    const status = tokenStatus(stored, now);
    if (status !== 'Issued') return Promise.resolve(status);
    Object.assign(stored, change);
    return Promise.resolve({ ...record, ...change });
  }
}

describe('triggerSandboxEvent', () => {
  let clock: FakeClock;
  let jobs: InMemoryReportJobStore;
  let reportQueue: FakeReportQueue;
  let tokens: InMemoryTokens;
  let kept: OnboardingEmail[];
  let endpoints: InMemoryEndpoints;
  let webhookQueue: RecordingQueue;
  let trigger: ReturnType<typeof triggerSandboxEvent>;

  beforeEach(() => {
    clock = new FakeClock(T0);
    jobs = new InMemoryReportJobStore(clock);
    reportQueue = new FakeReportQueue();
    tokens = new InMemoryTokens();
    kept = [];
    endpoints = new InMemoryEndpoints();
    webhookQueue = new RecordingQueue();
    const users = new InMemoryUserDirectory()
      .add(SANDBOX, scenarioUser('sbx-clear', ORG_ID, T0))
      .add(SANDBOX, scenarioUser('sbx-fail', ORG_ID, T0));
    const publishing = {
      queue: webhookQueue,
      pending: new InMemoryPendingEvents(),
      clock,
      reportJobPayload: reportJobBody,
      onKept: () => undefined,
      onLost: () => undefined,
    };
    trigger = triggerSandboxEvent({
      reports: { jobs, users, queue: reportQueue, clock, templateVersion: 'v1' },
      tokens: {
        tokens,
        events: emittingTokenEvents({ tokenUsed: async () => {}, tokenRevoked: async () => {} }, publishing),
        mailer: { sendOnboardingToken: (email) => Promise.resolve(void kept.push(email)) },
        emailQuota: new FakeEmailQuota(),
        emailSending: sendingNotPaused,
        clock,
      },
      webhooks: { endpoints, queue: webhookQueue, clock },
    });
  });

  const run = (type: (typeof SANDBOX_EVENT_TYPES)[number], orgId = SANDBOX) =>
    trigger({
      orgId,
      type,
      organizationName: 'Acme',
      answerBy: new Date(T0.getTime() + 9_000),
      requestedBy: 'ci',
      requestId: 'req-1',
    });

  it('covers every webhook event type and webhook.test', () => {
    expect([...SANDBOX_EVENT_TYPES].sort()).toEqual([...WEBHOOK_EVENT_TYPES, 'webhook.test'].sort());
  });

  it.each([
    ['report.completed', 'sbx-clear'],
    ['report.failed', 'sbx-fail'],
  ] as const)(
    '%s: requests a report of %s and queues it for the worker, whose outcome emits the event',
    async (type, userId) => {
      const triggered = await run(type);

      expect(triggered.type).toBe(type);
      const job = jobs.jobs.get(triggered.objectId);
      expect(job).toMatchObject({ orgId: SANDBOX, userId, status: 'PENDING', requestedBy: 'ci' });
      expect(reportQueue.messages).toEqual([{ orgId: SANDBOX, jobId: triggered.objectId }]);
    },
  );

  it.each([
    ['onboarding_token.used', 'Used'],
    ['onboarding_token.revoked', 'Revoked'],
  ] as const)(
    '%s: issues a token (its e-mail to the mailer) and takes it to %s, emitting the event about it',
    async (type, status) => {
      const triggered = await run(type);

      const record = await tokens.findById(SANDBOX, triggered.objectId);
      expect(tokenStatus(record!, clock.now())).toBe(status);
      expect(kept).toEqual([
        expect.objectContaining({ orgId: SANDBOX, tokenId: triggered.objectId, to: record!.email }),
      ]);
      expect(record!.email).toMatch(/^success\+[0-9a-f-]{36}@simulator\.amazonses\.com$/);
      expect(webhookQueue.events).toEqual([
        expect.objectContaining({
          type,
          orgId: SANDBOX,
          data: expect.objectContaining({ tokenId: triggered.objectId, status }),
        }),
      ]);
    },
  );

  it('gives each token event a token of its own, so a second trigger is not refused by the first one’s e-mail', async () => {
    const first = await run('onboarding_token.revoked');
    const second = await run('onboarding_token.revoked');
    expect(second.objectId).not.toBe(first.objectId);
  });

  it('webhook.test: queues a test message to each of the sandbox’s endpoints and answers the first', async () => {
    for (const endpointId of ['e-1', 'e-2']) {
      await endpoints.create(
        {
          orgId: SANDBOX,
          endpointId,
          url: `https://hooks.example/${endpointId}`,
          events: ['report.completed'],
          sealedSecret: 's',
          createdAt: T0.toISOString(),
          disabled: false,
        },
        10,
      );
    }

    const triggered = await run('webhook.test');

    expect(triggered).toEqual({ type: 'webhook.test', objectId: 'e-1' });
    expect(webhookQueue.events.map((event) => [event.type, event.endpointId])).toEqual([
      ['webhook.test', 'e-1'],
      ['webhook.test', 'e-2'],
    ]);
  });

  it('webhook.test: a conflict when the sandbox has no endpoint', async () => {
    await expect(run('webhook.test')).rejects.toBeInstanceOf(ConflictError);
  });

  it('refuses a live key and makes nothing', async () => {
    await expect(run('report.completed', LIVE)).rejects.toThrow(/sandbox/);
    await expect(run('onboarding_token.used', LIVE)).rejects.toThrow(/sandbox/);
    expect(jobs.jobs.size).toBe(0);
    expect(tokens.records.size).toBe(0);
  });
});
