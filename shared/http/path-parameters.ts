import { NotFoundError } from '../domain/errors.ts';
import { JOB_ID_PATTERN } from './schemas/report-job-schemas.ts';
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
