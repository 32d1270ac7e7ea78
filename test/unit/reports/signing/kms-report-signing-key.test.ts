import { createHash, sign } from 'node:crypto';
import { GetPublicKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { KmsReportSigningKey } from '#shared/adapters/kms/kms-report-signing-key.ts';
import { padesReportSigner, padesSignaturePlaceholder } from '#shared/adapters/signing/pades-report-signer.ts';
import { SigningCertificateNotValidError } from '#shared/adapters/signing/report-signing-key.ts';
import { issueSigningCertificate } from '#shared/adapters/signing/issue-signing-certificate.ts';
import type { SigningCertificate } from '#shared/adapters/signing/signing-certificate.ts';
import { signatureOf } from '#test/support/pdf-signature.ts';
import { renderTypicalReport } from '#test/support/signed-report.ts';
import { newReportSigningKeyPair } from '#shared/adapters/signing/report-signing-algorithm.ts';

const KEY_ID = 'arn:aws:kms:eu-west-1:111111111111:key/report-signing';
const kmsMock = mockClient(KMSClient);
/** What the mocked KMS answers to Sign: bytes recognisable in the output (a real RSA 2048 signature has 256). */
const KMS_SIGNATURE = Uint8Array.from([0x30, 0x06, 0x02, 0x01, 0x2a, 0x02, 0x01, 0x2b]);

function certificateFor(keys: ReturnType<typeof newReportSigningKeyPair>, notAfter: Date): Promise<SigningCertificate> {
  return issueSigningCertificate({
    publicKeyDer: new Uint8Array(keys.publicKey.export({ type: 'spki', format: 'der' })),
    commonName: 'Onboarding reports service, report signing, stage test',
    notBefore: new Date('2026-01-01T00:00:00Z'),
    notAfter,
    signSha256: (message) =>
      Promise.resolve(new Uint8Array(sign('sha256', message, { key: keys.privateKey, dsaEncoding: 'der' }))),
  });
}

describe('KmsReportSigningKey', () => {
  const signedAt = new Date('2026-11-28T10:00:00Z');
  const kmsKeys = newReportSigningKeyPair();
  const earlierKeys = newReportSigningKeyPair();
  let current: SigningCertificate;
  let earlier: SigningCertificate;
  let unsigned: Uint8Array;

  beforeAll(async () => {
    current = await certificateFor(kmsKeys, new Date('2031-01-01T00:00:00Z'));
    earlier = await certificateFor(earlierKeys, new Date('2030-01-01T00:00:00Z'));
    unsigned = await renderTypicalReport(padesSignaturePlaceholder('test', 'test'));
  });
  const publicKey = () => ({ PublicKey: new Uint8Array(kmsKeys.publicKey.export({ type: 'spki', format: 'der' })) });
  beforeEach(() => {
    kmsMock.reset();
    kmsMock.on(GetPublicKeyCommand).resolves(publicKey());
    kmsMock.on(SignCommand).resolves({ Signature: KMS_SIGNATURE });
  });

  const signerWith = (certificates: SigningCertificate[]) => {
    const published = vi.fn(() => Promise.resolve(certificates));
    const key = new KmsReportSigningKey(new KMSClient({ region: 'eu-west-1' }), KEY_ID, published);
    return { key, published, signReport: padesReportSigner(key) };
  };

  it('sends KMS the SHA-256 digest of the signed attributes (MessageType DIGEST) and places its signature in the CMS', async () => {
    const { signReport } = signerWith([earlier, current]);

    const signed = await signReport(unsigned, signedAt);

    const { signedData } = signatureOf(signed);
    const [signerInfo] = signedData.signerInfos;
    const signedAttributes = new Uint8Array(signerInfo!.signedAttrs!.toSchema().toBER());
    signedAttributes[0] = 0x31; // signed as a SET OF
    expect(kmsMock).toHaveReceivedCommandTimes(SignCommand, 1);
    expect(kmsMock).toHaveReceivedCommandWith(SignCommand, {
      KeyId: KEY_ID,
      MessageType: 'DIGEST',
      SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256',
      Message: new Uint8Array(createHash('sha256').update(signedAttributes).digest()),
    });
    expect(Buffer.from(signerInfo!.signature.valueBlock.valueHexView)).toEqual(Buffer.from(KMS_SIGNATURE));
  });

  it('signs with the published certificate that certifies the KMS key, not another listed one', async () => {
    const { signReport } = signerWith([earlier, current]);

    const { signedData } = signatureOf(await signReport(unsigned, signedAt));

    const included = signedData.certificates![0] as { toSchema(): { toBER(): ArrayBuffer } };
    expect(Buffer.from(included.toSchema().toBER())).toEqual(Buffer.from(current.der));
  });

  it('asks KMS for the public key once per container, and makes one Sign call per report', async () => {
    const { signReport } = signerWith([current]);

    await signReport(unsigned, signedAt);
    await signReport(unsigned, signedAt);

    expect(kmsMock).toHaveReceivedCommandTimes(GetPublicKeyCommand, 1);
    expect(kmsMock).toHaveReceivedCommandTimes(SignCommand, 2);
  });

  it('asks for the public key again after a failed call', async () => {
    kmsMock.on(GetPublicKeyCommand).rejectsOnce(new Error('network down')).resolves(publicKey());
    const { key } = signerWith([current]);

    await expect(key.certificateAt(signedAt)).rejects.toThrow('network down');
    await expect(key.certificateAt(signedAt)).resolves.toMatchObject({ sha256Fingerprint: current.sha256Fingerprint });
    expect(kmsMock).toHaveReceivedCommandTimes(GetPublicKeyCommand, 2);
  });

  it('never signs when the key’s certificate has expired, or none certifies the key: no Sign call', async () => {
    const expired = await certificateFor(kmsKeys, new Date('2026-06-01T00:00:00Z'));

    await expect(signerWith([expired]).signReport(unsigned, signedAt)).rejects.toBeInstanceOf(
      SigningCertificateNotValidError,
    );
    await expect(signerWith([earlier]).signReport(unsigned, signedAt)).rejects.toBeInstanceOf(
      SigningCertificateNotValidError,
    );
    expect(kmsMock).toHaveReceivedCommandTimes(SignCommand, 0);
  });
});
