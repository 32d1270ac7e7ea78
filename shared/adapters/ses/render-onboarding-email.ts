import { onboardingEmailTemplate } from '#shared/adapters/ses/onboarding-email-template.ts';
import type { OnboardingEmail } from '#shared/domain/onboarding/ports.ts';
import { onboardingTemplateData } from './onboarding-mailer.ts';

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** The template inserts every value with the triple-stash `{{{name}}}` and nothing else. */
const VARIABLE = /\{\{\{(\w+)\}\}\}/g;

function render(part: string, data: Readonly<Record<string, string>>): string {
  return part.replace(VARIABLE, (_placeholder, name: string) => {
    const value = data[name];
    if (value === undefined) throw new Error(`the onboarding template names ${name}, which the mailer does not give`);
    return value;
  });
}

/**
 * The onboarding e-mail as SES would render it from the stored template and the mailer's data
 * (the `…Html` values already escaped), for the sandbox's mailbox, which sends nothing.
 */
export function renderOnboardingEmail(email: OnboardingEmail): RenderedEmail {
  return renderOnboardingTemplate(onboardingTemplateData(email));
}

/** The stored template filled with `data`, as SES fills it (no escaping of its own). */
export function renderOnboardingTemplate(data: Readonly<Record<string, string>>): RenderedEmail {
  return {
    subject: render(onboardingEmailTemplate.subject, data),
    text: render(onboardingEmailTemplate.text, data),
    html: render(onboardingEmailTemplate.html, data),
  };
}
