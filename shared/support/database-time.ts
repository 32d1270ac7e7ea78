import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The time a request spent in the users database's statements (PostgreSQL, Aurora DSQL deployed),
 * carried through every await of the request (AsyncLocalStorage), so the adapter adds to it
 * without each caller passing a meter along. The request budget charges it as it runs (contract
 * §19: 1 unit, plus 1 per 100 ms of database time) and may cut the request's statements off when
 * the organization's budget is spent (`cutOff`). DynamoDB calls are not metered: each request's
 * are few and bounded (pages, bounded reads), single-digit milliseconds deployed, and their wall
 * time locally measures the emulator's queue rather than the request's work.
 */
export class DatabaseTimeMeter {
  /** Milliseconds of the statements that have ended. */
  private endedMs = 0;
  /** Start times (`performance.now()`) of the statements running now. */
  private readonly running = new Set<{ startedAt: number }>();
  private readonly cut = new AbortController();
  /** Told whenever a statement starts or ends (the budget reschedules its running charge). */
  onChange: (() => void) | undefined;

  /** Database time so far, the statements still running included. */
  spentMs(nowMs = performance.now()): number {
    let ms = this.endedMs;
    for (const statement of this.running) ms += nowMs - statement.startedAt;
    return ms;
  }

  /** Statements running now. */
  get runningCount(): number {
    return this.running.size;
  }

  /** Aborted with the reason the request's statements must stop (its organization's budget is spent). */
  get cutSignal(): AbortSignal {
    return this.cut.signal;
  }

  /** Stops the request's running statements, and refuses its next ones, with `reason`. */
  cutOff(reason: Error): void {
    if (!this.cut.signal.aborted) this.cut.abort(reason);
  }

  /** Adds the time of a statement that has ended, started at `startedAt` (`performance.now()`). */
  addEnded(startedAt: number): void {
    this.endedMs += performance.now() - startedAt;
  }

  /** Starts timing one statement; call the returned function once, when it ends. */
  statementStarted(): () => void {
    const statement = { startedAt: performance.now() };
    this.running.add(statement);
    this.onChange?.();
    return () => {
      if (!this.running.delete(statement)) return;
      this.endedMs += performance.now() - statement.startedAt;
      this.onChange?.();
    };
  }
}

const current = new AsyncLocalStorage<DatabaseTimeMeter>();

/** Runs `work` with a fresh meter; `databaseTimeMeter()` inside it is that meter. */
export function measuringDatabaseTime<T>(work: () => Promise<T>): Promise<T> {
  return current.run(new DatabaseTimeMeter(), work);
}

/** The current request's meter; undefined outside one. */
export function databaseTimeMeter(): DatabaseTimeMeter | undefined {
  return current.getStore();
}

/** Milliseconds of database time so far in the current request; undefined outside one. */
export function databaseTimeSpent(): number | undefined {
  return current.getStore()?.spentMs();
}
