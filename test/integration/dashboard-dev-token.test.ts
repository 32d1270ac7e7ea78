import { request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDashboardFrontDoor } from '#local/dashboard.ts';
import { createLocalRouter } from '#local/router.ts';

/**
 * The development sign-in (`POST /local/dev-token`) behind the local router, as `npm start` serves
 * it: it mints tokens only for requests addressed to the router itself, so a page that rebinds its
 * own name to 127.0.0.1 (DNS rebinding) gets 403 (contract §15). The Host header is what such a
 * page cannot change: node:http sends any value here, a browser sends the page's own name.
 */

let server: Server;
let port: number;
let issued: Array<{ orgId: string; scopes: readonly string[] }> = [];

beforeAll(async () => {
  server = createLocalRouter({
    routes: [],
    fallback: { entry: 'fallback', name: 'RouteNotFound' },
    loadHandler: async () => async () => ({ statusCode: 404, body: '{"code":404}' }),
    frontDoor: createDashboardFrontDoor({
      s3Endpoint: 'http://127.0.0.1:1',
      issueToken: async (input) => {
        issued.push(input);
        return `token-for-${input.orgId}`;
      },
    }),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

beforeEach(() => {
  issued = [];
});

/** POSTs the sign-in with the given Host header (node:http, which, unlike fetch, lets a test set it). */
function signIn(host: string, method = 'POST'): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/local/dev-token',
        method,
        headers: { host, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(method === 'POST' ? JSON.stringify({ orgId: 'org-dev' }) : undefined);
  });
}

describe('POST /local/dev-token and the Host header', () => {
  it.each([() => `127.0.0.1:${port}`, () => `localhost:${port}`, () => `LocalHost:${port}`])(
    'mints a token for a request addressed to the router itself (%#)',
    async (host) => {
      const answer = await signIn(host());
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ access_token: 'token-for-org-dev', token_type: 'Bearer' });
      expect(issued).toEqual([expect.objectContaining({ orgId: 'org-dev' })]);
    },
  );

  it.each([
    ['a rebound name', () => `evil.example:${port}`],
    ['a rebound name without the port', () => 'evil.example'],
    ['a name ending like localhost', () => `evillocalhost:${port}`],
    ['a subdomain of localhost', () => `a.localhost:${port}`],
    ['a name that starts like the router', () => `127.0.0.1.evil.example:${port}`],
    ['another port', () => `127.0.0.1:${port === 65535 ? 65534 : port + 1}`],
    ['no port (the router is not on 80)', () => '127.0.0.1'],
    ['another loopback address', () => `127.0.0.2:${port}`],
    ['IPv6 loopback, where the router does not listen', () => `[::1]:${port}`],
    ['something appended', () => `localhost:${port}@evil.example`],
  ])('answers 403 to %s, and mints nothing', async (_case, host) => {
    const answer = await signIn(host());
    expect(answer.status).toBe(403);
    expect(answer.body.message).toMatch(/127\.0\.0\.1 or localhost/);
    expect(answer.body.access_token).toBeUndefined();
    expect(issued).toEqual([]);
  });

  it('answers 403 before anything else to another host, whatever the method', async () => {
    expect((await signIn(`evil.example:${port}`, 'GET')).status).toBe(403);
    expect((await signIn(`127.0.0.1:${port}`, 'GET')).status).toBe(405);
  });

  it('answers 403 to a request with no Host header at all (HTTP/1.0)', async () => {
    const head = await new Promise<string>((resolve, reject) => {
      const body = JSON.stringify({ orgId: 'org-dev' });
      const socket = connect(port, '127.0.0.1', () => {
        socket.end(
          `POST /local/dev-token HTTP/1.0\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
        );
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(head).toMatch(/^HTTP\/1\.[01] 403 /);
    expect(issued).toEqual([]);
  });

  it('leaves the rest of the front door as it was (the dashboard configuration for any host)', async () => {
    const answer = await new Promise<number>((resolve, reject) => {
      request(
        { host: '127.0.0.1', port, path: '/dashboard-config.json', headers: { host: `evil.example:${port}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(answer).toBe(200);
  });
});
