import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { issueSigningCertificate } from '#shared/adapters/signing/issue-signing-certificate.ts';
import { signWith } from '#shared/adapters/signing/local-report-signing-key.ts';
import { newReportSigningKeyPair } from '#shared/adapters/signing/report-signing-algorithm.ts';

/**
 * A local RFC 3161 timestamp authority for tests (a fixture, not production code): it answers a
 * POSTed `application/timestamp-query` with a TimeStampResp whose token is a CMS SignedData over a
 * TSTInfo stamping the request's digest and nonce, signed with a throw-away RSA key and its
 * self-issued certificate (pkijs). `behaviour` makes it fail the ways an authority can.
 */
export interface TestTimestampAuthority {
  url: string;
  /** Every request it received, parsed. */
  requests: pkijs.TimeStampReq[];
  certificateDer: Uint8Array;
  close(): Promise<void>;
}

export type AuthorityBehaviour = 'grant' | 'http-500' | 'reject' | 'other-digest' | 'hang' | 'redirect' | 'oversized';

const ID_CT_TST_INFO = '1.2.840.113549.1.9.16.1.4';
const SIGNED_DATA = '1.2.840.113549.1.7.2';
const CONTENT_TYPE = '1.2.840.113549.1.9.3';
const MESSAGE_DIGEST = '1.2.840.113549.1.9.4';

export async function startTimestampAuthority(
  behaviour: AuthorityBehaviour = 'grant',
): Promise<TestTimestampAuthority> {
  const keys = newReportSigningKeyPair();
  const certificate = await issueSigningCertificate({
    commonName: 'Test timestamp authority',
    publicKeyDer: new Uint8Array(keys.publicKey.export({ type: 'spki', format: 'der' })),
    notBefore: new Date(Date.now() - 86_400_000),
    notAfter: new Date(Date.now() + 86_400_000),
    signSha256: (message) => Promise.resolve(signWith(keys.privateKey, message)),
  });
  const privateKey = await crypto.subtle.importKey(
    'pkcs8',
    keys.privateKey.export({ type: 'pkcs8', format: 'der' }),
    { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const tsaCertificate = pkijs.Certificate.fromBER(new Uint8Array(certificate.der));
  const requests: pkijs.TimeStampReq[] = [];
  let serial = 1;

  async function answer(query: Uint8Array): Promise<Uint8Array> {
    const request = pkijs.TimeStampReq.fromBER(new Uint8Array(query));
    requests.push(request);
    if (behaviour === 'reject')
      return new Uint8Array(
        new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: 2 }) }).toSchema().toBER(),
      );
    const messageImprint =
      behaviour === 'other-digest'
        ? new pkijs.MessageImprint({
            hashAlgorithm: request.messageImprint.hashAlgorithm,
            hashedMessage: new asn1js.OctetString({ valueHex: new Uint8Array(32) }),
          })
        : request.messageImprint;
    const tstInfo = new pkijs.TSTInfo({
      version: 1,
      policy: '1.3.6.1.4.1.99999.1.1',
      messageImprint,
      serialNumber: new asn1js.Integer({ value: serial++ }),
      genTime: new Date(),
      ...(request.nonce && { nonce: request.nonce }),
    });
    const tstInfoDer = new Uint8Array(tstInfo.toSchema().toBER());
    const signedData = new pkijs.SignedData({
      version: 3,
      encapContentInfo: new pkijs.EncapsulatedContentInfo({
        eContentType: ID_CT_TST_INFO,
        eContent: new asn1js.OctetString({ valueHex: tstInfoDer }),
      }),
      signerInfos: [
        new pkijs.SignerInfo({
          version: 1,
          sid: new pkijs.IssuerAndSerialNumber({
            issuer: tsaCertificate.issuer,
            serialNumber: tsaCertificate.serialNumber,
          }),
          signedAttrs: new pkijs.SignedAndUnsignedAttributes({
            type: 0,
            attributes: [
              new pkijs.Attribute({
                type: CONTENT_TYPE,
                values: [new asn1js.ObjectIdentifier({ value: ID_CT_TST_INFO })],
              }),
              new pkijs.Attribute({
                type: MESSAGE_DIGEST,
                values: [new asn1js.OctetString({ valueHex: createHash('sha256').update(tstInfoDer).digest() })],
              }),
            ],
          }),
        }),
      ],
      ...(request.certReq && { certificates: [tsaCertificate] }),
    });
    await signedData.sign(privateKey, 0, 'SHA-256');
    const token = new pkijs.ContentInfo({ contentType: SIGNED_DATA, content: signedData.toSchema(true) });
    return new Uint8Array(
      new pkijs.TimeStampResp({ status: new pkijs.PKIStatusInfo({ status: 0 }), timeStampToken: token })
        .toSchema()
        .toBER(),
    );
  }

  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      if (behaviour === 'hang') return;
      if (behaviour === 'redirect' && incoming.url !== '/elsewhere') {
        outgoing.writeHead(307, { location: `http://127.0.0.1:${port}/elsewhere` }).end();
        return;
      }
      if (behaviour === 'oversized') {
        outgoing.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(Buffer.alloc(65 * 1024));
        return;
      }
      if (behaviour === 'http-500' || incoming.headers['content-type'] !== 'application/timestamp-query') {
        outgoing.writeHead(behaviour === 'http-500' ? 500 : 415).end();
        return;
      }
      answer(new Uint8Array(Buffer.concat(chunks))).then(
        (body) => outgoing.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(body),
        () => outgoing.writeHead(400).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    requests,
    certificateDer: certificate.der,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
