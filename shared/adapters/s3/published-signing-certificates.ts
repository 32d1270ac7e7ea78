import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  certificatesFromPem,
  describeCertificate,
  type SigningCertificate,
} from '#shared/adapters/signing/signing-certificate.ts';

/** Where the deploy-time certificate resource publishes the report signing certificates (a PEM bundle, current first). */
export const SIGNING_CERTIFICATES_OBJECT_KEY = 'report-signing/certificates.pem';

/**
 * The published report signing certificates, read from the reports bucket once per container: a
 * new certificate comes with a deploy, which starts new containers. A failed read is not kept.
 */
export function publishedSigningCertificates(s3: S3Client, bucketName: string): () => Promise<SigningCertificate[]> {
  let certificates: Promise<SigningCertificate[]> | undefined;
  return () => {
    certificates ??= s3
      .send(new GetObjectCommand({ Bucket: bucketName, Key: SIGNING_CERTIFICATES_OBJECT_KEY }))
      .then(async ({ Body }) =>
        certificatesFromPem((await Body?.transformToString('utf8')) ?? '').map(describeCertificate),
      );
    certificates.catch(() => (certificates = undefined));
    return certificates;
  };
}
