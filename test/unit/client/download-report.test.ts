import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  OnboardingApiClient,
  ReportDownloadError,
  ReportFailedError,
  ReportIntegrityError,
  ReportNotReadyError,
  type CompleteReportJob,
  type Fetch,
  type ReportJob,
} from '#client/index.ts';
import { completeReportJobBody } from '#test/support/fixtures/report-jobs.ts';

const JOB_ID = '6f1c2c52-2f7e-4a55-9a57-7bb0f0ce43c1';
const PDF = Buffer.from('%PDF-1.7\n' + 'x'.repeat(200_000) + '\n%%EOF\n');

const completeJob = (bytes: Buffer = PDF): CompleteReportJob =>
  completeReportJobBody({
    jobId: JOB_ID,
    userId: 'u-1',
    sizeBytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'client-download-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'x-request-id': 'req-1' } });

/**
 * The API (job, fresh address per call: url-1, url-2, ...) and object storage, whose answers for
 * the n-th download come from `storage`.
 */
function fakeService(options: { job?: ReportJob; storage: Array<() => Response> }) {
  const calls: string[] = [];
  let addresses = 0;
  let downloads = 0;
  const fetch: Fetch = async (input) => {
    const url = String(input);
    calls.push(url.replace('http://api.test', ''));
    if (url.endsWith(`/v1/document/api/${JOB_ID}`)) return json(200, options.job ?? completeJob());
    if (url.endsWith(`/v1/document/api/${JOB_ID}/url`)) {
      addresses += 1;
      return json(200, {
        url: `https://s3.test/url-${addresses}`,
        expiresInSeconds: 300,
        expiresAt: '2026-01-01T00:05:00.000Z',
        filename: 'report-u-1-20260101.pdf',
      });
    }
    const answer = options.storage[downloads++] ?? options.storage.at(-1)!;
    return answer();
  };
  return { client: new OnboardingApiClient({ baseUrl: 'http://api.test', token: 't', fetch }), calls };
}

/** A body delivered in chunks, as a real download is. */
const pdfResponse = (bytes: Buffer = PDF) =>
  new Response(
    new ReadableStream({
      start(controller) {
        for (let offset = 0; offset < bytes.length; offset += 65_536)
          controller.enqueue(bytes.subarray(offset, offset + 65_536));
        controller.close();
      },
    }),
    { status: 200, headers: { 'content-type': 'application/pdf' } },
  );
const expired = () =>
  new Response('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>', { status: 403 });

describe('downloadReport', () => {
  it('reads the job, gets a fresh address, streams the PDF to the file and verifies size and sha256', async () => {
    const { client, calls } = fakeService({ storage: [() => pdfResponse()] });
    const target = path.join(dir, 'report.pdf');
    const progress: number[] = [];

    const result = await client.downloadReport(JOB_ID, target, { onProgress: (p) => progress.push(p.receivedBytes) });

    expect(result).toEqual({
      path: target,
      sizeBytes: PDF.length,
      sha256: completeJob().sha256,
      filename: 'report-u-1-20260101.pdf',
      attempts: 1,
    });
    expect((await readFile(target)).equals(PDF)).toBe(true);
    expect(calls).toEqual([`/v1/document/api/${JOB_ID}`, `/v1/document/api/${JOB_ID}/url`, 'https://s3.test/url-1']);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toBe(PDF.length);
    expect(await readdir(dir)).toEqual(['report.pdf']);
  });

  it('uses a job it is given instead of reading it again', async () => {
    const { client, calls } = fakeService({ storage: [() => pdfResponse()] });
    await client.downloadReport(JOB_ID, path.join(dir, 'r.pdf'), { job: completeJob() });
    expect(calls[0]).toBe(`/v1/document/api/${JOB_ID}/url`);
  });

  it('asks for a fresh address once when the first one has expired (403)', async () => {
    const { client, calls } = fakeService({ storage: [expired, () => pdfResponse()] });

    const result = await client.downloadReport(JOB_ID, path.join(dir, 'report.pdf'));

    expect(result.attempts).toBe(2);
    expect(calls.filter((call) => call.startsWith('https://'))).toEqual([
      'https://s3.test/url-1',
      'https://s3.test/url-2',
    ]);
  });

  it('gives up after the second expired address, and on any other storage error, keeping no file', async () => {
    const twice = fakeService({ storage: [expired] });
    await expect(twice.client.downloadReport(JOB_ID, path.join(dir, 'a.pdf'))).rejects.toMatchObject({
      name: 'ReportDownloadError',
      status: 403,
    });
    expect(twice.calls.filter((call) => call.startsWith('https://'))).toHaveLength(2);

    const missing = fakeService({ storage: [() => new Response('no', { status: 404 })] });
    await expect(missing.client.downloadReport(JOB_ID, path.join(dir, 'b.pdf'))).rejects.toBeInstanceOf(
      ReportDownloadError,
    );
    expect(missing.calls.filter((call) => call.startsWith('https://'))).toHaveLength(1);
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses bytes whose sha256 or size differ from the job’s, and leaves no file behind', async () => {
    const tampered = Buffer.from(PDF);
    tampered[100] = 0x41 + ((tampered[100]! + 1) % 26);
    const { client } = fakeService({ storage: [() => pdfResponse(tampered)] });
    const target = path.join(dir, 'report.pdf');

    const error = await client.downloadReport(JOB_ID, target).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ReportIntegrityError);
    expect(error).toMatchObject({ expected: { sizeBytes: PDF.length }, actual: { sizeBytes: PDF.length } });
    expect(await readdir(dir)).toEqual([]);

    const short = fakeService({ storage: [() => pdfResponse(PDF.subarray(0, 1000))] });
    await expect(short.client.downloadReport(JOB_ID, target)).rejects.toMatchObject({ actual: { sizeBytes: 1000 } });
    expect(await readdir(dir)).toEqual([]);
  });

  it('does not ask for an address for a job that is not COMPLETE', async () => {
    const pending = fakeService({ job: { ...completeJob(), status: 'IN_PROGRESS' }, storage: [] });
    await expect(pending.client.downloadReport(JOB_ID, path.join(dir, 'r.pdf'))).rejects.toBeInstanceOf(
      ReportNotReadyError,
    );
    const failed = fakeService({
      job: { ...completeJob(), status: 'FAILED', errorCode: 'TIMED_OUT' },
      storage: [],
    });
    await expect(failed.client.downloadReport(JOB_ID, path.join(dir, 'r.pdf'))).rejects.toBeInstanceOf(
      ReportFailedError,
    );
    expect([...pending.calls, ...failed.calls].some((call) => call.endsWith('/url'))).toBe(false);
  });
});

describe('fetchReport (in memory, WebCrypto: the dashboard in a browser)', () => {
  it('gets a fresh address, reads the PDF and hands back the bytes once size and sha256 match the job', async () => {
    const { client, calls } = fakeService({ storage: [() => pdfResponse()] });
    const progress: number[] = [];

    const result = await client.fetchReport(JOB_ID, { onProgress: (p) => progress.push(p.receivedBytes) });

    expect(Buffer.from(result.bytes).equals(PDF)).toBe(true);
    expect(result).toMatchObject({
      sizeBytes: PDF.length,
      sha256: completeJob().sha256,
      filename: 'report-u-1-20260101.pdf',
      attempts: 1,
    });
    expect(calls).toEqual([`/v1/document/api/${JOB_ID}`, `/v1/document/api/${JOB_ID}/url`, 'https://s3.test/url-1']);
    expect(progress.at(-1)).toBe(PDF.length);
  });

  it('refuses bytes that are not the job’s PDF', async () => {
    const { client } = fakeService({ storage: [() => pdfResponse(Buffer.from('%PDF-1.7 tampered'))] });

    await expect(client.fetchReport(JOB_ID, { job: completeJob() })).rejects.toBeInstanceOf(ReportIntegrityError);
  });

  it('replaces an expired address once, and reports any other refusal of object storage', async () => {
    const renewed = fakeService({ storage: [expired, () => pdfResponse()] });
    expect((await renewed.client.fetchReport(JOB_ID)).attempts).toBe(2);

    const refused = fakeService({ storage: [expired, expired] });
    await expect(refused.client.fetchReport(JOB_ID)).rejects.toBeInstanceOf(ReportDownloadError);
  });

  it('refuses a job that is not COMPLETE', async () => {
    const open: ReportJob = { ...completeJob(), status: 'IN_PROGRESS' } as ReportJob;
    const failed: ReportJob = { ...completeJob(), status: 'FAILED', errorCode: 'RENDER_FAILED' } as ReportJob;

    await expect(fakeService({ job: open, storage: [] }).client.fetchReport(JOB_ID)).rejects.toBeInstanceOf(
      ReportNotReadyError,
    );
    await expect(fakeService({ job: failed, storage: [] }).client.fetchReport(JOB_ID)).rejects.toBeInstanceOf(
      ReportFailedError,
    );
  });
});
