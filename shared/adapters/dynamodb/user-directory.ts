import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { UserDirectory } from '../../domain/reports/ports.ts';
import type { UserRecord } from '../../domain/users/user-record.ts';
import { fromUserItem, userKey } from './user-items.ts';

export class DynamoDbUserDirectory implements UserDirectory {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async find(orgId: string, userId: string): Promise<UserRecord | undefined> {
    const { Item } = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: userKey(orgId, userId) }),
    );
    return Item ? fromUserItem(Item) : undefined;
  }
}
