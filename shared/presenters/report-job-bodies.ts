import type { ReportJobListing } from '#shared/domain/reports/list-report-jobs.ts';
import type { ReportDownload } from '#shared/domain/reports/read-report-job.ts';
import type { ReportJob } from '#shared/domain/reports/report-job.ts';
import type {
  ReportDownloadBody,
  ReportJobBody,
  ReportJobCreatedBody,
  ReportJobPageBody,
} from '#shared/schemas/report-job-responses.ts';

/** 202 of `POST /v1/document/api`. */
export function reportJobCreatedBody(job: ReportJob): ReportJobCreatedBody {
  return {
    jobId: job.jobId,
    status: job.status,
    userId: job.userId,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
  };
}

/**
 * The status response, also the `data` of `report.completed` / `report.failed` events. The store
 * writes a COMPLETE job's size, digest, duration and completion time, and a FAILED job's error
 * code and duration, in the same update as the status.
 */
export function reportJobBody(job: ReportJob): ReportJobBody {
  const common = {
    jobId: job.jobId,
    userId: job.userId,
    templateVersion: job.templateVersion,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
  };
  switch (job.status) {
    case 'COMPLETE':
      return {
        ...common,
        status: job.status,
        sizeBytes: job.sizeBytes!,
        sha256: job.sha256!,
        durationMs: job.durationMs!,
        completedAt: job.completedAt!,
      };
    case 'FAILED':
      return { ...common, status: job.status, errorCode: job.errorCode!, durationMs: job.durationMs! };
    default:
      return { ...common, status: job.status };
  }
}

/** 200 of `GET /v1/document/api`. */
export function reportJobPageBody(listing: ReportJobListing): ReportJobPageBody {
  return { results: listing.jobs.map(reportJobBody), nextCursor: listing.nextCursor };
}

/** 200 of `GET /v1/document/api/{id}/url`. */
export function reportDownloadBody(download: ReportDownload): ReportDownloadBody {
  return {
    url: download.url,
    expiresInSeconds: download.expiresInSeconds,
    expiresAt: download.expiresAt.toISOString(),
    filename: download.filename,
  };
}
