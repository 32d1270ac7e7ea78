import { ConfigurationError } from '#shared/config/load-config.ts';
import { reportRateLimitFrom } from '#shared/config/limits/report-rate-limit.ts';
import { requestBudgetPolicyFrom } from '#shared/config/limits/request-budget.ts';
import { concurrencyPolicyFrom } from '#shared/config/limits/concurrency.ts';
import { localStackBanner } from './banner.ts';
import { ensureDashboardBuilt } from './dashboard.ts';
import { PortInUseError, startLocalStack, type LocalStack } from './local-stack.ts';
import { seedDemoData, type SeededDemoData } from './seed-demo-data.ts';
import { writeUsersDatabaseFile } from './users-postgres.ts';
import { DEFAULT_IDP_PORT, keysDirectory } from './dev-keys.ts';

/** `npm start`: the whole service on this machine until Ctrl-C. */

const portVariables = {
  'API router': 'PORT',
  'DynamoDB Local': 'LOCAL_DYNAMODB_PORT',
  'SQS emulator': 'LOCAL_SQS_PORT',
  'S3 emulator': 'LOCAL_S3_PORT',
  'SES emulator': 'LOCAL_SES_PORT',
  PostgreSQL: 'LOCAL_POSTGRES_PORT',
  'identity provider': 'LOCAL_IDP_PORT',
} as const;

function portFromEnv(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`${name} must be a port number (0-65535; 0 = any free port), got "${value}"`);
    process.exit(2);
  }
  return port;
}

const ports = {
  router: portFromEnv('PORT', 3000),
  dynamodb: portFromEnv('LOCAL_DYNAMODB_PORT', 8000),
  sqs: portFromEnv('LOCAL_SQS_PORT', 4566),
  s3: portFromEnv('LOCAL_S3_PORT', 4568),
  ses: portFromEnv('LOCAL_SES_PORT', 8005),
  postgres: portFromEnv('LOCAL_POSTGRES_PORT', 5433),
  identityProvider: portFromEnv('LOCAL_IDP_PORT', DEFAULT_IDP_PORT),
};

/** Report requests per organization in 10 minutes: the contract's 10 unless the developer sets another. */
function reportRateLimitFromEnv(): number {
  try {
    return reportRateLimitFrom(process.env);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}
const reportRateLimit = reportRateLimitFromEnv();

/** Every organization's request budget: the contract's 50 per second, bursts of 100, unless REQUEST_BUDGET_RATE / _BURST say otherwise. */
function requestBudgetFromEnv() {
  try {
    return requestBudgetPolicyFrom(process.env);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}
const requestBudget = requestBudgetFromEnv();

/** Every organization's concurrency limit: the contract's 20 and 4, unless CONCURRENCY_PER_ORGANIZATION / DATABASE_CONCURRENCY_PER_ORGANIZATION say otherwise. */
function concurrencyFromEnv() {
  try {
    return concurrencyPolicyFrom(process.env);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}
const concurrency = concurrencyFromEnv();

let stack: LocalStack | undefined;
let removeUsersDatabaseFile: () => Promise<void> = () => Promise.resolve();
let stoppingSince: number | undefined;

async function shutdown(signal: NodeJS.Signals): Promise<void> {
  if (stoppingSince !== undefined) {
    // Ctrl-C reaches npm, tsx and this process at once, and npm and tsx forward it: the same
    // keypress arrives several times. Only a later one means "stop waiting".
    if (Date.now() - stoppingSince < 2_000) return;
    console.error(`\n${signal} again: exiting without waiting`);
    process.exit(130);
  }
  stoppingSince = Date.now();
  console.log(`\n${signal}: stopping the local stack...`);
  await stack?.stop();
  await removeUsersDatabaseFile();
  console.log('stopped');
  process.exit(0);
}
process.on('SIGINT', (signal) => void shutdown(signal));
process.on('SIGTERM', (signal) => void shutdown(signal));
process.on('SIGHUP', (signal) => void shutdown(signal));
// However `npm start` is stopped (a signal npm does not pass on, or npm killed outright), this
// process is then re-parented: stop the emulators with it rather than leave them on their ports.
const parentAtStart = process.ppid;
setInterval(() => {
  if (process.ppid !== parentAtStart) void shutdown('SIGHUP');
}, 1_000).unref();

try {
  await ensureDashboardBuilt({ log: (line) => console.log(line) });
} catch (error) {
  console.error('\nCannot build the dashboard (web/):', error);
  process.exit(1);
}

console.log(
  'Starting the local stack (DynamoDB Local, PostgreSQL, SQS, S3, SES emulators, the identity provider and the API router)...',
);
try {
  stack = await startLocalStack({
    port: ports.router,
    emulatorPorts: {
      dynamodb: ports.dynamodb,
      sqs: ports.sqs,
      s3: ports.s3,
      ses: ports.ses,
      postgres: ports.postgres,
    },
    identityProviderPort: ports.identityProvider,
    prettyLogs: true,
    dashboard: true,
    reportRateLimit,
    requestBudget,
    concurrency,
  });
} catch (error) {
  if (error instanceof PortInUseError) {
    const variable = portVariables[error.purpose as keyof typeof portVariables] ?? 'the port variable';
    console.error(
      `\nCannot start: ${error.message}.\nStop whatever uses it, or choose another port: ${variable}=<port> npm start (0 = any free port).`,
    );
  } else {
    console.error('\nCannot start the local stack:', error);
  }
  process.exit(1);
}

let demo: SeededDemoData;
try {
  removeUsersDatabaseFile = await writeUsersDatabaseFile(keysDirectory(), stack.usersDatabase);
  demo = await seedDemoData(stack);
} catch (error) {
  console.error('\nCannot seed the demo users:', error);
  await stack.stop();
  process.exit(1);
}

let token: string;
try {
  // What `npm run -s token` prints: the demo organization's machine client, client credentials.
  token = await stack.machineToken({ orgId: demo.orgId });
} catch (error) {
  console.error('\nThe identity provider issued no token:', error);
  await stack.stop();
  process.exit(1);
}
console.log(localStackBanner({ stack, demo, token }));
