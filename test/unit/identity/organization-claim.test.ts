import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbMachineClients } from '#shared/adapters/dynamodb/machine-client-directory.ts';
import { ConflictError } from '#shared/domain/errors.ts';
import {
  organizationForToken,
  rememberingMachineClients,
  type MachineClientDirectory,
  type TokenRequest,
} from '#shared/domain/identity/organization-claim.ts';

const directoryOf = (entries: Record<string, string>): MachineClientDirectory & { asked: string[] } => {
  const asked: string[] = [];
  return {
    asked,
    organizationOf: async (clientId) => {
      asked.push(clientId);
      return entries[clientId];
    },
  };
};

const deps = (machineClients: MachineClientDirectory) => ({ machineClients, organizationAttribute: 'custom:org_id' });

describe('organizationForToken', () => {
  it('gives a staff member the organization of their custom:org_id attribute', async () => {
    const request: TokenRequest = {
      kind: 'staff',
      userAttributes: { sub: 'u1', email: 'a@acme.example', 'custom:org_id': 'acme' },
    };

    await expect(organizationForToken(request, deps(directoryOf({})))).resolves.toBe('acme');
  });

  it('gives a staff member without the attribute, or with an invalid one, no organization', async () => {
    const none = directoryOf({});

    await expect(organizationForToken({ kind: 'staff', userAttributes: {} }, deps(none))).resolves.toBeUndefined();
    await expect(
      organizationForToken({ kind: 'staff', userAttributes: { 'custom:org_id': 'acme ltd' } }, deps(none)),
    ).resolves.toBeUndefined();
    expect(none.asked).toEqual([]);
  });

  it('gives a machine client the organization recorded for it, and an unknown client none', async () => {
    const directory = directoryOf({ client1: 'globex' });

    await expect(organizationForToken({ kind: 'machine', clientId: 'client1' }, deps(directory))).resolves.toBe(
      'globex',
    );
    await expect(
      organizationForToken({ kind: 'machine', clientId: 'client2' }, deps(directory)),
    ).resolves.toBeUndefined();
  });
});

describe('rememberingMachineClients', () => {
  it('asks the directory once per client within the time to live, and again after it', async () => {
    let now = 0;
    const directory = directoryOf({ client1: 'acme' });
    const remembering = rememberingMachineClients(directory, { ttlMs: 1_000, now: () => now });

    await remembering.organizationOf('client1');
    now = 999;
    await expect(remembering.organizationOf('client1')).resolves.toBe('acme');
    now = 1_001;
    await remembering.organizationOf('client1');

    expect(directory.asked).toEqual(['client1', 'client1']);
  });

  it('remembers an unknown client for a tenth of the time only', async () => {
    let now = 0;
    const entries: Record<string, string> = {};
    const directory = directoryOf(entries);
    const remembering = rememberingMachineClients(directory, { ttlMs: 1_000, now: () => now });

    await expect(remembering.organizationOf('new-client')).resolves.toBeUndefined();
    entries['new-client'] = 'acme';
    now = 50;
    await expect(remembering.organizationOf('new-client')).resolves.toBeUndefined();
    now = 101;
    await expect(remembering.organizationOf('new-client')).resolves.toBe('acme');
  });
});

describe('DynamoDbMachineClients', () => {
  const documents = mockClient(DynamoDBDocumentClient);
  const clients = new DynamoDbMachineClients(DynamoDBDocumentClient.from(new DynamoDBClient({})), 'MachineClients');

  beforeEach(() => documents.reset());

  it('reads the organization of a client by its id', async () => {
    documents.on(GetCommand, { Key: { clientId: 'c1' } }).resolves({ Item: { orgId: 'acme' } });
    documents.on(GetCommand, { Key: { clientId: 'c2' } }).resolves({});

    await expect(clients.organizationOf('c1')).resolves.toBe('acme');
    await expect(clients.organizationOf('c2')).resolves.toBeUndefined();
    expect(documents).toHaveReceivedCommandWith(GetCommand, { TableName: 'MachineClients', Key: { clientId: 'c1' } });
  });

  it('records a client once: a second registration of the id is a conflict', async () => {
    documents
      .on(PutCommand)
      .resolvesOnce({})
      .rejects(new ConditionalCheckFailedException({ message: 'exists', $metadata: {} }));
    const registration = { clientId: 'c1', orgId: 'acme', createdAt: '2026-11-25T00:00:00.000Z' };

    await clients.register(registration);
    await expect(clients.register(registration)).rejects.toBeInstanceOf(ConflictError);
    expect(documents).toHaveReceivedCommandWith(PutCommand, {
      TableName: 'MachineClients',
      Item: registration,
      ConditionExpression: 'attribute_not_exists(clientId)',
    });
  });
});
