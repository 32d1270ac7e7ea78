import { createHash } from 'node:crypto';
import {
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
  type ServiceInputTypes,
  type ServiceOutputTypes,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { HttpRequest, HttpResponse } from '@smithy/core/transport';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { FinalizeRequestMiddleware } from '@smithy/types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { S3ReportDownloadLinks } from '../../../shared/adapters/s3/report-download-links.ts';
import { S3PutObjectError, S3ReportStorage } from '../../../shared/adapters/s3/report-storage.ts';
import { objectAddress, s3BucketFromEnvironment } from '../../../shared/adapters/s3/s3-bucket.ts';
import { DependencyUnavailableError } from '../../../shared/domain/errors.ts';
import {
  expectedAuthorization,
  RecordingHttpEndpoint,
  signedHeaderNames,
  type RecordedRequest,
} from '../../support/recording-http-endpoint.ts';

const BUCKET = 'reports-bucket';
const KEY = 'reports/org-acme/1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed.pdf';
/** Literal in S3; a WHATWG URL would resolve these segments to `reports/x.pdf` and `x.pdf`. */
const DOT_KEYS = ['reports/./x.pdf', 'reports/../x.pdf', 'reports/../../x.pdf'];
const PDF = new TextEncoder().encode('%PDF-1.7 stored bytes %%EOF');
const SHA256_HEX = createHash('sha256').update(PDF).digest('hex');
const REGION = 'eu-west-1';
const CREDENTIALS = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'fake-secret-key',
  sessionToken: 'fake-session-token',
};
const REQUEST_ID = '4442587FB7D0A2F9';
const EXTENDED_REQUEST_ID = 'vlR7PnpV2Ce81l0PRw6jlUpck7Jo5ZsQjryTjKlc5aLWGVHPZLj5NeC6qMa0emYBDXOo6QBU0Wo=';

/** A stand-in for S3: answers 200 unless an error is scripted. */
class FakeS3 extends RecordingHttpEndpoint {
  constructor() {
    super({ status: 200 });
  }

  /** An error as S3 sends it: the code in an XML body that also quotes the request, the request ids in headers. */
  reply(status: number, code?: string): this {
    const body = code
      ? `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>Secret detail of ${KEY}</Message><RequestId>${REQUEST_ID}</RequestId></Error>`
      : undefined;
    const headers = {
      'x-amz-request-id': REQUEST_ID,
      'x-amz-id-2': EXTENDED_REQUEST_ID,
      ...(body ? { 'content-type': 'application/xml' } : {}),
    };
    return this.enqueue({ status, headers, ...(body ? { body } : {}) });
  }
}

const storageFor = (endpoint: string) =>
  new S3ReportStorage(
    { bucketName: BUCKET, region: REGION, credentials: CREDENTIALS, endpoint, forcePathStyle: true },
    { retryDelaysMs: [1, 1] },
  );

const S3_SIGNING = { service: 's3', region: REGION, credentials: CREDENTIALS, uriEscapePath: false };

describe('S3ReportStorage.save', () => {
  let s3: FakeS3;

  beforeEach(async () => {
    s3 = await new FakeS3().start();
  });

  afterEach(async () => {
    await s3.stop();
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('puts the PDF as application/pdf, encrypted with AES256, with the base64 SHA-256 S3 verifies', async () => {
    await storageFor(s3.endpoint).save(KEY, PDF, SHA256_HEX);

    expect(s3.requests).toHaveLength(1);
    const [put] = s3.requests;
    expect(put).toMatchObject({
      method: 'PUT',
      path: `/${BUCKET}/${KEY}`,
      headers: {
        host: new URL(s3.endpoint).host,
        'content-type': 'application/pdf',
        'content-length': String(PDF.byteLength),
        'x-amz-server-side-encryption': 'AES256',
        'x-amz-checksum-sha256': createHash('sha256').update(PDF).digest('base64'),
        'x-amz-content-sha256': SHA256_HEX,
        'x-amz-security-token': CREDENTIALS.sessionToken,
      },
    });
    expect(put!.body.equals(PDF)).toBe(true);
  });

  it('signs the PUT with SigV4 for s3 in the region, over the checksum, encryption and payload hash headers', async () => {
    await storageFor(s3.endpoint).save(KEY, PDF, SHA256_HEX);

    const [put] = s3.requests;
    const authorization = put!.headers.authorization!;
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
    );
    expect(signedHeaderNames(put!)).toEqual(
      expect.arrayContaining([
        'content-length',
        'content-type',
        'host',
        'x-amz-checksum-sha256',
        'x-amz-content-sha256',
        'x-amz-date',
        'x-amz-security-token',
        'x-amz-server-side-encryption',
      ]),
    );
    expect(put!.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(put!.body).digest('hex'));
    expect(authorization).toBe(await expectedAuthorization(put!, s3.port, S3_SIGNING));
  });

  it('sends the key with its segments RFC 3986 encoded, and signs that path as it arrives', async () => {
    const key = "reports/org acme/(1)+é!*'.pdf";

    await storageFor(s3.endpoint).save(key, PDF, SHA256_HEX);

    const [put] = s3.requests;
    expect(put!.path).toBe(`/${BUCKET}/reports/org%20acme/%281%29%2B%C3%A9%21%2A%27.pdf`);
    expect(put!.headers.authorization).toBe(await expectedAuthorization(put!, s3.port, S3_SIGNING));
  });

  it.each(DOT_KEYS)('puts %s under that key literally, without resolving its dot segments', async (key) => {
    await storageFor(s3.endpoint).save(key, PDF, SHA256_HEX);

    const [put] = s3.requests;
    expect(put!.path).toBe(`/${BUCKET}/${key}`);
    expect(put!.headers.authorization).toBe(await expectedAuthorization(put!, s3.port, S3_SIGNING));
  });

  // The SDK names the operation in a query parameter (`x-id=PutObject`) and signs its own bookkeeping
  // headers (user agent, invocation id, attempt number); S3 does not need them, and they are left out here.
  const SDK_ONLY_HEADERS = ['amz-sdk-invocation-id', 'amz-sdk-request', 'x-amz-user-agent'];

  const sdkPut = async (options: { withoutBookkeeping?: boolean } = {}) => {
    const sdk = new S3Client({ region: REGION, credentials: CREDENTIALS, endpoint: s3.endpoint, forcePathStyle: true });
    if (options.withoutBookkeeping) {
      const leaveOut: FinalizeRequestMiddleware<ServiceInputTypes, ServiceOutputTypes> = (next) => (args) => {
        const request = args.request as HttpRequest;
        delete request.query['x-id'];
        for (const name of SDK_ONLY_HEADERS) delete request.headers[name];
        return next(args);
      };
      sdk.middlewareStack.addRelativeTo(leaveOut, { relation: 'before', toMiddleware: 'httpSigningMiddleware' });
    }
    await sdk.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: KEY,
        Body: PDF,
        ContentType: 'application/pdf',
        ServerSideEncryption: 'AES256',
        ChecksumSHA256: Buffer.from(SHA256_HEX, 'hex').toString('base64'),
      }),
    );
    sdk.destroy();
  };

  it('sends what the SDK sends for the same PutObject', async () => {
    vi.useFakeTimers({ now: new Date('2026-03-01T10:00:00Z'), toFake: ['Date'] });

    await storageFor(s3.endpoint).save(KEY, PDF, SHA256_HEX);
    await sdkPut();

    const [ours, theirs] = s3.requests;
    expect(ours!.method).toBe(theirs!.method);
    expect(ours!.path).toBe(theirs!.path.replace(/\?x-id=PutObject$/, ''));
    expect(signedHeaderNames(ours!)).toEqual(
      signedHeaderNames(theirs!).filter((name) => !SDK_ONLY_HEADERS.includes(name)),
    );
    // Host, length, type, checksum, payload hash, encryption, date and session token, as each side sent them.
    const signedValues = (received: RecordedRequest) =>
      Object.fromEntries(signedHeaderNames(ours!).map((name) => [name, received.headers[name]]));
    expect(signedValues(ours!)).toEqual(signedValues(theirs!));
    expect(ours!.headers.authorization!.split(',')[0]).toBe(theirs!.headers.authorization!.split(',')[0]);
    expect(ours!.body.equals(theirs!.body)).toBe(true);
  });

  it('signs the PUT exactly as the SDK does once the SDK leaves its own bookkeeping out', async () => {
    vi.useFakeTimers({ now: new Date('2026-03-01T10:00:00Z'), toFake: ['Date'] });

    await storageFor(s3.endpoint).save(KEY, PDF, SHA256_HEX);
    await sdkPut({ withoutBookkeeping: true });

    const [ours, theirs] = s3.requests;
    expect(ours!.path).toBe(theirs!.path);
    expect(ours!.headers.authorization).toBe(theirs!.headers.authorization);
  });

  it('addresses the bucket virtual-hosted at its regional endpoint by default', async () => {
    const sent: HttpRequest[] = [];
    vi.spyOn(NodeHttpHandler.prototype, 'handle').mockImplementation(async (request) => {
      sent.push(request);
      return { response: new HttpResponse({ statusCode: 200, headers: {}, body: (async function* () {})() }) };
    });

    await new S3ReportStorage({ bucketName: BUCKET, region: REGION, credentials: CREDENTIALS }).save(
      KEY,
      PDF,
      SHA256_HEX,
    );

    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      method: 'PUT',
      protocol: 'https:',
      hostname: `${BUCKET}.s3.eu-west-1.amazonaws.com`,
      path: `/${KEY}`,
      headers: expect.objectContaining({ host: `${BUCKET}.s3.eu-west-1.amazonaws.com` }),
    });
    expect(sent[0]!.port).toBeUndefined();
  });

  it('reuses its keep-alive connection for the next save', async () => {
    const storage = storageFor(s3.endpoint);

    await storage.save(KEY, PDF, SHA256_HEX);
    await storage.save(KEY, PDF, SHA256_HEX);

    expect(s3.requests).toHaveLength(2);
    expect(s3.connections).toBe(1);
  });

  it.each([
    ['a 500 InternalError', 500, 'InternalError'],
    ['a 503 SlowDown', 503, 'SlowDown'],
    ['a 503 without a body', 503, undefined],
    ['a 429', 429, 'TooManyRequests'],
    ['a 400 RequestTimeout', 400, 'RequestTimeout'],
  ])(
    'tries %s three times in all, then reports DependencyUnavailableError with the last answer',
    async (_label, status, code) => {
      s3.reply(status, code).reply(status, code).reply(status, code);

      const error = await storageFor(s3.endpoint)
        .save(KEY, PDF, SHA256_HEX)
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(DependencyUnavailableError);
      expect((error as DependencyUnavailableError).dependency).toBe('storage');
      expect((error as Error).cause).toBeInstanceOf(S3PutObjectError);
      expect((error as Error).cause).toMatchObject({ statusCode: status, code });
      expect(s3.requests).toHaveLength(3);
    },
  );

  it('stores the PDF when a retry succeeds, each attempt signed and carrying the whole body', async () => {
    s3.reply(503, 'SlowDown').reply(500, 'InternalError');

    await storageFor(s3.endpoint).save(KEY, PDF, SHA256_HEX);

    expect(s3.requests).toHaveLength(3);
    for (const put of s3.requests) {
      expect(put.body.equals(PDF)).toBe(true);
      expect(put.headers.authorization).toBe(await expectedAuthorization(put, s3.port, S3_SIGNING));
    }
  });

  it('waits 100 ms, then 400 ms between attempts by default', async () => {
    s3.reply(503, 'SlowDown').reply(503, 'SlowDown').reply(503, 'SlowDown');
    const storage = new S3ReportStorage({
      bucketName: BUCKET,
      region: REGION,
      credentials: CREDENTIALS,
      endpoint: s3.endpoint,
      forcePathStyle: true,
    });
    const startedAt = Date.now();

    await expect(storage.save(KEY, PDF, SHA256_HEX)).rejects.toBeInstanceOf(DependencyUnavailableError);

    expect(s3.requests).toHaveLength(3);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(490);
  });

  it('gives each attempt at most 3 s, and all of them together at most 8 s', async () => {
    vi.useFakeTimers({ now: new Date('2026-03-01T10:00:00Z'), toFake: ['Date'] });
    const attemptTimeouts: number[] = [];
    vi.spyOn(NodeHttpHandler.prototype, 'handle').mockImplementation(async (_request, options) => {
      attemptTimeouts.push(options!.requestTimeout!);
      vi.setSystemTime(Date.now() + options!.requestTimeout!);
      throw Object.assign(new Error('the request timed out'), { name: 'TimeoutError', code: 'ETIMEDOUT' });
    });

    await expect(storageFor(s3.endpoint).save(KEY, PDF, SHA256_HEX)).rejects.toBeInstanceOf(DependencyUnavailableError);

    expect(attemptTimeouts).toEqual([3_000, 3_000, 2_000]);
  });

  it('reports a refused connection as DependencyUnavailableError', async () => {
    const endpoint = s3.endpoint;
    await s3.stop();

    const error = await storageFor(endpoint)
      .save(KEY, PDF, SHA256_HEX)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it.each([
    [403, 'AccessDenied'],
    [404, 'NoSuchBucket'],
    [400, 'BadDigest'],
  ])(
    'fails at once on a %i %s, naming the status, the code and the request ids but not the message S3 sent',
    async (status, code) => {
      s3.reply(status, code);

      const error = await storageFor(s3.endpoint)
        .save(KEY, PDF, SHA256_HEX)
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(S3PutObjectError);
      expect(error).not.toBeInstanceOf(DependencyUnavailableError);
      expect(error).toMatchObject({
        statusCode: status,
        code,
        requestId: REQUEST_ID,
        extendedRequestId: EXTENDED_REQUEST_ID,
        message: `S3 PutObject failed: HTTP ${status} ${code} (request ${REQUEST_ID}, extended request ${EXTENDED_REQUEST_ID})`,
      });
      expect(s3.requests).toHaveLength(1);
    },
  );
});

describe('s3BucketFromEnvironment', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('takes the region and the credentials from the environment, and the regional endpoint virtual-hosted', async () => {
    vi.stubEnv('AWS_REGION', 'eu-central-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDFROMENV');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret-from-env');

    const bucket = s3BucketFromEnvironment(BUCKET);

    expect(objectAddress(bucket, KEY)).toEqual({
      protocol: 'https:',
      hostname: `${BUCKET}.s3.eu-central-1.amazonaws.com`,
      path: `/${KEY}`,
    });
    const credentials = typeof bucket.credentials === 'function' ? await bucket.credentials() : bucket.credentials;
    expect(credentials).toMatchObject({ accessKeyId: 'AKIDFROMENV', secretAccessKey: 'secret-from-env' });
  });

  it('prefers AWS_ENDPOINT_URL_S3 over AWS_ENDPOINT_URL, path-style when S3_FORCE_PATH_STYLE is true', () => {
    vi.stubEnv('AWS_REGION', 'us-east-1');
    vi.stubEnv('AWS_ENDPOINT_URL', 'http://127.0.0.1:1111');
    vi.stubEnv('AWS_ENDPOINT_URL_S3', 'http://127.0.0.1:4568');
    vi.stubEnv('S3_FORCE_PATH_STYLE', 'true');

    expect(objectAddress(s3BucketFromEnvironment(BUCKET), KEY)).toEqual({
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: 4568,
      path: `/${BUCKET}/${KEY}`,
    });
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
    const url = new URL(
      await storage.downloadUrl(KEY, { filename: 'report-user-1-20260301.pdf', expiresInSeconds: 300 }),
    );

    expect(url.protocol).toBe('https:');
    expect(url.hostname).toBe(`${BUCKET}.s3.eu-west-1.amazonaws.com`);
    expect(url.pathname).toBe(`/${KEY}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request$/);
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('forces a download named after the filename, as application/pdf', async () => {
    const url = new URL(
      await storage.downloadUrl(KEY, { filename: 'report-a_b_c-20260301.pdf', expiresInSeconds: 300 }),
    );

    expect(url.searchParams.get('response-content-disposition')).toBe(
      'attachment; filename="report-a_b_c-20260301.pdf"',
    );
    expect(url.searchParams.get('response-content-type')).toBe('application/pdf');
  });

  it('signs a fresh address with the expiry it is given', async () => {
    const url = new URL(await storage.downloadUrl(KEY, { filename: 'r.pdf', expiresInSeconds: 60 }));

    expect(url.searchParams.get('X-Amz-Expires')).toBe('60');
  });

  it.each(DOT_KEYS)('keeps %s literally in the path it signs', async (key) => {
    const url = await storage.downloadUrl(key, { filename: 'r.pdf', expiresInSeconds: 60 });

    // Not parsed with `new URL()`, which would resolve the dot segments.
    expect(url.split('?')[0]).toBe(`https://${BUCKET}.s3.eu-west-1.amazonaws.com/${key}`);
  });

  it.each([KEY, ...DOT_KEYS])(
    'signs exactly what the SDK presigner signs for the same GetObject of %s',
    async (key) => {
      vi.useFakeTimers({ now: new Date('2026-03-01T10:00:00Z'), toFake: ['Date'] });
      const options = { filename: 'report-user-1-20260301.pdf', expiresInSeconds: 300 };

      const ours = await storage.downloadUrl(key, options);
      const sdk = await getSignedUrl(
        // Without the flexible-checksum parameters the SDK adds by default, which a browser download has no use for.
        new S3Client({
          region: 'eu-west-1',
          credentials,
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        }),
        new GetObjectCommand({
          Bucket: BUCKET,
          Key: key,
          ResponseContentDisposition: `attachment; filename="${options.filename}"`,
          ResponseContentType: 'application/pdf',
        }),
        { expiresIn: options.expiresInSeconds },
      );

      const [ourAddress, ourQuery] = ours.split('?');
      const [sdkAddress, sdkQuery] = sdk.split('?');
      expect(ourAddress).toBe(sdkAddress);
      expect(Object.fromEntries(new URLSearchParams(ourQuery))).toEqual(
        Object.fromEntries(new URLSearchParams(sdkQuery)),
      );
    },
  );

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
