import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EXIT, runCli } from '#cli/run-cli.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { REPORT_SIGNING_KEY_FILE } from '#local/report-signing-key.ts';
import { callApi, tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { openApiValidator } from '#test/support/openapi-validator.ts';
import { pdfsig, signatureOf } from '#test/support/pdf-signature.ts';
import { seedOrganization, waitForJob } from '#test/support/report-support.ts';
import { reportSignedByAnotherKey } from '#test/support/signed-report.ts';

const CERTIFICATES_PATH = '/v1/report-signing-certificates';
const document = JSON.parse(await readFile(path.join(repoRoot, 'openapi.json'), 'utf8')) as Record<string, unknown>;
const validator = openApiValidator(document, { strict: true });

let orgId: string;
let token: string;
let dir: string;
/** A report the local stack's worker rendered and signed, as downloaded. */
let workerReport: Buffer;

beforeAll(async () => {
  orgId = uniqueOrg('signing');
  const [user] = await seedOrganization(orgId, 1);
  token = await tokenFor(orgId);
  dir = await mkdtemp(path.join(tmpdir(), 'report-verify-it-'));
  const created = await callApi('POST', '/v1/document/api', { token, body: { userId: user!.id } });
  const job = await waitForJob(created.body.jobId, token);
  const download = await callApi('GET', `/v1/document/api/${job.jobId}/url`, { token });
  workerReport = Buffer.from(await (await fetch(download.body.url)).arrayBuffer());
  expect(createHash('sha256').update(workerReport).digest('hex')).toBe(job.sha256);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: { API_URL: inject('baseUrl'), API_TOKEN: token },
    cwd: dir,
  });
  return { code, stdout, stderr };
}

describe('GET /v1/report-signing-certificates', () => {
  it('lists the local stack key file’s certificates, current first, as documented; the worker signs with the first', async () => {
    const response = await callApi('GET', CERTIFICATES_PATH, { token });

    expect(response.status).toBe(200);
    expect(validator.checkResponse({ method: 'GET', path: CERTIFICATES_PATH }, response)).toEqual([]);
    const keyFile = JSON.parse(
      await readFile(path.join(inject('localEnv').LOCAL_KEYS_DIR!, REPORT_SIGNING_KEY_FILE), 'utf8'),
    ) as { certificates: string[] };
    const certificates = response.body.certificates as Array<Record<string, string>>;
    expect(certificates.map((certificate) => certificate.pem)).toEqual(keyFile.certificates);
    const [current] = certificates;
    const currentDer = Buffer.from(current!.pem!.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    expect(current!.sha256Fingerprint).toBe(createHash('sha256').update(currentDer).digest('hex'));
    expect(Date.parse(current!.notBefore!)).toBeLessThan(Date.now());
    expect(Date.parse(current!.notAfter!)).toBeGreaterThan(Date.now());

    // The certificate inside the worker's signature is the listed current one.
    const { signedData } = signatureOf(workerReport);
    const embedded = Buffer.from(signedData.certificates![0]!.toSchema().toBER());
    expect(createHash('sha256').update(embedded).digest('hex')).toBe(current!.sha256Fingerprint);
  });

  it('is 403 for a token without reports:read, 401 without a token', async () => {
    const writer = await tokenFor(orgId, { scopes: ['reports:write'] });

    const forbidden = await callApi('GET', CERTIFICATES_PATH, { token: writer });
    const anonymous = await callApi('GET', CERTIFICATES_PATH);

    expect(forbidden.status).toBe(403);
    expect(validator.checkResponse({ method: 'GET', path: CERTIFICATES_PATH }, forbidden)).toEqual([]);
    expect(anonymous.status).toBe(401);
  });
});

describe('onboarding report verify against the local stack', () => {
  it('accepts the worker’s report (pdfsig agrees), with the certificates from the API', async () => {
    await writeFile(path.join(dir, 'report.pdf'), workerReport);

    const result = await cli(['report', 'verify', 'report.pdf']);

    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.stdout).toContain('report.pdf: signature valid');
    expect(result.stdout).toContain('(published: GET /v1/report-signing-certificates)');
    expect(pdfsig(workerReport)).toContain('Signature Validation: Signature is Valid.');
  });

  it('refuses the worker’s report with one byte changed inside the signed range (pdfsig agrees)', async () => {
    const altered = Buffer.from(workerReport);
    const offset = altered.indexOf('stream\n') + 20;
    expect(offset).toBeLessThan(signatureOf(workerReport).byteRange[1]);
    altered[offset] = altered[offset]! ^ 0x01;
    await writeFile(path.join(dir, 'altered.pdf'), altered);

    const result = await cli(['report', 'verify', 'altered.pdf']);

    expect(result.code).toBe(EXIT.reportInvalid);
    expect(result.stderr).toContain('altered.pdf: NOT VALID (DIGEST_MISMATCH)');
    expect(pdfsig(altered)).toContain('Signature Validation: Digest Mismatch.');
  });

  it('refuses a report signed by another key, whose certificate the stack does not publish', async () => {
    const { pdf } = await reportSignedByAnotherKey();
    await writeFile(path.join(dir, 'other.pdf'), pdf);

    const result = await cli(['report', 'verify', 'other.pdf']);

    expect(result.code).toBe(EXIT.reportInvalid);
    expect(result.stderr).toContain('other.pdf: NOT VALID (UNKNOWN_SIGNER)');
  });

  it('verifies fully offline with the certificates saved from the API as a PEM file', async () => {
    const listed = await callApi('GET', CERTIFICATES_PATH, { token });
    await writeFile(
      path.join(dir, 'published.pem'),
      (listed.body.certificates as Array<{ pem: string }>).map((certificate) => certificate.pem).join(''),
    );
    let stdout = '';
    const code = await runCli(['report', 'verify', 'report.pdf', '--certificates', 'published.pem'], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: () => true },
      // No token and an address nothing listens on: nothing is asked of the network.
      env: { API_URL: 'http://127.0.0.1:9' },
      cwd: dir,
    });

    expect(code).toBe(EXIT.ok);
    expect(stdout).toContain('(published: published.pem)');
  });
});
