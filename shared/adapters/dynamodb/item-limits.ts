/**
 * DynamoDB's limits on one item, checked before a write so a record that would be refused is
 * reported on its own instead of failing the whole batch it travels in.
 */

export const MAX_ITEM_BYTES = 400 * 1024;
export const MAX_PARTITION_KEY_BYTES = 2048;
export const MAX_SORT_KEY_BYTES = 1024;
/** Lists and maps may nest 32 levels deep. */
export const MAX_NESTING_DEPTH = 32;
/** The document client refuses numbers it cannot represent exactly; DynamoDB refuses magnitudes below 1e-130. */
const SMALLEST_MAGNITUDE = 1e-130;

export interface KeyAttributes {
  /** Attributes used as a partition key by the table or an index. */
  partition: readonly string[];
  /** Attributes used as a sort key by the table or an index. */
  sort: readonly string[];
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** Problems that would make DynamoDB (or the document client's marshaller) refuse the item; empty if none. */
export function itemLimitProblems(item: Record<string, unknown>, keys: KeyAttributes): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(item)) {
    walk(value, name, 1, problems);
  }
  for (const [attributes, limit] of [
    [keys.partition, MAX_PARTITION_KEY_BYTES],
    [keys.sort, MAX_SORT_KEY_BYTES],
  ] as const) {
    for (const attribute of attributes) {
      const value = item[attribute];
      if (typeof value === 'string' && utf8Bytes(value) > limit) {
        problems.push(`${attribute}: key value is over DynamoDB's ${limit}-byte key limit`);
      }
    }
  }
  const size = itemSizeBytes(item);
  if (size > MAX_ITEM_BYTES)
    problems.push(`record: about ${size} bytes stored, over DynamoDB's ${MAX_ITEM_BYTES}-byte item limit`);
  return problems;
}

function walk(value: unknown, path: string, depth: number, problems: string[]): void {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER) {
      problems.push(
        `${path}: number ${value} cannot be stored exactly (at most ${Number.MAX_SAFE_INTEGER} in magnitude)`,
      );
    } else if (value !== 0 && Math.abs(value) < SMALLEST_MAGNITUDE) {
      problems.push(`${path}: number ${value} is too small for DynamoDB (use 0 or at least 1e-130 in magnitude)`);
    }
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (depth > MAX_NESTING_DEPTH) {
    problems.push(`${path}: nested more than ${MAX_NESTING_DEPTH} levels deep`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((element, index) => walk(element, `${path}[${index}]`, depth + 1, problems));
  } else {
    for (const [name, member] of Object.entries(value)) walk(member, `${path}.${name}`, depth + 1, problems);
  }
}

/**
 * An upper estimate of DynamoDB's item size: attribute names plus values, lists and maps with
 * their per-element overhead, numbers at their widest.
 */
export function itemSizeBytes(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) size += utf8Bytes(name) + valueSize(value);
  return size;
}

function valueSize(value: unknown): number {
  if (typeof value === 'string') return utf8Bytes(value);
  if (typeof value === 'number') return 21;
  if (Array.isArray(value)) return value.reduce<number>((sum, element) => sum + 1 + valueSize(element), 3);
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).reduce<number>(
      (sum, [name, member]) => sum + 1 + utf8Bytes(name) + valueSize(member),
      3,
    );
  }
  return 1;
}
