import {
  QueryCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import type { UserStatusReader } from '../../domain/users/query-user-status.ts';
import { REGISTRATION_STATUSES, type UserRecord } from '../../domain/users/user-record.ts';
import type { RangeOperator, UserField, UserFilter } from '../../domain/users/user-status-query.ts';
import {
  emailPartitionKey,
  fromUserItem,
  splitCreatedAtSortKey,
  AGE_BANDS,
  AGE_BAND_YEARS,
  LAST_AGE_BAND,
  statusPartitionKey,
  USER_STATUS_INDEX_FIELDS,
  userKey,
} from './user-items.ts';
import { batchGetItems, mapConcurrently } from './batch-get-items.ts';
import { DIGEST_FILTER_FIELDS, findInDigest, type DigestChunk } from './user-digest.ts';
import { DynamoDbUserDigestStore } from './user-digest-store.ts';

/**
 * `createdAtSk` is `{instant}#{id}` with a fixed-width instant, so `{instant}$` ('$' follows '#')
 * sorts after every id stored at that instant and before every later instant. (`#\uffff` would
 * not: DynamoDB orders strings by UTF-8 bytes, and an id starting with an emoji sorts after it.)
 */
const AFTER_ANY_ID = '$';

/** DynamoDB rejects a key condition on a partition key over 2048 bytes or a sort key over 1024. */
const MAX_PARTITION_KEY_BYTES = 2048;
const MAX_SORT_KEY_BYTES = 1024;
const byteLength = (text: string): number => new TextEncoder().encode(text).length;

/** How a query reaches the organization's users: a key condition, then filters DynamoDB applies. */
export interface UserQueryPlan {
  input: Omit<QueryCommandInput, 'ExclusiveStartKey' | 'Select'>;
  /** A key range that cannot hold anything (e.g. created_at gt 2025 and lt 2024): answer without reading. */
  empty: boolean;
  /**
   * Set for the `byStatus` index: the partitions to read, each bound to `:pk` in the key
   * condition. `input` then projects nothing (the reader asks for `createdAtSk` or a count) and
   * the records of the requested page are fetched from the table.
   */
  partitions?: readonly string[];
}

/** Fields `byStatus` can filter on: its projection, its key (`created_at`) and its partitions (`registration_status`). */
const STATUS_INDEX_FILTER_FIELDS: ReadonlySet<UserField> = new Set<UserField>([
  ...USER_STATUS_INDEX_FIELDS,
  'created_at',
  'registration_status',
]);
const PARTITION_PLACEHOLDER = ':pk';

/**
 * Picks the narrowest access path the filters allow, in the order `id` (one item), `email`
 * (the `byEmail` index), then `byStatus` when every filter is on a field it carries and
 * `options.statusIndex` is not `false` (the
 * partitions of the registration statuses and age decades the filters allow, with any
 * `created_at` range as a key condition), otherwise the `byCreatedAt` index (the organization's
 * users in `created_at`, `id` order, with any `created_at` range as a key condition). Every other
 * filter becomes a FilterExpression and, on the single-partition paths, the requested fields a
 * ProjectionExpression, so DynamoDB does the filtering and projection and only matching items
 * cross the network.
 */
export function planUserQuery(
  tableName: string,
  orgId: string,
  filters: readonly UserFilter[],
  fields: readonly UserField[],
  options: { statusIndex?: boolean } = {},
): UserQueryPlan {
  const expression = new ExpressionBuilder();
  const idFilter = singleValue(filters, 'id');
  const emailFilter = singleValue(filters, 'email');
  const createdAt = filters.find(
    (f): f is Extract<UserFilter, { kind: 'range' }> => f.kind === 'range' && f.field === 'created_at',
  );

  let keyCondition: string;
  let indexName: string | undefined;
  let consumed: UserFilter[] = [];
  let empty = false;
  let partitions: string[] | undefined;
  if (
    options.statusIndex !== false &&
    !idFilter &&
    !emailFilter &&
    filters.every((filter) => STATUS_INDEX_FILTER_FIELDS.has(filter.field))
  ) {
    const statusFilter = filters.find(
      (f): f is Extract<UserFilter, { kind: 'equals' }> => f.kind === 'equals' && f.field === 'registration_status',
    );
    // Stored statuses are the six the schema allows; users without one have their own partitions.
    const statuses: Array<string | undefined> = statusFilter
      ? REGISTRATION_STATUSES.filter((status) => statusFilter.values.includes(status))
      : [...REGISTRATION_STATUSES, undefined];
    const ageFilter = filters.find(
      (f): f is Extract<UserFilter, { kind: 'range' }> => f.kind === 'range' && f.field === 'age',
    );
    const bands = ageFilter ? ageBandsWithin(ageFilter.bounds) : AGE_BANDS;
    partitions = statuses.flatMap((status) => bands.map((band) => statusPartitionKey(orgId, status, band)));
    empty = partitions.length === 0;
    indexName = 'byStatus';
    keyCondition = `statusPk = ${PARTITION_PLACEHOLDER}`;
    if (statusFilter) consumed.push(statusFilter);
    if (createdAt) {
      const range = createdAtKeyRange(createdAt.bounds);
      empty ||= range.lower !== undefined && range.upper !== undefined && range.lower > range.upper;
      const sortKeyCondition = rangeKeyCondition(expression, range);
      if (sortKeyCondition) keyCondition += ` AND ${sortKeyCondition}`;
      consumed.push(createdAt);
    }
  } else if (idFilter) {
    const key = userKey(orgId, idFilter.values[0]!);
    // No stored key can be that long: answer "no match" rather than let DynamoDB reject the query.
    empty = byteLength(key.sk) > MAX_SORT_KEY_BYTES;
    keyCondition = `pk = ${expression.value(key.pk)} AND sk = ${expression.value(key.sk)}`;
    consumed = [idFilter];
  } else {
    const range = createdAt ? createdAtKeyRange(createdAt.bounds) : undefined;
    if (emailFilter) {
      const emailPk = emailPartitionKey(orgId, emailFilter.values[0]!);
      empty = byteLength(emailPk) > MAX_PARTITION_KEY_BYTES;
      indexName = 'byEmail';
      keyCondition = `emailPk = ${expression.value(emailPk)}`;
      consumed = [emailFilter];
    } else {
      indexName = 'byCreatedAt';
      keyCondition = `pk = ${expression.value(userKey(orgId, '').pk)}`;
    }
    if (range && createdAt) {
      empty ||= range.lower !== undefined && range.upper !== undefined && range.lower > range.upper;
      const sortKeyCondition = rangeKeyCondition(expression, range);
      if (sortKeyCondition) keyCondition += ` AND ${sortKeyCondition}`;
      consumed.push(createdAt);
    }
  }

  const filterText = filters
    .filter((filter) => !consumed.includes(filter))
    .map((filter) => filterCondition(expression, filter, orgId))
    .join(' AND ');
  if (partitions) {
    return {
      empty,
      partitions,
      input: {
        TableName: tableName,
        IndexName: indexName,
        KeyConditionExpression: keyCondition,
        FilterExpression: filterText || undefined,
        ExpressionAttributeNames: Object.keys(expression.names).length ? expression.names : undefined,
        ExpressionAttributeValues: expression.values,
      },
    };
  }
  const projection = fields.map((field) => expression.name(field)).join(', ');

  return {
    empty,
    input: {
      TableName: tableName,
      IndexName: indexName,
      KeyConditionExpression: keyCondition,
      FilterExpression: filterText || undefined,
      ProjectionExpression: projection,
      ExpressionAttributeNames: expression.names,
      ExpressionAttributeValues: expression.values,
    },
  };
}

/**
 * The age bands that can hold an age within the bounds; never the users without an age (no
 * comparison matches a missing attribute). The age filter itself stays a FilterExpression: a
 * band only narrows the partitions to read.
 */
function ageBandsWithin(bounds: Partial<Record<RangeOperator, number | string>>): number[] {
  let lowest = 0;
  let highest = LAST_AGE_BAND;
  for (const [op, raw] of Object.entries(bounds) as Array<[RangeOperator, number]>) {
    const band = Math.min(LAST_AGE_BAND, Math.floor(raw / AGE_BAND_YEARS));
    if (op === 'gt' || op === 'gte' || op === 'eq') lowest = Math.max(lowest, band);
    if (op === 'lte' || op === 'eq') highest = Math.min(highest, band);
    // Below x: the band of the largest age under x (x = 30: band 2, ages 20-29.99).
    if (op === 'lt') highest = Math.min(highest, Math.ceil(raw / AGE_BAND_YEARS) - 1);
  }
  const bands: number[] = [];
  for (let band = lowest; band <= highest; band++) bands.push(band);
  return bands;
}

function singleValue(filters: readonly UserFilter[], field: UserField) {
  return filters.find(
    (f): f is Extract<UserFilter, { kind: 'equals' }> =>
      f.kind === 'equals' && f.field === field && f.values.length === 1,
  );
}

/** Inclusive bounds on `createdAtSk` (`{created_at}#{id}`) equivalent to a created_at range. */
export function createdAtKeyRange(bounds: Partial<Record<RangeOperator, number | string>>): {
  lower?: string;
  upper?: string;
} {
  const lowers: string[] = [];
  const uppers: string[] = [];
  for (const [op, raw] of Object.entries(bounds) as Array<[RangeOperator, string]>) {
    if (op === 'gte' || op === 'eq') lowers.push(raw);
    if (op === 'gt') lowers.push(raw + AFTER_ANY_ID);
    if (op === 'lte' || op === 'eq') uppers.push(raw + AFTER_ANY_ID);
    if (op === 'lt') uppers.push(raw);
  }
  return {
    ...(lowers.length ? { lower: lowers.sort().at(-1)! } : {}),
    ...(uppers.length ? { upper: uppers.sort()[0]! } : {}),
  };
}

function rangeKeyCondition(
  expression: ExpressionBuilder,
  range: { lower?: string; upper?: string },
): string | undefined {
  if (range.lower !== undefined && range.upper !== undefined) {
    return `createdAtSk BETWEEN ${expression.value(range.lower)} AND ${expression.value(range.upper)}`;
  }
  if (range.lower !== undefined) return `createdAtSk >= ${expression.value(range.lower)}`;
  if (range.upper !== undefined) return `createdAtSk <= ${expression.value(range.upper)}`;
  return undefined;
}

const COMPARATORS: Record<RangeOperator, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=', eq: '=' };

function filterCondition(expression: ExpressionBuilder, filter: UserFilter, orgId: string): string {
  if (filter.kind === 'equals') {
    // E-mail is matched case-insensitively through the lower-cased e-mail in the index key.
    const name = filter.field === 'email' ? expression.name('emailPk') : expression.name(filter.field);
    const values = filter.values.map((value) =>
      expression.value(filter.field === 'email' ? emailPartitionKey(orgId, value) : value),
    );
    return values.length === 1 ? `${name} = ${values[0]}` : `${name} IN (${values.join(', ')})`;
  }
  if (filter.kind === 'boolean') return `${expression.name(filter.field)} = ${expression.value(filter.value)}`;
  const name = expression.name(filter.field);
  return Object.entries(filter.bounds)
    .map(([op, value]) => `${name} ${COMPARATORS[op as RangeOperator]} ${expression.value(value)}`)
    .join(' AND ');
}

class ExpressionBuilder {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private valueCount = 0;

  name(attribute: string): string {
    const placeholder = `#${attribute.replace(/[^A-Za-z0-9_]/g, '_')}`;
    this.names[placeholder] = attribute;
    return placeholder;
  }

  value(value: unknown): string {
    const placeholder = `:v${this.valueCount++}`;
    this.values[placeholder] = value;
    return placeholder;
  }
}

/** Partitions of `byStatus` read at once per query. */
const PARTITION_CONCURRENCY = 8;

export interface UserStatusPageRead {
  records: Array<Partial<UserRecord>>;
  total: number;
  /** Read capacity units the query consumed, every page and BatchGetItem included. */
  consumedReadUnits: number;
  /** How the matches were found (logged; the tests and the benchmark check it). */
  accessPath: 'none' | 'table' | 'byEmail' | 'byCreatedAt' | 'byStatus' | 'digest';
}

export interface UserStatusReaderOptions {
  /** Answer from the organization's user digest when it is exact (default); off, `byStatus` answers. */
  useDigest?: boolean;
}

/**
 * Reads the page a user-status query asks for. On a single partition (an id, an e-mail, or
 * `byCreatedAt`), DynamoDB returns matches in order; items before the window are skipped, items
 * in it kept, and once the window is full the remaining pages are only counted (`Select: COUNT`),
 * so `total` is exact without transferring records nobody asked for. On `byStatus`, every
 * partition is read in parallel the same way, keeping only the sort keys of its first
 * `offset + limit` matches; the merged keys give the page, whose records alone are then fetched
 * from the table with BatchGetItem, projected to the requested fields. Queries on the digest's
 * fields are answered from the organization's user digest while it is exact (`user-digest.ts`):
 * the matches are counted in memory, and only the page's records are read.
 */
export class DynamoDbUserStatusReader implements UserStatusReader {
  private readonly digests: DynamoDbUserDigestStore | undefined;

  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
    options: UserStatusReaderOptions = {},
  ) {
    this.digests = options.useDigest === false ? undefined : new DynamoDbUserDigestStore(documents, tableName);
  }

  async findPage(
    orgId: string,
    filters: readonly UserFilter[],
    window: { offset: number; limit: number; fields: readonly UserField[] },
  ): Promise<UserStatusPageRead> {
    let plan = planUserQuery(this.tableName, orgId, filters, window.fields);
    if (plan.empty) return { records: [], total: 0, consumedReadUnits: 0, accessPath: 'none' };
    if (this.digests && filters.every((filter) => DIGEST_FILTER_FIELDS.has(filter.field))) {
      const digest = await this.digests.load(orgId);
      if (digest.kind === 'exact') return this.findPageInDigest(orgId, filters, window, digest);
      // No writer of this release has touched the organization: records stored before `byStatus`
      // may lack its key until users:reindex, so the complete byCreatedAt index answers.
      if (digest.kind === 'none')
        plan = planUserQuery(this.tableName, orgId, filters, window.fields, { statusIndex: false });
    }
    if (plan.partitions) return this.findPageAcrossPartitions(orgId, plan, plan.partitions, window);

    const records: Array<Partial<UserRecord>> = [];
    let total = 0;
    let consumedReadUnits = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const windowFull = records.length >= window.limit;
      const page = await this.query({
        ...plan.input,
        ...(windowFull
          ? { Select: 'COUNT', ProjectionExpression: undefined, ExpressionAttributeNames: countNames(plan) }
          : {}),
        ExclusiveStartKey: startKey,
      });
      consumedReadUnits += page.ConsumedCapacity?.CapacityUnits ?? 0;
      if (!windowFull) {
        for (const item of page.Items ?? []) {
          if (total >= window.offset && records.length < window.limit) records.push(fromUserItem(item));
          total++;
        }
      } else {
        total += page.Count ?? 0;
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    const accessPath =
      plan.input.IndexName === undefined ? 'table' : (plan.input.IndexName as 'byEmail' | 'byCreatedAt');
    return { records, total, consumedReadUnits, accessPath };
  }

  /** The page from the organization's exact digest. */
  private async findPageInDigest(
    orgId: string,
    filters: readonly UserFilter[],
    window: { offset: number; limit: number; fields: readonly UserField[] },
    digest: { chunks: readonly DigestChunk[]; consumedReadUnits: number },
  ): Promise<UserStatusPageRead> {
    const createdAt = filters.find((filter) => filter.field === 'created_at');
    const range = createdAt?.kind === 'range' ? createdAtKeyRange(createdAt.bounds) : {};
    const found = findInDigest(
      digest.chunks,
      filters.filter((filter) => filter !== createdAt),
      range,
      window,
    );
    const fetched = await this.fetchRecords(orgId, found.ids, window.fields);
    return {
      // A record deleted since the digest was built is left out.
      records: found.ids.flatMap((id) => fetched.byId.get(id) ?? []),
      total: found.total,
      consumedReadUnits: digest.consumedReadUnits + fetched.consumedReadUnits,
      accessPath: 'digest',
    };
  }

  private async findPageAcrossPartitions(
    orgId: string,
    plan: UserQueryPlan,
    partitions: readonly string[],
    window: { offset: number; limit: number; fields: readonly UserField[] },
  ): Promise<UserStatusPageRead> {
    const wanted = window.offset + window.limit;
    let consumedReadUnits = 0;
    const readPartition = async (partition: string) => {
      const sortKeys: string[] = [];
      let count = 0;
      let startKey: Record<string, unknown> | undefined;
      do {
        const collecting = sortKeys.length < wanted;
        const page = await this.query({
          ...plan.input,
          ExpressionAttributeValues: { ...plan.input.ExpressionAttributeValues, [PARTITION_PLACEHOLDER]: partition },
          ...(collecting ? { ProjectionExpression: 'createdAtSk' } : { Select: 'COUNT' }),
          ExclusiveStartKey: startKey,
        });
        consumedReadUnits += page.ConsumedCapacity?.CapacityUnits ?? 0;
        if (collecting) {
          for (const item of page.Items ?? []) if (sortKeys.length < wanted) sortKeys.push(item.createdAtSk as string);
        }
        count += page.Count ?? 0;
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return { sortKeys, count };
    };

    const perPartition = await mapConcurrently(partitions, PARTITION_CONCURRENCY, readPartition);
    const total = perPartition.reduce((sum, partition) => sum + partition.count, 0);
    // DynamoDB orders sort keys by their UTF-8 bytes; the merge must agree with it.
    const pageKeys = perPartition
      .flatMap((partition) => partition.sortKeys.map((sortKey) => Buffer.from(sortKey, 'utf8')))
      .sort((a, b) => Buffer.compare(a, b))
      .slice(window.offset, wanted)
      .map((bytes) => splitCreatedAtSortKey(bytes.toString('utf8')).id);
    const fetched = await this.fetchRecords(orgId, pageKeys, window.fields);
    consumedReadUnits += fetched.consumedReadUnits;
    // A record deleted between the index read and the fetch is left out.
    const records = pageKeys.flatMap((id) => fetched.byId.get(id) ?? []);
    return { records, total, consumedReadUnits, accessPath: 'byStatus' };
  }

  /** The records of the page, projected to the requested fields (and `id`, to put them in order). */
  private async fetchRecords(
    orgId: string,
    ids: readonly string[],
    fields: readonly UserField[],
  ): Promise<{ byId: Map<string, UserRecord>; consumedReadUnits: number }> {
    const { items, consumedReadUnits } = await batchGetItems(
      this.documents,
      this.tableName,
      ids.map((id) => userKey(orgId, id)),
      { concurrency: PARTITION_CONCURRENCY, attributes: [...new Set<string>(['id', ...fields])] },
    );
    const byId = new Map(items.map((item) => fromUserItem(item)).map((record) => [record.id, record]));
    return { byId, consumedReadUnits };
  }

  private query(input: QueryCommandInput): Promise<QueryCommandOutput> {
    return this.documents.send(new QueryCommand({ ...input, ReturnConsumedCapacity: 'TOTAL' }));
  }
}

/** Without a projection, only the names the key and filter expressions still use may be sent. */
function countNames(plan: UserQueryPlan): Record<string, string> | undefined {
  const used = `${plan.input.KeyConditionExpression ?? ''} ${plan.input.FilterExpression ?? ''}`;
  const isUsed = (placeholder: string) => new RegExp(`${placeholder}(?![A-Za-z0-9_])`).test(used);
  const names = Object.fromEntries(
    Object.entries(plan.input.ExpressionAttributeNames ?? {}).filter(([placeholder]) => isUsed(placeholder)),
  );
  return Object.keys(names).length ? names : undefined;
}
