import * as asn1js from 'asn1js';
import { describe, expect, it } from 'vitest';
import { certificateSerialNumber } from '#shared/adapters/signing/issue-signing-certificate.ts';

const derOf = (serial: Uint8Array) => Buffer.from(new asn1js.Integer({ valueHex: serial }).toBER()).toString('hex');
const randomStartingWith = (...octets: number[]) => {
  const random = new Uint8Array(16).fill(0x5a);
  random.set(octets);
  return random;
};

describe('certificateSerialNumber', () => {
  it.each([
    ['0x00 then an octet below 0x80 (padding OpenSSL refuses)', randomStartingWith(0x00, 0x12)],
    ['0x00 then 0x00', randomStartingWith(0x00, 0x00)],
    ['0x80 (a negative number)', randomStartingWith(0x80)],
    ['0xff', randomStartingWith(0xff)],
  ])('is a positive 16-octet INTEGER in minimal DER when the random octets start with %s', (_, random) => {
    const serial = certificateSerialNumber(random);

    expect(serial[0]).toBeGreaterThanOrEqual(0x40);
    expect(serial[0]).toBeLessThanOrEqual(0x7f);
    expect(derOf(serial)).toBe(`0210${Buffer.from(serial).toString('hex')}`);
    expect(serial.subarray(1)).toEqual(random.subarray(1));
  });

  it('keeps 126 random bits: two draws differ', () => {
    expect(certificateSerialNumber()).not.toEqual(certificateSerialNumber());
  });
});
