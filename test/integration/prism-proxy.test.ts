import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';
import { findFreePort } from '#local/free-port.ts';
import { tokenFor, uniqueOrg } from '#test/support/api-client.ts';

/**
 * openapi.json as a third-party tool reads it: Stoplight Prism in proxy mode with `--errors`
 * validates each request and each real response of the local stack against the document, and
 * answers with an error of its own when either breaks it.
 */

interface PrismProxy {
  url: string;
  stop(): Promise<void>;
}

async function startPrismProxy(upstream: string): Promise<PrismProxy> {
  const port = await findFreePort();
  const prism = path.join(repoRoot, 'node_modules', '.bin', 'prism');
  const child: ChildProcess = spawn(
    prism,
    ['proxy', 'openapi.json', upstream, '--errors', '--host', '127.0.0.1', '--port', String(port)],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/Prism is listening/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`prism exited with ${code}:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

describe('openapi.json in Stoplight Prism (proxy, --errors)', () => {
  let proxy: PrismProxy;
  let token: string;

  beforeAll(async () => {
    proxy = await startPrismProxy(inject('baseUrl'));
    token = await tokenFor(uniqueOrg('prism'));
  }, 90_000);

  afterAll(async () => {
    await proxy?.stop();
  });

  it('passes the local stack’s real responses through unchanged', async () => {
    const listed = await fetch(`${proxy.url}/v1/onboarding-tokens?limit=5`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(listed.status, await listed.clone().text()).toBe(200);
    expect(await listed.json()).toEqual({ results: [], nextCursor: null });

    const query = await fetch(`${proxy.url}/v1/user-status`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pagination: { limit: 1 } }),
    });
    expect(query.status, await query.clone().text()).toBe(200);

    const unauthorized = await fetch(`${proxy.url}/v1/onboarding-tokens`, { headers: { authorization: 'Bearer x' } });
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toMatchObject({ code: 401, error: 'UNAUTHORIZED' });
  });

  describe('in front of a server that breaks the document', () => {
    let liar: Server;
    let liarProxy: PrismProxy;

    beforeAll(async () => {
      // Answers the token list with a body the document does not allow.
      liar = createServer((_request, response) => {
        response.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'x-request-id': 'r-1',
          'cache-control': 'no-store',
        });
        response.end(JSON.stringify({ results: 'not a list' }));
      });
      await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', resolve));
      const address = liar.address() as { port: number };
      liarProxy = await startPrismProxy(`http://127.0.0.1:${address.port}`);
    }, 90_000);

    afterAll(async () => {
      await liarProxy?.stop();
      await new Promise((resolve) => liar?.close(resolve));
    });

    it('refuses the response, so validation is really on', async () => {
      const response = await fetch(`${liarProxy.url}/v1/onboarding-tokens`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(500);
      expect(await response.text()).toMatch(/VIOLATIONS|violation/i);
    });
  });
});
