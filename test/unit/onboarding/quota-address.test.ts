import { describe, expect, it } from 'vitest';
import { recipientQuotaKey } from '#shared/adapters/dynamodb/limits/email-quota.ts';
import { quotaAddress } from '#shared/domain/limits/email-quota.ts';

describe('the recipient the e-mail quotas count (contract §19)', () => {
  it.each([
    ['Ada@Example.com', 'ada@example.com'],
    ['  ada@example.com ', 'ada@example.com'],
    ['ada+1@example.com', 'ada@example.com'],
    ['ada+news+2@example.com', 'ada@example.com'],
    ['a.da@example.com', 'a.da@example.com'],
    ['A.Da+x@Gmail.com', 'ada@gmail.com'],
    ['a.d.a@googlemail.com', 'ada@gmail.com'],
    ['+tag@example.com', '+tag@example.com'],
    ['no-at-sign', 'no-at-sign'],
  ])('counts %s as %s', (given, counted) => {
    expect(quotaAddress(given)).toBe(counted);
  });

  it('gives plus and dot variants of one mailbox one quota item, and other mailboxes their own', () => {
    const key = recipientQuotaKey('victim@gmail.com');
    expect(recipientQuotaKey('victim+1@gmail.com')).toBe(key);
    expect(recipientQuotaKey('v.i.c.t.i.m@googlemail.com')).toBe(key);
    expect(recipientQuotaKey('victim2@gmail.com')).not.toBe(key);
    expect(recipientQuotaKey('v.ictim@example.com')).not.toBe(recipientQuotaKey('victim@example.com'));
  });
});
