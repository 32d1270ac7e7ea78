import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';
import { tokenFor, uniqueOrg } from '#test/support/api-client.ts';
import { seedOrganization } from '#test/support/report-support.ts';

interface Run {
  code: number;
  lines: string[];
}

/** `npm run smoke -- ...` as an operator runs it: tsx on scripts/smoke.ts, the exit status and its lines. */
function smoke(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'scripts', 'smoke.ts'), ...args],
      { cwd: repoRoot, env: { PATH: process.env.PATH ?? '' }, timeout: 120_000 },
      (error, stdout) =>
        resolve({
          code: error ? Number(error.code ?? 1) : 0,
          lines: stdout.split('\n').filter((line) => line !== ''),
        }),
    );
  });
}

/** The local stack behind a proxy that answers 500 for one route: a stage with one broken function. */
async function withBrokenRoute(method: string, pathname: string): Promise<{ url: string; server: Server }> {
  const target = inject('baseUrl');
  const server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', target);
      if (request.method === method && url.pathname === pathname) {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ code: 500, error: 'INTERNAL_SERVER_ERROR', message: 'broken on purpose' }));
        return;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)),
      ) as Record<string, string>;
      const answer = await fetch(url, {
        method: request.method,
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      const body = Buffer.from(await answer.arrayBuffer());
      const answerHeaders: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (name !== 'content-encoding' && name !== 'content-length') answerHeaders[name] = value;
      });
      response.writeHead(answer.status, answerHeaders);
      response.end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

let orgId: string;
let token: string;

beforeAll(async () => {
  orgId = uniqueOrg('smoke');
  await seedOrganization(orgId, 2);
  token = await tokenFor(orgId);
});

describe('npm run smoke (contract §24) against the local stack', () => {
  it('passes every check, one line each: the read routes, a token created, redeemed and revoked, a verified report', async () => {
    const run = await smoke(['--api-url', inject('baseUrl'), '--token', token]);

    expect(
      run.lines.filter((line) => !line.startsWith('ok ')),
      run.lines.join('\n'),
    ).toEqual([expect.stringMatching(/^smoke: \d+ passed, 0 failed$/)]);
    expect(run.code).toBe(0);
    const checks = run.lines.slice(0, -1).map((line) => line.replace(/^ok +/, '').replace(/ \(\d+ ms\)$/, ''));
    expect(checks).toEqual(
      expect.arrayContaining([
        'GET /v1/onboarding-tokens',
        'GET /v1/openapi.json',
        'GET /v1/document/api',
        'POST /v1/user-status',
        'GET /v1/webhooks',
        'GET /v1/report-signing-certificates',
        'GET /v1/audit-events',
        'POST /v1/onboarding-token/redeem',
        'DELETE /v1/onboarding-tokens/{tokenId}',
        'POST /v1/document/api',
        'GET /v1/document/api/{id} until COMPLETE',
        'GET /v1/document/api/{id}/url and the PDF (size, SHA-256)',
        'report signature against GET /v1/report-signing-certificates',
      ]),
    );
  });

  it('fails, naming the check, when one route of the stage is broken', async () => {
    const broken = await withBrokenRoute('GET', '/v1/document/api');
    try {
      const run = await smoke(['--api-url', broken.url, '--token', token]);

      expect(run.code).toBe(1);
      expect(run.lines.filter((line) => line.startsWith('FAIL'))).toEqual([
        expect.stringMatching(/^FAIL {2}GET \/v1\/document\/api: 500 /),
      ]);
      expect(run.lines.at(-1)).toMatch(/^smoke: \d+ passed, 1 failed$/);
    } finally {
      broken.server.close();
    }
  });

  it('stops with one line saying why on an expired token, and on an address that answers nothing', async () => {
    const expired = await smoke([
      '--api-url',
      inject('baseUrl'),
      '--token',
      await tokenFor(orgId, { expiresInSeconds: -60 }),
    ]);
    expect(expired).toEqual({
      code: 1,
      lines: [expect.stringMatching(/^smoke: stopped: the token was refused \(401\)/)],
    });

    // A port nothing listens on any more.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await smoke(['--api-url', `http://127.0.0.1:${port}`, '--token', token]);
    expect(unreachable).toEqual({
      code: 1,
      lines: [
        expect.stringMatching(new RegExp(`^smoke: stopped: cannot reach http://127\\.0\\.0\\.1:${port}: ECONNREFUSED`)),
      ],
    });
  });
});
