/**
 * The DER the worker writes and reads itself: type-length-value with definite lengths, nothing
 * more. The worker's bundle has no room for an ASN.1 library (docs/dependencies.md: asn1js alone
 * put it 52.8 KB over its budget, @peculiar/asn1-cms and pkijs weigh more); the
 * structures built with it are few and fixed (cades-signature.ts), and every one is read back by
 * pkijs, OpenSSL and pdfsig in the tests.
 */

const concat = (parts: readonly Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
};

function lengthOctets(length: number): number[] {
  if (length < 0x80) return [length];
  const octets: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) octets.unshift(rest % 256);
  return [0x80 | octets.length, ...octets];
}

/** One element: `tag`, the length of `contents`, `contents`. */
export function tlv(tag: number, ...contents: Uint8Array[]): Uint8Array {
  const value = concat(contents);
  return concat([Uint8Array.from([tag, ...lengthOctets(value.byteLength)]), value]);
}

export const sequence = (...elements: Uint8Array[]): Uint8Array => tlv(0x30, ...elements);

/** A SET OF in DER order: elements sorted by their encodings (X.690 11.6), as signed attributes must be. */
export const setOf = (...elements: Uint8Array[]): Uint8Array =>
  tlv(0x31, ...[...elements].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));

export const octetString = (value: Uint8Array): Uint8Array => tlv(0x04, value);

/** A small non-negative INTEGER (versions). */
export const smallInteger = (value: number): Uint8Array => tlv(0x02, Uint8Array.of(value));

/** A non-negative INTEGER from its big-endian octets (a nonce), in minimal two's complement. */
export function unsignedInteger(octets: Uint8Array): Uint8Array {
  let start = 0;
  while (start < octets.byteLength - 1 && octets[start] === 0) start += 1;
  const value = octets.subarray(start);
  return tlv(0x02, ...(value[0]! & 0x80 ? [Uint8Array.of(0)] : []), value);
}

export const booleanTrue = (): Uint8Array => Uint8Array.of(0x01, 0x01, 0xff);

/** `[n]` EXPLICIT, or a constructed `[n]` IMPLICIT of a SET/SEQUENCE's contents. */
export const contextConstructed = (tagNumber: number, ...contents: Uint8Array[]): Uint8Array =>
  tlv(0xa0 | tagNumber, ...contents);

/** An OBJECT IDENTIFIER from its dotted form. */
export function objectIdentifier(dotted: string): Uint8Array {
  const [first, second, ...rest] = dotted.split('.').map(Number);
  const octets: number[] = [];
  for (const arc of [first! * 40 + second!, ...rest]) {
    const base128: number[] = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128))
      base128.unshift(0x80 | (value & 0x7f));
    octets.push(...base128);
  }
  return tlv(0x06, Uint8Array.from(octets));
}

export interface Element {
  tag: number;
  /** The whole element: tag, length and contents. */
  encoded: Uint8Array;
  contents: Uint8Array;
}

/** The element at `offset`; throws on anything but a definite length inside `der`. */
export function readElement(der: Uint8Array, offset = 0): Element {
  const tag = der[offset]!;
  let length = der[offset + 1]!;
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new Error('DER: indefinite or oversized length');
    length = 0;
    for (let index = 0; index < count; index += 1) length = length * 256 + der[offset + 2 + index]!;
    header += count;
  }
  const end = offset + header + length;
  if (end > der.byteLength) throw new Error('DER: element runs past its container');
  return { tag, encoded: der.subarray(offset, end), contents: der.subarray(offset + header, end) };
}

/** The elements a constructed element holds, in order. */
export function childrenOf(element: Element): Element[] {
  const children: Element[] = [];
  for (let offset = 0; offset < element.contents.byteLength;) {
    const child = readElement(element.contents, offset);
    children.push(child);
    offset += child.encoded.byteLength;
  }
  return children;
}
