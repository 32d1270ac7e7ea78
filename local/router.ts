import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { decodeJwt } from 'jose';
import { DEFAULT_API_TIMEOUT_SECONDS, type ApiRoute } from '#shared/config/api-routes.ts';
import { compileRoutePath } from '#shared/http/route-matcher.ts';
import { memoizeByKey } from './memoize-by-key.ts';
import { createHandlerLoader, type HandlerLoader } from './handler-modules.ts';
import type { InvocationSlots } from './fair-invocation-slots.ts';
import { buildLambdaContext, LOCAL_ACCOUNT_ID, withTimeout } from './lambda-invocation.ts';

/**
 * A node:http server standing in for API Gateway HTTP API with Lambda proxy integrations
 * (payload format 2.0): it matches the route table, builds the event and context Lambda would
 * receive, calls the route's handler in-process and writes its result back.
 */

export interface LocalRouterOptions {
  routes: readonly ApiRoute[];
  /** Answers everything no route matches (`$default`). */
  fallback: { entry: string; name: string };
  /** Default: import the entry file lazily and cache it. */
  loadHandler?: HandlerLoader;
  /** Lambda timeout; the context's remaining time counts down from it. Default 10 s. */
  timeoutMs?: number;
  /** API Gateway's payload limit. Default 10 MB. */
  maxBodyBytes?: number;
  /** Called once per request after the response is written (access log). */
  onResponse?: (entry: AccessLogEntry) => void;
  /** Where handler failures are reported. Default console.error. */
  onError?: (message: string, error: unknown) => void;
  /**
   * Answers requests outside `/v1/` before the routes are matched (the dashboard's files); returns
   * false to leave a request to the routes and the fallback, as API Gateway would see it.
   */
  frontDoor?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  /**
   * Bounds each function's concurrent invocations and takes waiting ones in turn by organization
   * (the bearer token's `tenantClaim`, read unverified: it only orders the queue; the handler still
   * verifies the token). Default: no bound.
   */
  invocationSlots?: { slots: InvocationSlots; tenantClaim: string };
}

export interface AccessLogEntry {
  requestId: string;
  method: string;
  path: string;
  routeKey: string;
  statusCode: number;
  durationMs: number;
}

const LOCAL_API_ID = 'local';
const DEFAULT_TIMEOUT_MS = DEFAULT_API_TIMEOUT_SECONDS * 1000;
const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
/** The only request bodies HTTP APIs pass as UTF-8 text; everything else (even no type) arrives base64. */
const TEXT_MEDIA_TYPES = new Set(['application/json', 'application/xml', 'application/javascript']);

interface MatchedRoute {
  routeKey: string;
  entry: string;
  functionName: string;
  pathParameters?: Record<string, string>;
  /** The route's own Lambda timeout, as deployed. */
  timeoutMs?: number;
}

export function createLocalRouter(options: LocalRouterOptions): Server {
  // The default loader caches already; an injected one (tests) gets the same once-per-entry behaviour.
  const loadHandler = options.loadHandler ? memoizeByKey(options.loadHandler) : createHandlerLoader();
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBodyBytes = options.maxBodyBytes ?? API_GATEWAY_MAX_BODY_BYTES;
  const onError = options.onError ?? ((message, error) => console.error(message, error));
  const matchers = options.routes.map((route) => ({ route, match: compileRoutePath(route.path) }));

  function matchRoute(method: string, rawPath: string): MatchedRoute {
    for (const { route, match } of matchers) {
      if (route.method !== method) continue;
      const pathParameters = match(rawPath);
      if (!pathParameters) continue;
      return {
        routeKey: `${route.method} ${route.path}`,
        entry: route.entry,
        functionName: route.name,
        ...(route.timeoutSeconds ? { timeoutMs: route.timeoutSeconds * 1000 } : {}),
        ...(Object.keys(pathParameters).length > 0 ? { pathParameters } : {}),
      };
    }
    return { routeKey: '$default', entry: options.fallback.entry, functionName: options.fallback.name };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.frontDoor && !(req.url ?? '/').startsWith('/v1/') && (await options.frontDoor(req, res))) return;
    const startedAt = Date.now();
    const requestId = randomUUID();
    const method = (req.method ?? 'GET').toUpperCase();
    const url = req.url ?? '/';
    const queryStart = url.indexOf('?');
    const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
    const rawQueryString = queryStart === -1 ? '' : url.slice(queryStart + 1);
    const route = matchRoute(method, rawPath);
    res.setHeader('apigw-requestid', requestId);
    const finish = (statusCode: number): void =>
      options.onResponse?.({
        requestId,
        method,
        path: rawPath,
        routeKey: route.routeKey,
        statusCode,
        durationMs: Date.now() - startedAt,
      });

    const body = await readBody(req, maxBodyBytes);
    if (body === 'too-large') {
      writeStandardError(res, {
        requestId,
        method,
        path: rawPath,
        status: 413,
        error: 'PAYLOAD_TOO_LARGE',
        message: 'request body is too large',
      });
      return finish(413);
    }

    const event = buildEvent({ req, requestId, method, rawPath, rawQueryString, route, body, startedAt });
    const routeTimeoutMs = route.timeoutMs ?? timeoutMs;
    const release = await options.invocationSlots?.slots.acquire(
      route.functionName,
      tenantOf(event.headers.authorization, options.invocationSlots.tenantClaim),
    );
    // Lambda's clock starts when the invocation does, not while it waits for a container.
    const context = buildLambdaContext(route.functionName, routeTimeoutMs);
    let result: unknown;
    try {
      const handler = await loadHandler(route.entry);
      result = await withTimeout(handler(event, context), routeTimeoutMs);
    } catch (error) {
      onError(
        `[local-router] ${route.routeKey} ${method} ${rawPath} failed (request ${requestId}, invocation ${context.awsRequestId}):`,
        error,
      );
      writeStandardError(res, {
        requestId,
        method,
        path: rawPath,
        status: 500,
        error: 'INTERNAL_SERVER_ERROR',
        message: 'internal error',
      });
      return finish(500);
    } finally {
      release?.();
    }
    const statusCode = writeResult(res, result);
    finish(statusCode);
  }

  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      onError('[local-router] could not answer a request:', error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': JSON_CONTENT_TYPE });
      res.end();
    });
  });
}

/** The organization a request claims to be from, for ordering only; '' for no or unreadable token. */
function tenantOf(authorization: string | undefined, claim: string): string {
  const token = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  if (!token) return '';
  try {
    const value = decodeJwt(token)[claim];
    return typeof value === 'string' ? value : '';
  } catch {
    return '';
  }
}

type ReadBody = Buffer | 'too-large';

/** Reads the whole body; past the limit the rest is drained and discarded so the 413 can still be read. */
function readBody(req: IncomingMessage, maxBytes: number): Promise<ReadBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length'] ?? 0) > maxBytes;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > maxBytes) {
        tooLarge = true;
        chunks.length = 0;
      } else {
        chunks.push(chunk);
      }
    });
    req.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

interface EventInput {
  req: IncomingMessage;
  requestId: string;
  method: string;
  rawPath: string;
  rawQueryString: string;
  route: MatchedRoute;
  body: Buffer;
  startedAt: number;
}

function buildEvent({
  req,
  requestId,
  method,
  rawPath,
  rawQueryString,
  route,
  body,
  startedAt,
}: EventInput): APIGatewayProxyEventV2 {
  const headers = joinHeaders(req.rawHeaders);
  const cookies = headers.cookie
    ?.split(';')
    .map((cookie) => cookie.trim())
    .filter(Boolean);
  delete headers.cookie;
  const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const host = headers.host ?? 'localhost';
  headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${sourceIp}` : sourceIp;
  headers['x-forwarded-port'] = String(req.socket.localPort ?? '');
  headers['x-forwarded-proto'] = 'http';
  headers['x-amzn-trace-id'] ??=
    `Root=1-${Math.floor(startedAt / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;

  const hostname = host.replace(/:\d+$/, '');
  const isIpAddress = /^[\d.]+$/.test(hostname) || hostname.startsWith('[');
  const hasBody = body.length > 0;
  const binary = hasBody && !isTextContentType(headers['content-type']);

  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath,
    rawQueryString,
    ...(cookies && cookies.length > 0 ? { cookies } : {}),
    headers,
    ...(rawQueryString ? { queryStringParameters: parseQueryString(rawQueryString) } : {}),
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: LOCAL_API_ID,
      domainName: host,
      domainPrefix: isIpAddress ? LOCAL_API_ID : (hostname.split('.')[0] as string),
      http: {
        method,
        path: rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: route.routeKey,
      stage: '$default',
      time: formatRequestTime(new Date(startedAt)),
      timeEpoch: startedAt,
    },
    ...(route.pathParameters ? { pathParameters: route.pathParameters } : {}),
    ...(hasBody ? { body: body.toString(binary ? 'base64' : 'utf8') } : {}),
    isBase64Encoded: binary,
  };
  return event;
}

/** Lower-cased names; repeated headers joined with ',' as HTTP APIs do. */
function joinHeaders(rawHeaders: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  return headers;
}

/** Decoded values; a repeated key's values joined with ','. */
function parseQueryString(rawQueryString: string): Record<string, string> {
  const parameters: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    parameters[key] = key in parameters ? `${parameters[key]},${value}` : value;
  }
  return parameters;
}

function isTextContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = (contentType.split(';')[0] as string).trim().toLowerCase();
  return mediaType.startsWith('text/') || TEXT_MEDIA_TYPES.has(mediaType);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** API Gateway's `12/Mar/2020:19:03:58 +0000`. */
function formatRequestTime(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

/**
 * Writes a payload-2.0 result. A structured result (has `statusCode`) is taken as is; anything
 * else is what API Gateway infers: 200, JSON, the value serialised (a string as it is).
 */
function writeResult(res: ServerResponse, result: unknown): number {
  if (!isStructuredResult(result)) {
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return 200;
  }
  const statusCode = result.statusCode ?? 200;
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name.toLowerCase(), String(value));
  if (result.cookies && result.cookies.length > 0) res.setHeader('set-cookie', result.cookies);
  const body =
    result.body === undefined ? Buffer.alloc(0) : Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8');
  res.setHeader('content-length', body.length);
  if (!res.hasHeader('content-type') && body.length > 0) res.setHeader('content-type', 'application/json');
  res.writeHead(statusCode);
  res.end(body);
  return statusCode;
}

function isStructuredResult(result: unknown): result is APIGatewayProxyStructuredResultV2 {
  return typeof result === 'object' && result !== null && 'statusCode' in result;
}

interface StandardError {
  requestId: string;
  method: string;
  path: string;
  status: number;
  error: string;
  message: string;
}

/** The contract's standard error body, for answers the gateway gives itself. */
function writeStandardError(res: ServerResponse, e: StandardError): void {
  const body = JSON.stringify({
    code: e.status,
    timestamp: new Date().toISOString(),
    path: e.path,
    method: e.method,
    error: e.error,
    message: e.message,
  });
  res.writeHead(e.status, {
    'content-type': JSON_CONTENT_TYPE,
    'content-length': Buffer.byteLength(body),
    'x-request-id': e.requestId,
  });
  res.end(body);
}
