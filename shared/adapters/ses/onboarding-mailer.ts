import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { OnboardingMailConfig } from '#shared/config/mail-config.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { createSesClient } from '#shared/adapters/aws-clients.ts';
import { escapeHtml } from '#shared/adapters/html/escape-html.ts';
import type { OnboardingEmail, OnboardingMailer } from '#shared/domain/onboarding/ports.ts';
import { ORGANIZATION_TAG, organizationTagValue } from './organization-tag.ts';

/** All attempts together: the API request waits for the e-mail, and the function times out after 10 s. */
const SEND_TIMEOUT_MS = 3_000;

export interface SesOnboardingMailerOptions {
  senderAddress: string;
  templateName: string;
  /** SES configuration set for bounce and complaint events, when the deployment has one. */
  configurationSetName?: string;
  /** Upper bound of one send, retries included. */
  timeoutMs?: number;
}

/**
 * Sends the onboarding token with the stored SES template: one SES v2 SendEmail. Throttling, 5XX
 * and network failures are retried by the SDK (aws-clients.ts) within 3 s; whatever fails in the
 * end is a `MailDeliveryError` (described without SES's text, which can echo the recipient).
 */
export class SesOnboardingMailer implements OnboardingMailer {
  constructor(
    private readonly ses: SESv2Client,
    private readonly options: SesOnboardingMailerOptions,
  ) {}

  async sendOnboardingToken(email: OnboardingEmail): Promise<void> {
    const command = new SendEmailCommand({
      FromEmailAddress: this.options.senderAddress,
      Destination: { ToAddresses: [email.to] },
      ConfigurationSetName: this.options.configurationSetName,
      // Contract §19: SES passes message tags on to the configuration set's bounce and complaint events.
      // §27: escaped, as SES refuses a `.` in a tag value.
      EmailTags: [{ Name: ORGANIZATION_TAG, Value: organizationTagValue(email.orgId) }],
      Content: {
        Template: {
          TemplateName: this.options.templateName,
          TemplateData: JSON.stringify(onboardingTemplateData(email)),
        },
      },
    });
    try {
      await this.ses.send(command, { abortSignal: AbortSignal.timeout(this.options.timeoutMs ?? SEND_TIMEOUT_MS) });
    } catch (error) {
      throw new MailDeliveryError(error);
    }
  }
}

/**
 * The template's variables (shared/adapters/ses/onboarding-email-template.ts): each value as text for the subject
 * and the text part, and HTML-escaped (`…Html`) for the HTML part, which inserts it with `{{{…}}}`.
 * Escaping here rather than relying on `{{…}}` keeps a name text whether or not the renderer
 * escapes (the local SES emulator does not), and never escapes twice (contract §15).
 */
export function onboardingTemplateData(email: OnboardingEmail): Record<string, string> {
  const text = {
    firstName: email.firstName,
    lastName: email.lastName,
    token: email.token,
    expiresOn: email.expiresAt.toISOString().slice(0, 10),
    organizationName: email.organizationName,
  };
  const html = Object.fromEntries(Object.entries(text).map(([name, value]) => [`${name}Html`, escapeHtml(value)]));
  return { ...text, ...html };
}

/** The mailer of a function configured with `onboardingMailEnvironment`, with its own SES client. */
export function onboardingMailerFrom(config: OnboardingMailConfig): SesOnboardingMailer {
  return new SesOnboardingMailer(createSesClient(), {
    senderAddress: config.SENDER_EMAIL,
    templateName: config.ONBOARDING_TEMPLATE_NAME,
    configurationSetName: config.SES_CONFIGURATION_SET,
  });
}

/**
 * A failed send, described by SES's error type, status and request id only: SES echoes recipient
 * addresses in its error texts, and this error ends up in the logs.
 */
export class MailDeliveryError extends Error {
  override name = 'MailDeliveryError';
  constructor(failure: unknown) {
    const last = failure instanceof DependencyUnavailableError ? failure.cause : failure;
    const { name, code, $metadata } = (last ?? {}) as {
      name?: unknown;
      code?: unknown;
      $metadata?: { httpStatusCode?: number; requestId?: string };
    };
    const type = typeof code === 'string' ? code : typeof name === 'string' ? name : 'unknown error';
    super(
      `SES SendEmail failed: ${type}` +
        ` (status ${$metadata?.httpStatusCode ?? 'none'}, request ${$metadata?.requestId ?? 'none'})`,
    );
  }
}
