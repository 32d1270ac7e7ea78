import type { Mode } from '#shared/domain/identity/tenant.ts';

/**
 * The signer a report names (its certificate's common name): the service and the stage, and for
 * the sandbox's key the sandbox, so no reader takes a sandbox report's signer for the live one.
 */
export const reportSignerName = (stage: string, mode: Mode = 'live'): string =>
  `Onboarding reports service, report signing, stage ${stage}${mode === 'sandbox' ? ', SANDBOX - not for screening results' : ''}`;

/** The signature dictionary's `/Name`, written when the report is rendered (readers show the certificate's name beside it). */
export const REPORT_SIGNATURE_NAME = 'Onboarding reports service';

/** The signature's `/Reason`, shown by PDF readers beside the signer. */
export const REPORT_SIGNING_REASON =
  'Issued by the onboarding reports service; any change after signing breaks this signature';

/** Where the deploy-time certificate resource publishes the report signing certificates in the reports bucket (a PEM bundle, current first). */
export const SIGNING_CERTIFICATES_OBJECT_KEY = 'report-signing/certificates.pem';
/** The sandbox key's certificates, published apart: a sandbox report never verifies against the live bundle. */
export const SANDBOX_SIGNING_CERTIFICATES_OBJECT_KEY = 'report-signing/sandbox-certificates.pem';

export const signingCertificatesObjectKey = (mode: Mode): string =>
  mode === 'sandbox' ? SANDBOX_SIGNING_CERTIFICATES_OBJECT_KEY : SIGNING_CERTIFICATES_OBJECT_KEY;
