import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createS3Client } from '#shared/adapters/aws-clients.ts';
import { S3ReportDownloadLinks } from '#shared/adapters/s3/report-download-links.ts';
import { ReportStorageRefusedError, S3ReportStorage } from '#shared/adapters/s3/report-storage.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { fakeHttpHandler } from '#test/support/fake-http-handler.ts';

const BUCKET = 'reports-bucket';
const KEY = 'reports/org-1/5f0c7a52-1d2b-4c8e-9a57-2d6c1f3b9e01.pdf';
const PDF = new TextEncoder().encode('%PDF-1.7 test');
const SHA256_HEX = 'a'.repeat(64);

/** What Lambda gives a function: its region and its role's credentials. */
const FUNCTION_ENVIRONMENT = {
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
};

const s3Mock = mockClient(S3Client);
beforeEach(() => s3Mock.reset());
afterEach(() => s3Mock.reset());

const s3Error = (name: string, fault: 'client' | 'server', httpStatusCode: number) =>
  new S3ServiceException({
    name,
    $fault: fault,
    $metadata: { httpStatusCode, requestId: 'REQ123' },
    message: `message that may quote ${KEY}`,
  });

describe('S3ReportStorage.save', () => {
  it('puts the PDF as application/pdf, encrypted with AES256, with the base64 SHA-256 S3 verifies', async () => {
    s3Mock.on(PutObjectCommand).resolves({});
    await new S3ReportStorage(new S3Client({ region: 'eu-west-1' }), BUCKET).save(KEY, PDF, SHA256_HEX);

    expect(s3Mock).toReceiveCommandTimes(PutObjectCommand, 1);
    expect(s3Mock).toReceiveCommandWith(PutObjectCommand, {
      Bucket: BUCKET,
      Key: KEY,
      Body: PDF,
      ContentType: 'application/pdf',
      ServerSideEncryption: 'AES256',
      ChecksumSHA256: Buffer.from(SHA256_HEX, 'hex').toString('base64'),
    });
  });

  it('reports a permanent refusal with S3’s error code, status and request id, not its message', async () => {
    s3Mock.on(PutObjectCommand).rejects(s3Error('NoSuchBucket', 'client', 404));
    const failure = await new S3ReportStorage(new S3Client({ region: 'eu-west-1' }), BUCKET)
      .save(KEY, PDF, SHA256_HEX)
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ReportStorageRefusedError);
    expect((failure as Error).message).toBe('S3 PutObject failed: NoSuchBucket (status 404, request REQ123)');
    expect((failure as Error).message).not.toContain(KEY);
  });

  it('removes an object by its key', async () => {
    s3Mock.on(DeleteObjectCommand).resolves({});
    await new S3ReportStorage(new S3Client({ region: 'eu-west-1' }), BUCKET).remove(KEY);

    expect(s3Mock).toReceiveCommandWith(DeleteObjectCommand, { Bucket: BUCKET, Key: KEY });
  });

  it('passes on a failure that is not S3’s answer (a bug) as it is', async () => {
    const bug = new TypeError('not a function');
    s3Mock.on(PutObjectCommand).rejects(bug);
    const failure = await new S3ReportStorage(new S3Client({ region: 'eu-west-1' }), BUCKET)
      .save(KEY, PDF, SHA256_HEX)
      .catch((e: unknown) => e);

    expect(failure).toBe(bug);
  });
});

// Through the SDK's own stack (retries, error parsing, aws-clients.ts's translation), not a mocked `send`.
describe('S3ReportStorage.save with the service’s S3 client', () => {
  beforeEach(() => {
    s3Mock.restore();
    Object.assign(process.env, FUNCTION_ENVIRONMENT);
  });
  afterEach(() => {
    for (const name of Object.keys(FUNCTION_ENVIRONMENT)) delete process.env[name];
  });

  const storageAnswering = (answer: Parameters<typeof fakeHttpHandler>[0], timeoutMs?: number) => {
    const client = createS3Client();
    const handler = fakeHttpHandler(answer);
    client.config.requestHandler = handler as never; // the SDK only calls handle()
    return { storage: new S3ReportStorage(client, BUCKET, timeoutMs), handler };
  };

  it('reports SlowDown that outlasted three attempts as DependencyUnavailableError (storage)', async () => {
    const slowDown = '<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>';
    const { storage, handler } = storageAnswering(() => ({ statusCode: 503, body: slowDown }));
    const failure = await storage.save(KEY, PDF, SHA256_HEX).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect((failure as DependencyUnavailableError).dependency).toBe('storage');
    expect(handler.requests).toHaveLength(3);
  });

  it('stores the PDF when a retry succeeds', async () => {
    let calls = 0;
    const { storage, handler } = storageAnswering(() =>
      ++calls === 1 ? { statusCode: 500, body: '<Error><Code>InternalError</Code></Error>' } : { statusCode: 200 },
    );
    await storage.save(KEY, PDF, SHA256_HEX);

    expect(handler.requests).toHaveLength(2);
    expect(handler.requests[1]!.headers['x-amz-checksum-sha256']).toBe(
      Buffer.from(SHA256_HEX, 'hex').toString('base64'),
    );
  });

  it('gives up a save that stalls past its time budget, as DependencyUnavailableError', async () => {
    const { storage } = storageAnswering(() => 'hang', 100);
    const failure = await storage.save(KEY, PDF, SHA256_HEX).catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(DependencyUnavailableError);
  });
});

describe('createS3Client', () => {
  it('tries three times, path-style when S3_FORCE_PATH_STYLE is true', async () => {
    process.env.S3_FORCE_PATH_STYLE = 'true';
    try {
      const client = createS3Client();
      expect(await client.config.maxAttempts()).toBe(3);
      expect(client.config.forcePathStyle).toBe(true);
    } finally {
      delete process.env.S3_FORCE_PATH_STYLE;
    }
  });
});

describe('S3ReportDownloadLinks.downloadUrl', () => {
  const links = () =>
    new S3ReportDownloadLinks(
      new S3Client({ region: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' } }),
      BUCKET,
    );

  it('returns a pre-signed GET of the object that expires after the given seconds', async () => {
    const url = new URL(await links().downloadUrl(KEY, { filename: 'report-u1-20261123.pdf', expiresInSeconds: 300 }));

    expect(`${url.origin}${url.pathname}`).toBe(`https://${BUCKET}.s3.eu-west-1.amazonaws.com/${KEY}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('forces a download named after the filename, as application/pdf', async () => {
    const url = new URL(await links().downloadUrl(KEY, { filename: 'report-u1-20261123.pdf', expiresInSeconds: 300 }));

    expect(url.searchParams.get('response-content-disposition')).toBe('attachment; filename="report-u1-20261123.pdf"');
    expect(url.searchParams.get('response-content-type')).toBe('application/pdf');
  });

  it('signs without calling S3', async () => {
    await links().downloadUrl(KEY, { filename: 'r.pdf', expiresInSeconds: 300 });
    expect(s3Mock).toReceiveCommandTimes(GetObjectCommand, 0);
  });

  it.each([
    ['AWS (virtual-hosted)', {}],
    [
      'an emulator (path-style, http, a port)',
      { AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:4569', S3_FORCE_PATH_STYLE: 'true' },
    ],
  ])(
    'gives, for %s, the very URL the SDK’s getSignedUrl gives with the service’s client',
    async (_name, environment) => {
      const variables = { ...FUNCTION_ENVIRONMENT, ...environment };
      Object.assign(process.env, variables);
      vi.useFakeTimers({ now: new Date('2026-11-23T10:00:00Z'), toFake: ['Date'] });
      try {
        const client = createS3Client();
        const key = 'reports/org 1/5f0c7a52(1).pdf';
        const ours = await new S3ReportDownloadLinks(client, BUCKET).downloadUrl(key, {
          filename: 'report-u1-20261123.pdf',
          expiresInSeconds: 300,
        });
        const sdks = await getSignedUrl(
          client,
          new GetObjectCommand({
            Bucket: BUCKET,
            Key: key,
            ResponseContentDisposition: 'attachment; filename="report-u1-20261123.pdf"',
            ResponseContentType: 'application/pdf',
          }),
          { expiresIn: 300 },
        );
        const normalized = (url: string) => {
          const parsed = new URL(url);
          parsed.searchParams.sort();
          return parsed.href;
        };
        expect(normalized(ours)).toBe(normalized(sdks));
      } finally {
        vi.useRealTimers();
        for (const name of Object.keys(variables)) delete process.env[name];
      }
    },
  );
});
