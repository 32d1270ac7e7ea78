import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type PutCommandInput,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { AwsClientStub } from 'aws-sdk-client-mock';

type Item = Record<string, unknown>;

/**
 * Just enough of a DynamoDB table for the rate limiter, behind aws-sdk-client-mock: consistent
 * gets (alone or batched), and conditional puts and updates (alone or in a transaction) with
 * exactly the condition and update expressions the limiter writes. Every call yields to the event loop first, so
 * parallel callers interleave between their read and their write as they would against a real
 * table. Anything else is an error, so the limiter cannot drift from what this table checks.
 */
export class InMemoryLimiterTable {
  readonly items = new Map<string, Item>();
  readonly writes: string[] = [];
  /** Makes the next transactions fail with these cancellation reasons (one list per call). */
  readonly cancellations: string[][] = [];

  constructor(documents: AwsClientStub<DynamoDBDocumentClient>) {
    documents.on(GetCommand).callsFake(async (input: { Key: Item }) => {
      await yieldToOthers();
      const item = this.items.get(keyOf(input.Key));
      return item ? { Item: structuredClone(item) } : {};
    });
    documents.on(BatchGetCommand).callsFake(async (input: { RequestItems: Record<string, { Keys: Item[] }> }) => {
      await yieldToOthers();
      const Responses = Object.fromEntries(
        Object.entries(input.RequestItems).map(([table, { Keys }]) => [
          table,
          Keys.flatMap((key) => {
            const item = this.items.get(keyOf(key));
            return item ? [structuredClone(item)] : [];
          }),
        ]),
      );
      return { Responses, UnprocessedKeys: {} };
    });
    documents.on(PutCommand).callsFake(async (input: PutCommandInput) => {
      await yieldToOthers();
      if (!this.passes(input)) throw conditionFailed();
      this.writes.push('Put');
      this.applyPut(input);
      return {};
    });
    documents.on(UpdateCommand).callsFake(async (input: UpdateCommandInput) => {
      await yieldToOthers();
      if (!this.passes(input)) throw conditionFailed();
      this.writes.push('Update');
      this.applyUpdate(input);
      return {};
    });
    documents
      .on(TransactWriteCommand)
      .callsFake(async (input: { TransactItems: Array<{ Put?: PutCommandInput; Update?: UpdateCommandInput }> }) => {
        await yieldToOthers();
        const forced = this.cancellations.shift();
        if (forced) throw cancelled(forced);
        const reasons = input.TransactItems.map((entry) =>
          this.passes((entry.Put ?? entry.Update)!) ? 'None' : 'ConditionalCheckFailed',
        );
        if (reasons.includes('ConditionalCheckFailed')) throw cancelled(reasons);
        this.writes.push('TransactWrite');
        for (const entry of input.TransactItems) {
          if (entry.Put) this.applyPut(entry.Put);
          else this.applyUpdate(entry.Update!);
        }
        return {};
      });
  }

  /** Seeds an item. */
  async put(item: Item): Promise<void> {
    this.items.set(keyOf(item), structuredClone(item));
  }

  get(pk: string, sk: string): Item | undefined {
    return this.items.get(keyOf({ pk, sk }));
  }

  /** The items whose sort key starts with `prefix`. */
  withSortKeyPrefix(prefix: string): Item[] {
    return [...this.items.values()].filter((item) => String(item.sk).startsWith(prefix));
  }

  private passes(input: PutCommandInput | UpdateCommandInput): boolean {
    const key =
      'Item' in input && input.Item ? { pk: input.Item.pk, sk: input.Item.sk } : (input as UpdateCommandInput).Key!;
    const current = this.items.get(keyOf(key));
    const values = input.ExpressionAttributeValues ?? {};
    switch (input.ConditionExpression) {
      case undefined:
        return true;
      case 'attribute_not_exists(pk)':
        return current === undefined;
      case 'version = :version':
        return current?.version === values[':version'];
      case 'attribute_not_exists(#count) OR #count < :limit':
        return typeof current?.count !== 'number' || current.count < (values[':limit'] as number);
      case '#count > :zero':
        return typeof current?.count === 'number' && current.count > (values[':zero'] as number);
      default:
        throw new Error(`the in-memory table does not know the condition ${input.ConditionExpression}`);
    }
  }

  private applyPut(input: PutCommandInput): void {
    this.items.set(keyOf(input.Item!), structuredClone(input.Item!));
  }

  private applyUpdate(input: UpdateCommandInput): void {
    const key = keyOf(input.Key!);
    const item: Item = this.items.get(key) ?? { ...input.Key };
    const values = input.ExpressionAttributeValues ?? {};
    switch (input.UpdateExpression) {
      case 'ADD #count :one SET #ttl = :ttl':
        item.count = ((item.count as number | undefined) ?? 0) + (values[':one'] as number);
        item.ttl = values[':ttl'];
        break;
      case 'ADD #count :minusOne':
        item.count = ((item.count as number | undefined) ?? 0) + (values[':minusOne'] as number);
        break;
      default:
        throw new Error(`the in-memory table does not know the update ${input.UpdateExpression}`);
    }
    this.items.set(key, item);
  }
}

const keyOf = (key: Item): string => `${String(key.pk)}|${String(key.sk)}`;

const yieldToOthers = () => new Promise((resolve) => setImmediate(resolve));

const conditionFailed = () =>
  new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });

const cancelled = (codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: codes.map((Code) => ({ Code })),
  });
