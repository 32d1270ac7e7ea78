import { randomBytes } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fallbackRoute, apiRoutes } from '#shared/config/api-routes.ts';
import { allTables } from '#shared/config/table-definitions.ts';
import { DEFAULT_REPORT_RATE_LIMIT } from '#shared/config/report-rate-limit.ts';
import {
  issueDevToken,
  keysDirectory,
  LOCAL_AUDIENCE,
  LOCAL_ISSUER,
  publicJwks,
  type DevTokenOptions,
} from './dev-keys.ts';
import {
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  startEmulators,
  type EmulatorPorts,
  type RunningEmulators,
} from './emulators.ts';
import type { LocalUsersDatabase } from './users-postgres.ts';
import { createDashboardFrontDoor } from './dashboard.ts';
import { createHandlerLoader, type HandlerLoader } from './handler-modules.ts';
import { localPollers, type PollerFactory, type RunningPoller } from './pollers.ts';
import { createLocalResources, type LocalResources } from './resources.ts';
import { createLocalRouter } from './router.ts';

/**
 * The whole service on one machine: emulators, their resources, the handlers' environment, the
 * API router and the background pollers. One stack per process, because it owns process.env.
 */

export interface LocalStackOptions {
  /** Router port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Emulator ports; unset ones are free ports. */
  emulatorPorts?: EmulatorPorts;
  /** LOG_LEVEL WARN and no access log (tests); default INFO with one line per request. */
  quiet?: boolean;
  /** POWERTOOLS_DEV=true: pretty-printed handler logs (npm start). */
  prettyLogs?: boolean;
  /** Signing key directory; default LOCAL_KEYS_DIR, else `<repo>/.local`. */
  keysDir?: string;
  /** Report queue visibility timeout; default LOCAL_QUEUE_VISIBILITY_TIMEOUT_SECONDS, else AWS's (6 x the worker's timeout). */
  queueVisibilityTimeoutSeconds?: number;
  /**
   * Report requests per organization in any 10 minutes (the handlers' REPORT_RATE_LIMIT); default
   * the contract's 10, whatever this process's environment says (`npm start` passes the developer's).
   */
  reportRateLimit?: number;
  /** Background pollers; default `localPollers` (report worker, dead-letter handler, sweep). */
  pollers?: readonly PollerFactory[];
  /** Default: import each function's entry file on first use. */
  loadHandler?: HandlerLoader;
  /**
   * Serve the dashboard (already built, see ensureDashboardBuilt) at `/` of the base URL, with
   * the development sign-in `POST /local/dev-token`. Default: off.
   */
  dashboard?: boolean | { distDir: string };
}

export type LocalEndpoints = RunningEmulators['endpoints'];

export interface LocalStack {
  baseUrl: string;
  endpoints: LocalEndpoints;
  databaseProcessId: number;
  /** The users table's PostgreSQL: connection details (its superuser for writers such as the seed) and its process. */
  usersDatabase: LocalUsersDatabase;
  /** Exactly what was set in process.env for the handlers. */
  env: Readonly<Record<string, string>>;
  resources: LocalResources;
  /** Report requests per organization in any 10 minutes. */
  reportRateLimit: number;
  startupMs: number;
  /** A token signed with this stack's key (default org-independent options as in issueDevToken). */
  issueToken(options: Omit<DevTokenOptions, 'keysDir'>): Promise<string>;
  stop(): Promise<void>;
}

export class PortInUseError extends Error {
  override name = 'PortInUseError';
  constructor(
    readonly port: number,
    readonly purpose: string,
  ) {
    super(`port ${port} (${purpose}) is already in use`);
  }
}

const ROUTER_HOST = '127.0.0.1';

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const startedAt = Date.now();
  const quiet = options.quiet ?? false;
  const keysDir = keysDirectory(options);
  const emulatorPorts = options.emulatorPorts ?? {};
  await assertPortsFree([
    [options.port, 'API router'],
    [emulatorPorts.dynamodb, 'DynamoDB Local'],
    [emulatorPorts.sqs, 'SQS emulator'],
    [emulatorPorts.s3, 'S3 emulator'],
    [emulatorPorts.ses, 'SES emulator'],
    [emulatorPorts.postgres, 'PostgreSQL'],
  ]);

  const cleanups: Array<() => Promise<void>> = [];
  const stopAll = async (): Promise<void> => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((error: unknown) => console.error('[local-stack] stop failed:', error));
    }
  };
  try {
    const emulators = await startEmulators(emulatorPorts);
    cleanups.push(() => emulators.stop());
    const resources = await createLocalResources(emulators.endpoints, {
      queueVisibilityTimeoutSeconds: options.queueVisibilityTimeoutSeconds,
    });
    const reportRateLimit = options.reportRateLimit ?? DEFAULT_REPORT_RATE_LIMIT;
    const env = await handlerEnvironment({
      endpoints: emulators.endpoints,
      usersDatabase: emulators.usersDatabase,
      resources,
      keysDir,
      quiet,
      prettyLogs: options.prettyLogs ?? false,
      reportRateLimit,
    });
    cleanups.push(applyEnvironment(env, options.prettyLogs ? [] : ['POWERTOOLS_DEV']));

    const loadHandler = options.loadHandler ?? createHandlerLoader();
    const frontDoor = options.dashboard
      ? createDashboardFrontDoor({
          ...(typeof options.dashboard === 'object' ? { distDir: options.dashboard.distDir } : {}),
          s3Endpoint: emulators.endpoints.s3,
          issueToken: ({ orgId, scopes }) => issueDevToken({ orgId, scopes, keysDir }),
        })
      : undefined;
    const router = createLocalRouter({
      ...(frontDoor ? { frontDoor } : {}),
      routes: apiRoutes,
      fallback: fallbackRoute,
      loadHandler,
      ...(quiet
        ? {}
        : {
            onResponse: (r) =>
              console.log(
                `${r.method} ${r.path} -> ${r.statusCode} (${r.durationMs} ms, ${r.routeKey}, ${r.requestId})`,
              ),
          }),
    });
    const port = await listen(router, options.port ?? 0);
    cleanups.push(() => close(router));

    const pollers: RunningPoller[] = [];
    cleanups.push(async () => {
      await Promise.allSettled(pollers.splice(0).map((poller) => poller.stop()));
    });
    for (const startPoller of options.pollers ?? localPollers) {
      pollers.push(await startPoller({ env, endpoints: emulators.endpoints, resources, loadHandler, quiet }));
    }

    let stopping: Promise<void> | undefined;
    return {
      baseUrl: `http://${ROUTER_HOST}:${port}`,
      endpoints: emulators.endpoints,
      databaseProcessId: emulators.databaseProcessId,
      usersDatabase: emulators.usersDatabase,
      env,
      resources,
      reportRateLimit,
      startupMs: Date.now() - startedAt,
      issueToken: (tokenOptions) => issueDevToken({ ...tokenOptions, keysDir }),
      stop: () => (stopping ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

export interface EnvironmentInput {
  endpoints: LocalEndpoints;
  usersDatabase: Pick<LocalUsersDatabase, 'host' | 'port' | 'reader' | 'eraser'>;
  resources: LocalResources;
  keysDir: string;
  quiet: boolean;
  prettyLogs: boolean;
  reportRateLimit: number;
}

/** What the functions read in AWS (set by CDK there), pointed at the emulators. */
export async function handlerEnvironment({
  endpoints,
  usersDatabase,
  resources,
  keysDir,
  quiet,
  prettyLogs,
  reportRateLimit,
}: EnvironmentInput): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    // Service-specific endpoints, read by AWS SDK v3 itself: AWS_ENDPOINT_URL_<serviceId, upper-cased>.
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_SQS: endpoints.sqs,
    AWS_ENDPOINT_URL_S3: endpoints.s3,
    AWS_ENDPOINT_URL_SESV2: endpoints.ses,
    S3_FORCE_PATH_STYLE: 'true',
    // The functions log in as the reader role, as in AWS (where DSQL maps it to their IAM roles).
    USERS_DATABASE_HOST: usersDatabase.host,
    USERS_DATABASE_PORT: String(usersDatabase.port),
    USERS_DATABASE_USER: usersDatabase.reader.user,
    USERS_DATABASE_AUTH: 'password',
    USERS_DATABASE_PASSWORD: usersDatabase.reader.password,
    // The erasure alone reads these in their place (CDK gives it its own role in AWS).
    USERS_ERASER_DATABASE_USER: usersDatabase.eraser.user,
    USERS_ERASER_DATABASE_PASSWORD: usersDatabase.eraser.password,
    // One process serves every concurrent invocation here (one at a time per container in Lambda).
    USERS_DATABASE_MAX_CONNECTIONS: '4',
  };
  for (const table of allTables) {
    const tableName = resources.tables[table.envVar];
    if (!tableName) throw new Error(`table ${table.id} was not created`);
    env[table.envVar] = tableName;
  }
  Object.assign(env, {
    REPORT_QUEUE_URL: resources.reportQueue.url,
    REPORT_DLQ_URL: resources.reportDlq.url,
    REPORTS_BUCKET_NAME: resources.reportsBucketName,
    // Set by CDK from the reportRateLimit context value in AWS.
    REPORT_RATE_LIMIT: String(reportRateLimit),
    WEBHOOK_QUEUE_URL: resources.webhookQueue.url,
    WEBHOOK_DLQ_URL: resources.webhookDlq.url,
    // Set here alone: http and loopback receivers allowed, retries in seconds (CONTRACT.md §9).
    WEBHOOK_LOCAL_MODE: 'true',
    // KMS's stand-in: DynamoDB Local is in memory, so a key per run seals everything it holds.
    WEBHOOK_LOCAL_SECRET_KEY: randomBytes(32).toString('base64'),
    JWT_ISSUER: LOCAL_ISSUER,
    JWT_AUDIENCE: LOCAL_AUDIENCE,
    JWKS_JSON: JSON.stringify(await publicJwks({ keysDir })),
    ORG_CLAIM: 'org_id',
    ORG_NAME_CLAIM: 'org_name',
    SENDER_EMAIL: 'no-reply@onboarding.local',
    ONBOARDING_TEMPLATE_NAME: resources.emailTemplateName,
    POWERTOOLS_SERVICE_NAME: 'onboarding-api',
    LOG_LEVEL: quiet ? 'WARN' : 'INFO',
    ...(prettyLogs ? { POWERTOOLS_DEV: 'true' } : {}),
    // Not read by the handlers: lets a test process mint tokens with this stack's key.
    LOCAL_KEYS_DIR: keysDir,
  });
  return env;
}

/**
 * Sets the variables (and removes `unset`, plus anything that would make the SDK ignore the
 * endpoints); the returned function puts the previous values back.
 */
function applyEnvironment(env: Record<string, string>, unset: readonly string[]): () => Promise<void> {
  // Cleanups are awaited in order; restoring the environment is synchronous.
  const removed = [...unset, 'AWS_IGNORE_CONFIGURED_ENDPOINT_URLS'];
  const previous = new Map<string, string | undefined>();
  for (const name of [...Object.keys(env), ...removed]) previous.set(name, process.env[name]);
  for (const name of removed) delete process.env[name];
  Object.assign(process.env, env);
  return () => {
    for (const [name, value] of previous) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    return Promise.resolve();
  };
}

async function assertPortsFree(ports: ReadonlyArray<readonly [number | undefined, string]>): Promise<void> {
  for (const [port, purpose] of ports) {
    if (!port) continue;
    // No host: binds every address, so it collides with a listener on any of them.
    const free = await new Promise<boolean>((resolve) => {
      const probe = createNetServer();
      probe.once('error', () => resolve(false));
      probe.listen({ port, exclusive: true }, () => probe.close(() => resolve(true)));
    });
    if (!free) throw new PortInUseError(port, purpose);
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, 'API router') : error),
    );
    server.listen(port, ROUTER_HOST, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
