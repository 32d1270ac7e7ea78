import { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { CfnTemplate, EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';
import { onboardingEmailTemplate } from './onboarding-email-template.ts';

export interface MailConstructProps {
  /** From address of every e-mail. */
  readonly senderEmail: string;
  /** SES identity to create (or reuse): `senderEmail` itself, or its domain. */
  readonly senderIdentity: string;
  /** Reuse an identity that already exists in the account instead of creating it. */
  readonly senderIdentityExists: boolean;
  /** Makes the template's name unique per stage (SES template names are per account and region). */
  readonly stage: string;
}

/** The sender identity and the onboarding template in SES, and the one grant that uses them. */
export class MailConstruct extends Construct {
  /** Created by this stack, unless the identity already existed. */
  readonly identity: EmailIdentity | undefined;
  readonly identityArn: string;
  readonly onboardingTemplate: CfnTemplate;
  readonly onboardingTemplateName: string;
  readonly onboardingTemplateArn: string;
  private readonly senderEmail: string;

  constructor(scope: Construct, id: string, props: MailConstructProps) {
    super(scope, id);
    this.senderEmail = props.senderEmail;
    // A domain identity is verified by DNS (Easy DKIM records); an address identity by a link
    // SES mails to it. Either must be verified before the first send.
    this.identity = props.senderIdentityExists
      ? undefined
      : new EmailIdentity(this, 'SenderIdentity', {
          identity: props.senderIdentity.includes('@')
            ? Identity.email(props.senderIdentity)
            : Identity.domain(props.senderIdentity),
        });
    this.identityArn =
      this.identity?.emailIdentityArn ??
      Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: props.senderIdentity });
    // One template per stage: SES names are unique per account and region.
    this.onboardingTemplateName = `${onboardingEmailTemplate.templateName}-${props.stage}`;
    this.onboardingTemplate = new CfnTemplate(this, 'OnboardingTemplate', {
      template: {
        templateName: this.onboardingTemplateName,
        subjectPart: onboardingEmailTemplate.subject,
        textPart: onboardingEmailTemplate.text,
        htmlPart: onboardingEmailTemplate.html,
      },
    });
    this.onboardingTemplateArn = Stack.of(this).formatArn({
      service: 'ses',
      resource: 'template',
      resourceName: this.onboardingTemplateName,
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
        resources: [this.identityArn, this.onboardingTemplateArn],
        conditions: { StringEquals: { 'ses:FromAddress': this.senderEmail } },
      }),
    );
    fn.addEnvironment('SENDER_EMAIL', this.senderEmail);
    fn.addEnvironment('ONBOARDING_TEMPLATE_NAME', this.onboardingTemplateName);
    // The template must exist before the first invocation can use it.
    fn.node.addDependency(this.onboardingTemplate);
  }
}
