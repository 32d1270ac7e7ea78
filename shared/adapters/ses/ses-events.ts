import * as v from 'valibot';
import type { EmailEvent } from '#shared/domain/onboarding/email-reputation.ts';
import { ORGANIZATION_TAG, organizationFromTagValue } from './organization-tag.ts';

/**
 * The part of an SES event-publishing record (the `detail` of its EventBridge event) that is
 * counted. SES names the type `eventType`; `notificationType` is its older name.
 */
const sesEventSchema = v.object({
  eventType: v.optional(v.string()),
  notificationType: v.optional(v.string()),
  mail: v.object({
    messageId: v.pipe(v.string(), v.nonEmpty()),
    tags: v.optional(v.record(v.string(), v.array(v.string()))),
  }),
  bounce: v.optional(v.object({ bounceType: v.optional(v.string()) })),
});

export type SesEventDetail = v.InferInput<typeof sesEventSchema>;

/**
 * The counted event in an SES record, or why it is not counted: a record of another type (a
 * delivery, an open), a transient bounce (SES retries those; only permanent bounces hurt the
 * sender), a record without the organization's tag (not an onboarding e-mail) or whose tag names
 * no organization id (organization-tag.ts), or one that is not an SES record at all.
 */
export function emailEventFrom(detail: unknown): EmailEvent | { ignored: string } {
  const parsed = v.safeParse(sesEventSchema, detail);
  if (!parsed.success) return { ignored: 'not an SES event record' };
  const record = parsed.output;
  const tagValue = record.mail.tags?.[ORGANIZATION_TAG]?.[0];
  if (!tagValue) return { ignored: `no ${ORGANIZATION_TAG} tag` };
  const orgId = organizationFromTagValue(tagValue);
  if (!orgId) return { ignored: `${ORGANIZATION_TAG} tag names no organization` };
  const type = record.eventType ?? record.notificationType;
  const base = { messageId: record.mail.messageId, orgId };
  if (type === 'Send') return { ...base, kind: 'send' };
  if (type === 'Complaint') return { ...base, kind: 'complaint' };
  if (type === 'Bounce') {
    return record.bounce?.bounceType === 'Permanent'
      ? { ...base, kind: 'bounce' }
      : { ignored: 'not a permanent bounce' };
  }
  return { ignored: `event type ${type ?? 'missing'}` };
}
