import { DEMO_STAFF } from './demo-staff.ts';
import { INBOX_PATH } from './inbox-viewer.ts';
import { DEMO_ORGANIZATION_NAME, WELL_KNOWN_DEMO_USERS } from './demo-users.ts';
import type { LocalStack } from './local-stack.ts';
import type { SeededDemoData } from './seed-demo-data.ts';

export interface BannerInput {
  stack: Pick<
    LocalStack,
    'baseUrl' | 'endpoints' | 'resources' | 'startupMs' | 'reportRateLimit' | 'identityProvider'
  > & {
    usersDatabase: Pick<LocalStack['usersDatabase'], 'host' | 'port'>;
  };
  demo: SeededDemoData;
  /** An access token for the demo organization from the identity provider (its machine client). */
  token: string;
}

/**
 * What `npm start` prints once the stack is up: where everything listens, and calls to copy. The
 * first command sets `API_URL` and `API_TOKEN`, the variables the `onboarding` CLI reads, and
 * every call after it uses them.
 */
export function localStackBanner({ stack, demo, token }: BannerInput): string {
  const { baseUrl, endpoints, resources } = stack;
  const auth = '-H "Authorization: Bearer $API_TOKEN"';
  const staff = DEMO_STAFF.map((member) => `${member.email} / ${member.password} (${member.role})`).join(
    '\n                 ',
  );
  return `
Local stack ready in ${(stack.startupMs / 1000).toFixed(1)} s

  Dashboard      ${baseUrl}/   (sign in as one of the staff below)
  Staff          ${staff}
  Sign-in        ${stack.identityProvider.issuer}   (OpenID Connect provider; the API trusts its JWKS)
  API            ${baseUrl}
  Inbox          ${baseUrl}${INBOX_PATH}   (every e-mail the service sends; HTML shown sandboxed)
  SES            ${endpoints.ses}
  DynamoDB       ${endpoints.dynamodb}
  PostgreSQL     ${stack.usersDatabase.host}:${stack.usersDatabase.port}   (users table; superuser in .local/users-database.json)
  SQS            ${endpoints.sqs}   (queue ${resources.reportQueue.name}, visibility ${resources.reportQueue.visibilityTimeoutSeconds} s, DLQ after ${resources.reportQueue.maxReceiveCount} receives)
  S3             ${endpoints.s3}   (bucket ${resources.reportsBucketName})

Seeded ${demo.users} demo users in org ${demo.orgId} (${DEMO_ORGANIZATION_NAME}), e.g. userId ${demo.exampleUserId}
(${WELL_KNOWN_DEMO_USERS.minor}: a minor with a guardian; ${WELL_KNOWN_DEMO_USERS.flagged}: PEP and sanction matches, several pages;
${WELL_KNOWN_DEMO_USERS.multiScript}: Arabic, Chinese and Devanagari in one report).

In another terminal, the API's address and an access token for org ${demo.orgId} (its machine client, client
credentials), every scope but users:erase, valid 1 hour (the variables the onboarding CLI reads; more tokens, any
organization, users:erase when asked for: npm run -s token -- --org <id> [--scopes "..."] [--expires-in=<s>]):

  export API_URL=${baseUrl} API_TOKEN=${token}

Onboarding token:

  curl -i -X POST "$API_URL/v1/onboarding-token" ${auth} \\
    -H 'Content-Type: application/json' \\
    -d '{"email":"ada@example.com","first_name":"Ada","last_name":"Lovelace"}'

  curl -s "$API_URL/v1/onboarding-tokens" ${auth}

User report (PDF), step by step:

  # 1. Request it: 202 with the jobId (a 409 names the job already open for this user)
  JOB=$(curl -s -X POST "$API_URL/v1/document/api" ${auth} \\
    -H 'Content-Type: application/json' -d '{"userId":"${demo.exampleUserId}"}' \\
    | tee /dev/stderr | sed -nE 's/.*"jobId":"([^"]+)".*/\\1/p'); echo

  # 2. Poll until it is COMPLETE (a second or two; the first report after start takes longest).
  #    Without a jobId from step 1 (e.g. 429), or on an error answer, it stops at once.
  [ -n "$JOB" ] && until curl -s "$API_URL/v1/document/api/$JOB" ${auth} \\
    | tee /dev/stderr | grep -Eq '"status":"(COMPLETE|FAILED)"|"error":'; do echo; sleep 1; done; echo

  # 3. A fresh download address, valid 5 minutes
  URL=$(curl -s "$API_URL/v1/document/api/$JOB/url" ${auth} \\
    | tee /dev/stderr | sed -E 's/.*"url":"([^"]+)".*/\\1/'); echo

  # 4. Download it
  curl -o report.pdf "$URL"

Report requests are limited to ${stack.reportRateLimit} per 10 minutes per organization (each call to step 1 counts;
REPORT_RATE_LIMIT=<n> npm start sets another limit for the local stack).

Webhooks (local mode: http://127.0.0.1 receivers allowed, retries after 1, 2, 4, 8, 16 s;
queue ${resources.webhookQueue.name}). Watch deliveries with a receiver in another terminal:

  node -e "require('http').createServer((q,s)=>{let b='';q.on('data',c=>b+=c).on('end',()=>{console.log(q.headers['webhook-id'],b);s.end()})}).listen(4000,'127.0.0.1')"

  HOOK=$(curl -s -X POST "$API_URL/v1/webhooks" ${auth} -H 'Content-Type: application/json' \\
    -d '{"url":"http://127.0.0.1:4000/","events":["report.completed","report.failed","onboarding_token.used","onboarding_token.revoked"]}' \\
    | tee /dev/stderr | sed -nE 's/.*"id":"([^"]+)".*/\\1/p'); echo
  curl -s -X POST "$API_URL/v1/webhooks/$HOOK/test" ${auth}; echo
  curl -s "$API_URL/v1/webhooks/$HOOK/deliveries" ${auth}; echo

The same with the CLI (npm link once, or npm run -s cli -- instead of onboarding): onboarding --help

Ctrl-C stops everything.
`;
}
