import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { HttpRequest, InitializeHandlerOptions, MiddlewareStack } from '@smithy/types';
import { DependencyUnavailableError } from '#shared/domain/errors.ts';
import { awsSdkLogger } from '#shared/observability/logger.ts';
import { traceAwsClient } from '#shared/observability/tracer.ts';
import { isDependencyUnavailable } from './aws-errors.ts';
import { isDeadlineAbort, requestDeadline } from '#shared/support/request-deadline.ts';
import { processEnvironment } from '#shared/config/process-environment.ts';

/**
 * AWS clients are created once per cold start, at module scope of each function entry point.
 * Endpoints come from the SDK's own `AWS_ENDPOINT_URL_<SERVICE>` variables, so the local stack
 * points the same code at emulators without a code branch.
 *
 * Every client turns a final failure that means "the service is throttling, failing or out of
 * reach" into the domain's `DependencyUnavailableError` (after the SDK's own retries), so use
 * cases and the HTTP error mapper never look at SDK error shapes.
 *
 * Each attempt is bounded (`ATTEMPT_TIMEOUT_MS`): an attempt that hangs (one bad connection, one
 * slow partition: a gray failure) is cut off and retried by the SDK on another connection, which
 * most likely answers at once. Every request is also cut off at the invocation's deadline (see
 * request-deadline.ts): a dependency that stays stalled ends in a `DependencyUnavailableError`
 * marked `outcomeUnknown`, in time for the function to answer, never in a function timeout.
 */

/** Connections to AWS endpoints open within milliseconds; one that takes longer is tried afresh. */
const CONNECTION_TIMEOUT_MS = 1_000;

/**
 * How long one attempt may wait for its answer before it is abandoned and retried. Each is far
 * above the service's usual latency and a fraction of the request's deadline, so a retry fits.
 */
export const ATTEMPT_TIMEOUT_MS = {
  /** Single-item reads and writes and transactions: a few milliseconds in DynamoDB. */
  dynamoDbItem: 1_000,
  /** Query and Scan: a page of up to 1 MB. */
  dynamoDbPage: 3_000,
  sqs: 1_000,
  /** A report PDF of up to a few hundred kilobytes each way. */
  s3: 3_000,
  /** The mailer bounds its three attempts together at 3 s, since the API request waits for the e-mail. */
  ses: 1_200,
  kms: 2_000,
  /** One small message to a topic. */
  sns: 1_000,
} as const;

type HandlerOptions = Parameters<NodeHttpHandler['handle']>[1];

/**
 * Node's HTTP handler with a per-attempt timeout that fires (the handler only logs a passed
 * `requestTimeout` unless `throwOnRequestTimeout` is set; the SDK's retry strategy classifies the
 * resulting `TimeoutError` as transient), and each request also aborted by the current
 * invocation's deadline.
 */
class DeadlineBoundHttpHandler extends NodeHttpHandler {
  constructor(private readonly attemptTimeoutMs: (request: HttpRequest) => number) {
    super({ connectionTimeout: CONNECTION_TIMEOUT_MS, throwOnRequestTimeout: true, logger: awsSdkLogger });
  }

  override handle(
    ...[request, options = {}]: Parameters<NodeHttpHandler['handle']>
  ): ReturnType<NodeHttpHandler['handle']> {
    const bounded: HandlerOptions = { ...options, requestTimeout: this.attemptTimeoutMs(request) };
    const deadline = requestDeadline();
    if (!deadline) return super.handle(request, bounded);
    const abortSignal = options.abortSignal
      ? AbortSignal.any([options.abortSignal as AbortSignal, deadline.signal])
      : deadline.signal;
    return super.handle(request, { ...bounded, abortSignal });
  }
}

const DYNAMODB_PAGE_READS = new Set(['DynamoDB_20120810.Query', 'DynamoDB_20120810.Scan']);

/** DynamoDB's operation is in the `x-amz-target` header of its JSON protocol. */
export function dynamoDbAttemptTimeoutMs(request: HttpRequest): number {
  return DYNAMODB_PAGE_READS.has(request.headers['x-amz-target'] ?? '')
    ? ATTEMPT_TIMEOUT_MS.dynamoDbPage
    : ATTEMPT_TIMEOUT_MS.dynamoDbItem;
}

export function createDynamoDbClients(): { client: DynamoDBClient; documents: DynamoDBDocumentClient } {
  const client = new DynamoDBClient({
    logger: awsSdkLogger,
    requestHandler: new DeadlineBoundHttpHandler(dynamoDbAttemptTimeoutMs),
  });
  reportUnavailableAs(client.middlewareStack, 'database');
  traceAwsClient(client);
  const documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { client, documents };
}

let containerClients: ReturnType<typeof createDynamoDbClients> | undefined;

/**
 * The container's one DynamoDB client, created on first use: the function's stores, the request
 * budget and the token verifier's machine-client lookup share its connections and its cold start.
 */
export function containerDynamoDbClients(): ReturnType<typeof createDynamoDbClients> {
  containerClients ??= createDynamoDbClients();
  return containerClients;
}

/** The SQS client of the functions that queue report jobs and webhook events. */
export function createSqsClient(): SQSClient {
  const client = new SQSClient({
    logger: awsSdkLogger,
    requestHandler: new DeadlineBoundHttpHandler(() => ATTEMPT_TIMEOUT_MS.sqs),
  });
  reportUnavailableAs(client.middlewareStack, 'queue');
  return traceAwsClient(client);
}

/**
 * The worker's S3 client: three attempts (the report storage adapter bounds all of them together
 * at 8 s, so rendering, DynamoDB and giving the job back fit the worker's 15 s).
 * `S3_FORCE_PATH_STYLE` lets the local emulator be addressed as `endpoint/bucket/key`.
 */
export function createS3Client(): S3Client {
  const client = new S3Client({
    logger: awsSdkLogger,
    maxAttempts: 3,
    forcePathStyle: processEnvironment.s3ForcePathStyle(),
    // The adapter sends its own SHA-256 checksum, which S3 verifies; no second (CRC32) one.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: new DeadlineBoundHttpHandler(() => ATTEMPT_TIMEOUT_MS.s3),
  });
  reportUnavailableAs(client.middlewareStack, 'storage');
  return traceAwsClient(client);
}

/** The token functions' SES v2 client: three attempts. */
export function createSesClient(): SESv2Client {
  const client = new SESv2Client({
    logger: awsSdkLogger,
    maxAttempts: 3,
    requestHandler: new DeadlineBoundHttpHandler(() => ATTEMPT_TIMEOUT_MS.ses),
  });
  reportUnavailableAs(client.middlewareStack, 'mail');
  return traceAwsClient(client);
}

/** The SES event counter's SNS client, for the operator's alert of an e-mail pause: three attempts. */
export function createSnsClient(): SNSClient {
  const client = new SNSClient({
    logger: awsSdkLogger,
    maxAttempts: 3,
    requestHandler: new DeadlineBoundHttpHandler(() => ATTEMPT_TIMEOUT_MS.sns),
  });
  reportUnavailableAs(client.middlewareStack, 'notifications');
  return traceAwsClient(client);
}

const UNAVAILABLE_MIDDLEWARE: InitializeHandlerOptions & { name: string } = {
  step: 'initialize',
  name: 'reportDependencyUnavailable',
  override: true,
};

/**
 * Outermost middleware (the initialize step runs outside the SDK's retries): the error that is
 * left after every attempt is inspected once. A cancelled transaction is passed on as it is,
 * because its per-item reasons are for the adapter to read.
 */
function reportUnavailableAs<I extends object, O extends object>(
  stack: MiddlewareStack<I, O>,
  dependency: string,
): void {
  stack.add(
    (next) => async (args) => {
      const startedAt = Date.now();
      try {
        return await next(args);
      } catch (error) {
        // A final attempt cut off by its own timeout was sent too: its write may still take effect.
        if (isDeadlineAbort(error) || (error as Error).name === 'TimeoutError') {
          throw new DependencyUnavailableError(dependency, {
            cause: error,
            outcomeUnknown: true,
            retryAfterSeconds: retryAfterStall(Date.now() - startedAt),
          });
        }
        if ((error as Error).name !== 'TransactionCanceledException' && isDependencyUnavailable(error))
          throw new DependencyUnavailableError(dependency, { cause: error });
        throw error;
      }
    },
    UNAVAILABLE_MIDDLEWARE,
  );
}

/** A dependency that gave no answer for `stalledMs` is asked again no sooner than that (2-30 s). */
function retryAfterStall(stalledMs: number): number {
  return Math.min(30, Math.max(2, Math.ceil(stalledMs / 1000)));
}

/** The KMS client that seals and opens webhook secrets: small payloads, answered in milliseconds. */
export function createKmsClient(): KMSClient {
  const client = new KMSClient({
    logger: awsSdkLogger,
    maxAttempts: 3,
    requestHandler: new DeadlineBoundHttpHandler(() => ATTEMPT_TIMEOUT_MS.kms),
  });
  reportUnavailableAs(client.middlewareStack, 'key management');
  return traceAwsClient(client);
}
