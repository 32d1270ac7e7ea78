import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { SigningCertificateStore } from '#shared/adapters/signing/publish-signing-certificates.ts';
import {
  certificatesFromPem,
  describeCertificate,
  type SigningCertificate,
} from '#shared/adapters/signing/signing-certificate.ts';

import { isDependencyUnavailable } from '#shared/adapters/aws-errors.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { SIGNING_CERTIFICATES_OBJECT_KEY } from '#shared/adapters/signing/report-signer-name.ts';

/**
 * The published report signing certificates, read from the reports bucket once per container (the
 * worker: a new certificate comes with a deploy, which starts new worker containers), or again
 * after `maxAgeMs` (the API: a deploy that only publishes a new certificate leaves its containers
 * running). A failed read is not kept. Errors that say S3 is throttling or failing are
 * `DependencyUnavailableError` (503 for the API, a retry for the worker).
 */
export function publishedSigningCertificates(
  s3: S3Client,
  bucketName: string,
  options: { maxAgeMs?: number; now?: () => number; objectKey?: string } = {},
): () => Promise<SigningCertificate[]> {
  const now = options.now ?? Date.now;
  const objectKey = options.objectKey ?? SIGNING_CERTIFICATES_OBJECT_KEY;
  let certificates: Promise<SigningCertificate[]> | undefined;
  let readAt = 0;
  return () => {
    if (certificates && options.maxAgeMs !== undefined && now() - readAt >= options.maxAgeMs) certificates = undefined;
    if (!certificates) {
      readAt = now();
      certificates = s3
        .send(new GetObjectCommand({ Bucket: bucketName, Key: objectKey }))
        .then(async ({ Body }) =>
          certificatesFromPem((await Body?.transformToString('utf8')) ?? '').map(describeCertificate),
        )
        .catch((error: unknown) => {
          throw isDependencyUnavailable(error) ? new DependencyUnavailableError('storage', { cause: error }) : error;
        });
      const pending = certificates;
      pending.catch(() => {
        if (certificates === pending) certificates = undefined;
      });
    }
    return certificates;
  };
}

/**
 * The bundle object as the deploy-time publication reads and replaces it; a missing object is a
 * first publication. `objectKey`: the sandbox key's bundle (SANDBOX_SIGNING_CERTIFICATES_OBJECT_KEY).
 */
export function s3SigningCertificateStore(
  s3: S3Client,
  bucketName: string,
  objectKey: string = SIGNING_CERTIFICATES_OBJECT_KEY,
): SigningCertificateStore {
  return {
    read: async () => {
      try {
        const { Body } = await s3.send(new GetObjectCommand({ Bucket: bucketName, Key: objectKey }));
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
          Key: objectKey,
          Body: pem,
          ContentType: 'application/x-pem-file',
          ServerSideEncryption: 'AES256',
        }),
      );
    },
  };
}
