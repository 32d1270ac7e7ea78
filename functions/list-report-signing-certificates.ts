import { listReportSigningCertificates } from '#shared/domain/reports/signing-certificates.ts';
import { createApiHandler } from '#shared/http/api-handler.ts';
import { ok } from '#shared/http/responses.ts';
import { reportSigningCertificateListBody } from '#shared/presenters/report-signing-certificate-bodies.ts';
import { apiFunction } from '#shared/wiring/api.ts';
import { signingCertificatesFor } from '#shared/wiring/reports.ts';

// The published bundle the worker signs with, read again after 5 minutes: a deploy's new certificate needs no code change.
const CERTIFICATES_MAX_AGE_MS = 5 * 60_000;

const { config, guards } = apiFunction('ListReportSigningCertificates');
// A sandbox token is shown the sandbox key's certificates alone (docs/sandbox.md "Sandbox reports").
const listCertificates = listReportSigningCertificates({
  certificates: { list: signingCertificatesFor(config, CERTIFICATES_MAX_AGE_MS) },
  sandboxCertificates: { list: signingCertificatesFor(config, CERTIFICATES_MAX_AGE_MS, 'sandbox') },
});

/** GET /v1/report-signing-certificates: the certificates a downloaded report's signature is checked against. */
export const handler = createApiHandler({
  ...guards,
  requiredScope: 'reports:read',
  handle: async ({ principal }) => ok(reportSigningCertificateListBody(await listCertificates(principal.tenant.mode))),
});
