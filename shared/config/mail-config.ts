import * as v from 'valibot';
import { DEFAULT_EMAIL_QUOTA } from '#shared/domain/limits/email-quota.ts';
import { optionalString, positiveIntegerString, requiredString } from './load-config.ts';

/** What a function that sends the onboarding e-mail reads from its environment. */
export const onboardingMailEnvironment = {
  SENDER_EMAIL: requiredString('SENDER_EMAIL'),
  ONBOARDING_TEMPLATE_NAME: optionalString('onboarding-token'),
  SES_CONFIGURATION_SET: v.optional(v.pipe(v.string(), v.nonEmpty())),
};

export type OnboardingMailConfig = v.InferOutput<v.ObjectSchema<typeof onboardingMailEnvironment, undefined>>;

/**
 * The onboarding e-mail quotas (contract §15), per organization and hour: to one address, and in
 * all. CDK sets them from the context values `emailQuotaPerRecipientPerHour` and
 * `emailQuotaPerOrganizationPerHour`; the local stack leaves them unset (the defaults) unless the
 * shell that starts it sets them.
 */
export const emailQuotaEnvironment = {
  EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR: positiveIntegerString(
    'EMAIL_QUOTA_PER_RECIPIENT_PER_HOUR',
    DEFAULT_EMAIL_QUOTA.perRecipientPerHour,
  ),
  EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR: positiveIntegerString(
    'EMAIL_QUOTA_PER_ORGANIZATION_PER_HOUR',
    DEFAULT_EMAIL_QUOTA.perOrganizationPerHour,
  ),
};

export type EmailQuotaConfig = v.InferOutput<v.ObjectSchema<typeof emailQuotaEnvironment, undefined>>;

/** How long a container sends while it cannot read the e-mail pause (contract §19), by default. */
export const DEFAULT_EMAIL_REPUTATION_FAIL_OPEN_SECONDS = 300;

/**
 * What a sending function needs to honour an organization's e-mail pause: CDK sets it from the
 * context value `emailReputationFailOpenSeconds`.
 */
export const emailReputationEnvironment = {
  EMAIL_REPUTATION_FAIL_OPEN_SECONDS: positiveIntegerString(
    'EMAIL_REPUTATION_FAIL_OPEN_SECONDS',
    DEFAULT_EMAIL_REPUTATION_FAIL_OPEN_SECONDS,
  ),
};

export type EmailReputationConfig = v.InferOutput<v.ObjectSchema<typeof emailReputationEnvironment, undefined>>;
