import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '#shared/domain/errors.ts';
import type {
  MachineClientDirectory,
  MachineClientRegistration,
  MachineClientRegistry,
} from '#shared/domain/identity/organization-claim.ts';

/** The MachineClients table (shared/config/cognito-identity.ts): one item per app client, `{clientId, orgId, createdAt}`. */
export class DynamoDbMachineClients implements MachineClientDirectory, MachineClientRegistry {
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

  async register(registration: MachineClientRegistration): Promise<void> {
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...registration },
          ConditionExpression: 'attribute_not_exists(clientId)',
        }),
      );
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new ConflictError('this machine client is already recorded', { clientId: registration.clientId });
      }
      throw error;
    }
  }
}
