import type { TableDefinition } from './table-definitions.ts';

/**
 * What the Cognito user pool of `-c identity=cognito` (lib/cognito-identity-construct.ts), its
 * pre-token-generation trigger and the `org:add` command agree on. docs/identity-providers.md.
 */

/** The resource server's identifier: Cognito names its scopes `onboarding-api/reports:read`. */
export const COGNITO_RESOURCE_SERVER_ID = 'onboarding-api';

/** What the API strips from Cognito's scopes (SCOPE_PREFIX). */
export const COGNITO_SCOPE_PREFIX = `${COGNITO_RESOURCE_SERVER_ID}/`;

/**
 * Cognito puts the user's groups into every access token of a sign-in (none for a machine client):
 * one group per staff role (staff-roles.ts), so the API reads the role from there.
 */
export const COGNITO_ROLE_CLAIM = 'cognito:groups';

/** The staff member's organization: a custom attribute only administrators write (AdminCreateUser). */
export const ORGANIZATION_ATTRIBUTE = 'org_id';
export const ORGANIZATION_USER_ATTRIBUTE = `custom:${ORGANIZATION_ATTRIBUTE}`;

/**
 * Machine clients (client credentials) and the organization each acts for: item `{clientId, orgId,
 * createdAt}` keyed by the app client id. The trigger reads it for every client-credentials token;
 * `org:add` writes it when it creates the client.
 */
export const machineClientsTable = {
  id: 'MachineClients',
  envVar: 'MACHINE_CLIENTS_TABLE_NAME',
  partitionKey: 'clientId',
  timeToLiveAttribute: 'ttl',
  globalSecondaryIndexes: [],
} as const satisfies TableDefinition;
