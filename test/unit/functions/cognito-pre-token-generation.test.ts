import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { PreTokenGenerationV2TriggerEvent, PreTokenGenerationV3TriggerEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
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
function cognitoEvent(triggerSource: string, userAttributes: Record<string, string>, clientId: string): Event {
  return {
    version: '3',
    triggerSource,
    region: 'eu-west-1',
    userPoolId: 'eu-west-1_AbCdEf123',
    userName: triggerSource === 'TokenGeneration_ClientCredentials' ? undefined : 'a1b2c3d4-cafe',
    callerContext: { awsSdkVersion: 'aws-sdk-unknown-unknown', clientId },
    request: {
      userAttributes,
      groupConfiguration: { groupsToOverride: [], iamRolesToOverride: [], preferredRole: null },
      scopes: ['openid', 'onboarding-api/reports:read'],
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
      cognitoEvent('TokenGeneration_RefreshTokens', { sub: 'x', email: 'x@example.org' }, 'dashboard-client'),
      lambdaContext(),
    );

    expect(machine.response.claimsAndScopeOverrideDetails).toEqual({ accessTokenGeneration: {} });
    expect(staff.response.claimsAndScopeOverrideDetails).toEqual({ accessTokenGeneration: {} });
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(JSON.stringify(vi.mocked(logger.warn).mock.calls)).not.toContain('x@example.org');
  });
});
