import type { S3Client } from '@aws-sdk/client-s3';
import { reportSigningSettingsFrom } from '#shared/config/report-signing-config.ts';
import { createKmsClient } from '#shared/adapters/aws-clients.ts';
import { KmsReportSigningKey } from '#shared/adapters/kms/kms-report-signing-key.ts';
import { publishedSigningCertificates } from '#shared/adapters/s3/published-signing-certificates.ts';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import type { ReportSigningKey } from '#shared/adapters/signing/report-signing-key.ts';

/** The signing key the configuration names: the stage's KMS key in AWS, the local stack's key file locally. */
export function reportSigningKeyFor(
  config: Parameters<typeof reportSigningSettingsFrom>[0],
  reportsBucket: { s3: S3Client; bucketName: string },
): ReportSigningKey {
  const settings = reportSigningSettingsFrom(config);
  return 'kmsKeyId' in settings
    ? new KmsReportSigningKey(
        createKmsClient(),
        settings.kmsKeyId,
        publishedSigningCertificates(reportsBucket.s3, reportsBucket.bucketName),
      )
    : new LocalReportSigningKey(settings.keyFile);
}
