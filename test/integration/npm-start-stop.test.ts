import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#lib/repo-root.ts';

/** Pids of a process's children (Linux `ps`). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((child) => child > 0);
  } catch {
    return []; // ps exits 1 when there is none
  }
}

function descendantsOf(pid: number): number[] {
  return childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child)]);
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return condition();
}

describe('npm start', () => {
  // How Docker, systemd and CI stop a service: SIGTERM to the process they started, npm itself.
  it('stops the stack and every emulator (Java included) when npm gets SIGTERM', async () => {
    // Its own key folder: npm start writes (and on stop removes) the users database's address there.
    const keysDir = mkdtempSync(path.join(tmpdir(), 'npm-start-keys-'));
    const npm = spawn('npm', ['start'], {
      cwd: repoRoot,
      env: {
        ...process.env,
        LOCAL_KEYS_DIR: keysDir,
        LOCAL_POSTGRES_PORT: '0',
        PORT: '0',
        LOCAL_DYNAMODB_PORT: '0',
        LOCAL_SQS_PORT: '0',
        LOCAL_S3_PORT: '0',
        LOCAL_SES_PORT: '0',
        LOCAL_IDP_PORT: '0',
        REPORT_RATE_LIMIT: '25',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      expect(await waitUntil(() => output.includes('Local stack ready'), 90_000), output).toBe(true);
      const processes = descendantsOf(npm.pid!);
      const java = processes.filter((pid) =>
        execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' }).includes('java'),
      );
      expect(java).toHaveLength(1);
      // The banner names the router's real port (PORT=0: a free one) and the developer's rate limit.
      const exported = /export API_URL=http:\/\/127\.0\.0\.1:(\d+) API_TOKEN=\S+/.exec(output);
      expect(exported, output).not.toBeNull();
      expect(exported![1]).not.toBe('3000');
      expect(output).toContain('limited to 25 per 10 minutes');
      const postgres = processes.filter((pid) =>
        execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' }).includes('postgres'),
      );
      expect(postgres.length).toBeGreaterThan(0);

      process.kill(npm.pid!, 'SIGTERM');

      expect(await waitUntil(() => processes.every((pid) => !isRunning(pid)), 20_000), output).toBe(true);
      expect(output).toContain('stopped');
    } finally {
      rmSync(keysDir, { recursive: true, force: true });
      for (const pid of descendantsOf(npm.pid!)) process.kill(pid, 'SIGKILL');
      if (isRunning(npm.pid!)) npm.kill('SIGKILL');
    }
  }, 150_000);

  it('refuses a REPORT_RATE_LIMIT that is not a whole number from 1 to 1000 before starting anything', () => {
    const refused = spawnSync('npm', ['start'], {
      cwd: repoRoot,
      env: { ...process.env, REPORT_RATE_LIMIT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('REPORT_RATE_LIMIT must be a whole number from 1 to 1000');
    expect(refused.stdout).not.toContain('Starting the local stack');
  });
});
