import { deadLetterQueue } from '#lib/dead-letter-queue.ts';
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { EventBus, Rule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction as LambdaTarget } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import {
  CfnTemplate,
  CloudWatchDimensionSource,
  ConfigurationSet,
  EmailIdentity,
  EmailSendingEvent,
  EventDestination,
  Identity,
} from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';
import { COUNTED_SES_EVENT_TYPES, emailEventsFunction } from '#shared/config/api-routes.ts';
import { EMAIL_PAUSED_LOG_MESSAGE } from '#shared/adapters/email-pause-alerts.ts';
import { BusinessMetric } from '#shared/observability/metrics.ts';
import type { AlarmsConstruct } from './alarms-construct.ts';
import { onboardingEmailTemplate } from '#shared/adapters/ses/onboarding-email-template.ts';
import { ServiceFunction } from './service-function.ts';
import type { ServiceTable } from './service-table.ts';

export interface MailConstructProps {
  /** From address of every e-mail. */
  readonly senderEmail: string;
  /** SES identity to create (or reuse): `senderEmail` itself, or its domain. */
  readonly senderIdentity: string;
  /** Reuse an identity that already exists in the account instead of creating it. */
  readonly senderIdentityExists: boolean;
  /** Makes the template's name unique per stage (SES template names are per account and region). */
  readonly stage: string;
  /**
   * Verified recipient addresses the function may send to while the account is in the SES
   * sandbox, where SES also authorizes the send against each recipient's identity.
   */
  readonly sandboxRecipients?: readonly string[];
  /** Where each organization's e-mail reputation is counted (`EMAIL_REPUTATION#{org}` items). */
  readonly reputationTable: ServiceTable;
}

/** Lambda runs a count that failed this many times more (its default, made explicit) before dead-lettering it. */
export const COUNTER_RETRY_ATTEMPTS = 2;

/** The dimension SES's CloudWatch event destination counts sends, deliveries, bounces and complaints by. */
export const CONFIGURATION_SET_DIMENSION = 'ses:configuration-set';

/** The sender identity and the onboarding template in SES, and the one grant that uses them. */
export class MailConstruct extends Construct {
  /** Created by this stack, unless the identity already existed. */
  readonly identity: EmailIdentity | undefined;
  readonly identityArn: string;
  readonly onboardingTemplate: CfnTemplate;
  readonly onboardingTemplateName: string;
  readonly onboardingTemplateArn: string;
  /** Every onboarding e-mail is sent through it: reputation metrics and event counts per stage. */
  readonly configurationSet: ConfigurationSet;
  /** Counts the set's send, bounce and complaint events per organization (`org_id` tag) and pauses past the limits. */
  private readonly reputationTable: ServiceTable;
  readonly eventCounter: ServiceFunction;
  /** The default bus's rule that hands the set's events to `eventCounter`. */
  readonly eventRule: Rule;
  /**
   * The SES events that were never counted: those EventBridge could not hand to the counter, and those the counter
   * kept failing on. Its depth is the counter's alarm.
   */
  readonly eventDeadLetterQueue: Queue;
  private readonly senderEmail: string;
  private readonly sandboxRecipientArns: string[];

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
    // Kept on `cdk destroy` and on a replacement (DeletionPolicy RetainExceptOnCreate, UpdateReplacePolicy
    // Retain): the identity is the account's, not the stage's. Another stage (`senderIdentityExists=true`)
    // may send through it, and deleting it would drop its verification. Only the rollback of the
    // deploy that created it deletes it: a failed first deploy (a new account refused a CloudFront
    // distribution, say) leaves no identity behind for the retry to collide with.
    this.identity?.applyRemovalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE);
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
    // Reputation metrics (Reputation.BounceRate / ComplaintRate) per configuration set, and every
    // send, delivery, bounce, complaint and rejection counted in CloudWatch: what the alarms read.
    this.configurationSet = new ConfigurationSet(this, 'ConfigurationSet', { reputationMetrics: true });
    this.configurationSet.addEventDestination('ToCloudWatch', {
      destination: EventDestination.cloudWatchDimensions([
        {
          name: CONFIGURATION_SET_DIMENSION,
          source: CloudWatchDimensionSource.MESSAGE_TAG,
          defaultValue: 'none',
        },
      ]),
      events: [
        EmailSendingEvent.SEND,
        EmailSendingEvent.DELIVERY,
        EmailSendingEvent.BOUNCE,
        EmailSendingEvent.COMPLAINT,
        EmailSendingEvent.REJECT,
      ],
    });
    this.eventDeadLetterQueue = deadLetterQueue(
      this,
      'EmailEventDeadLetters',
      'This queue is the dead-letter queue of the SES event rule and of the counter function: it holds the events never counted, and is alarmed on.',
    );
    this.reputationTable = props.reputationTable;
    ({ counter: this.eventCounter, rule: this.eventRule } = this.countEventsPerOrganization(this.eventDeadLetterQueue));
    this.sandboxRecipientArns = (props.sandboxRecipients ?? []).map((address) =>
      Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: address }),
    );
    this.addDkimOutputs(props.senderIdentity);
  }

  /**
   * Contract §19: the set publishes sends, bounces and complaints to the account's default event
   * bus (SES copies the e-mail's `org_id` tag onto each); a rule matching this set's events invokes
   * the counter, asynchronously. Two retries in turn: EventBridge's, for handing the event to
   * Lambda (up to an hour), then Lambda's, for a count that failed (twice more, within a few
   * minutes; a throttled one for up to six hours). An event both give up on is not counted, so a
   * failing event path fails open (docs/api.md "Limits"), and lands in `deadLetters`, whose depth
   * pages: it takes a lasting failure to put one there, and each one is an e-mail outcome missed.
   */
  private countEventsPerOrganization(deadLetters: Queue): { counter: ServiceFunction; rule: Rule } {
    const defaultBus = EventBus.fromEventBusName(this, 'DefaultEventBus', 'default');
    this.configurationSet.addEventDestination('ToEventBridge', {
      destination: EventDestination.eventBus(defaultBus),
      events: [EmailSendingEvent.SEND, EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT],
    });
    const counter = new ServiceFunction(this, emailEventsFunction.name, {
      entry: emailEventsFunction.entry,
      description: 'Counts SES sends, bounces and complaints per organization; pauses its e-mail past the limits',
      deadLetterQueue: deadLetters,
    });
    // On the alias EventBridge invokes: an invocation of the alias follows the alias's own settings, not $LATEST's.
    counter.invokedAlias.configureAsyncInvoke({
      retryAttempts: COUNTER_RETRY_ATTEMPTS,
      maxEventAge: Duration.hours(6),
    });
    const rule = new Rule(this, 'SesEventRule', {
      description: "Hands the onboarding configuration set's send, bounce and complaint events to the counter",
      eventBus: defaultBus,
      eventPattern: {
        source: ['aws.ses'],
        detailType: [...COUNTED_SES_EVENT_TYPES],
        detail: { mail: { tags: { 'ses:configuration-set': [this.configurationSet.configurationSetName] } } },
      },
      targets: [
        new LambdaTarget(counter.invokedAlias, {
          retryAttempts: 8,
          maxEventAge: Duration.hours(1),
          deadLetterQueue: deadLetters,
        }),
      ],
    });
    return { counter, rule };
  }

  /**
   * Contract §27: every pause alarms the operator, and the organization is named in a message, never in a metric
   * dimension. The counter counts each pause in `EmailPauses` (service and stage only), on which this alarms, and
   * publishes a message of its own to the same topic naming the organization, its figures and the resume command
   * (shared/adapters/email-pause-alerts.ts). A CloudWatch alarm notifies once until it is OK again; the message
   * comes for every pause. Without an alarm topic (no `alarmEmail`), the alarm shows in the console alone.
   */
  alarmOnPauses(alarms: AlarmsConstruct, dimensions: { service: string; stage: string }): Alarm {
    if (alarms.topic) {
      this.eventCounter.addToRolePolicy(
        new PolicyStatement({ actions: ['sns:Publish'], resources: [alarms.topic.topicArn] }),
      );
      // The topic is encrypted: SNS asks KMS for a data key on the publisher's behalf.
      if (alarms.topic.masterKey) {
        this.eventCounter.addToRolePolicy(
          new PolicyStatement({
            actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
            resources: [alarms.topic.masterKey.keyArn],
          }),
        );
      }
      this.eventCounter.addEnvironment('EMAIL_PAUSE_TOPIC_ARN', alarms.topic.topicArn);
    }
    return alarms.addBusinessMetricAlarm(
      BusinessMetric.EmailPauses,
      dimensions,
      "An organization's onboarding e-mail was paused for its bounces or complaints: its token create and resend " +
        'answer 429 until resumed. Read the message "E-mail paused: <organization>" on this topic, or query ' +
        `CountEmailEvents' log for "${EMAIL_PAUSED_LOG_MESSAGE}", for the organization, its figures and the resume ` +
        'command (operations guide, "Alarms").',
    );
  }

  /**
   * The three Easy DKIM CNAME records a created domain identity needs in DNS before SES verifies
   * it: an output each, `name CNAME value`, so the first deploy prints what to publish. Named
   * `MailDkimRecord1..3` exactly (no hash), as docs/deploy.md quotes them.
   */
  private addDkimOutputs(senderIdentity: string): void {
    if (!this.identity || senderIdentity.includes('@')) return;
    this.identity.dkimRecords.forEach((record, index) => {
      new CfnOutput(this, `DkimRecord${index + 1}`, {
        value: `${record.name} CNAME ${record.value}`,
        description: `DKIM record ${index + 1} of 3 to publish in the DNS of ${senderIdentity}`,
      }).overrideLogicalId(`MailDkimRecord${index + 1}`);
    });
  }

  get configurationSetArn(): string {
    return Stack.of(this).formatArn({
      service: 'ses',
      resource: 'configuration-set',
      resourceName: this.configurationSet.configurationSetName,
    });
  }

  /**
   * Lets the function send the onboarding e-mail (SES v2 `SendEmail` with the stored template)
   * from the configured address only, and tells it the sender and template name.
   */
  /** Lets the counter (its `emailReputation` need) read and replace its own items alone: the reputation partitions. */
  grantCountEmailEvents(fn: LambdaFunction): void {
    const table = this.reputationTable;
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['EMAIL_REPUTATION#*'] } },
      }),
    );
    fn.addEnvironment(table.definition.envVar, table.tableName);
  }

  grantSendOnboardingEmail(fn: LambdaFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [
          this.identityArn,
          this.onboardingTemplateArn,
          this.configurationSetArn,
          ...this.sandboxRecipientArns,
        ],
        conditions: { StringEquals: { 'ses:FromAddress': this.senderEmail } },
      }),
    );
    fn.addEnvironment('SENDER_EMAIL', this.senderEmail);
    fn.addEnvironment('ONBOARDING_TEMPLATE_NAME', this.onboardingTemplateName);
    fn.addEnvironment('SES_CONFIGURATION_SET', this.configurationSet.configurationSetName);
    // The template must exist before the first invocation can use it.
    fn.node.addDependency(this.onboardingTemplate);
  }
}
