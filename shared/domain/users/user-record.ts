/**
 * A user status record as the seed defines it (field names are the wire names). Written by the
 * import command and the local seed; the service only reads it.
 */
export interface ScreeningAddress {
  city?: string;
  line1?: string;
  line2?: string;
  county?: string;
  postcode?: string;
  addressType?: string;
  countryIsoCode?: string;
}

/** One PEP or sanction screening match. */
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
  addresses?: ScreeningAddress[];
  ddEntries?: unknown[];
  evidences?: unknown[];
  griEntries?: unknown[];
  insEntries?: unknown[];
  isDeleted?: boolean;
  isDeceased?: boolean;
}

export interface PepSanctionResult {
  status: 'Pending' | 'Cleared' | 'Flagged';
  timestamp: string;
  pep_result: ScreeningEntry[];
  sanction_result: ScreeningEntry[];
}

export const REGISTRATION_STATUSES = [
  'Activated',
  'Rejected',
  'Referred',
  'For Review',
  'Complete',
  'Deleted',
] as const;
export type RegistrationStatus = (typeof REGISTRATION_STATUSES)[number];

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

export interface UserRecord {
  id: string;
  name?: string;
  first_name?: string;
  middle_name?: string;
  last_name?: string;
  phone?: string;
  email?: string;
  /** ISO date, YYYY-MM-DD. */
  dob?: string;
  age?: number;
  full_address?: string;
  address1?: string;
  address2?: string;
  city?: string;
  state?: string;
  country?: string;
  postcode?: string;
  guardian_name?: string;
  guardian_dob?: string;
  guardian_age?: number;
  data_sharing_agreed?: boolean;
  override_status?: string;
  override_notes?: string;
  is_deleted?: boolean;
  selfie_liveness_score?: number;
  fmc_score?: number;
  provider_high_level_result?: string;
  high_level_result?: string;
  document_overall_validation?: string;
  registration_submitted?: boolean;
  registration_status?: string;
  mobile_registration_status?: string;
  organization_id: string;
  organization_name?: string;
  idcheck_match_status?: string;
  idcheck_pep_sanction_status?: string;
  idcheck_pep_sanction_result?: PepSanctionResult;
  connection_status?: string;
  /** ISO 8601 instants. */
  connection_status_updated_at?: string;
  created_at: string;
  updated_at?: string;
}

export const USER_RECORD_FIELDS = [
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
] as const satisfies ReadonlyArray<keyof UserRecord>;
