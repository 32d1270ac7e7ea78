import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { OnboardingEmail, OnboardingMailer } from '../../domain/onboarding/ports.ts';

/** Sends the onboarding token with the stored SES template (`onboarding-token`). */
export class SesOnboardingMailer implements OnboardingMailer {
  constructor(
    private readonly ses: SESv2Client,
    private readonly options: { senderAddress: string; templateName: string },
  ) {}

  async sendOnboardingToken(email: OnboardingEmail): Promise<void> {
    try {
      await this.send(email);
    } catch (error) {
      throw new MailDeliveryError(error);
    }
  }

  private async send(email: OnboardingEmail): Promise<void> {
    await this.ses.send(
      new SendEmailCommand({
        FromEmailAddress: this.options.senderAddress,
        Destination: { ToAddresses: [email.to] },
        Content: {
          Template: {
            TemplateName: this.options.templateName,
            TemplateData: JSON.stringify({
              firstName: email.firstName,
              lastName: email.lastName,
              token: email.token,
              expiresOn: email.expiresAt.toISOString().slice(0, 10),
              organizationName: email.organizationName,
            }),
          },
        },
      }),
    );
  }
}

/**
 * A failed send, described without SES's message: SES echoes recipient addresses in its error
 * texts, and this error ends up in the logs. Name, status and request id are enough to trace it.
 */
export class MailDeliveryError extends Error {
  override name = 'MailDeliveryError';
  constructor(error: unknown) {
    const sesError = error as { name?: string; $metadata?: { httpStatusCode?: number; requestId?: string } };
    super(
      `SES SendEmail failed: ${sesError.name ?? 'unknown error'}` +
        ` (status ${sesError.$metadata?.httpStatusCode ?? 'none'}, request ${sesError.$metadata?.requestId ?? 'none'})`,
    );
  }
}
