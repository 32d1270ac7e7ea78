import { describe, expect, it } from 'vitest';
import { MACHINE_CLIENT_SCOPES, namedMachineClients } from '#shared/domain/identity/machine-clients.ts';
import { ROLE_SCOPES, SCOPES, scopesHeld } from '#shared/domain/identity/staff-roles.ts';

describe('machine clients', () => {
  it('are given every scope but users:erase unless they ask for it', () => {
    expect([...MACHINE_CLIENT_SCOPES].sort()).toEqual(SCOPES.filter((scope) => scope !== 'users:erase').sort());
  });

  it('are the clients named exactly, or by a prefix followed by *', () => {
    const isMachineClient = namedMachineClients(['svc-backend', 'machine.*']);

    expect(['svc-backend', 'machine.acme', 'machine.'].map(isMachineClient)).toEqual([true, true, true]);
    expect(
      ['svc-backend-2', 'svc', 'machine', 'xmachine.acme', 'onboarding-dashboard', ''].map(isMachineClient),
    ).toEqual([false, false, false, false, false, false]);
    expect(namedMachineClients([])('svc-backend')).toBe(false);
  });
});

describe('scopesHeld', () => {
  const granted = new Set<string>(SCOPES);

  it('keeps a machine client’s granted scopes', () => {
    expect(scopesHeld(new Set(['reports:read']), { kind: 'machine client' })).toEqual(new Set(['reports:read']));
  });

  it('gives a staff token without a role claim, or one naming no role, no scope', () => {
    for (const roleClaim of [undefined, null, '', 'root', []]) {
      expect(scopesHeld(granted, { kind: 'staff', roleClaim }).size).toBe(0);
    }
  });

  it('keeps the sandbox scope of a staff token whose role may use the sandbox, and of no other staff token', () => {
    const asked = new Set(['sandbox', 'reports:read', 'users:erase']);
    expect(scopesHeld(asked, { kind: 'staff', roleClaim: 'viewer' })).toEqual(new Set(['sandbox', 'reports:read']));
    expect(scopesHeld(asked, { kind: 'staff', roleClaim: undefined }).size).toBe(0);
  });

  it('gives a staff token its roles’ scopes among those granted, never more', () => {
    expect(scopesHeld(granted, { kind: 'staff', roleClaim: 'viewer' })).toEqual(new Set(ROLE_SCOPES.viewer));
    expect(scopesHeld(new Set(['reports:read', 'users:erase']), { kind: 'staff', roleClaim: 'operator' })).toEqual(
      new Set(['reports:read']),
    );
  });
});
