import type { UserRecord } from '#shared/domain/users/user-record.ts';
import type { RateLimitDecision } from '#shared/domain/limits/report-rate-limit.ts';
import type { CompletedReport, ReportErrorCode, ReportJob } from './report-job.ts';
import type { Mode } from '#shared/domain/identity/tenant.ts';

export interface ReportJobStore {
  /**
   * Writes a PENDING job (provisional until `job.provisionalUntil`) and its user's open-job guard
   * in one transaction. A void job's guard counts as free. Throws `OpenJobExistsError` when the
   * user already has an open job.
   */
  createOpenJob(job: ReportJob): Promise<void>;
  /** The request queued the job: it is no longer provisional. Throws if it was already void. */
  confirm(job: ReportJob): Promise<void>;
  get(jobId: string): Promise<ReportJob | undefined>;
  /** Removes a job that could not be queued (or a void one), and its guard. */
  withdraw(job: ReportJob): Promise<void>;
  /**
   * PENDING -> IN_PROGRESS for one processing attempt, or takes over an IN_PROGRESS job whose
   * lease ran out (its worker died). Undefined when the job is not available to this attempt.
   */
  start(jobId: string, attempt: { attemptId: string; now: Date; leaseMs: number }): Promise<ReportJob | undefined>;
  /** Gives a started job back (IN_PROGRESS -> PENDING) so a retry of the message can take it. */
  release(job: ReportJob, now: Date): Promise<void>;
  /** IN_PROGRESS (this attempt) -> COMPLETE and the guard removed, atomically. False if the attempt lost the job. */
  complete(job: ReportJob, result: CompletedReport): Promise<boolean>;
  /** Open -> FAILED and the guard removed, atomically. False if the job was no longer open. */
  fail(job: ReportJob, errorCode: ReportErrorCode, now: Date): Promise<boolean>;
  /**
   * The organization's jobs, newest first (provisional and expired ones left out), optionally of
   * one user; `nextCursor` is absent on the last page.
   */
  listByOrganization(
    orgId: string,
    page: { limit: number; cursor: string | undefined; userId?: string; now: Date },
  ): Promise<ReportJobPage>;
  /** Open jobs created before `cutoff`, oldest first. */
  findOpenJobsCreatedBefore(cutoff: Date, limit: number): Promise<Array<Pick<ReportJob, 'jobId' | 'orgId'>>>;
  /**
   * Erasure: removes a finished (COMPLETE or FAILED) job's record; an absent one is fine. False,
   * and nothing removed, if the job is open.
   */
  delete(job: ReportJob): Promise<boolean>;
  /**
   * Erasure: takes the user's open-job slot until `until`, so that no report job can be created for
   * the user meanwhile (`createOpenJob` then throws `NotFoundError`, as for an unknown user).
   * Holding it again (a retry, a parallel erasure) extends it. Returns undefined once held, or the
   * id of the open job holding the slot: the caller ends that job and asks again. `staleJobId`
   * names a job found finished or gone whose guard was left behind: that guard may be replaced.
   */
  holdForErasure(
    orgId: string,
    userId: string,
    hold: { now: Date; until: Date; staleJobId?: string },
  ): Promise<string | undefined>;
}

export interface ReportJobPage {
  jobs: ReportJob[];
  nextCursor?: string;
}

/** What a worker stores with COMPLETE: defined beside the job's fields (report-job.ts). */
export type { CompletedReport };

export interface ReportRateLimiter {
  /** Spends one of the organization's tokens if one is left; atomic under concurrent calls. */
  spend(orgId: string, now: Date): Promise<RateLimitDecision>;
}

export interface UserDirectory {
  find(orgId: string, userId: string): Promise<UserRecord | undefined>;
}

export interface ReportJobMessage {
  orgId: string;
  jobId: string;
}

export interface ReportQueue {
  /** `delaySeconds` (at most 900): SQS delivers the message no sooner. */
  enqueue(message: ReportJobMessage, options?: { delaySeconds?: number }): Promise<void>;
}

/** Where the worker keeps finished PDFs. */
export interface ReportStorage {
  save(objectKey: string, pdf: Uint8Array, sha256Hex: string): Promise<void>;
  /** Removes an object stored for a job that ended otherwise meanwhile; absent is fine. */
  remove(objectKey: string): Promise<void>;
}

/** Short-lived addresses a client downloads a stored PDF from (a port of its own: signing one needs no storage client). */
export interface ReportDownloadLinks {
  downloadUrl(objectKey: string, options: { filename: string; expiresInSeconds: number }): Promise<string>;
}

export type ReportRenderer = (input: {
  user: UserRecord;
  organizationName: string;
  jobId: string;
  generatedAt: Date;
  /** The `sub` that requested the report, when the job recorded one. */
  requestedBy?: string | undefined;
  /** A sandbox job's report: marked as no screening result on every page and in its title. */
  sandbox?: boolean;
}) => Promise<Uint8Array>;

/**
 * Signs a rendered report (PAdES), returning the file to store, with the key of the job's mode
 * (a sandbox report with the sandbox key, whose certificate names the sandbox). Throws `DependencyUnavailableError`
 * when the key's service is throttling or down (the job is retried), anything else when it cannot
 * sign at all (e.g. its certificate has expired): a report is never stored unsigned.
 */
export type ReportSigner = (pdf: Uint8Array, signedAt: Date, mode?: Mode) => Promise<Uint8Array>;

/**
 * Hands a job's message back to the queue to be delivered again in `delaySeconds` (a sandbox job
 * whose scenario completes later): the job waits in the queue, not in a running worker.
 */
export type ReportRedelivery = (message: ReportJobMessage, delaySeconds: number) => Promise<void>;
