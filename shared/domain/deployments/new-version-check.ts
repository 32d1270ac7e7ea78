/**
 * The pre-traffic check of a deployment (contract §24): before CodeDeploy shifts any traffic to a function's new
 * version, the version answers one synthetic request, and the deployment goes on only if the answer is the one a
 * healthy version gives. The request never changes data: an API request without a token, an empty queue batch, a
 * schedule's tick (what the schedule sends every minute anyway), an event the SES counter ignores, a token for a staff
 * member in no role group (which the Cognito trigger answers without reading anything).
 */

import { SCOPES } from '#shared/domain/identity/staff-roles.ts';

/** What kind of caller the function serves, which decides its synthetic request and the answer expected. */
export type SyntheticRequestKind = 'api' | 'queue' | 'schedule' | 'ses-event' | 'pre-token-generation';
export const SYNTHETIC_REQUEST_KINDS: readonly SyntheticRequestKind[] = [
  'api',
  'queue',
  'schedule',
  'ses-event',
  'pre-token-generation',
];

/** The version CodeDeploy is about to shift traffic to. */
export interface NewVersion {
  readonly functionName: string;
  readonly version: string;
}

/** What an invocation returned: Lambda's `FunctionError` when the function failed, else its answer. */
export type InvocationOutcome =
  { readonly failed: true; readonly error: string } | { readonly failed: false; readonly answer: unknown };

export type HookStatus = 'Succeeded' | 'Failed';

export interface NewVersionCheckPorts {
  /** The function and version the deployment shifts traffic to. */
  newVersionOf(deploymentId: string): Promise<NewVersion>;
  invoke(target: NewVersion, request: unknown, options: { signal: AbortSignal }): Promise<InvocationOutcome>;
  report(deploymentId: string, hookExecutionId: string, status: HookStatus): Promise<void>;
}

export interface NewVersionCheckSettings {
  readonly kind: SyntheticRequestKind;
  /** Status an API function answers a request without a token with: 401, or 403 behind the edge (its origin check). */
  readonly expectedApiStatus: number;
  /** Functions that answer otherwise, by function name: the public document (200), the unmatched route (404). */
  readonly expectedApiStatusByFunction: Readonly<Record<string, number>>;
  /** How long the synthetic call may take before the check fails. */
  readonly invocationTimeoutMs: number;
  /** How the user pool names the API's scopes and the organization attribute, for the synthetic sign-in. */
  readonly signIn: SyntheticSignInNames;
}

export interface SyntheticSignInNames {
  /** The resource server's prefix of every API scope (`onboarding-api/`). */
  readonly scopePrefix: string;
  /** The user attribute holding the organization (`custom:org_id`). */
  readonly organizationAttribute: string;
}

export interface CodeDeployHookEvent {
  readonly DeploymentId: string;
  readonly LifecycleEventHookExecutionId: string;
}

export interface NewVersionCheckOutcome {
  readonly status: HookStatus;
  readonly target?: NewVersion;
  /** Why the check failed; never the answer itself (it could quote request data). */
  readonly reason?: string;
}

export function checkNewVersion(ports: NewVersionCheckPorts, settings: NewVersionCheckSettings) {
  return async (event: CodeDeployHookEvent): Promise<NewVersionCheckOutcome> => {
    const outcome = await verdict(ports, settings, event.DeploymentId);
    // A report that fails throws: CodeDeploy then fails the hook at its own timeout, never lets it pass.
    await ports.report(event.DeploymentId, event.LifecycleEventHookExecutionId, outcome.status);
    return outcome;
  };
}

async function verdict(
  ports: NewVersionCheckPorts,
  settings: NewVersionCheckSettings,
  deploymentId: string,
): Promise<NewVersionCheckOutcome> {
  let target: NewVersion | undefined;
  try {
    target = await ports.newVersionOf(deploymentId);
    const outcome = await withTimeout(settings.invocationTimeoutMs, (signal) =>
      ports.invoke(target!, syntheticRequest(settings.kind, settings.signIn), { signal }),
    );
    if (outcome === 'timed out')
      return { status: 'Failed', target, reason: `no answer within ${settings.invocationTimeoutMs} ms` };
    if (outcome.failed) return { status: 'Failed', target, reason: `the function failed (${outcome.error})` };
    const wrong = wrongAnswer(settings, target, outcome.answer);
    return wrong ? { status: 'Failed', target, reason: wrong } : { status: 'Succeeded', target };
  } catch (error) {
    return {
      status: 'Failed',
      ...(target ? { target } : {}),
      reason: `the check could not run (${(error as Error).name})`,
    };
  }
}

async function withTimeout<T>(timeoutMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T | 'timed out'> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve('timed out');
    }, timeoutMs);
  });
  try {
    return await Promise.race([call(controller.signal), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** The path the synthetic API request asks for: no route has it, and a function authenticates before it routes. */
export const SYNTHETIC_API_PATH = '/v1/pre-traffic-check';

export function syntheticRequest(kind: SyntheticRequestKind, signIn: SyntheticSignInNames): unknown {
  switch (kind) {
    case 'api':
      return syntheticApiRequest();
    case 'queue':
      return { Records: [] };
    case 'schedule':
      return {
        version: '0',
        id: 'pre-traffic-check',
        'detail-type': 'Scheduled Event',
        source: 'aws.events',
        time: new Date().toISOString(),
        resources: [],
        detail: {},
      };
    case 'ses-event':
      // Not an SES event record: the counter answers that it ignored it, and counts nothing.
      return {
        version: '0',
        id: 'pre-traffic-check',
        'detail-type': 'Pre-traffic check',
        source: 'onboarding.deployments',
        time: new Date().toISOString(),
        resources: [],
        detail: {},
      };
    case 'pre-token-generation':
      return syntheticSignIn(signIn);
  }
}

/** An API Gateway HTTP API (payload 2.0) request without an Authorization header. */
function syntheticApiRequest(): unknown {
  const now = new Date();
  return {
    version: '2.0',
    routeKey: `GET ${SYNTHETIC_API_PATH}`,
    rawPath: SYNTHETIC_API_PATH,
    rawQueryString: '',
    headers: { accept: 'application/json', 'user-agent': 'pre-traffic-check' },
    requestContext: {
      accountId: 'pre-traffic-check',
      apiId: 'pre-traffic-check',
      domainName: 'pre-traffic-check.invalid',
      domainPrefix: 'pre-traffic-check',
      http: {
        method: 'GET',
        path: SYNTHETIC_API_PATH,
        protocol: 'HTTP/1.1',
        sourceIp: '192.0.2.1',
        userAgent: 'pre-traffic-check',
      },
      requestId: `pre-traffic-check-${now.getTime()}`,
      routeKey: `GET ${SYNTHETIC_API_PATH}`,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
}

/** The organization of the synthetic staff member: a valid id no organization has (contract §2). */
export const SYNTHETIC_ORGANIZATION = 'pre-traffic-check';

/** Every API scope, as the pool's resource server names them: the synthetic sign-in asks for them all. */
const apiScopesAsked = (signIn: SyntheticSignInNames) => SCOPES.map((scope) => `${signIn.scopePrefix}${scope}`);

/**
 * Cognito's pre token generation event (version 3, as the user pool sends it; a sign-in's is the same in version 2)
 * for a staff member of an organization in no role group, signing in through managed login and asking for every API
 * scope. A healthy trigger reads nothing for it and grants none of them (contract §27: no role, no scope).
 */
function syntheticSignIn(signIn: SyntheticSignInNames): unknown {
  return {
    version: '3',
    triggerSource: 'TokenGeneration_HostedAuth',
    region: 'pre-traffic-check',
    userPoolId: 'pre-traffic-check',
    userName: 'pre-traffic-check',
    callerContext: { awsSdkVersion: 'pre-traffic-check', clientId: 'pre-traffic-check' },
    request: {
      userAttributes: { sub: 'pre-traffic-check', [signIn.organizationAttribute]: SYNTHETIC_ORGANIZATION },
      groupConfiguration: { groupsToOverride: [], iamRolesToOverride: [], preferredRole: null },
      scopes: ['openid', ...apiScopesAsked(signIn)],
    },
    response: { claimsAndScopeOverrideDetails: null },
  };
}

/** Why `answer` is not what a healthy version of the function answers, or undefined when it is. */
function wrongAnswer(settings: NewVersionCheckSettings, target: NewVersion, answer: unknown): string | undefined {
  switch (settings.kind) {
    case 'api':
      return wrongApiAnswer(
        settings.expectedApiStatusByFunction[target.functionName] ?? settings.expectedApiStatus,
        answer,
      );
    case 'queue': {
      const failures = (answer as { batchItemFailures?: unknown } | null)?.batchItemFailures;
      return Array.isArray(failures) && failures.length === 0 ? undefined : 'an empty batch did not answer no failures';
    }
    case 'schedule':
      return typeof answer === 'object' && answer !== null ? undefined : 'a scheduled run answered no summary';
    case 'ses-event':
      return answer === 'ignored' ? undefined : 'an event that is not an SES record was not ignored';
    case 'pre-token-generation':
      return wrongSignInAnswer(settings.signIn, answer);
  }
}

/** What a pre token generation trigger answers, as far as the check reads it. */
interface SignInAnswer {
  readonly response?: {
    readonly claimsAndScopeOverrideDetails?: {
      readonly accessTokenGeneration?: {
        readonly claimsToAddOrOverride?: unknown;
        readonly scopesToAdd?: unknown;
        readonly scopesToSuppress?: unknown;
      };
    } | null;
  };
}

/** A healthy trigger suppresses every API scope of a staff member in no group and adds their organization. */
function wrongSignInAnswer(signIn: SyntheticSignInNames, answer: unknown): string | undefined {
  const generation = (answer as SignInAnswer | null)?.response?.claimsAndScopeOverrideDetails?.accessTokenGeneration;
  if (typeof generation !== 'object' || generation === null) return 'a sign-in answered no access token customisation';
  const suppressed: unknown[] = Array.isArray(generation.scopesToSuppress) ? generation.scopesToSuppress : [];
  const granted = apiScopesAsked(signIn).filter((scope) => !suppressed.includes(scope));
  const added = Array.isArray(generation.scopesToAdd) ? generation.scopesToAdd.length : 0;
  if (granted.length > 0 || added > 0)
    return `a staff member in no role group was granted ${granted.length + added} scopes, expected none`;
  const claims = generation.claimsToAddOrOverride;
  return typeof claims === 'object' && claims !== null && Object.values(claims).includes(SYNTHETIC_ORGANIZATION)
    ? undefined
    : 'a sign-in answered without the organization claim';
}

function wrongApiAnswer(expectedStatus: number, answer: unknown): string | undefined {
  const result = answer as { statusCode?: unknown; body?: unknown } | null;
  if (result?.statusCode !== expectedStatus)
    return `answered ${String(result?.statusCode)} to a request without a token, expected ${expectedStatus}`;
  // A success (the public document) has its own body; an error must be the contract's standard body.
  if (expectedStatus < 400) return undefined;
  let body: { code?: unknown; error?: unknown; message?: unknown } | undefined;
  try {
    body = JSON.parse(String(result.body)) as typeof body;
  } catch {
    return `answered ${expectedStatus} without a JSON body`;
  }
  return body?.code === expectedStatus && typeof body.error === 'string' && typeof body.message === 'string'
    ? undefined
    : `answered ${expectedStatus} without the contract's error body`;
}
