import { PortInUseError, startLocalStack, type LocalStack } from './local-stack.ts';

/** `npm start`: the whole service on this machine until Ctrl-C. */

const portVariables = {
  'API router': 'PORT',
  'DynamoDB Local': 'LOCAL_DYNAMODB_PORT',
  'SQS emulator': 'LOCAL_SQS_PORT',
  'S3 emulator': 'LOCAL_S3_PORT',
  'SES emulator': 'LOCAL_SES_PORT',
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
};

let stack: LocalStack | undefined;
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
  console.log('stopped');
  process.exit(0);
}
process.on('SIGINT', (signal) => void shutdown(signal));
process.on('SIGTERM', (signal) => void shutdown(signal));
process.on('SIGHUP', (signal) => void shutdown(signal));

console.log('Starting the local stack (DynamoDB Local, SQS, S3, SES emulators and the API router)...');
try {
  stack = await startLocalStack({
    port: ports.router,
    emulatorPorts: { dynamodb: ports.dynamodb, sqs: ports.sqs, s3: ports.s3, ses: ports.ses },
    prettyLogs: true,
  });
} catch (error) {
  if (error instanceof PortInUseError) {
    const variable = portVariables[error.purpose as keyof typeof portVariables] ?? 'the port variable';
    console.error(`\nCannot start: ${error.message}.\nStop whatever uses it, or choose another port: ${variable}=<port> npm start (0 = any free port).`);
  } else {
    console.error('\nCannot start the local stack:', error);
  }
  process.exit(1);
}

const token = await stack.issueToken({ orgId: 'demo-org', orgName: 'Demo Org' });
const { baseUrl, endpoints } = stack;
console.log(`
Local stack ready in ${(stack.startupMs / 1000).toFixed(1)} s

  API            ${baseUrl}
  SES inbox      ${endpoints.ses}/      (every e-mail the service sends)
  DynamoDB       ${endpoints.dynamodb}
  SQS            ${endpoints.sqs}
  S3             ${endpoints.s3}   (bucket ${stack.resources.reportsBucketName})

Development token for org demo-org, all scopes, valid 1 hour
(more: npm run -s token -- --org <id> [--scopes "..."] [--expires-in=<s>]):

  export TOKEN=${token}

Try it:

  curl -i -X POST ${baseUrl}/v1/onboarding-token \\
    -H "Authorization: Bearer $TOKEN" \\
    -H 'Content-Type: application/json' \\
    -d '{"email":"ada@example.com","first_name":"Ada","last_name":"Lovelace"}'

  curl -s ${baseUrl}/v1/onboarding-tokens -H "Authorization: Bearer $TOKEN"

Ctrl-C stops everything.
`);
