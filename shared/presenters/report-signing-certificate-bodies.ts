import type { PublishedSigningCertificate } from '#shared/domain/reports/signing-certificates.ts';
import type { ReportSigningCertificateListBody } from '#shared/schemas/report-signing-certificate-responses.ts';

/** 200 of `GET /v1/report-signing-certificates`: the certificates in the order given (current first). */
export function reportSigningCertificateListBody(
  certificates: readonly PublishedSigningCertificate[],
): ReportSigningCertificateListBody {
  return {
    certificates: certificates.map((certificate) => ({
      pem: certificate.pem,
      sha256Fingerprint: certificate.sha256Fingerprint,
      notBefore: certificate.notBefore.toISOString(),
      notAfter: certificate.notAfter.toISOString(),
    })),
  };
}
