import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { ECDSA_WITH_SHA256, type SignSha256 } from './signing-certificate.ts';

const SHA256 = '2.16.840.1.101.3.4.2.1';
const DATA = '1.2.840.113549.1.7.1';
const SIGNED_DATA = '1.2.840.113549.1.7.2';
const CONTENT_TYPE = '1.2.840.113549.1.9.3';
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';

/**
 * A detached CAdES signature (CMS SignedData) over `content`, as PAdES baseline B-B wants it
 * (ETSI EN 319 142-1): signed attributes content type, message digest (SHA-256) and the ESS
 * signing-certificate-v2 naming the signer's certificate; no signing-time attribute (the PDF's
 * `/M` carries the time); the certificate included. pkijs encodes every structure; the key signs
 * the DER of the signed attributes, which is the only thing it ever sees.
 */
export async function detachedCadesSignature(
  content: Uint8Array,
  signer: { certificateDer: Uint8Array; signSha256: SignSha256 },
): Promise<Uint8Array> {
  const certificate = pkijs.Certificate.fromBER(new Uint8Array(signer.certificateDer));
  const sha256 = new pkijs.AlgorithmIdentifier({ algorithmId: SHA256 });
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
    digestAlgorithm: sha256,
    signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: ECDSA_WITH_SHA256 }),
    signedAttrs: new pkijs.SignedAndUnsignedAttributes({
      type: 0,
      attributes: [
        new pkijs.Attribute({ type: CONTENT_TYPE, values: [new asn1js.ObjectIdentifier({ value: DATA })] }),
        new pkijs.Attribute({
          type: MESSAGE_DIGEST,
          values: [new asn1js.OctetString({ valueHex: createHash('sha256').update(content).digest() })],
        }),
        new pkijs.Attribute({ type: SIGNING_CERTIFICATE_V2, values: [signingCertificateV2(certificate, signer)] }),
      ],
    }),
  });
  // What is signed is the attributes' DER as a SET OF (tag 0x31), not as the [0] IMPLICIT field.
  const signedAttributes = new Uint8Array(signerInfo.signedAttrs!.toSchema().toBER());
  signedAttributes[0] = 0x31;
  signerInfo.signature = new asn1js.OctetString({ valueHex: await signer.signSha256(signedAttributes) });

  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [sha256],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: DATA }),
    certificates: [certificate],
    signerInfos: [signerInfo],
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: SIGNED_DATA, content: signedData.toSchema(true) });
  return new Uint8Array(contentInfo.toSchema().toBER());
}

/** ESS SigningCertificateV2 (RFC 5035) with one ESSCertIDv2: the certificate's SHA-256 (the default hash) and issuer/serial. */
function signingCertificateV2(certificate: pkijs.Certificate, signer: { certificateDer: Uint8Array }): asn1js.Sequence {
  const issuerSerial = new asn1js.Sequence({
    value: [
      new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: certificate.issuer })] }).toSchema(),
      certificate.serialNumber,
    ],
  });
  const certHash = new asn1js.OctetString({ valueHex: createHash('sha256').update(signer.certificateDer).digest() });
  return new asn1js.Sequence({
    value: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [certHash, issuerSerial] })] })],
  });
}
