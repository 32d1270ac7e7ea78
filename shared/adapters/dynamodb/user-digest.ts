import { gunzipSync, gzipSync } from 'node:zlib';
import { fieldValueMatches } from '../../domain/users/user-filter-match.ts';
import type { UserRecord } from '../../domain/users/user-record.ts';
import type { UserField, UserFilter } from '../../domain/users/user-status-query.ts';
import { createdAtSortKey, splitCreatedAtSortKey, USER_STATUS_INDEX_FIELDS } from './user-items.ts';

/**
 * The user digest: for one organization, every user's `createdAtSk` and the short fields the
 * common filters test (`byStatus`'s fields and `registration_status`), in `createdAtSk` order,
 * packed into a few gzip'd column chunks. A query on those fields reads the chunks (a million
 * users are ~100 items) instead of touching every matching index item, evaluates the filters in
 * memory, and fetches the page's records with BatchGetItem. README "User status queries".
 */
export const DIGEST_FIELDS = ['registration_status', ...USER_STATUS_INDEX_FIELDS] as const;
export type DigestField = (typeof DIGEST_FIELDS)[number];

/** Fields a digest answers: its columns and `created_at` (the first half of its sort keys). */
export const DIGEST_FILTER_FIELDS: ReadonlySet<UserField> = new Set<UserField>([...DIGEST_FIELDS, 'created_at']);

export interface DigestRow {
  sortKey: string;
  values: Partial<Record<DigestField, unknown>>;
}

export const digestRowOf = (record: UserRecord): DigestRow => ({
  sortKey: createdAtSortKey(record.created_at, record.id),
  values: Object.fromEntries(DIGEST_FIELDS.map((field) => [field, record[field]])),
});

/** A column as distinct values and one code per row: the fields are few-valued, so chunks stay small. */
interface Column {
  values: unknown[];
  codes: number[];
}

/** One chunk of consecutive rows. */
export interface DigestChunk {
  sortKeys: string[];
  columns: Record<DigestField, Column>;
}

const FORMAT = 1;
/** Rows per chunk: ~40 bytes of sort key and ~10 of codes each, so a chunk's gzip stays far below DynamoDB's 400 KB item. */
export const ROWS_PER_CHUNK = 8_000;

/** DynamoDB orders sort keys by their UTF-8 bytes; a digest keeps that order. */
export function sortRows(rows: DigestRow[]): DigestRow[] {
  const withBytes = rows.map((row) => ({ row, bytes: Buffer.from(row.sortKey, 'utf8') }));
  withBytes.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  return withBytes.map(({ row }) => row);
}

/** Rows already in order, as chunks of at most `ROWS_PER_CHUNK`. */
export function chunkRows(rows: readonly DigestRow[], rowsPerChunk = ROWS_PER_CHUNK): DigestChunk[] {
  const chunks: DigestChunk[] = [];
  for (let start = 0; start < rows.length; start += rowsPerChunk) {
    const slice = rows.slice(start, start + rowsPerChunk);
    const columns = Object.fromEntries(
      DIGEST_FIELDS.map((field) => {
        const codeOf = new Map<unknown, number>();
        const values: unknown[] = [];
        const codes = slice.map(({ values: row }) => {
          const value = row[field] ?? null;
          let code = codeOf.get(value);
          if (code === undefined) {
            code = values.push(value) - 1;
            codeOf.set(value, code);
          }
          return code;
        });
        return [field, { values, codes }];
      }),
    ) as Record<DigestField, Column>;
    chunks.push({ sortKeys: slice.map((row) => row.sortKey), columns });
  }
  return chunks;
}

export function* rowsOf(chunk: DigestChunk): Generator<DigestRow> {
  for (let i = 0; i < chunk.sortKeys.length; i++) {
    const values: Partial<Record<DigestField, unknown>> = {};
    for (const field of DIGEST_FIELDS) {
      const column = chunk.columns[field];
      const value = column.values[column.codes[i]!];
      if (value !== null && value !== undefined) values[field] = value;
    }
    yield { sortKey: chunk.sortKeys[i]!, values };
  }
}

/** DynamoDB items stop at 400 KB; a chunk's data stays below this. */
export const MAX_CHUNK_BYTES = 350_000;

/**
 * Rows already in order, encoded as chunks of at most `rowsPerChunk` rows, halving any chunk whose
 * encoding exceeds `MAX_CHUNK_BYTES` (long ids compress less).
 */
export function encodeRows(
  rows: readonly DigestRow[],
  rowsPerChunk = ROWS_PER_CHUNK,
  maxBytes = MAX_CHUNK_BYTES,
): Array<{ data: Uint8Array; rows: number }> {
  const encoded: Array<{ data: Uint8Array; rows: number }> = [];
  for (const chunk of chunkRows(rows, rowsPerChunk)) {
    const data = encodeChunk(chunk);
    const count = chunk.sortKeys.length;
    if (data.length <= maxBytes || count === 1) encoded.push({ data, rows: count });
    else for (const half of encodeRows([...rowsOf(chunk)], Math.ceil(count / 2), maxBytes)) encoded.push(half);
  }
  return encoded;
}

export const encodeChunk = (chunk: DigestChunk): Uint8Array =>
  gzipSync(JSON.stringify({ format: FORMAT, ...chunk }), { level: 6 });

export function decodeChunk(bytes: Uint8Array): DigestChunk {
  const decoded = JSON.parse(gunzipSync(bytes).toString('utf8')) as DigestChunk & { format: number };
  if (decoded.format !== FORMAT) throw new Error(`user digest chunk format ${decoded.format} is not ${FORMAT}`);
  return { sortKeys: decoded.sortKeys, columns: decoded.columns };
}

/** Inclusive bounds on `createdAtSk`, as the reader's key condition uses them. */
export interface SortKeyRange {
  lower?: string;
  upper?: string;
}

/**
 * The matches of `filters` (none on `created_at`: that is `range`) within the sort-key range, in
 * order: their count and the ids at `[offset, offset + limit)`. Each filter is tested once per
 * distinct value of its column and chunk, then per row by code.
 */
export function findInDigest(
  chunks: readonly DigestChunk[],
  filters: readonly UserFilter[],
  range: SortKeyRange,
  window: { offset: number; limit: number },
): { ids: string[]; total: number } {
  const ids: string[] = [];
  let total = 0;
  const end = window.offset + window.limit;
  for (const chunk of chunks) {
    // Bounds are an instant or an instant plus '$', so they differ from a key within its ASCII
    // instant and separator, where string order and UTF-8 byte order agree.
    const first = range.lower === undefined ? 0 : firstAtLeast(chunk.sortKeys, range.lower);
    const last = range.upper === undefined ? chunk.sortKeys.length : firstAbove(chunk.sortKeys, range.upper);
    if (first >= last) continue;
    const tests = filters.map((filter) => {
      const column = chunk.columns[filter.field as DigestField];
      return { codes: column.codes, matches: column.values.map((value) => fieldValueMatches(filter, value)) };
    });
    for (let row = first; row < last; row++) {
      let matches = true;
      for (const test of tests) {
        if (!test.matches[test.codes[row]!]) {
          matches = false;
          break;
        }
      }
      if (!matches) continue;
      if (total >= window.offset && total < end) ids.push(splitCreatedAtSortKey(chunk.sortKeys[row]!).id);
      total++;
    }
  }
  return { ids, total };
}

function firstAtLeast(keys: readonly string[], bound: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! < bound) low = middle + 1;
    else high = middle;
  }
  return low;
}

function firstAbove(keys: readonly string[], bound: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! <= bound) low = middle + 1;
    else high = middle;
  }
  return low;
}
