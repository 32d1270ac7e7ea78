import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fetch } from '#client/index.ts';
import { EXIT, runCli, type CliIo } from '#cli/run-cli.ts';
import { pdfsig, signatureOf } from '#test/support/pdf-signature.ts';
import { reportSignedByAnotherKey } from '#test/support/signed-report.ts';

/** `onboarding report verify`: reports signed by the worker's signer, checked offline. */

let dir: string;
let published: { pdf: Uint8Array; certificatePem: string };
let other: { pdf: Uint8Array; certificatePem: string };

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'verify-report-'));
  [published, other] = await Promise.all([reportSignedByAnotherKey(), reportSignedByAnotherKey()]);
  await writeFile(path.join(dir, 'certificates.pem'), published.certificatePem);
  await writeFile(path.join(dir, 'report.pdf'), published.pdf);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

function captured() {
  let text = '';
  return { stream: { isTTY: false, write: (chunk: string) => (text += chunk) }, text: () => text };
}

async function verify(pdf: Uint8Array | undefined, args: string[], io: Partial<CliIo> = {}) {
  if (pdf) await writeFile(path.join(dir, 'checked.pdf'), pdf);
  const stdout = captured();
  const stderr = captured();
  const code = await runCli(['report', 'verify', 'checked.pdf', ...args], {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env: {},
    cwd: dir,
    ...io,
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const offline = ['--certificates', 'certificates.pem'];

describe('onboarding report verify, offline with --certificates', () => {
  it('accepts a report signed with a published certificate: exit 0, the signer and the whole-file coverage named', async () => {
    const result = await verify(published.pdf, offline);

    expect(result).toMatchObject({ code: EXIT.ok, stderr: '' });
    expect(result.stdout).toContain('checked.pdf: signature valid');
    expect(result.stdout).toContain('signed by      Onboarding reports service, report signing, stage local');
    expect(result.stdout).toContain(`ByteRange ${signatureOf(published.pdf).byteRange.join(' ')}`);
  });

  it('refuses the report once one byte inside the signed range changes (before and after the signature value)', async () => {
    const { byteRange } = signatureOf(published.pdf);
    for (const offset of [200, byteRange[2] + 10]) {
      const altered = Uint8Array.from(published.pdf);
      altered[offset] = altered[offset]! ^ 0x01;

      const result = await verify(altered, offline);

      expect(result.code).toBe(EXIT.reportInvalid);
      expect(result.stderr).toMatch(/NOT VALID \(DIGEST_MISMATCH\): the file was changed after it was signed/);
      expect(result.stdout).toBe('');
    }
  });

  it('refuses a report signed by a key whose certificate is not published, naming that certificate', async () => {
    const result = await verify(other.pdf, offline);

    expect(result.code).toBe(EXIT.reportInvalid);
    expect(result.stderr).toMatch(/NOT VALID \(UNKNOWN_SIGNER\)/);
    expect(result.stderr).toContain('not one of the 1 published report signing certificates');
  });

  it('accepts that same report against its own certificate: the refusal above is about the signer alone', async () => {
    await writeFile(path.join(dir, 'other.pem'), other.certificatePem);
    expect((await verify(other.pdf, ['--certificates', 'other.pem'])).code).toBe(EXIT.ok);
  });

  it('accepts a report signed with the earlier ECC P-256 key against the published list that keeps its certificate after the RSA 2048 one', async () => {
    // Signed by this service's signer while the key was P-256 (ecdsa-with-SHA256 in the CMS), before the switch.
    const fixtures = path.join(import.meta.dirname, '../reports/signing/fixtures');
    const p256Report = new Uint8Array(await readFile(path.join(fixtures, 'p256-signed-report.pdf')));
    const p256Certificate = await readFile(path.join(fixtures, 'p256-certificate.pem'), 'utf8');
    await writeFile(path.join(dir, 'after-the-switch.pem'), published.certificatePem + p256Certificate);
    expect(signatureOf(p256Report).signedData.signerInfos[0]!.signatureAlgorithm.algorithmId).toBe(
      '1.2.840.10045.4.3.2',
    );
    expect(signatureOf(published.pdf).signedData.signerInfos[0]!.signatureAlgorithm.algorithmId).toBe(
      '1.2.840.113549.1.1.11',
    );

    expect((await verify(p256Report, ['--certificates', 'after-the-switch.pem'])).code).toBe(EXIT.ok);
    expect((await verify(published.pdf, ['--certificates', 'after-the-switch.pem'])).code).toBe(EXIT.ok);
    expect(pdfsig(p256Report)).toContain('Signature is Valid.');
    expect(pdfsig(published.pdf)).toContain('Signature is Valid.');
  });

  it('refuses a signature whose value was altered (the RSA signature no longer verifies)', async () => {
    const { byteRange, der } = signatureOf(published.pdf);
    // The signature OCTET STRING ends the SignerInfo, which ends the CMS: its last byte is the DER's last byte.
    const lastSignatureHexDigit = byteRange[1] + 1 + der.byteLength * 2 - 1;
    const altered = Uint8Array.from(published.pdf);
    altered[lastSignatureHexDigit] = altered[lastSignatureHexDigit] === 0x30 ? 0x31 : 0x30;

    const result = await verify(altered, offline);

    expect(result.code).toBe(EXIT.reportInvalid);
    expect(result.stderr).toMatch(/NOT VALID \(SIGNATURE_INVALID\)/);
  });

  it('refuses bytes appended after the signed end of the file (an incremental update)', async () => {
    const appended = new Uint8Array([...published.pdf, ...new TextEncoder().encode('\n1 0 obj\n(changed)\nendobj\n')]);

    const result = await verify(appended, offline);

    expect(result.code).toBe(EXIT.reportInvalid);
    expect(result.stderr).toMatch(/NOT VALID \(BYTE_RANGE\): the signed ranges \[.*\] do not cover the whole file/);
  });

  it('refuses a file without a signature', async () => {
    const result = await verify(new TextEncoder().encode('%PDF-1.7\n%%EOF\n'), offline);

    expect(result.code).toBe(EXIT.reportInvalid);
    expect(result.stderr).toContain('NOT VALID (NOT_SIGNED): the file has no signature');
  });

  it('prints the result as JSON with --json', async () => {
    const result = await verify(published.pdf, [...offline, '--json']);

    expect(result.code).toBe(EXIT.ok);
    expect(JSON.parse(result.stdout)).toMatchObject({
      file: 'checked.pdf',
      certificates: 'certificates.pem',
      valid: true,
      signer: { sha256Fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
  });

  it('is a usage error (exit 2) when the report or the certificates file cannot be read, or holds no certificate', async () => {
    expect((await verify(undefined, ['--certificates', 'missing.pem'])).stderr).toMatch(
      /cannot read the certificates file .*missing\.pem: ENOENT/,
    );
    await writeFile(path.join(dir, 'empty.pem'), 'no certificate here');
    const empty = await verify(published.pdf, ['--certificates', 'empty.pem']);
    expect(empty).toMatchObject({ code: EXIT.usage });
    expect(empty.stderr).toContain('--certificates empty.pem holds no PEM certificate');
    const stdout = captured();
    const stderr = captured();
    const code = await runCli(['report', 'verify', 'nothing.pdf', ...offline], {
      stdout: stdout.stream,
      stderr: stderr.stream,
      env: {},
      cwd: dir,
    });
    expect(code).toBe(EXIT.usage);
    expect(stderr.text()).toMatch(/cannot read the report file .*nothing\.pdf: ENOENT/);
  });
});

describe('onboarding report verify, certificates from the API', () => {
  it('reads GET /v1/report-signing-certificates with the token and checks against every listed certificate', async () => {
    const requests: Request[] = [];
    const fetch: Fetch = (input, init) => {
      requests.push(new Request(input, init));
      const certificates = [other.certificatePem, published.certificatePem].map((pem) => ({
        pem,
        sha256Fingerprint: '0'.repeat(64),
        notBefore: '2026-01-01T00:00:00.000Z',
        notAfter: '2031-01-01T00:00:00.000Z',
      }));
      return Promise.resolve(
        new Response(JSON.stringify({ certificates }), { status: 200, headers: { 'x-request-id': 'req-1' } }),
      );
    };

    const result = await verify(published.pdf, [], { env: { API_TOKEN: 'jwt-1' }, fetch });

    expect(result.code, result.stderr).toBe(EXIT.ok);
    expect(result.stdout).toContain('(published: GET /v1/report-signing-certificates)');
    expect(requests).toHaveLength(1);
    expect(new URL(requests[0]!.url).pathname).toBe('/v1/report-signing-certificates');
    expect(requests[0]!.headers.get('authorization')).toBe('Bearer jwt-1');
  });

  it('needs a token without --certificates (exit 2), and none with it', async () => {
    const withoutToken = await verify(published.pdf, []);

    expect(withoutToken.code).toBe(EXIT.usage);
    expect(withoutToken.stderr).toContain('no token');
  });
});
