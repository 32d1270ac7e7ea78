import type { S3Client } from '@aws-sdk/client-s3';
import { createKmsClient, createS3Client, createSqsClient } from '#shared/adapters/aws-clients.ts';
import { KmsReportSigningKey } from '#shared/adapters/kms/kms-report-signing-key.ts';
import { loadReportFonts } from '#shared/adapters/pdf/report-fonts.ts';
import { pdfReportRenderer } from '#shared/adapters/pdf/render-user-report.ts';
import { publishedSigningCertificates } from '#shared/adapters/s3/published-signing-certificates.ts';
import { S3ReportStorage } from '#shared/adapters/s3/report-storage.ts';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import { padesReportSigner, reportSignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import type { ReportSigningKey } from '#shared/adapters/signing/report-signing-key.ts';
import { signingCertificatesObjectKey } from '#shared/adapters/signing/report-signer-name.ts';
import { rfc3161Timestamper } from '#shared/adapters/signing/rfc3161-timestamper.ts';
import { SqsReportQueue } from '#shared/adapters/sqs/report-queue.ts';
import { reportSigningSettingsFrom } from '#shared/config/report-signing-config.ts';
import type { UsersDatabaseConfig } from '#shared/config/users-database-config.ts';
import { systemClock } from '#shared/domain/clock.ts';
import type { Mode } from '#shared/domain/identity/tenant.ts';
import type { ReportRedelivery, ReportSigner } from '#shared/domain/reports/ports.ts';
import { REPORT_TEMPLATE_VERSION } from '#shared/domain/reports/report-template-version.ts';
import { userDirectoryFor } from '#shared/wiring/users.ts';

// The worker's wiring, apart from shared/wiring/reports.ts: the renderer (pdf-lib, fontkit) and the
// PAdES signer are bundled only into the function that renders, not into every report route.

/**
 * The signing key the configuration names for a mode: the stage's KMS key in AWS, the local stack's
 * key file locally; the sandbox's own key for `sandbox` (docs/sandbox.md "Sandbox reports").
 */
export function reportSigningKeyFor(
  config: Parameters<typeof reportSigningSettingsFrom>[0],
  reportsBucket: { s3: S3Client; bucketName: string },
  mode: Mode = 'live',
): ReportSigningKey {
  const settings = reportSigningSettingsFrom(config, mode);
  return 'kmsKeyId' in settings
    ? new KmsReportSigningKey(
        createKmsClient(),
        settings.kmsKeyId,
        publishedSigningCertificates(reportsBucket.s3, reportsBucket.bucketName, {
          objectKey: signingCertificatesObjectKey(mode),
        }),
      )
    : new LocalReportSigningKey(settings.keyFile);
}

/**
 * What the worker needs besides its job store: the user directory, the bucket, the renderer (a
 * character no shipped font has goes to `onMissingGlyph`), a signer per mode (the sandbox's key for
 * a sandbox job; PAdES B-T when a timestamp authority is configured) and its own queue, where a
 * job put off goes back with a delay.
 */
export function reportWorkerPortsFor(
  config: UsersDatabaseConfig &
    Parameters<typeof reportSigningSettingsFrom>[0] & {
      REPORTS_BUCKET_NAME: string;
      REPORT_QUEUE_URL: string;
      REPORT_TIMESTAMP_URL?: string | undefined;
    },
  onMissingGlyph: (codePoint: number) => void,
) {
  const s3 = createS3Client();
  const reportsBucket = { s3, bucketName: config.REPORTS_BUCKET_NAME };
  const timestamp = config.REPORT_TIMESTAMP_URL ? rfc3161Timestamper({ url: config.REPORT_TIMESTAMP_URL }) : undefined;
  const signers = {
    live: padesReportSigner(reportSigningKeyFor(config, reportsBucket), timestamp),
    sandbox: padesReportSigner(reportSigningKeyFor(config, reportsBucket, 'sandbox'), timestamp),
  };
  const reportQueue = new SqsReportQueue(createSqsClient(), config.REPORT_QUEUE_URL);
  return {
    users: userDirectoryFor(config),
    storage: new S3ReportStorage(s3, config.REPORTS_BUCKET_NAME),
    render: pdfReportRenderer(
      loadReportFonts(),
      onMissingGlyph,
      reportSignaturePlaceholder({ timestamped: timestamp !== undefined }),
    ),
    sign: ((pdf, signedAt, mode = 'live') => signers[mode](pdf, signedAt)) satisfies ReportSigner,
    clock: systemClock,
    templateVersion: REPORT_TEMPLATE_VERSION,
    redeliverLater: ((message, delaySeconds) =>
      reportQueue.enqueue(message, { delaySeconds })) satisfies ReportRedelivery,
  };
}
