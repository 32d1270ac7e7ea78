import { createHash, randomBytes } from 'node:crypto';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import {
  booleanTrue,
  childrenOf,
  objectIdentifier,
  octetString,
  readElement,
  sequence,
  smallInteger,
  unsignedInteger,
  type Element,
} from './der.ts';

/** Asks a timestamp authority for a token over a signature value: the TimeStampToken (a CMS ContentInfo), DER. */
export type SignatureTimestamper = (signatureValue: Uint8Array) => Promise<Uint8Array>;

/** The authority has this long, name resolution and connection included, to answer: the worker's timeout is 15 s. */
export const TIMESTAMP_TIMEOUT_MS = 5_000;
/** A token with the authority's certificate chain is a few KB; an answer larger than this is not one. */
const MAX_RESPONSE_BYTES = 64 * 1024;

const SHA256_OID = objectIdentifier('2.16.840.1.101.3.4.2.1');
const SHA256 = sequence(SHA256_OID);
const SIGNED_DATA = objectIdentifier('1.2.840.113549.1.7.2');
const TST_INFO = objectIdentifier('1.2.840.113549.1.9.16.1.4');
const TIMESTAMP_AUTHORITY = 'timestamp authority';

/**
 * RFC 3161 over HTTP (`application/timestamp-query`), for PAdES B-T: the request carries the
 * SHA-256 of the signature value, a random nonce and asks for the authority's certificate; the
 * answer is accepted when granted and its token's TSTInfo names that same digest and nonce. The
 * URL is the operator's (context `reportTimestampUrl`, https only, checked at synth), never a
 * tenant's, so it does not go through the webhooks' SSRF guard; redirects are refused and the
 * request, answer included, takes at most `timeoutMs`. Whatever fails is a
 * `DependencyUnavailableError`: the job is retried like after any dependency's failure, and never
 * stored without the token it should carry.
 */
export function rfc3161Timestamper(options: { url: string; timeoutMs?: number }): SignatureTimestamper {
  const timeoutMs = options.timeoutMs ?? TIMESTAMP_TIMEOUT_MS;
  return async (signatureValue) => {
    const hashedMessage = octetString(createHash('sha256').update(signatureValue).digest());
    const nonce = unsignedInteger(randomBytes(8));
    const query = sequence(smallInteger(1), sequence(SHA256, hashedMessage), nonce, booleanTrue());
    try {
      return tokenFrom(await post(options.url, query, timeoutMs), { hashedMessage, nonce });
    } catch (error) {
      throw new DependencyUnavailableError(TIMESTAMP_AUTHORITY, { cause: error });
    }
  };
}

/** The TimeStampToken of a TimeStampResp, checked to be granted and to stamp `expected`. */
export function tokenFrom(
  response: Uint8Array,
  expected: { hashedMessage: Uint8Array; nonce: Uint8Array },
): Uint8Array {
  const [statusInfo, token] = childrenOf(readElement(response));
  const status = statusInfo && childrenOf(statusInfo)[0];
  // PKIStatus: granted (0) or grantedWithMods (1).
  if (status?.tag !== 0x02 || status.contents.byteLength !== 1 || status.contents[0]! > 1)
    throw new Error('the timestamp authority did not grant the request');
  if (!token) throw new Error('the timestamp authority granted the request without a token');
  const tstInfo = tstInfoOf(token);
  const [, , imprint, , , ...rest] = childrenOf(tstInfo);
  // MessageImprint { AlgorithmIdentifier (SHA-256, its NULL parameters or none), hashedMessage }
  const [algorithm, hashed] = imprint ? childrenOf(imprint) : [];
  const [algorithmId] = algorithm ? childrenOf(algorithm) : [];
  if (
    !algorithmId ||
    !sameBytes(algorithmId.encoded, SHA256_OID) ||
    !hashed ||
    !sameBytes(hashed.encoded, expected.hashedMessage)
  )
    throw new Error('the timestamp token stamps another digest');
  if (!rest.some((field) => field.tag === 0x02 && sameBytes(field.encoded, expected.nonce)))
    throw new Error('the timestamp token does not carry the request’s nonce');
  return token.encoded;
}

/** ContentInfo { signedData, [0] SignedData { version, digestAlgorithms, encapContentInfo { id-ct-TSTInfo, [0] OCTET STRING } } }. */
function tstInfoOf(token: Element): Element {
  const [contentType, explicitContent] = childrenOf(token);
  if (!contentType || !sameBytes(contentType.encoded, SIGNED_DATA) || !explicitContent)
    throw new Error('the timestamp token is not a CMS SignedData');
  const [signedData] = childrenOf(explicitContent);
  const [, , encapContentInfo] = childrenOf(signedData!);
  const [eContentType, eContent] = childrenOf(encapContentInfo!);
  if (!eContentType || !sameBytes(eContentType.encoded, TST_INFO) || !eContent)
    throw new Error('the timestamp token holds no TSTInfo');
  const [octets] = childrenOf(eContent);
  // BER allows the OCTET STRING constructed, in pieces (pkijs writes it so): its contents joined.
  const tstInfo =
    octets?.tag === 0x24 ? Buffer.concat(childrenOf(octets).map((piece) => piece.contents)) : octets?.contents;
  if (!tstInfo) throw new Error('the timestamp token holds no TSTInfo');
  return readElement(tstInfo);
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a).equals(Buffer.from(b));

/** POSTs the query with Node's own fetch (nothing added to the bundle); the answer's body, at most MAX_RESPONSE_BYTES. */
async function post(url: string, query: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
  const signal = AbortSignal.timeout(timeoutMs);
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/timestamp-query' },
    body: Buffer.from(query),
    redirect: 'error',
    signal,
  });
  if (answer.status !== 200) {
    await answer.body?.cancel();
    throw new Error(`the timestamp authority answered HTTP ${answer.status}`);
  }
  const chunks: Uint8Array[] = [];
  let read = 0;
  const reader = answer.body?.getReader();
  for (let next = await reader?.read(); next && !next.done; next = await reader!.read()) {
    read += next.value.byteLength;
    if (read > MAX_RESPONSE_BYTES) {
      await reader!.cancel();
      throw new Error('the timestamp authority’s answer is too large');
    }
    chunks.push(next.value);
  }
  return new Uint8Array(Buffer.concat(chunks));
}
