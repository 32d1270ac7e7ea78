import { SendEmailCommand, type SESv2Client } from '@aws-sdk/client-sesv2';
import type { OnboardingEmail, OnboardingMailer } from '../../domain/onboarding/ports.ts';

/** Sends the onboarding token with the stored SES template (`onboarding-token`). */
export class SesOnboardingMailer implements OnboardingMailer {
  constructor(
    private readonly ses: SESv2Client,
    private readonly options: { senderAddress: string; templateName: string },
  ) {}

  async sendOnboardingToken(email: OnboardingEmail): Promise<void> {
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
