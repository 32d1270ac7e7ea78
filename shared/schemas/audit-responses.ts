import * as v from 'valibot';
import { AUDIT_ACTIONS, AUDIT_OUTCOMES, AUDIT_TARGET_TYPES } from '#shared/domain/audit/audit-event.ts';
import { cursorPage, instant } from './response-members.ts';

/** One entry of the organization's audit trail: who did what to which resource, by ids. */
export const auditEventSchema = v.object({
  eventId: v.string(),
  occurredAt: instant('When the change committed.'),
  action: v.picklist(AUDIT_ACTIONS),
  actor: v.pipe(
    v.object({
      sub: v.pipe(v.nullable(v.string()), v.description('The token’s subject (a person or a machine client).')),
      clientId: v.pipe(v.nullable(v.string()), v.description('The OAuth client (`client_id` or `azp`).')),
    }),
    v.description('Who made the request, from the bearer token.'),
  ),
  target: v.object({
    type: v.picklist(AUDIT_TARGET_TYPES),
    id: v.pipe(v.string(), v.description('tokenId, jobId, webhook endpoint id or user id.')),
  }),
  requestId: v.pipe(v.string(), v.description('The request’s `x-request-id`.')),
  outcome: v.pipe(
    v.picklist(AUDIT_OUTCOMES),
    v.description(
      '`success` once the change committed (refused requests record nothing); `started` for `user.erasure_started`, recorded before an erasure deletes anything: one with no later `user.erased` of the same user was cut off, and repeating the DELETE finishes it.',
    ),
  ),
});

/** 200 of GET /v1/audit-events. */
export const auditEventPageSchema = cursorPage(auditEventSchema);

export type AuditEventBody = v.InferOutput<typeof auditEventSchema>;
export type AuditEventPageBody = v.InferOutput<typeof auditEventPageSchema>;
