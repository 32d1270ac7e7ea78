import { allTables } from '#shared/config/table-definitions.ts';
import { generateSigningKey, jwksOf, TEST_AUDIENCE, TEST_ISSUER, type TestSigningKey } from '#test/support/jwt.ts';

/**
 * What CDK sets in the functions' environment (plus what the Lambda runtime sets), with dummy
 * values: enough for every function's configuration to validate at cold start. Nothing here makes
 * a handler reach the network at import.
 */
export interface LambdaEnvironment {
  env: Record<string, string>;
  /** The key whose public half is in `JWKS_JSON`, to sign tokens the handlers accept. */
  signingKey: TestSigningKey;
}

export async function lambdaEnvironment(): Promise<LambdaEnvironment> {
  const signingKey = await generateSigningKey('ES256');
  const env: Record<string, string> = {
    AWS_REGION: 'eu-west-1',
    AWS_DEFAULT_REGION: 'eu-west-1',
    AWS_ACCESS_KEY_ID: 'AKIABENCHMARK0000000',
    AWS_SECRET_ACCESS_KEY: 'benchmark-secret-access-key-not-real-000',
    AWS_SESSION_TOKEN: 'benchmark-session-token',
    AWS_LAMBDA_FUNCTION_NAME: 'benchmark-function',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    // As deployed (lib/service-function.ts): stack traces mapped to TypeScript.
    NODE_OPTIONS: '--enable-source-maps',
    POWERTOOLS_SERVICE_NAME: 'onboarding-reports-service',
    POWERTOOLS_TRACER_CAPTURE_ERROR: 'false',
    // Lambda gives every invocation a trace segment; run in-process there is none, and the X-Ray
    // SDK would log an error per SDK call (time the deployed functions never spend).
    AWS_XRAY_CONTEXT_MISSING: 'IGNORE_ERROR',
    AWS_LAMBDA_LOG_LEVEL: 'INFO',
    JWT_ISSUER: TEST_ISSUER,
    JWT_AUDIENCE: TEST_AUDIENCE,
    JWKS_JSON: JSON.stringify(jwksOf(signingKey)),
    ORG_CLAIM: 'org_id',
    ORG_NAME_CLAIM: 'org_name',
    SENDER_EMAIL: 'no-reply@example.com',
    ONBOARDING_TEMPLATE_NAME: 'onboarding-token',
    REPORT_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/report-jobs',
    REPORT_DLQ_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/report-jobs-dlq',
    REPORTS_BUCKET_NAME: 'benchmark-reports-bucket',
    WEBHOOK_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-deliveries',
    WEBHOOK_SLOW_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhook-deliveries-slow',
    SANDBOX_WIPE_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/123456789012/sandbox-wipes',
    WEBHOOK_SECRETS_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/00000000-0000-4000-8000-000000000000',
    // The worker and the certificate publisher sign with it (lib/report-signing-construct.ts).
    REPORT_SIGNING_KEY_ID: 'arn:aws:kms:eu-west-1:123456789012:key/11111111-1111-4111-8111-111111111111',
    // The e-mail sending functions send through it (lib/mail-construct.ts).
    SES_CONFIGURATION_SET: 'benchmark-onboarding',
    // As lib/users-database-construct.ts `usersDatabaseEnvironmentFor` sets them: a DSQL endpoint, the
    // reader role, IAM tokens. The pool connects on first use only, so loading a function never does.
    USERS_DATABASE_HOST: 'benchmarkclusteridentifier000.dsql.eu-west-1.on.aws',
    USERS_DATABASE_USER: 'users_reader',
    USERS_DATABASE_AUTH: 'dsql',
    // The erasure function's own role (SELECT and DELETE on users).
    USERS_ERASER_DATABASE_USER: 'users_eraser',
    USERS_SANDBOX_WRITER_DATABASE_USER: 'users_sandbox_writer',
  };
  for (const table of allTables) env[table.envVar] = `benchmark-${table.id}`;
  return { env, signingKey };
}

/** A process environment with only `PATH` from ours: no endpoints, profiles or extra CA certificates leak in. */
export function cleanEnvironment(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env };
}
