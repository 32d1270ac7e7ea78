/** The signer a report names (its certificate's common name): the service and the stage. */
export const reportSignerName = (stage: string): string => `Onboarding reports service, report signing, stage ${stage}`;

/** The signature dictionary's `/Name`, written when the report is rendered (readers show the certificate's name beside it). */
export const REPORT_SIGNATURE_NAME = 'Onboarding reports service';

/** The signature's `/Reason`, shown by PDF readers beside the signer. */
export const REPORT_SIGNING_REASON =
  'Issued by the onboarding reports service; any change after signing breaks this signature';

/** Where the deploy-time certificate resource publishes the report signing certificates in the reports bucket (a PEM bundle, current first). */
export const SIGNING_CERTIFICATES_OBJECT_KEY = 'report-signing/certificates.pem';
