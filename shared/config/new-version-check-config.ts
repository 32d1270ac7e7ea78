import * as v from 'valibot';
import { SYNTHETIC_REQUEST_KINDS } from '#shared/domain/deployments/new-version-check.ts';
import { positiveIntegerString } from './load-config.ts';

/**
 * What a pre-traffic hook (functions/check-new-version.ts) is told: the kind of synthetic request it sends, what an
 * API function answers one without a token (by function where it differs), and how long it waits for the answer.
 */
export const newVersionCheckEnvironment = {
  SYNTHETIC_REQUEST: v.picklist(
    SYNTHETIC_REQUEST_KINDS,
    `SYNTHETIC_REQUEST must be one of ${SYNTHETIC_REQUEST_KINDS.join(', ')}`,
  ),
  EXPECTED_API_STATUS: positiveIntegerString('EXPECTED_API_STATUS', 401),
  EXPECTED_API_STATUS_BY_FUNCTION: v.pipe(
    v.optional(v.string(), '{}'),
    v.parseJson(),
    v.record(v.string(), v.number()),
  ),
  INVOCATION_TIMEOUT_MS: positiveIntegerString('INVOCATION_TIMEOUT_MS', 30_000),
};
