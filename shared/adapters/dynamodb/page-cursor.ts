import { InvalidInputError } from '#shared/domain/errors.ts';

/**
 * Opaque page cursors: the sort key to continue after, base64url-encoded JSON. The partition key
 * is never taken from the cursor but from the caller's organization, so a cursor cannot reach
 * another tenant's items; a cursor that does not fit the listing is a 400, not a DynamoDB error.
 */
export function encodeCursor(sortKey: string): string {
  return Buffer.from(JSON.stringify({ sk: sortKey }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, expectedPrefix: string): string {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const sortKey = (decoded as { sk?: unknown } | null)?.sk;
    if (typeof sortKey === 'string' && sortKey.startsWith(expectedPrefix) && Buffer.byteLength(sortKey, 'utf8') <= 1024)
      return sortKey;
  } catch {
    // fall through to the validation error
  }
  throw new InvalidInputError([{ field: 'cursor', code: 'isIn', hint: 'cursor is not one this listing returned' }]);
}
