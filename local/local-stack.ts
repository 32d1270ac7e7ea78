import { randomBytes } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fallbackRoute, apiRoutes } from '#shared/config/api-routes.ts';
import { allTables } from '#shared/config/table-definitions.ts';
import { DEFAULT_REPORT_RATE_LIMIT } from '#shared/config/limits/report-rate-limit.ts';
import { DEFAULT_REQUEST_BUDGET, type RequestBudgetPolicy } from '#shared/domain/limits/request-budget.ts';
import { DEFAULT_CONCURRENCY, type ConcurrencyPolicy } from '#shared/domain/limits/concurrency.ts';
import {
  issueDevToken,
  keysDirectory,
  LOCAL_AUDIENCE,
  MACHINE_CLIENT_PREFIX,
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
import type { StaffedOrganization } from './demo-staff.ts';
import { createDashboardFrontDoor } from './dashboard.ts';
import { DASHBOARD_CLIENT_ID, DASHBOARD_SCOPE, startIdentityProvider } from './identity-provider.ts';
import { requestMachineToken } from './machine-token.ts';
import {
  ensureLocalReportSigningKey,
  publishLocalSigningCertificates,
  REPORT_SIGNING_KEY_FILE,
  SANDBOX_REPORT_SIGNING_KEY_FILE,
} from './report-signing-key.ts';
import { createHandlerLoader, type HandlerLoader } from './handler-modules.ts';
import { localPollers, type PollerFactory, type RunningPoller } from './pollers.ts';
import { createLocalResources, type LocalResources } from './resources.ts';
import { createLocalRouter } from './router.ts';
import { createFairInvocationSlots } from './fair-invocation-slots.ts';
import { checkFunctionEnvironments, isolateFunctionEnvironments } from './function-environments.ts';
import { DEFAULT_ORG_CLAIM } from '#shared/config/auth-config.ts';
import { createInboxViewer } from './inbox-viewer.ts';

type FrontDoor = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

/** The local inbox (/local/inbox) first, then the dashboard's pages when it is served. */
function withInbox(inbox: FrontDoor, dashboard: FrontDoor | undefined): FrontDoor {
  return async (req, res) => (await inbox(req, res)) || (dashboard ? dashboard(req, res) : false);
}

/**
 * The whole service on one machine: emulators, their resources, the handlers' environment, the
 * API router and the background pollers. One stack per process, because it owns process.env (each
 * function sees its own part of it, function-environments.ts).
 */

export interface LocalStackOptions {
  /** Router port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Emulator ports; unset ones are free ports. */
  emulatorPorts?: EmulatorPorts;
  /** The local identity provider's port on 127.0.0.1; 0 (default) picks a free one. */
  identityProviderPort?: number;
  /** Lifetime of a staff member's access token from the local provider; default 15 minutes. */
  staffAccessTokenSeconds?: number;
  /** Organizations whose staff sign in to the local provider besides the demo organization's (the browser tier's own). */
  staffedOrganizations?: readonly StaffedOrganization[];
  /** LOG_LEVEL WARN and no access log (tests); default INFO with one line per request. */
  quiet?: boolean;
  /** POWERTOOLS_DEV=true: pretty-printed handler logs (npm start). */
  prettyLogs?: boolean;
  /** The identity provider's key set (`idp-jwks.json`) directory; default LOCAL_KEYS_DIR, else `<repo>/.local`. */
  keysDir?: string;
  /** Report queue visibility timeout; default LOCAL_QUEUE_VISIBILITY_TIMEOUT_SECONDS, else AWS's (6 x the worker's timeout). */
  queueVisibilityTimeoutSeconds?: number;
  /**
   * Report requests per organization in any 10 minutes (the handlers' REPORT_RATE_LIMIT); default
   * the contract's 10, whatever this process's environment says (`npm start` passes the developer's).
   */
  reportRateLimit?: number;
  /**
   * Every organization's request budget (the handlers' REQUEST_BUDGET_RATE and _BURST); default
   * the contract's 50 per second, bursts of 100 (`npm start` passes the developer's).
   */
  requestBudget?: RequestBudgetPolicy;
  /**
   * Every organization's concurrency limit (the handlers' CONCURRENCY_PER_ORGANIZATION and
   * DATABASE_CONCURRENCY_PER_ORGANIZATION); default the contract's 20 and 4 (`npm start` passes the developer's).
   */
  concurrency?: ConcurrencyPolicy;
  /** Background pollers; default `localPollers` (report worker, dead-letter handler, sweep). */
  pollers?: readonly PollerFactory[];
  /** Default: import each function's entry file on first use. */
  loadHandler?: HandlerLoader;
  /**
   * Serve the dashboard (already built, see ensureDashboardBuilt) at `/` of the base URL, signing
   * in through the local identity provider. Default: off.
   */
  dashboard?: boolean | { distDir: string };
  /**
   * What the functions reach in place of the emulators (the fault tier's fault proxies): called
   * with the emulators' addresses before the functions' environment is made (`env` may also route
   * `JWKS_URL`, the identity provider's key endpoint). The endpoints,
   * database address and variables it returns go to the functions alone; the stack's own
   * clients (resources, pollers) keep talking to the emulators.
   */
  routeFunctions?: (direct: FunctionDependencies) => Promise<FunctionRoutes>;
}

export interface FunctionDependencies {
  endpoints: LocalEndpoints;
  usersDatabase: { host: string; port: number };
  /** The identity provider's key set directory (`idp-jwks.json`); the functions' `JWKS_URL` may be routed too. */
  keysDir: string;
}

export interface FunctionRoutes {
  endpoints?: Partial<LocalEndpoints>;
  usersDatabase?: { host: string; port: number };
  env?: Record<string, string>;
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
  /** The local OpenID Connect provider the API trusts (its JWKS URL is the handlers' `JWKS_URL`). */
  identityProvider: { issuer: string; jwksUrl: string; dashboardClientId: string };
  /**
   * A token crafted with the provider's signing key and issuer (options as in issueDevToken): for
   * tests and benchmarks that need many tokens, or ones the provider will not issue.
   */
  issueToken(options: Omit<DevTokenOptions, 'keysDir'>): Promise<string>;
  /** An access token from the provider itself: the organization's machine client, client credentials. */
  machineToken(options: { orgId: string; scope?: string; expiresInSeconds?: number }): Promise<string>;
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
/** The configuration set the functions send through locally: its events are counted per organization. */
const LOCAL_SES_CONFIGURATION_SET = 'onboarding-local';
/** Invocations of one function the router runs at once, and of those one organization's (see fair-invocation-slots.ts). */
const LOCAL_CONTAINERS_PER_FUNCTION = 15;
export const LOCAL_CONTAINERS_PER_ORGANIZATION = 10;
/** API Gateway never refuses a connection for want of accepting it; Node's default backlog of 511 does under a burst. */
const ROUTER_LISTEN_BACKLOG = 4096;

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const startedAt = Date.now();
  const quiet = options.quiet ?? false;
  const keysDir = keysDirectory(options);
  const emulatorPorts = options.emulatorPorts ?? {};
  await assertPortsFree([
    [options.port, 'API router'],
    [options.identityProviderPort, 'identity provider'],
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
    // The router's address is known once it listens; the provider reads it when the dashboard client is looked up.
    let dashboardUrls: readonly string[] = [];
    const identityProvider = await startIdentityProvider({
      port: options.identityProviderPort ?? 0,
      keysDir,
      dashboardUrls: () => dashboardUrls,
      ...(options.staffAccessTokenSeconds ? { staffAccessTokenSeconds: options.staffAccessTokenSeconds } : {}),
      ...(options.staffedOrganizations ? { organizations: options.staffedOrganizations } : {}),
    }).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'EADDRINUSE'
        ? new PortInUseError(options.identityProviderPort ?? 0, 'identity provider')
        : error;
    });
    cleanups.push(() => identityProvider.stop());
    const routes: FunctionRoutes = options.routeFunctions
      ? await options.routeFunctions({
          endpoints: emulators.endpoints,
          usersDatabase: { host: emulators.usersDatabase.host, port: emulators.usersDatabase.port },
          keysDir,
        })
      : {};
    for (const mode of ['live', 'sandbox'] as const) {
      await publishLocalSigningCertificates(
        await ensureLocalReportSigningKey(keysDir, new Date(), mode),
        { s3Endpoint: emulators.endpoints.s3, bucketName: resources.reportsBucketName },
        mode,
      );
    }
    const env = await handlerEnvironment({
      endpoints: { ...emulators.endpoints, ...routes.endpoints },
      usersDatabase: { ...emulators.usersDatabase, ...routes.usersDatabase },
      resources,
      keysDir,
      identityProvider,
      quiet,
      prettyLogs: options.prettyLogs ?? false,
      reportRateLimit,
      requestBudget: options.requestBudget ?? DEFAULT_REQUEST_BUDGET,
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
    });
    Object.assign(env, routes.env);
    cleanups.push(applyEnvironment(env, options.prettyLogs ? [] : ['POWERTOOLS_DEV']));

    // Each function sees the variables its needs declare, and nothing else the stack set.
    const functions = isolateFunctionEnvironments(env, options.loadHandler ?? createHandlerLoader());
    cleanups.push(functions.restore);
    const { loadHandler } = functions;
    const frontDoor = options.dashboard
      ? createDashboardFrontDoor({
          ...(typeof options.dashboard === 'object' ? { distDir: options.dashboard.distDir } : {}),
          s3Endpoint: emulators.endpoints.s3,
          signIn: { issuer: identityProvider.issuer, clientId: DASHBOARD_CLIENT_ID, scope: DASHBOARD_SCOPE },
        })
      : undefined;
    const router = createLocalRouter({
      frontDoor: withInbox(createInboxViewer({ sesEndpoint: emulators.endpoints.ses }), frontDoor),
      routes: apiRoutes,
      fallback: fallbackRoute,
      loadHandler,
      invocationSlots: {
        slots: createFairInvocationSlots({
          slotsPerFunction: LOCAL_CONTAINERS_PER_FUNCTION,
          slotsPerTenant: LOCAL_CONTAINERS_PER_ORGANIZATION,
        }),
        tenantClaim: env.ORG_CLAIM ?? DEFAULT_ORG_CLAIM,
      },
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
    dashboardUrls = [`http://${ROUTER_HOST}:${port}/`, `http://localhost:${port}/`];

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
      identityProvider: {
        issuer: identityProvider.issuer,
        jwksUrl: identityProvider.jwksUrl,
        dashboardClientId: DASHBOARD_CLIENT_ID,
      },
      issueToken: (tokenOptions) => issueDevToken({ issuer: identityProvider.issuer, ...tokenOptions, keysDir }),
      machineToken: ({ orgId, scope, expiresInSeconds }) =>
        requestMachineToken({ issuer: identityProvider.issuer, keysDir, orgId, scope, expiresInSeconds }),
      stop: () => (stopping ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

export interface EnvironmentInput {
  endpoints: LocalEndpoints;
  usersDatabase: Pick<LocalUsersDatabase, 'host' | 'port' | 'reader' | 'eraser' | 'sandboxWriter'>;
  resources: LocalResources;
  keysDir: string;
  /** The local identity provider the functions trust. */
  identityProvider: { issuer: string; jwksUrl: string };
  quiet: boolean;
  prettyLogs: boolean;
  reportRateLimit: number;
  requestBudget: RequestBudgetPolicy;
  concurrency: ConcurrencyPolicy;
}

/** What the functions read in AWS (set by CDK there), pointed at the emulators. */
export function handlerEnvironment({
  endpoints,
  usersDatabase,
  resources,
  keysDir,
  identityProvider,
  quiet,
  prettyLogs,
  reportRateLimit,
  requestBudget,
  concurrency,
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
    // And POST /v1/sandbox/users these (users_sandbox_writer).
    USERS_SANDBOX_WRITER_DATABASE_USER: usersDatabase.sandboxWriter.user,
    USERS_SANDBOX_WRITER_DATABASE_PASSWORD: usersDatabase.sandboxWriter.password,
    // One process serves every invocation here (one at a time per container in Lambda): one connection per simulated container.
    USERS_DATABASE_MAX_CONNECTIONS: String(LOCAL_CONTAINERS_PER_FUNCTION),
  };
  for (const table of allTables) {
    const tableName = resources.tables[table.envVar];
    if (!tableName) throw new Error(`table ${table.id} was not created`);
    env[table.envVar] = tableName;
  }
  // Queue URLs on the functions' SQS endpoint (the SDK sends each queue call to its URL's host).
  const queueUrl = (url: string): string => new URL(new URL(url).pathname, endpoints.sqs).href;
  Object.assign(env, {
    REPORT_QUEUE_URL: queueUrl(resources.reportQueue.url),
    REPORT_DLQ_URL: queueUrl(resources.reportDlq.url),
    REPORTS_BUCKET_NAME: resources.reportsBucketName,
    // Set by CDK from the reportRateLimit context value in AWS.
    REPORT_RATE_LIMIT: String(reportRateLimit),
    // Set by CDK from the requestBudgetRate and requestBudgetBurst context values in AWS.
    REQUEST_BUDGET_RATE: String(requestBudget.ratePerSecond),
    REQUEST_BUDGET_BURST: String(requestBudget.burst),
    // Set by CDK from the concurrencyPerOrganization and databaseConcurrencyPerOrganization context values in AWS.
    CONCURRENCY_PER_ORGANIZATION: String(concurrency.perOrganization),
    DATABASE_CONCURRENCY_PER_ORGANIZATION: String(concurrency.databasePerOrganization),
    WEBHOOK_QUEUE_URL: queueUrl(resources.webhookQueue.url),
    WEBHOOK_SLOW_QUEUE_URL: queueUrl(resources.webhookSlowQueue.url),
    WEBHOOK_DLQ_URL: queueUrl(resources.webhookDlq.url),
    SANDBOX_WIPE_QUEUE_URL: queueUrl(resources.sandboxWipeQueue.url),
    // Set here alone: http and loopback receivers allowed, retries in seconds (docs/contract.md §9).
    WEBHOOK_LOCAL_MODE: 'true',
    // KMS's stand-in: DynamoDB Local is in memory, so a key per run seals everything it holds.
    WEBHOOK_LOCAL_SECRET_KEY: randomBytes(32).toString('base64'),
    // The local provider, trusted as any issuer in AWS is: its keys fetched from its JWKS URL.
    JWT_ISSUER: identityProvider.issuer,
    JWT_AUDIENCE: LOCAL_AUDIENCE,
    JWKS_URL: identityProvider.jwksUrl,
    ORG_CLAIM: 'org_id',
    ORG_NAME_CLAIM: 'org_name',
    ROLE_CLAIM: 'role',
    // Every organization's machine client of the provider; any other token is a staff member's.
    MACHINE_CLIENT_IDS: `${MACHINE_CLIENT_PREFIX}*`,
    SENDER_EMAIL: 'no-reply@onboarding.local',
    ONBOARDING_TEMPLATE_NAME: resources.emailTemplateName,
    // The SES emulator publishes a configuration set's events (ses-mailbox-simulator.ts), as SES does.
    SES_CONFIGURATION_SET: LOCAL_SES_CONFIGURATION_SET,
    POWERTOOLS_SERVICE_NAME: 'onboarding-api',
    // The tracer is off outside Lambda; this also keeps the X-Ray SDK from installing its async
    // hook at import, which ran on every promise of the one process that hosts every function.
    AWS_XRAY_MANUAL_MODE: '1',
    LOG_LEVEL: quiet ? 'WARN' : 'INFO',
    ...(prettyLogs ? { POWERTOOLS_DEV: 'true' } : {}),
    // The worker's report signing key, created at start (report-signing-key.ts); a KMS key in AWS.
    REPORT_SIGNING_KEY_FILE: join(keysDir, REPORT_SIGNING_KEY_FILE),
    // The sandbox's, beside it (docs/sandbox.md "Sandbox reports"); a second KMS key in AWS.
    REPORT_SANDBOX_SIGNING_KEY_FILE: join(keysDir, SANDBOX_REPORT_SIGNING_KEY_FILE),
    // Not read by the handlers: lets a test process craft tokens with the provider's key (idp-jwks.json).
    LOCAL_KEYS_DIR: keysDir,
  });
  checkFunctionEnvironments(env);
  // A promise still, as before the key set came from a URL: callers await it.
  return Promise.resolve(env);
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
    server.listen(port, ROUTER_HOST, ROUTER_LISTEN_BACKLOG, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
