import { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnTemplate, EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';
import { onboardingEmailTemplate } from './onboarding-email-template.ts';

export interface MailConstructProps {
  /** From address of every e-mail. */
  readonly senderEmail: string;
  /** SES identity to create: `senderEmail` itself, or its domain. */
  readonly senderIdentity: string;
}

/** The sender identity and the onboarding template in SES, and the one grant that uses them. */
export class MailConstruct extends Construct {
  readonly identity: EmailIdentity;
  readonly onboardingTemplate: CfnTemplate;
  readonly onboardingTemplateName: string = onboardingEmailTemplate.templateName;
  readonly onboardingTemplateArn: string;
  private readonly senderEmail: string;

  constructor(scope: Construct, id: string, props: MailConstructProps) {
    super(scope, id);
    this.senderEmail = props.senderEmail;
    // A domain identity is verified by DNS (Easy DKIM records); an address identity by a link
    // SES mails to it. Either must be verified before the first send.
    this.identity = new EmailIdentity(this, 'SenderIdentity', {
      identity: props.senderIdentity.includes('@')
        ? Identity.email(props.senderIdentity)
        : Identity.domain(props.senderIdentity),
    });
    // The name is fixed by the contract (`onboarding-token`), so one stack per account and region.
    this.onboardingTemplate = new CfnTemplate(this, 'OnboardingTemplate', {
      template: {
        templateName: onboardingEmailTemplate.templateName,
        subjectPart: onboardingEmailTemplate.subject,
        textPart: onboardingEmailTemplate.text,
        htmlPart: onboardingEmailTemplate.html,
      },
    });
    this.onboardingTemplateArn = Stack.of(this).formatArn({
      service: 'ses',
      resource: 'template',
      resourceName: onboardingEmailTemplate.templateName,
    });
  }

  /**
   * Lets the function send the onboarding e-mail (SES v2 `SendEmail` with the stored template)
   * from the configured address only, and tells it the sender and template name.
   */
  grantSendOnboardingEmail(fn: LambdaFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [this.identity.emailIdentityArn, this.onboardingTemplateArn],
        conditions: { StringEquals: { 'ses:FromAddress': this.senderEmail } },
      }),
    );
    fn.addEnvironment('SENDER_EMAIL', this.senderEmail);
    fn.addEnvironment('ONBOARDING_TEMPLATE_NAME', this.onboardingTemplateName);
    // The template must exist before the first invocation can use it.
    fn.node.addDependency(this.onboardingTemplate);
  }
}
