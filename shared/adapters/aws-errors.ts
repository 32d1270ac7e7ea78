/** Tells a failure worth retrying (throttling, a 5XX, a broken connection) from a permanent one. */

const UNAVAILABLE_ERROR_NAMES = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'LimitExceededException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'SlowDown',
  'InternalServerError',
  'InternalError',
  'TimeoutError',
]);
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** An AWS SDK error that says the service is throttling or failing, or the network to it is down. */
export function isDependencyUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const sdkError = error as Error & {
    $fault?: string;
    $retryable?: unknown;
    code?: string;
    CancellationReasons?: Array<{ Code?: string }>;
  };
  if (sdkError.$retryable || sdkError.$fault === 'server') return true;
  if (UNAVAILABLE_ERROR_NAMES.has(error.name)) return true;
  if (sdkError.code !== undefined && NETWORK_ERROR_CODES.has(sdkError.code)) return true;
  // A transaction cancelled by throttling or by contention that outlasted our retries.
  if (
    sdkError.CancellationReasons?.some(
      (reason) => reason.Code === 'ThrottlingError' || reason.Code === 'TransactionConflict',
    )
  ) {
    return true;
  }
  // Libraries (e.g. Powertools idempotency) wrap the SDK's error.
  return isDependencyUnavailable(error.cause, depth + 1);
}
