import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SigningCertificateStore } from '#shared/adapters/signing/publish-signing-certificates.ts';
import {
  certificatesFromPem,
  describeCertificate,
  type SigningCertificate,
} from '#shared/adapters/signing/signing-certificate.ts';

import { SIGNING_CERTIFICATES_OBJECT_KEY } from '#shared/adapters/signing/report-signer-name.ts';

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

/** The bundle object as the deploy-time publication reads and replaces it; a missing object is a first publication. */
export function s3SigningCertificateStore(s3: S3Client, bucketName: string): SigningCertificateStore {
  return {
    read: async () => {
      try {
        const { Body } = await s3.send(
          new GetObjectCommand({ Bucket: bucketName, Key: SIGNING_CERTIFICATES_OBJECT_KEY }),
        );
        return await Body?.transformToString('utf8');
      } catch (error) {
        if ((error as Error).name === 'NoSuchKey') return undefined;
        throw error;
      }
    },
    write: async (pem) => {
      await s3.send(
        new PutObjectCommand({
          Bucket: bucketName,
          Key: SIGNING_CERTIFICATES_OBJECT_KEY,
          Body: pem,
          ContentType: 'application/x-pem-file',
          ServerSideEncryption: 'AES256',
        }),
      );
    },
  };
}
