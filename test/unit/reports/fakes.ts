import type { Clock } from '#shared/domain/clock.ts';
import { DependencyUnavailableError, NotFoundError, OpenJobExistsError } from '#shared/domain/errors.ts';
import type {
  CompletedReport,
  ReportJobMessage,
  ReportJobPage,
  ReportJobStore,
  ReportDownloadLinks,
  ReportQueue,
  ReportStorage,
  UserDirectory,
} from '#shared/domain/reports/ports.ts';
import { processingDurationMs, type ReportErrorCode, type ReportJob } from '#shared/domain/reports/report-job.ts';
import type { UserRecord } from '#shared/domain/users/user-record.ts';
import { T0 } from '#test/support/fixtures/defaults.ts';

/** A clock the test moves by hand. */
export class FakeClock implements Clock {
  constructor(private current: Date = T0) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

interface OpenJobGuard {
  jobId: string;
  createdAt: string;
  provisionalUntil?: string;
  /** Held by an erasure until `provisionalUntil`. */
  erasureHold?: true;
}

/** Thrown where DynamoDB would cancel a transaction the adapter does not catch. */
export class FakeTransactionCancelled extends Error {
  override name = 'FakeTransactionCancelled';
}

const clone = <T>(value: T): T => structuredClone(value);

/**
 * An in-memory ReportJobStore with the DynamoDB adapter's rules: one guard per (org, user)
 * written with the job; start only from PENDING or an expired lease; complete only by the
 * attempt holding the job; fail only while open; a final state removes the guard, and a guard
 * of another job makes the whole transaction fail.
 */
export class InMemoryReportJobStore implements ReportJobStore {
  readonly jobs = new Map<string, ReportJob>();
  readonly guards = new Map<string, OpenJobGuard>();

  constructor(private readonly clock: Clock = new FakeClock()) {}

  static guardKey(orgId: string, userId: string): string {
    return `${orgId}/${userId}`;
  }

  /** Puts a job (and, when open, its guard) straight into the store, as an earlier request would have. */
  seed(job: ReportJob): ReportJob {
    this.jobs.set(job.jobId, clone(job));
    if (job.status === 'PENDING' || job.status === 'IN_PROGRESS') {
      this.guards.set(InMemoryReportJobStore.guardKey(job.orgId, job.userId), {
        jobId: job.jobId,
        createdAt: job.createdAt,
        ...(job.provisionalUntil ? { provisionalUntil: job.provisionalUntil } : {}),
      });
    }
    return clone(job);
  }

  async createOpenJob(job: ReportJob): Promise<void> {
    const key = InMemoryReportJobStore.guardKey(job.orgId, job.userId);
    const existing = this.guards.get(key);
    const existingIsVoid = existing?.provisionalUntil !== undefined && existing.provisionalUntil <= job.createdAt;
    if (existing?.erasureHold && !existingIsVoid) throw new NotFoundError(`user ${job.userId} not found`);
    if (existing && !existingIsVoid) throw new OpenJobExistsError(existing.jobId, existing.createdAt);
    if (this.jobs.has(job.jobId)) throw new FakeTransactionCancelled(`job ${job.jobId} already exists`);
    this.guards.set(key, {
      jobId: job.jobId,
      createdAt: job.createdAt,
      ...(job.provisionalUntil ? { provisionalUntil: job.provisionalUntil } : {}),
    });
    this.jobs.set(job.jobId, clone(job));
  }

  async confirm(job: ReportJob): Promise<void> {
    const guard = this.guards.get(InMemoryReportJobStore.guardKey(job.orgId, job.userId));
    const stored = this.jobs.get(job.jobId);
    if (guard?.jobId !== job.jobId || !stored) throw new DependencyUnavailableError('database (confirmation too late)');
    delete guard.provisionalUntil;
    delete stored.provisionalUntil;
  }

  async get(jobId: string): Promise<ReportJob | undefined> {
    const job = this.jobs.get(jobId);
    return job ? clone(job) : undefined;
  }

  async withdraw(job: ReportJob): Promise<void> {
    if (!this.guardReleasableBy(job)) throw new FakeTransactionCancelled('guard belongs to another job');
    this.jobs.delete(job.jobId);
    this.releaseGuard(job);
  }

  async start(
    jobId: string,
    attempt: { attemptId: string; now: Date; leaseMs: number },
  ): Promise<ReportJob | undefined> {
    const job = this.jobs.get(jobId);
    if (!job) return undefined;
    const now = attempt.now.toISOString();
    const leaseExpired = job.status === 'IN_PROGRESS' && job.leaseExpiresAt !== undefined && job.leaseExpiresAt < now;
    const isVoid = job.provisionalUntil !== undefined && job.provisionalUntil <= now;
    if ((job.status !== 'PENDING' || isVoid) && !leaseExpired) return undefined;
    Object.assign(job, {
      status: 'IN_PROGRESS',
      attemptId: attempt.attemptId,
      startedAt: now,
      leaseExpiresAt: new Date(attempt.now.getTime() + attempt.leaseMs).toISOString(),
      updatedAt: now,
    });
    return clone(job);
  }

  async release(job: ReportJob, now: Date): Promise<void> {
    const stored = this.jobs.get(job.jobId);
    if (!stored || stored.status !== 'IN_PROGRESS' || stored.attemptId !== job.attemptId) return;
    stored.status = 'PENDING';
    stored.updatedAt = now.toISOString();
    delete stored.attemptId;
    delete stored.startedAt;
    delete stored.leaseExpiresAt;
  }

  async complete(job: ReportJob, result: CompletedReport): Promise<boolean> {
    const stored = this.jobs.get(job.jobId);
    if (!stored || stored.status !== 'IN_PROGRESS' || stored.attemptId !== job.attemptId) return false;
    if (!this.guardReleasableBy(job)) return false;
    Object.assign(stored, { status: 'COMPLETE', ...result, updatedAt: result.completedAt });
    delete stored.leaseExpiresAt;
    this.releaseGuard(job);
    return true;
  }

  async fail(job: ReportJob, errorCode: ReportErrorCode, now: Date): Promise<boolean> {
    const stored = this.jobs.get(job.jobId);
    if (!stored || (stored.status !== 'PENDING' && stored.status !== 'IN_PROGRESS')) return false;
    if (job.attemptId && stored.attemptId !== job.attemptId) return false;
    if (!this.guardReleasableBy(job)) return false;
    Object.assign(stored, {
      status: 'FAILED',
      errorCode,
      durationMs: processingDurationMs(job, now),
      updatedAt: now.toISOString(),
    });
    delete stored.leaseExpiresAt;
    this.releaseGuard(job);
    return true;
  }

  async listByOrganization(
    orgId: string,
    page: { limit: number; cursor: string | undefined; userId?: string; now: Date },
  ): Promise<ReportJobPage> {
    const sortKey = (job: ReportJob) => `${job.createdAt}#${job.jobId}`;
    const matching = [...this.jobs.values()]
      .filter((job) => job.orgId === orgId && job.provisionalUntil === undefined)
      .filter((job) => page.userId === undefined || job.userId === page.userId)
      .filter((job) => page.cursor === undefined || sortKey(job) < page.cursor)
      .sort((a, b) => (sortKey(a) < sortKey(b) ? 1 : -1));
    const jobs = matching.slice(0, page.limit).map(clone);
    const last = jobs.at(-1);
    return matching.length > page.limit && last ? { jobs, nextCursor: sortKey(last) } : { jobs };
  }

  async findOpenJobsCreatedBefore(cutoff: Date, limit: number): Promise<Array<Pick<ReportJob, 'jobId' | 'orgId'>>> {
    const cutoffKey = cutoff.toISOString();
    return [...this.guards.values()]
      .map((guard) => ({ guard, sweepSk: `${guard.createdAt}#${guard.jobId}` }))
      .filter(({ sweepSk }) => sweepSk < cutoffKey)
      .sort((a, b) => (a.sweepSk < b.sweepSk ? -1 : 1))
      .slice(0, limit)
      .map(({ guard }) => ({ jobId: guard.jobId, orgId: this.jobs.get(guard.jobId)?.orgId ?? '' }));
  }

  async delete(job: ReportJob): Promise<boolean> {
    const stored = this.jobs.get(job.jobId);
    if (stored && (stored.status === 'PENDING' || stored.status === 'IN_PROGRESS')) return false;
    this.jobs.delete(job.jobId);
    return true;
  }

  async holdForErasure(
    orgId: string,
    userId: string,
    hold: { now: Date; until: Date; staleJobId?: string },
  ): Promise<string | undefined> {
    const key = InMemoryReportJobStore.guardKey(orgId, userId);
    const existing = this.guards.get(key);
    const free =
      existing === undefined ||
      existing.erasureHold === true ||
      (existing.provisionalUntil !== undefined && existing.provisionalUntil <= hold.now.toISOString()) ||
      existing.jobId === hold.staleJobId;
    if (!free) return existing.jobId;
    this.guards.set(key, {
      jobId: 'ERASURE_HOLD',
      createdAt: hold.now.toISOString(),
      provisionalUntil: hold.until.toISOString(),
      erasureHold: true,
    });
    return undefined;
  }

  private guardReleasableBy(job: ReportJob): boolean {
    const guard = this.guards.get(InMemoryReportJobStore.guardKey(job.orgId, job.userId));
    return guard === undefined || guard.jobId === job.jobId;
  }

  private releaseGuard(job: ReportJob): void {
    this.guards.delete(InMemoryReportJobStore.guardKey(job.orgId, job.userId));
  }
}

export class InMemoryUserDirectory implements UserDirectory {
  private readonly users = new Map<string, UserRecord>();

  add(orgId: string, user: UserRecord): this {
    this.users.set(`${orgId}/${user.id}`, clone(user));
    return this;
  }

  async find(orgId: string, userId: string): Promise<UserRecord | undefined> {
    const user = this.users.get(`${orgId}/${userId}`);
    return user ? clone(user) : undefined;
  }
}

export class FakeReportQueue implements ReportQueue {
  readonly messages: ReportJobMessage[] = [];
  failure: Error | undefined;

  async enqueue(message: ReportJobMessage): Promise<void> {
    if (this.failure) throw this.failure;
    this.messages.push({ ...message });
  }
}

export class FakeReportStorage implements ReportStorage, ReportDownloadLinks {
  readonly objects = new Map<string, { pdf: Uint8Array; sha256Hex: string }>();
  readonly urlRequests: Array<{ objectKey: string; filename: string; expiresInSeconds: number }> = [];
  saveFailure: Error | undefined;

  async save(objectKey: string, pdf: Uint8Array, sha256Hex: string): Promise<void> {
    if (this.saveFailure) throw this.saveFailure;
    this.objects.set(objectKey, { pdf: Uint8Array.from(pdf), sha256Hex });
  }

  async remove(objectKey: string): Promise<void> {
    this.objects.delete(objectKey);
  }

  async downloadUrl(objectKey: string, options: { filename: string; expiresInSeconds: number }): Promise<string> {
    this.urlRequests.push({ objectKey, ...options });
    return `https://reports.storage.test/${objectKey}?expires=${options.expiresInSeconds}`;
  }
}
