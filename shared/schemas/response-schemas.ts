import type * as v from 'valibot';
import { auditEventPageSchema, auditEventSchema } from '#shared/schemas/audit-responses.ts';
import { standardErrorSchema, validationErrorSchema } from '#shared/schemas/error-responses.ts';
import {
  onboardingTokenPageSchema,
  onboardingTokenSchema,
  onboardingTokenSummarySchema,
  redeemedOnboardingTokenSchema,
} from '#shared/schemas/onboarding-token-responses.ts';
import {
  completeReportJobSchema,
  failedReportJobSchema,
  openReportJobSchema,
  reportDownloadSchema,
  reportJobCreatedSchema,
  reportJobPageSchema,
  reportJobSchema,
  reportJobStateSchema,
} from '#shared/schemas/report-job-responses.ts';
import {
  reportSigningCertificateListSchema,
  reportSigningCertificateSchema,
} from '#shared/schemas/report-signing-certificate-responses.ts';
import { userStatusPageSchema, userStatusRecordSchema } from '#shared/schemas/user-status-responses.ts';
import { sandboxEmailPageSchema, sandboxEmailSchema } from '#shared/schemas/sandbox-mailbox-responses.ts';
import { sandboxEventSchema } from '#shared/schemas/sandbox-event-schemas.ts';
import {
  sandboxScenarioListSchema,
  sandboxScenarioSchema,
  sandboxUsersImportedSchema,
} from '#shared/schemas/sandbox-responses.ts';
import { sandboxWipeSchema } from '#shared/schemas/sandbox-wipe-responses.ts';
import {
  sandboxWebhookListenerSchema,
  sandboxWebhookMessageSchema,
  sandboxWebhookMessagesSchema,
} from '#shared/schemas/sandbox-webhook-listener-schemas.ts';
import {
  webhookDeliveryPageSchema,
  webhookDeliverySchema,
  webhookEndpointCreatedSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookTestQueuedSchema,
} from '#shared/schemas/webhook-responses.ts';

/**
 * The response and error bodies under their component names. A schema used inside another one
 * (a page's items, the report job variants) is written there as a `$ref` to its component.
 */
export const responseSchemas = {
  OnboardingToken: onboardingTokenSchema,
  OnboardingTokenSummary: onboardingTokenSummarySchema,
  OnboardingTokenPage: onboardingTokenPageSchema,
  RedeemedOnboardingToken: redeemedOnboardingTokenSchema,
  ReportJobState: reportJobStateSchema,
  ReportJobCreated: reportJobCreatedSchema,
  ReportJob: reportJobSchema,
  OpenReportJob: openReportJobSchema,
  CompleteReportJob: completeReportJobSchema,
  FailedReportJob: failedReportJobSchema,
  ReportJobPage: reportJobPageSchema,
  ReportDownload: reportDownloadSchema,
  ReportSigningCertificate: reportSigningCertificateSchema,
  ReportSigningCertificateList: reportSigningCertificateListSchema,
  UserStatusRecord: userStatusRecordSchema,
  UserStatusPage: userStatusPageSchema,
  SandboxEmail: sandboxEmailSchema,
  SandboxEmailPage: sandboxEmailPageSchema,
  SandboxEvent: sandboxEventSchema,
  SandboxScenario: sandboxScenarioSchema,
  SandboxScenarioList: sandboxScenarioListSchema,
  SandboxUsersImported: sandboxUsersImportedSchema,
  SandboxWipe: sandboxWipeSchema,
  SandboxWebhookListener: sandboxWebhookListenerSchema,
  SandboxWebhookMessage: sandboxWebhookMessageSchema,
  SandboxWebhookMessages: sandboxWebhookMessagesSchema,
  WebhookEndpointCreated: webhookEndpointCreatedSchema,
  WebhookEndpoint: webhookEndpointSchema,
  WebhookEndpointList: webhookEndpointListSchema,
  WebhookTestQueued: webhookTestQueuedSchema,
  WebhookDelivery: webhookDeliverySchema,
  WebhookDeliveryPage: webhookDeliveryPageSchema,
  AuditEvent: auditEventSchema,
  AuditEventPage: auditEventPageSchema,
  StandardError: standardErrorSchema,
  ValidationError: validationErrorSchema,
} satisfies Record<string, v.GenericSchema>;

export type ResponseSchemaName = keyof typeof responseSchemas;
