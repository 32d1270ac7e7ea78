import { describe, expect, it } from 'vitest';
import {
  isRole,
  ROLE_SCOPES,
  ROLES,
  SCOPES,
  scopesBeyondRoles,
  scopesOfRoleClaim,
  staffScopesOfRoleClaim,
} from '#shared/domain/identity/staff-roles.ts';

describe('staff roles (contract §20)', () => {
  it('gives each role the contract’s scopes', () => {
    expect(new Set(ROLE_SCOPES.admin)).toEqual(new Set(SCOPES));
    expect(new Set(ROLE_SCOPES.operator)).toEqual(
      new Set([
        'onboarding:write',
        'onboarding:read',
        'onboarding:redeem',
        'reports:write',
        'reports:read',
        'users:read',
        'webhooks:manage',
      ]),
    );
    expect(new Set(ROLE_SCOPES.auditor)).toEqual(
      new Set(['onboarding:read', 'reports:read', 'users:read', 'audit:read']),
    );
    expect(new Set(ROLE_SCOPES.viewer)).toEqual(new Set(['onboarding:read', 'reports:read', 'users:read']));
  });

  it('lets admin alone erase users', () => {
    expect(ROLES.filter((role) => ROLE_SCOPES[role].includes('users:erase'))).toEqual(['admin']);
  });

  it('knows the four role names and nothing else', () => {
    expect(ROLES.every(isRole)).toBe(true);
    expect([undefined, null, '', 'Admin', 'root', ['admin']].some(isRole)).toBe(false);
  });

  it('allows nothing for a claim naming no role', () => {
    for (const claim of [undefined, null, '', 'root', 42, [], ['root'], { admin: true }]) {
      expect(scopesOfRoleClaim(claim).size).toBe(0);
    }
  });

  it('lets every role ask for the sandbox, with its own scopes there and nothing more', () => {
    for (const role of ROLES) {
      expect(staffScopesOfRoleClaim(role)).toEqual(new Set([...ROLE_SCOPES[role], 'sandbox']));
    }
    expect(scopesBeyondRoles(['p/sandbox', 'p/users:erase', 'openid'], ['viewer'], 'p/')).toEqual(['p/users:erase']);
  });

  it('gives a claim naming no role neither the sandbox nor any scope', () => {
    for (const claim of [undefined, '', 'root', [], ['sandbox']]) {
      expect(staffScopesOfRoleClaim(claim).size).toBe(0);
      expect(scopesBeyondRoles(['p/sandbox'], Array.isArray(claim) ? claim : [], 'p/')).toEqual(['p/sandbox']);
    }
  });
});
