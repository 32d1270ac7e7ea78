import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SCENARIO_IDS } from '#shared/domain/sandbox/scenarios.ts';
import { callApi, sandboxTokenFor, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { seedOrganization } from '#test/support/report-support.ts';
import { startWebhookReceiver } from '#test/support/webhook-receiver.ts';

/**
 * Isolation by construction (contract §23), searched for rather than spot-checked: random
 * sequences of live and sandbox operations of two organizations, each operation aimed at an
 * object of its own tenant or of any of the other three. Whatever the order, an operation on
 * another tenant's object is a 404 that changes nothing, and every list, query and audit trail
 * holds exactly what its own tenant made.
 */

type TenantName = 'A live' | 'A sandbox' | 'B live' | 'B sandbox';
const TENANTS: readonly TenantName[] = ['A live', 'A sandbox', 'B live', 'B sandbox'];

type TokenStatus = 'Issued' | 'Used' | 'Revoked';

interface TenantModel {
  auth: string;
  tokens: Map<string, { code: string; status: TokenStatus }>;
  jobs: Set<string>;
  endpoints: Set<string>;
  users: readonly string[];
}

type Operation =
  | { kind: 'create token'; actor: number }
  | { kind: 'redeem'; actor: number; owner: number; pick: number }
  | { kind: 'revoke'; actor: number; owner: number; pick: number }
  | { kind: 'request report'; actor: number; owner: number; pick: number }
  | { kind: 'read report'; actor: number; owner: number; pick: number }
  | { kind: 'add webhook endpoint'; actor: number }
  | { kind: 'delete webhook endpoint'; actor: number; owner: number; pick: number };

const tenant = fc.nat({ max: TENANTS.length - 1 });
const pick = fc.nat({ max: 1_000 });
const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ kind: fc.constant('create token' as const), actor: tenant }),
  fc.record({ kind: fc.constant('redeem' as const), actor: tenant, owner: tenant, pick }),
  fc.record({ kind: fc.constant('revoke' as const), actor: tenant, owner: tenant, pick }),
  fc.record({ kind: fc.constant('request report' as const), actor: tenant, owner: tenant, pick }),
  fc.record({ kind: fc.constant('read report' as const), actor: tenant, owner: tenant, pick }),
  fc.record({ kind: fc.constant('add webhook endpoint' as const), actor: tenant }),
  fc.record({ kind: fc.constant('delete webhook endpoint' as const), actor: tenant, owner: tenant, pick }),
);

const receiver = await startWebhookReceiver();
afterAll(() => receiver.close());

const nth = <T>(items: Iterable<T>, index: number): T | undefined => {
  const all = [...items];
  return all.length === 0 ? undefined : all[index % all.length];
};

async function newTenants(): Promise<TenantModel[]> {
  const [a, b] = [uniqueOrg('iso-a'), uniqueOrg('iso-b')];
  const scenarioUsers = [...SCENARIO_IDS];
  const liveUsers = async (orgId: string) => (await seedOrganization(orgId, 3)).map((user) => user.id);
  const model = async (auth: string, users: readonly string[]): Promise<TenantModel> => ({
    auth,
    tokens: new Map(),
    jobs: new Set(),
    endpoints: new Set(),
    users,
  });
  return Promise.all([
    model(await tokenFor(a), await liveUsers(a)),
    model(await sandboxTokenFor(a), scenarioUsers),
    model(await tokenFor(b), await liveUsers(b)),
    model(await sandboxTokenFor(b), scenarioUsers),
  ]);
}

/** Runs one operation and checks its answer against the model; returns a description for the failure message. */
async function run(op: Operation, tenants: TenantModel[], serial: number): Promise<void> {
  const actor = tenants[op.actor]!;
  const label = `${op.kind} by ${TENANTS[op.actor]}${'owner' in op ? ` on ${TENANTS[op.owner]}'s` : ''}`;
  const own = 'owner' in op && op.owner === op.actor;
  switch (op.kind) {
    case 'create token': {
      const created = await callApi('POST', '/v1/onboarding-token', {
        token: actor.auth,
        body: { email: `p${serial}-${Date.now()}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
      });
      expect(created.status, label).toBe(201);
      actor.tokens.set(created.body.tokenId, { code: created.body.onboarding_token, status: 'Issued' });
      return;
    }
    case 'redeem': {
      const [tokenId, token] = nth(tenants[op.owner]!.tokens, op.pick) ?? [];
      if (!tokenId || !token) return;
      const redeemed = await callApi('POST', '/v1/onboarding-token/redeem', {
        token: actor.auth,
        body: { onboarding_token: token.code },
      });
      if (!own) return void expect(redeemed.status, label).toBe(404);
      expect(redeemed.status, label).toBe(token.status === 'Issued' ? 200 : 409);
      if (token.status === 'Issued') token.status = 'Used';
      return;
    }
    case 'revoke': {
      const [tokenId, token] = nth(tenants[op.owner]!.tokens, op.pick) ?? [];
      if (!tokenId || !token) return;
      const revoked = await callApi('DELETE', `/v1/onboarding-tokens/${tokenId}`, { token: actor.auth });
      if (!own) return void expect(revoked.status, label).toBe(404);
      expect(revoked.status, label).toBe(token.status === 'Used' ? 409 : 204);
      if (token.status === 'Issued') token.status = 'Revoked';
      return;
    }
    case 'request report': {
      const userId = nth(tenants[op.owner]!.users, op.pick)!;
      const requested = await callApi('POST', '/v1/document/api', { token: actor.auth, body: { userId } });
      if (!actor.users.includes(userId)) return void expect(requested.status, label).toBe(404);
      // Its user may have a job open, and the tenant may have spent its 10 requests: both are its own business.
      expect([202, 409, 429], label).toContain(requested.status);
      if (requested.status === 202) actor.jobs.add(requested.body.jobId);
      return;
    }
    case 'read report': {
      const jobId = nth(tenants[op.owner]!.jobs, op.pick);
      if (!jobId) return;
      const read = await callApi('GET', `/v1/document/api/${jobId}`, { token: actor.auth });
      expect(read.status, label).toBe(own ? 200 : 404);
      return;
    }
    case 'add webhook endpoint': {
      const created = await callApi('POST', '/v1/webhooks', {
        token: actor.auth,
        body: { url: receiver.url, events: ['report.completed'] },
      });
      expect(created.status, label).toBe(201);
      actor.endpoints.add(created.body.id);
      return;
    }
    case 'delete webhook endpoint': {
      const endpointId = nth(tenants[op.owner]!.endpoints, op.pick);
      if (!endpointId) return;
      const deleted = await callApi('DELETE', `/v1/webhooks/${endpointId}`, { token: actor.auth });
      if (!own) return void expect(deleted.status, label).toBe(404);
      expect(deleted.status, label).toBe(204);
      actor.endpoints.delete(endpointId);
      return;
    }
  }
}

/** Every list, query and audit trail of the tenant holds its own objects and nothing else. */
async function expectOnlyItsOwn(name: TenantName, model: TenantModel, everyId: ReadonlySet<string>): Promise<void> {
  const tokens = await callApi('GET', '/v1/onboarding-tokens?limit=100', { token: model.auth });
  expect(
    Object.fromEntries(
      (tokens.body.results as Array<{ tokenId: string; status: string }>).map((row) => [row.tokenId, row.status]),
    ),
    `${name}'s tokens`,
  ).toEqual(Object.fromEntries([...model.tokens].map(([id, token]) => [id, token.status])));

  const jobs = await callApi('GET', '/v1/document/api?limit=100', { token: model.auth });
  expect(
    new Set((jobs.body.results as Array<{ jobId: string }>).map((job) => job.jobId)),
    `${name}'s report jobs`,
  ).toEqual(model.jobs);

  const endpoints = await callApi('GET', '/v1/webhooks', { token: model.auth });
  expect(
    new Set((endpoints.body.results as Array<{ id: string }>).map((endpoint) => endpoint.id)),
    `${name}'s webhook endpoints`,
  ).toEqual(model.endpoints);

  const users = await callApi('POST', '/v1/user-status', {
    token: model.auth,
    body: { filters: {}, result_keys: ['id'], pagination: { limit: 100 } },
  });
  expect(new Set((users.body.results as Array<{ id: string }>).map((user) => user.id)), `${name}'s users`).toEqual(
    new Set(model.users),
  );

  const audit = await callApi('GET', '/v1/audit-events?limit=100', { token: model.auth });
  const own = new Set([...model.tokens.keys(), ...model.jobs, ...model.endpoints, ...model.users]);
  const foreign = (audit.body.results as Array<{ target: { id: string } }>)
    .map((event) => event.target.id)
    .filter((id) => everyId.has(id) && !own.has(id));
  expect(foreign, `${name}'s audit trail names another tenant's objects`).toEqual([]);
}

describe('live and sandbox of two organizations, in any order', () => {
  it('never read or write across modes or organizations', { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 8, maxLength: 24 }), async (operations) => {
        const tenants = await newTenants();
        for (const [serial, op] of operations.entries()) await run(op, tenants, serial);
        const everyId = new Set(
          tenants.flatMap((model) => [...model.tokens.keys(), ...model.jobs, ...model.endpoints]),
        );
        for (const [index, model] of tenants.entries()) await expectOnlyItsOwn(TENANTS[index]!, model, everyId);
      }),
      { numRuns: 6, seed: 2026_12_02, endOnFailure: true },
    );
  });
});
