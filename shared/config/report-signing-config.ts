import * as v from 'valibot';
import { ConfigurationError } from './load-config.ts';

/**
 * How the worker signs reports: with the stage's KMS key `REPORT_SIGNING_KEY_ID` (AWS), or with
 * the local stack's key file `REPORT_SIGNING_KEY_FILE`. One of them is required: a report is
 * never stored unsigned.
 */
export const reportSigningEnvironment = {
  REPORT_SIGNING_KEY_ID: v.optional(v.pipe(v.string(), v.minLength(1))),
  REPORT_SIGNING_KEY_FILE: v.optional(v.pipe(v.string(), v.minLength(1))),
  /** An RFC 3161 timestamp authority (context `reportTimestampUrl`): the signature is then PAdES B-T. */
  REPORT_TIMESTAMP_URL: v.optional(v.pipe(v.string(), v.url('REPORT_TIMESTAMP_URL must be a URL'))),
};

export type ReportSigningSettings = { kmsKeyId: string } | { keyFile: string };

export function reportSigningSettingsFrom(config: {
  REPORT_SIGNING_KEY_ID?: string | undefined;
  REPORT_SIGNING_KEY_FILE?: string | undefined;
}): ReportSigningSettings {
  if (config.REPORT_SIGNING_KEY_ID) return { kmsKeyId: config.REPORT_SIGNING_KEY_ID };
  if (config.REPORT_SIGNING_KEY_FILE) return { keyFile: config.REPORT_SIGNING_KEY_FILE };
  throw new ConfigurationError(
    'Invalid configuration:\n  set REPORT_SIGNING_KEY_ID (KMS key) or REPORT_SIGNING_KEY_FILE (local stack)',
  );
}
