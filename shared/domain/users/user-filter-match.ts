import type { RangeOperator, UserFilter } from './user-status-query.ts';

/**
 * Whether one stored value satisfies a filter, with the contract's semantics, which are also what
 * the reader's DynamoDB filter expressions apply: strings exactly (`email` case-insensitively and
 * trimmed), booleans exactly, numbers numerically, dates and instants by their canonical text
 * (the request schema normalises the bounds, the record schema the stored values), and a missing
 * value or one of another type matches nothing.
 */
export function fieldValueMatches(filter: UserFilter, value: unknown): boolean {
  if (filter.kind === 'boolean') return value === filter.value;
  if (filter.kind === 'equals') {
    if (typeof value !== 'string') return false;
    if (filter.field !== 'email') return filter.values.includes(value);
    const email = value.trim().toLowerCase();
    return filter.values.some((wanted) => wanted.trim().toLowerCase() === email);
  }
  const expectedType = filter.valueType === 'number' ? 'number' : 'string';
  if (typeof value !== expectedType) return false;
  return (Object.entries(filter.bounds) as Array<[RangeOperator, number | string]>).every(([op, bound]) =>
    compare(value as number | string, op, bound),
  );
}

function compare(value: number | string, op: RangeOperator, bound: number | string): boolean {
  if (op === 'gt') return value > bound;
  if (op === 'gte') return value >= bound;
  if (op === 'lt') return value < bound;
  if (op === 'lte') return value <= bound;
  return value === bound;
}
