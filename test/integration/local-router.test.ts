import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiRoute } from '#shared/config/api-routes.ts';
import type { LambdaHandler } from '#local/handler-modules.ts';
import { createFairInvocationSlots } from '#local/fair-invocation-slots.ts';
import { createLocalRouter } from '#local/router.ts';

/** The router alone, with tiny inline handlers: what API Gateway would hand a Lambda, and what it makes of the answer. */

const routes: ApiRoute[] = [
  { method: 'POST', path: '/v1/things', entry: 'echo', name: 'CreateThing' },
  { method: 'GET', path: '/v1/things/{thingId}', entry: 'echo', name: 'GetThing' },
  { method: 'GET', path: '/v1/boom', entry: 'boom', name: 'Boom' },
  { method: 'GET', path: '/v1/binary', entry: 'binary', name: 'Binary' },
  { method: 'GET', path: '/v1/inferred', entry: 'inferred', name: 'Inferred' },
  { method: 'GET', path: '/v1/slow', entry: 'slow', name: 'Slow' },
];

interface Invocation {
  event: APIGatewayProxyEventV2;
  context: Context;
  remainingMs: number;
}

let invocations: Invocation[] = [];
const loads: string[] = [];

const echo: LambdaHandler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = async (event, context) => {
  invocations.push({ event, context, remainingMs: context.getRemainingTimeInMillis() });
  return {
    statusCode: 201,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': event.requestContext.requestId,
      'x-count': 7,
    },
    cookies: ['a=1; Path=/', 'b=2; HttpOnly'],
    body: JSON.stringify({ ok: true }),
  };
};

const handlers: Record<string, LambdaHandler> = {
  echo: echo as LambdaHandler,
  fallback: async (event) => {
    invocations.push({ event: event as APIGatewayProxyEventV2, context: undefined as never, remainingMs: 0 });
    return { statusCode: 404, headers: { 'content-type': 'application/json; charset=utf-8' }, body: '{"code":404}' };
  },
  boom: async () => {
    throw new Error('table Secret-Table-Name is on fire');
  },
  binary: async () => ({
    statusCode: 200,
    headers: { 'content-type': 'application/pdf' },
    body: Buffer.from([0x25, 0x50, 0x44, 0x46, 0xff]).toString('base64'),
    isBase64Encoded: true,
  }),
  inferred: async () => ({ hello: 'world' }),
  slow: () => new Promise((resolve) => setTimeout(() => resolve({ statusCode: 200 }), 1_000)),
};

let server: Server;
let baseUrl: string;
const errors: unknown[] = [];

beforeAll(async () => {
  server = createLocalRouter({
    routes,
    fallback: { entry: 'fallback', name: 'RouteNotFound' },
    loadHandler: async (entry) => {
      loads.push(entry);
      const handler = handlers[entry];
      if (!handler) throw new Error(`no handler ${entry}`);
      return handler;
    },
    timeoutMs: 10_000,
    maxBodyBytes: 1024,
    onError: (_message, error) => errors.push(error),
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  invocations = [];
});

describe('local router', () => {
  it('builds a payload 2.0 event and a Lambda context for a matched route', async () => {
    // node:http, not fetch: fetch folds a repeated header into one line before sending.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(`${baseUrl}/v1/things?b=2&a=x%20y&b=3`, { method: 'POST' }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.setHeader('Content-Type', 'application/json');
      req.setHeader('X-Multi', ['one', 'two']);
      req.setHeader('Cookie', 'session=abc; theme=dark');
      req.setHeader('User-Agent', 'router-test/1.0');
      req.on('error', reject);
      req.end(JSON.stringify({ name: 'Zoë' }));
    });

    expect(status).toBe(201);
    expect(invocations).toHaveLength(1);
    const { event, context, remainingMs } = invocations[0]!;
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'POST /v1/things',
      rawPath: '/v1/things',
      rawQueryString: 'b=2&a=x%20y&b=3',
      cookies: ['session=abc', 'theme=dark'],
      queryStringParameters: { a: 'x y', b: '2,3' },
      body: '{"name":"Zoë"}',
      isBase64Encoded: false,
    });
    expect(event.pathParameters).toBeUndefined();
    expect(event.headers).toMatchObject({
      'content-type': 'application/json',
      'x-multi': 'one,two',
      'user-agent': 'router-test/1.0',
    });
    expect(event.headers.cookie).toBeUndefined();
    expect(Object.keys(event.headers).every((name) => name === name.toLowerCase())).toBe(true);
    expect(event.requestContext).toMatchObject({
      accountId: expect.any(String),
      apiId: expect.any(String),
      domainName: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
      domainPrefix: expect.any(String),
      http: {
        method: 'POST',
        path: '/v1/things',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'router-test/1.0',
      },
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      routeKey: 'POST /v1/things',
      stage: '$default',
      time: expect.stringMatching(/^\d{2}\/[A-Z][a-z]{2}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/),
      timeEpoch: expect.any(Number),
    });
    expect(Math.abs(event.requestContext.timeEpoch - Date.now())).toBeLessThan(5_000);

    expect(context).toMatchObject({
      awsRequestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      functionName: expect.stringContaining('CreateThing'),
      functionVersion: '$LATEST',
      invokedFunctionArn: expect.stringMatching(/^arn:aws:lambda:[a-z0-9-]+:\d{12}:function:.*CreateThing$/),
      memoryLimitInMB: expect.any(String),
      logGroupName: expect.stringContaining('/aws/lambda/'),
      logStreamName: expect.any(String),
      callbackWaitsForEmptyEventLoop: true,
    });
    expect(context.awsRequestId).not.toBe(event.requestContext.requestId);
    expect(remainingMs).toBeGreaterThan(9_000);
    expect(remainingMs).toBeLessThanOrEqual(10_000);
  });

  it('writes the status, headers, cookies and body the handler returns', async () => {
    const response = await fetch(`${baseUrl}/v1/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });

    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('x-count')).toBe('7');
    expect(response.headers.get('x-request-id')).toBe(invocations[0]!.event.requestContext.requestId);
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; HttpOnly']);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('passes path parameters, decoded, with the route key naming the template', async () => {
    await fetch(`${baseUrl}/v1/things/abc%40123`);

    const { event } = invocations[0]!;
    expect(event.routeKey).toBe('GET /v1/things/{thingId}');
    expect(event.pathParameters).toEqual({ thingId: 'abc@123' });
    expect(event.rawQueryString).toBe('');
    expect(event.queryStringParameters).toBeUndefined();
    expect(event.body).toBeUndefined();
    expect(event.isBase64Encoded).toBe(false);
  });

  it('base64-encodes bodies that are not text, as HTTP APIs do', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251]);
    await fetch(`${baseUrl}/v1/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    await fetch(`${baseUrl}/v1/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1',
    });
    await fetch(`${baseUrl}/v1/things`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: 'plain',
    });

    expect(invocations.map(({ event }) => [event.isBase64Encoded, event.body])).toEqual([
      [true, bytes.toString('base64')],
      [true, Buffer.from('a=1').toString('base64')],
      [false, 'plain'],
    ]);
  });

  it('decodes a base64 response body', async () => {
    const response = await fetch(`${baseUrl}/v1/binary`);

    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from([0x25, 0x50, 0x44, 0x46, 0xff]));
  });

  it('answers a non-structured result as API Gateway infers it: 200 with the value as JSON', async () => {
    const response = await fetch(`${baseUrl}/v1/inferred`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ hello: 'world' });
  });

  it('sends an unknown path, or a known path with another method, to the fallback as $default', async () => {
    const unknown = await fetch(`${baseUrl}/v1/nothing-here?x=1`);
    const wrongMethod = await fetch(`${baseUrl}/v1/things`, { method: 'DELETE' });

    expect(unknown.status).toBe(404);
    expect(wrongMethod.status).toBe(404);
    expect(
      invocations.map(({ event }) => [
        event.routeKey,
        event.requestContext.routeKey,
        event.requestContext.http.method,
        event.rawPath,
      ]),
    ).toEqual([
      ['$default', '$default', 'GET', '/v1/nothing-here'],
      ['$default', '$default', 'DELETE', '/v1/things'],
    ]);
  });

  it('answers a handler that throws with a 500 standard body that reveals nothing', async () => {
    const response = await fetch(`${baseUrl}/v1/boom`);

    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({
      code: 500,
      timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      path: '/v1/boom',
      method: 'GET',
      error: 'INTERNAL_SERVER_ERROR',
      message: 'internal error',
    });
    expect(text).not.toContain('Secret-Table-Name');
    expect(errors.at(-1)).toBeInstanceOf(Error);
  });

  it('refuses a body over the payload limit with 413 and the standard body', async () => {
    const response = await fetch(`${baseUrl}/v1/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(2048),
    });

    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      code: 413,
      path: '/v1/things',
      method: 'POST',
      error: 'PAYLOAD_TOO_LARGE',
    });
    expect(invocations).toHaveLength(0);
  });

  it('imports each entry once and reuses it, like a warm Lambda', async () => {
    await fetch(`${baseUrl}/v1/things/1`);
    await fetch(`${baseUrl}/v1/things/2`);

    expect(loads.filter((entry) => entry === 'echo')).toHaveLength(1);
  });
});

describe('local router timeout', () => {
  it('ends an invocation that outlives the Lambda timeout with a 500', async () => {
    const timeoutErrors: unknown[] = [];
    const shortTimeout = createLocalRouter({
      routes,
      fallback: { entry: 'fallback', name: 'RouteNotFound' },
      loadHandler: async (entry) => handlers[entry]!,
      timeoutMs: 100,
      onError: (_message, error) => timeoutErrors.push(error),
    });
    await new Promise<void>((resolve) => shortTimeout.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(shortTimeout.address() as AddressInfo).port}/v1/slow`);
      expect(response.status).toBe(500);
      expect(String(timeoutErrors[0])).toContain('Task timed out after 0.10 seconds');
    } finally {
      shortTimeout.closeAllConnections();
      await new Promise<void>((resolve) => shortTimeout.close(() => resolve()));
    }
  });
});

describe('local router invocation slots', () => {
  it('runs one function’s invocations a slot at a time, in turn by organization, each with its full timeout', async () => {
    const started: Array<{ org: string; remainingMs: number }> = [];
    let running = 0;
    let mostRunning = 0;
    const gated: LambdaHandler<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> = async (event, context) => {
      running++;
      mostRunning = Math.max(mostRunning, running);
      started.push({ org: event.headers['x-org'] ?? '', remainingMs: context.getRemainingTimeInMillis() });
      await new Promise((resolve) => setTimeout(resolve, 150));
      running--;
      return { statusCode: 204 };
    };
    const slotted = createLocalRouter({
      routes: [{ method: 'GET', path: '/v1/gated', entry: 'gated', name: 'Gated' }],
      fallback: { entry: 'fallback', name: 'RouteNotFound' },
      loadHandler: async (entry) => (entry === 'gated' ? (gated as LambdaHandler) : handlers[entry]!),
      timeoutMs: 1_000,
      invocationSlots: { slots: createFairInvocationSlots({ slotsPerFunction: 1 }), tenantClaim: 'org_id' },
    });
    await new Promise<void>((resolve) => slotted.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(slotted.address() as AddressInfo).port}/v1/gated`;
    // Unsigned tokens: the router reads the claim only to order its queue (the handler would verify it).
    const tokenOf = (org: string) =>
      `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ org_id: org })).toString('base64url')}.`;
    const call = (org: string) =>
      fetch(url, { headers: { authorization: `Bearer ${tokenOf(org)}`, 'x-org': org } }).then((r) => r.status);
    try {
      const first = call('org-a');
      await new Promise((resolve) => setTimeout(resolve, 50));
      const burst = [call('org-a'), call('org-a'), call('org-a')];
      await new Promise((resolve) => setTimeout(resolve, 50));
      const quiet = call('org-b');
      expect(await Promise.all([first, ...burst, quiet])).toEqual([204, 204, 204, 204, 204]);
      expect(mostRunning).toBe(1);
      // org-b arrived after org-a's three queued calls, and went second all the same.
      expect(started.map(({ org }) => org)).toEqual(['org-a', 'org-a', 'org-b', 'org-a', 'org-a']);
      for (const { remainingMs } of started) expect(remainingMs).toBeGreaterThan(900);
    } finally {
      slotted.closeAllConnections();
      await new Promise<void>((resolve) => slotted.close(() => resolve()));
    }
  });
});
