import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReportSignature } from '#client/verify-report.ts';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';
import { padesReportSigner, reportSignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import { rfc3161Timestamper } from '#shared/adapters/signing/rfc3161-timestamper.ts';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { ensureLocalReportSigningKey } from '#local/report-signing-key.ts';
import { pdfsig, signatureOf } from '#test/support/pdf-signature.ts';
import {
  startTimestampAuthority,
  type AuthorityBehaviour,
  type TestTimestampAuthority,
} from '#test/support/timestamp-authority.ts';
import { renderTypicalReport } from '#test/support/signed-report.ts';

/** PAdES B-T: the signature value timestamped by an RFC 3161 authority (the local test authority). */

const SIGNATURE_TIME_STAMP_TOKEN = '1.2.840.113549.1.9.16.2.14';

let keysDir: string;
let key: LocalReportSigningKey;
let unsigned: Uint8Array;
let authority: TestTimestampAuthority;
let signed: Uint8Array;

const timestamperFor = (url: string, timeoutMs?: number) =>
  rfc3161Timestamper({ url, ...(timeoutMs && { timeoutMs }) });

beforeAll(async () => {
  keysDir = await mkdtemp(join(tmpdir(), 'report-timestamp-'));
  key = new LocalReportSigningKey(await ensureLocalReportSigningKey(keysDir));
  unsigned = await renderTypicalReport(reportSignaturePlaceholder({ timestamped: true }));
  authority = await startTimestampAuthority();
  signed = await padesReportSigner(key, timestamperFor(authority.url))(unsigned, new Date());
}, 60_000);
afterAll(async () => {
  await authority.close();
  await rm(keysDir, { recursive: true, force: true });
});

describe('a report signed with a timestamp authority (PAdES B-T)', () => {
  it('asks the authority once, over HTTP POST application/timestamp-query: SHA-256 of the signature value, a nonce, its certificate wanted', () => {
    expect(authority.requests).toHaveLength(1);
    const [request] = authority.requests;
    const [signerInfo] = signatureOf(signed).signedData.signerInfos;
    expect(request!.version).toBe(1);
    expect(request!.messageImprint.hashAlgorithm.algorithmId).toBe('2.16.840.1.101.3.4.2.1');
    expect(Buffer.from(request!.messageImprint.hashedMessage.valueBlock.valueHexView)).toEqual(
      createHash('sha256').update(signerInfo!.signature.valueBlock.valueHexView).digest(),
    );
    expect(request!.nonce).toBeInstanceOf(asn1js.Integer);
    expect(request!.certReq).toBe(true);
  });

  it('carries the authority’s token as the unsigned attribute signature-time-stamp-token, stamping that digest', () => {
    const [signerInfo] = signatureOf(signed).signedData.signerInfos;
    const attributes = signerInfo!.unsignedAttrs?.attributes ?? [];
    expect(attributes.map((attribute) => attribute.type)).toEqual([SIGNATURE_TIME_STAMP_TOKEN]);
    const token = new pkijs.ContentInfo({ schema: attributes[0]!.values[0] });
    const tokenData = new pkijs.SignedData({ schema: token.content });
    const tstInfo = pkijs.TSTInfo.fromBER(tokenData.encapContentInfo.eContent!.getValue());
    expect(Buffer.from(tstInfo.messageImprint.hashedMessage.valueBlock.valueHexView)).toEqual(
      createHash('sha256').update(signerInfo!.signature.valueBlock.valueHexView).digest(),
    );
    expect(tstInfo.nonce?.valueBlock.valueHexView).toEqual(authority.requests[0]!.nonce!.valueBlock.valueHexView);
    // The signed attributes are those of B-B: the timestamp changes nothing that was signed.
    expect(signerInfo!.signedAttrs!.attributes).toHaveLength(3);
  });

  it('is a token OpenSSL reads (openssl ts): SHA-256, a time, the request’s nonce', () => {
    const [signerInfo] = signatureOf(signed).signedData.signerInfos;
    const token = Buffer.from(signerInfo!.unsignedAttrs!.attributes[0]!.values[0]!.toBER());
    const dir = mkdtempSync(join(tmpdir(), 'timestamp-token-'));
    try {
      writeFileSync(join(dir, 'token.der'), token);
      const text = execFileSync(
        'openssl',
        ['ts', '-reply', '-token_in', '-in', join(dir, 'token.der'), '-token_out', '-text'],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
      );
      expect(text).toContain('Hash Algorithm: sha256');
      expect(text).toMatch(/^Time stamp: \w{3} +\d+ [\d:.]+ \d{4} GMT$/mu);
      const nonce = Buffer.from(authority.requests[0]!.nonce!.valueBlock.valueHexView).toString('hex');
      expect(BigInt(/^Nonce: (0x[0-9A-F]+)$/mu.exec(text)?.[1] ?? '-1')).toBe(BigInt(`0x${nonce}`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // pdfsig (poppler 22.12) says nothing of the timestamp: its "Signing Time" is the dictionary's /M.
  it('still verifies as before: pdfsig valid and whole, the client’s check valid', async () => {
    const report = pdfsig(signed);
    expect(report).toContain('Signature Validation: Signature is Valid.');
    expect(report).toContain('Total document signed');
    const certificate = await key.certificateAt(new Date());
    expect(await verifyReportSignature(signed, [{ pem: certificate.pem }])).toMatchObject({ valid: true });
  });
});

describe('a timestamp authority that fails: the signature fails as a dependency, so the job is retried, never stored as B-B', () => {
  const failingWith = async (behaviour: AuthorityBehaviour, timeoutMs?: number) => {
    const failing = await startTimestampAuthority(behaviour);
    try {
      return await padesReportSigner(key, timestamperFor(failing.url, timeoutMs))(unsigned, new Date()).then(
        () => undefined,
        (error: unknown) => error,
      );
    } finally {
      await failing.close();
    }
  };

  it.each([
    ['answers HTTP 500', 'http-500'],
    ['rejects the request (PKIStatus rejection)', 'reject'],
    ['stamps another digest', 'other-digest'],
  ] as const)('%s', async (_, behaviour) => {
    const error = await failingWith(behaviour);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect((error as DependencyUnavailableError).dependency).toBe('timestamp authority');
  });

  it('does not answer within the timeout', async () => {
    const started = Date.now();
    expect(await failingWith('hang', 300)).toBeInstanceOf(DependencyUnavailableError);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it.each([
    ['redirects elsewhere (followed by nothing)', 'redirect'],
    ['answers with more than 64 KB', 'oversized'],
  ] as const)('%s', async (_, behaviour) => {
    const error = await failingWith(behaviour);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
  });
});
