import * as v from 'valibot';
import type { Mode } from '#shared/domain/identity/tenant.ts';
import { ConfigurationError } from './load-config.ts';

/**
 * How the worker signs reports: with the stage's KMS key `REPORT_SIGNING_KEY_ID` (AWS), or with
 * the local stack's key file `REPORT_SIGNING_KEY_FILE`. One of them is required: a report is
 * never stored unsigned. Sandbox reports are signed with a key of their own, named the same way
 * (`REPORT_SANDBOX_SIGNING_KEY_ID`, `REPORT_SANDBOX_SIGNING_KEY_FILE`), whose certificate names the
 * sandbox; only the functions that sign or publish sandbox certificates read them.
 */
export const reportSigningEnvironment = {
  REPORT_SIGNING_KEY_ID: v.optional(v.pipe(v.string(), v.minLength(1))),
  REPORT_SIGNING_KEY_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  REPORT_SANDBOX_SIGNING_KEY_ID: v.optional(v.pipe(v.string(), v.minLength(1))),
  REPORT_SANDBOX_SIGNING_KEY_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** An RFC 3161 timestamp authority (context `reportTimestampUrl`): the signature is then PAdES B-T. */
  REPORT_TIMESTAMP_URL: v.optional(v.pipe(v.string(), v.url('REPORT_TIMESTAMP_URL must be a URL'))),
};

export type ReportSigningSettings = { kmsKeyId: string } | { keyFile: string };

export function reportSigningSettingsFrom(
  config: {
    REPORT_SIGNING_KEY_ID?: string | undefined;
    REPORT_SIGNING_KEY_FILE?: string | undefined;
    REPORT_SANDBOX_SIGNING_KEY_ID?: string | undefined;
    REPORT_SANDBOX_SIGNING_KEY_FILE?: string | undefined;
  },
  mode: Mode = 'live',
): ReportSigningSettings {
  const [keyId, keyFile] =
    mode === 'sandbox'
      ? (['REPORT_SANDBOX_SIGNING_KEY_ID', 'REPORT_SANDBOX_SIGNING_KEY_FILE'] as const)
      : (['REPORT_SIGNING_KEY_ID', 'REPORT_SIGNING_KEY_FILE'] as const);
  if (config[keyId]) return { kmsKeyId: config[keyId] };
  if (config[keyFile]) return { keyFile: config[keyFile] };
  throw new ConfigurationError(`Invalid configuration:\n  set ${keyId} (KMS key) or ${keyFile} (local stack)`);
}
