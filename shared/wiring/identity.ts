import { containerDynamoDbClients } from '#shared/adapters/aws-clients.ts';
import { DynamoDbMachineClients } from '#shared/adapters/dynamodb/machine-client-directory.ts';
import { rememberingMachineClients } from '#shared/domain/identity/organization-claim.ts';
import { createTokenVerifier, keySetFrom, type TokenVerifier } from '#shared/http/auth.ts';

/** How long an API function trusts what it learnt about a machine client (see rememberingMachineClients). */
const MACHINE_CLIENT_MEMORY_MS = 300_000;

/** The verifier an API function builds once per cold start from its validated configuration. */
export function tokenVerifierFrom(config: {
  JWT_ISSUER: string;
  JWT_AUDIENCE?: string | undefined;
  JWT_CLIENT_IDS?: readonly string[] | undefined;
  MACHINE_CLIENT_IDS?: readonly string[] | undefined;
  MACHINE_CLIENTS_TABLE_NAME?: string | undefined;
  SCOPE_PREFIX?: string | undefined;
  JWKS_URL?: string | undefined;
  JWKS_JSON?: unknown;
  ORG_CLAIM: string;
  ORG_NAME_CLAIM: string;
  ROLE_CLAIM: string;
}): TokenVerifier {
  return createTokenVerifier({
    issuer: config.JWT_ISSUER,
    audience: config.JWT_AUDIENCE,
    clientIds: config.JWT_CLIENT_IDS,
    machineClients: config.MACHINE_CLIENTS_TABLE_NAME
      ? rememberingMachineClients(
          new DynamoDbMachineClients(containerDynamoDbClients().documents, config.MACHINE_CLIENTS_TABLE_NAME),
          { ttlMs: MACHINE_CLIENT_MEMORY_MS },
        )
      : undefined,
    machineClientIds: config.MACHINE_CLIENT_IDS,
    scopePrefix: config.SCOPE_PREFIX,
    keySet: keySetFrom(config),
    orgClaim: config.ORG_CLAIM,
    orgNameClaim: config.ORG_NAME_CLAIM,
    roleClaim: config.ROLE_CLAIM,
  });
}
