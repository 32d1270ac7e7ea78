import { readFile, readdir, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { dashboardContentSecurityPolicy, dashboardStaticHeaders } from '#lib/dashboard-security-headers.ts';
import { repoRoot } from '#lib/repo-root.ts';
import { ALL_SCOPES } from './dev-keys.ts';

/**
 * The dashboard on the local stack: `web/dist` at `/` of the API's base URL (same origin as
 * `/v1/*`, so no CORS), its configuration (`{ "signIn": "local", "scopes": [...] }`) and the development sign-in
 * `POST /local/dev-token` ({orgId, scopes} -> a token signed with the stack's development key).
 * That sign-in exists here only; the deployed dashboard signs in with OpenID Connect. It answers
 * only requests addressed to the router itself (`Host: 127.0.0.1:<port>` or `localhost:<port>`),
 * so a page that rebinds its own name to 127.0.0.1 (DNS rebinding) cannot mint tokens: its
 * requests still carry its own name.
 */
export const webRoot = join(repoRoot, 'web');
export const dashboardDistDir = join(webRoot, 'dist');

const ORG_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

export interface DashboardServerOptions {
  distDir?: string;
  /** The local S3 endpoint: the page fetches reports from their pre-signed addresses there. */
  s3Endpoint: string;
  issueToken(input: { orgId: string; scopes: readonly string[] }): Promise<string>;
}

export function createDashboardFrontDoor(options: DashboardServerOptions) {
  const distDir = resolve(options.distDir ?? dashboardDistDir);
  const securityHeaders = {
    'content-security-policy': dashboardContentSecurityPolicy({ connectSources: [new URL(options.s3Endpoint).origin] }),
    ...dashboardStaticHeaders,
  };

  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    if (path === '/local/dev-token') {
      if (!addressedToThisRouter(req)) {
        return send(res, 403, json({ message: 'the development sign-in answers at 127.0.0.1 or localhost only' }));
      }
      if (method !== 'POST') return send(res, 405, json({ message: 'use POST' }), { allow: 'POST' });
      return devToken(req, res, options);
    }
    if (method !== 'GET' && method !== 'HEAD') return false;
    if (path === '/dashboard-config.json')
      return send(res, 200, json({ signIn: 'local', scopes: ALL_SCOPES }), securityHeaders);
    if (path === '/' || path === '/index.html') {
      return sendFile(res, join(distDir, 'index.html'), method, { ...securityHeaders, 'cache-control': 'no-cache' });
    }
    if (path.startsWith('/assets/')) {
      const file = normalize(join(distDir, decodeURIComponent(path)));
      if (!file.startsWith(distDir + sep)) return false;
      return sendFile(res, file, method, {
        ...securityHeaders,
        'cache-control': 'public, max-age=31536000, immutable',
      });
    }
    return false;
  };
}

/**
 * Whether the Host header names the router by its own loopback address and port: `127.0.0.1:<port>`
 * or `localhost:<port>` (case-insensitive), the port being the one this connection arrived on (the
 * port may be left out only when it is 80, as browsers do). A missing Host, another name, another
 * port or anything appended is refused.
 */
export function addressedToThisRouter(req: IncomingMessage): boolean {
  const port = req.socket.localPort;
  const host = req.headers.host?.toLowerCase();
  if (port === undefined || host === undefined) return false;
  const names = ['127.0.0.1', 'localhost'];
  const allowed = names.map((name) => `${name}:${port}`);
  if (port === 80) allowed.push(...names);
  return allowed.includes(host);
}

async function devToken(req: IncomingMessage, res: ServerResponse, options: DashboardServerOptions): Promise<boolean> {
  // JSON only: another site's page cannot send that without a CORS preflight, which this route never grants.
  if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) {
    return send(res, 415, json({ message: 'send {"orgId": "...", "scopes": ["..."]} as application/json' }));
  }
  let input: { orgId?: unknown; scopes?: unknown };
  try {
    input = JSON.parse(await readText(req)) as typeof input;
  } catch {
    return send(res, 400, json({ message: 'the body must be JSON: {"orgId": "...", "scopes": ["..."]}' }));
  }
  if (typeof input.orgId !== 'string' || !ORG_ID.test(input.orgId)) {
    return send(res, 400, json({ message: 'orgId must be 1 to 64 characters of A-Z, a-z, 0-9, _, . and -' }));
  }
  const scopes = input.scopes ?? ALL_SCOPES;
  if (!Array.isArray(scopes) || !scopes.every((scope) => (ALL_SCOPES as readonly unknown[]).includes(scope))) {
    return send(res, 400, json({ message: `scopes must be a list of: ${ALL_SCOPES.join(', ')}` }));
  }
  const token = await options.issueToken({ orgId: input.orgId, scopes: scopes as string[] });
  return send(res, 200, json({ access_token: token, token_type: 'Bearer', expires_in: 3600 }), {
    'cache-control': 'no-store',
  });
}

function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolveText, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > 4096) req.destroy(new Error('body too large'));
    });
    req.on('end', () => resolveText(text));
    req.on('error', reject);
  });
}

const json = (body: unknown) => ({ body: JSON.stringify(body), type: 'application/json; charset=utf-8' });

function send(
  res: ServerResponse,
  status: number,
  content: { body: string | Buffer; type: string },
  headers: Record<string, string> = {},
): true {
  res.writeHead(status, { 'content-type': content.type, 'cache-control': 'no-store', ...headers });
  res.end(content.body);
  return true;
}

async function sendFile(
  res: ServerResponse,
  file: string,
  method: string,
  headers: Record<string, string>,
): Promise<boolean> {
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    if (file.endsWith('index.html')) {
      return send(res, 503, { body: 'The dashboard is not built: run `npm run build:web`.', type: 'text/plain' });
    }
    return false;
  }
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': body.length,
    ...headers,
  });
  res.end(method === 'HEAD' ? undefined : body);
  return true;
}

/** Newest modification time under `path` (files only), skipping `dist` and `node_modules`. */
async function newestChange(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = 0;
  for (const entry of await readdir(path)) {
    if (entry === 'dist' || entry === 'node_modules') continue;
    newest = Math.max(newest, await newestChange(join(path, entry)));
  }
  return newest;
}

/**
 * Builds the dashboard with Vite unless `web/dist` is newer than every source it is built from
 * (web/ and the typed client). Returns whether it built.
 */
export async function ensureDashboardBuilt(
  options: { force?: boolean; log?: (line: string) => void } = {},
): Promise<boolean> {
  const built = await stat(join(dashboardDistDir, 'index.html')).then(
    (info) => info.mtimeMs,
    () => 0,
  );
  const sources = Math.max(await newestChange(webRoot), await newestChange(join(repoRoot, 'client')));
  if (!options.force && built > sources) return false;
  options.log?.('Building the dashboard (web/ -> web/dist)...');
  const { build } = await import('vite');
  await build({ configFile: join(webRoot, 'vite.config.ts'), logLevel: 'warn' });
  return true;
}
