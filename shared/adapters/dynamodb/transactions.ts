import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { exponentialBackoff, withRetries } from '#shared/support/retry.ts';

/** Reasons DynamoDB gives per item of a cancelled transaction, e.g. `ConditionalCheckFailed`. */
export function cancellationReasons(error: unknown): string[] {
  if (!(error instanceof TransactionCanceledException)) return [];
  return (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
}

/**
 * Runs a transaction, retrying while it is cancelled only because another transaction touched
 * the same items at the same moment (`TransactionConflict`). The SDK does not retry those; the
 * retry then sees the winner's write and fails its condition as it should.
 */
export async function withTransactionConflictRetry<T>(attempt: () => Promise<T>, maxAttempts = 6): Promise<T> {
  try {
    return await withRetries(attempt, {
      maxAttempts,
      isRetryable: (error) => isOnlyContended(cancellationReasons(error)),
      backoff: conflictBackoff,
    });
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons.includes('ConditionalCheckFailed')) throw error;
    // Throttled, or contended past our retries: the database is unavailable to this request.
    if (reasons.includes('ThrottlingError') || reasons.includes('TransactionConflict')) {
      throw new DependencyUnavailableError('database', { cause: error });
    }
    throw error;
  }
}

const conflictBackoff = exponentialBackoff({ baseMs: 40 });

function isOnlyContended(reasons: readonly string[]): boolean {
  return (
    reasons.includes('TransactionConflict') &&
    !reasons.includes('ConditionalCheckFailed') &&
    !reasons.includes('ThrottlingError')
  );
}
