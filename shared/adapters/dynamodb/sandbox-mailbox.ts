import { QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  KEPT_EMAIL_DAYS,
  type KeptEmail,
  type KeptEmailPage,
  type SandboxMailbox,
} from '#shared/domain/sandbox/mailbox.ts';
import { epochSeconds, organizationPartition } from './keys.ts';
import { decodeCursor, encodeCursor } from './page-cursor.ts';

const ALL_PREFIX = 'SANDBOX_EMAIL#';
const TO_PREFIX = 'SANDBOX_EMAIL_TO#';
const DAY_MS = 86_400_000;

const recipientPrefix = (to: string) => `${TO_PREFIX}${to.trim().toLowerCase()}#`;

/**
 * A sandbox's kept e-mails in the OnboardingTokens table, in the tenant's own partition
 * (`ORG#{tenantKey}`, beside its tokens, so whatever clears the sandbox's partition clears them):
 * each e-mail twice, written in one transaction, under `SANDBOX_EMAIL#{createdAt}#{id}` (every
 * e-mail, newest first) and `SANDBOX_EMAIL_TO#{to}#{createdAt}#{id}` (one recipient's), so both
 * listings are one Query without an index. DynamoDB's TTL removes them after KEPT_EMAIL_DAYS.
 * docs/sandbox.md#the-mailbox.
 */
export class DynamoDbSandboxMailbox implements SandboxMailbox {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async keep(tenantKey: string, messageId: string, email: KeptEmail): Promise<void> {
    const pk = organizationPartition(tenantKey);
    const suffix = `${email.createdAt}#${messageId}`;
    const ttl = epochSeconds(new Date(Date.parse(email.createdAt) + KEPT_EMAIL_DAYS * DAY_MS).toISOString());
    const item = { ...email, to: email.to.trim().toLowerCase(), ttl };
    await this.documents.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: this.tableName, Item: { pk, sk: `${ALL_PREFIX}${suffix}`, ...item } } },
          { Put: { TableName: this.tableName, Item: { pk, sk: `${recipientPrefix(email.to)}${suffix}`, ...item } } },
        ],
      }),
    );
  }

  async list(
    tenantKey: string,
    page: { to?: string | undefined; limit: number; cursor?: string | undefined },
  ): Promise<KeptEmailPage> {
    const prefix = page.to === undefined ? ALL_PREFIX : recipientPrefix(page.to);
    const pk = organizationPartition(tenantKey);
    const startAfter = page.cursor === undefined ? undefined : decodeCursor(page.cursor, prefix);
    const result = await this.documents.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        // TTL deletes within days of expiry, not at once: an expired e-mail is never listed.
        FilterExpression: '#ttl > :now',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix, ':now': Math.floor(Date.now() / 1000) },
        ScanIndexForward: false,
        // One extra item tells whether another page exists, so the last page carries no cursor.
        Limit: page.limit + 1,
        ...(startAfter === undefined ? {} : { ExclusiveStartKey: { pk, sk: startAfter } }),
      }),
    );
    const items = (result.Items ?? []) as Array<KeptEmail & { pk: string; sk: string; ttl: number }>;
    const kept = items.slice(0, page.limit);
    const last = kept.at(-1);
    const readOn = result.LastEvaluatedKey?.sk as string | undefined;
    const nextSortKey = items.length > page.limit && last ? last.sk : readOn;
    return {
      emails: kept.map(({ pk: _pk, sk: _sk, ttl: _ttl, ...email }) => email),
      nextCursor: nextSortKey === undefined ? undefined : encodeCursor(nextSortKey),
    };
  }
}
