import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueDevToken } from '#local/dev-keys.ts';
import { launchChromium } from './chromium.ts';

/**
 * The deployed dashboard's sign-in, end to end in Chromium: OpenID Connect authorization code with
 * PKCE against a stand-in identity provider on loopback (discovery, authorize, token endpoints).
 * The page gets the configuration AWS deploys (`signIn: "oidc"`); the provider checks the PKCE
 * verifier against the challenge and hands back an access token the local stack accepts.
 */
const baseUrl = inject('baseUrl');
const orgId = inject('demoOrgId');
const CLIENT_ID = 'onboarding-dashboard';

let browser: Browser;
let issuerServer: Server;
let issuer: string;
const seen: { challenge?: string; verifierMatched?: boolean; redirectUri?: string; scope?: string } = {};

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'idp-1', alg: 'ES256', use: 'sig' };
  const codes = new Map<string, { nonce: string; challenge: string }>();
  issuerServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/.well-known/openid-configuration') {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        id_token_signing_alg_values_supported: ['ES256'],
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname === '/jwks') return json(200, { keys: [jwk] });
    if (url.pathname === '/authorize') {
      // The person signs in here; the provider redirects back with a one-time code.
      const code = randomUUID();
      seen.challenge = url.searchParams.get('code_challenge') ?? undefined;
      seen.redirectUri = url.searchParams.get('redirect_uri') ?? undefined;
      seen.scope = url.searchParams.get('scope') ?? undefined;
      codes.set(code, { nonce: url.searchParams.get('nonce') ?? '', challenge: seen.challenge ?? '' });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        void (async () => {
          const form = new URLSearchParams(body);
          const grant = codes.get(form.get('code') ?? '');
          codes.delete(form.get('code') ?? '');
          const verifier = form.get('code_verifier') ?? '';
          seen.verifierMatched =
            grant !== undefined && createHash('sha256').update(verifier).digest('base64url') === grant.challenge;
          if (!grant || !seen.verifierMatched || form.get('client_id') !== CLIENT_ID) {
            return json(400, { error: 'invalid_grant' });
          }
          const now = Math.floor(Date.now() / 1000);
          const idToken = await new SignJWT({ nonce: grant.nonce })
            .setProtectedHeader({ alg: 'ES256', kid: 'idp-1' })
            .setIssuer(issuer)
            .setAudience(CLIENT_ID)
            .setSubject('staff-member-1')
            .setIssuedAt(now)
            .setExpirationTime(now + 300)
            .sign(privateKey);
          const accessToken = await issueDevToken({
            orgId,
            subject: 'staff-member-1',
            keysDir: inject('localEnv').LOCAL_KEYS_DIR,
          });
          return json(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3600, id_token: idToken });
        })();
      });
      return;
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  issuerServer?.close();
});

describe('OpenID Connect sign-in (as deployed in AWS)', () => {
  it('signs in with authorization code + PKCE, keeps no token in storage, and calls the API with the access token', async () => {
    // The local server's CSP names no identity provider; CloudFront's names the issuer (test/infra/dashboard.test.ts).
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    // The configuration AWS deploys.
    await page.route(`${baseUrl}/dashboard-config.json`, (route) =>
      route.fulfill({ json: { signIn: 'oidc', issuer, clientId: CLIENT_ID, scope: 'openid onboarding:read' } }),
    );
    await page.goto(`${baseUrl}/`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('signed-in-org').waitFor();

    expect(seen.verifierMatched).toBe(true);
    expect(seen.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(seen.redirectUri).toBe(`${baseUrl}/`);
    expect(seen.scope).toBe('openid onboarding:read');
    expect(page.url()).toBe(`${baseUrl}/`);
    expect(await page.getByTestId('signed-in-org').textContent()).toContain(orgId);
    // The PKCE verifier crossed the redirect in sessionStorage and is gone; the token never was there.
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([
      0,
      0,
      '',
    ]);
    // The tokens page lists through the API with the provider's access token.
    await page.getByRole('heading', { name: 'Issued tokens' }).waitFor();
    await page.locator('table tbody').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await context.close();
  });
});
