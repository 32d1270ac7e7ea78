/**
 * The report pipeline's timings, one place for the CDK construct (lib/report-pipeline-construct.ts)
 * and the local stack (local/resources.ts, local/pollers.ts), so local runs keep AWS's ratios.
 *
 * A typical job renders and stores in well under a second; the worker's 15 s leave room for a
 * cold start and a slow S3 call while keeping MAX_RECEIVES visibility timeouts of retries
 * (3 x 6 x 15 s = 270 s) inside the jobs' 5-minute deadline.
 */
export const WORKER_TIMEOUT_SECONDS = 15;
export const DEAD_LETTER_HANDLER_TIMEOUT_SECONDS = 30;
/** Shorter than the sweep schedule's one-minute period, so runs do not pile up. */
export const SWEEP_TIMEOUT_SECONDS = 50;
/** AWS's guidance for an SQS event source: six times the consuming function's timeout. */
export const VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT = 6;
export const REPORT_QUEUE_VISIBILITY_SECONDS = VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT * WORKER_TIMEOUT_SECONDS;
export const DEAD_LETTER_QUEUE_VISIBILITY_SECONDS =
  VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT * DEAD_LETTER_HANDLER_TIMEOUT_SECONDS;
