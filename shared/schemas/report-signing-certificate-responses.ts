import * as v from 'valibot';
import { instant } from './response-members.ts';

/** One certificate of a key reports are (or were) signed with. */
export const reportSigningCertificateSchema = v.object({
  pem: v.pipe(
    v.string(),
    v.description('The X.509 certificate, PEM (`-----BEGIN CERTIFICATE-----` …), with a final line break.'),
  ),
  sha256Fingerprint: v.pipe(
    v.string(),
    v.regex(/^[0-9a-f]{64}$/),
    v.description('SHA-256 of the certificate’s DER encoding, lower-case hex.'),
  ),
  notBefore: instant('The certificate is valid from this instant.'),
  notAfter: instant(
    'The certificate is valid until this instant. Reports signed before it stay verifiable afterwards: a report is never signed with an expired certificate.',
  ),
});

/** 200 of GET /v1/report-signing-certificates. */
export const reportSigningCertificateListSchema = v.object({
  certificates: v.pipe(
    v.array(reportSigningCertificateSchema),
    v.description(
      'The current certificate first (new reports are signed with its key), then those of earlier keys, kept so that reports signed before a rotation still verify.',
    ),
  ),
});

export type ReportSigningCertificateBody = v.InferOutput<typeof reportSigningCertificateSchema>;
export type ReportSigningCertificateListBody = v.InferOutput<typeof reportSigningCertificateListSchema>;
