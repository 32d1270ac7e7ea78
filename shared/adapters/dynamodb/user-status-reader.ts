import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { UserStatusReader } from '../../domain/users/query-user-status.ts';
import type { UserRecord } from '../../domain/users/user-record.ts';
import type { RangeOperator, UserField, UserFilter } from '../../domain/users/user-status-query.ts';
import { emailPartitionKey, fromUserItem, userKey } from './user-items.ts';

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
}

/**
 * Picks the narrowest access path the filters allow, in the order `id` (one item), `email`
 * (the `byEmail` index), otherwise the `byCreatedAt` index (the organization's users in
 * `created_at`, `id` order, with any `created_at` range as a key condition). Every other filter
 * becomes a FilterExpression and the requested fields a ProjectionExpression, so DynamoDB does
 * the filtering and projection and only matching items cross the network.
 */
export function planUserQuery(
  tableName: string,
  orgId: string,
  filters: readonly UserFilter[],
  fields: readonly UserField[],
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
  if (idFilter) {
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

function singleValue(filters: readonly UserFilter[], field: UserField) {
  return filters.find(
    (f): f is Extract<UserFilter, { kind: 'equals' }> =>
      f.kind === 'equals' && f.field === field && f.values.length === 1,
  );
}

/** Inclusive bounds on `createdAtSk` (`{created_at}#{id}`) equivalent to a created_at range. */
function createdAtKeyRange(bounds: Partial<Record<RangeOperator, number | string>>): {
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

/**
 * Reads the page a user-status query asks for. DynamoDB returns matches in order; items before
 * the window are skipped, items in it kept, and once the window is full the remaining pages are
 * only counted (`Select: COUNT`), so `total` is exact without transferring records nobody asked for.
 */
export class DynamoDbUserStatusReader implements UserStatusReader {
  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async findPage(
    orgId: string,
    filters: readonly UserFilter[],
    window: { offset: number; limit: number; fields: readonly UserField[] },
  ): Promise<{ records: Array<Partial<UserRecord>>; total: number }> {
    const plan = planUserQuery(this.tableName, orgId, filters, window.fields);
    if (plan.empty) return { records: [], total: 0 };

    const records: Array<Partial<UserRecord>> = [];
    let total = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const windowFull = records.length >= window.limit;
      const page = await this.documents.send(
        new QueryCommand({
          ...plan.input,
          ...(windowFull
            ? { Select: 'COUNT', ProjectionExpression: undefined, ExpressionAttributeNames: countNames(plan) }
            : {}),
          ExclusiveStartKey: startKey,
        }),
      );
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
    return { records, total };
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
