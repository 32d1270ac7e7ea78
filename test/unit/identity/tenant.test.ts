import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tenantKey, tenantOfKey, type Tenant } from '#shared/domain/identity/tenant.ts';

const organizationId = fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/);
const tenant = fc.record({ orgId: organizationId, mode: fc.constantFrom('live' as const, 'sandbox' as const) });

describe('tenant keys', () => {
  it('keep a live organization’s key its id, so data written before the sandbox stays where it is', () => {
    expect(tenantKey({ orgId: 'acme.eu', mode: 'live' })).toBe('acme.eu');
    expect(tenantKey({ orgId: 'acme.eu', mode: 'sandbox' })).toBe('acme.eu~sandbox');
  });

  it('read every key back as the tenant that wrote it', () => {
    fc.assert(
      fc.property(tenant, (t) => {
        expect(tenantOfKey(tenantKey(t))).toEqual(t);
      }),
      { seed: 23 },
    );
  });

  it('never give two tenants the same key', () => {
    fc.assert(
      fc.property(tenant, tenant, (a: Tenant, b: Tenant) => {
        fc.pre(a.orgId !== b.orgId || a.mode !== b.mode);
        expect(tenantKey(a)).not.toBe(tenantKey(b));
      }),
      { seed: 23 },
    );
  });
});
