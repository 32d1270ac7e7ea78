/**
 * The API's request and response bodies. Response and error bodies are the service's response
 * schemas (shared/schemas/*-responses.ts), the same ones openapi.json is generated from;
 * the imports are type-only, so the client still has no runtime dependency. Request bodies and
 * list options are written out here; test/unit/client/client-types.test-d.ts pins them to the
 * handlers' schemas.
 */
import type * as v from 'valibot';
import type { auditEventPageSchema, auditEventSchema } from '#shared/schemas/audit-responses.ts';
import type { fieldErrorSchema, standardErrorSchema, validationErrorSchema } from '#shared/schemas/error-responses.ts';
import type {
  onboardingTokenPageSchema,
  onboardingTokenSchema,
  onboardingTokenSummarySchema,
  redeemedOnboardingTokenSchema,
} from '#shared/schemas/onboarding-token-responses.ts';
import type {
  completeReportJobSchema,
  failedReportJobSchema,
  openReportJobSchema,
  reportDownloadSchema,
  reportJobCreatedSchema,
  reportJobPageSchema,
  reportJobSchema,
  reportJobStateSchema,
} from '#shared/schemas/report-job-responses.ts';
import type {
  reportSigningCertificateListSchema,
  reportSigningCertificateSchema,
} from '#shared/schemas/report-signing-certificate-responses.ts';
import type { userStatusPageSchema, userStatusRecordSchema } from '#shared/schemas/user-status-responses.ts';
import type { sandboxEmailPageSchema } from '#shared/schemas/sandbox-mailbox-responses.ts';
import type {
  sandboxWebhookListenerSchema,
  sandboxWebhookMessagesSchema,
} from '#shared/schemas/sandbox-webhook-listener-schemas.ts';
import type { sandboxScenarioListSchema, sandboxUsersImportedSchema } from '#shared/schemas/sandbox-responses.ts';
import type { sandboxUsersRequestSchema } from '#shared/schemas/sandbox-schemas.ts';
import type { sandboxEventSchema } from '#shared/schemas/sandbox-event-schemas.ts';
import type { sandboxWipeSchema } from '#shared/schemas/sandbox-wipe-responses.ts';
import type {
  webhookDeliveryPageSchema,
  webhookDeliverySchema,
  webhookEndpointCreatedSchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookTestQueuedSchema,
} from '#shared/schemas/webhook-responses.ts';

export type { Scope } from '#shared/domain/identity/staff-roles.ts';

// Onboarding tokens

export interface OnboardingTokenRequest {
  email: string;
  first_name: string;
  last_name: string;
}

/** 201 of create and resend; `onboarding_token` is shown only here and in the e-mail. */
export type OnboardingToken = v.InferOutput<typeof onboardingTokenSchema>;
export type OnboardingTokenSummary = v.InferOutput<typeof onboardingTokenSummarySchema>;
export type OnboardingTokenStatus = OnboardingTokenSummary['status'];
export type OnboardingTokenPage = v.InferOutput<typeof onboardingTokenPageSchema>;

export interface OnboardingTokenListRequest {
  /** 1 to 100, default 25. */
  limit?: number;
  cursor?: string;
  /** Only tokens in this status. */
  status?: OnboardingTokenStatus;
}

export type RedeemedOnboardingToken = v.InferOutput<typeof redeemedOnboardingTokenSchema>;

/** 200 of GET /v1/sandbox/emails: e-mails the sandbox kept instead of sending, newest first. */
export type SandboxEmailPage = v.InferOutput<typeof sandboxEmailPageSchema>;
export type SandboxEmail = SandboxEmailPage['results'][number];

/** 200 of POST /v1/sandbox/webhook-listener: the sandbox's listener and the secret its messages are signed with. */
export type SandboxWebhookListener = v.InferOutput<typeof sandboxWebhookListenerSchema>;
/** 200 of GET /v1/sandbox/webhook-messages: the listener's messages after a cursor, signed as delivered. */
export type SandboxWebhookMessages = v.InferOutput<typeof sandboxWebhookMessagesSchema>;
export type SandboxWebhookMessage = SandboxWebhookMessages['results'][number];

export interface SandboxEmailListRequest {
  /** Only e-mails to this address. */
  to?: string;
  /** 1 to 100, default 25. */
  limit?: number;
  cursor?: string;
}

// Report jobs

export type ReportJobStatus = v.InferOutput<typeof reportJobStateSchema>;

export interface ReportJobRequest {
  /** 1 to 16 characters. */
  userId: string;
}

/** The 202 body of POST /v1/document/api. */
export type ReportJobCreated = v.InferOutput<typeof reportJobCreatedSchema>;
export type OpenReportJob = v.InferOutput<typeof openReportJobSchema>;
export type CompleteReportJob = v.InferOutput<typeof completeReportJobSchema>;
export type FailedReportJob = v.InferOutput<typeof failedReportJobSchema>;
export type ReportErrorCode = FailedReportJob['errorCode'];
/** The 200 body of GET /v1/document/api/{id}. */
export type ReportJob = v.InferOutput<typeof reportJobSchema>;
/** The 200 body of GET /v1/document/api: the organization's jobs, newest first. */
export type ReportJobPage = v.InferOutput<typeof reportJobPageSchema>;

export interface ReportJobListRequest {
  /** 1 to 100, default 25. */
  limit?: number;
  cursor?: string;
  /** Only this user's jobs. */
  userId?: string;
}

/** Pre-signed GET address of the PDF, valid `expiresInSeconds` (300). */
export type ReportDownload = v.InferOutput<typeof reportDownloadSchema>;

/** A certificate of a key reports are (or were) signed with; `notBefore`/`notAfter` ISO 8601. */
export type ReportSigningCertificate = v.InferOutput<typeof reportSigningCertificateSchema>;
/** 200 of GET /v1/report-signing-certificates: the current certificate first. */
export type ReportSigningCertificateList = v.InferOutput<typeof reportSigningCertificateListSchema>;

/** GET /v1/sandbox/scenarios: the scenario users every sandbox holds, with what each gives. */
export type SandboxScenarioList = v.InferOutput<typeof sandboxScenarioListSchema>;
export type SandboxScenario = SandboxScenarioList['results'][number];
/** POST /v1/sandbox/users: the records, as the import takes them. */
export type SandboxUsersRequest = v.InferInput<typeof sandboxUsersRequestSchema>;
/** POST /v1/sandbox/users: how many records were stored. */
export type SandboxUsersImported = v.InferOutput<typeof sandboxUsersImportedSchema>;
/** 202 of POST /v1/sandbox/events: the event triggered and the object its message's `data` describes. */
export type SandboxEvent = v.InferOutput<typeof sandboxEventSchema>;
/** What POST /v1/sandbox/events triggers: a webhook event type, or `webhook.test`. */
export type SandboxEventType = SandboxEvent['type'];
/** 202 of DELETE /v1/sandbox: the wipe under way. */
export type SandboxWipe = v.InferOutput<typeof sandboxWipeSchema>;

// User status

export type RegistrationCategory = 'active' | 'pending' | 'inactive' | 'suspended';

/** A record holds exactly the requested fields; a field the user lacks is null. */
export type UserStatusRecord = v.InferOutput<typeof userStatusRecordSchema>;
/** Every field of a user record and its type. */
export type UserFields = { [K in keyof UserStatusRecord]-?: NonNullable<UserStatusRecord[K]> };
export type UserField = keyof UserFields;
export type RegistrationStatus = UserFields['registration_status'];
export type ScreeningEntry = UserFields['idcheck_pep_sanction_result']['pep_result'][number];

export interface RangeFilter<T> {
  gt?: T;
  gte?: T;
  lt?: T;
  lte?: T;
  eq?: T;
}

type StringFilterField =
  | 'id'
  | 'email'
  | 'name'
  | 'first_name'
  | 'last_name'
  | 'middle_name'
  | 'phone'
  | 'organization_name'
  | 'organization_id'
  | 'city'
  | 'state'
  | 'country'
  | 'full_address'
  | 'address1'
  | 'address2'
  | 'postcode'
  | 'guardian_name'
  | 'override_status'
  | 'override_notes'
  | 'provider_high_level_result'
  | 'high_level_result'
  | 'document_overall_validation'
  | 'idcheck_match_status'
  | 'connection_status'
  | 'mobile_registration_status';

/** Filters combine with AND. Dates and timestamps are ISO 8601 strings. */
export type UserStatusFilters = { [K in StringFilterField]?: string } & {
  /** The id exactly, the start of the e-mail, or the starts of words of the name (case-insensitive). */
  search?: string;
  /** A category or a stored value. */
  registration_status?: RegistrationCategory | RegistrationStatus;
  data_sharing_agreed?: boolean;
  is_deleted?: boolean;
  registration_submitted?: boolean;
  age?: RangeFilter<number>;
  guardian_age?: RangeFilter<number>;
  selfie_liveness_score?: RangeFilter<number>;
  fmc_score?: RangeFilter<number>;
  dob?: RangeFilter<string>;
  guardian_dob?: RangeFilter<string>;
  connection_status_updated_at?: RangeFilter<string>;
  created_at?: RangeFilter<string>;
  updated_at?: RangeFilter<string>;
};

export interface UserStatusRequest {
  filters?: UserStatusFilters;
  result_keys?: UserField[];
  pagination?: {
    /** 1 to 1000, default 50. */
    limit?: number;
    /** Default 0. */
    offset?: number;
  };
}

export type UserStatusPage = v.InferOutput<typeof userStatusPageSchema>;

// Error bodies

/** The standard error body (every error but 400). */
export type StandardErrorBody = v.InferOutput<typeof standardErrorSchema>;
export type FieldError = v.InferOutput<typeof fieldErrorSchema>;
/** The validation body (400). */
export type ValidationErrorBody = v.InferOutput<typeof validationErrorSchema>;

// Webhooks

export type WebhookEndpoint = v.InferOutput<typeof webhookEndpointSchema>;
export type WebhookEventType = WebhookEndpoint['events'][number];

export interface WebhookEndpointRequest {
  /** https, public host (http and loopback in local mode only). */
  url: string;
  events: WebhookEventType[];
}

/** `secret` (`whsec_...`) is in this response only; keep it to verify messages. */
export type WebhookEndpointCreated = v.InferOutput<typeof webhookEndpointCreatedSchema>;
export type WebhookEndpointList = v.InferOutput<typeof webhookEndpointListSchema>;
export type WebhookTestQueued = v.InferOutput<typeof webhookTestQueuedSchema>;
export type WebhookDelivery = v.InferOutput<typeof webhookDeliverySchema>;
export type WebhookDeliveryPage = v.InferOutput<typeof webhookDeliveryPageSchema>;

/** One entry of the organization's audit trail: who did what to which resource, by ids. */
export type AuditEvent = v.InferOutput<typeof auditEventSchema>;
export type AuditAction = AuditEvent['action'];
export type AuditEventPage = v.InferOutput<typeof auditEventPageSchema>;

export interface AuditEventListRequest {
  limit?: number;
  cursor?: string;
  action?: AuditAction;
  targetId?: string;
  /** ISO 8601 date or timestamp, inclusive. */
  from?: string;
  to?: string;
}

export interface WebhookDeliveryListRequest {
  limit?: number;
  cursor?: string;
}

/** A verified webhook message's body. */
export interface WebhookMessage<TData = Record<string, unknown>> {
  type: WebhookEventType | 'webhook.test';
  timestamp: string;
  /** `false` in a message from the organization's sandbox, `true` from live. */
  livemode: boolean;
  data: TData;
}
