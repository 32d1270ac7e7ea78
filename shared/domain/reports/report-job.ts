export const REPORT_JOB_STATUSES = ['PENDING', 'IN_PROGRESS', 'COMPLETE', 'FAILED'] as const;
export type ReportJobStatus = (typeof REPORT_JOB_STATUSES)[number];

export const REPORT_ERROR_CODES = [
  'USER_NOT_FOUND',
  'RENDER_FAILED',
  'STORAGE_FAILED',
  'TIMED_OUT',
  'INTERNAL_ERROR',
  /** The user was erased (DELETE /v1/users/{id}) while the job was open. */
  'USER_ERASED',
] as const;
export type ReportErrorCode = (typeof REPORT_ERROR_CODES)[number];

/** A job that is neither COMPLETE nor FAILED this long after creation has failed (the seed's polling guidance). */
export const REPORT_DEADLINE_MS = 5 * 60 * 1000;
export const DOWNLOAD_URL_TTL_SECONDS = 300;

export interface ReportJob {
  jobId: string;
  orgId: string;
  userId: string;
  status: ReportJobStatus;
  templateVersion: string;
  /**
   * The `sub` of the token that requested the job, shown in the report. Absent on jobs created
   * before it was recorded, and when the token carried no `sub`.
   */
  requestedBy?: string;
  createdAt: string;
  updatedAt: string;
  /** When the current processing attempt took the job; with `leaseExpiresAt` it fences stale workers. */
  startedAt?: string;
  attemptId?: string;
  leaseExpiresAt?: string;
  completedAt?: string;
  sizeBytes?: number;
  sha256?: string;
  durationMs?: number;
  errorCode?: ReportErrorCode;
  /**
   * Set while the request that created the job has not confirmed it (queued it and answered).
   * A job still provisional at this instant was given up by its request (which answered 503):
   * it is void, as if never created, even if its write landed after the request stopped waiting.
   */
  provisionalUntil?: string;
}

/**
 * What a worker stores with COMPLETE, in the same update as the status. A new stored field of a
 * finished report is added to ReportJob and here; the store writes every member it is given.
 */
export type CompletedReport = Required<
  Pick<ReportJob, 'sizeBytes' | 'sha256' | 'durationMs' | 'completedAt' | 'templateVersion'>
>;

export const isVoid = (job: Pick<ReportJob, 'provisionalUntil'>, now: Date): boolean =>
  job.provisionalUntil !== undefined && Date.parse(job.provisionalUntil) <= now.getTime();

export const isOpen = (status: ReportJobStatus): boolean => status === 'PENDING' || status === 'IN_PROGRESS';

export function isPastDeadline(job: Pick<ReportJob, 'status' | 'createdAt'>, now: Date): boolean {
  return isOpen(job.status) && now.getTime() - Date.parse(job.createdAt) >= REPORT_DEADLINE_MS;
}

export const reportObjectKey = (orgId: string, jobId: string): string => `reports/${orgId}/${jobId}.pdf`;

/** `report-{userId}-{yyyymmdd}.pdf`, with anything but letters, digits, `-` and `_` in the id replaced. */
export function downloadFilename(userId: string, generatedAt: string): string {
  const safeUserId = userId.replace(/[^A-Za-z0-9_-]/g, '_');
  return `report-${safeUserId}-${generatedAt.slice(0, 10).replaceAll('-', '')}.pdf`;
}

/** Processing time: from the moment a worker took the job (or creation, if none did) to `endedAt`. */
export function processingDurationMs(job: Pick<ReportJob, 'startedAt' | 'createdAt'>, endedAt: Date): number {
  return Math.max(0, endedAt.getTime() - Date.parse(job.startedAt ?? job.createdAt));
}
