import { createHash, timingSafeEqual } from 'node:crypto';
import { ORIGIN_VERIFY_HEADER } from '#shared/config/origin-verify.ts';
import { ForbiddenError } from '#shared/domain/errors.ts';
import type { ApiMiddleware } from './middlewares.ts';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * Refuses (403, the standard body) a request that lacks the header CloudFront adds, so a caller
 * who found the execute-api URL gets past neither the web ACL's rate rules nor into token work.
 * Runs first in the chain. Both sides are hashed to equal lengths and every accepted value is
 * compared, so the time taken tells nothing about how much of a guess was right, nor which value
 * matched. The header's value is never logged: a refusal logs its status and error name only.
 */
export function requireOriginVerification(acceptedSecrets: readonly string[]): ApiMiddleware {
  const accepted = acceptedSecrets.map(digest);
  return {
    before: (request) => {
      const presented = digest(request.event.headers?.[ORIGIN_VERIFY_HEADER] ?? '');
      let matched = false;
      for (const secret of accepted) matched = timingSafeEqual(presented, secret) || matched;
      if (!matched) throw new ForbiddenError('requests must come through the API’s edge');
    },
  };
}
