import { CognitoIdentityProviderClient } from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbMachineClients } from '#shared/adapters/dynamodb/machine-client-directory.ts';
import { parseCommandLine } from './command-line.ts';
import { addOrganization, StaffMemberConflictError } from './org-add/add-organization.ts';
import { parseOrgAddArguments, usage } from './org-add/arguments.ts';
import { CognitoUserPool } from './org-add/cognito-user-pool.ts';

/** `npm run -s org:add -- <orgId> --admin <email>`: an organization in the Cognito user pool (scripts/org-add/). */

async function main(): Promise<number> {
  const options = parseCommandLine('org:add', usage, () => parseOrgAddArguments(process.argv.slice(2)));
  if (options === undefined) return 2;
  if ('help' in options) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  const clientConfig = options.region ? { region: options.region } : {};
  try {
    const result = await addOrganization(
      { orgId: options.orgId, adminEmail: options.adminEmail, scopes: options.scopes },
      {
        userPool: new CognitoUserPool(new CognitoIdentityProviderClient(clientConfig), options.userPoolId),
        machineClients: new DynamoDbMachineClients(
          DynamoDBDocumentClient.from(new DynamoDBClient(clientConfig)),
          options.machineClientsTable,
        ),
        now: () => new Date(),
      },
    );
    process.stdout.write(
      `organization ${options.orgId}\n` +
        `machine client id:     ${result.machineClient.clientId}\n` +
        `machine client secret: ${result.machineClient.clientSecret}\n` +
        `sandbox client id:     ${result.sandboxClient.clientId}\n` +
        `sandbox client secret: ${result.sandboxClient.clientSecret}\n` +
        `scopes:                ${options.scopes.join(' ')}\n` +
        (result.invited
          ? `invited:               ${options.adminEmail} (Cognito e-mails a temporary password)\n`
          : `already a member:      ${options.adminEmail} (no invitation sent)\n`),
    );
    return 0;
  } catch (error) {
    const message =
      error instanceof StaffMemberConflictError
        ? error.message
        : `${(error as Error).name}: ${(error as Error).message}`;
    process.stderr.write(`org:add: ${message}\n`);
    return 1;
  }
}

process.exitCode = await main();
