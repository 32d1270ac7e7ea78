import * as v from 'valibot';
import { AUDIT_ACTIONS } from '#shared/domain/audit/audit-event.ts';
import { isIsoDateOrTimestamp, toInstant } from '#shared/domain/users/user-status-query.ts';
import { rangeInOrder } from './range-parameters.ts';

/** An ISO date or timestamp in the query string, as the instant it names (a date is its UTC midnight). */
const instantParameter = v.pipe(
  v.string(),
  v.maxLength(64),
  v.check(isIsoDateOrTimestamp, 'isDateString: must be an ISO 8601 date (YYYY-MM-DD) or timestamp'),
  v.transform(toInstant),
);

/** GET /v1/audit-events query string. `from` and `to` are inclusive; a `from` after `to` is a 400. */
export const auditEventListQuerySchema = v.pipe(
  v.object({
    limit: v.optional(
      v.pipe(v.string(), v.transform(Number), v.number(), v.integer(), v.minValue(1), v.maxValue(100)),
      '25',
    ),
    cursor: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(2048))),
    action: v.optional(v.picklist(AUDIT_ACTIONS)),
    targetId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(128))),
    from: v.optional(instantParameter),
    to: v.optional(instantParameter),
  }),
  rangeInOrder(),
);
