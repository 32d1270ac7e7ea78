import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { S3RequestPresigner } from '@aws-sdk/s3-request-presigner';
import { getEndpointFromInstructions } from '@smithy/core/endpoints';
import { buildQueryString, extendedEncodeURIComponent, HttpRequest } from '@smithy/core/protocols';
import type { ReportDownloadLinks } from '#shared/domain/reports/ports.ts';

interface Presigning {
  presigner: S3RequestPresigner;
  /** The bucket's endpoint as S3's endpoint rules give it (virtual-hosted, or path-style with the bucket in the path). */
  bucketEndpoint: URL;
  signingRegion: string | undefined;
}

/**
 * Pre-signed GETs of report PDFs, signed locally with AWS Signature V4 (no request to S3). The
 * link forces a download as application/pdf under the given file name.
 *
 * The SDK's `getSignedUrl` resolves the endpoint, builds a new presigner (losing its signing-key
 * cache) and clones and runs the client's whole middleware stack on every call: about 0.25 ms a
 * link. The same SDK pieces are used here once per cold start instead (the bucket's endpoint from
 * the client's own endpoint rules, one `S3RequestPresigner` with the client's credentials
 * provider), so a link is one signature: about 0.04 ms. Credentials are still asked of the
 * client's provider on every link, so rotated ones are used.
 */
export class S3ReportDownloadLinks implements ReportDownloadLinks {
  private presigning: Promise<Presigning> | undefined;

  constructor(
    private readonly s3: S3Client,
    private readonly bucketName: string,
  ) {}

  async downloadUrl(objectKey: string, options: { filename: string; expiresInSeconds: number }): Promise<string> {
    this.presigning ??= this.preparePresigning(objectKey).catch((error: unknown) => {
      this.presigning = undefined;
      throw error;
    });
    const { presigner, bucketEndpoint, signingRegion } = await this.presigning;
    const request = new HttpRequest({
      method: 'GET',
      protocol: bucketEndpoint.protocol,
      hostname: bucketEndpoint.hostname,
      ...(bucketEndpoint.port ? { port: Number(bucketEndpoint.port) } : {}),
      path: `${bucketEndpoint.pathname.replace(/\/$/, '')}/${objectKey.split('/').map(extendedEncodeURIComponent).join('/')}`,
      query: {
        'response-content-disposition': `attachment; filename="${options.filename}"`,
        'response-content-type': 'application/pdf',
        'x-id': 'GetObject',
      },
      headers: { host: bucketEndpoint.host },
    });
    const signed = await presigner.presign(request, {
      expiresIn: options.expiresInSeconds,
      ...(signingRegion ? { signingRegion } : {}),
    });
    return `${signed.protocol}//${signed.headers.host}${signed.path}?${buildQueryString(signed.query ?? {})}`;
  }

  /** What getSignedUrl works out per call, worked out once: the endpoint, its signing scheme, the presigner. */
  private async preparePresigning(objectKey: string): Promise<Presigning> {
    const endpoint = await getEndpointFromInstructions(
      { Bucket: this.bucketName, Key: objectKey },
      GetObjectCommand,
      this.s3.config,
    );
    const authScheme = endpoint.properties?.authSchemes?.[0] as
      { signingName?: string; signingRegion?: string } | undefined;
    const signingRegion = authScheme?.signingRegion;
    const presigner = new S3RequestPresigner({
      ...this.s3.config,
      ...(authScheme?.signingName ? { signingName: authScheme.signingName } : {}),
      ...(signingRegion ? { region: () => Promise.resolve(signingRegion) } : {}),
    });
    return { presigner, bucketEndpoint: new URL(endpoint.url.href), signingRegion };
  }
}
