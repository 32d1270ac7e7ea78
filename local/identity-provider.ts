import { randomBytes, timingSafeEqual, createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors, type Adapter, type AdapterPayload, type KoaContextWithOIDC } from 'oidc-provider';
import { escapeHtml } from '#shared/adapters/html/escape-html.ts';
import { ORGANIZATION_ID } from '#shared/domain/identity/organization-claim.ts';
import { SANDBOX_ROLES } from '#shared/domain/identity/staff-roles.ts';
import { SANDBOX_SCOPE, tenantOfKey, type Tenant } from '#shared/domain/identity/tenant.ts';
import {
  ALL_SCOPES,
  issuerAt,
  LOCAL_AUDIENCE,
  loadOrCreateProviderKeys,
  MACHINE_CLIENT_PREFIX,
  machineClientSecret,
} from './dev-keys.ts';
import { DEMO_STAFF, staffDirectory, type StaffDirectory, type StaffedOrganization } from './demo-staff.ts';
import { REQUESTED_LIFETIME_HEADER } from './machine-token.ts';

/**
 * The local OpenID Connect provider (docs/contract.md §14): `oidc-provider`, a maintained, certified
 * implementation, in this process on 127.0.0.1. It signs with the key set in
 * `.local/idp-jwks.json` (dev-keys.ts), so tokens survive a restart of `npm start`; everything
 * else (sessions, grants, refresh tokens) lives in its in-memory adapter and ends with the process.
 *
 * Clients, looked up on demand rather than listed (there is one per organization):
 * - `onboarding-dashboard`: the dashboard, a public client (authorization code + PKCE, refresh
 *   tokens rotated on every use, bound to the provider session), redirecting to the dashboard's
 *   own address;
 * - `machine.<orgId>`: every organization's machine client (client credentials), its secret
 *   derived from the signing key (dev-keys.ts `machineClientSecret`). It gets the scopes it asks
 *   for in `scope` and no other (none when it names none): `users:erase` only when asked.
 *   The local stack names these clients machine clients (MACHINE_CLIENT_IDS); every other token,
 *   the dashboard's, is a staff member's and holds its role's scopes alone.
 * - `machine.<orgId>~sandbox`: the organization's sandbox machine client (docs/sandbox.md), the
 *   same but for the `sandbox` scope, which it must ask for: every token it gets speaks for the
 *   sandbox. No other machine client is ever granted it; the dashboard is when its sandbox switch
 *   asks, for a staff member whose role may use the sandbox (SANDBOX_ROLES).
 * Access tokens are JWTs for the API (resource indicator and audience `LOCAL_AUDIENCE`) with the
 * organization in `org_id` (and `org_name` for a known organization) and the granted `scope`.
 * Staff sign in on a small page of ours (`/interaction/<uid>`) that checks the demo passwords;
 * oidc-provider's own development pages are switched off.
 */
export const DASHBOARD_CLIENT_ID = 'onboarding-dashboard';
/** What the dashboard asks for; each person's grant keeps their own scopes of these. */
export const DASHBOARD_SCOPE = ['openid', ...ALL_SCOPES].join(' ');

const DEFAULT_STAFF_TOKEN_SECONDS = 15 * 60;
const DEFAULT_MACHINE_TOKEN_SECONDS = 60 * 60;
const MAX_MACHINE_TOKEN_SECONDS = 24 * 60 * 60;
const SESSION_SECONDS = 12 * 60 * 60;
const HOST = '127.0.0.1';

export interface IdentityProviderOptions {
  /** Port on 127.0.0.1; 0 picks a free one. */
  port: number;
  keysDir: string;
  /** The dashboard's addresses (its redirect and post-logout URIs), read when the dashboard client is looked up. */
  dashboardUrls: () => readonly string[];
  /** Lifetime of a staff member's access token; default 15 minutes (the dashboard renews it). */
  staffAccessTokenSeconds?: number;
  /** Organizations whose staff sign in besides the demo organization's (the browser tier's own). */
  organizations?: readonly StaffedOrganization[];
}

export interface RunningIdentityProvider {
  issuer: string;
  jwksUrl: string;
  stop(): Promise<void>;
}

export async function startIdentityProvider(options: IdentityProviderOptions): Promise<RunningIdentityProvider> {
  // Listen first: the issuer is the address, and the provider is built for its issuer.
  const server = createServer();
  const port = await listen(server, options.port);
  const issuer = issuerAt(port);
  const accounts = staffDirectory(options.organizations);
  const provider = await createProvider(issuer, options, accounts);
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path.startsWith('/interaction/')) {
      interaction(provider, accounts, req, res, path).catch((error: unknown) => {
        console.error('[identity-provider] sign-in page failed:', error);
        if (!res.headersSent)
          page(
            res,
            500,
            'Sign-in failed',
            '<p role="alert">The sign-in could not be completed; start again from the dashboard.</p>',
          );
      });
      return;
    }
    void callback(req, res);
  });
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    stop: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function createProvider(
  issuer: string,
  options: IdentityProviderOptions,
  accounts: StaffDirectory,
): Promise<Provider> {
  const staffTokenSeconds = options.staffAccessTokenSeconds ?? DEFAULT_STAFF_TOKEN_SECONDS;
  const clients = clientAdapter(options);
  // The package's own in-memory store for sessions, grants and tokens; not among its typed exports.
  const memoryAdapterModule: string = 'oidc-provider/lib/adapters/memory_adapter.js';
  const { createMemoryAdapter } = (await import(memoryAdapterModule)) as {
    createMemoryAdapter: () => (model: string) => Adapter;
  };
  const memory = createMemoryAdapter();

  const provider = new Provider(issuer, {
    adapter: (model: string) => (model === 'Client' ? clients : memory(model)),
    jwks: await loadOrCreateProviderKeys({ keysDir: options.keysDir }),
    // Signs the provider's cookies; sessions end with the process anyway.
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    clientDefaults: { id_token_signed_response_alg: 'ES256' },
    extraClientMetadata: { properties: ['org_id', 'mode'] },
    claims: { openid: ['sub'], email: ['email'] },
    findAccount: (_ctx, sub) => {
      const staff = accounts.byId(sub);
      return staff && { accountId: staff.id, claims: () => ({ sub: staff.id, email: staff.email }) };
    },
    extraTokenClaims: (ctx, token) => {
      const staff = 'accountId' in token && token.accountId ? accounts.byId(token.accountId) : undefined;
      const orgId = staff ? staff.orgId : ctx.oidc.client?.['org_id'];
      if (typeof orgId !== 'string') return undefined;
      const orgName = accounts.organizationName(orgId);
      // Staff tokens name the role (the API keeps only its scopes, none without it); machine clients' carry none.
      return { org_id: orgId, ...(orgName ? { org_name: orgName } : {}), ...(staff ? { role: staff.role } : {}) };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    // The dashboard calls the token endpoint from its own origin: allowed for a public client's redirect origins.
    clientBasedCORS: (_ctx, origin, client) =>
      client.clientAuthMethod === 'none' && client.redirectUris!.some((uri) => new URL(uri).origin === origin),
    // Refresh tokens for the dashboard (a public client): rotated on every use (the package's
    // default for public clients) and, without offline_access, ending with the provider session.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => LOCAL_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, indicator, client) => {
          if (indicator !== LOCAL_AUDIENCE) throw new errors.InvalidTarget();
          const sandbox = client['mode'] === 'sandbox';
          if (sandbox && !requestedScopes(ctx).includes(SANDBOX_SCOPE)) {
            throw new errors.InvalidScope(`a sandbox client's tokens hold the ${SANDBOX_SCOPE} scope`, SANDBOX_SCOPE);
          }
          // The dashboard may ask for `sandbox` (its sandbox switch); the staff member's grant decides.
          const offersSandbox = sandbox || client.clientId === DASHBOARD_CLIENT_ID;
          return {
            scope: [...ALL_SCOPES, ...(offersSandbox ? [SANDBOX_SCOPE] : [])].join(' '),
            audience: LOCAL_AUDIENCE,
            accessTokenFormat: 'jwt',
            accessTokenTTL: staffTokenSeconds,
            jwt: { sign: { alg: 'ES256' } },
          };
        },
      },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
    },
    ttl: {
      AccessToken: (_ctx, token) => token.resourceServer?.accessTokenTTL ?? staffTokenSeconds,
      ClientCredentials: (ctx) => requestedLifetime(ctx),
      AuthorizationCode: 60,
      IdToken: 60 * 60,
      Interaction: 60 * 60,
      Session: SESSION_SECONDS,
      Grant: SESSION_SECONDS,
      RefreshToken: (ctx, _token, client) =>
        ctx?.oidc.entities.RotatedRefreshToken && client.clientAuthMethod === 'none'
          ? ctx.oidc.entities.RotatedRefreshToken.remainingTTL
          : SESSION_SECONDS,
    },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = document(
        'Sign-in error',
        `<h1>Sign-in error</h1>${Object.entries(out)
          .map(([name, value]) => `<p><strong>${escapeHtml(name)}</strong>: ${escapeHtml(String(value))}</p>`)
          .join('')}`,
      );
    },
  });
  return provider;
}

function requestedScopes(ctx: KoaContextWithOIDC): string[] {
  const scope = ctx.oidc.params?.['scope'];
  return typeof scope === 'string' ? scope.split(' ') : [];
}

/** `local-token-lifetime: <s>` on a client credentials request, within 1 s to 24 h; else one hour. */
function requestedLifetime(ctx: KoaContextWithOIDC | undefined): number {
  const requested = Number(ctx?.get(REQUESTED_LIFETIME_HEADER));
  return Number.isInteger(requested) && requested > 0
    ? Math.min(requested, MAX_MACHINE_TOKEN_SECONDS)
    : DEFAULT_MACHINE_TOKEN_SECONDS;
}

/** The dashboard and two machine clients per organization (live, sandbox), described when the provider asks for them. */
function clientAdapter(options: IdentityProviderOptions): Adapter {
  const readOnly = () => Promise.reject(new Error('the local provider registers no clients'));
  return {
    async find(id: string): Promise<AdapterPayload | undefined> {
      if (id === DASHBOARD_CLIENT_ID) {
        const urls = [...options.dashboardUrls()];
        return {
          client_id: DASHBOARD_CLIENT_ID,
          client_name: 'Organization dashboard',
          application_type: 'web',
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          redirect_uris: urls,
          post_logout_redirect_uris: urls,
        };
      }
      const keyOfTenant = id.startsWith(MACHINE_CLIENT_PREFIX) ? id.slice(MACHINE_CLIENT_PREFIX.length) : '';
      const tenant: Tenant = tenantOfKey(keyOfTenant);
      if (!ORGANIZATION_ID.test(tenant.orgId)) return undefined;
      return {
        client_id: id,
        client_secret: await machineClientSecret(keyOfTenant, { keysDir: options.keysDir }),
        org_id: tenant.orgId,
        mode: tenant.mode,
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_post',
      };
    },
    upsert: readOnly,
    findByUserCode: () => Promise.resolve(undefined),
    findByUid: () => Promise.resolve(undefined),
    consume: readOnly,
    destroy: readOnly,
    revokeByGrantId: readOnly,
  };
}

/** The sign-in page (`GET /interaction/<uid>`), its form (`POST .../login`), and consent given for the staff member's own scopes. */
async function interaction(
  provider: Provider,
  accounts: StaffDirectory,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const { uid, prompt, params } = details;
  if (path === `/interaction/${uid}` && req.method === 'GET') {
    if (prompt.name === 'login') return loginPage(res, uid, 200);
    if (prompt.name === 'consent') {
      const staff = details.session?.accountId ? accounts.byId(details.session.accountId) : undefined;
      if (!staff) return loginPage(res, uid, 200);
      const grant = details.grantId
        ? ((await provider.Grant.find(details.grantId)) ??
          new provider.Grant({ accountId: staff.id, clientId: String(params.client_id) }))
        : new provider.Grant({ accountId: staff.id, clientId: String(params.client_id) });
      const missing = prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        // A scope the person does not hold is refused, not left pending (which would ask again).
        const holds = new Set([...staff.scopes, ...(SANDBOX_ROLES.includes(staff.role) ? [SANDBOX_SCOPE] : [])]);
        grant.addResourceScope(indicator, scopes.filter((scope) => holds.has(scope)).join(' '));
        grant.rejectResourceScope(indicator, scopes.filter((scope) => !holds.has(scope)).join(' '));
      }
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
      return;
    }
    return page(res, 400, 'Sign-in error', `<p role="alert">Unexpected step ${escapeHtml(prompt.name)}.</p>`);
  }
  if (path === `/interaction/${uid}/login` && req.method === 'POST' && prompt.name === 'login') {
    const form = new URLSearchParams(await readForm(req));
    const staff = accounts.byEmail(form.get('email') ?? '');
    if (!staff || !samePassword(form.get('password') ?? '', staff.password)) {
      return loginPage(res, uid, 401, 'The e-mail address or the password is wrong.');
    }
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: staff.id } },
      { mergeWithLastSubmission: false },
    );
    return;
  }
  page(res, 404, 'Not found', '<p role="alert">No such sign-in step.</p>');
}

function samePassword(given: string, expected: string): boolean {
  // Equal-length digests, so the comparison takes the same time whatever was typed.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function loginPage(res: ServerResponse, uid: string, status: number, error?: string): void {
  const accounts = DEMO_STAFF.map(
    (staff) =>
      `<code>${escapeHtml(staff.email)}</code> / <code>${escapeHtml(staff.password)}</code> (${escapeHtml(staff.role)})`,
  ).join(', ');
  page(
    res,
    status,
    'Sign in',
    `<h1>Sign in</h1>
    <p>Local identity provider of the onboarding service.</p>
    ${error ? `<p role="alert" class="error">${escapeHtml(error)}</p>` : ''}
    <form method="post" action="/interaction/${escapeHtml(uid)}/login" autocomplete="off">
      <label for="email">E-mail address</label>
      <input id="email" name="email" type="email" required autofocus>
      <label for="password">Password</label>
      <input id="password" name="password" type="password" required>
      <button type="submit">Sign in</button>
    </form>
    <p class="hint">Demo staff of demo-org: ${accounts}.</p>`,
  );
}

function logoutSource(ctx: KoaContextWithOIDC, form: string): void {
  // A request carrying the dashboard's ID token (it passed validation to get here) is the dashboard's
  // own Sign out: confirm it at once. Without one, the person chooses.
  const fromDashboard = Boolean(ctx.oidc.params?.id_token_hint);
  ctx.type = 'html';
  ctx.body = document(
    'Sign out',
    `<h1>Sign out</h1>
    <p>Sign out of the local identity provider?</p>
    ${form}
    <button id="confirm-sign-out" type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Sign out</button>
    <button type="submit" form="op.logoutForm">Stay signed in</button>
    ${fromDashboard ? '<script>document.getElementById("confirm-sign-out").click()</script>' : ''}`,
  );
}

function postLogoutSuccessSource(ctx: KoaContextWithOIDC): void {
  ctx.type = 'html';
  ctx.body = document('Signed out', '<h1>Signed out</h1><p>You have signed out of the local identity provider.</p>');
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // No form-action: Chromium applies it to the redirects after the form too, which end at the client's redirect URI.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  });
  res.end(document(title, body));
}

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:24rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
label,input,button{display:block;width:100%;box-sizing:border-box}input{margin:.25rem 0 1rem;padding:.5rem}
button{padding:.6rem;margin-top:.5rem;cursor:pointer}.error{color:#a00}.hint{color:#555;font-size:.9em}
</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

function readForm(req: IncomingMessage): Promise<string> {
  return new Promise((resolveText, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > 4096) req.destroy(new Error('form too large'));
    });
    req.on('end', () => resolveText(text));
    req.on('error', reject);
  });
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, HOST, () => resolve((server.address() as AddressInfo).port));
  });
}
