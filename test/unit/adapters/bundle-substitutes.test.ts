import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { deflate, inflate } from '#shared/bundle-substitutes/pako.ts';
import { gte } from '#shared/bundle-substitutes/semver.ts';

describe('the semver stand-in', () => {
  it('compares plain versions as semver.gte does, Node’s v-prefixed ones too', () => {
    expect(gte('v24.21.0', '8.0.0')).toBe(true);
    expect(gte('8.0.0', '8.0.0')).toBe(true);
    expect(gte('2.1000.0', '2.1001.0')).toBe(false);
    expect(gte('10.0.0', '9.99.99')).toBe(true);
  });

  it('refuses what is not major.minor.patch instead of guessing', () => {
    expect(() => gte('latest', '1.0.0')).toThrow(/not a plain version/);
  });
});

/** pako itself, as pdf-lib loads it outside the bundles (it ships no types). */
const pako = createRequire(import.meta.url)('pako') as { deflate(data: Uint8Array): Uint8Array };

describe('the pako stand-in', () => {
  it('deflates byte for byte as pako does, and has no inflate', () => {
    const data = new TextEncoder().encode('BT /F1 12 Tf (report) Tj ET\n'.repeat(200));
    expect(Buffer.from(deflate(data)).equals(Buffer.from(pako.deflate(data)))).toBe(true);
    expect(() => inflate()).toThrow(/not part of this bundle/);
  });
});
