import { createHash, sign, X509Certificate, type KeyObject } from 'node:crypto';
import * as pkijs from 'pkijs';
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { KmsReportSigningKey } from '#shared/adapters/kms/kms-report-signing-key.ts';
import {
  OperatorCertificateRejectedError,
  publishSigningCertificates,
  RENEW_BEFORE_DAYS,
  SELF_ISSUED_CERTIFICATE_DAYS,
  type SigningCertificateStore,
} from '#shared/adapters/signing/publish-signing-certificates.ts';
import { issueSigningCertificate } from '#shared/adapters/signing/issue-signing-certificate.ts';
import { certificatesFromPem, describeCertificate } from '#shared/adapters/signing/signing-certificate.ts';
import { newReportSigningKeyPair } from '#shared/adapters/signing/report-signing-algorithm.ts';

const NOW = new Date('2026-11-28T10:00:00Z');
const DAY_MS = 86_400_000;
const SIGNER = 'Onboarding reports service, report signing, stage test';

const newKeys = () => newReportSigningKeyPair();
const spkiOf = (publicKey: KeyObject) => new Uint8Array(publicKey.export({ type: 'spki', format: 'der' }));
const localKey = (keys: ReturnType<typeof newKeys>) => ({
  publicKeyDer: () => Promise.resolve(spkiOf(keys.publicKey)),
  signSha256: (message: Uint8Array) =>
    Promise.resolve(new Uint8Array(sign('sha256', message, { key: keys.privateKey, dsaEncoding: 'der' }))),
});
const memoryStore = (initial?: string): SigningCertificateStore & { pem: string | undefined } => {
  const store = {
    pem: initial,
    read: () => Promise.resolve(store.pem),
    write: (pem: string) => {
      store.pem = pem;
      return Promise.resolve();
    },
  };
  return store;
};
const certificateFor = (keys: ReturnType<typeof newKeys>, notAfter: Date, commonName = SIGNER, notBefore?: Date) =>
  issueSigningCertificate({
    commonName,
    publicKeyDer: spkiOf(keys.publicKey),
    notBefore: notBefore ?? new Date('2026-01-01T00:00:00Z'),
    notAfter,
    signSha256: localKey(keys).signSha256,
  });
const fingerprintsIn = (pem: string | undefined) =>
  certificatesFromPem(pem ?? '').map((der) => describeCertificate(der).sha256Fingerprint);

describe('publishSigningCertificates', () => {
  it('self-issues a certificate for the key on the first publication, signed by the key, valid two years', async () => {
    const keys = newKeys();
    const store = memoryStore();
    const published = await publishSigningCertificates({ key: localKey(keys), store, commonName: SIGNER, now: NOW });

    expect(published.issued).toBe(true);
    expect(fingerprintsIn(store.pem)).toEqual([published.current.sha256Fingerprint]);
    const x509 = new X509Certificate(Buffer.from(published.current.der));
    expect(x509.verify(keys.publicKey)).toBe(true);
    expect(x509.subject).toBe(`CN=${SIGNER.replaceAll(',', '\\,')}`);
    expect(published.current.notAfter.getTime()).toBe(NOW.getTime() + SELF_ISSUED_CERTIFICATE_DAYS * DAY_MS);
    expect(published.current.notBefore.getTime()).toBeLessThanOrEqual(NOW.getTime());
  });

  it('keeps the published certificate while it has more than the renewal margin left: nothing new is signed', async () => {
    const keys = newKeys();
    const existing = await certificateFor(keys, new Date(NOW.getTime() + (RENEW_BEFORE_DAYS + 1) * DAY_MS));
    const store = memoryStore(existing.pem);
    const key = { ...localKey(keys), signSha256: () => Promise.reject(new Error('must not sign')) };
    const published = await publishSigningCertificates({ key, store, commonName: SIGNER, now: NOW });

    expect(published.issued).toBe(false);
    expect(published.current.sha256Fingerprint).toBe(existing.sha256Fingerprint);
    expect(fingerprintsIn(store.pem)).toEqual([existing.sha256Fingerprint]);
  });

  it('renews a certificate near its end, listing the new one first and keeping the old', async () => {
    const keys = newKeys();
    const ending = await certificateFor(keys, new Date(NOW.getTime() + (RENEW_BEFORE_DAYS - 1) * DAY_MS));
    const store = memoryStore(ending.pem);
    const published = await publishSigningCertificates({ key: localKey(keys), store, commonName: SIGNER, now: NOW });

    expect(published.issued).toBe(true);
    expect(fingerprintsIn(store.pem)).toEqual([published.current.sha256Fingerprint, ending.sha256Fingerprint]);
  });

  it('after a key rotation (a new key), certifies the new key first and keeps every earlier certificate listed', async () => {
    const [first, second, current] = [newKeys(), newKeys(), newKeys()];
    const older = await certificateFor(first, new Date('2026-06-01T00:00:00Z')); // already expired
    const previous = await certificateFor(second, new Date('2028-01-01T00:00:00Z'));
    const store = memoryStore(previous.pem + older.pem);
    const published = await publishSigningCertificates({ key: localKey(current), store, commonName: SIGNER, now: NOW });

    expect(Buffer.from(published.current.publicKeyDer).equals(Buffer.from(spkiOf(current.publicKey)))).toBe(true);
    expect(fingerprintsIn(store.pem)).toEqual([
      published.current.sha256Fingerprint,
      previous.sha256Fingerprint,
      older.sha256Fingerprint,
    ]);
  });

  it('publishes the operator’s certificate for the key and its CA chain, current first, without self-issuing', async () => {
    const [keys, ca] = [newKeys(), newKeys()];
    const caCertificate = await certificateFor(ca, new Date('2030-01-01T00:00:00Z'), 'Operator CA');
    const operatorLeaf = await certificateFor(keys, new Date('2028-01-01T00:00:00Z'), 'Operator-issued');
    const selfIssued = await certificateFor(keys, new Date('2028-06-01T00:00:00Z'));
    const store = memoryStore(selfIssued.pem);
    const published = await publishSigningCertificates({
      key: localKey(keys),
      store,
      commonName: SIGNER,
      operatorCertificatesPem: operatorLeaf.pem + caCertificate.pem,
      now: NOW,
    });

    expect(published.issued).toBe(false);
    expect(published.current.commonName).toBe('Operator-issued');
    expect(fingerprintsIn(store.pem)).toEqual([
      operatorLeaf.sha256Fingerprint,
      caCertificate.sha256Fingerprint,
      selfIssued.sha256Fingerprint,
    ]);
  });

  it('refuses an operator certificate of another key, or one not valid now, and publishes nothing', async () => {
    const [keys, other] = [newKeys(), newKeys()];
    const store = memoryStore();
    const forOther = await certificateFor(other, new Date('2028-01-01T00:00:00Z'));
    await expect(
      publishSigningCertificates({
        key: localKey(keys),
        store,
        commonName: SIGNER,
        operatorCertificatesPem: forOther.pem,
        now: NOW,
      }),
    ).rejects.toThrow(OperatorCertificateRejectedError);
    const expired = await certificateFor(keys, new Date('2026-06-01T00:00:00Z'));
    await expect(
      publishSigningCertificates({
        key: localKey(keys),
        store,
        commonName: SIGNER,
        operatorCertificatesPem: expired.pem,
        now: NOW,
      }),
    ).rejects.toThrow(/not now/);
    expect(store.pem).toBeUndefined();
  });
});

describe('publishSigningCertificates with the KMS key', () => {
  const kmsMock = mockClient(KMSClient);
  const keys = newKeys();
  /** What the mocked KMS answers to Sign: bytes recognisable in the certificate (a real RSA 2048 signature has 256). */
  const KMS_SIGNATURE = Uint8Array.from([0x30, 0x06, 0x02, 0x01, 0x2a, 0x02, 0x01, 0x2b]);
  beforeEach(() => {
    kmsMock.reset();
    kmsMock.on(GetPublicKeyCommand).resolves({ PublicKey: spkiOf(keys.publicKey) });
    kmsMock.on(SignCommand).resolves({ Signature: KMS_SIGNATURE });
  });

  it('asks KMS for the public key once and places the signature of one Sign over the certificate’s SHA-256 digest', async () => {
    const key = new KmsReportSigningKey(new KMSClient({ region: 'eu-west-1' }), 'key-arn', () => Promise.resolve([]));
    const store = memoryStore();
    const published = await publishSigningCertificates({ key, store, commonName: SIGNER, now: NOW });

    expect(kmsMock.commandCalls(GetPublicKeyCommand)).toHaveLength(1);
    const signs = kmsMock.commandCalls(SignCommand);
    expect(signs).toHaveLength(1);
    const parsed = pkijs.Certificate.fromBER(new Uint8Array(published.current.der));
    expect(signs[0]!.args[0].input).toEqual({
      KeyId: 'key-arn',
      MessageType: 'DIGEST',
      SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256',
      Message: createHash('sha256').update(new Uint8Array(parsed.tbsView)).digest(),
    });
    expect(new Uint8Array(parsed.signatureValue.valueBlock.valueHexView)).toEqual(KMS_SIGNATURE);
    expect(Buffer.from(published.current.publicKeyDer).equals(Buffer.from(spkiOf(keys.publicKey)))).toBe(true);
    expect(fingerprintsIn(store.pem)).toEqual([published.current.sha256Fingerprint]);
  });
});
