import { execFileSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { readFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureLocalReportSigningKey } from '#local/report-signing-key.ts';
import { LocalReportSigningKey } from '#shared/adapters/signing/local-report-signing-key.ts';

const DAY_MS = 86_400_000;

describe('the local report signing key (.local/report-signing-key.json)', () => {
  let keysDir: string;
  beforeEach(async () => {
    keysDir = await mkdtemp(join(tmpdir(), 'report-signing-key-'));
  });
  afterEach(() => rm(keysDir, { recursive: true, force: true }));

  it('is created once (file 0600) and kept across restarts', async () => {
    const file = await ensureLocalReportSigningKey(keysDir);
    const first = await readFile(file, 'utf8');

    expect(await ensureLocalReportSigningKey(keysDir)).toBe(file);
    expect(await readFile(file, 'utf8')).toBe(first);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('certifies its own key, naming the service and the local stage, valid for years', async () => {
    const now = new Date();
    const key = new LocalReportSigningKey(await ensureLocalReportSigningKey(keysDir, now));

    const certificate = await key.certificateAt(now);

    expect(certificate.commonName).toBe('Onboarding reports service, report signing, stage local');
    expect(certificate.notAfter.getTime() - now.getTime()).toBeGreaterThan(4 * 365 * DAY_MS);
    expect(certificate.sha256Fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is replaced by a new key at a start within 30 days of its certificate’s end, the earlier certificate still listed after the new one', async () => {
    const created = new Date();
    const file = await ensureLocalReportSigningKey(keysDir, created);
    const [earlier] = await new LocalReportSigningKey(file).listCertificates();
    const nearTheEnd = new Date(earlier!.notAfter.getTime() - 10 * DAY_MS);

    await ensureLocalReportSigningKey(keysDir, nearTheEnd);
    const rotated = new LocalReportSigningKey(file);

    const listed = await rotated.listCertificates();
    expect(listed.map((certificate) => certificate.sha256Fingerprint)).toEqual([
      expect.not.stringMatching(earlier!.sha256Fingerprint),
      earlier!.sha256Fingerprint,
    ]);
    expect((await rotated.certificateAt(nearTheEnd)).sha256Fingerprint).toBe(listed[0]!.sha256Fingerprint);
  });
});

describe('a key file written when the signing key was ECC P-256', () => {
  let keysDir: string;
  beforeEach(async () => {
    keysDir = await mkdtemp(join(tmpdir(), 'report-signing-key-p256-'));
  });
  afterEach(() => rm(keysDir, { recursive: true, force: true }));

  /** What the local stack wrote before the switch: a P-256 key and its self-issued certificate, valid for years. */
  async function writeP256KeyFile(): Promise<{ file: string; certificate: string }> {
    const privateKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    await writeFile(join(keysDir, 'p256.pem'), privateKey);
    const certificate = execFileSync(
      'openssl',
      ['req', '-x509', '-new', '-key', join(keysDir, 'p256.pem'), '-subj', '/CN=earlier key', '-days', '1825'],
      { encoding: 'utf8' },
    );
    const file = join(keysDir, 'report-signing-key.json');
    await writeFile(file, JSON.stringify({ privateKey, certificates: [certificate] }), { mode: 0o600 });
    return { file, certificate };
  }

  it('is rotated at the next start to a key of the configured spec (RSA 2048), the P-256 certificate still listed after the new one', async () => {
    const now = new Date();
    const { file, certificate: p256Certificate } = await writeP256KeyFile();

    expect(await ensureLocalReportSigningKey(keysDir, now)).toBe(file);

    const rotated = JSON.parse(await readFile(file, 'utf8')) as { privateKey: string; certificates: string[] };
    const privateKey = createPrivateKey(rotated.privateKey);
    expect(privateKey.asymmetricKeyType).toBe('rsa');
    expect(privateKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(rotated.certificates).toHaveLength(2);
    expect(rotated.certificates[1]).toBe(p256Certificate);
    const current = new X509Certificate(rotated.certificates[0]!);
    expect(current.publicKey.asymmetricKeyType).toBe('rsa');
    expect(current.checkPrivateKey(privateKey)).toBe(true);
    expect(current.verify(current.publicKey)).toBe(true);
    expect((await new LocalReportSigningKey(file).certificateAt(now)).pem).toBe(rotated.certificates[0]);

    // Kept at the start after.
    expect(await ensureLocalReportSigningKey(keysDir, now)).toBe(file);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(rotated);
  });
});
