import type * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import type {
  AuditAction,
  AuditEvent,
  AuditEventPage,
  FieldError,
  OnboardingTokenPage,
  OnboardingTokenRequest,
  OnboardingTokenStatus,
  ReportErrorCode,
  ReportJobCreated,
  ReportJobRequest,
  ReportJobStatus,
  Scope,
  UserField,
  UserFields,
  UserStatusPage,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointRequest,
  WebhookEventType,
} from '#client/index.ts';
import type { webhookDeliveryBody, webhookEndpointBody } from '#shared/presenters/webhook-bodies.ts';
import type { reportJobCreatedBody } from '#shared/presenters/report-job-bodies.ts';
import type { onboardingTokenPageBody } from '#shared/presenters/onboarding-token-bodies.ts';
import type { SubscribableEventType } from '#shared/domain/webhooks/webhook-endpoint.ts';
import type { FieldProblem } from '#shared/domain/errors.ts';
import type {
  AuditAction as ServiceAuditAction,
  AuditEvent as ServiceAuditEvent,
  AuditEventPage as ServiceAuditEventPage,
} from '#shared/domain/audit/audit-event.ts';
import type { OnboardingTokenStatus as ServiceTokenStatus } from '#shared/domain/onboarding/onboarding-token.ts';
import type {
  ReportErrorCode as ServiceErrorCode,
  ReportJobStatus as ServiceJobStatus,
} from '#shared/domain/reports/report-job.ts';
import type { UserRecord, USER_RECORD_FIELDS } from '#shared/domain/users/user-record.ts';
import type { UserStatusPage as ServiceUserStatusPage } from '#shared/domain/users/user-status-query.ts';
import type { Scope as ServiceScope } from '#shared/domain/identity/staff-roles.ts';
import type { onboardingTokenRequestSchema } from '#shared/schemas/onboarding-token-schemas.ts';
import type { reportJobRequestSchema } from '#shared/schemas/report-job-schemas.ts';
import type { webhookEndpointRequestSchema } from '#shared/schemas/webhook-schemas.ts';

// The client's response types are the response schemas' output types (type-only imports); its
// request types are written out. These checks run under `tsc -p .` (npm run typecheck): they pin
// the written-out types to the handlers' schemas, the presenters' results to the response schemas,
// and the schemas' enumerations to the domain's constants, so a drift on any side fails it.
describe('client types match the service', () => {
  it('request bodies are what the handlers’ schemas accept', () => {
    expectTypeOf<OnboardingTokenRequest>().toEqualTypeOf<v.InferInput<typeof onboardingTokenRequestSchema>>();
    expectTypeOf<ReportJobRequest>().toEqualTypeOf<v.InferInput<typeof reportJobRequestSchema>>();
    expectTypeOf<WebhookEndpointRequest>().toEqualTypeOf<v.InferInput<typeof webhookEndpointRequestSchema>>();
  });

  it('response bodies are what the presenters return', () => {
    expectTypeOf<ReportJobCreated>().toEqualTypeOf<ReturnType<typeof reportJobCreatedBody>>();
    expectTypeOf<OnboardingTokenPage>().toEqualTypeOf<ReturnType<typeof onboardingTokenPageBody>>();
    // Listed as create takes them; firstName and lastName stay as deprecated aliases.
    expectTypeOf<OnboardingTokenPage['results'][number]>().toMatchTypeOf<
      OnboardingTokenRequest & { firstName: string }
    >();
    expectTypeOf<UserStatusPage['pagination']>().toEqualTypeOf<ServiceUserStatusPage['pagination']>();
    expectTypeOf<FieldError>().toEqualTypeOf<FieldProblem>();
    expectTypeOf<WebhookEndpoint>().toEqualTypeOf<ReturnType<typeof webhookEndpointBody>>();
    expectTypeOf<WebhookDelivery>().toEqualTypeOf<ReturnType<typeof webhookDeliveryBody>>();
    expectTypeOf<WebhookEventType>().toEqualTypeOf<SubscribableEventType>();
    expectTypeOf<AuditEvent>().toEqualTypeOf<ServiceAuditEvent>();
    expectTypeOf<AuditEventPage>().toEqualTypeOf<ServiceAuditEventPage>();
    expectTypeOf<AuditAction>().toEqualTypeOf<ServiceAuditAction>();
  });

  it('enumerations and user fields are the service’s', () => {
    expectTypeOf<Scope>().toEqualTypeOf<ServiceScope>();
    expectTypeOf<ReportJobStatus>().toEqualTypeOf<ServiceJobStatus>();
    expectTypeOf<ReportErrorCode>().toEqualTypeOf<ServiceErrorCode>();
    expectTypeOf<OnboardingTokenStatus>().toEqualTypeOf<ServiceTokenStatus>();
    expectTypeOf<UserField>().toEqualTypeOf<(typeof USER_RECORD_FIELDS)[number]>();
    // The record schema is stricter than the domain's interface (registration statuses are a list).
    expectTypeOf<UserFields>().toMatchTypeOf<Required<UserRecord>>();
    expectTypeOf<keyof UserFields>().toEqualTypeOf<keyof UserRecord>();
  });
});
