/**
 * The API's request and response bodies, as described by openapi.json. Written out here so the
 * client has no dependency on the service's code; test/unit/client/client-types.test.ts pins them
 * to the service's own schemas and constants.
 */

export type Scope =
  | 'onboarding:write'
  | 'onboarding:read'
  | 'onboarding:redeem'
  | 'reports:write'
  | 'reports:read'
  | 'users:read'
  | 'users:erase'
  | 'webhooks:manage'
  | 'audit:read';

// Onboarding tokens

export interface OnboardingTokenRequest {
  email: string;
  first_name: string;
  last_name: string;
}

export interface OnboardingToken {
  /** 32 characters of base64url; shown only here and in the e-mail. */
  onboarding_token: string;
  /** The token's id (UUID v4, not a secret): revoke and resend take it. */
  tokenId: string;
  /** ISO 8601, 14 days after creation. */
  expires_at: string;
}

export type OnboardingTokenStatus = 'Issued' | 'Used' | 'Expired' | 'Revoked';

export interface OnboardingTokenSummary {
  tokenId: string;
  email: string;
  /** As `createOnboardingToken` takes it. */
  first_name: string;
  last_name: string;
  /** @deprecated Use `first_name`; still sent, for clients written before it. */
  firstName: string;
  /** @deprecated Use `last_name`; still sent, for clients written before it. */
  lastName: string;
  status: OnboardingTokenStatus;
  /** The token's last 4 characters. */
  tokenHint: string;
  createdAt: string;
  expiresAt: string;
  usedAt?: string;
  revokedAt?: string;
  /** The revoker's `sub`. */
  revokedBy?: string;
}

export interface OnboardingTokenPage {
  results: OnboardingTokenSummary[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface OnboardingTokenListRequest {
  /** 1 to 100, default 25. */
  limit?: number;
  cursor?: string;
  /** Only tokens in this status. */
  status?: OnboardingTokenStatus;
}

export interface RedeemedOnboardingToken {
  tokenId: string;
  email: string;
  first_name: string;
  last_name: string;
  status: 'Used';
  usedAt: string;
  expiresAt: string;
}

// Report jobs

export type ReportJobStatus = 'PENDING' | 'IN_PROGRESS' | 'COMPLETE' | 'FAILED';
export type ReportErrorCode =
  | 'USER_NOT_FOUND'
  | 'RENDER_FAILED'
  | 'STORAGE_FAILED'
  | 'TIMED_OUT'
  | 'INTERNAL_ERROR'
  /** The user was erased while the job was open. */
  | 'USER_ERASED';

export interface ReportJobRequest {
  /** 1 to 16 characters. */
  userId: string;
}

/** The 202 body of POST /v1/document/api. */
export interface ReportJobCreated {
  jobId: string;
  status: ReportJobStatus;
  userId: string;
  createdAt: string;
  updatedAt: string;
}

interface ReportJobCommon {
  jobId: string;
  userId: string;
  templateVersion: string;
  createdAt: string;
  updatedAt: string;
}

export interface OpenReportJob extends ReportJobCommon {
  status: 'PENDING' | 'IN_PROGRESS';
}

export interface CompleteReportJob extends ReportJobCommon {
  status: 'COMPLETE';
  sizeBytes: number;
  /** Hex SHA-256 of the PDF. */
  sha256: string;
  durationMs: number;
  completedAt: string;
}

export interface FailedReportJob extends ReportJobCommon {
  status: 'FAILED';
  errorCode: ReportErrorCode;
  durationMs: number;
}

/** The 200 body of GET /v1/document/api/{id}. */
export type ReportJob = OpenReportJob | CompleteReportJob | FailedReportJob;

/** The 200 body of GET /v1/document/api: the organization's jobs, newest first. */
export interface ReportJobPage {
  results: ReportJob[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

export interface ReportJobListRequest {
  /** 1 to 100, default 25. */
  limit?: number;
  cursor?: string;
  /** Only this user's jobs. */
  userId?: string;
}

export interface ReportDownload {
  /** Pre-signed GET address, valid `expiresInSeconds` (300). */
  url: string;
  expiresInSeconds: number;
  expiresAt: string;
  filename: string;
}

// User status

export type RegistrationStatus = 'Activated' | 'Rejected' | 'Referred' | 'For Review' | 'Complete' | 'Deleted';
export type RegistrationCategory = 'active' | 'pending' | 'inactive' | 'suspended';

export interface ScreeningEntry {
  notes?: unknown[];
  gender?: string;
  qrCode?: string;
  status?: string;
  aliases?: unknown[];
  version?: number;
  datasets?: string[];
  lastName?: string;
  firstName?: string;
  middleName?: string;
  addresses?: Array<{
    city?: string;
    line1?: string;
    line2?: string;
    county?: string;
    postcode?: string;
    addressType?: string;
    countryIsoCode?: string;
  }>;
  ddEntries?: unknown[];
  evidences?: unknown[];
  griEntries?: unknown[];
  insEntries?: unknown[];
  isDeleted?: boolean;
  isDeceased?: boolean;
}

/** Every field of a user record and its type. */
export interface UserFields {
  id: string;
  name: string;
  first_name: string;
  middle_name: string;
  last_name: string;
  phone: string;
  email: string;
  /** YYYY-MM-DD. */
  dob: string;
  age: number;
  full_address: string;
  address1: string;
  address2: string;
  city: string;
  state: string;
  country: string;
  postcode: string;
  guardian_name: string;
  guardian_dob: string;
  guardian_age: number;
  data_sharing_agreed: boolean;
  override_status: string;
  override_notes: string;
  is_deleted: boolean;
  selfie_liveness_score: number;
  fmc_score: number;
  provider_high_level_result: string;
  high_level_result: string;
  document_overall_validation: string;
  registration_submitted: boolean;
  registration_status: string;
  mobile_registration_status: string;
  organization_id: string;
  organization_name: string;
  idcheck_match_status: string;
  idcheck_pep_sanction_status: string;
  idcheck_pep_sanction_result: {
    status: 'Pending' | 'Cleared' | 'Flagged';
    timestamp: string;
    pep_result: ScreeningEntry[];
    sanction_result: ScreeningEntry[];
  };
  connection_status: string;
  connection_status_updated_at: string;
  created_at: string;
  updated_at: string;
}

export type UserField = keyof UserFields;

/** A record holds exactly the requested fields; a field the user lacks is null. */
export type UserStatusRecord = { [K in UserField]?: UserFields[K] | null };

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

export interface UserStatusPage {
  results: UserStatusRecord[];
  pagination: { limit: number; offset: number; total: number };
}

// Error bodies

/** The seed's standard error body (every error but 400). */
export interface StandardErrorBody {
  code: number;
  timestamp: string;
  path: string;
  method: string;
  error: string;
  message: string;
  /** 409 on a report request: the job already open for the user. */
  jobId?: string;
  /** 422 on a download address: the job's status when it is not ready. */
  status?: ReportJobStatus;
  /** 422 on a download address: why the job failed. */
  errorCode?: ReportErrorCode;
}

export interface FieldError {
  /** camelCase path, e.g. `firstName`, `filters.age.gte`, `resultKeys[2]`. */
  field: string;
  /** Rule name, e.g. `isNotEmpty`, `isEmail`, `isIn`. */
  code: string;
  hint: string;
}

/** The seed's validation body (400). */
export interface ValidationErrorBody {
  code: 400;
  errors: FieldError[];
}

// Webhooks

export type WebhookEventType =
  'report.completed' | 'report.failed' | 'onboarding_token.used' | 'onboarding_token.revoked';

export interface WebhookEndpointRequest {
  /** https, public host (http and loopback in local mode only). */
  url: string;
  events: WebhookEventType[];
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: WebhookEventType[];
  createdAt: string;
  /** True once every message failed for 5 days. */
  disabled: boolean;
}

export interface WebhookEndpointCreated extends WebhookEndpoint {
  /** `whsec_...`: shown in this response only; keep it to verify messages. */
  secret: string;
}

export interface WebhookEndpointList {
  results: WebhookEndpoint[];
}

export interface WebhookTestQueued {
  eventId: string;
}

export interface WebhookDelivery {
  /** The `webhook-id` header of every attempt of this message. */
  messageId: string;
  type: WebhookEventType | 'webhook.test';
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastResponseStatus: number | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
}

export interface WebhookDeliveryPage {
  results: WebhookDelivery[];
  nextCursor: string | null;
}

export type AuditAction =
  | 'onboarding_token.created'
  | 'onboarding_token.redeemed'
  | 'onboarding_token.revoked'
  | 'onboarding_token.resent'
  | 'report.requested'
  | 'report.download_url_issued'
  | 'webhook.created'
  | 'webhook.deleted'
  | 'webhook.tested'
  | 'user.erased';

/** One entry of the organization's audit trail: who did what to which resource, by ids. */
export interface AuditEvent {
  eventId: string;
  occurredAt: string;
  action: AuditAction;
  actor: { sub: string | null; clientId: string | null };
  target: { type: 'onboarding_token' | 'report' | 'webhook' | 'user'; id: string };
  requestId: string;
  outcome: 'success';
}

export interface AuditEventPage {
  results: AuditEvent[];
  nextCursor: string | null;
}

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
  data: TData;
}
