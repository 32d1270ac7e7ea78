import { listReportSigningCertificates } from '#shared/domain/reports/signing-certificates.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { reportSigningCertificateListBody } from '#shared/presenters/report-signing-certificate-bodies.ts';
import { apiGuards } from '#shared/wiring/api.ts';
import { loadFunctionConfig } from '#shared/wiring/function-config.ts';
import { signingCertificatesFor } from '#shared/wiring/reports.ts';

/**
 * Read from the published bundle (`report-signing/certificates.pem` in the reports bucket, written
 * at deploy), the same object the worker picks its certificate from; read again after 5 minutes, so
 * a deploy that publishes a new certificate reaches running containers without a code change.
 */
const CERTIFICATES_MAX_AGE_MS = 5 * 60_000;

const config = loadFunctionConfig('ListReportSigningCertificates');
const listCertificates = listReportSigningCertificates({
  certificates: { list: signingCertificatesFor(config, CERTIFICATES_MAX_AGE_MS) },
});

/** GET /v1/report-signing-certificates: the certificates a downloaded report's signature is checked against. */
export const handler = createApiHandler({
  ...apiGuards(config),
  requiredScope: 'reports:read',
  handle: async () => ok(reportSigningCertificateListBody(await listCertificates())),
});
