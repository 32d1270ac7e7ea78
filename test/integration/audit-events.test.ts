import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineClientId } from '#local/dev-keys.ts';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';
import { callApi, tokenFor, uniqueOrg, type ApiResponse } from '#test/support/api-client.ts';
import { seedOrganization, waitForJob } from '#test/support/report-support.ts';

interface AuditEvent {
  eventId: string;
  occurredAt: string;
  action: string;
  actor: { sub: string | null; clientId: string | null };
  target: { type: string; id: string };
  requestId: string;
  outcome: string;
}

/** Every event of the organization, following `nextCursor` with pages of `limit`. */
async function allEvents(token: string, query = '', limit = 100): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  let cursor: string | null = null;
  do {
    const page = await callApi(
      'GET',
      `/v1/audit-events?limit=${limit}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { token },
    );
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    events.push(...(page.body.results as AuditEvent[]));
    cursor = page.body.nextCursor as string | null;
  } while (cursor);
  return events;
}

const newestFirst = (a: AuditEvent, b: AuditEvent) =>
  b.occurredAt.localeCompare(a.occurredAt) || b.eventId.localeCompare(a.eventId);

describe('the audit trail (GET /v1/audit-events)', () => {
  const orgId = uniqueOrg('audit');
  const receiver = startWebhookReceiver();
  let staff: string;
  let machine: string;
  const done: Record<string, { targetType: string; targetId: string; requestId: string; as: 'staff' | 'machine' }> = {};

  beforeAll(async () => {
    staff = await tokenFor(orgId, { subject: 'staff-ada', claims: { client_id: 'dashboard', role: 'admin' } });
    // A machine client named in `azp` (Auth0, Keycloak) rather than `client_id`.
    machine = await tokenFor(orgId, {
      subject: 'svc-backend',
      claims: { client_id: undefined, azp: machineClientId(orgId) },
    });
    const [user] = await seedOrganization(orgId, 1);
    const act = async (
      action: string,
      as: 'staff' | 'machine',
      call: (token: string) => Promise<ApiResponse>,
      targetOf: (body: any) => string,
      targetType: string,
    ) => {
      const response = await call(as === 'staff' ? staff : machine);
      expect(response.status, `${action}: ${JSON.stringify(response.body)}`).toBeLessThan(300);
      done[action] = {
        targetType,
        targetId: targetOf(response.body),
        requestId: response.headers.get('x-request-id')!,
        as,
      };
      return response;
    };
    const person = (n: number) => ({
      email: `person-${n}-${orgId}@example.com`,
      first_name: 'Ada',
      last_name: 'Audit',
    });

    const created = await act(
      'onboarding_token.created',
      'staff',
      (token) => callApi('POST', '/v1/onboarding-token', { token, body: person(1) }),
      (body) => body.tokenId,
      'onboarding_token',
    );
    const redeemable = await callApi('POST', '/v1/onboarding-token', { token: staff, body: person(2) });
    const toResend = await callApi('POST', '/v1/onboarding-token', { token: staff, body: person(3) });
    await act(
      'onboarding_token.revoked',
      'staff',
      (token) => callApi('DELETE', `/v1/onboarding-tokens/${created.body.tokenId}`, { token }),
      () => created.body.tokenId,
      'onboarding_token',
    );
    await act(
      'onboarding_token.resent',
      'staff',
      (token) => callApi('POST', `/v1/onboarding-tokens/${toResend.body.tokenId}/resend`, { token }),
      () => toResend.body.tokenId,
      'onboarding_token',
    );
    await act(
      'onboarding_token.redeemed',
      'machine',
      (token) =>
        callApi('POST', '/v1/onboarding-token/redeem', {
          token,
          body: { onboarding_token: redeemable.body.onboarding_token },
        }),
      (body) => body.tokenId,
      'onboarding_token',
    );
    const report = await act(
      'report.requested',
      'machine',
      (token) => callApi('POST', '/v1/document/api', { token, body: { userId: user!.id } }),
      (body) => body.jobId,
      'report',
    );
    await waitForJob(report.body.jobId, staff, ['COMPLETE']);
    await act(
      'report.download_url_issued',
      'staff',
      (token) => callApi('GET', `/v1/document/api/${report.body.jobId}/url`, { token }),
      () => report.body.jobId,
      'report',
    );
    const { url } = await receiver;
    const hook = await act(
      'webhook.created',
      'staff',
      (token) => callApi('POST', '/v1/webhooks', { token, body: { url, events: ['report.completed'] } }),
      (body) => body.id,
      'webhook',
    );
    await act(
      'webhook.tested',
      'staff',
      (token) => callApi('POST', `/v1/webhooks/${hook.body.id}/test`, { token }),
      () => hook.body.id,
      'webhook',
    );
    await act(
      'webhook.deleted',
      'staff',
      (token) => callApi('DELETE', `/v1/webhooks/${hook.body.id}`, { token }),
      () => hook.body.id,
      'webhook',
    );
    // Refused requests record nothing.
    expect((await callApi('DELETE', '/v1/onboarding-tokens/no-such-token', { token: staff })).status).toBe(404);
    expect((await callApi('POST', '/v1/document/api', { token: staff, body: { userId: 'nobody' } })).status).toBe(404);
  }, 60_000);

  afterAll(async () => (await receiver).close());

  it('leaves exactly one event per action, with the actor, the target and the request id', async () => {
    const events = await allEvents(staff);

    const counts = Object.fromEntries(Object.keys(done).map((action) => [action, 0]));
    for (const event of events) counts[event.action] = (counts[event.action] ?? 0) + 1;
    // Three tokens were created (one recorded above, two to act on), and the resend issued a fourth.
    expect(counts).toEqual({
      ...Object.fromEntries(Object.keys(done).map((a) => [a, 1])),
      'onboarding_token.created': 3,
    });
    for (const [action, expected] of Object.entries(done)) {
      const matching = events.filter((event) => event.action === action && event.target.id === expected.targetId);
      expect(matching, action).toHaveLength(1);
      expect(matching[0], action).toEqual({
        eventId: expect.any(String),
        occurredAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
        action,
        actor:
          expected.as === 'staff'
            ? { sub: 'staff-ada', clientId: 'dashboard' }
            : { sub: 'svc-backend', clientId: machineClientId(orgId) },
        target: { type: expected.targetType, id: expected.targetId },
        requestId: expected.requestId,
        outcome: 'success',
      });
    }
  });

  it('pages newest first through the same events in any page size, and filters as an oracle over them does', async () => {
    const everything = await allEvents(staff);
    expect([...everything].sort(newestFirst)).toEqual(everything);
    expect(await allEvents(staff, '', 2)).toEqual(everything);

    const hookId = done['webhook.created']!.targetId;
    expect(await allEvents(staff, `&targetId=${hookId}`, 1)).toEqual(everything.filter((e) => e.target.id === hookId));
    expect(await allEvents(staff, '&action=onboarding_token.created', 1)).toEqual(
      everything.filter((e) => e.action === 'onboarding_token.created'),
    );
    const middle = everything[Math.floor(everything.length / 2)]!.occurredAt;
    expect(await allEvents(staff, `&from=${encodeURIComponent(middle)}`, 3)).toEqual(
      everything.filter((e) => e.occurredAt >= middle),
    );
    expect(await allEvents(staff, `&to=${encodeURIComponent(middle)}&action=onboarding_token.created`, 1)).toEqual(
      everything.filter((e) => e.occurredAt <= middle && e.action === 'onboarding_token.created'),
    );
  });

  it("never lists another organization's events", async () => {
    const other = await tokenFor(uniqueOrg('audit-other'));

    expect(await allEvents(other)).toEqual([]);
    expect(await allEvents(other, `&targetId=${done['report.requested']!.targetId}`)).toEqual([]);
  });

  it.each([
    ['action=bogus', 'action', 'isIn'],
    ['from=yesterday', 'from', 'isDateString'],
    ['limit=0', 'limit', 'min'],
    ['cursor=not-a-cursor', 'cursor', 'isIn'],
  ])('refuses %s with 400 %s %s', async (query, field, code) => {
    const response = await callApi('GET', `/v1/audit-events?${query}`, { token: staff });

    expect(response.status).toBe(400);
    expect(response.body.errors).toContainEqual(expect.objectContaining({ field, code }));
  });

  it('refuses a range whose from is after its to with 400 naming from (the store is never asked)', async () => {
    for (const query of [
      'from=2030-01-01&to=2020-01-01',
      `targetId=${done['webhook.created']!.targetId}&from=2030-01-01&to=2020-01-01`,
    ]) {
      const response = await callApi('GET', `/v1/audit-events?${query}`, { token: staff });

      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body).toEqual({
        code: 400,
        errors: [{ field: 'from', code: 'max', hint: 'from must not be after to' }],
      });
    }
  });

  it('needs the audit:read scope', async () => {
    const token = await tokenFor(orgId, { scopes: ['onboarding:read'] });

    expect((await callApi('GET', '/v1/audit-events', { token })).status).toBe(403);
  });
});
