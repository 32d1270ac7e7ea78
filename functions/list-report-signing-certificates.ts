import { createS3Client } from '#shared/adapters/aws-clients.ts';
import { publishedSigningCertificates } from '#shared/adapters/s3/published-signing-certificates.ts';
import { loadApiConfig } from '#shared/config/api-config.ts';
import { requiredString } from '#shared/config/load-config.ts';
import { listReportSigningCertificates } from '#shared/domain/reports/signing-certificates.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { tokenVerifierFrom } from '#shared/http/auth.ts';
import { ok } from '#shared/http/responses.ts';
import { reportSigningCertificateListBody } from '#shared/presenters/report-signing-certificate-bodies.ts';

/**
 * Read from the published bundle (`report-signing/certificates.pem` in the reports bucket, written
 * at deploy), the same object the worker picks its certificate from; read again after 5 minutes, so
 * a deploy that publishes a new certificate reaches running containers without a code change.
 */
const CERTIFICATES_MAX_AGE_MS = 5 * 60_000;

const config = loadApiConfig({ REPORTS_BUCKET_NAME: requiredString('REPORTS_BUCKET_NAME') });
const listCertificates = listReportSigningCertificates({
  certificates: {
    list: publishedSigningCertificates(createS3Client(), config.REPORTS_BUCKET_NAME, {
      maxAgeMs: CERTIFICATES_MAX_AGE_MS,
    }),
  },
});

/** GET /v1/report-signing-certificates: the certificates a downloaded report's signature is checked against. */
export const handler = createApiHandler({
  requiredScope: 'reports:read',
  verifyToken: tokenVerifierFrom(config),
  handle: async () => ok(reportSigningCertificateListBody(await listCertificates())),
});
