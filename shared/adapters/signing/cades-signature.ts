import { createHash } from 'node:crypto';
import {
  childrenOf,
  contextConstructed,
  objectIdentifier,
  octetString,
  readElement,
  sequence,
  setOf,
  smallInteger,
} from './der.ts';
import { REPORT_SIGNING_ALGORITHM } from './report-signing-algorithm.ts';
import type { SignSha256 } from './signing-certificate.ts';
import type { SignatureTimestamper } from './rfc3161-timestamper.ts';

const SHA256 = sequence(objectIdentifier('2.16.840.1.101.3.4.2.1'));
const SIGNATURE_ALGORITHM = sequence(
  objectIdentifier(REPORT_SIGNING_ALGORITHM.signatureAlgorithm.oid),
  ...(REPORT_SIGNING_ALGORITHM.signatureAlgorithm.nullParameters ? [Uint8Array.of(0x05, 0x00)] : []),
);
const DATA = objectIdentifier('1.2.840.113549.1.7.1');
const SIGNED_DATA = objectIdentifier('1.2.840.113549.1.7.2');
const CONTENT_TYPE = objectIdentifier('1.2.840.113549.1.9.3');
const MESSAGE_DIGEST = objectIdentifier('1.2.840.113549.1.9.4');
const SIGNING_CERTIFICATE_V2 = objectIdentifier('1.2.840.113549.1.9.16.2.47');
const SIGNATURE_TIME_STAMP_TOKEN = objectIdentifier('1.2.840.113549.1.9.16.2.14');

const sha256Of = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash('sha256').update(bytes).digest());
const attribute = (type: Uint8Array, value: Uint8Array): Uint8Array => sequence(type, setOf(value));

/**
 * A detached CAdES signature (CMS SignedData, RFC 5652) over `content`, as PAdES baseline B-B wants
 * it (ETSI EN 319 142-1): signed attributes content type, message digest (SHA-256) and the ESS
 * signing-certificate-v2 (RFC 5035) naming the signer's certificate by its SHA-256 and issuer and
 * serial; no signing-time attribute (the PDF's `/M` carries the time); the certificate included.
 * The key signs the DER of the signed attributes as a SET OF, the only thing it ever sees. With
 * `timestamp`, PAdES B-T: the authority's token over the signature value is added as the unsigned
 * attribute signature-time-stamp-token (RFC 3161 appendix A).
 */
export async function detachedCadesSignature(
  content: Uint8Array,
  signer: { certificateDer: Uint8Array; signSha256: SignSha256 },
  timestamp?: SignatureTimestamper,
): Promise<Uint8Array> {
  const { issuer, serialNumber } = issuerAndSerialNumberOf(signer.certificateDer);
  const essCertIdV2 = sequence(
    octetString(sha256Of(signer.certificateDer)),
    sequence(sequence(contextConstructed(4, issuer)), serialNumber),
  );
  const signedAttributes = setOf(
    attribute(CONTENT_TYPE, DATA),
    attribute(MESSAGE_DIGEST, octetString(sha256Of(content))),
    attribute(SIGNING_CERTIFICATE_V2, sequence(sequence(essCertIdV2))),
  );
  const signature = await signer.signSha256(signedAttributes);
  // In the SignerInfo the same attributes are the [0] IMPLICIT field: only the tag differs.
  const signedAttributesField = Uint8Array.from(signedAttributes);
  signedAttributesField[0] = 0xa0;
  const unsignedAttributes = timestamp
    ? [contextConstructed(1, attribute(SIGNATURE_TIME_STAMP_TOKEN, await timestamp(signature)))]
    : [];

  const signerInfo = sequence(
    smallInteger(1),
    sequence(issuer, serialNumber),
    SHA256,
    signedAttributesField,
    SIGNATURE_ALGORITHM,
    octetString(signature),
    ...unsignedAttributes,
  );
  const signedData = sequence(
    smallInteger(1),
    setOf(SHA256),
    sequence(DATA), // detached: no eContent
    contextConstructed(0, signer.certificateDer),
    setOf(signerInfo),
  );
  return sequence(SIGNED_DATA, contextConstructed(0, signedData));
}

/** The issuer Name and serialNumber INTEGER of an X.509 certificate, as encoded in it. */
export function issuerAndSerialNumberOf(certificateDer: Uint8Array): { issuer: Uint8Array; serialNumber: Uint8Array } {
  const [tbsCertificate] = childrenOf(readElement(certificateDer));
  const fields = childrenOf(tbsCertificate!);
  // TBSCertificate: [0] version (absent in v1), serialNumber, signature, issuer, ...
  const serialIndex = fields[0]?.tag === 0xa0 ? 1 : 0;
  const serialNumber = fields[serialIndex];
  const issuer = fields[serialIndex + 2];
  if (serialNumber?.tag !== 0x02 || issuer?.tag !== 0x30) throw new Error('not an X.509 certificate');
  return { issuer: issuer.encoded, serialNumber: serialNumber.encoded };
}
