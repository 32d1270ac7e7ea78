/**
 * Client of the onboarding, report and user-status API: typed operations, typed errors, the
 * seed's polling schedule, verified report downloads and user-status pages. Runtime dependencies:
 * fetch, plus Node's fs, stream and crypto modules for downloads, `standardwebhooks` for
 * `verifyWebhook`, and pkijs (over WebCrypto) for `verifyReportSignature`.
 */
export {
  OnboardingApiClient,
  type CreatedReportJob,
  type OnboardingApiClientOptions,
} from './onboarding-api-client.ts';
export type { ApiResponse, Fetch, RequestOptions, ResponseInfo, TokenSource } from './http-transport.ts';
export {
  SEED_POLLING_SCHEDULE,
  waitForReport,
  type PollingSchedule,
  type ReadReportJob,
  type ReportProgress,
  type ReportWait,
  type WaitForReportOptions,
} from './wait-for-report.ts';
export type { DownloadedReport, DownloadReportOptions } from './download-report.ts';
export { fetchReport, sha256Hex, type FetchedReport, type FetchReportOptions } from './fetch-report.ts';
export * from './user-status-fields.ts';
/** The event types a webhook endpoint can subscribe to. */
export { WEBHOOK_EVENT_TYPES } from '#shared/domain/webhooks/event-types.ts';
export { systemTimers, type Timers } from './timers.ts';
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './verify-webhook.ts';
export {
  verifyReportSignature,
  type ReportSigner,
  type ReportVerification,
  type ReportVerificationFailure,
  type TrustedCertificate,
} from './verify-report.ts';
export * from './errors.ts';
export type * from './types.ts';
