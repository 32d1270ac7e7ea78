import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { S3ReportDownloadLinks } from '../../../shared/adapters/s3/report-download-links.ts';
import { S3ReportStorage } from '../../../shared/adapters/s3/report-storage.ts';
import { DependencyUnavailableError } from '../../../shared/domain/errors.ts';

const BUCKET = 'reports-bucket';
const KEY = 'reports/org-acme/1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed.pdf';
const PDF = new TextEncoder().encode('%PDF-1.7 stored bytes %%EOF');
const SHA256_HEX = createHash('sha256').update(PDF).digest('hex');

const serviceError = (name: string, fault: 'client' | 'server', retryable = false) =>
  new S3ServiceException({
    name,
    $fault: fault,
    $metadata: { httpStatusCode: fault === 'client' ? 403 : 503 },
    message: name,
    ...(retryable ? { $retryable: { throttling: true } } : {}),
  });

describe('S3ReportStorage.save', () => {
  const s3Mock = mockClient(S3Client);
  const storage = () => new S3ReportStorage(new S3Client({ region: 'eu-west-1' }), BUCKET);

  beforeEach(() => {
    s3Mock.reset();
    s3Mock.on(PutObjectCommand).resolves({});
  });

  afterAll(() => {
    s3Mock.restore();
  });

  it('puts the PDF as application/pdf, encrypted with AES256, with the base64 SHA-256 S3 verifies', async () => {
    await storage().save(KEY, PDF, SHA256_HEX);

    expect(s3Mock).toHaveReceivedCommandTimes(PutObjectCommand, 1);
    expect(s3Mock).toHaveReceivedCommandWith(PutObjectCommand, {
      Bucket: BUCKET,
      Key: KEY,
      Body: PDF,
      ContentType: 'application/pdf',
      ServerSideEncryption: 'AES256',
      ChecksumSHA256: createHash('sha256').update(PDF).digest('base64'),
    });
  });

  it.each([
    ['a throttling error', serviceError('SlowDown', 'server', true)],
    ['a 503', serviceError('ServiceUnavailable', 'server')],
    ['a broken connection', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
  ])('reports %s as DependencyUnavailableError (retryable) with the cause', async (_label, failure) => {
    s3Mock.on(PutObjectCommand).rejects(failure);

    const error = await storage().save(KEY, PDF, SHA256_HEX).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).cause).toBe(failure);
  });

  it('passes AccessDenied on as it is (a permanent failure)', async () => {
    const denied = serviceError('AccessDenied', 'client');
    s3Mock.on(PutObjectCommand).rejects(denied);

    await expect(storage().save(KEY, PDF, SHA256_HEX)).rejects.toBe(denied);
  });
});

describe('S3ReportDownloadLinks.downloadUrl', () => {
  // Signs locally with these fake credentials and sends nothing.
  const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'fake-secret-key' };
  const storage = new S3ReportDownloadLinks({ bucketName: BUCKET, region: 'eu-west-1', credentials });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('returns a pre-signed GET of the object that expires after the given seconds', async () => {
    const url = new URL(await storage.downloadUrl(KEY, { filename: 'report-user-1-20260301.pdf', expiresInSeconds: 300 }));

    expect(url.protocol).toBe('https:');
    expect(url.hostname).toBe(`${BUCKET}.s3.eu-west-1.amazonaws.com`);
    expect(url.pathname).toBe(`/${KEY}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('forces a download named after the filename, as application/pdf', async () => {
    const url = new URL(await storage.downloadUrl(KEY, { filename: 'report-a_b_c-20260301.pdf', expiresInSeconds: 300 }));

    expect(url.searchParams.get('response-content-disposition')).toBe('attachment; filename="report-a_b_c-20260301.pdf"');
    expect(url.searchParams.get('response-content-type')).toBe('application/pdf');
  });

  it('signs a fresh address with the expiry it is given', async () => {
    const url = new URL(await storage.downloadUrl(KEY, { filename: 'r.pdf', expiresInSeconds: 60 }));

    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
  });

  it('signs exactly what the SDK presigner signs for the same GetObject', async () => {
    vi.useFakeTimers({ now: new Date('2026-03-01T10:00:00Z'), toFake: ['Date'] });
    const options = { filename: 'report-user-1-20260301.pdf', expiresInSeconds: 300 };

    const ours = new URL(await storage.downloadUrl(KEY, options));
    const sdk = new URL(
      await getSignedUrl(
        // Without the flexible-checksum parameters the SDK adds by default, which a browser download has no use for.
        new S3Client({ region: 'eu-west-1', credentials, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }),
        new GetObjectCommand({
          Bucket: BUCKET,
          Key: KEY,
          ResponseContentDisposition: `attachment; filename="${options.filename}"`,
          ResponseContentType: 'application/pdf',
        }),
        { expiresIn: options.expiresInSeconds },
      ),
    );

    expect(ours.origin + ours.pathname).toBe(sdk.origin + sdk.pathname);
    expect(Object.fromEntries(ours.searchParams)).toEqual(Object.fromEntries(sdk.searchParams));
  });

  it('addresses an emulator endpoint path-style, with its port in the signed host', async () => {
    const local = new S3ReportDownloadLinks({
      bucketName: BUCKET,
      region: 'us-east-1',
      credentials,
      endpoint: 'http://127.0.0.1:4568',
      forcePathStyle: true,
    });

    const url = new URL(await local.downloadUrl(KEY, { filename: 'r.pdf', expiresInSeconds: 60 }));

    expect(url.origin).toBe('http://127.0.0.1:4568');
    expect(url.pathname).toBe(`/${BUCKET}/${KEY}`);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
  });
});
