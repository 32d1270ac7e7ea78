import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueDevToken, LOCAL_AUDIENCE, machineClientSecret } from '#local/dev-keys.ts';
import { DASHBOARD_CLIENT_ID, startIdentityProvider } from '#local/identity-provider.ts';
import { requestMachineToken } from '#local/machine-token.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { MACHINE_CLIENT_SCOPES } from '#shared/domain/identity/machine-clients.ts';
import { callApi, uniqueOrg } from '#test/support/api-client.ts';

/**
 * The local OpenID Connect provider (docs/contract.md §14) as the API meets it: `npm run -s token`
 * gets a token from it by client credentials and the API accepts it (through the provider's JWKS
 * URL, as in AWS); a token of another issuer is refused; the signing keys in `idp-jwks.json`
 * survive a restart of the provider.
 */

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const env = () => inject('localEnv');

/** `npm run -s token -- <args>` against this tier's stack: its provider's port and key folder. */
function npmToken(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '-s', 'token', '--', ...args],
      {
        cwd: repoRoot,
        env: {
          ...process.env,
          LOCAL_IDP_PORT: new URL(env().JWT_ISSUER!).port,
          LOCAL_KEYS_DIR: env().LOCAL_KEYS_DIR,
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('npm run -s token and the local identity provider', () => {
  it('prints an access token of the provider (client credentials) that the API accepts, scopes and all', async () => {
    const orgId = uniqueOrg('idp');
    const run = await npmToken(['--org', orgId, '--scopes', 'onboarding:read', '--expires-in=600']);
    expect(run.code, run.stderr).toBe(0);
    const token = run.stdout.trim();
    expect(run.stdout).toBe(`${token}\n`);

    const claims = decodeJwt(token);
    expect(claims).toMatchObject({
      iss: env().JWT_ISSUER,
      aud: LOCAL_AUDIENCE,
      org_id: orgId,
      scope: 'onboarding:read',
      client_id: `machine.${orgId}`,
    });
    expect(claims.exp! - claims.iat!).toBe(600);
    // The API's key source is the provider's JWKS URL, not a copy of the keys.
    expect(env().JWKS_URL).toBe(`${env().JWT_ISSUER}/jwks`);
    expect(env().JWKS_JSON).toBeUndefined();

    const listed = await callApi('GET', '/v1/onboarding-tokens', { token });
    expect(listed.status).toBe(200);
    // The token carries only the scope asked for.
    const created = await callApi('POST', '/v1/onboarding-token', {
      token,
      body: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' },
    });
    expect(created.status).toBe(403);
  });

  it('gives every scope but users:erase by default and an expired token for a negative lifetime', async () => {
    const orgId = uniqueOrg('idp');
    const all = await npmToken(['--org', orgId]);
    expect(all.code, all.stderr).toBe(0);
    expect(String(decodeJwt(all.stdout.trim()).scope).split(' ')).toContain('webhooks:manage');
    expect((await callApi('GET', '/v1/webhooks', { token: all.stdout.trim() })).status).toBe(200);

    const expired = await npmToken(['--org', orgId, '--expires-in', '-120']);
    expect(expired.code, expired.stderr).toBe(0);
    expect((await callApi('GET', '/v1/onboarding-tokens', { token: expired.stdout.trim() })).status).toBe(401);
  });

  it('gives a machine client users:erase only when it asks for it', async () => {
    const orgId = uniqueOrg('idp');
    const byDefault = (await npmToken(['--org', orgId])).stdout.trim();
    expect(String(decodeJwt(byDefault).scope).split(' ')).not.toContain('users:erase');
    expect((await callApi('DELETE', '/v1/users/no-such-user', { token: byDefault })).status).toBe(403);
    const fromTheProvider = await requestMachineToken({
      issuer: env().JWT_ISSUER!,
      keysDir: env().LOCAL_KEYS_DIR,
      orgId,
    });
    expect(String(decodeJwt(fromTheProvider).scope).split(' ')).not.toContain('users:erase');

    const asked = await npmToken(['--org', orgId, '--scopes', 'users:read users:erase']);
    expect(asked.code, asked.stderr).toBe(0);
    expect(decodeJwt(asked.stdout.trim()).scope).toBe('users:read users:erase');
    // Past the scope check: an unknown user is a 404.
    expect((await callApi('DELETE', '/v1/users/no-such-user', { token: asked.stdout.trim() })).status).toBe(404);
  });

  it('refuses a usage error and an unknown scope without printing a token', async () => {
    const missingOrg = await npmToken([]);
    expect(missingOrg.code).toBe(2);
    expect(missingOrg.stdout).toBe('');
    const unknownScope = await npmToken(['--org', 'acme', '--scopes', 'everything']);
    expect(unknownScope.code).toBe(2);
    expect(unknownScope.stdout).toBe('');
    expect(unknownScope.stderr).toContain('unknown scope');
  });

  it('refuses a token of another issuer, even one signed with the same key', async () => {
    const orgId = uniqueOrg('idp');
    const sameKeyOtherIssuer = await issueDevToken({
      orgId,
      issuer: 'http://127.0.0.1:1',
      keysDir: env().LOCAL_KEYS_DIR,
    });
    expect((await callApi('GET', '/v1/onboarding-tokens', { token: sameKeyOtherIssuer })).status).toBe(401);

    // A second, unrelated provider: its own issuer and its own keys.
    const otherKeys = await mkdtemp(path.join(tmpdir(), 'other-idp-'));
    const other = await startIdentityProvider({ port: 0, keysDir: otherKeys, dashboardUrls: () => [] });
    try {
      const foreign = await requestMachineToken({ issuer: other.issuer, keysDir: otherKeys, orgId });
      expect(decodeJwt(foreign).org_id).toBe(orgId);
      expect((await callApi('GET', '/v1/onboarding-tokens', { token: foreign })).status).toBe(401);
      // The same organization's token from this stack's provider passes.
      const own = await requestMachineToken({ issuer: env().JWT_ISSUER!, keysDir: env().LOCAL_KEYS_DIR, orgId });
      expect((await callApi('GET', '/v1/onboarding-tokens', { token: own })).status).toBe(200);
    } finally {
      await other.stop();
      await rm(otherKeys, { recursive: true, force: true });
    }
  });
});

describe('sandbox credentials: npm run -s token -- --sandbox and the sandbox machine client', () => {
  /** A client credentials request as any OAuth client sends it, without machine-token.ts's help. */
  async function clientCredentials(clientId: string, keyOfTenant: string, scope: string) {
    const issuer = env().JWT_ISSUER!;
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
      token_endpoint: string;
    };
    const response = await fetch(discovery.token_endpoint, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: await machineClientSecret(keyOfTenant, { keysDir: env().LOCAL_KEYS_DIR }),
        scope,
      }),
    });
    return { status: response.status, body: (await response.json()) as { access_token?: string; error?: string } };
  }

  it('prints a token of the organization’s sandbox client: its machine scopes plus sandbox, accepted by the API', async () => {
    const orgId = uniqueOrg('idp-sbx');
    const run = await npmToken(['--org', orgId, '--sandbox']);
    expect(run.code, run.stderr).toBe(0);
    const token = run.stdout.trim();

    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ org_id: orgId, client_id: `machine.${orgId}~sandbox`, aud: LOCAL_AUDIENCE });
    expect(String(claims.scope).split(' ').sort()).toEqual([...MACHINE_CLIENT_SCOPES, 'sandbox'].sort());
    expect((await callApi('GET', '/v1/onboarding-tokens', { token })).status).toBe(200);

    const expired = await npmToken(['--org', orgId, '--sandbox', '--expires-in=-60']);
    expect(expired.code, expired.stderr).toBe(0);
    expect(decodeJwt(expired.stdout.trim())).toMatchObject({ client_id: `machine.${orgId}~sandbox` });
    expect(String(decodeJwt(expired.stdout.trim()).scope).split(' ')).toContain('sandbox');
  });

  it('adds sandbox to the scopes a sandbox token is asked with', async () => {
    const orgId = uniqueOrg('idp-sbx');
    const run = await npmToken(['--org', orgId, '--sandbox', '--scopes', 'onboarding:read']);
    expect(run.code, run.stderr).toBe(0);
    expect(decodeJwt(run.stdout.trim()).scope).toBe('onboarding:read sandbox');
  });

  it('grants sandbox to the sandbox client alone, and refuses the sandbox client a token without it', async () => {
    const orgId = uniqueOrg('idp-sbx');

    const live = await clientCredentials(`machine.${orgId}`, orgId, 'onboarding:read sandbox');
    expect(live.status).toBe(200);
    expect(decodeJwt(live.body.access_token!).scope).toBe('onboarding:read');

    const withoutSandbox = await clientCredentials(`machine.${orgId}~sandbox`, `${orgId}~sandbox`, 'onboarding:read');
    expect(withoutSandbox).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });

    // The live client's secret is not the sandbox client's.
    const wrongSecret = await clientCredentials(`machine.${orgId}~sandbox`, orgId, 'onboarding:read sandbox');
    expect(wrongSecret.status).toBe(401);
  });
});

describe('staff tokens of the local stack (any client but a machine.<org> one)', () => {
  const staffToken = (orgId: string, claims: Record<string, unknown>) =>
    issueDevToken({
      orgId,
      subject: 'staff-5f0c2a9e',
      issuer: env().JWT_ISSUER!,
      keysDir: env().LOCAL_KEYS_DIR,
      claims: { client_id: DASHBOARD_CLIENT_ID, ...claims },
    });

  it('hold no scope without a role claim: 403 on every scoped route, though they carry every scope', async () => {
    const orgId = uniqueOrg('idp-staff');
    const token = await staffToken(orgId, {});
    expect(String(decodeJwt(token).scope).split(' ')).toContain('onboarding:read');

    for (const [method, route] of [
      ['GET', '/v1/onboarding-tokens'],
      ['GET', '/v1/document/api'],
      ['GET', '/v1/webhooks'],
      ['GET', '/v1/audit-events'],
      ['DELETE', '/v1/users/no-such-user'],
    ] as const) {
      expect((await callApi(method, route, { token })).status, `${method} ${route}`).toBe(403);
    }
  });

  it('hold no scope from a client nobody named a machine client, nor with a role naming no role', async () => {
    const orgId = uniqueOrg('idp-staff');
    const unnamed = await staffToken(orgId, { client_id: 'registration-backend' });
    const noRole = await staffToken(orgId, { role: 'superuser' });

    expect((await callApi('GET', '/v1/onboarding-tokens', { token: unnamed })).status).toBe(403);
    expect((await callApi('GET', '/v1/onboarding-tokens', { token: noRole })).status).toBe(403);
  });

  it('hold their role’s scopes with one', async () => {
    const orgId = uniqueOrg('idp-staff');
    const viewer = await staffToken(orgId, { role: 'viewer' });

    expect((await callApi('GET', '/v1/onboarding-tokens', { token: viewer })).status).toBe(200);
    expect((await callApi('GET', '/v1/webhooks', { token: viewer })).status).toBe(403);
  });
});

describe('the provider’s signing keys', () => {
  let keysDir: string;
  beforeAll(async () => {
    keysDir = await mkdtemp(path.join(tmpdir(), 'idp-restart-'));
  });
  afterAll(async () => {
    await rm(keysDir, { recursive: true, force: true });
  });

  it('are a private JWK Set in idp-jwks.json that survives a restart (same kid, earlier tokens still verify)', async () => {
    const first = await startIdentityProvider({ port: 0, keysDir, dashboardUrls: () => [] });
    let token: string;
    let firstJwks: JSONWebKeySet;
    try {
      token = await requestMachineToken({ issuer: first.issuer, keysDir, orgId: 'acme' });
      firstJwks = (await (await fetch(first.jwksUrl)).json()) as JSONWebKeySet;
    } finally {
      await first.stop();
    }
    const file = JSON.parse(await readFile(path.join(keysDir, 'idp-jwks.json'), 'utf8')) as { keys: any[] };
    expect(file.keys.length).toBeGreaterThan(0);
    for (const key of file.keys) {
      expect(key).toMatchObject({ kid: expect.any(String), alg: expect.any(String) });
      expect(typeof key.d).toBe('string'); // private
    }
    const kid = decodeProtectedHeader(token).kid;
    expect(file.keys.map((key) => key.kid)).toContain(kid);
    // The JWKS endpoint publishes the public half only.
    expect(firstJwks.keys.every((key) => !('d' in key))).toBe(true);

    const second = await startIdentityProvider({ port: 0, keysDir, dashboardUrls: () => [] });
    try {
      const secondJwks = (await (await fetch(second.jwksUrl)).json()) as JSONWebKeySet;
      expect(secondJwks.keys.map((key) => key.kid)).toEqual(firstJwks.keys.map((key) => key.kid));
      expect(
        decodeProtectedHeader(await requestMachineToken({ issuer: second.issuer, keysDir, orgId: 'acme' })).kid,
      ).toBe(kid);
      // A token of the first run verifies with the second run's published keys.
      await expect(
        jwtVerify(token, createLocalJWKSet(secondJwks), { audience: LOCAL_AUDIENCE }),
      ).resolves.toBeDefined();
    } finally {
      await second.stop();
    }
  });
});
