import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { CloudFormationCustomResourceEvent, Context } from 'aws-lambda';
import * as v from 'valibot';
import { createKmsClient, createS3Client } from '#shared/adapters/aws-clients.ts';
import { KmsReportSigningKey } from '#shared/adapters/kms/kms-report-signing-key.ts';
import { BACKGROUND_RESERVE_MS, runBeforeTimeout } from '#shared/support/request-deadline.ts';
import { s3SigningCertificateStore } from '#shared/adapters/s3/published-signing-certificates.ts';
import { signingCertificatesObjectKey } from '#shared/adapters/signing/report-signer-name.ts';
import { publishSigningCertificates } from '#shared/adapters/signing/publish-signing-certificates.ts';
import { loadDeploymentFunctionConfig } from '#shared/wiring/function-config.ts';
import { logger } from '#shared/observability/logger.ts';
import { traceInvocation } from '#shared/observability/tracer.ts';

/**
 * The report signing certificates' deploy-time step, behind a CloudFormation custom resource
 * (lib/report-signing-construct.ts). On Create and Update it publishes the certificates of the
 * stage's KMS key to the reports bucket (shared/adapters/signing/publish-signing-certificates.ts):
 * the operator's certificate when configured, else a self-issued one signed with the key itself
 * (one `kms:Sign`), keeping every earlier certificate listed. On Delete it does nothing: reports
 * signed earlier must stay verifiable. A resource with `Mode: sandbox` does the same for the
 * sandbox's key, into the sandbox's bundle.
 */

const config = loadDeploymentFunctionConfig('PublishReportSigningCertificates');
const kms = createKmsClient();
const s3 = createS3Client();
const publicationTargets = {
  live: {
    key: new KmsReportSigningKey(kms, config.REPORT_SIGNING_KEY_ID, () => Promise.resolve([])),
    store: s3SigningCertificateStore(s3, config.REPORTS_BUCKET_NAME, signingCertificatesObjectKey('live')),
  },
  sandbox: {
    key: new KmsReportSigningKey(kms, config.REPORT_SANDBOX_SIGNING_KEY_ID, () => Promise.resolve([])),
    store: s3SigningCertificateStore(s3, config.REPORTS_BUCKET_NAME, signingCertificatesObjectKey('sandbox')),
  },
};

/** The custom resource's properties (CloudFormation passes every scalar as a string). */
const publicationProperties = v.object({
  /** Which key and bundle: the live ones unless `sandbox`. */
  Mode: v.optional(v.picklist(['live', 'sandbox']), 'live'),
  /** The certificate's subject: the service and the stage. */
  SignerName: v.pipe(v.string(), v.minLength(1)),
  /** The operator's certificate for the key and its CA chain (PEM), or empty for a self-issued certificate. */
  OperatorCertificates: v.optional(v.string(), ''),
  /** The key: only there so that a replaced key updates the resource and gets its certificate. */
  KeyArn: v.optional(v.string()),
  /** The month of the synth: only there so that the first deploy of a month checks the certificate's end. */
  RenewalCheck: v.optional(v.string()),
});

/** One bundle per stage and mode: the resource's id never changes, so an Update is never a replacement. */
export const CERTIFICATES_PHYSICAL_ID = 'report-signing-certificates';
export const SANDBOX_CERTIFICATES_PHYSICAL_ID = 'report-signing-sandbox-certificates';

export interface PublicationResponse {
  PhysicalResourceId: string;
  Data?: { CurrentCertificateSha256: string; CertificateCount: string };
}

export const handler = middy<CloudFormationCustomResourceEvent, PublicationResponse, Error, Context>()
  .use(traceInvocation())
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event, context) => {
    if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
    const properties = v.parse(publicationProperties, event.ResourceProperties);
    const { key, store } = publicationTargets[properties.Mode];
    const published = await runBeforeTimeout(context, BACKGROUND_RESERVE_MS, () =>
      publishSigningCertificates({
        key,
        store,
        commonName: properties.SignerName,
        operatorCertificatesPem: properties.OperatorCertificates,
        now: new Date(),
      }),
    );
    logger.info('report signing certificates published', {
      requestType: event.RequestType,
      mode: properties.Mode,
      current: published.current.sha256Fingerprint,
      currentNotAfter: published.current.notAfter.toISOString(),
      issued: published.issued,
      count: published.certificates.length,
    });
    return {
      PhysicalResourceId:
        event.RequestType === 'Update'
          ? event.PhysicalResourceId
          : properties.Mode === 'sandbox'
            ? SANDBOX_CERTIFICATES_PHYSICAL_ID
            : CERTIFICATES_PHYSICAL_ID,
      Data: {
        CurrentCertificateSha256: published.current.sha256Fingerprint,
        CertificateCount: String(published.certificates.length),
      },
    };
  });
