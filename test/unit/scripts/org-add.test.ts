import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminListGroupsForUserCommand,
  AdminRemoveUserFromGroupCommand,
  CognitoIdentityProviderClient,
  CreateUserPoolClientCommand,
  DeleteUserPoolClientCommand,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbMachineClients } from '#shared/adapters/dynamodb/machine-client-directory.ts';
import { SCOPES } from '#shared/domain/identity/staff-roles.ts';
import { UsageError } from '#scripts/command-line.ts';
import { addOrganization, StaffMemberConflictError } from '#scripts/org-add/add-organization.ts';
import { parseOrgAddArguments } from '#scripts/org-add/arguments.ts';
import { CognitoUserPool } from '#scripts/org-add/cognito-user-pool.ts';

const cognito = mockClient(CognitoIdentityProviderClient);
const documents = mockClient(DynamoDBDocumentClient);
const USER_POOL_ID = 'eu-west-1_AbCdEf123';
const NOW = new Date('2026-11-25T12:00:00.000Z');

const deps = () => ({
  userPool: new CognitoUserPool(new CognitoIdentityProviderClient({ region: 'eu-west-1' }), USER_POOL_ID),
  machineClients: new DynamoDbMachineClients(
    DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })),
    'MachineClients',
  ),
  now: () => NOW,
});

const input = { orgId: 'acme', adminEmail: 'admin@acme.example', scopes: [...SCOPES] };

beforeEach(() => {
  cognito.reset();
  documents.reset();
  cognito
    .on(AdminGetUserCommand)
    .rejects(new UserNotFoundException({ message: 'User does not exist.', $metadata: {} }));
  cognito
    .on(CreateUserPoolClientCommand, { ClientName: 'org-acme-machine' })
    .resolves({ UserPoolClient: { ClientId: '5machineclient0000000000', ClientSecret: 's3cr3t-value' } });
  cognito
    .on(CreateUserPoolClientCommand, { ClientName: 'org-acme-sandbox' })
    .resolves({ UserPoolClient: { ClientId: '7sandboxclient0000000000', ClientSecret: 'sandb0x-value' } });
  cognito.on(AdminCreateUserCommand).resolves({ User: { Username: 'uuid-1' } });
  cognito.on(AdminAddUserToGroupCommand).resolves({});
  cognito.on(AdminListGroupsForUserCommand).resolves({ Groups: [{ GroupName: 'admin' }] });
  documents.on(PutCommand).resolves({});
});

describe('org:add (addOrganization with Cognito and DynamoDB)', () => {
  it('creates a client-credentials client with every API scope, records it, and invites the admin with custom:org_id', async () => {
    const result = await addOrganization(input, deps());

    expect(result).toEqual({
      machineClient: { clientId: '5machineclient0000000000', clientSecret: 's3cr3t-value' },
      sandboxClient: { clientId: '7sandboxclient0000000000', clientSecret: 'sandb0x-value' },
      invited: true,
    });
    expect(cognito).toHaveReceivedCommandWith(CreateUserPoolClientCommand, {
      UserPoolId: USER_POOL_ID,
      ClientName: 'org-acme-machine',
      GenerateSecret: true,
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthFlows: ['client_credentials'],
      AllowedOAuthScopes: SCOPES.map((scope) => `onboarding-api/${scope}`),
    });
    expect(documents).toHaveReceivedCommandWith(PutCommand, {
      TableName: 'MachineClients',
      Item: { clientId: '5machineclient0000000000', orgId: 'acme', mode: 'live', createdAt: NOW.toISOString() },
      ConditionExpression: 'attribute_not_exists(clientId)',
    });
    expect(cognito).toHaveReceivedCommandWith(AdminCreateUserCommand, {
      UserPoolId: USER_POOL_ID,
      Username: 'admin@acme.example',
      DesiredDeliveryMediums: ['EMAIL'],
      UserAttributes: [
        { Name: 'email', Value: 'admin@acme.example' },
        { Name: 'email_verified', Value: 'true' },
        { Name: 'custom:org_id', Value: 'acme' },
      ],
    });
    expect(cognito).toHaveReceivedCommandWith(AdminAddUserToGroupCommand, {
      UserPoolId: USER_POOL_ID,
      Username: 'admin@acme.example',
      GroupName: 'admin',
    });
    expect(cognito).not.toHaveReceivedCommand(AdminRemoveUserFromGroupCommand);
  });

  it('creates the organization’s sandbox client with the same scopes plus sandbox, recorded as the sandbox’s', async () => {
    await addOrganization(input, deps());

    expect(cognito).toHaveReceivedCommandWith(CreateUserPoolClientCommand, {
      UserPoolId: USER_POOL_ID,
      ClientName: 'org-acme-sandbox',
      GenerateSecret: true,
      AllowedOAuthFlows: ['client_credentials'],
      AllowedOAuthScopes: [...SCOPES, 'sandbox'].map((scope) => `onboarding-api/${scope}`),
      WriteAttributes: ['email'],
    });
    expect(documents).toHaveReceivedCommandWith(PutCommand, {
      TableName: 'MachineClients',
      Item: { clientId: '7sandboxclient0000000000', orgId: 'acme', mode: 'sandbox', createdAt: NOW.toISOString() },
      ConditionExpression: 'attribute_not_exists(clientId)',
    });
    // The live client is never granted the sandbox scope.
    const live = cognito
      .commandCalls(CreateUserPoolClientCommand)
      .find((call) => call.args[0].input.ClientName === 'org-acme-machine');
    expect(live?.args[0].input.AllowedOAuthScopes).not.toContain('onboarding-api/sandbox');
  });

  it('creates the machine client with explicit write attributes, never the organization', async () => {
    await addOrganization(input, deps());

    expect(cognito).toHaveReceivedCommandWith(CreateUserPoolClientCommand, { WriteAttributes: ['email'] });
  });

  it('changes nothing when the admin is already staff of another organization', async () => {
    cognito.on(AdminGetUserCommand).resolves({
      Username: 'uuid-9',
      UserAttributes: [
        { Name: 'email', Value: 'admin@acme.example' },
        { Name: 'custom:org_id', Value: 'globex' },
      ],
    });

    await expect(addOrganization(input, deps())).rejects.toThrow(StaffMemberConflictError);
    expect(cognito).not.toHaveReceivedCommand(CreateUserPoolClientCommand);
    expect(cognito).not.toHaveReceivedCommand(AdminCreateUserCommand);
    expect(documents).not.toHaveReceivedCommand(PutCommand);
  });

  it('adds another machine client but sends no invitation when the admin is already staff of this organization', async () => {
    cognito.on(AdminGetUserCommand).resolves({ UserAttributes: [{ Name: 'custom:org_id', Value: 'acme' }] });

    const result = await addOrganization(input, deps());

    expect(result.invited).toBe(false);
    expect(cognito).toHaveReceivedCommandTimes(CreateUserPoolClientCommand, 2);
    expect(cognito).not.toHaveReceivedCommand(AdminCreateUserCommand);
    // A member's role is staff:role's to change, not a rerun's.
    expect(cognito).not.toHaveReceivedCommand(AdminAddUserToGroupCommand);
  });

  it('deletes the new client again when it cannot be recorded, and invites nobody', async () => {
    documents
      .on(PutCommand)
      .rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));

    await expect(addOrganization(input, deps())).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
    expect(cognito).toHaveReceivedCommandWith(DeleteUserPoolClientCommand, {
      UserPoolId: USER_POOL_ID,
      ClientId: '5machineclient0000000000',
    });
    expect(cognito).not.toHaveReceivedCommand(AdminCreateUserCommand);
  });

  it('deletes both new clients when the sandbox client cannot be recorded, and invites nobody', async () => {
    documents
      .on(PutCommand, { Item: { clientId: '7sandboxclient0000000000' } })
      .rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));

    await expect(addOrganization(input, deps())).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
    for (const clientId of ['5machineclient0000000000', '7sandboxclient0000000000']) {
      expect(cognito).toHaveReceivedCommandWith(DeleteUserPoolClientCommand, {
        UserPoolId: USER_POOL_ID,
        ClientId: clientId,
      });
    }
    expect(cognito).not.toHaveReceivedCommand(AdminCreateUserCommand);
  });

  it('gives the machine client only the scopes asked for', async () => {
    await addOrganization({ ...input, scopes: ['reports:read', 'users:read'] }, deps());

    expect(cognito).toHaveReceivedCommandWith(CreateUserPoolClientCommand, {
      ClientName: 'org-acme-machine',
      AllowedOAuthScopes: ['onboarding-api/reports:read', 'onboarding-api/users:read'],
    });
    expect(cognito).toHaveReceivedCommandWith(CreateUserPoolClientCommand, {
      ClientName: 'org-acme-sandbox',
      AllowedOAuthScopes: ['onboarding-api/reports:read', 'onboarding-api/users:read', 'onboarding-api/sandbox'],
    });
  });
});

describe('org:add arguments', () => {
  const env = { USER_POOL_ID, MACHINE_CLIENTS_TABLE_NAME: 'MachineClients', AWS_REGION: 'eu-west-1' };

  it('takes the organization, the admin and the pool and table from flags or the environment', () => {
    expect(parseOrgAddArguments(['acme', '--admin', 'Admin@Acme.example'], env)).toEqual({
      orgId: 'acme',
      adminEmail: 'admin@acme.example',
      userPoolId: USER_POOL_ID,
      machineClientsTable: 'MachineClients',
      region: 'eu-west-1',
      scopes: SCOPES.filter((scope) => scope !== 'users:erase'),
    });
    expect(
      parseOrgAddArguments(
        ['acme', '--admin', 'a@acme.example', '--user-pool-id', 'p', '--machine-clients-table', 't'],
        {},
      ),
    ).toMatchObject({ userPoolId: 'p', machineClientsTable: 't', region: undefined });
  });

  it('gives the machine client users:erase only when --scopes asks for it', () => {
    expect(parseOrgAddArguments(['acme', '--admin', 'a@acme.example'], env)).not.toHaveProperty(
      'scopes',
      expect.arrayContaining(['users:erase']),
    );
    expect(
      parseOrgAddArguments(['acme', '--admin', 'a@acme.example', '--scopes', 'users:read users:erase'], env),
    ).toMatchObject({ scopes: ['users:read', 'users:erase'] });
  });

  it.each([
    [[], /organization id is required/],
    [['acme ltd', '--admin', 'a@acme.example'], /1-64 characters/],
    [['acme'], /--admin must be an e-mail address/],
    [['acme', '--admin', 'not-an-address'], /--admin must be an e-mail address/],
    [['acme', '--admin', 'a@acme.example', '--scopes', 'reports:read everything'], /unknown: everything/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseOrgAddArguments(argv, env)).toThrow(message);
    expect(() => parseOrgAddArguments(argv, env)).toThrow(UsageError);
  });

  it('asks for the user pool and the table when neither flag nor environment names them', () => {
    expect(() => parseOrgAddArguments(['acme', '--admin', 'a@acme.example'], {})).toThrow(/--user-pool-id/);
    expect(() => parseOrgAddArguments(['acme', '--admin', 'a@acme.example'], { USER_POOL_ID })).toThrow(
      /--machine-clients-table/,
    );
  });
});
