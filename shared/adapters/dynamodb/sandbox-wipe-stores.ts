import { BatchWriteCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import type { SandboxDataStore, SandboxKey } from '#shared/domain/sandbox/sandbox-wipe.ts';
import { exponentialBackoff } from '#shared/support/retry.ts';
import { organizationPartition } from './keys.ts';

/** Keys deleted per page: eight BatchWriteItem calls at once, each DynamoDB's maximum of 25. */
export const WIPE_PAGE_SIZE = 200;
const BATCH_WRITE_MAX = 25;
/** Rounds of resending what a BatchWriteItem left unprocessed (throttling) before the page fails and the run is retried. */
const UNPROCESSED_ROUNDS = 8;
const unprocessedBackoff = exponentialBackoff({ baseMs: 50, capMs: 1_000 });

type ItemKey = { pk: string; sk: string };

/** Deletes `keys` (any number) in batches of 25 at once, resending what DynamoDB left unprocessed. */
async function deleteKeys(documents: DynamoDBDocumentClient, tableName: string, keys: readonly ItemKey[]) {
  const batches: ItemKey[][] = [];
  for (let start = 0; start < keys.length; start += BATCH_WRITE_MAX)
    batches.push(keys.slice(start, start + BATCH_WRITE_MAX));
  await Promise.all(
    batches.map(async (batch) => {
      let requests = batch.map((Key) => ({ DeleteRequest: { Key } }));
      for (let round = 1; requests.length > 0; round += 1) {
        if (round > UNPROCESSED_ROUNDS) throw new DependencyUnavailableError('database (deletes left unprocessed)');
        if (round > 1) await new Promise((resolve) => setTimeout(resolve, unprocessedBackoff(round - 1)));
        const result = await documents.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
        requests = (result.UnprocessedItems?.[tableName] ?? []) as typeof requests;
      }
    }),
  );
}

/**
 * The keys of up to WIPE_PAGE_SIZE items a Query finds (key attributes only), reading on until the
 * page is full or nothing is left, so an empty answer means nothing is left.
 */
async function queryKeys(
  documents: DynamoDBDocumentClient,
  query: { TableName: string; IndexName?: string; KeyConditionExpression: string; values: Record<string, unknown> },
): Promise<ItemKey[]> {
  const keys: ItemKey[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new QueryCommand({
        TableName: query.TableName,
        ...(query.IndexName ? { IndexName: query.IndexName } : {}),
        KeyConditionExpression: query.KeyConditionExpression,
        ExpressionAttributeValues: query.values,
        ProjectionExpression: 'pk, sk',
        Limit: WIPE_PAGE_SIZE - keys.length,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    keys.push(...((page.Items ?? []) as ItemKey[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey && keys.length < WIPE_PAGE_SIZE);
  return keys;
}

/** Deletes the page of items a Query finds; how many it deleted (0: nothing of the query is left). */
async function deleteFound(documents: DynamoDBDocumentClient, query: Parameters<typeof queryKeys>[1]): Promise<number> {
  const keys = await queryKeys(documents, query);
  if (keys.length > 0) await deleteKeys(documents, query.TableName, keys);
  return keys.length;
}

/** The first string after every string that starts with `prefix`. */
const pastPrefix = (prefix: string): string =>
  `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`;

/**
 * A sandbox's own partition (`ORG#{key}`) of a table, every item but those whose sort key starts
 * with `keep` (the sandbox's rate-limit items: a wipe gives back no budget). DynamoDB filters on
 * no key attribute, so the partition is read as the two sort-key ranges either side of them.
 */
export function sandboxPartitionStore(
  name: string,
  documents: DynamoDBDocumentClient,
  tableName: string,
  options: { keep: string },
): SandboxDataStore {
  const ranges = [
    { condition: 'pk = :pk AND sk < :bound', bound: options.keep },
    { condition: 'pk = :pk AND sk >= :bound', bound: pastPrefix(options.keep) },
  ];
  return {
    name,
    async deletePage(key: SandboxKey) {
      for (const range of ranges) {
        const deleted = await deleteFound(documents, {
          TableName: tableName,
          KeyConditionExpression: range.condition,
          values: { ':pk': organizationPartition(key), ':bound': range.bound },
        });
        if (deleted > 0) return deleted;
      }
      return 0;
    },
  };
}

/**
 * The sandbox's report job records (`JOB#{jobId}` / `JOB`), found through `jobsByOrganization`.
 * The index follows the table within moments, so a page may name a job already deleted: deleting it
 * again is harmless, and the next page finds what is left.
 */
export function sandboxReportJobsStore(documents: DynamoDBDocumentClient, tableName: string): SandboxDataStore {
  return {
    name: 'reportJobs',
    deletePage: (key: SandboxKey) =>
      deleteFound(documents, {
        TableName: tableName,
        IndexName: 'jobsByOrganization',
        KeyConditionExpression: 'orgJobsPk = :pk',
        values: { ':pk': organizationPartition(key) },
      }),
  };
}

/**
 * The sandbox's webhook endpoints, each after its delivery log (`ORG#{key}#ENDPOINT#{id}`), so a
 * run cut off between the two still finds the endpoint whose deliveries are left; then its
 * endpoint count. Its test rate-limit item stays, as the other budgets do.
 */
export function sandboxWebhooksStore(documents: DynamoDBDocumentClient, tableName: string): SandboxDataStore {
  const partition = (key: SandboxKey) => organizationPartition(key);
  return {
    name: 'webhooks',
    async deletePage(key: SandboxKey) {
      const endpoints = await queryKeys(documents, {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :endpoint)',
        values: { ':pk': partition(key), ':endpoint': 'ENDPOINT#' },
      });
      if (endpoints.length === 0) {
        return deleteFound(documents, {
          TableName: tableName,
          KeyConditionExpression: 'pk = :pk AND sk = :count',
          values: { ':pk': partition(key), ':count': 'ENDPOINT_COUNT' },
        });
      }
      const deliveries = (
        await Promise.all(
          endpoints.map((endpoint) =>
            queryKeys(documents, {
              TableName: tableName,
              KeyConditionExpression: 'pk = :pk',
              values: { ':pk': `${partition(key)}#${endpoint.sk}` },
            }),
          ),
        )
      ).flat();
      // Endpoints whose log is empty now go; the others once a later page has emptied theirs.
      const emptied = endpoints.filter(
        (endpoint) => !deliveries.some((d) => d.pk === `${partition(key)}#${endpoint.sk}`),
      );
      await deleteKeys(documents, tableName, [...deliveries, ...emptied]);
      return deliveries.length + emptied.length;
    },
  };
}
