import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { organizationFromTagValue, organizationTagValue } from '#shared/adapters/ses/organization-tag.ts';

/** SES's rule for a message tag value (API reference, `MessageTag`). */
const SES_TAG_VALUE = /^[A-Za-z0-9_-]{1,256}$/;

/** Contract §2: 1-64 of `[A-Za-z0-9_.-]`, with `_` and `.` as likely as any letter. */
const organizationIds = fc.string({
  unit: fc.constantFrom(...'ABCXYZabcxyz0189_.-_._.'),
  minLength: 1,
  maxLength: 64,
});

describe('the organization id in the org_id message tag (contract §27)', () => {
  it('turns every organization id into a value SES takes and back into the same id', () => {
    fc.assert(
      fc.property(organizationIds, (orgId) => {
        const value = organizationTagValue(orgId);
        expect(value).toMatch(SES_TAG_VALUE);
        expect(organizationFromTagValue(value)).toBe(orgId);
      }),
      { seed: 2027, numRuns: 5_000 },
    );
  });

  it('gives two ids two values', () => {
    fc.assert(
      fc.property(organizationIds, organizationIds, (one, other) => {
        fc.pre(one !== other);
        expect(organizationTagValue(one)).not.toBe(organizationTagValue(other));
      }),
      { seed: 2027, numRuns: 5_000 },
    );
  });

  it('keeps an id readable: acme.eu is acme_-eu, an id without `_` or `.` is itself', () => {
    expect(organizationTagValue('acme.eu')).toBe('acme_-eu');
    expect(organizationTagValue('demo-org')).toBe('demo-org');
    expect(organizationTagValue('a_b.c')).toBe('a__b_-c');
    // The longest: 64 escapes in 128 characters, half SES's limit.
    expect(organizationTagValue('.'.repeat(64))).toHaveLength(128);
    expect(organizationFromTagValue('acme_-eu')).toBe('acme.eu');
  });

  it('reads a value written before the escaping (an e-mail sent before the deploy) as the id itself', () => {
    expect(organizationFromTagValue('acme')).toBe('acme');
    expect(organizationFromTagValue('acme_eu')).toBe('acme_eu');
    expect(organizationFromTagValue('_acme_')).toBe('_acme_');
  });

  it('names no organization for a value that is none', () => {
    expect(organizationFromTagValue('')).toBeUndefined();
    expect(organizationFromTagValue('a'.repeat(65))).toBeUndefined();
    expect(organizationFromTagValue('acme/eu')).toBeUndefined();
  });
});
