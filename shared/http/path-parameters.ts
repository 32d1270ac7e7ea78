import { NotFoundError } from '#shared/domain/errors.ts';
import { JOB_ID_PATTERN } from '#shared/schemas/report-job-schemas.ts';
import type { ApiEvent } from './api-types.ts';

/** The `{id}` of a report path; an id that cannot be a job id is simply not found. */
export function reportJobIdFrom(event: ApiEvent): string {
  const jobId = event.pathParameters?.id ?? '';
  if (!JOB_ID_PATTERN.test(jobId)) throw new NotFoundError(`report job ${jobId.slice(0, 64)} not found`);
  return jobId.toLowerCase();
}

/** The `{tokenId}` of an onboarding-token path; anything that cannot be a token id is simply not found. */
export function onboardingTokenIdFrom(event: ApiEvent): string {
  const tokenId = event.pathParameters?.tokenId ?? '';
  if (!JOB_ID_PATTERN.test(tokenId)) throw new NotFoundError('onboarding token not found');
  return tokenId.toLowerCase();
}

/** The `{id}` of a webhook endpoint path; anything that cannot be an endpoint id is simply not found. */
export function webhookEndpointIdFrom(event: ApiEvent): string {
  const endpointId = event.pathParameters?.id ?? '';
  if (!JOB_ID_PATTERN.test(endpointId)) throw new NotFoundError('webhook endpoint not found');
  return endpointId.toLowerCase();
}

/**
 * The `{id}` of a user path: a user id is 1 to 16 characters (as in POST /v1/document/api), so
 * anything else cannot be a user and is simply not found. Unlike the UUID ids above it is taken as
 * it is (case matters).
 */
export function userIdFrom(event: ApiEvent): string {
  const userId = event.pathParameters?.id ?? '';
  if (userId.length < 1 || userId.length > 16) throw new NotFoundError('user not found');
  return userId;
}
