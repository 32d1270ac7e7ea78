import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

export interface ApiEventOptions {
  method?: string;
  /** Raw path as the client sent it, e.g. `/v1/onboarding-token`. */
  path?: string;
  /** Header names are lower-cased, as API Gateway HTTP APIs deliver them. */
  headers?: Record<string, string>;
  /** A string is sent as is; anything else is JSON-encoded. `undefined` means no body. */
  body?: unknown;
  isBase64Encoded?: boolean;
  query?: Record<string, string>;
  /** API Gateway's request id; default a fresh id per event. */
  requestId?: string;
  /** Matched route key; default `"{method} {path}"`. Use `$default` for the fallback route. */
  routeKey?: string;
  pathParameters?: Record<string, string>;
}

/**
 * A realistic API Gateway HTTP API (payload format 2.0) event, shaped like the ones the Lambda
 * integration delivers: lower-case header names, `rawQueryString` next to the parsed parameters,
 * and the request context with method, path and request id.
 */
export function apiEvent(options: ApiEventOptions = {}): APIGatewayProxyEventV2 {
  const method = (options.method ?? 'GET').toUpperCase();
  const path = options.path ?? '/';
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-length': '0',
    host: 'abc123.execute-api.eu-west-1.amazonaws.com',
    'user-agent': 'vitest',
    'x-amzn-trace-id': 'Root=1-67000000-000000000000000000000000',
    'x-forwarded-for': '203.0.113.10',
    'x-forwarded-port': '443',
    'x-forwarded-proto': 'https',
  };
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;

  let body: string | undefined;
  if (typeof options.body === 'string') body = options.body;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) {
    headers['content-length'] = String(Buffer.byteLength(body, options.isBase64Encoded ? 'base64' : 'utf8'));
  }

  const now = Date.now();
  const rawQueryString = new URLSearchParams(options.query ?? {}).toString();
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: options.routeKey ?? `${method} ${path}`,
    rawPath: path,
    rawQueryString,
    headers,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.10', userAgent: 'vitest' },
      requestId: options.requestId ?? `req-${randomUUID()}`,
      routeKey: options.routeKey ?? `${method} ${path}`,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    isBase64Encoded: options.isBase64Encoded ?? false,
  };
  if (options.query) event.queryStringParameters = { ...options.query };
  if (options.pathParameters) event.pathParameters = { ...options.pathParameters };
  if (body !== undefined) event.body = body;
  return event;
}

export interface LambdaContextOptions {
  /** What `getRemainingTimeInMillis()` returns; default 30 s. */
  remainingTimeInMillis?: number;
  /** Count the remaining time down from the call, as the runtime does (a worker run for real). */
  countsDown?: boolean;
  functionName?: string;
}

/** A Lambda context as the runtime passes it, with a working `getRemainingTimeInMillis`. */
export function lambdaContext(options: LambdaContextOptions = {}): Context {
  const functionName = options.functionName ?? 'test-function';
  const remaining = options.remainingTimeInMillis ?? 30_000;
  const deadline = Date.now() + remaining;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: '2025/01/01/[$LATEST]00000000000000000000000000000000',
    getRemainingTimeInMillis: () => (options.countsDown ? Math.max(0, deadline - Date.now()) : remaining),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
