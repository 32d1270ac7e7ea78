import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { expect, inject, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';
import { uniqueOrg } from '#test/support/api-client.ts';

/**
 * docs/testing-your-integration.md's three commands for the local stack, as written, in one bash
 * against this tier's stack (its own organization and a free port in place of demo-org and 4242),
 * so the page cannot go stale: they end with the example endpoint printing a verified
 * report.completed of sbx-sanctions from the sandbox, and the listener the endpoint's 204.
 */

const MARKER = '<!-- three-commands:local';

async function pageCommands(): Promise<string[]> {
  const page = await readFile(path.join(repoRoot, 'docs', 'testing-your-integration.md'), 'utf8');
  const block = /```bash\n([\s\S]*?)```/.exec(page.slice(page.indexOf(MARKER)))![1]!;
  return block.split('\n').filter((line) => line.trim() !== '');
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

it('runs the page’s three commands to a verified, signed report.completed for sbx-sanctions at a local endpoint', async () => {
  const commands = await pageCommands();
  expect(commands).toHaveLength(3);
  const orgId = uniqueOrg('three-commands');
  const port = String(await freePort());
  const [token, listen, report] = commands.map((command) =>
    command.replaceAll('demo-org', orgId).replaceAll('4242', port),
  ) as [string, string, string];

  const shell = spawn('bash', ['--noprofile', '--norc'], {
    cwd: repoRoot,
    detached: true,
    env: {
      // The Node this tier runs (the repository's), first: `npm`, `npx` and `node` use it.
      PATH: [path.dirname(process.execPath), path.join(repoRoot, 'node_modules', '.bin'), process.env.PATH].join(':'),
      HOME: process.env.HOME ?? '/tmp',
      API_URL: inject('baseUrl'),
      // Where `npm start` would run its identity provider and keep its keys: this tier's stack's.
      LOCAL_IDP_PORT: new URL(inject('localEnv').JWT_ISSUER!).port,
      LOCAL_KEYS_DIR: inject('localEnv').LOCAL_KEYS_DIR!,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  shell.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  shell.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const printed = (pattern: RegExp, ms: number) =>
    expect.poll(() => output, { timeout: ms, interval: 200, message: output }).toMatch(pattern);

  try {
    shell.stdin.write(`${token}\n${listen}\n`);
    await printed(/^Ready: forwarding/m, 30_000);
    shell.stdin.write(`${report}\n`);
    await printed(new RegExp(`^verified report\\.completed msg_\\S+ livemode=false sbx-sanctions$`, 'm'), 45_000);
    await printed(/ report\.completed msg_\S+ -> 204$/m, 5_000);
    await printed(/COMPLETE/, 15_000);
    expect(output).not.toMatch(/^rejected/m);
  } finally {
    process.kill(-shell.pid!, 'SIGTERM');
  }
}, 120_000);
