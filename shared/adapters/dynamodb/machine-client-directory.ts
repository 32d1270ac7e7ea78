import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '#shared/domain/errors.ts';
import type {
  MachineClientDirectory,
  MachineClientRegistration,
  MachineClientRegistry,
} from '#shared/domain/identity/organization-claim.ts';
import type { MachineClientTenants } from '#shared/domain/identity/machine-clients.ts';
import type { Tenant } from '#shared/domain/identity/tenant.ts';
import { writeOnce } from './write-once.ts';

/**
 * The MachineClients table (shared/config/cognito-identity.ts): one item per app client,
 * `{clientId, orgId, mode, createdAt}` (`mode` absent: live, a client recorded before the sandbox).
 */
export class DynamoDbMachineClients implements MachineClientDirectory, MachineClientTenants, MachineClientRegistry {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async organizationOf(clientId: string): Promise<string | undefined> {
    const { Item } = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: { clientId }, ProjectionExpression: 'orgId' }),
    );
    return typeof Item?.orgId === 'string' ? Item.orgId : undefined;
  }

  async tenantOf(clientId: string): Promise<Tenant | undefined> {
    const { Item } = await this.documents.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { clientId },
        ProjectionExpression: 'orgId, #mode',
        ExpressionAttributeNames: { '#mode': 'mode' },
      }),
    );
    if (typeof Item?.orgId !== 'string') return undefined;
    return { orgId: Item.orgId, mode: Item.mode === 'sandbox' ? 'sandbox' : 'live' };
  }

  /**
   * The client id is the one Cognito just issued, so a record under it with this registration's
   * `createdAt` is this registration, put by an attempt whose answer was lost (write-once.ts).
   */
  async register(registration: MachineClientRegistration): Promise<void> {
    const written = await writeOnce(
      this.documents,
      {
        Put: {
          TableName: this.tableName,
          Item: { ...registration },
          ConditionExpression: 'attribute_not_exists(clientId)',
        },
      },
      { attribute: 'createdAt', value: registration.createdAt },
    );
    if (written.kind === 'condition-failed') {
      throw new ConflictError('this machine client is already recorded', { clientId: registration.clientId });
    }
  }
}
