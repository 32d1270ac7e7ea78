import { readFile, readdir, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { dashboardContentSecurityPolicy, dashboardStaticHeaders } from '#lib/dashboard-security-headers.ts';
import { repoRoot } from '#lib/repo-root.ts';

/**
 * The dashboard on the local stack: `web/dist` at `/` of the API's base URL (same origin as
 * `/v1/*`, so no CORS) and its configuration (`/dashboard-config.json`): OpenID Connect against
 * the local identity provider, the same code path as in AWS (local/identity-provider.ts).
 */
export const webRoot = join(repoRoot, 'web');
export const dashboardDistDir = join(webRoot, 'dist');

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
  /** The sign-in the page uses: the identity provider's issuer, the dashboard's client id and the scopes it asks for. */
  signIn: { issuer: string; clientId: string; scope: string };
}

export function createDashboardFrontDoor(options: DashboardServerOptions) {
  const distDir = resolve(options.distDir ?? dashboardDistDir);
  const securityHeaders = {
    // The page fetches the provider's discovery document and token endpoint itself.
    'content-security-policy': dashboardContentSecurityPolicy({
      connectSources: [new URL(options.s3Endpoint).origin, new URL(options.signIn.issuer).origin],
    }),
    ...dashboardStaticHeaders,
  };
  const config = json({ signIn: 'oidc', ...options.signIn });

  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'HEAD') return false;
    if (path === '/dashboard-config.json') return send(res, 200, config, securityHeaders);
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
