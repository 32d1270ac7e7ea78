import {
  CodeDeployClient,
  GetDeploymentTargetCommand,
  ListDeploymentTargetsCommand,
  PutLifecycleEventHookExecutionStatusCommand,
} from '@aws-sdk/client-codedeploy';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { handler as routeNotFound } from '#functions/route-not-found.ts';
import { newVersionCheckPorts } from '#shared/wiring/deployments.ts';
import { COGNITO_SCOPE_PREFIX, ORGANIZATION_USER_ATTRIBUTE } from '#shared/config/cognito-identity.ts';
import {
  checkNewVersion,
  syntheticRequest,
  SYNTHETIC_ORGANIZATION,
  type NewVersionCheckSettings,
  type SyntheticRequestKind,
} from '#shared/domain/deployments/new-version-check.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import type { ApiEvent, ApiResult } from '#shared/http/api-types.ts';
import type { ApiContext } from '#shared/http/middlewares.ts';
import { ok } from '#shared/http/responses.ts';
import { lambdaContext } from '#test/support/api-event.ts';
import { createTestKeySet } from '#test/support/jwt.ts';
import { testTokenVerifier } from '#test/support/fixtures/token-verifier.ts';

// Quiet logs: the logger reads its level once, when shared/observability/logger.ts is first imported.
vi.hoisted(() => {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
});

const codeDeploy = mockClient(CodeDeployClient);
const lambda = mockClient(LambdaClient);

const event = { DeploymentId: 'd-ABCDEF123', LifecycleEventHookExecutionId: 'hook-execution-1' };
const FUNCTION_NAME = 'OnboardingReportsService-prod-ListOnboardingTokens-AbC123';

const SIGN_IN = { scopePrefix: COGNITO_SCOPE_PREFIX, organizationAttribute: ORGANIZATION_USER_ATTRIBUTE };

const settingsFor = (kind: SyntheticRequestKind, overrides: Partial<NewVersionCheckSettings> = {}) => ({
  kind,
  signIn: SIGN_IN,
  expectedApiStatus: 401,
  expectedApiStatusByFunction: {},
  invocationTimeoutMs: 200,
  ...overrides,
});

const check = (kind: SyntheticRequestKind, overrides: Partial<NewVersionCheckSettings> = {}) =>
  checkNewVersion(
    newVersionCheckPorts(new CodeDeployClient({}), new LambdaClient({})),
    settingsFor(kind, overrides),
  )(event);

const answering = (answer: unknown) => ({
  StatusCode: 200,
  Payload: new TextEncoder().encode(JSON.stringify(answer)) as never,
});

const standardBody = (status: number, error: string) =>
  JSON.stringify({
    code: status,
    timestamp: '2026-01-01T00:00:00.000Z',
    path: '/',
    method: 'GET',
    error,
    message: 'x',
  });

const reportedStatus = () =>
  codeDeploy.commandCalls(PutLifecycleEventHookExecutionStatusCommand).map((call) => call.args[0].input);

beforeEach(() => {
  codeDeploy.reset();
  lambda.reset();
  codeDeploy.on(ListDeploymentTargetsCommand).resolves({ targetIds: [FUNCTION_NAME] });
  codeDeploy.on(GetDeploymentTargetCommand).resolves({
    deploymentTarget: {
      lambdaTarget: { lambdaFunctionInfo: { functionName: FUNCTION_NAME, functionAlias: 'live', targetVersion: '42' } },
    },
  });
  codeDeploy.on(PutLifecycleEventHookExecutionStatusCommand).resolves({});
});

afterAll(() => {
  codeDeploy.restore();
  lambda.restore();
});

describe('the pre-traffic check of a new version', () => {
  it('invokes exactly the version CodeDeploy shifts to and reports Succeeded on the contract’s 401', async () => {
    lambda.on(InvokeCommand).resolves(answering({ statusCode: 401, body: standardBody(401, 'UNAUTHORIZED') }));

    const outcome = await check('api');

    expect(outcome).toEqual({ status: 'Succeeded', target: { functionName: FUNCTION_NAME, version: '42' } });
    expect(lambda).toReceiveCommandWith(InvokeCommand, { FunctionName: FUNCTION_NAME, Qualifier: '42' });
    const payload = JSON.parse(
      new TextDecoder().decode(lambda.commandCalls(InvokeCommand)[0]!.args[0].input.Payload as Uint8Array),
    );
    expect(payload.headers).not.toHaveProperty('authorization');
    expect(reportedStatus()).toEqual([
      {
        deploymentId: event.DeploymentId,
        lifecycleEventHookExecutionId: event.LifecycleEventHookExecutionId,
        status: 'Succeeded',
      },
    ]);
  });

  it.each([
    ['a 200 (an authenticated route that lets a caller without a token in)', { statusCode: 200, body: '{}' }],
    ['a 500', { statusCode: 500, body: standardBody(500, 'INTERNAL_SERVER_ERROR') }],
    ['a 401 without the contract’s body', { statusCode: 401, body: '{"message":"Unauthorized"}' }],
    ['no HTTP result at all', null],
  ])('reports Failed on %s', async (_, answer) => {
    lambda.on(InvokeCommand).resolves(answering(answer));

    expect((await check('api')).status).toBe('Failed');
    expect(reportedStatus().map((input) => input.status)).toEqual(['Failed']);
  });

  it('reports Failed when the new version fails (a crash at cold start, an uncaught error)', async () => {
    lambda
      .on(InvokeCommand)
      .resolves({ ...answering({ errorType: 'ConfigurationError' }), FunctionError: 'Unhandled' });

    expect(await check('queue')).toMatchObject({ status: 'Failed', reason: 'the function failed (Unhandled)' });
    expect(reportedStatus().map((input) => input.status)).toEqual(['Failed']);
  });

  it('reports Failed when the new version does not answer in time', async () => {
    lambda.on(InvokeCommand).callsFake(() => new Promise(() => undefined));

    expect(await check('api', { invocationTimeoutMs: 50 })).toMatchObject({
      status: 'Failed',
      reason: 'no answer within 50 ms',
    });
    expect(reportedStatus().map((input) => input.status)).toEqual(['Failed']);
  });

  it('reports Failed when the invocation itself is refused, or CodeDeploy names no version', async () => {
    lambda.on(InvokeCommand).rejects(Object.assign(new Error('denied'), { name: 'AccessDeniedException' }));
    expect(await check('api')).toMatchObject({ status: 'Failed', reason: expect.stringContaining('AccessDenied') });

    codeDeploy.on(GetDeploymentTargetCommand).resolves({ deploymentTarget: {} });
    expect((await check('api')).status).toBe('Failed');
    expect(reportedStatus().map((input) => input.status)).toEqual(['Failed', 'Failed']);
  });

  it('expects the status named for the function: the public document 200, the unmatched route 404', async () => {
    lambda.on(InvokeCommand).resolves(answering({ statusCode: 404, body: standardBody(404, 'NOT_FOUND') }));

    expect((await check('api')).status).toBe('Failed');
    expect((await check('api', { expectedApiStatusByFunction: { [FUNCTION_NAME]: 404 } })).status).toBe('Succeeded');
  });

  it.each([
    ['queue', { batchItemFailures: [] }, { batchItemFailures: [{ itemIdentifier: 'x' }] }],
    ['schedule', { timedOut: 0, skipped: 0 }, null],
    ['ses-event', 'ignored', 'bounce'],
  ] as const)('checks a %s function by its answer to its synthetic request', async (kind, healthy, wrong) => {
    lambda.on(InvokeCommand).resolvesOnce(answering(healthy)).resolvesOnce(answering(wrong));

    expect((await check(kind)).status).toBe('Succeeded');
    expect((await check(kind)).status).toBe('Failed');
  });

  it('throws when CodeDeploy does not take the report, so the hook times out failed instead of passing', async () => {
    lambda.on(InvokeCommand).resolves(answering({ statusCode: 401, body: standardBody(401, 'UNAUTHORIZED') }));
    codeDeploy.on(PutLifecycleEventHookExecutionStatusCommand).rejects(new Error('throttled'));

    await expect(check('api')).rejects.toThrow('throttled');
  });
});

describe('the pre-traffic check of a pre-token-generation trigger (a staff sign-in in no group)', () => {
  const signInAnswer = (accessTokenGeneration: unknown) => ({
    ...(syntheticRequest('pre-token-generation', SIGN_IN) as object),
    response: { claimsAndScopeOverrideDetails: { accessTokenGeneration } },
  });
  const apiScopesAsked = () =>
    (syntheticRequest('pre-token-generation', SIGN_IN) as { request: { scopes: string[] } }).request.scopes.filter(
      (scope) => scope.startsWith(COGNITO_SCOPE_PREFIX),
    );
  const organizationClaim = { org_id: SYNTHETIC_ORGANIZATION };

  it('asks, for a staff member in no role group, for every API scope the dashboard could ask for', () => {
    const request = syntheticRequest('pre-token-generation', SIGN_IN) as {
      triggerSource: string;
      request: { groupConfiguration: { groupsToOverride: string[] }; userAttributes: Record<string, string> };
    };
    expect(request.triggerSource).not.toBe('TokenGeneration_ClientCredentials');
    expect(request.request.groupConfiguration.groupsToOverride).toEqual([]);
    expect(request.request.userAttributes[ORGANIZATION_USER_ATTRIBUTE]).toBe(SYNTHETIC_ORGANIZATION);
    expect(apiScopesAsked().length).toBeGreaterThan(0);
  });

  it('reports Succeeded when every API scope is suppressed and the organization claim is in', async () => {
    lambda
      .on(InvokeCommand)
      .resolves(
        answering(signInAnswer({ claimsToAddOrOverride: organizationClaim, scopesToSuppress: apiScopesAsked() })),
      );

    expect(await check('pre-token-generation')).toMatchObject({ status: 'Succeeded' });
    expect(reportedStatus().map((input) => input.status)).toEqual(['Succeeded']);
  });

  it.each([
    [
      'an API scope left in',
      () => signInAnswer({ claimsToAddOrOverride: organizationClaim, scopesToSuppress: apiScopesAsked().slice(1) }),
    ],
    [
      'a scope added',
      () =>
        signInAnswer({
          claimsToAddOrOverride: organizationClaim,
          scopesToSuppress: apiScopesAsked(),
          scopesToAdd: [`${COGNITO_SCOPE_PREFIX}users:erase`],
        }),
    ],
    ['no organization claim', () => signInAnswer({ scopesToSuppress: apiScopesAsked() })],
    ['the event back unchanged', () => syntheticRequest('pre-token-generation', SIGN_IN)],
  ])('reports Failed on %s', async (_, answer) => {
    lambda.on(InvokeCommand).resolves(answering(answer()));

    expect((await check('pre-token-generation')).status).toBe('Failed');
    expect(reportedStatus().map((input) => input.status)).toEqual(['Failed']);
  });

  it('reports Failed when the trigger fails', async () => {
    lambda
      .on(InvokeCommand)
      .resolves({ ...answering({ errorType: 'ResourceNotFoundException' }), FunctionError: 'Unhandled' });

    expect(await check('pre-token-generation')).toMatchObject({
      status: 'Failed',
      reason: 'the function failed (Unhandled)',
    });
    expect(reportedStatus().map((input) => input.status)).toEqual(['Failed']);
  });

  it('passes with the answer of the real trigger, which reads nothing for a sign-in', async () => {
    Object.assign(process.env, {
      AWS_REGION: 'eu-west-1',
      MACHINE_CLIENTS_TABLE_NAME: 'MachineClients',
      ORG_CLAIM: 'org_id',
    });
    const { handler } = (await import('#functions/cognito-pre-token-generation.ts')) as unknown as {
      handler: (event: unknown, context: unknown) => Promise<unknown>;
    };
    const documents = mockClient(DynamoDBDocumentClient);
    const answer = await handler(syntheticRequest('pre-token-generation', SIGN_IN), lambdaContext());
    expect(documents.calls()).toHaveLength(0);
    documents.restore();
    lambda.on(InvokeCommand).resolves(answering(answer));

    expect((await check('pre-token-generation')).status).toBe('Succeeded');
  });
});

describe('the synthetic API request', () => {
  const invoke = (handler: unknown) =>
    (handler as (event: ApiEvent, context: ApiContext) => Promise<ApiResult>)(
      syntheticRequest('api', SIGN_IN) as ApiEvent,
      lambdaContext() as ApiContext,
    );

  it('is answered 401 in the contract’s body by an authenticated function, which touches nothing', async () => {
    const key = await createTestKeySet();
    const handle = vi.fn(async () => ok({}));
    const authenticated = createApiHandler({
      requiredScope: 'onboarding:read',
      verifyToken: testTokenVerifier(key.jwks),
      handle,
    });
    const answer = await invoke(authenticated);

    expect(answer.statusCode).toBe(401);
    expect(JSON.parse(answer.body!)).toMatchObject({ code: 401, error: 'UNAUTHORIZED' });
    expect(handle).not.toHaveBeenCalled();
  });

  it('is answered 404 in the contract’s body by the unmatched route', async () => {
    const answer = await invoke(routeNotFound);
    expect(answer.statusCode).toBe(404);
    expect(JSON.parse(answer.body!)).toMatchObject({ code: 404 });
  });
});
