import { describe, expect, it } from 'vitest';
import { sessionFromToken } from '#web/src/session.ts';

const tokenWith = (claims: Record<string, unknown>): string =>
  ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'signature'].join('.');

describe('the dashboard’s session from an access token', () => {
  it('knows a resource server’s prefixed scopes by their own names (Cognito’s onboarding-api/users:read)', () => {
    const session = sessionFromToken(
      tokenWith({ org_id: 'acme', scope: 'openid onboarding-api/users:read onboarding-api/audit:read' }),
    );

    expect(session.scopes).toEqual(['openid', 'users:read', 'audit:read']);
  });

  it('reads an scp array as it is', () => {
    expect(sessionFromToken(tokenWith({ org_id: 'acme', scp: ['reports:read', 7] })).scopes).toEqual(['reports:read']);
  });

  it('is the sandbox’s when the token holds sandbox, prefixed or not, and live otherwise', () => {
    expect(sessionFromToken(tokenWith({ org_id: 'acme', scope: 'users:read sandbox' })).sandbox).toBe(true);
    expect(sessionFromToken(tokenWith({ org_id: 'acme', scope: 'onboarding-api/sandbox' })).sandbox).toBe(true);
    expect(sessionFromToken(tokenWith({ org_id: 'acme', scope: 'users:read sandboxes' })).sandbox).toBe(false);
  });
});
