import { isOrganizationId } from '#shared/domain/identity/organization-claim.ts';

/** The message tag every onboarding e-mail carries (onboarding-mailer.ts), copied by SES onto its events. */
export const ORGANIZATION_TAG = 'org_id';

/**
 * Contract §27: an organization id (`[A-Za-z0-9_.-]`, 1-64) as an SES message tag value, which SES
 * limits to letters, digits, `_` and `-` (256 at most). `_` is the escape: `_` is written `__` and
 * `.` is written `_-`, everything else as it is, so an id without `_` or `.` reads unchanged
 * (`acme.eu` is `acme_-eu`), and a 64-character id takes at most 128.
 */
export function organizationTagValue(orgId: string): string {
  return orgId.replace(/[_.]/g, (character) => (character === '_' ? '__' : '_-'));
}

/** A value `organizationTagValue` writes: every `_` begins one of the two escapes. */
const ESCAPED = /^(?:[A-Za-z0-9-]|__|_-)+$/;

/**
 * The organization id in an `org_id` tag value, or `undefined` when it names none.
 *
 * E-mails sent before the id was escaped carry it as it was, and their bounces and complaints
 * keep arriving after a deploy (a complaint can come days later). Such a value never has a `.`
 * (SES refused those e-mails), and one whose `_` begins no escape (`acme_eu`) cannot be an escaped
 * value: it is read as the id itself. An old value with `__` or `_-` in it reads as another id
 * (`a__b` as `a_b`); that id's reputation does not hold the e-mail's message id (its send was
 * counted before the deploy, for the right organization), so the outcome waits among the early
 * ones and falls out uncounted. Only an e-mail whose send event is still in flight during the
 * deploy is counted, send and outcomes, for that other id.
 */
export function organizationFromTagValue(value: string): string | undefined {
  const orgId = ESCAPED.test(value) ? value.replace(/_[_-]/g, (escape) => (escape === '__' ? '_' : '.')) : value;
  return isOrganizationId(orgId) ? orgId : undefined;
}
