import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { PreTokenGenerationV2TriggerEvent, PreTokenGenerationV3TriggerEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { COGNITO_SCOPE_PREFIX } from '#shared/config/cognito-identity.ts';
import { ROLE_SCOPES, ROLES, SCOPES } from '#shared/domain/identity/staff-roles.ts';
import { logger } from '#shared/observability/logger.ts';
import { lambdaContext } from '#test/support/api-event.ts';

type Event = PreTokenGenerationV2TriggerEvent | PreTokenGenerationV3TriggerEvent;
type Handler = (event: Event, context: ReturnType<typeof lambdaContext>) => Promise<Event>;

const documents = mockClient(DynamoDBDocumentClient);
let handler: Handler;

beforeAll(async () => {
  Object.assign(process.env, {
    AWS_REGION: 'eu-west-1',
    MACHINE_CLIENTS_TABLE_NAME: 'MachineClients',
    ORG_CLAIM: 'org_id',
  });
  ({ handler } = (await import('#functions/cognito-pre-token-generation.ts')) as unknown as { handler: Handler });
});

beforeEach(() => {
  documents.reset();
  vi.restoreAllMocks();
  vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
});

/** The event Cognito sends (version 3), as its developer guide shows it. */
function cognitoEvent(
  triggerSource: string,
  userAttributes: Record<string, string>,
  clientId: string,
  request: { groups?: string[]; scopes?: string[] } = { groups: ['admin'] },
): Event {
  return {
    version: '3',
    triggerSource,
    region: 'eu-west-1',
    userPoolId: 'eu-west-1_AbCdEf123',
    userName: triggerSource === 'TokenGeneration_ClientCredentials' ? undefined : 'a1b2c3d4-cafe',
    callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId },
    request: {
      userAttributes,
      groupConfiguration: { groupsToOverride: request.groups ?? [], iamRolesToOverride: [], preferredRole: null },
      scopes: request.scopes ?? ['openid', 'onboarding-api/reports:read'],
    },
    response: { claimsAndScopeOverrideDetails: null },
  } as unknown as Event;
}

describe('cognito-pre-token-generation', () => {
  it('puts a staff member’s custom:org_id into the access token as the organization claim', async () => {
    const event = cognitoEvent(
      'TokenGeneration_HostedAuth',
      { sub: 'a1b2c3d4-cafe', email: 'admin@acme.example', 'custom:org_id': 'acme' },
      'dashboard-client',
    );

    const result = await handler(event, lambdaContext());

    expect(result.response.claimsAndScopeOverrideDetails).toEqual({
      accessTokenGeneration: { claimsToAddOrOverride: { org_id: 'acme' } },
    });
    expect(documents.calls()).toHaveLength(0);
  });

  it('puts the organization recorded for a machine client into its client-credentials token', async () => {
    documents.on(GetCommand, { TableName: 'MachineClients', Key: { clientId: 'machine-1' } }).resolves({
      Item: { orgId: 'globex' },
    });

    const result = await handler(cognitoEvent('TokenGeneration_ClientCredentials', {}, 'machine-1'), lambdaContext());

    expect(result.response.claimsAndScopeOverrideDetails?.accessTokenGeneration?.claimsToAddOrOverride).toEqual({
      org_id: 'globex',
    });
  });

  it('adds no organization for an unrecorded machine client or a user without one, and says so in the log', async () => {
    documents.on(GetCommand).resolves({});

    const machine = await handler(cognitoEvent('TokenGeneration_ClientCredentials', {}, 'stranger'), lambdaContext());
    const staff = await handler(
      cognitoEvent('TokenGeneration_RefreshTokens', { sub: 'x', email: 'x@example.org' }, 'dashboard-client', {
        groups: ['admin'],
      }),
      lambdaContext(),
    );

    expect(machine.response.claimsAndScopeOverrideDetails).toEqual({ accessTokenGeneration: {} });
    expect(staff.response.claimsAndScopeOverrideDetails).toEqual({ accessTokenGeneration: {} });
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(JSON.stringify(vi.mocked(logger.warn).mock.calls)).not.toContain('x@example.org');
  });
});

describe('cognito-pre-token-generation: staff roles from groups (contract §20)', () => {
  const prefixed = (scopes: readonly string[]) => scopes.map((scope) => `${COGNITO_SCOPE_PREFIX}${scope}`);
  const dashboardAsks = ['openid', 'email', ...prefixed(SCOPES.filter((scope) => scope !== 'onboarding:redeem'))];
  const staffAttributes = { sub: 'a1b2c3d4-cafe', email: 'staff@acme.example', 'custom:org_id': 'acme' };

  /** The API scopes the token keeps: what the client asked for, less what the trigger suppresses. */
  async function grantedScopes(groups: string[], asked: readonly string[] = dashboardAsks): Promise<string[]> {
    const result = await handler(
      cognitoEvent('TokenGeneration_HostedAuth', staffAttributes, 'dashboard-client', { groups, scopes: [...asked] }),
      lambdaContext(),
    );
    const generation = result.response.claimsAndScopeOverrideDetails?.accessTokenGeneration;
    expect(generation?.claimsToAddOrOverride).toEqual({ org_id: 'acme' });
    expect(generation?.scopesToAdd).toBeUndefined();
    const suppressed = new Set(generation?.scopesToSuppress ?? []);
    return asked.filter((scope) => !suppressed.has(scope)).sort();
  }

  it.each(ROLES)('grants the %s group exactly its role’s scopes of those the dashboard asks for', async (role) => {
    const expected = ['email', 'openid', ...prefixed(ROLE_SCOPES[role].filter((s) => s !== 'onboarding:redeem'))];
    expect(await grantedScopes([role])).toEqual(expected.sort());
  });

  it('grants no API scope to a staff member in no group, or only in groups that are not roles', async () => {
    expect(await grantedScopes([])).toEqual(['email', 'openid']);
    expect(await grantedScopes(['Admins', 'everyone'])).toEqual(['email', 'openid']);
  });

  it('never grants more than the client asked for: a viewer asking for reports:read alone gets reports:read alone', async () => {
    expect(await grantedScopes(['viewer'], ['openid', `${COGNITO_SCOPE_PREFIX}reports:read`])).toEqual([
      'onboarding-api/reports:read',
      'openid',
    ]);
  });

  it('keeps a role’s scopes and drops the rest when the client asks for more than the role holds', async () => {
    expect(await grantedScopes(['operator'], prefixed(['users:erase', 'audit:read', 'webhooks:manage']))).toEqual([
      'onboarding-api/webhooks:manage',
    ]);
  });

  it('adds up the scopes of every role group a person is in', async () => {
    expect(await grantedScopes(['viewer', 'auditor'], prefixed(['audit:read', 'users:erase']))).toEqual([
      'onboarding-api/audit:read',
    ]);
  });

  it('adds sandbox to every token of a sandbox client, whatever scopes it asked for', async () => {
    documents.on(GetCommand).resolves({ Item: { orgId: 'globex', mode: 'sandbox' } });

    const asked = prefixed(['reports:read']);
    const result = await handler(
      cognitoEvent('TokenGeneration_ClientCredentials', {}, 'sandbox-1', { groups: [], scopes: asked }),
      lambdaContext(),
    );

    expect(result.response.claimsAndScopeOverrideDetails?.accessTokenGeneration).toEqual({
      claimsToAddOrOverride: { org_id: 'globex' },
      scopesToAdd: ['onboarding-api/sandbox'],
    });
    const holding = await handler(
      cognitoEvent('TokenGeneration_ClientCredentials', {}, 'sandbox-1', {
        groups: [],
        scopes: prefixed(['reports:read', 'sandbox']),
      }),
      lambdaContext(),
    );
    expect(holding.response.claimsAndScopeOverrideDetails?.accessTokenGeneration?.scopesToAdd).toBeUndefined();
  });

  it('takes sandbox out of a live machine client’s token, and out of a staff token of no role', async () => {
    documents.on(GetCommand).resolves({ Item: { orgId: 'globex' } });

    const machine = await handler(
      cognitoEvent('TokenGeneration_ClientCredentials', {}, 'machine-1', {
        groups: [],
        scopes: prefixed(['reports:read', 'sandbox']),
      }),
      lambdaContext(),
    );
    expect(machine.response.claimsAndScopeOverrideDetails?.accessTokenGeneration?.scopesToSuppress).toEqual([
      'onboarding-api/sandbox',
    ]);
    expect(await grantedScopes(['everyone'], prefixed(['reports:read', 'sandbox']))).toEqual([]);
  });

  it.each(ROLES)(
    'keeps sandbox in the %s’s token when the dashboard’s sandbox switch asks for it, with the role’s scopes alone',
    async (role) => {
      const expected = prefixed([...ROLE_SCOPES[role].filter((s) => s !== 'onboarding:redeem'), 'sandbox']);
      expect(await grantedScopes([role], [...dashboardAsks, `${COGNITO_SCOPE_PREFIX}sandbox`])).toEqual(
        ['email', 'openid', ...expected].sort(),
      );
    },
  );

  it('leaves a machine client’s scopes as its app client allows them', async () => {
    documents.on(GetCommand).resolves({ Item: { orgId: 'globex' } });

    const result = await handler(
      cognitoEvent('TokenGeneration_ClientCredentials', {}, 'machine-1', { groups: [], scopes: prefixed(SCOPES) }),
      lambdaContext(),
    );

    expect(result.response.claimsAndScopeOverrideDetails?.accessTokenGeneration?.scopesToSuppress).toBeUndefined();
  });
});
