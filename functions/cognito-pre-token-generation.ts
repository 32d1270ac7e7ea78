import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { PreTokenGenerationV2TriggerEvent, PreTokenGenerationV3TriggerEvent } from 'aws-lambda';
import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbMachineClients } from '#shared/adapters/dynamodb/machine-client-directory.ts';
import { COGNITO_SCOPE_PREFIX, ORGANIZATION_USER_ATTRIBUTE } from '#shared/config/cognito-identity.ts';
import { sandboxScopeChanges, tenantForToken } from '#shared/domain/identity/machine-clients.ts';
import type { TokenRequest } from '#shared/domain/identity/organization-claim.ts';
import { scopesBeyondRoles } from '#shared/domain/identity/staff-roles.ts';
import { logger } from '#shared/observability/logger.ts';
import { traceInvocation } from '#shared/observability/tracer.ts';
import { loadBackgroundFunctionConfig } from '#shared/wiring/function-config.ts';

/**
 * Cognito's pre-token-generation trigger (event version 3: access tokens of sign-ins and of client
 * credentials grants alike): puts the organization claim into the access token, and keeps a staff
 * member's API scopes to those of their role groups (contract §20; a machine client keeps its own),
 * and `sandbox` when the dashboard's sandbox switch asks for it (every role may: SANDBOX_ROLES). A
 * machine client's token holds `sandbox` exactly when the client is its organization's sandbox
 * client (contract §23), whatever scopes it asked for.
 */
type PreTokenGenerationEvent = PreTokenGenerationV2TriggerEvent | PreTokenGenerationV3TriggerEvent;

const config = loadBackgroundFunctionConfig('PreTokenGeneration');
const machineClients = new DynamoDbMachineClients(
  containerDynamoDbClients().documents,
  config.MACHINE_CLIENTS_TABLE_NAME,
);

const tokenRequestOf = (event: PreTokenGenerationEvent): TokenRequest =>
  event.triggerSource === 'TokenGeneration_ClientCredentials'
    ? { kind: 'machine', clientId: event.callerContext.clientId }
    : { kind: 'staff', userAttributes: event.request.userAttributes };

export const handler = middy<PreTokenGenerationEvent, PreTokenGenerationEvent>()
  .use(traceInvocation())
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    const request = tokenRequestOf(event);
    const tenant = await tenantForToken(request, {
      machineClients,
      organizationAttribute: ORGANIZATION_USER_ATTRIBUTE,
    });
    const orgId = tenant?.orgId;
    if (orgId === undefined) {
      // The token is issued without the claim; the API refuses it (401). The ids say whom to fix.
      logger.warn('token issued without an organization', {
        kind: request.kind,
        clientId: event.callerContext.clientId,
        triggerSource: event.triggerSource,
      });
    }
    const requested = event.request.scopes ?? [];
    const { add, suppress } =
      request.kind === 'staff'
        ? {
            add: [],
            suppress: scopesBeyondRoles(
              requested,
              event.request.groupConfiguration.groupsToOverride ?? [],
              COGNITO_SCOPE_PREFIX,
            ),
          }
        : tenant
          ? sandboxScopeChanges(tenant.mode, requested, COGNITO_SCOPE_PREFIX)
          : { add: [], suppress: [] };
    event.response = {
      claimsAndScopeOverrideDetails: {
        accessTokenGeneration: {
          ...(orgId === undefined ? {} : { claimsToAddOrOverride: { [config.ORG_CLAIM]: orgId } }),
          ...(add.length > 0 ? { scopesToAdd: add } : {}),
          ...(suppress.length > 0 ? { scopesToSuppress: suppress } : {}),
        },
      },
    };
    return event;
  });
