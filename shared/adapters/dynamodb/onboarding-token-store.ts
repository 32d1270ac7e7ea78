import { QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '../../domain/errors.ts';
import type { OnboardingTokenRecord } from '../../domain/onboarding/onboarding-token.ts';
import type { OnboardingTokenPage, OnboardingTokenStore } from '../../domain/onboarding/ports.ts';
import { decodeCursor, encodeCursor } from './page-cursor.ts';
import { cancellationReasons, withTransactionConflictRetry } from './transactions.ts';
import { epochSeconds, organizationPartition } from './keys.ts';

const RETAIN_AFTER_EXPIRY_SECONDS = 30 * 24 * 60 * 60;
const TOKEN_PREFIX = 'TOKEN#';

const tokenKey = (record: Pick<OnboardingTokenRecord, 'createdAt' | 'tokenId'>): string =>
  `${TOKEN_PREFIX}${record.createdAt}#${record.tokenId}`;
const emailGuardKey = (email: string): string => `EMAIL#${email}`;

/**
 * Tokens live in the organization's partition, sorted by creation time, so the dashboard is one
 * Query. Next to them, one e-mail guard item per (organization, e-mail) holds the expiry of the
 * live token; the token and its guard are written in one transaction whose condition is "no
 * guard, or an expired one", which is what makes a duplicate a 409 even under concurrency.
 */
export class DynamoDbOnboardingTokenStore implements OnboardingTokenStore {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async issue(record: OnboardingTokenRecord, now: Date): Promise<void> {
    const ttl = epochSeconds(record.expiresAt) + RETAIN_AFTER_EXPIRY_SECONDS;
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: this.tableName,
            Item: {
              pk: organizationPartition(record.orgId),
              sk: emailGuardKey(record.email),
              tokenSk: tokenKey(record),
              expiresAtEpoch: epochSeconds(record.expiresAt),
              ttl,
            },
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAtEpoch <= :now',
            ExpressionAttributeValues: { ':now': Math.floor(now.getTime() / 1000) },
          },
        },
        {
          Put: {
            TableName: this.tableName,
            Item: { pk: organizationPartition(record.orgId), sk: tokenKey(record), ...record, ttl },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    });
    try {
      await withTransactionConflictRetry(() => this.documents.send(command));
    } catch (error) {
      if (cancellationReasons(error)[0] === 'ConditionalCheckFailed') {
        throw new ConflictError('an unexpired onboarding token already exists for this e-mail');
      }
      throw error;
    }
  }

  async withdraw(record: OnboardingTokenRecord): Promise<void> {
    const command = new TransactWriteCommand({
      TransactItems: [
        {
          Delete: {
            TableName: this.tableName,
            Key: { pk: organizationPartition(record.orgId), sk: tokenKey(record) },
          },
        },
        {
          Delete: {
            TableName: this.tableName,
            Key: { pk: organizationPartition(record.orgId), sk: emailGuardKey(record.email) },
            // Never remove a guard that meanwhile belongs to another token.
            ConditionExpression: 'attribute_not_exists(pk) OR tokenSk = :tokenSk',
            ExpressionAttributeValues: { ':tokenSk': tokenKey(record) },
          },
        },
      ],
    });
    await withTransactionConflictRetry(() => this.documents.send(command));
  }

  async listByOrganization(
    orgId: string,
    page: { limit: number; cursor: string | undefined },
  ): Promise<OnboardingTokenPage> {
    const startAfter = page.cursor === undefined ? undefined : decodeCursor(page.cursor, TOKEN_PREFIX);
    // One extra item tells whether another page exists, so the last page never carries a cursor.
    const result = await this.documents.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': organizationPartition(orgId), ':prefix': TOKEN_PREFIX },
        ScanIndexForward: false,
        Limit: page.limit + 1,
        ExclusiveStartKey: startAfter === undefined ? undefined : { pk: organizationPartition(orgId), sk: startAfter },
      }),
    );
    const items = (result.Items ?? []) as Array<OnboardingTokenRecord & { sk: string }>;
    const records = items.slice(0, page.limit);
    const last = records.at(-1);
    return {
      records: records.map(toRecord),
      nextCursor: items.length > page.limit && last ? encodeCursor(last.sk) : undefined,
    };
  }
}

function toRecord(item: OnboardingTokenRecord): OnboardingTokenRecord {
  return {
    orgId: item.orgId,
    tokenId: item.tokenId,
    tokenHash: item.tokenHash,
    tokenHint: item.tokenHint,
    email: item.email,
    firstName: item.firstName,
    lastName: item.lastName,
    createdAt: item.createdAt,
    expiresAt: item.expiresAt,
    ...(item.usedAt ? { usedAt: item.usedAt } : {}),
  };
}
