import * as v from 'valibot';
import {
  DOWNLOAD_URL_TTL_SECONDS,
  REPORT_ERROR_CODES,
  REPORT_JOB_STATUSES,
} from '#shared/domain/reports/report-job.ts';
import { cursorPage, instant } from './response-members.ts';

export const reportJobStateSchema = v.pipe(
  v.picklist(REPORT_JOB_STATUSES),
  v.description(
    'PENDING = queued, IN_PROGRESS = being rendered, COMPLETE = a download address is available, FAILED = generation failed. COMPLETE and FAILED are final.',
  ),
);

const reportJobMembers = {
  jobId: v.pipe(v.string(), v.uuid(), v.description('The job id, `{id}` in the report paths.')),
  status: reportJobStateSchema,
  userId: v.pipe(v.string(), v.minLength(1), v.maxLength(16), v.description('The user the report is about.')),
  createdAt: instant('When the job was created.'),
  updatedAt: instant('When the job last changed.'),
};

/** 202 of POST /v1/document/api. */
export const reportJobCreatedSchema = v.pipe(
  v.object(reportJobMembers),
  v.description('The job as created (status PENDING).'),
);

/** The status response of a job in the given states: the common members plus the state's own. */
const reportJobIn = <const TStates extends readonly [string, ...string[]], TOwn extends v.ObjectEntries>(
  description: string,
  states: TStates,
  own: TOwn,
) =>
  v.pipe(
    v.object({
      ...reportJobMembers,
      status: v.pipe(v.picklist(states), v.description('See ReportJobState.')),
      templateVersion: v.pipe(v.string(), v.description('Version label of the report template.')),
      ...own,
    }),
    v.description(description),
  );

const durationMs = v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Processing time in milliseconds.'));

export const openReportJobSchema = reportJobIn(
  'A job that is queued or being rendered.',
  ['PENDING', 'IN_PROGRESS'],
  {},
);

export const completeReportJobSchema = reportJobIn(
  'A job whose PDF is stored; ask for a download address.',
  ['COMPLETE'],
  {
    sizeBytes: v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Size of the PDF in bytes.')),
    sha256: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/), v.description('Hex SHA-256 digest of the PDF.')),
    durationMs,
    completedAt: instant('When the report was stored.'),
  },
);

export const failedReportJobSchema = reportJobIn('A job that failed; request a new one.', ['FAILED'], {
  errorCode: v.pipe(
    v.picklist(REPORT_ERROR_CODES),
    v.description(
      'Why the job failed; TIMED_OUT when it was not complete 5 minutes after creation, USER_ERASED when the user was erased while it was open.',
    ),
  ),
  durationMs,
});

/** 200 of GET /v1/document/api/{id}. */
export const reportJobSchema = v.pipe(
  v.variant('status', [openReportJobSchema, completeReportJobSchema, failedReportJobSchema]),
  v.description(
    'A report job: PENDING or IN_PROGRESS, COMPLETE (with the PDF’s size, digest and timings) or FAILED (with the reason).',
  ),
);

/** 200 of GET /v1/document/api. */
export const reportJobPageSchema = cursorPage(
  reportJobSchema,
  'Newest first, each as `GET /v1/document/api/{id}` answers it.',
);

/** 200 of GET /v1/document/api/{id}/url. */
export const reportDownloadSchema = v.object({
  url: v.pipe(
    v.string(),
    v.url(),
    v.description(
      'Pre-signed GET address of the PDF, valid 5 minutes; after that object storage answers 403 and a new call gives a fresh address.',
    ),
  ),
  expiresInSeconds: v.literal(DOWNLOAD_URL_TTL_SECONDS),
  expiresAt: instant('When the address stops working (additive member).'),
  filename: v.pipe(v.string(), v.regex(/^report-[A-Za-z0-9_-]+-\d{8}\.pdf$/), v.description('Suggested file name.')),
});

export type ReportJobCreatedBody = v.InferOutput<typeof reportJobCreatedSchema>;
export type ReportJobBody = v.InferOutput<typeof reportJobSchema>;
export type ReportJobPageBody = v.InferOutput<typeof reportJobPageSchema>;
export type ReportDownloadBody = v.InferOutput<typeof reportDownloadSchema>;
