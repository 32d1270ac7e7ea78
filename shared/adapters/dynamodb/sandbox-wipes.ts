import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SandboxWipe, SandboxWipeMessage, SandboxWipes } from '#shared/domain/sandbox/sandbox-wipe.ts';
import { epochSeconds } from './keys.ts';

/** The prefix of the wipe records' partitions, apart from every organization's and job's. */
export const SANDBOX_WIPE_PARTITION_PREFIX = 'SANDBOX_WIPE#';
/** A finished wipe's record is kept this long (its id answers nothing after it; a new request starts a new one). */
const FINISHED_WIPE_DAYS = 7;
/** A running record expires after this whatever happens, so a sandbox whose wipe is lost for good is not kept running for ever. */
const RUNNING_WIPE_DAYS = 2;
const DAY_MS = 86_400_000;

const wipeKey = (tenantKey: string) => ({ pk: `${SANDBOX_WIPE_PARTITION_PREFIX}${tenantKey}`, sk: 'WIPE' });
const expiresAfter = (iso: string, days: number) =>
  epochSeconds(new Date(Date.parse(iso) + days * DAY_MS).toISOString());

function wipeFrom(item: Record<string, unknown>): SandboxWipe {
  return {
    tenantKey: item.tenantKey as string,
    wipeId: item.wipeId as string,
    status: item.status as SandboxWipe['status'],
    requestedAt: item.requestedAt as string,
    sentAt: item.sentAt as string,
    ...(typeof item.finishedAt === 'string' ? { finishedAt: item.finishedAt } : {}),
  };
}

/**
 * One item per sandbox in the ReportJobs table (`SANDBOX_WIPE#{tenantKey}` / `WIPE`): its latest
 * wipe. A conditional PutItem starts a wipe only if none runs, so two requests at once start one.
 */
export class DynamoDbSandboxWipes implements SandboxWipes {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async start(wipe: SandboxWipe): Promise<SandboxWipe> {
    try {
      await this.documents.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...wipeKey(wipe.tenantKey), ...wipe, ttl: expiresAfter(wipe.requestedAt, RUNNING_WIPE_DAYS) },
          ConditionExpression: 'attribute_not_exists(pk) OR #status <> :running OR #ttl < :now',
          ExpressionAttributeNames: { '#status': 'status', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':running': 'RUNNING', ':now': epochSeconds(wipe.requestedAt) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return wipe;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException && error.Item) {
        return wipeFrom(Object.fromEntries(Object.entries(error.Item).map(([name, value]) => [name, unwrap(value)])));
      }
      throw error;
    }
  }

  async get(tenantKey: string): Promise<SandboxWipe | undefined> {
    const { Item } = await this.documents.send(
      new GetCommand({ TableName: this.tableName, Key: wipeKey(tenantKey), ConsistentRead: true }),
    );
    return Item ? wipeFrom(Item) : undefined;
  }

  async markSent(wipe: SandboxWipe, sentAt: string): Promise<boolean> {
    return this.updateIfRunning(
      wipe,
      'SET sentAt = :sentAt',
      { ':sentAt': sentAt, ':previous': wipe.sentAt },
      'sentAt = :previous',
    );
  }

  async finish(wipe: SandboxWipeMessage, finishedAt: string): Promise<void> {
    await this.updateIfRunning(wipe, 'SET #status = :done, finishedAt = :at, #ttl = :ttl', {
      ':done': 'DONE',
      ':at': finishedAt,
      ':ttl': expiresAfter(finishedAt, FINISHED_WIPE_DAYS),
    });
  }

  private async updateIfRunning(
    wipe: SandboxWipeMessage,
    update: string,
    values: Record<string, unknown>,
    extraCondition?: string,
  ): Promise<boolean> {
    try {
      await this.documents.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: wipeKey(wipe.tenantKey),
          UpdateExpression: update,
          ConditionExpression: `#status = :running AND wipeId = :wipeId${extraCondition ? ` AND ${extraCondition}` : ''}`,
          ExpressionAttributeNames: { '#status': 'status', ...(update.includes('#ttl') ? { '#ttl': 'ttl' } : {}) },
          ExpressionAttributeValues: { ':running': 'RUNNING', ':wipeId': wipe.wipeId, ...values },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

/** The old item DynamoDB returns with a failed condition is in its wire form (`{S: '...'}`): the strings and numbers of a wipe. */
function unwrap(value: unknown): unknown {
  const attribute = value as { S?: string; N?: string };
  return attribute.S ?? (attribute.N === undefined ? undefined : Number(attribute.N));
}
