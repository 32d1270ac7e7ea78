import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** BatchGetItem takes at most 100 keys. */
const MAX_KEYS_PER_CALL = 100;
const ATTEMPTS = 6;

export interface BatchGetOptions {
  /** Keys per call, at most 100; fewer when the items are large (a call answers at most 16 MB). */
  keysPerCall?: number;
  /** Calls in flight at once. */
  concurrency: number;
  /** Attributes to read; all when absent. */
  attributes?: readonly string[];
}

/**
 * Every item of `keys` that exists, read with BatchGetItem: calls of `keysPerCall` keys, a few in
 * flight, and the keys a call leaves unprocessed retried with jittered exponential backoff. Still
 * unprocessed after six attempts is the table throttling: a `ProvisionedThroughputExceededException`,
 * which the service answers as unavailable.
 */
export async function batchGetItems(
  documents: DynamoDBDocumentClient,
  tableName: string,
  keys: ReadonlyArray<Record<string, unknown>>,
  options: BatchGetOptions,
): Promise<{ items: Array<Record<string, unknown>>; consumedReadUnits: number }> {
  const keysPerCall = Math.min(options.keysPerCall ?? MAX_KEYS_PER_CALL, MAX_KEYS_PER_CALL);
  const names = options.attributes
    ? Object.fromEntries(options.attributes.map((attribute, index) => [`#f${index}`, attribute]))
    : undefined;
  const calls: Array<ReadonlyArray<Record<string, unknown>>> = [];
  for (let start = 0; start < keys.length; start += keysPerCall) calls.push(keys.slice(start, start + keysPerCall));
  const items: Array<Record<string, unknown>> = [];
  let consumedReadUnits = 0;
  await mapConcurrently(calls, options.concurrency, async (callKeys) => {
    let pending = callKeys;
    for (let attempt = 1; pending.length > 0; attempt++) {
      if (attempt > ATTEMPTS) {
        throw Object.assign(new Error(`${pending.length} item(s) still unprocessed by BatchGetItem`), {
          name: 'ProvisionedThroughputExceededException',
        });
      }
      if (attempt > 1) await sleep(Math.min(1_000, 25 * 2 ** attempt) * (0.5 + Math.random() / 2));
      const output = await documents.send(
        new BatchGetCommand({
          RequestItems: {
            [tableName]: {
              Keys: [...pending],
              ...(names
                ? { ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names }
                : {}),
            },
          },
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      consumedReadUnits += (output.ConsumedCapacity ?? []).reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
      for (const item of output.Responses?.[tableName] ?? []) items.push(item);
      pending = output.UnprocessedKeys?.[tableName]?.Keys ?? [];
    }
  });
  return { items, consumedReadUnits };
}

/** `work` on every item, at most `concurrency` at once; results in input order. */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
