import { DEMO_ORGANIZATION_NAME, WELL_KNOWN_DEMO_USERS } from './demo-users.ts';
import { ensureDashboardBuilt } from './dashboard.ts';
import { PortInUseError, startLocalStack, type LocalStack } from './local-stack.ts';
import { seedDemoData, type SeededDemoData } from './seed-demo-data.ts';
import { writeUsersDatabaseFile } from './users-postgres.ts';
import { keysDirectory } from './dev-keys.ts';

/** `npm start`: the whole service on this machine until Ctrl-C. */

const portVariables = {
  'API router': 'PORT',
  'DynamoDB Local': 'LOCAL_DYNAMODB_PORT',
  'SQS emulator': 'LOCAL_SQS_PORT',
  'S3 emulator': 'LOCAL_S3_PORT',
  'SES emulator': 'LOCAL_SES_PORT',
  PostgreSQL: 'LOCAL_POSTGRES_PORT',
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
};

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

console.log('Starting the local stack (DynamoDB Local, PostgreSQL, SQS, S3, SES emulators and the API router)...');
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
    prettyLogs: true,
    dashboard: true,
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

const token = await stack.issueToken({ orgId: demo.orgId, orgName: DEMO_ORGANIZATION_NAME });
const { baseUrl, endpoints, resources } = stack;
const auth = '-H "Authorization: Bearer $TOKEN"';
console.log(`
Local stack ready in ${(stack.startupMs / 1000).toFixed(1)} s

  Dashboard      ${baseUrl}/   (development sign-in: any organization, e.g. ${demo.orgId}; token kept in the tab's memory)
  API            ${baseUrl}
  SES inbox      ${endpoints.ses}/      (every e-mail the service sends)
  DynamoDB       ${endpoints.dynamodb}
  PostgreSQL     ${stack.usersDatabase.host}:${stack.usersDatabase.port}   (users table; superuser in .local/users-database.json)
  SQS            ${endpoints.sqs}   (queue ${resources.reportQueue.name}, visibility ${resources.reportQueue.visibilityTimeoutSeconds} s, DLQ after ${resources.reportQueue.maxReceiveCount} receives)
  S3             ${endpoints.s3}   (bucket ${resources.reportsBucketName})

Seeded ${demo.users} demo users in org ${demo.orgId} (${DEMO_ORGANIZATION_NAME}), e.g. userId ${demo.exampleUserId}
(${WELL_KNOWN_DEMO_USERS.minor}: a minor with a guardian; ${WELL_KNOWN_DEMO_USERS.flagged}: PEP and sanction matches, several pages;
${WELL_KNOWN_DEMO_USERS.multiScript}: Arabic, Chinese and Devanagari in one report).

Development token for org ${demo.orgId}, all scopes, valid 1 hour
(more: npm run -s token -- --org <id> [--scopes "..."] [--expires-in=<s>]):

  export TOKEN=${token}

Onboarding token:

  curl -i -X POST ${baseUrl}/v1/onboarding-token ${auth} \\
    -H 'Content-Type: application/json' \\
    -d '{"email":"ada@example.com","first_name":"Ada","last_name":"Lovelace"}'

  curl -s ${baseUrl}/v1/onboarding-tokens ${auth}

User report (PDF), step by step:

  # 1. Request it: 202 with the jobId (a 409 names the job already open for this user)
  JOB=$(curl -s -X POST ${baseUrl}/v1/document/api ${auth} \\
    -H 'Content-Type: application/json' -d '{"userId":"${demo.exampleUserId}"}' \\
    | tee /dev/stderr | sed -nE 's/.*"jobId":"([^"]+)".*/\\1/p'); echo

  # 2. Poll until it is COMPLETE (a second or two; the first report after start takes longest).
  #    Without a jobId from step 1 (e.g. 429), or on an error answer, it stops at once.
  [ -n "$JOB" ] && until curl -s ${baseUrl}/v1/document/api/$JOB ${auth} \\
    | tee /dev/stderr | grep -Eq '"status":"(COMPLETE|FAILED)"|"error":'; do echo; sleep 1; done; echo

  # 3. A fresh download address, valid 5 minutes
  URL=$(curl -s ${baseUrl}/v1/document/api/$JOB/url ${auth} \\
    | tee /dev/stderr | sed -E 's/.*"url":"([^"]+)".*/\\1/'); echo

  # 4. Download it
  curl -o report.pdf "$URL"

Report requests are limited to 10 per 10 minutes per organization (each call to step 1 counts).

Webhooks (local mode: http://127.0.0.1 receivers allowed, retries after 1, 2, 4, 8, 16 s;
queue ${resources.webhookQueue.name}). Watch deliveries with a receiver in another terminal:

  node -e "require('http').createServer((q,s)=>{let b='';q.on('data',c=>b+=c).on('end',()=>{console.log(q.headers['webhook-id'],b);s.end()})}).listen(4000)"

  HOOK=$(curl -s -X POST ${baseUrl}/v1/webhooks ${auth} -H 'Content-Type: application/json' \\
    -d '{"url":"http://127.0.0.1:4000/","events":["report.completed","report.failed","onboarding_token.used","onboarding_token.revoked"]}' \\
    | tee /dev/stderr | sed -nE 's/.*"id":"([^"]+)".*/\\1/p'); echo
  curl -s -X POST ${baseUrl}/v1/webhooks/$HOOK/test ${auth}; echo
  curl -s ${baseUrl}/v1/webhooks/$HOOK/deliveries ${auth}; echo

Ctrl-C stops everything.
`);
