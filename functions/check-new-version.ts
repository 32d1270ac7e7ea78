import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { createCodeDeployClient, createLambdaClient, newVersionCheckPorts } from '#shared/wiring/deployments.ts';
import { loadDeploymentFunctionConfig } from '#shared/wiring/function-config.ts';
import { COGNITO_SCOPE_PREFIX, ORGANIZATION_USER_ATTRIBUTE } from '#shared/config/cognito-identity.ts';
import {
  checkNewVersion,
  type CodeDeployHookEvent,
  type NewVersionCheckOutcome,
} from '#shared/domain/deployments/new-version-check.ts';
import { logger } from '#shared/observability/logger.ts';

const config = loadDeploymentFunctionConfig('CheckNewVersion');

const check = checkNewVersion(newVersionCheckPorts(createCodeDeployClient(), createLambdaClient()), {
  kind: config.SYNTHETIC_REQUEST,
  expectedApiStatus: config.EXPECTED_API_STATUS,
  expectedApiStatusByFunction: config.EXPECTED_API_STATUS_BY_FUNCTION,
  invocationTimeoutMs: config.INVOCATION_TIMEOUT_MS,
  signIn: { scopePrefix: COGNITO_SCOPE_PREFIX, organizationAttribute: ORGANIZATION_USER_ATTRIBUTE },
});

/**
 * CodeDeploy's BeforeAllowTraffic hook of every deployment group of one kind (lib/safe-deployments-construct.ts): the
 * new version answers a synthetic request before it takes traffic, and a wrong answer fails the deployment.
 */
export const handler = middy<CodeDeployHookEvent, NewVersionCheckOutcome>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    const outcome = await check(event);
    const details = { deploymentId: event.DeploymentId, ...outcome };
    if (outcome.status === 'Succeeded') logger.info('new version answered the synthetic request as expected', details);
    else logger.error('new version check failed: the deployment stops and rolls back', details);
    return outcome;
  });
