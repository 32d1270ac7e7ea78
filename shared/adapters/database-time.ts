import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The time a request spent in the users database's statements (PostgreSQL, Aurora DSQL deployed),
 * carried through every await of the request (AsyncLocalStorage), so the adapter adds to it
 * without each caller passing a meter along. The request budget charges it when the request ends
 * (contract §19: 1 unit, plus 1 per 100 ms of database time). DynamoDB calls are not metered:
 * each request's are few and bounded (pages, bounded reads), single-digit milliseconds deployed,
 * and their wall time locally measures the emulator's queue rather than the request's work.
 */
export interface DatabaseTime {
  ms: number;
}

const current = new AsyncLocalStorage<DatabaseTime>();

/** Runs `work` with a fresh meter; `databaseTimeSpent()` inside it reads what was spent so far. */
export function measuringDatabaseTime<T>(work: () => Promise<T>): Promise<T> {
  return current.run({ ms: 0 }, work);
}

/** Milliseconds of database time so far in the current request; undefined outside one. */
export function databaseTimeSpent(): number | undefined {
  return current.getStore()?.ms;
}

/** Adds the wall time of one database call (started at `startedAt`, `performance.now()`) to the request's. */
export function addDatabaseTime(startedAt: number): void {
  const meter = current.getStore();
  if (meter) meter.ms += performance.now() - startedAt;
}
