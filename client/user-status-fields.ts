import type { RegistrationCategory, RegistrationStatus, UserField } from './types.ts';

/**
 * The user-status query's vocabulary as values, for clients that build queries from form
 * controls (the dashboard): every field, how each can be filtered, and the allowed status values.
 * test/unit/client/user-status-fields.test.ts pins them to the service's own constants.
 */

export const USER_FIELDS = [
  'id',
  'name',
  'first_name',
  'middle_name',
  'last_name',
  'phone',
  'email',
  'dob',
  'age',
  'full_address',
  'address1',
  'address2',
  'city',
  'state',
  'country',
  'postcode',
  'guardian_name',
  'guardian_dob',
  'guardian_age',
  'data_sharing_agreed',
  'override_status',
  'override_notes',
  'is_deleted',
  'selfie_liveness_score',
  'fmc_score',
  'provider_high_level_result',
  'high_level_result',
  'document_overall_validation',
  'registration_submitted',
  'registration_status',
  'mobile_registration_status',
  'organization_id',
  'organization_name',
  'idcheck_match_status',
  'idcheck_pep_sanction_status',
  'idcheck_pep_sanction_result',
  'connection_status',
  'connection_status_updated_at',
  'created_at',
  'updated_at',
] as const satisfies readonly UserField[];

/** The records' members when `result_keys` is omitted. */
export const DEFAULT_RESULT_KEYS = [
  'id',
  'name',
  'email',
  'registration_status',
  'mobile_registration_status',
  'connection_status',
  'created_at',
  'updated_at',
] as const satisfies readonly UserField[];

/** Exact match (`email` case-insensitively); `registration_status` and `mobile_registration_status` are listed below. */
export const STRING_FILTER_FIELDS = [
  'id',
  'email',
  'name',
  'first_name',
  'last_name',
  'middle_name',
  'phone',
  'organization_name',
  'organization_id',
  'city',
  'state',
  'country',
  'full_address',
  'address1',
  'address2',
  'postcode',
  'guardian_name',
  'override_status',
  'override_notes',
  'provider_high_level_result',
  'high_level_result',
  'document_overall_validation',
  'idcheck_match_status',
  'connection_status',
] as const satisfies readonly UserField[];

export const BOOLEAN_FILTER_FIELDS = [
  'data_sharing_agreed',
  'is_deleted',
  'registration_submitted',
] as const satisfies readonly UserField[];

/** Range filters (`gt`, `gte`, `lt`, `lte`, `eq`) by the kind of value they compare. */
export const NUMBER_RANGE_FIELDS = [
  'age',
  'guardian_age',
  'selfie_liveness_score',
  'fmc_score',
] as const satisfies readonly UserField[];
/** Calendar dates, `YYYY-MM-DD`. */
export const DATE_RANGE_FIELDS = ['dob', 'guardian_dob'] as const satisfies readonly UserField[];
/** Instants, ISO 8601. */
export const INSTANT_RANGE_FIELDS = [
  'connection_status_updated_at',
  'created_at',
  'updated_at',
] as const satisfies readonly UserField[];

export const RANGE_OPERATORS = ['gt', 'gte', 'lt', 'lte', 'eq'] as const;

export const REGISTRATION_CATEGORIES = [
  'active',
  'pending',
  'suspended',
  'inactive',
] as const satisfies readonly RegistrationCategory[];

export const REGISTRATION_STATUSES = [
  'Activated',
  'Rejected',
  'Referred',
  'For Review',
  'Complete',
  'Deleted',
] as const satisfies readonly RegistrationStatus[];

export const MOBILE_REGISTRATION_STATUSES = [
  'INCOMPLETE',
  'PHONE_VERIFICATION',
  'EMAIL_VERIFICATION',
  'REQUEST_BASE_ACCOUNT_DATA',
  'REQUEST_ACCOUNT_DATA',
  'REQUEST_ADDRESS',
  'REQUEST_GUARDIANS_INFO',
  'REQUEST_PAYMENT',
  'REQUEST_PROFILE_PICTURE',
  'REQUEST_ID_VERIFICATION',
  'REQUEST_DATA_SHARING_AGREEMENT',
  'REQUEST_PASSWORD',
  'REGISTRATION_COMPLETED',
  'PENDING_ID_VERIFICATION',
  'SELFIE_VERIFICATION',
  'ID_READ_FAILED',
  'FACE_READ_FAILED',
  'VERIFICATION_PASSED',
  'VERIFICATION_FAILED',
  'FACEMATCH_FAILED',
  'BIRTHDAY_MATCH_FAILED',
  'ADDRESS_MATCH_FAILED',
  'NAME_MATCH_FAILED',
  'REJECTED_ACCESS',
  'REQUEST_SUBMIT_REGISTRATION',
  'ADMIN_REVIEW',
  'DELETED',
  'REFERRED_APPLICATION',
] as const;
