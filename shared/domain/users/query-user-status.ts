import type { UserRecord } from './user-record.ts';
import {
  selectFields,
  type UserFilter,
  type UserStatusPage,
  type UserStatusQuery,
  type UserField,
} from './user-status-query.ts';

export interface UserStatusReader {
  /**
   * The organization's records matching every filter, ordered by `created_at` then `id`, each
   * holding at least `fields`. `total` counts every match; only records in
   * `[offset, offset + limit)` are returned.
   */
  findPage(
    orgId: string,
    filters: readonly UserFilter[],
    window: { offset: number; limit: number; fields: readonly UserField[] },
  ): Promise<{
    records: Array<Partial<UserRecord>>;
    total: number;
    consumedReadUnits?: number;
    /** Which index or digest answered, when the reader says. */
    accessPath?: string;
  }>;
}

/**
 * Primary course: find the page of matching records, then shape each to the requested keys.
 * `onRead` hears what the read cost (read units and the access path, when the reader knows them, and matches).
 */
export function queryUserStatus(deps: {
  users: UserStatusReader;
  onRead?: (read: { consumedReadUnits?: number; total: number; accessPath?: string }) => void;
}) {
  return async (orgId: string, query: UserStatusQuery): Promise<UserStatusPage> => {
    const page = await deps.users.findPage(orgId, query.filters, {
      offset: query.offset,
      limit: query.limit,
      fields: query.resultKeys,
    });
    deps.onRead?.({ consumedReadUnits: page.consumedReadUnits, total: page.total, accessPath: page.accessPath });
    return {
      results: page.records.map((record) => selectFields(record, query.resultKeys)),
      pagination: { limit: query.limit, offset: query.offset, total: page.total },
    };
  };
}
