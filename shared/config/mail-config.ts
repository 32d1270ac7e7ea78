import * as v from 'valibot';
import { optionalString, requiredString } from './load-config.ts';

/** What a function that sends the onboarding e-mail reads from its environment. */
export const onboardingMailEnvironment = {
  SENDER_EMAIL: requiredString('SENDER_EMAIL'),
  ONBOARDING_TEMPLATE_NAME: optionalString('onboarding-token'),
  SES_CONFIGURATION_SET: v.optional(v.pipe(v.string(), v.nonEmpty())),
};

export type OnboardingMailConfig = v.InferOutput<v.ObjectSchema<typeof onboardingMailEnvironment, undefined>>;
